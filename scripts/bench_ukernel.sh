#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of ukernel lines (not a test): a generated log of LINES (10 million by default)
# `onednn_verbose,v1,ukernel,exec,cpu,brgemm,...` lines, as PyTorch's CPU flash attention prints
# one per micro-tile (64 shapes and betas cycled, a time per line from a short cycle), against a
# oneDNN log of as many `primitive,exec,cpu,matmul,...` lines of the same shapes (the same bytes
# within 2 %). For each: `dlcheck parse --format json --jobs 1` wall time and peak RSS (GNU time),
# its rows, and the ratio of the two times.
#
#   scripts/bench_ukernel.sh [lines]   (BUILD=build, BENCH_DIR=/tmp/dlcheck_bench_ukernel)
#
# Targets (issue 50): the ukernel log within 1.5x of the oneDNN log's time, memory bounded (rows
# per shape, not per line).
set -euo pipefail
cd "$(dirname "$0")/.."
lines=${1:-10000000}
build=${BUILD:-build}
dlcheck=$build/dlcheck
dir=${BENCH_DIR:-/tmp/dlcheck_bench_ukernel}
[ -x "$dlcheck" ] || { echo "bench_ukernel: build dlcheck first (cmake --build $build)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench_ukernel: needs GNU time (apt-get install time)" >&2; exit 1; }
mkdir -p "$dir"
# The logs are made once per line count (kept in BENCH_DIR with the count beside them).
if [ "$(cat "$dir/lines" 2>/dev/null)" != "$lines" ]; then
python3 - "$lines" "$dir" <<'PY'
import sys
lines, out = int(sys.argv[1]), sys.argv[2]
shapes = [(m, n, k, bs, beta) for m in (16, 32) for n in (16, 32, 64, 128) for k in (64, 512)
          for bs, beta in ((1, 0), (4, 1))]
times = ["0.00195312", "0.00292969", "0.00390625", "0.00488281", "0.0078125"]
md = "src:bf16::blocked:ab::f0 wei:bf16::blocked:ab::f0 dst:f32::blocked:ab::f0"
def write(path, line_of):
    with open(path, "w") as f:
        chunk = []
        for i in range(lines):
            chunk.append(line_of(shapes[i % len(shapes)], times[i % len(times)]))
            if len(chunk) == 100000:
                f.write("".join(chunk)); chunk = []
        f.write("".join(chunk))
write(out + "/ukernel.log", lambda s, t:
      f"onednn_verbose,v1,ukernel,exec,cpu,brgemm,,undef,{md},,bs:{s[3]} beta:{s[4]},"
      f"{s[0]}x{s[2]}:{s[2]}x{s[1]},{t}\n")
write(out + "/onednn.log", lambda s, t:
      f"onednn_verbose,v1,primitive,exec,cpu,matmul,brg_matmul:avx2,undef,{md},,,"
      f"{s[0]}x{s[2]}:{s[2]}x{s[1]},{t}\n")
PY
echo "$lines" > "$dir/lines"
fi
run() {
  local log=$1
  /usr/bin/time -f "%e %M" -o "$dir/time" "$dlcheck" parse --format json --jobs 1 "$dir/$log" \
    > "$dir/$log.json"
  read -r wall rss < "$dir/time"
  local rows
  rows=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(len(d['primitives']), d['summary']['execs'])" "$dir/$log.json")
  echo "$log: $(stat -c %s "$dir/$log") bytes, ${wall} s, peak RSS $((rss / 1024)) MB, rows and execs: $rows" >&2
  echo "$wall"
}
onednn=$(run onednn.log)
ukernel=$(run ukernel.log)
python3 -c "import sys; print(f'ukernel / oneDNN time: {float(sys.argv[1]) / float(sys.argv[2]):.2f} (target <= 1.5)')" "$ukernel" "$onednn"
