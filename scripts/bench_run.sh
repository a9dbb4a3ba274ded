#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of `dlcheck run` (not a test): its cost over running the program with verbose on
# alone, and its peak memory on a very long log.
#
#   scripts/bench_run.sh [peer.py] [runs]    (BUILD=build; peer: ../shared/peers/torch_cnn.py)
#
# 1. Wall time of `dlcheck run -- python3 PEER --threads 1` against
#    `ONEDNN_VERBOSE=2 ONEDNN_VERBOSE_TIMESTAMP=1 python3 PEER --threads 1 > /dev/null`, run
#    alternately, median of `runs` (default 5). Goal: <= 1.05x.
# 2. Peak RSS (/usr/bin/time -v) of `dlcheck run` on a program that prints 10 million verbose
#    lines (a real log of tests/data/verbose written over and over). Goal: <= 64 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
peer=${1:-../shared/peers/torch_cnn.py}
runs=${2:-5}
dlcheck=${BUILD:-build}/dlcheck
python=/usr/bin/python3
[ -x "$dlcheck" ] || { echo "bench_run: build dlcheck first (make build)" >&2; exit 1; }
[ -f "$peer" ] || { echo "bench_run: no peer script $peer" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_run: needs GNU time (apt-get install time)" >&2; exit 1; }
"$python" -c 'import torch' 2>/dev/null ||
  { echo "bench_run: needs Debian's python3-torch (apt-get install python3-torch)" >&2; exit 1; }

echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
seconds() {  # command...: its wall time in seconds
  local start end
  start=$(date +%s.%N)
  "$@" > /dev/null 2>&1
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" 'BEGIN {print e - s}'
}
alone() {
  ONEDNN_VERBOSE=2 ONEDNN_VERBOSE_TIMESTAMP=1 "$python" "$peer" --threads 1 > /dev/null
}
under_dlcheck() { "$dlcheck" run --format csv -- "$python" "$peer" --threads 1; }

: > /tmp/bench_run_alone; : > /tmp/bench_run_dlcheck
for _ in $(seq "$runs"); do
  seconds alone >> /tmp/bench_run_alone
  seconds under_dlcheck >> /tmp/bench_run_dlcheck
done
a=$(median < /tmp/bench_run_alone); d=$(median < /tmp/bench_run_dlcheck)
echo "verbose alone:  $(paste -sd' ' /tmp/bench_run_alone) s"
echo "dlcheck run:    $(paste -sd' ' /tmp/bench_run_dlcheck) s"
awk -v a="$a" -v d="$d" 'BEGIN {printf "medians: alone %.3f s, dlcheck run %.3f s: %.3fx (goal <= 1.05x)\n", a, d, d / a}'

# 10 million verbose lines: a real 2.6.3 log (all marker lines but 4) written over and over by a
# tiny Python generator (a shell loop of `cat` spends minutes in fork and exec).
log=tests/data/verbose/torch_cnn_2.6.3.log
per=$(grep -c '_verbose,' "$log")
repeats=$(( (10000000 + per - 1) / per ))
/usr/bin/time -v "$dlcheck" run --format json -- "$python" -c \
  "import sys; d = open('$log', 'rb').read(); [sys.stdout.buffer.write(d) for _ in range($repeats)]" \
  2> /tmp/bench_run_rss > /tmp/bench_run_report.json
grep -E 'Maximum resident|Elapsed' /tmp/bench_run_rss
"$python" -c 'import json; r = json.load(open("/tmp/bench_run_report.json")); print("verbose_lines", r["run"]["verbose_lines"], "execs", r["summary"]["execs"])'
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
