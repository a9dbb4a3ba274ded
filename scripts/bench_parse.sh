#!/usr/bin/env bash
# Benchmark of `dlcheck parse` (not a test): throughput against `wc -l` on the same file, side by
# side with hyperfine, and peak RSS with GNU time. The log (>= 200 MB by default) is made of real
# lines: the fixture lines of tests/data/verbose repeated into /tmp.
#
#   scripts/bench_parse.sh [size_mb]        (BUILD=build by default; the binary must be built)
#
# Targets (from the issue): throughput >= 1/4 of `wc -l`, peak RSS < 64 MB.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-200}
build=${BUILD:-build}
dlcheck=$build/dlcheck
[ -x "$dlcheck" ] || { echo "bench_parse: build dlcheck first (cmake --build $build)" >&2; exit 1; }
log=${BENCH_LOG:-/tmp/dlcheck_bench_${size_mb}mb.log}

if [ ! -s "$log" ] || [ "$(stat -c %s "$log")" -lt $((size_mb * 1000000)) ]; then
  seed=$(mktemp)
  cat tests/data/verbose/generated_2.6.3.txt tests/data/verbose/torch_cnn_2.6.3.log \
      tests/data/verbose/real_lines.txt tests/data/verbose/formats_3.13.1.txt > "$seed"
  : > "$log"
  # Double the block until it is big enough: a few writes, no per-line shell work.
  cp "$seed" "$log.block"
  while [ "$(stat -c %s "$log.block")" -lt 8000000 ]; do
    cat "$log.block" "$log.block" > "$log.tmp" && mv "$log.tmp" "$log.block"
  done
  while [ "$(stat -c %s "$log")" -lt $((size_mb * 1000000)) ]; do cat "$log.block" >> "$log"; done
  rm -f "$seed" "$log.block"
fi
bytes=$(stat -c %s "$log")
echo "log: $log ($((bytes / 1000000)) MB, $(wc -l < "$log") lines)"

json=$(mktemp)
hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json "$json" \
  "wc -l $log" "$dlcheck parse --format csv $log"
python3 - "$json" "$bytes" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))["results"]
size = int(sys.argv[2]) / 1e6
wc, parse = data[0]["mean"], data[1]["mean"]
print(f"wc -l:          {size / wc:8.1f} MB/s")
print(f"dlcheck parse:  {size / parse:8.1f} MB/s")
print(f"ratio parse/wc: {wc / parse:8.3f}  (target >= 0.25)")
PY
rm -f "$json"
/usr/bin/time -v "$dlcheck" parse --format csv "$log" 2>&1 >/dev/null |
  awk -F': ' '/Maximum resident set size/ {printf "peak RSS:       %8.1f MB  (target < 64)\n", $2 / 1024}'
