// SPDX-License-Identifier: Apache-2.0
// The models on dlcheck's scalar kernels. With bf16, values are rounded to bf16 where oneDNN's
// bf16 training keeps them in bf16 (activations, weights used for compute, gradients flowing
// between layers), while master weights, weight gradients, logits and the loss stay f32: the
// same points oneDNN rounds at, so the two backends can be compared.

#include <algorithm>
#include <chrono>
#include <limits>

#include "common/primitive_kinds.h"
#include "mlp/scalar_kernels.h"
#include "mlp/trainer_internal.h"

namespace dlcheck::mlp::internal {
namespace {

using Clock = std::chrono::steady_clock;

std::string Tag(Shape shape) {
  return shape.h == 1 && shape.w == 1 ? "ab" : "abcd";
}
std::string Md(const std::string& arg, std::string_view dt, const std::string& tag) {
  return arg + "_" + std::string(dt) + "::blocked:" + tag + ":f0";
}

struct ScalarLayer {
  LayerSpec spec;
  int param = -1;              // index into the parameters, for trainable layers
  bool bf16_out = false;       // the output is rounded to bf16
  std::vector<float> out;      // forward output
  std::vector<float> diff_in;  // gradient with respect to the input
  std::vector<std::int32_t> argmax;
  ScalarOpEvent forward, backward_data, backward_weights, update_weights, update_bias;
};

class ScalarTrainer final : public Trainer {
 public:
  ScalarTrainer(const ModelConfig& config, Observer* observer, std::vector<Fallback> fallbacks)
      : config_(config),
        observer_(observer),
        fallbacks_(std::move(fallbacks)),
        specs_(DescribeModel(config)),
        params_(InitialParameters(config)),
        bf16_(config.dtype == DType::kBf16) {
    input_.resize(static_cast<std::size_t>(config.batch) * kImageSize);
    int param = 0;
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      const LayerSpec& spec = specs_[i];
      const bool logits = i + 2 == specs_.size();  // the last inner product, before the loss
      Notify(spec.name, "create");
      const Clock::time_point start = Clock::now();
      ScalarLayer layer;
      layer.spec = spec;
      layer.out.resize(spec.out.Size());
      if (spec.needs_diff_src) layer.diff_in.resize(spec.in.Size());
      if (spec.kind == LayerKind::kInnerProduct || spec.kind == LayerKind::kConvolution) {
        layer.param = param++;
        weight_grads_.emplace_back(params_.weights[layer.param].size());
        bias_grads_.emplace_back(params_.biases[layer.param].size());
        compute_weights_.push_back(params_.weights[layer.param]);
      }
      if (spec.kind == LayerKind::kMaxPool) layer.argmax.resize(spec.out.Size());
      // Logits and log-probabilities stay f32, as in the oneDNN trainer.
      layer.bf16_out = bf16_ && !logits && spec.kind != LayerKind::kLoss;
      DescribeEvents(layer);
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      for (ScalarOpEvent* event : Events(layer)) {
        event->operation = "create";
        event->time_ms = ms;
        if (observer_) observer_->OnScalarOp(*event);
        event->operation = "exec";
      }
      layers_.push_back(std::move(layer));
    }
    diff_log_probs_.resize(layers_.back().out.size());
  }

  Backend backend() const override { return Backend::kScalar; }
  const ModelConfig& config() const override { return config_; }
  const std::vector<LayerSpec>& layers() const override { return specs_; }
  std::vector<Fallback> fallbacks() const override { return fallbacks_; }
  std::vector<PrimitiveInfo> primitives() const override { return {}; }

