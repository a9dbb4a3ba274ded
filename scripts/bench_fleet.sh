#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of `dlcheck fleet` (not a test): N host reports (10,000 by default) grouped, with the
# wall time and peak RSS from GNU time, in two cases:
#   alike:    `dlcheck platform --format json` of five recorded machines (tests/data/cpuid), one
#             file per host, plus one broken file per 1,000 (which the fleet must name, not die
#             on): five groups.
#   distinct: one recorded Sapphire Rapids whose report, host k, lacks the features of k's bits
#             (14 features: every report differs, N groups of one microarchitecture; issue 51
#             class 9, where one note per pair of groups took 178 s and 23 GB), as the report and
#             as --emit slurm-conf.
#
#   scripts/bench_fleet.sh [hosts]        (BUILD=build by default; the binary must be built)
#
# Targets (from the issue): 10,000 reports in under 2 s and under 256 MB, in each case.
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
# Three runs of `dlcheck fleet "$dir" ARGS...` under GNU time, the last one's output in $dir.out.
timed_runs() {
  local label=$1
  shift
  for run in 1 2 3; do
    /usr/bin/time -f "$label run $run: %e s wall, %U s user, %S s sys, peak RSS %M KiB" \
      "$dlcheck" fleet "$dir" "$@" > "$dir.out"
  done
}
summary() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("bench_fleet:", sys.argv[2], "groups", d["fleet"]["groups"], "hosts", d["fleet"]["hosts"], "skipped", d["fleet"]["skipped"], "findings", len(d["findings"]))' "$dir.out" "$1"
}
timed_runs alike --format json
summary alike

# The distinct case: host k lacks the features of k's bits, so no two reports are alike.
rm -f "$dir"/node*.json
"$dlcheck" platform --cpuid-dump "tests/data/cpuid/${machines[0]}" --format json > "$dir/seed"
python3 - "$dir" "$hosts" << 'PY'
import json, sys
d, n = sys.argv[1], int(sys.argv[2])
seed = json.load(open(f"{d}/seed"))
features = [f for f, layers in sorted(seed["features"].items())
            if isinstance(layers, dict) and (layers.get("usable") or
                                             (layers.get("usable") is None and layers.get("cpuid")))]
varied = features[:14]
assert (1 << len(varied)) >= n, "not enough features to make every report differ"
for k in range(1, n + 1):
    doc = json.loads(json.dumps(seed))
    for bit, f in enumerate(varied):
        if k >> bit & 1:
            doc["features"][f].update({"cpuid": False, "usable": False})
    with open(f"{d}/node{k:05d}.json", "w") as out:
        json.dump(doc, out)
PY
rm -f "$dir/seed"
echo "bench_fleet: $hosts distinct reports, $(($(du -sb "$dir" | cut -f1) / 1000000)) MB"
sync
timed_runs distinct --format json
summary distinct
timed_runs distinct-slurm-conf --emit slurm-conf
echo "bench_fleet: distinct --emit slurm-conf: $(wc -l < "$dir.out") node lines"
rm -f "$dir.out"
