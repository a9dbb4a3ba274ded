#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of `dlcheck profile` (not a test): the MLP's throughput (samples/s, measured by the
# model worker over its timed steps) under `perf record` against the same run without it.
#
#   scripts/bench_profile.sh [runs] [iters] [threads]   (BUILD=build; defaults 5, 200, 2)
#   scripts/bench_profile.sh decode [seconds] [runs]    (defaults 30, 3)
#
# Runs `dlcheck verbose --model mlp` and `dlcheck profile --model mlp` alternately, `runs` times
# each, with the same --iters and --threads, and prints both medians and their ratio.
# `decode`: what decoding the samples' code (the instruction mix) adds to profile's
# post-processing, on recordings of `seconds`: the MLP (--time) and the instruction mix's test
# program (build/tests/dlcheck_mix_program, 60 % AVX2, 40 % scalar). Each run's report gives
# read_s (stack scanning and perf script) and decode_s (ClassifyLeafCode); printed with their
# ratio, the goal being decode_s <= 20 % of read_s.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
iters=${2:-200}
threads=${3:-2}
dlcheck=${BUILD:-build}/dlcheck
[ -x "$dlcheck" ] || { echo "bench_profile: build dlcheck first (make build)" >&2; exit 1; }
command -v perf > /dev/null ||
  { echo "bench_profile: needs perf (apt-get install linux-perf)" >&2; exit 1; }

decode_bench() {
  local seconds=${1:-30} runs=${2:-3} mix=${BUILD:-build}/tests/dlcheck_mix_program
  [ -x "$mix" ] || { echo "bench_profile: build dlcheck_mix_program first" >&2; exit 1; }
  local fields='import json,sys; p=json.load(sys.stdin)["profile"]; print(p["samples"], p["read_s"], p["decode_s"])'
  echo "decoding in profile's post-processing, ${seconds} s recordings (samples read_s decode_s decode/read):"
  for _ in $(seq "$runs"); do
    for what in mlp mix; do
      if [ "$what" = mlp ]; then
        out=$("$dlcheck" profile --model mlp --time "$seconds" --format json | python3 -c "$fields")
      else
        out=$("$dlcheck" profile --format json -- "$mix" "$seconds" 0 60 40 | python3 -c "$fields")
      fi
      echo "$out" | awk -v w="$what" '{printf "  %-4s %6d  %7.3f  %7.3f  %5.1f %%\n", w, $1, $2, $3, 100 * $3 / $2}'
    done
  done
}

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
# command section: the samples/s a JSON report holds in that section.
samples_per_s() {
  python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]]["samples_per_s"])' "$1"
}

if [ "${1:-}" = decode ]; then
  shift
  decode_bench "$@"
  exit 0
fi

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
