#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# whatif's figures against benchdnn 2.6.3 (the peer in ../shared/peers), timing included: every
# baseline (`as logged`) of the recorded PyTorch CNN log must agree with benchdnn within 1.5x. A
# benchmark, not a test (the suite's whatif_benchdnn_peer checks the kernels only): run it on a
# quiet machine, and read the load average it prints beside the result.
#   usage: scripts/bench_whatif_peer.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
peers=${PEERS:-../shared/peers}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
/usr/bin/python3 tests/peer/whatif_peer_test.py --times "$build/dlcheck" tests/data "$peers" ||
  status=$?
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit "$status"