  float Step(const Batch& batch) override {
    if (batch.size() != config_.batch) return std::numeric_limits<float>::quiet_NaN();
    RunForward(batch);
    ScalarLayer& loss_layer = layers_.back();
    loss_ = NllLoss(loss_layer.out, batch.labels, diff_log_probs_, kNumClasses);
    std::span<const float> diff = diff_log_probs_;
    for (std::size_t i = layers_.size(); i-- > 0;) {
      ScalarLayer& layer = layers_[i];
      Notify(layer.spec.name, "backward");
      RunBackward(layer, i == 0 ? std::span<const float>(input_) : layers_[i - 1].out, diff);
      diff = layer.diff_in;
    }
    for (ScalarLayer& layer : layers_) {
      if (layer.param < 0) continue;
      Notify(layer.spec.name, "update");
      Timed(layer.update_weights, [&] {
        scalar::SgdUpdate(params_.weights[layer.param], weight_grads_[layer.param], config_.lr);
      });
      Timed(layer.update_bias, [&] {
        scalar::SgdUpdate(params_.biases[layer.param], bias_grads_[layer.param], config_.lr);
      });
    }
    return loss_;
  }

  std::span<const float> Forward(const Batch& batch) override {
    RunForward(batch);
    const std::vector<float>& logits = layers_[layers_.size() - 2].out;
    const int samples = std::min(batch.size(), config_.batch);
    return std::span(logits).first(static_cast<std::size_t>(samples) * kNumClasses);
  }

  Snapshot TakeSnapshot() const override {
    Snapshot snapshot;
    snapshot.loss = loss_;
    snapshot.tensors.push_back({"logits", layers_[layers_.size() - 2].out});
    for (std::size_t p = 0; p < params_.layer.size(); ++p) {
      snapshot.tensors.push_back({params_.layer[p] + ".weight.grad", weight_grads_[p]});
      snapshot.tensors.push_back({params_.layer[p] + ".bias.grad", bias_grads_[p]});
    }
    return snapshot;
  }

 private:
  void Notify(std::string_view layer, std::string_view phase) {
    if (observer_) observer_->OnLayer(layer, phase);
  }

  template <typename F>
  void Timed(ScalarOpEvent& event, F&& run) {
    const Clock::time_point start = Clock::now();
    run();
    event.time_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    if (observer_) observer_->OnScalarOp(event);
  }

  static std::vector<ScalarOpEvent*> Events(ScalarLayer& layer) {
    std::vector<ScalarOpEvent*> events{&layer.forward};
    if (layer.spec.needs_diff_src) events.push_back(&layer.backward_data);
    if (layer.param >= 0) {
      events.push_back(&layer.backward_weights);
      events.push_back(&layer.update_weights);
      events.push_back(&layer.update_bias);
    }
    return events;
  }

