#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Benchmark of the models (not a test): dlcheck's samples/s (timed steps, verbose off) against the
# same MLP and CNN in PyTorch (Debian's python3-torch), run alternately on the same machine,
# one thread each. Prints every run and the medians.
#
#   scripts/bench_models.sh [runs]      (BUILD=build; PEERS=../shared/peers by default)
#
# Targets (issue 4): MLP f32 batch 100: >= 15x PyTorch; CNN f32 batch 64: >= 3x PyTorch.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
dlcheck=${BUILD:-build}/dlcheck
peers=${PEERS:-../shared/peers}
[ -x "$dlcheck" ] || { echo "bench_models: build dlcheck first (make build)" >&2; exit 1; }
[ -f "$peers/torch_mlp.py" ] || { echo "bench_models: no PyTorch peers in $peers (set PEERS)" >&2; exit 1; }
/usr/bin/python3 -c 'import torch' 2>/dev/null ||
  { echo "bench_models: needs Debian's python3-torch (apt-get install python3-torch)" >&2; exit 1; }

median() { sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
ours() {  # model batch iters
  "$dlcheck" verbose --model "$1" --batch "$2" --iters "$3" --threads 1 --format json |
    /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["run"]["samples_per_s"])'
}
theirs() {  # script batch samples
  /usr/bin/python3 "$peers/$1" --threads 1 --batch "$2" --samples "$3" |
    sed -E 's/.*samples_per_s=([0-9.]+).*/\1/'
}

for model in mlp cnn; do
  if [ "$model" = mlp ]; then batch=100 iters=600 peer=torch_mlp.py samples=20000
  else batch=64 iters=60 peer=torch_cnn.py samples=3200; fi
  : > /tmp/bench_ours_$model; : > /tmp/bench_theirs_$model
  for _ in $(seq "$runs"); do
    ours "$model" "$batch" "$iters" | tee -a /tmp/bench_ours_$model >/dev/null
    theirs "$peer" "$batch" "$samples" | tee -a /tmp/bench_theirs_$model >/dev/null
  done
  o=$(median < /tmp/bench_ours_$model); t=$(median < /tmp/bench_theirs_$model)
  echo "$model f32 batch $batch, 1 thread: dlcheck $(paste -sd' ' /tmp/bench_ours_$model) samples/s"
  echo "$model f32 batch $batch, 1 thread: torch   $(paste -sd' ' /tmp/bench_theirs_$model) samples/s"
  awk -v o="$o" -v t="$t" -v m="$model" 'BEGIN {printf "%s medians: dlcheck %.0f, PyTorch %.0f samples/s: %.1fx\n", m, o, t, o / t}'
done
