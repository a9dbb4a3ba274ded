#!/usr/bin/env bash
# Installs the Debian packages dlcheck needs to build and test, when they are missing.
# Called by `make run` and `make test`; safe to run again (it installs nothing when all is there).
set -euo pipefail

packages=(
  build-essential cmake pkg-config    # compiler and build
  libdnnl-dev                         # oneDNN 2.6.3: the models and the effective-ISA query
  libcpuid-dev                        # libcpuid 0.6.2: the "libcpuid" feature layer
  libhwloc-dev hwloc                  # hwloc 2.9: topology (and hwloc-info/lstopo for comparisons)
  libcli11-dev libfmt-dev nlohmann-json3-dev   # command line, formatting, JSON output
  libgtest-dev                        # unit tests
  zlib1g-dev liblzma-dev xz-utils     # .gz logs and IDX files, .xz CPUID dumps
  mandoc                              # man page lint
  clang libclang-rt-14-dev            # libFuzzer target and sanitizer runtimes
  hyperfine time                      # scripts/bench_parse.sh: side-by-side timing, peak RSS
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "dlcheck setup: installing ${missing[*]}" >&2
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
