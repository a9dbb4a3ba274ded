#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Builds the libFuzzer targets of the verbose line parser, the perf.data reader and the shape
# arithmetic (verbose/shape_math.h with whatif's layouts) with clang
# (ASan+UBSan) in build-fuzz/ and runs them for a bounded time, the corpora seeded from the
# verbose fixtures (tests/data/verbose, tests/data/engines), the recorded convolution (tests/data/profile) and the
# problems of the verbose and whatif fixtures (tests/data/whatif/hostile_shapes.log among them).
#
#   scripts/fuzz.sh [seconds]      (default 60; .ci/run calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${FUZZ_BUILD:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -DDLCHECK_FUZZ=ON -DDLCHECK_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build" --target verbose_line_fuzz perf_data_fuzz shape_math_fuzz -j 2
corpus="$build/corpus"
mkdir -p "$corpus"
# Seeds: the fixture files cut into chunks of 8 lines (small inputs mutate better).
# The other engines' dialects (ZenDNN's three formats, oneDNN's zen and ukernel lines, ONNX
# Runtime's profile) too.
for f in tests/data/verbose/*.txt tests/data/verbose/*.log tests/data/engines/*.log \
  tests/data/engines/*.json; do
  split -l 8 -a 4 "$f" "$corpus/$(basename "$f")."
done
"$build/fuzz/verbose_line_fuzz" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -print_final_stats=1 "$corpus"
# The perf.data reader of `dlcheck profile`, a quarter of the time (at least 10 s), seeded with
# the recorded convolution.
perf_corpus="$build/perf-corpus"
mkdir -p "$perf_corpus"
cp tests/data/profile/jit_conv.perf.data "$perf_corpus/"
"$build/fuzz/perf_data_fuzz" -max_total_time=$(( seconds / 4 > 10 ? seconds / 4 : 10 )) \
  -max_len=131072 -timeout=10 -print_final_stats=1 "$perf_corpus"
# The shape arithmetic, a quarter of the time (at least 10 s): each seed one problem field (the
# next to last of a line); and the tags of the whatif fixtures on a 4D shape (`2x16x7x7|tag`).
shape_corpus="$build/shape-corpus"
mkdir -p "$shape_corpus"
cat tests/data/whatif/*.log tests/data/verbose/*.log | awk -F, 'NF > 4 { print $(NF-1) }' |
  sort -u | head -400 | split -l 1 -a 4 - "$shape_corpus/problem."
grep -ho 'dst_f32[^ ,]*blocked:[A-Za-z0-9]*' tests/data/whatif/*.log | sed 's/.*blocked://' |
  sort -u | head -50 | while read -r tag; do printf '2x16x7x7|%s' "$tag" > "$shape_corpus/tag.$tag"; done
"$build/fuzz/shape_math_fuzz" -max_total_time=$(( seconds / 4 > 10 ? seconds / 4 : 10 )) \
  -max_len=1024 -timeout=10 -print_final_stats=1 "$shape_corpus"
