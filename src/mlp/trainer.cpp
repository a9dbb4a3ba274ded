// SPDX-License-Identifier: Apache-2.0
#include "mlp/trainer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <new>

#include "mlp/trainer_internal.h"
#include "verbose/dialect.h"

namespace dlcheck::mlp {

std::string ToVerboseLine(const ScalarOpEvent& e) {
  char time[32];
  std::snprintf(time, sizeof(time), "%g", e.time_ms);
  // The marker from the table of dialects (header-only: mlp does not link the verbose library).
  return std::string(verbose::DialectOf(verbose::Family::kOnednn).marker) + e.operation + ",cpu," +
         e.primitive + "," + std::string(kScalarImplementation) + "," + e.prop_kind + "," +
         e.memory + ",," + e.aux + "," + e.problem + "," + time;
}

StatusOr<std::unique_ptr<Trainer>> MakeTrainer(Backend backend, const ModelConfig& config,
                                               Observer* observer) {
  if (Status status = Validate(config); !status.ok()) return status;
  try {
    if (backend == Backend::kScalar) return internal::MakeScalarTrainer(config, observer, {});
    std::vector<Fallback> fallbacks;
    std::unique_ptr<Trainer> trainer = internal::MakeOneDnnTrainer(config, observer, fallbacks);
    if (trainer) return trainer;
    return internal::MakeScalarTrainer(config, observer, std::move(fallbacks));
  } catch (const std::bad_alloc&) {
    return Status(ExitCode::kUnsupported,
                  "not enough memory for the " + std::string(Name(config.model)) + " with batch " +
                      std::to_string(config.batch) + ": use a smaller --batch or --layers");
  }
}

float Accuracy(Trainer& trainer, const Dataset& data) {
  if (data.size() == 0) return 0;
  const int batch = trainer.config().batch;
  int correct = 0;
  for (int start = 0; start < data.size(); start += batch) {
    const int count = std::min(batch, data.size() - start);
    const Batch part{std::span(data.images)
                         .subspan(static_cast<std::size_t>(start) * kImageSize,
                                  static_cast<std::size_t>(count) * kImageSize),
                     std::span(data.labels).subspan(start, count)};
    std::span<const float> logits = trainer.Forward(part);
    for (int s = 0; s < count; ++s) {
      const float* row = &logits[static_cast<std::size_t>(s) * kNumClasses];
      if (std::max_element(row, row + kNumClasses) - row == part.labels[s]) ++correct;
    }
  }
  return static_cast<float>(correct) / static_cast<float>(data.size());
}

Deviation CompareSnapshots(const Snapshot& a, const Snapshot& b) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  Deviation worst;
  auto consider = [&worst](double value, const std::string& tensor) {
    if (!(value <= worst.value)) {  // NaN counts as the worst
      worst.value = std::isnan(value) ? kInfinity : value;
      worst.tensor = tensor;
    }
  };
  const double loss_scale = std::max(
      {std::fabs(double{a.loss}), std::fabs(double{b.loss}), std::numeric_limits<double>::min()});
  consider(std::fabs(double{a.loss} - double{b.loss}) / loss_scale, "loss");
  if (a.tensors.size() != b.tensors.size()) {
    consider(kInfinity, "tensor count");
    return worst;
  }
  for (std::size_t t = 0; t < a.tensors.size(); ++t) {
    const Tensor& x = a.tensors[t];
    const Tensor& y = b.tensors[t];
    if (x.name != y.name || x.values.size() != y.values.size()) {
      consider(kInfinity, x.name);
      continue;
    }
    double scale = std::numeric_limits<double>::min();
    double diff = 0;
    for (std::size_t i = 0; i < x.values.size(); ++i) {
      scale = std::max({scale, std::fabs(double{x.values[i]}), std::fabs(double{y.values[i]})});
      const double d = std::fabs(double{x.values[i]} - double{y.values[i]});
      diff = std::isnan(d) ? kInfinity : std::max(diff, d);
    }
    consider(diff / scale, x.name);
  }
  return worst;
}

double MaxDeviation(const Snapshot& a, const Snapshot& b) {
  return CompareSnapshots(a, b).value;
}

double Tolerance(DType dtype) {
  return dtype == DType::kF32 ? kToleranceF32 : kToleranceBf16;
}

namespace internal {

std::string DimsString(Shape shape) {
  std::string text = std::to_string(shape.n) + "x" + std::to_string(shape.c);
  if (shape.h != 1 || shape.w != 1) {
    text += "x" + std::to_string(shape.h) + "x" + std::to_string(shape.w);
  }
  return text;
}

std::string ProblemString(const LayerSpec& layer) {
  const Shape& in = layer.in;
  const Shape& out = layer.out;
  auto s = [](int v) { return std::to_string(v); };
  switch (layer.kind) {
    case LayerKind::kInnerProduct:
      if (in.h == 1 && in.w == 1) return "mb" + s(in.n) + "ic" + s(in.c) + "oc" + s(out.c);
      return "mb" + s(in.n) + "ic" + s(in.c) + "ih" + s(in.h) + "iw" + s(in.w) + "oc" + s(out.c);
    case LayerKind::kConvolution:
      return "mb" + s(in.n) + "_ic" + s(in.c) + "oc" + s(out.c) + "_ih" + s(in.h) + "oh" +
             s(out.h) + "kh" + s(layer.kernel) + "sh" + s(layer.stride) + "dh0ph0_iw" + s(in.w) +
             "ow" + s(out.w) + "kw" + s(layer.kernel) + "sw" + s(layer.stride) + "dw0pw0";
    case LayerKind::kMaxPool:
      return "mb" + s(in.n) + "ic" + s(in.c) + "_ih" + s(in.h) + "oh" + s(out.h) + "kh" +
             s(layer.kernel) + "sh" + s(layer.stride) + "dh0ph0_iw" + s(in.w) + "ow" + s(out.w) +
             "kw" + s(layer.kernel) + "sw" + s(layer.stride) + "dw0pw0";
    case LayerKind::kRelu:
    case LayerKind::kLoss:
      return DimsString(in);
  }
  return {};
}

void CopyBatchImages(const Batch& batch, std::span<float> input) {
  const std::size_t have = std::min(batch.images.size(), input.size());
  std::copy_n(batch.images.begin(), have, input.begin());
  for (std::size_t at = have; at + kImageSize <= input.size() && have >= kImageSize;
       at += kImageSize) {
    std::copy_n(batch.images.begin() + (have - kImageSize), kImageSize, input.begin() + at);
  }
}

float NllLoss(std::span<const float> log_probs, std::span<const std::int32_t> labels,
              std::span<float> diff, int classes) {
  std::fill(diff.begin(), diff.end(), 0.0f);
  const int n = static_cast<int>(labels.size());
  double loss = 0;
  for (int s = 0; s < n; ++s) {
    const std::size_t at = static_cast<std::size_t>(s) * classes + labels[s];
    loss -= log_probs[at];
    diff[at] = -1.0f / static_cast<float>(n);
  }
  return static_cast<float>(loss / n);
}

}  // namespace internal
}  // namespace dlcheck::mlp
