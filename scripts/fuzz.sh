#!/usr/bin/env bash
# Builds the libFuzzer target of the verbose line parser with clang (ASan+UBSan) in build-fuzz/
# and runs it for a bounded time, the corpus seeded from the verbose fixtures (tests/data/verbose).
#
#   scripts/fuzz.sh [seconds]      (default 60; .ci/run calls it)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${FUZZ_BUILD:-build-fuzz}
CC=clang CXX=clang++ cmake -S . -B "$build" -DDLCHECK_FUZZ=ON -DDLCHECK_TESTS=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo > /dev/null
cmake --build "$build" --target verbose_line_fuzz -j 2
corpus="$build/corpus"
mkdir -p "$corpus"
# Seeds: the fixture files cut into chunks of 8 lines (small inputs mutate better).
for f in tests/data/verbose/*.txt tests/data/verbose/*.log; do
  split -l 8 -a 4 "$f" "$corpus/$(basename "$f")."
done
"$build/fuzz/verbose_line_fuzz" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
  -print_final_stats=1 "$corpus"
