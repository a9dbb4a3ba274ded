#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Records the ONNX Runtime profiles of tests/data/engines (onnxruntime_<version>_{mlp,cnn}_profile.json):
# two small graphs written here as ONNX protobuf (Debian's python3-onnx; no model is downloaded),
# run five times each by ONNX Runtime's CPU provider with profiling on. ONNX Runtime is not in
# Debian: the npm package onnxruntime-node carries its linux x64 and arm64 CPU libraries, and
# `--ignore-scripts` skips its post-install step, which fetches from a host CI cannot reach.
#
#   scripts/record_onnxruntime_profile.sh OUT_DIR     (needs node, npm, python3-onnx, the registry)
set -euo pipefail
out=$(realpath "${1:?usage: record_onnxruntime_profile.sh OUT_DIR}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
npm install --silent --ignore-scripts onnxruntime-node > /dev/null
version=$(node -p "require('onnxruntime-node/package.json').version")
/usr/bin/python3 - <<'PY'
import numpy as np
from onnx import TensorProto, helper, save

def weights(name, dims):
    n = int(np.prod(dims))
    return helper.make_tensor(name, TensorProto.FLOAT, dims,
                              (np.arange(n, dtype=np.float32) % 97 / 97 - 0.5).tolist())

def model(name, nodes, x, y, w):
    graph = helper.make_graph(nodes, name, [x], [y], [w])
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), name + ".onnx")

f32 = TensorProto.FLOAT
model("mlp", [helper.make_node("MatMul", ["x", "w"], ["h"], name="fc1"),
              helper.make_node("Relu", ["h"], ["y"], name="relu1")],
      helper.make_tensor_value_info("x", f32, [64, 256]),
      helper.make_tensor_value_info("y", f32, [64, 128]), weights("w", [256, 128]))
model("cnn", [helper.make_node("Conv", ["x", "w"], ["c"], name="conv1", pads=[1, 1, 1, 1]),
              helper.make_node("Relu", ["c"], ["y"], name="relu1")],
      helper.make_tensor_value_info("x", f32, [8, 3, 64, 64]),
      helper.make_tensor_value_info("y", f32, [8, 16, 64, 64]), weights("w", [16, 3, 3, 3]))
PY
node - <<'JS'
const ort = require('onnxruntime-node');
(async () => {
  for (const [name, shape] of [['mlp', [64, 256]], ['cnn', [8, 3, 64, 64]]]) {
    const session = await ort.InferenceSession.create(name + '.onnx', {
      enableProfiling: true, profileFilePrefix: name + '_profile',
      executionProviders: ['cpu'], intraOpNumThreads: 2});
    const n = shape.reduce((a, b) => a * b, 1);
    const x = new ort.Tensor('float32', Float32Array.from({length: n}, (_, i) => (i % 97) / 97 - 0.5), shape);
    for (let i = 0; i < 5; ++i) await session.run({x});
    session.endProfiling();
  }
})();
JS
for name in mlp cnn; do
  cp "$(ls "$work"/${name}_profile_*.json | head -1)" "$out/onnxruntime_${version}_${name}_profile.json"
done
echo "recorded onnxruntime-node $version profiles in $out"
