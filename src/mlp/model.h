// SPDX-License-Identifier: Apache-2.0
#pragma once
// The two models dlcheck trains (an MLP and a LeNet-style CNN), described once as a list of
// layers that both backends (oneDNN and the scalar kernels) build from, with the same initial
// weights for a given seed.
//
//   ModelConfig config{.model = ModelKind::kCnn, .batch = 8};
//   std::vector<LayerSpec> layers = DescribeModel(config);   // conv1, relu1, pool1, ...
//   Parameters params = InitialParameters(config);           // identical for every backend

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dlcheck::mlp {

/// Which network: fully connected layers on 784 inputs, or the LeNet-style CNN on 1x28x28.
enum class ModelKind { kMlp, kCnn };
/// Which kernels run it: oneDNN primitives, or dlcheck's plain C++ kernels.
enum class Backend { kOneDnn, kScalar };
/// The compute data type. bf16 keeps f32 master weights and f32 weight gradients.
enum class DType { kF32, kBf16 };

/// "mlp" / "cnn", "onednn" / "scalar", "f32" / "bf16": the command-line spellings.
std::string_view Name(ModelKind kind);
std::string_view Name(Backend backend);
std::string_view Name(DType dtype);

/// What to train. `layers` is used by the MLP only (the CNN's layers are fixed); its last
/// entry is the number of classes and must be 10 (the IDX data sets and the synthetic data
/// have ten classes).
struct ModelConfig {
  ModelKind model = ModelKind::kMlp;
  std::vector<int> layers{128, 64, 10};
  int batch = 100;
  float lr = 0.1f;
  std::uint64_t seed = 1;
  DType dtype = DType::kF32;
};

/// Every model reads 28x28 single-channel images and predicts one of ten classes.
inline constexpr int kImageSide = 28;
inline constexpr int kImageSize = kImageSide * kImageSide;
inline constexpr int kNumClasses = 10;

/// Limits that keep a typo from asking for terabytes.
inline constexpr int kMaxBatch = 16384;
inline constexpr int kMaxLayerSize = 16384;
inline constexpr std::size_t kMaxLayers = 32;

/// A usage error (exit code 2) when the configuration cannot be built: batch outside
/// 1..kMaxBatch, lr not finite and > 0, an empty `--layers` or one with more than kMaxLayers
/// sizes or sizes outside 1..kMaxLayerSize, a last layer other than 10.
Status Validate(const ModelConfig& config);

/// The kind of one layer.
enum class LayerKind { kInnerProduct, kConvolution, kRelu, kMaxPool, kLoss };

/// A tensor shape in NCHW; fully connected activations have h = w = 1.
struct Shape {
  int n = 0;
  int c = 0;
  int h = 1;
  int w = 1;
  bool operator==(const Shape&) const = default;
  /// Elements per sample (c * h * w).
  int PerSample() const { return c * h * w; }
  /// Elements in the whole batch.
  int Size() const { return n * c * h * w; }
};

/// One layer of a model. Names are stable: MLP `fc1 relu1 fc2 relu2 fc3 loss`; CNN
/// `conv1 relu1 pool1 conv2 relu2 pool2 fc1 relu3 fc2 loss`.
struct LayerSpec {
  std::string name;
  LayerKind kind = LayerKind::kRelu;
  Shape in;
  Shape out;
  int kernel = 0;              ///< convolution and pooling window side
  int stride = 1;              ///< convolution and pooling stride
  bool needs_diff_src = true;  ///< false for the first layer: the input has no gradient
};

/// The layers of the model `config` describes (Validate it first).
std::vector<LayerSpec> DescribeModel(const ModelConfig& config);

/// Weights and biases of every trainable layer (inner product, convolution), in model order,
/// in canonical layouts: inner product weights O x I (I in the input's C,H,W order),
/// convolution weights O x I x KH x KW. Initialised like PyTorch's default: uniform in
/// +-1/sqrt(fan_in), from a generator seeded with `config.seed`.
struct Parameters {
  std::vector<std::string> layer;  ///< the trainable layer's name, e.g. "fc1"
  std::vector<std::vector<float>> weights;
  std::vector<std::vector<float>> biases;
};
Parameters InitialParameters(const ModelConfig& config);

/// The compute data type's rounding: f32 -> bf16 -> f32, round to nearest even (as oneDNN).
float RoundToBf16(float value);

/// A small deterministic generator (splitmix64), so data and weights are the same on every
/// platform and standard library.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next();
  /// Uniform in [0, 1).
  float Uniform();
  /// Uniform in [lo, hi).
  float Uniform(float lo, float hi) { return lo + (hi - lo) * Uniform(); }

 private:
  std::uint64_t state_;
};

}  // namespace dlcheck::mlp
