#!/usr/bin/env bash
# Benchmark of `dlcheck parse` (not a test): throughput against `wc -l` on the same file, side by
# side with hyperfine, and peak RSS with GNU time, on two logs made of real lines (the fixture
# lines of tests/data/verbose) in /tmp:
#   plain        (>= size_mb, 200 MB by default) the fixture lines repeated as they are;
#   timestamped  (>= ts_mb, 100 MB by default) their create and exec lines with a timestamp,
#                new on every line as in a real log, in each era that has one: 2.x
#                `onednn_verbose,<ts>,exec,...`, 3.3+ `onednn_verbose,<ts>,primitive,exec,...`,
#                3.6+ `onednn_verbose,v1,<ts>,primitive,exec,...`;
#   distinct     200,000 distinct shapes (a 3.x convolution and matmul line per sequence length,
#                as a dynamic-shape model prints them): peak RSS in every format, the row bound.
#
#   scripts/bench_parse.sh [size_mb [ts_mb]]   (BUILD=build by default; the binary must be built)
#
# Targets (from the issue): throughput >= 1/4 of `wc -l`, peak RSS < 64 MB for any log.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-200}
ts_mb=${2:-100}
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

# The timestamped log: each create/exec fixture line in the three timestamped eras (template
# lines dropped: they would name no timestamp), stamps 0.01 ms apart.
ts_log=${BENCH_TS_LOG:-/tmp/dlcheck_bench_ts_${ts_mb}mb.log}
if [ ! -s "$ts_log" ] || [ "$(stat -c %s "$ts_log")" -lt $((ts_mb * 1000000)) ]; then
  cat tests/data/verbose/generated_2.6.3.txt tests/data/verbose/torch_cnn_2.6.3.log \
      tests/data/verbose/real_lines.txt tests/data/verbose/formats_3.13.1.txt |
    python3 -c '
import re, sys
size = int(sys.argv[1]) * 1000000
body = []
for line in sys.stdin:
    m = re.match(r"(?:onednn|dnnl)_verbose,(?:v1,)?(?:\d+\.\d+,)?(?:primitive,)?((?:create|exec)[,:].*)$", line.rstrip("\n"))
    if not m:
        continue
    rest = m.group(1)
    body += ["onednn_verbose,%s," + rest, "onednn_verbose,%s,primitive," + rest,
             "onednn_verbose,v1,%s,primitive," + rest]
out, written, stamp = sys.stdout, 0, 1795000000000.0
while written < size:
    for b in body:
        stamp += 0.01
        line = b % ("%.6f" % stamp) + "\n"
        out.write(line)
        written += len(line)
' "$ts_mb" > "$ts_log"
fi

bench() {  # bench LOG: hyperfine wc -l against parse, then peak RSS
  local log=$1 bytes json
  bytes=$(stat -c %s "$log")
  echo "log: $log ($((bytes / 1000000)) MB, $(wc -l < "$log") lines), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
  json=$(mktemp)
  hyperfine --warmup 1 --runs "${RUNS:-5}" --export-json "$json" \
    "wc -l $log" "$dlcheck parse --format csv $log"
  python3 - "$json" "$bytes" <<'PY'
import json, sys
data = json.load(open(sys.argv[1]))["results"]
size = int(sys.argv[2]) / 1e6
wc, parse = data[0]["median"], data[1]["median"]
print(f"wc -l:          {size / wc:8.1f} MB/s  (median {wc:.3f} s)")
print(f"dlcheck parse:  {size / parse:8.1f} MB/s  (median {parse:.3f} s)")
print(f"ratio parse/wc: {wc / parse:8.3f}  (target >= 0.25)")
PY
  rm -f "$json"
  /usr/bin/time -v "$dlcheck" parse --format csv "$log" 2>&1 >/dev/null |
    awk -F': ' '/Maximum resident set size/ {printf "peak RSS:       %8.1f MB  (target < 64)\n", $2 / 1024}'
}

distinct_log=${BENCH_DISTINCT_LOG:-/tmp/dlcheck_bench_distinct.log}
if [ ! -s "$distinct_log" ]; then
  awk 'BEGIN { for (i = 1; i <= 100000; i++) {
    printf "onednn_verbose,v1,primitive,exec,cpu,convolution,jit:avx2,forward_training,src:f32:a:blocked:aBcd8b::f0 wei:f32:a:blocked:ABcd8b8a::f0 bia:f32::blocked:a::f0 dst:f32:a:blocked:aBcd8b::f0,attr-scratchpad:user attr-post-ops:eltwise_relu,alg:convolution_direct,mb2_ic16oc32_ih%doh%dkh3sh1dh0ph1_iw13ow13kw3sw1dw0pw1,0.0820312\n", i, i
    printf "onednn_verbose,v1,primitive,exec,cpu,matmul,brg_matmul:avx2,undef,src:f32::blocked:abc::f0 wei:f32::blocked:abc::f0 bia:f32::blocked:abc::f0_mask4 dst:f32::blocked:abc::f0,,,4x%dx16:4x16x32,0.0441895\n", i } }' > "$distinct_log"
fi

distinct() {  # peak RSS and wall time of parse in every format on the distinct-shapes log
  echo "log: $distinct_log ($(wc -l < "$distinct_log") lines, 200,000 distinct shapes)"
  for format in table csv json xlsx; do
    /usr/bin/time -f "$format: peak RSS %M KB, %e s" "$dlcheck" parse --format "$format" \
      "$distinct_log" 2>&1 >/dev/null | tail -1
  done
}

echo "== plain log"
bench "$log"
echo "== timestamped log"
bench "$ts_log"
echo "== distinct shapes (target: peak RSS < 64 MB in every format)"
distinct
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
