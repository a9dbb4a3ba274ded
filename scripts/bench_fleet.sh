#!/usr/bin/env bash
# Benchmark of `dlcheck fleet` (not a test): N host reports (10,000 by default) grouped, with the
# wall time and peak RSS from GNU time. The reports are real: `dlcheck platform --format json` of
# recorded machines (tests/data/cpuid), one file per host, plus one broken file per 1,000 (which
# the fleet must name, not die on).
#
#   scripts/bench_fleet.sh [hosts]        (BUILD=build by default; the binary must be built)
#
# Targets (from the issue): 10,000 reports in under 2 s and under 256 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
hosts=${1:-10000}
build=${BUILD:-build}
dlcheck=$build/dlcheck
[ -x "$dlcheck" ] || { echo "bench_fleet: build dlcheck first (cmake --build $build)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_fleet: needs GNU time (bash scripts/setup.sh bench)" >&2; exit 1; }
dir=$(mktemp -d /tmp/dlcheck_bench_fleet.XXXXXX)
trap 'rm -rf "$dir"' EXIT

machines=(intel-xeon-w9-3475x.test.xz amd-ryzen-9-9950x-16-core-processor.test
          intel-xeon-gold-6330-cpu.test.xz amd-epyc-7763-64-core-processor-dual.test.xz
          intel-core-i7-4770-cpu.test)
for i in "${!machines[@]}"; do
  "$dlcheck" platform --cpuid-dump "tests/data/cpuid/${machines[$i]}" --format json > "$dir/seed$i"
done
# Host k gets machine k % 5 (so five groups); every 1000th file is cut off. One python3 process
# writes them all (a cp per file costs minutes on a loaded machine).
python3 - "$dir" "$hosts" << 'PY'
import sys
d, n = sys.argv[1], int(sys.argv[2])
seeds = [open(f"{d}/seed{i}", "rb").read() for i in range(5)]
for k in range(1, n + 1):
    with open(f"{d}/node{k:05d}.json", "wb") as f:
        f.write(seeds[0][:200] if k % 1000 == 0 else seeds[k % 5])
PY
rm -f "$dir"/seed*
bytes=$(du -sb "$dir" | cut -f1)
echo "bench_fleet: $hosts reports, $((bytes / 1000000)) MB in $dir"
sync
for run in 1 2 3; do
  /usr/bin/time -f "run $run: %e s wall, %U s user, %S s sys, peak RSS %M KiB" \
    "$dlcheck" fleet "$dir" --format json > "$dir.out"
done
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("bench_fleet: groups", d["fleet"]["groups"], "hosts", d["fleet"]["hosts"], "skipped", d["fleet"]["skipped"])' "$dir.out"
rm -f "$dir.out"
