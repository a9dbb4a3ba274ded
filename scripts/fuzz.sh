#!/usr/bin/env bash
# Builds the libFuzzer targets of the verbose line parser and the perf.data reader with clang
# (ASan+UBSan) in build-fuzz/ and runs them for a bounded time, the corpora seeded from the
# verbose fixtures (tests/data/verbose) and the recorded convolution (tests/data/profile).
#
#   scripts/fuzz.sh [seconds]      (default 60; .ci/run calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${FUZZ_BUILD:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -DDLCHECK_FUZZ=ON -DDLCHECK_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build" --target verbose_line_fuzz perf_data_fuzz -j 2
corpus="$build/corpus"
mkdir -p "$corpus"
# Seeds: the fixture files cut into chunks of 8 lines (small inputs mutate better).
for f in tests/data/verbose/*.txt tests/data/verbose/*.log; do
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
