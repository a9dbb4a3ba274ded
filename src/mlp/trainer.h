// SPDX-License-Identifier: Apache-2.0
#pragma once
// Training the models on oneDNN or on dlcheck's scalar kernels, with one interface.
//
//   ModelConfig config{.model = ModelKind::kCnn, .batch = 64};
//   StatusOr<std::unique_ptr<Trainer>> trainer = MakeTrainer(Backend::kOneDnn, config, &observer);
//   if (!trainer.ok()) return trainer.status();
//   for (int i = 0; i < iters; ++i) float loss = (*trainer)->Step(GetBatch(data, i, config.batch));
//   for (const Fallback& f : (*trainer)->fallbacks()) ...   // layers that run on scalar kernels
//
// Primitives (or scalar buffers) are created once, in MakeTrainer; Step only executes them.
// All calls happen on the caller's thread, which is the thread that calls oneDNN.

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "mlp/dataset.h"
#include "mlp/model.h"

namespace dlcheck::mlp {

/// One operation of dlcheck's scalar kernels, described like a oneDNN verbose line so that
/// the report has one shape whatever ran. Implementation is always "dlcheck:scalar".
struct ScalarOpEvent {
  std::string layer;      ///< "fc1", "conv2", "loss", ...
  std::string operation;  ///< "create" or "exec"
  /// oneDNN 2.6's names: "inner_product", "convolution", "eltwise", "pooling_v2",
  /// "softmax_v2" (log-softmax), "binary" (the SGD update, binary_add).
  std::string primitive;
  /// "forward_training", "backward_data" (also eltwise, pooling and softmax backward),
  /// "backward_weights", "undef" (sum).
  std::string prop_kind;
  std::string memory;   ///< oneDNN-style descriptors: "src_f32::blocked:abcd:f0 ..."
  std::string aux;      ///< "alg:eltwise_relu alpha:0 beta:0", "alg:pooling_max", ...
  std::string problem;  ///< oneDNN-style problem: "mb100ic784oc128", "100x128", ...
  double time_ms = 0;   ///< wall time of this op (creation: buffer set-up)
};
/// The implementation name scalar events carry.
inline constexpr std::string_view kScalarImplementation = "dlcheck:scalar";

/// The event as one line in oneDNN 2.6's verbose format (`onednn_verbose,exec,cpu,...`), with
/// implementation `dlcheck:scalar`, for a worker that prints its events like oneDNN does.
std::string ToVerboseLine(const ScalarOpEvent& event);

/// What a Trainer is doing, so a caller can attribute oneDNN verbose lines to layers.
/// OnLayer is called right before a layer's primitives are created or executed, on the thread
/// that calls oneDNN. Phases: "create", "forward", "backward", "update".
class Observer {
 public:
  virtual ~Observer() = default;
  virtual void OnLayer(std::string_view /*layer*/, std::string_view /*phase*/) {}
  /// Each scalar kernel's creation and execution (never called for oneDNN primitives: those
  /// print their own verbose lines).
  virtual void OnScalarOp(const ScalarOpEvent& /*event*/) {}
};

/// A layer that runs on scalar kernels although oneDNN was asked for, and why.
struct Fallback {
  std::string layer;
  std::string reason;
};

/// A oneDNN primitive the trainer created: which implementation oneDNN chose.
struct PrimitiveInfo {
  std::string layer;
  std::string primitive;       ///< as oneDNN's verbose lines name it: "inner_product", "reorder"
  std::string prop_kind;       ///< as in ScalarOpEvent
  std::string implementation;  ///< oneDNN's impl_info_str, e.g. "brgemm:avx512_core"
};

/// A named tensor in canonical layout (see Parameters).
struct Tensor {
  std::string name;  ///< "logits", "fc1.weight.grad", "conv1.bias.grad", ...
  std::vector<float> values;
};

/// The numbers of the last Step, for comparing backends: logits (batch x 10), the loss and
/// every weight and bias gradient, in canonical layouts, as f32.
struct Snapshot {
  float loss = 0;
  std::vector<Tensor> tensors;  ///< "logits" first, then "<layer>.weight.grad",
                                ///< "<layer>.bias.grad" in model order
};

/// A model with its weights, ready to train on batches of `config.batch` samples.
class Trainer {
 public:
  virtual ~Trainer() = default;
  /// The backend that actually runs: kScalar after a whole-model fallback.
  virtual Backend backend() const = 0;
  virtual const ModelConfig& config() const = 0;
  virtual const std::vector<LayerSpec>& layers() const = 0;
  /// One training step: forward, softmax cross-entropy loss, backward, SGD update. Returns the
  /// mean loss of the batch; NaN, doing nothing, when batch.size() differs from config().batch.
  virtual float Step(const Batch& batch) = 0;
  /// Forward only (no update), for evaluation: the logits, batch x 10, valid until the next
  /// call. Batches smaller than config().batch are padded internally; of a larger batch only
  /// the first config().batch samples are used.
  virtual std::span<const float> Forward(const Batch& batch) = 0;
  /// Logits, loss and gradients of the last Step (before its update); zeros before the first.
  virtual Snapshot TakeSnapshot() const = 0;
  /// Layers that fell back to scalar kernels, with the reason (empty for kScalar asked).
  virtual std::vector<Fallback> fallbacks() const = 0;
  /// The oneDNN primitives created at start-up (empty on scalar kernels).
  virtual std::vector<PrimitiveInfo> primitives() const = 0;
};

/// Builds the model on `backend`. With kOneDnn, when oneDNN cannot create a primitive (e.g.
/// bf16 on a CPU without BF16 support: `unimplemented`) or the CPU lacks SSE4.1, the whole
/// model runs on the scalar kernels and fallbacks() names every layer with the reason.
/// Errors: the config's usage errors (see Validate); kUnsupported when memory runs out, and for
/// nothing else (a model worker ends with dispatch::kWorkerOutOfMemoryExit on it).
/// `observer` may be null; it must outlive the trainer.
StatusOr<std::unique_ptr<Trainer>> MakeTrainer(Backend backend, const ModelConfig& config,
                                               Observer* observer = nullptr);

/// The share of `data` whose arg-max logit equals the label, in [0, 1]; 0 for empty data.
float Accuracy(Trainer& trainer, const Dataset& data);

/// How far two snapshots are apart: for every tensor, the largest absolute difference divided
/// by the tensor's largest magnitude in either snapshot (so tiny gradient entries do not blow
/// up), and for the loss its relative difference; the maximum of these. Infinity when the
/// snapshots do not have the same tensors and sizes.
struct Deviation {
  double value = 0;
  std::string tensor;  ///< where the maximum is: "loss", "logits", "fc1.weight.grad", ...;
                       ///< empty when the snapshots are equal
};
Deviation CompareSnapshots(const Snapshot& a, const Snapshot& b);
double MaxDeviation(const Snapshot& a, const Snapshot& b);

/// The agreement dlcheck expects between oneDNN and the scalar kernels for one Step from the
/// same weights on the same batch, in MaxDeviation's measure. f32: only the summation order
/// differs (measured: below 1e-5). bf16: both round to bf16 at the same points and accumulate
/// in f32, but a sum that lands near a rounding boundary can round either way, one bf16 ulp
/// (2^-8 relative) that later layers carry (measured: up to 2e-3). Later steps drift further
/// apart as such differences reach the weights, so compare the first step.
inline constexpr double kToleranceF32 = 1e-4;
inline constexpr double kToleranceBf16 = 1e-2;
double Tolerance(DType dtype);

}  // namespace dlcheck::mlp
