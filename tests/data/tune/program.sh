#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The program of tests/cli/tune_cli_test.cpp (written for dlcheck's tests): its time and its
# figure depend on its environment in a known way, whatever the machine's load.
#   TUNE_TEST_FAST=1   a quarter of the time (sleeps 0.05 s, not 0.2 s); prints `score: 4`, not 1
#   TUNE_TEST_HALF=1   half the time (0.1 s) unless TUNE_TEST_FAST=1; prints `score: 2`
#   TUNE_TEST_FAIL=1   fails at once: status 3, a last line on stderr
#   TUNE_TEST_PIDS=F   appends its pid and its sleep's to F (the test checks none outlives tune)
if [ "$TUNE_TEST_FAIL" = 1 ]; then
  echo "tune test: starting" >&2
  echo "tune test: failing as asked" >&2
  exit 3
fi
if [ "$TUNE_TEST_FAST" = 1 ]; then
  pause=0.05 score=4
elif [ "$TUNE_TEST_HALF" = 1 ]; then
  pause=0.1 score=2
else
  pause=0.2 score=1
fi
sleep "$pause" &
if [ -n "$TUNE_TEST_PIDS" ]; then echo "$$ $!" >>"$TUNE_TEST_PIDS"; fi
wait
echo "tune test: done"
echo "score: $score"
