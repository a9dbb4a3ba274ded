#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages dlcheck needs, when they are missing, and optionally goes on.
#
#   bash scripts/setup.sh run     install what `make run` needs, then run it (README, command 1)
#   bash scripts/setup.sh test    install what `make test` needs, then run it (README, command 2)
#   bash scripts/setup.sh [GROUP...]   only install: build (default), tests, ci, bench, models
#
# It works on a bare Debian 12 system (no make, no sudo): it needs only bash, dpkg and apt-get.
# As root it installs directly; otherwise through sudo when sudo exists; otherwise it names the
# packages and the command to run as root, and exits 1. Safe to run again: it installs nothing
# when everything is there.
set -euo pipefail

# build: what building and running dlcheck needs (`make run`), nothing more: no daemon, no
# framework. linux-perf is `dlcheck profile`'s runtime need.
build_packages=(
  build-essential cmake pkg-config    # compiler, make and the build
  libdnnl-dev ocl-icd-opencl-dev      # oneDNN 2.6.3; its CMake config needs the OpenCL files
  libxlsxwriter-dev                   # --format xlsx: typed cells, frozen headers, autofilters
  libcpuid-dev                        # libcpuid 0.6.2: the "libcpuid" feature layer
  libhwloc-dev                        # hwloc 2.9: topology
  libcli11-dev libfmt-dev nlohmann-json3-dev   # command line, formatting, JSON output
  zlib1g-dev liblzma-dev              # .gz logs and IDX files, .xz CPUID dumps
  libarchive-dev                      # .xz, .zst and .bz2 verbose logs (libarchive's raw format)
  linux-perf                          # `dlcheck profile` records with perf
  libelf-dev                          # profile: symbol tables of the callers of JIT kernels
  libzydis-dev                        # profile: the instruction mix (decodes AVX-512 BF16/FP16, AMX)
)
# tests: what only `make test` adds. Some of these ship daemons (munge, slurmctld, slurmd,
# prometheus): they are installed with a policy-rc.d that forbids starting services and their
# units are disabled again afterwards (see install_without_daemons), so setup leaves no daemon
# running or enabled; the fleet integration test starts its own and stops them.
tests_packages=(
  libgtest-dev                        # unit tests
  mandoc                              # the man page lint test
  python3-torch                       # tests of `dlcheck run` on a real framework (~1 GB)
  python3-jsonschema                  # the test that validates every command's JSON (schemas/)
  chromium python3-websocket          # html_browser: every command's --format html in a real
                                      # browser, driven through the DevTools protocol
  slurm-wlm munge pdsh                # the fleet integration test: 3 slurmd, srun, dshbak -c
  procps                              # ps/pgrep: that test checks no daemon is left behind
  prometheus                          # promtool: the fleet test lints the Prometheus textfile
  lintian                             # make deb-test: the package has no lintian error
  libomp5-14                          # tune's audit test: LLVM's OpenMP runtime beside GNU's
  likwid mbw                          # roofline_peer: likwid-bench (stream, load, peakflops)
                                      # and mbw, the peers of `dlcheck roofline`'s figures
)
# ci: what .ci/run adds (the libFuzzer target is built with clang; ASan/UBSan use gcc's runtime;
# `make format-check` holds every source to .clang-format).
ci_packages=(clang libclang-rt-14-dev clang-format)
# bench: scripts/bench_parse.sh (side-by-side timing read with python3, peak RSS with GNU time,
# instructions per byte with callgrind).
bench_packages=(time python3 valgrind)
# models: real data for --data (scripts/bench_models.sh; the PyTorch peers come with test).
models_packages=(dataset-fashion-mnist)

usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

groups=() then=''
for arg in "$@"; do
  case $arg in
    run) then=$arg groups+=(build) ;;
    test) then=$arg groups+=(build tests) ;;
    build | tests | ci | bench | models) groups+=("$arg") ;;
    -h | --help) usage ;;
    *) echo "dlcheck setup: unknown argument '$arg'" >&2; usage ;;
  esac
done
[ ${#groups[@]} -eq 0 ] && groups=(build)

wanted=()
for g in "${groups[@]}"; do
  case $g in
    build) wanted+=("${build_packages[@]}") ;;
    tests) wanted+=("${tests_packages[@]}") ;;
    ci) wanted+=("${ci_packages[@]}") ;;
    bench) wanted+=("${bench_packages[@]}") ;;
    models) wanted+=("${models_packages[@]}") ;;
  esac
done

# Installs "${missing[@]}" (as "$@", e.g. sudo) so that no service of theirs is started or left
# enabled: a policy-rc.d that answers 101 ("action forbidden") while apt runs stops
# invoke-rc.d from starting daemons on any init; afterwards the units of every package this
# install added (dependencies too: slurm-wlm pulls in slurmctld and slurmd) are disabled again.
# Packages that were there before are not looked at: their units are the machine's business.
install_without_daemons() {
  local policy=/usr/sbin/policy-rc.d own_policy=''
  if [ ! -e "$policy" ]; then
    "$@" sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod 755 $policy"
    own_policy=1
  fi
  export DEBIAN_FRONTEND=noninteractive
  local rc=0 before
  before=$(dpkg-query -W -f='${Package}\n' | sort)
  "$@" apt-get update -qq && "$@" apt-get install -y -qq --no-install-recommends "${missing[@]}" || rc=$?
  [ -n "$own_policy" ] && "$@" rm -f "$policy"
  [ $rc -eq 0 ] || exit $rc
  # The units of every package this install added, disabled as `systemctl disable` would:
  # deb-systemd-helper (Debian's, present with or without systemd: a chroot has no systemctl
  # and still gets the .wants links) removes the links and records the unit as disabled, so an
  # upgrade does not enable it again; on a running systemd, systemctl stops what may have started.
  local added unit owner
  added=$(comm -13 <(echo "$before") <(dpkg-query -W -f='${Package}\n' | sort))
  for owner in $added; do
    for unit in $(dpkg -L "$owner" 2>/dev/null | grep -E '^/(usr/)?lib/systemd/system/[^/@]+\.(service|socket|timer)$' | xargs -r -n1 basename); do
      if command -v deb-systemd-helper >/dev/null 2>&1; then
        "$@" env DPKG_MAINTSCRIPT_PACKAGE="$owner" deb-systemd-helper disable "$unit" >/dev/null 2>&1 || true
      fi
      if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
        "$@" systemctl disable --now --quiet "$unit" >/dev/null 2>&1 || true
      fi
    done
  done
}

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  as_root=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      as_root=(sudo)
    else
      echo "dlcheck setup: these Debian packages are missing: ${missing[*]}" >&2
      echo "dlcheck setup: you are not root and there is no sudo; as root, run:" >&2
      echo "  apt-get update && apt-get install --no-install-recommends ${missing[*]}" >&2
      echo "dlcheck setup: then run this command again" >&2
      exit 1
    fi
  fi
  echo "dlcheck setup: installing ${missing[*]}" >&2
  install_without_daemons "${as_root[@]}"
fi

if [ -n "$then" ]; then
  cd "$(dirname "$0")/.."
  exec make "$then"
fi