  // Descriptors as oneDNN 2.6 prints them for the same primitive (its names: "pooling_v2",
  // "softmax_v2"; src/wei/bia/dst also for backward), with the plain layouts the scalar
  // kernels use.
  void DescribeEvents(ScalarLayer& layer) {
    const LayerSpec& spec = layer.spec;
    const std::string_view cdt = bf16_ ? "bf16" : "f32";
    const std::string_view out_dt = layer.bf16_out ? "bf16" : "f32";
    const std::string in_tag = Tag(spec.in);
    const std::string out_tag = Tag(spec.out);
    const std::string none = "undef::undef::f0";
    auto init = [&](ScalarOpEvent& e, std::string primitive, std::string prop, std::string memory,
                    std::string aux, std::string problem) {
      e = ScalarOpEvent{spec.name,         "exec",         std::move(primitive), std::move(prop),
                        std::move(memory), std::move(aux), std::move(problem),   0};
    };
    const std::string problem = ProblemString(spec);
    const std::string binary(onednn::NameOf(onednn::Kind::kBinary)),
        eltwise(onednn::NameOf(onednn::Kind::kEltwise)), pooling(onednn::kPoolingV2),
        softmax(onednn::kSoftmaxV2);
    switch (spec.kind) {
      case LayerKind::kInnerProduct:
      case LayerKind::kConvolution: {
        const bool ip = spec.kind == LayerKind::kInnerProduct;
        const std::string primitive(
            onednn::NameOf(ip ? onednn::Kind::kInnerProduct : onednn::Kind::kConvolution));
        const std::string wei_tag = in_tag;
        const std::string aux = ip ? "" : "alg:convolution_direct";
        init(layer.forward, primitive, "forward_training",
             Md("src", cdt, in_tag) + " " + Md("wei", cdt, wei_tag) + " " + Md("bia", "f32", "a") +
                 " " + Md("dst", out_dt, out_tag),
             aux, problem);
        init(layer.backward_data, primitive, "backward_data",
             Md("src", cdt, in_tag) + " " + Md("wei", cdt, wei_tag) + " bia_" + none + " " +
                 Md("dst", cdt, out_tag),
             aux, problem);
        init(layer.backward_weights, primitive, "backward_weights",
             Md("src", cdt, in_tag) + " " + Md("wei", "f32", wei_tag) + " " +
                 Md("bia", "f32", "a") + " " + Md("dst", cdt, out_tag),
             aux, problem);
        // The update is a binary add over the weights' dims (O x I or O x I x KH x KW), as
        // oneDNN's: weights + (-lr) * gradient.
        const Shape weights = ip ? Shape{spec.out.c, spec.in.c, spec.in.h, spec.in.w}
                                 : Shape{spec.out.c, spec.in.c, spec.kernel, spec.kernel};
        const std::string update_w = Md("src", "f32", wei_tag) + " " + Md("src", "f32", wei_tag) +
                                     " " + Md("dst", "f32", wei_tag);
        const std::string update_b =
            Md("src", "f32", "a") + " " + Md("src", "f32", "a") + " " + Md("dst", "f32", "a");
        const std::string dims_w = DimsString(weights);
        const std::string dims_b = std::to_string(spec.out.c);
        init(layer.update_weights, binary, "undef", update_w, "alg:binary_add",
             dims_w + ":" + dims_w);
        init(layer.update_bias, binary, "undef", update_b, "alg:binary_add", dims_b + ":" + dims_b);
        break;
      }
      case LayerKind::kRelu:
        init(layer.forward, eltwise, "forward_training", Md("data", cdt, in_tag) + " diff_" + none,
             "alg:eltwise_relu alpha:0 beta:0", problem);
        init(layer.backward_data, eltwise, "backward_data",
             Md("data", cdt, in_tag) + " " + Md("diff", cdt, in_tag),
             "alg:eltwise_relu alpha:0 beta:0", problem);
        break;
      case LayerKind::kMaxPool: {
        // The workspace holds s32 indices here (oneDNN's holds u8 window offsets).
        const std::string memory =
            Md("src", cdt, in_tag) + " " + Md("dst", cdt, out_tag) + " " + Md("ws", "s32", out_tag);
        init(layer.forward, pooling, "forward_training", memory, "alg:pooling_max", problem);
        init(layer.backward_data, pooling, "backward_data", memory, "alg:pooling_max", problem);
        break;
      }
      case LayerKind::kLoss:
        init(layer.forward, softmax, "forward_training",
             Md("src", "f32", "ab") + " " + Md("dst", "f32", "ab"), "alg:softmax_log axis:1",
             problem);
        init(layer.backward_data, softmax, "backward_data",
             Md("src", "f32", "ab") + " " + Md("dst", "f32", "ab") + " " +
                 Md("diff_dst", "f32", "ab"),
             "alg:softmax_log axis:1", problem);
        break;
    }
  }

