#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of `dlcheck profile` (not a test): the MLP's throughput (samples/s, measured by the
# model worker over its timed steps) under `perf record` against the same run without it.
#
#   scripts/bench_profile.sh [runs] [iters] [threads]   (BUILD=build; defaults 5, 200, 2)
#
# Runs `dlcheck verbose --model mlp` and `dlcheck profile --model mlp` alternately, `runs` times
# each, with the same --iters and --threads, and prints both medians and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
iters=${2:-200}
threads=${3:-2}
dlcheck=${BUILD:-build}/dlcheck
[ -x "$dlcheck" ] || { echo "bench_profile: build dlcheck first (make build)" >&2; exit 1; }
command -v perf > /dev/null ||
  { echo "bench_profile: needs perf (apt-get install linux-perf)" >&2; exit 1; }

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
# command section: the samples/s a JSON report holds in that section.
samples_per_s() {
  python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]]["samples_per_s"])' "$1"
}

args=(--model mlp --iters "$iters" --threads "$threads" --format json)
without=() with=()
for _ in $(seq "$runs"); do
  without+=("$("$dlcheck" verbose "${args[@]}" | samples_per_s run)")
  with+=("$("$dlcheck" profile "${args[@]}" | samples_per_s profile)")
done
m_without=$(printf '%s\n' "${without[@]}" | median)
m_with=$(printf '%s\n' "${with[@]}" | median)
echo "MLP, --iters $iters --threads $threads, $runs runs each (samples/s):"
echo "  verbose (no perf):  ${without[*]}  median $m_without"
echo "  profile (perf):     ${with[*]}  median $m_with"
awk -v a="$m_with" -v b="$m_without" 'BEGIN {printf "  profile/verbose:    %.3f\n", a / b}'
