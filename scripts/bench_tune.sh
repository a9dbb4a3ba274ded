#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of `dlcheck tune` (not a test): its own cost over the sum of its runs' wall time, on a
# CPU-bound program of about half a second (awk summing a series: no thread, no oneDNN, so every
# knob is within noise and every planned variant runs every round), with the knobs of this host.
#
#   scripts/bench_tune.sh [runs]        (BUILD=build by default; the binary must be built)
#
# Goal (issue 43): tune's wall time at most 1.1x the sum of its runs' wall time. Prints the
# variants, rounds, runs, the two times and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-3}
build=${BUILD:-build}
dlcheck=$build/dlcheck
[ -x "$dlcheck" ] || { echo "bench_tune: build dlcheck first (cmake --build $build)" >&2; exit 1; }
out=$(mktemp /tmp/dlcheck_bench_tune.XXXXXX)
trap 'rm -f "$out"' EXIT
start=$(date +%s.%N)
"$dlcheck" tune --runs "$runs" --format json -- awk 'BEGIN { for (i = 0; i < 4e6; i++) s += i }' \
  > "$out"
end=$(date +%s.%N)
python3 - "$out" "$start" "$end" << 'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
rows = doc["variants"]
ran = [r for r in rows if r["runs"]]
runs = sum(r["runs"] for r in rows)
programs = sum(r["wall_s_total"] for r in rows)
print(f"variants run {len(ran)} of {len(rows)}, rounds {doc['tune']['rounds_done']}, runs {runs}")
print(f"load average {doc['tune']['load_start']} at the start, {doc['tune']['load_end']} at the end")
print(f"tune wall {wall:.2f} s, its runs' wall {programs:.2f} s: {wall / programs:.3f}x "
      f"(goal <= 1.1x); {1000 * (wall - programs) / max(runs, 1):.1f} ms of tune per run")
PY