  void RunForward(const Batch& batch) {
    CopyBatchImages(batch, input_);
    if (bf16_) scalar::RoundToBf16(input_);
    std::span<const float> in = input_;
    for (ScalarLayer& layer : layers_) {
      Notify(layer.spec.name, "forward");
      const LayerSpec& s = layer.spec;
      Timed(layer.forward, [&] {
        switch (s.kind) {
          case LayerKind::kInnerProduct:
          case LayerKind::kConvolution: {
            std::vector<float>& w = compute_weights_[layer.param];
            w = params_.weights[layer.param];
            if (bf16_) scalar::RoundToBf16(w);
            if (s.kind == LayerKind::kInnerProduct) {
              scalar::InnerProductForward(in, w, params_.biases[layer.param], layer.out, s.in.n,
                                          s.in.PerSample(), s.out.c);
            } else {
              scalar::ConvolutionForward(in, w, params_.biases[layer.param], layer.out, s.in, s.out,
                                         s.kernel);
            }
            break;
          }
          case LayerKind::kRelu:
            scalar::ReluForward(in, layer.out);
            break;
          case LayerKind::kMaxPool:
            scalar::MaxPoolForward(in, layer.out, layer.argmax, s.in, s.out, s.kernel);
            break;
          case LayerKind::kLoss:
            scalar::LogSoftmaxForward(in, layer.out, s.in.n, s.in.c);
            break;
        }
        if (layer.bf16_out) scalar::RoundToBf16(layer.out);
      });
      in = layer.out;
    }
  }

  void RunBackward(ScalarLayer& layer, std::span<const float> in, std::span<const float> diff) {
    const LayerSpec& s = layer.spec;
    const bool round_diff = bf16_ && s.kind != LayerKind::kLoss;
    if (s.kind == LayerKind::kInnerProduct || s.kind == LayerKind::kConvolution) {
      const std::vector<float>& w = compute_weights_[layer.param];
      if (s.needs_diff_src) {
        Timed(layer.backward_data, [&] {
          if (s.kind == LayerKind::kInnerProduct) {
            scalar::InnerProductBackwardData(diff, w, layer.diff_in, s.in.n, s.in.PerSample(),
                                             s.out.c);
          } else {
            scalar::ConvolutionBackwardData(diff, w, layer.diff_in, s.in, s.out, s.kernel);
          }
          if (round_diff) scalar::RoundToBf16(layer.diff_in);
        });
      }
      Timed(layer.backward_weights, [&] {
        if (s.kind == LayerKind::kInnerProduct) {
          scalar::InnerProductBackwardWeights(in, diff, weight_grads_[layer.param],
                                              bias_grads_[layer.param], s.in.n, s.in.PerSample(),
                                              s.out.c);
        } else {
          scalar::ConvolutionBackwardWeights(in, diff, weight_grads_[layer.param],
                                             bias_grads_[layer.param], s.in, s.out, s.kernel);
        }
      });
      return;
    }
    Timed(layer.backward_data, [&] {
      switch (s.kind) {
        case LayerKind::kRelu:
          scalar::ReluBackward(in, diff, layer.diff_in);
          break;
        case LayerKind::kMaxPool:
          scalar::MaxPoolBackward(diff, layer.argmax, layer.diff_in, s.in, s.out, s.kernel);
          break;
        case LayerKind::kLoss:
          scalar::LogSoftmaxBackward(layer.out, diff, layer.diff_in, s.in.n, s.in.c);
          // oneDNN's bf16 model converts this f32 gradient to bf16 for the last inner product.
          if (bf16_) scalar::RoundToBf16(layer.diff_in);
          break;
        default:
          break;
      }
      if (round_diff) scalar::RoundToBf16(layer.diff_in);
    });
  }

  ModelConfig config_;
  Observer* observer_;
  std::vector<Fallback> fallbacks_;
  std::vector<LayerSpec> specs_;
  Parameters params_;
  bool bf16_;
  std::vector<ScalarLayer> layers_;
  std::vector<float> input_;
  std::vector<float> diff_log_probs_;
  std::vector<std::vector<float>> weight_grads_, bias_grads_, compute_weights_;
  float loss_ = 0;
};

}  // namespace

std::unique_ptr<Trainer> MakeScalarTrainer(const ModelConfig& config, Observer* observer,
                                           std::vector<Fallback> fallbacks) {
  return std::make_unique<ScalarTrainer>(config, observer, std::move(fallbacks));
}

}  // namespace dlcheck::mlp::internal
