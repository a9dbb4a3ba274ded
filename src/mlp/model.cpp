// SPDX-License-Identifier: Apache-2.0
#include "mlp/model.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace dlcheck::mlp {

std::string_view Name(ModelKind kind) {
  return kind == ModelKind::kMlp ? "mlp" : "cnn";
}
std::string_view Name(Backend backend) {
  return backend == Backend::kOneDnn ? "onednn" : "scalar";
}
std::string_view Name(DType dtype) {
  return dtype == DType::kF32 ? "f32" : "bf16";
}

Status Validate(const ModelConfig& config) {
  if (config.batch < 1 || config.batch > kMaxBatch) {
    return UsageError("--batch must be between 1 and " + std::to_string(kMaxBatch));
  }
  if (!std::isfinite(config.lr) || config.lr <= 0) {
    return UsageError("--lr must be a positive number");
  }
  if (config.model == ModelKind::kMlp) {
    if (config.layers.empty()) return UsageError("--layers needs at least one layer size");
    if (config.layers.size() > kMaxLayers) {
      return UsageError("--layers takes at most " + std::to_string(kMaxLayers) + " layers");
    }
    for (int size : config.layers) {
      if (size < 1 || size > kMaxLayerSize) {
        return UsageError("--layers sizes must be between 1 and " + std::to_string(kMaxLayerSize));
      }
    }
    if (config.layers.back() != kNumClasses) {
      return UsageError("--layers must end with 10, the number of classes");
    }
  }
  return {};
}

namespace {

LayerSpec InnerProduct(std::string name, Shape in, int out) {
  return {std::move(name), LayerKind::kInnerProduct, in, Shape{in.n, out}, 0, 1, true};
}
LayerSpec Relu(std::string name, Shape in) {
  return {std::move(name), LayerKind::kRelu, in, in, 0, 1, true};
}
LayerSpec Convolution(std::string name, Shape in, int out_channels, int kernel) {
  Shape out{in.n, out_channels, in.h - kernel + 1, in.w - kernel + 1};
  return {std::move(name), LayerKind::kConvolution, in, out, kernel, 1, true};
}
LayerSpec MaxPool(std::string name, Shape in, int window) {
  Shape out{in.n, in.c, in.h / window, in.w / window};
  return {std::move(name), LayerKind::kMaxPool, in, out, window, window, true};
}

}  // namespace

std::vector<LayerSpec> DescribeModel(const ModelConfig& config) {
  std::vector<LayerSpec> layers;
  const int n = config.batch;
  if (config.model == ModelKind::kMlp) {
    Shape shape{n, kImageSize};
    for (std::size_t i = 0; i < config.layers.size(); ++i) {
      const std::string index = std::to_string(i + 1);
      layers.push_back(InnerProduct("fc" + index, shape, config.layers[i]));
      shape = layers.back().out;
      if (i + 1 < config.layers.size()) layers.push_back(Relu("relu" + index, shape));
    }
  } else {
    Shape shape{n, 1, kImageSide, kImageSide};
    for (const char* name : {"conv1", "relu1", "pool1", "conv2", "relu2", "pool2"}) {
      const std::string_view v = name;
      if (v.starts_with("conv")) {
        layers.push_back(Convolution(name, shape, v == "conv1" ? 20 : 50, 5));
      } else if (v.starts_with("relu")) {
        layers.push_back(Relu(name, shape));
      } else {
        layers.push_back(MaxPool(name, shape, 2));
      }
      shape = layers.back().out;
    }
    layers.push_back(InnerProduct("fc1", shape, 500));
    layers.push_back(Relu("relu3", layers.back().out));
    layers.push_back(InnerProduct("fc2", layers.back().out, kNumClasses));
  }
  const Shape logits = layers.back().out;
  layers.push_back({"loss", LayerKind::kLoss, logits, logits, 0, 1, true});
  layers.front().needs_diff_src = false;
  return layers;
}

Parameters InitialParameters(const ModelConfig& config) {
  Parameters params;
  Random random(config.seed * 0x9E3779B97F4A7C15ull + 0x5EEDull);
  for (const LayerSpec& layer : DescribeModel(config)) {
    int fan_in = 0;
    int outputs = 0;
    if (layer.kind == LayerKind::kInnerProduct) {
      fan_in = layer.in.PerSample();
      outputs = layer.out.c;
    } else if (layer.kind == LayerKind::kConvolution) {
      fan_in = layer.in.c * layer.kernel * layer.kernel;
      outputs = layer.out.c;
    } else {
      continue;
    }
    const float bound = 1.0f / std::sqrt(static_cast<float>(fan_in));
    std::vector<float> weights(static_cast<std::size_t>(outputs) * fan_in);
    for (float& w : weights) w = random.Uniform(-bound, bound);
    std::vector<float> biases(outputs);
    for (float& b : biases) b = random.Uniform(-bound, bound);
    params.layer.push_back(layer.name);
    params.weights.push_back(std::move(weights));
    params.biases.push_back(std::move(biases));
  }
  return params;
}

float RoundToBf16(float value) {
  std::uint32_t bits = std::bit_cast<std::uint32_t>(value);
  if (std::isnan(value)) return value;
  // Round to nearest, ties to even, on the 16 bits that bf16 drops.
  bits += 0x7FFFu + ((bits >> 16) & 1u);
  bits &= 0xFFFF0000u;
  return std::bit_cast<float>(bits);
}

std::uint64_t Random::Next() {
  std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float Random::Uniform() {
  // 24 random bits: every value is exact in a float and below 1.
  return static_cast<float>(Next() >> 40) * (1.0f / 16777216.0f);
}

}  // namespace dlcheck::mlp
