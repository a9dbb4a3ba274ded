#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of `dlcheck parse` (not a test): side by side in one run, `wc -l`, `cat >/dev/null`,
# dlcheck on one thread and on N threads (`parse --format json --jobs N`), on three logs built
# from real recorded ones in tests/data/verbose (scripts/make_bench_log.py: the header once, the
# rest repeated to the size asked, each repeated line with a new timestamp where the log has
# them):
#   plain  torch_cnn_2.6.3.log       PyTorch 1.13, oneDNN 2.6.3, `onednn_verbose,exec,...`
#   ts2    torch_cnn_ts_2.6.3.log    the same with timestamps: `onednn_verbose,<ms>,exec,...`
#   ts3    benchdnn_ts_3.10.2.log    oneDNN 3.10.2: `onednn_verbose,v1,<ms>,primitive,exec,...`
# For each: GB/s (median of RUNS rounds, the commands interleaved so load slows them alike), the
# ratio to `wc -l`, peak RSS (GNU time), and callgrind's instructions per byte on an 8 MB slice
# less the command's cost on an empty log (repeatable on a noisy machine). Then the worst case
# for memory: 200,000 distinct shapes, peak RSS in every format.
#
#   scripts/bench_parse.sh [size_mb]   (150 by default; BUILD=build, JOBS=nproc, RUNS=3,
#                                       BENCH_DIR=/tmp/dlcheck_bench; the binary must be built)
#
# Targets (issue 36): one thread >= 0.5x `wc -l` on every log, N threads above it, peak RSS
# <= 64 MB on the distinct shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
size_mb=${1:-150}
build=${BUILD:-build}
dlcheck=$build/dlcheck
jobs=${JOBS:-$(nproc)}
dir=${BENCH_DIR:-/tmp/dlcheck_bench}
[ -x "$dlcheck" ] || { echo "bench_parse: build dlcheck first (cmake --build $build)" >&2; exit 1; }
command -v valgrind > /dev/null || echo "bench_parse: no valgrind: no instructions per byte" >&2
mkdir -p "$dir"

logs=()
for seed in plain:torch_cnn_2.6.3.log ts2:torch_cnn_ts_2.6.3.log ts3:benchdnn_ts_3.10.2.log; do
  log=$dir/${seed%%:*}_${size_mb}mb.log
  if [ ! -s "$log" ]; then
    python3 scripts/make_bench_log.py "tests/data/verbose/${seed#*:}" "$size_mb" "$log"
  fi
  logs+=("$log")
done

echo "dlcheck $("$dlcheck" --version | head -1); $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
python3 scripts/bench_parse.py "$dlcheck" "$jobs" "${RUNS:-3}" "${logs[@]}"

distinct_log=$dir/distinct.log
if [ ! -s "$distinct_log" ]; then
  awk 'BEGIN { for (i = 1; i <= 100000; i++) {
    printf "onednn_verbose,v1,primitive,exec,cpu,convolution,jit:avx2,forward_training,src:f32:a:blocked:aBcd8b::f0 wei:f32:a:blocked:ABcd8b8a::f0 bia:f32::blocked:a::f0 dst:f32:a:blocked:aBcd8b::f0,attr-scratchpad:user attr-post-ops:eltwise_relu,alg:convolution_direct,mb2_ic16oc32_ih%doh%dkh3sh1dh0ph1_iw13ow13kw3sw1dw0pw1,0.0820312\n", i, i
    printf "onednn_verbose,v1,primitive,exec,cpu,matmul,brg_matmul:avx2,undef,src:f32::blocked:abc::f0 wei:f32::blocked:abc::f0 bia:f32::blocked:abc::f0_mask4 dst:f32::blocked:abc::f0,,,4x%dx16:4x16x32,0.0441895\n", i } }' > "$distinct_log"
fi
echo "== distinct shapes: $distinct_log ($(wc -l < "$distinct_log") lines, 200,000 distinct shapes; target: peak RSS <= 64 MB)"
for format in table csv json xlsx; do
  /usr/bin/time -f "$format: peak RSS %M KB, %e s" "$dlcheck" parse --format "$format" \
    "$distinct_log" 2>&1 >/dev/null | tail -1
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
