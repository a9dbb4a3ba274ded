#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# `dlcheck parse --jobs N` on large generated logs (issue 36): the report of N threads is the
# report of one, byte for byte, at the real chunk size (4 MiB) past the real least size (64 MiB),
# where ParallelFeedTest and ParseCliTest cut small logs into tiny chunks. The logs are built
# from real recordings in tests/data/verbose by scripts/make_bench_log.py (the header once, the
# other lines repeated, each repeated timestamped line with a new timestamp): a 200 MB log of
# benchdnn 3.10.2 with 3.x timestamps, and 70 MB logs of PyTorch 1.13 plain and with 2.x
# timestamps. Each is read in json, csv and the table on 1, 2, 3 and 5 threads; the exit status,
# standard output and standard error must be the same.
#
#   parse_jobs_large_test.sh DLCHECK SOURCE_DIR
set -euo pipefail
dlcheck=$1
src=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/dlcheck_jobs_large.XXXXXX")
trap 'rm -rf "$dir"' EXIT
failures=0

check_log() {  # seed size_mb
  local seed=$1 size_mb=$2 log=$dir/$1
  python3 "$src/scripts/make_bench_log.py" "$src/tests/data/verbose/$seed" "$size_mb" "$log"
  local bytes
  bytes=$(stat -c %s "$log")
  if (( bytes < 64 * 1024 * 1024 )); then
    echo "FAIL: $seed: the generated log holds $bytes bytes, under the 64 MiB read in chunks"
    failures=$((failures + 1))
    return
  fi
  for format in json csv table; do
    local status=0
    "$dlcheck" parse --format "$format" --jobs 1 "$log" > "$dir/one.out" 2> "$dir/one.err" ||
      status=$?
    for jobs in 2 3 5; do
      local many=0
      "$dlcheck" parse --format "$format" --jobs "$jobs" "$log" > "$dir/many.out" \
        2> "$dir/many.err" || many=$?
      if [[ $many != "$status" ]] || ! cmp -s "$dir/one.out" "$dir/many.out" ||
         ! cmp -s "$dir/one.err" "$dir/many.err"; then
        echo "FAIL: $seed ($size_mb MB) --format $format --jobs $jobs: exit $many against $status"
        diff <(head -c 20000 "$dir/one.out") <(head -c 20000 "$dir/many.out") | head -20 || true
        diff "$dir/one.err" "$dir/many.err" | head -5 || true
        failures=$((failures + 1))
      fi
    done
    echo "ok: $seed ($size_mb MB, $bytes bytes) --format $format: --jobs 2, 3, 5 as --jobs 1 (exit $status)"
  done
  rm -f "$log"
}

check_log benchdnn_ts_3.10.2.log 200
check_log torch_cnn_2.6.3.log 70
check_log torch_cnn_ts_2.6.3.log 70
exit $(( failures > 0 ))
