// SPDX-License-Identifier: Apache-2.0
// The models on oneDNN primitives, built the way a framework builds them: primitive
// descriptors with format `any`, reorders where oneDNN's preferred layouts differ from the
// user layouts (and from one layer to the next), forward_training with a workspace for max
// pooling, backward data and weights, and an in-place `binary` add (gradient scaled by -lr) for the
// SGD update. Every primitive is created once here; Step only executes the list.
//
// bf16: master weights, weight gradients, biases, logits and the loss are f32; weights are
// reordered to bf16 before each forward pass (after the update), activations and the gradients
// flowing between layers are bf16.

#include <oneapi/dnnl/dnnl_debug.h>

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <new>
#include <oneapi/dnnl/dnnl.hpp>
#include <string_view>
#include <unordered_map>

#include "common/primitive_kinds.h"
#include "mlp/trainer_internal.h"
namespace dlcheck::mlp::internal {
namespace {

using dnnl::memory;
using Tag = memory::format_tag;
using Dt = memory::data_type;

std::string StatusName(dnnl_status_t status) {
  switch (status) {
    case dnnl_out_of_memory:
      return "out_of_memory";
    case dnnl_invalid_arguments:
      return "invalid_arguments";
    case dnnl_unimplemented:
      return "unimplemented";
    case dnnl_iterator_ends:
      return "iterator_ends";
    case dnnl_runtime_error:
      return "runtime_error";
    case dnnl_not_required:
      return "not_required";
    default:
      return "status " + std::to_string(static_cast<int>(status));
  }
}

memory::dims Dims(Shape shape) {
  if (shape.h == 1 && shape.w == 1) return {shape.n, shape.c};
  return {shape.n, shape.c, shape.h, shape.w};
}

Tag PlainTag(std::size_t ndims) {
  return ndims == 1 ? Tag::a : ndims == 2 ? Tag::ab : Tag::abcd;
}

struct Op {
  std::string layer;
  dnnl::primitive primitive;
  std::unordered_map<int, memory> args;
};

// What forward creation leaves for the backward pass of a layer.
struct LayerState {
  memory src;  // the layer's input, in the layout its forward primitive used
  memory dst;
  memory weights_fwd;
  memory weights_user, bias_user, diff_weights_user, diff_bias;
  memory workspace;
  dnnl::inner_product_forward::primitive_desc ip_pd;
  dnnl::convolution_forward::primitive_desc conv_pd;
  dnnl::eltwise_forward::primitive_desc relu_pd;
  dnnl::pooling_forward::primitive_desc pool_pd;
  dnnl::logsoftmax_forward::primitive_desc loss_pd;
};

class OneDnnTrainer final : public Trainer {
 public:
  OneDnnTrainer(const ModelConfig& config, Observer* observer)
      : config_(config),
        observer_(observer),
        specs_(DescribeModel(config)),
        engine_(dnnl::engine::kind::cpu, 0),
        stream_(engine_),
        cdt_(config.dtype == DType::kBf16 ? Dt::bf16 : Dt::f32) {}

  // Creates every primitive; throws dnnl::error, with current_layer()/current_primitive()
  // naming what could not be created.
  void Build() {
    const Parameters params = InitialParameters(config_);
    states_.resize(specs_.size());
    const memory::dims input_dims = Dims(specs_.front().in);
    input_ = memory({input_dims, Dt::f32, PlainTag(input_dims.size())}, engine_);
    memory cur = input_;
    int param = 0;
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      const LayerSpec& spec = specs_[i];
      LayerState& st = states_[i];
      BeginCreate(spec.name);
      const bool last_compute = i + 2 == specs_.size();
      switch (spec.kind) {
        case LayerKind::kInnerProduct:
        case LayerKind::kConvolution:
          CreateForwardWithWeights(spec, st, cur, params, param++, last_compute);
          break;
        case LayerKind::kRelu: {
          current_primitive_ = "eltwise forward_training";
          st.relu_pd = dnnl::eltwise_forward::primitive_desc(
              {dnnl::prop_kind::forward_training, dnnl::algorithm::eltwise_relu, cur.get_desc(),
               0.0f, 0.0f},
              engine_);
          st.src = cur;
          st.dst = memory(st.relu_pd.dst_desc(), engine_);
          Add(forward_, spec.name, "forward_training", st.relu_pd,
              dnnl::eltwise_forward(st.relu_pd), {{DNNL_ARG_SRC, st.src}, {DNNL_ARG_DST, st.dst}});
          break;
        }
        case LayerKind::kMaxPool: {
          current_primitive_ = "pooling forward_training";
          const memory::dims window{spec.kernel, spec.kernel};
          const memory::dims strides{spec.stride, spec.stride};
          st.pool_pd = dnnl::pooling_forward::primitive_desc({dnnl::prop_kind::forward_training,
                                                              dnnl::algorithm::pooling_max,
                                                              cur.get_desc(),
                                                              {Dims(spec.out), cdt_, Tag::any},
                                                              strides,
                                                              window,
                                                              {0, 0},
                                                              {0, 0}},
                                                             engine_);
          st.src = Convert(cur, st.pool_pd.src_desc(), forward_, spec.name);
          st.dst = memory(st.pool_pd.dst_desc(), engine_);
          st.workspace = memory(st.pool_pd.workspace_desc(), engine_);
          Add(forward_, spec.name, "forward_training", st.pool_pd,
              dnnl::pooling_forward(st.pool_pd),
              {{DNNL_ARG_SRC, st.src}, {DNNL_ARG_DST, st.dst}, {DNNL_ARG_WORKSPACE, st.workspace}});
          break;
        }
        case LayerKind::kLoss: {
          current_primitive_ = "logsoftmax forward_training";
          st.loss_pd = dnnl::logsoftmax_forward::primitive_desc(
              {dnnl::prop_kind::forward_training, cur.get_desc(), 1}, engine_);
          st.src = cur;
          st.dst = memory(st.loss_pd.dst_desc(), engine_);
          Add(forward_, spec.name, "forward_training", st.loss_pd,
              dnnl::logsoftmax_forward(st.loss_pd),
              {{DNNL_ARG_SRC, st.src}, {DNNL_ARG_DST, st.dst}});
          break;
        }
      }
      cur = states_[i].dst;
    }
    logits_ = states_[specs_.size() - 2].dst;
    log_probs_ = states_.back().dst;

    // The backward pass, from the loss down, then the updates.
    diff_log_probs_ = memory(log_probs_.get_desc(), engine_);
    memory diff = diff_log_probs_;
    for (std::size_t i = specs_.size(); i-- > 0;) {
      const LayerSpec& spec = specs_[i];
      BeginCreate(spec.name);
      diff = CreateBackward(spec, states_[i], diff);
    }
    // A snapshot before the first step shows zeros, not whatever the allocator left.
    Zero(logits_);
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      if (!states_[i].weights_user) continue;
      Zero(states_[i].diff_weights_user);
      Zero(states_[i].diff_bias);
      BeginCreate(specs_[i].name);
      CreateUpdate(specs_[i].name, states_[i].weights_user, states_[i].diff_weights_user);
      CreateUpdate(specs_[i].name, states_[i].bias_user, states_[i].diff_bias);
    }
  }

  const std::string& current_layer() const { return current_layer_; }
  const std::string& current_primitive() const { return current_primitive_; }

  Backend backend() const override { return Backend::kOneDnn; }
  const ModelConfig& config() const override { return config_; }
  const std::vector<LayerSpec>& layers() const override { return specs_; }
  std::vector<Fallback> fallbacks() const override { return {}; }
  std::vector<PrimitiveInfo> primitives() const override { return primitives_; }

  float Step(const Batch& batch) override {
    if (batch.size() != config_.batch) return std::numeric_limits<float>::quiet_NaN();
    LoadInput(batch);
    Execute(forward_, "forward");
    const std::size_t size = log_probs_.get_desc().get_size() / sizeof(float);
    loss_ = NllLoss(std::span(Data(log_probs_), size), batch.labels,
                    std::span(Data(diff_log_probs_), size), kNumClasses);
    Execute(backward_, "backward");
    Execute(update_, "update");
    return loss_;
  }

  std::span<const float> Forward(const Batch& batch) override {
    LoadInput(batch);
    Execute(forward_, "forward");
    const int samples = std::min(batch.size(), config_.batch);
    return std::span<const float>(Data(logits_), static_cast<std::size_t>(samples) * kNumClasses);
  }

  Snapshot TakeSnapshot() const override {
    Snapshot snapshot;
    snapshot.loss = loss_;
    snapshot.tensors.push_back({"logits", Values(logits_)});
    for (std::size_t i = 0; i < specs_.size(); ++i) {
      if (!states_[i].weights_user) continue;
      snapshot.tensors.push_back(
          {specs_[i].name + ".weight.grad", Values(states_[i].diff_weights_user)});
      snapshot.tensors.push_back({specs_[i].name + ".bias.grad", Values(states_[i].diff_bias)});
    }
    return snapshot;
  }

 private:
  static float* Data(const memory& m) { return static_cast<float*>(m.get_data_handle()); }
  static void Zero(const memory& m) {
    std::fill_n(Data(m), m.get_desc().get_size() / sizeof(float), 0.0f);
  }
  static std::vector<float> Values(const memory& m) {
    const float* data = Data(m);
    return std::vector<float>(data, data + m.get_desc().get_size() / sizeof(float));
  }

  void BeginCreate(const std::string& layer) {
    current_layer_ = layer;
    if (observer_) observer_->OnLayer(layer, "create");
  }

  // Records the primitive under the name oneDNN's verbose lines give its kind, and the
  // implementation oneDNN chose.
  void Add(std::vector<Op>& ops, const std::string& layer, const char* prop_kind,
           const dnnl::primitive_desc_base& pd, dnnl::primitive prim,
           std::unordered_map<int, memory> args) {
    std::string kind = dnnl_prim_kind2str(dnnl::convert_to_c(pd.get_kind()));
    // oneDNN 2.6 runs pooling and (log-)softmax as their v2 primitives and its verbose lines
    // name them so; the descriptor's kind is the v1 name.
    if (kind == onednn::NameOf(onednn::Kind::kPooling)) kind = onednn::kPoolingV2;
    if (kind == onednn::NameOf(onednn::Kind::kSoftmax)) kind = onednn::kSoftmaxV2;
    primitives_.push_back({layer, kind, prop_kind, pd.impl_info_str()});
    ops.push_back({layer, std::move(prim), std::move(args)});
  }

  // `from` itself when it already has layout `want`; otherwise a new memory filled by a
  // reorder that runs as part of `ops`.
  memory Convert(const memory& from, const memory::desc& want, std::vector<Op>& ops,
                 const std::string& layer) {
    if (from.get_desc() == want) return from;
    current_primitive_ = onednn::NameOf(onednn::Kind::kReorder);
    memory to(want, engine_);
    dnnl::reorder::primitive_desc pd(from, to);
    Add(ops, layer, "undef", pd, dnnl::reorder(pd), {{DNNL_ARG_FROM, from}, {DNNL_ARG_TO, to}});
    return to;
  }

  void CreateForwardWithWeights(const LayerSpec& spec, LayerState& st, const memory& cur,
                                const Parameters& params, int param, bool last) {
    const bool ip = spec.kind == LayerKind::kInnerProduct;
    const memory::dims src_dims = Dims(spec.in);
    const memory::dims dst_dims = Dims(spec.out);
    const memory::dims weight_dims =
        ip ? (src_dims.size() == 2 ? memory::dims{spec.out.c, spec.in.c}
                                   : memory::dims{spec.out.c, spec.in.c, spec.in.h, spec.in.w})
           : memory::dims{spec.out.c, spec.in.c, spec.kernel, spec.kernel};
    const memory::desc src_md(src_dims, cdt_, Tag::any);
    const memory::desc weights_md(weight_dims, cdt_, Tag::any);
    const memory::desc bias_md({spec.out.c}, Dt::f32, Tag::a);
    // The logits stay f32 and plain: the loss reads them.
    const memory::desc dst_md = last ? memory::desc(dst_dims, Dt::f32, PlainTag(dst_dims.size()))
                                     : memory::desc(dst_dims, cdt_, Tag::any);
    const memory::dims strides{spec.stride, spec.stride};
    const memory::dims padding{0, 0};
    memory::desc src_want, weights_want, dst_want;
    if (ip) {
      current_primitive_ = "inner_product forward_training";
      st.ip_pd = dnnl::inner_product_forward::primitive_desc(
          {dnnl::prop_kind::forward_training, src_md, weights_md, bias_md, dst_md}, engine_);
      src_want = st.ip_pd.src_desc();
      weights_want = st.ip_pd.weights_desc();
      dst_want = st.ip_pd.dst_desc();
    } else {
      current_primitive_ = "convolution forward_training";
      st.conv_pd = dnnl::convolution_forward::primitive_desc(
          {dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct, src_md,
           weights_md, bias_md, dst_md, strides, padding, padding},
          engine_);
      src_want = st.conv_pd.src_desc();
      weights_want = st.conv_pd.weights_desc();
      dst_want = st.conv_pd.dst_desc();
    }
    st.src = Convert(cur, src_want, forward_, spec.name);
    st.weights_user = memory({weight_dims, Dt::f32, PlainTag(weight_dims.size())}, engine_);
    std::copy(params.weights[param].begin(), params.weights[param].end(), Data(st.weights_user));
    st.bias_user = memory(bias_md, engine_);
    std::copy(params.biases[param].begin(), params.biases[param].end(), Data(st.bias_user));
    // Runs every step: the update changes the master weights.
    st.weights_fwd = Convert(st.weights_user, weights_want, forward_, spec.name);
    st.dst = memory(dst_want, engine_);
    current_primitive_ = ip ? "inner_product forward_training" : "convolution forward_training";
    std::unordered_map<int, memory> args{{DNNL_ARG_SRC, st.src},
                                         {DNNL_ARG_WEIGHTS, st.weights_fwd},
                                         {DNNL_ARG_BIAS, st.bias_user},
                                         {DNNL_ARG_DST, st.dst}};
    if (ip) {
      Add(forward_, spec.name, "forward_training", st.ip_pd, dnnl::inner_product_forward(st.ip_pd),
          std::move(args));
    } else {
      Add(forward_, spec.name, "forward_training", st.conv_pd,
          dnnl::convolution_forward(st.conv_pd), std::move(args));
    }
  }

  memory CreateBackward(const LayerSpec& spec, LayerState& st, const memory& diff) {
    const std::string& name = spec.name;
    switch (spec.kind) {
      case LayerKind::kLoss: {
        current_primitive_ = "logsoftmax backward_data";
        dnnl::logsoftmax_backward::primitive_desc pd({diff.get_desc(), st.dst.get_desc(), 1},
                                                     engine_, st.loss_pd);
        const memory diff_dst = Convert(diff, pd.diff_dst_desc(), backward_, name);
        memory diff_src(pd.diff_src_desc(), engine_);
        Add(backward_, name, "backward_data", pd, dnnl::logsoftmax_backward(pd),
            {{DNNL_ARG_DST, st.dst}, {DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_DIFF_SRC, diff_src}});
        return diff_src;
      }
      case LayerKind::kRelu: {
        current_primitive_ = "eltwise backward_data";
        dnnl::eltwise_backward::primitive_desc pd(
            {dnnl::algorithm::eltwise_relu, st.src.get_desc(), st.src.get_desc(), 0.0f, 0.0f},
            engine_, st.relu_pd);
        const memory diff_dst = Convert(diff, pd.diff_dst_desc(), backward_, name);
        memory diff_src(pd.diff_src_desc(), engine_);
        Add(backward_, name, "backward_data", pd, dnnl::eltwise_backward(pd),
            {{DNNL_ARG_SRC, st.src}, {DNNL_ARG_DIFF_DST, diff_dst}, {DNNL_ARG_DIFF_SRC, diff_src}});
        return diff_src;
      }
      case LayerKind::kMaxPool: {
        current_primitive_ = "pooling backward_data";
        const memory::dims window{spec.kernel, spec.kernel};
        const memory::dims strides{spec.stride, spec.stride};
        dnnl::pooling_backward::primitive_desc pd({dnnl::algorithm::pooling_max,
                                                   {Dims(spec.in), cdt_, Tag::any},
                                                   {Dims(spec.out), cdt_, Tag::any},
                                                   strides,
                                                   window,
                                                   {0, 0},
                                                   {0, 0}},
                                                  engine_, st.pool_pd);
        const memory diff_dst = Convert(diff, pd.diff_dst_desc(), backward_, name);
        memory diff_src(pd.diff_src_desc(), engine_);
        Add(backward_, name, "backward_data", pd, dnnl::pooling_backward(pd),
            {{DNNL_ARG_DIFF_DST, diff_dst},
             {DNNL_ARG_DIFF_SRC, diff_src},
             {DNNL_ARG_WORKSPACE, st.workspace}});
        return diff_src;
      }
      case LayerKind::kInnerProduct:
      case LayerKind::kConvolution:
        return CreateBackwardWithWeights(spec, st, diff);
    }
    return diff;
  }

  memory CreateBackwardWithWeights(const LayerSpec& spec, LayerState& st, const memory& diff) {
    const std::string& name = spec.name;
    const bool ip = spec.kind == LayerKind::kInnerProduct;
    const memory::desc src_md(Dims(spec.in), cdt_, Tag::any);
    const memory::desc diff_dst_md(Dims(spec.out), cdt_, Tag::any);
    const memory::dims weight_dims = st.weights_user.get_desc().dims();
    const memory::desc weights_md(weight_dims, cdt_, Tag::any);
    const memory::desc diff_weights_md(weight_dims, Dt::f32, Tag::any);
    const memory::desc diff_bias_md({spec.out.c}, Dt::f32, Tag::a);
    const memory::dims strides{spec.stride, spec.stride};
    const memory::dims padding{0, 0};
    const std::string_view kind =
        onednn::NameOf(ip ? onednn::Kind::kInnerProduct : onednn::Kind::kConvolution);

    memory diff_src;
    memory diff_dst_data;
    if (spec.needs_diff_src) {
      current_primitive_ = std::string(kind) + " backward_data";
      dnnl::primitive_desc_base pd_base;
      dnnl::primitive prim;
      memory::desc diff_dst_want, weights_want, diff_src_want;
      if (ip) {
        dnnl::inner_product_backward_data::primitive_desc pd({src_md, weights_md, diff_dst_md},
                                                             engine_, st.ip_pd);
        diff_dst_want = pd.diff_dst_desc();
        weights_want = pd.weights_desc();
        diff_src_want = pd.diff_src_desc();
        pd_base = pd;
        prim = dnnl::inner_product_backward_data(pd);
      } else {
        dnnl::convolution_backward_data::primitive_desc pd(
            {dnnl::algorithm::convolution_direct, src_md, weights_md, diff_dst_md, strides, padding,
             padding},
            engine_, st.conv_pd);
        diff_dst_want = pd.diff_dst_desc();
        weights_want = pd.weights_desc();
        diff_src_want = pd.diff_src_desc();
        pd_base = pd;
        prim = dnnl::convolution_backward_data(pd);
      }
      diff_dst_data = Convert(diff, diff_dst_want, backward_, name);
      const memory weights = Convert(st.weights_fwd, weights_want, backward_, name);
      diff_src = memory(diff_src_want, engine_);
      Add(backward_, name, "backward_data", pd_base, prim,
          {{DNNL_ARG_DIFF_DST, diff_dst_data},
           {DNNL_ARG_WEIGHTS, weights},
           {DNNL_ARG_DIFF_SRC, diff_src}});
    }

    current_primitive_ = std::string(kind) + " backward_weights";
    dnnl::primitive_desc_base pd_base;
    dnnl::primitive prim;
    memory::desc src_want, diff_dst_want, diff_weights_want;
    if (ip) {
      dnnl::inner_product_backward_weights::primitive_desc pd(
          {src_md, diff_weights_md, diff_bias_md, diff_dst_md}, engine_, st.ip_pd);
      src_want = pd.src_desc();
      diff_dst_want = pd.diff_dst_desc();
      diff_weights_want = pd.diff_weights_desc();
      pd_base = pd;
      prim = dnnl::inner_product_backward_weights(pd);
    } else {
      dnnl::convolution_backward_weights::primitive_desc pd(
          {dnnl::algorithm::convolution_direct, src_md, diff_weights_md, diff_bias_md, diff_dst_md,
           strides, padding, padding},
          engine_, st.conv_pd);
      src_want = pd.src_desc();
      diff_dst_want = pd.diff_dst_desc();
      diff_weights_want = pd.diff_weights_desc();
      pd_base = pd;
      prim = dnnl::convolution_backward_weights(pd);
    }
    const memory src = Convert(st.src, src_want, backward_, name);
    const memory diff_dst = diff_dst_data && diff_dst_data.get_desc() == diff_dst_want
                                ? diff_dst_data
                                : Convert(diff, diff_dst_want, backward_, name);
    const memory diff_weights(diff_weights_want, engine_);
    st.diff_bias = memory(diff_bias_md, engine_);
    Add(backward_, name, "backward_weights", pd_base, prim,
        {{DNNL_ARG_SRC, src},
         {DNNL_ARG_DIFF_DST, diff_dst},
         {DNNL_ARG_DIFF_WEIGHTS, diff_weights},
         {DNNL_ARG_DIFF_BIAS, st.diff_bias}});
    // The gradient in the master weights' layout, for the update (and for comparison).
    st.diff_weights_user = Convert(diff_weights, st.weights_user.get_desc(), backward_, name);
    return diff_src;
  }

  // weights += (-lr) * gradient, in place: a binary add with a scale on the gradient, which
  // oneDNN runs as vector code (jit:uni); a `sum` primitive would run simple:any, plain loops.
  void CreateUpdate(const std::string& layer, const memory& weights, const memory& gradient) {
    current_primitive_ = onednn::NameOf(onednn::Kind::kBinary);
    dnnl::primitive_attr attr;
    attr.set_scales(DNNL_ARG_SRC_1, 0, {-config_.lr});
    dnnl::binary::primitive_desc pd(
        dnnl::binary::desc(dnnl::algorithm::binary_add, weights.get_desc(), gradient.get_desc(),
                           weights.get_desc()),
        attr, engine_);
    Add(update_, layer, "undef", pd, dnnl::binary(pd),
        {{DNNL_ARG_SRC_0, weights}, {DNNL_ARG_SRC_1, gradient}, {DNNL_ARG_DST, weights}});
  }

  void LoadInput(const Batch& batch) {
    const std::size_t size = input_.get_desc().get_size() / sizeof(float);
    CopyBatchImages(batch, std::span(Data(input_), size));
  }

  void Execute(std::vector<Op>& ops, std::string_view phase) {
    const std::string* layer = nullptr;
    for (Op& op : ops) {
      if (observer_ && (layer == nullptr || *layer != op.layer)) {
        stream_.wait();  // the marker must follow the previous layer's work
        observer_->OnLayer(op.layer, phase);
      }
      layer = &op.layer;
      op.primitive.execute(stream_, op.args);
    }
    stream_.wait();
  }

  ModelConfig config_;
  Observer* observer_;
  std::vector<LayerSpec> specs_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  Dt cdt_;
  std::vector<LayerState> states_;
  std::vector<Op> forward_, backward_, update_;
  std::vector<PrimitiveInfo> primitives_;
  memory input_, logits_, log_probs_, diff_log_probs_;
  std::string current_layer_, current_primitive_;
  float loss_ = 0;
};

}  // namespace

std::unique_ptr<Trainer> MakeOneDnnTrainer(const ModelConfig& config, Observer* observer,
                                           std::vector<Fallback>& fallbacks) {
  const std::vector<LayerSpec> specs = DescribeModel(config);
  std::string failed_layer;
  std::string reason;
  const char* fault = std::getenv("DLCHECK_WORKER_FAULT");
  if (!__builtin_cpu_supports("sse4.1")) {
    reason = "the CPU lacks SSE4.1, the minimum for oneDNN's CPU kernels";
  } else if (fault != nullptr && std::string_view(fault) == "no-onednn") {
    // A test condition, as DLCHECK_WORKER_FAULT=<phase> is for crashes: a whole-model fallback
    // on any machine, through the same path as a real one.
    reason = "oneDNN is treated as unable to create any primitive (DLCHECK_WORKER_FAULT=no-onednn)";
  } else {
    std::unique_ptr<OneDnnTrainer> trainer;
    try {
      trainer = std::make_unique<OneDnnTrainer>(config, observer);
      trainer->Build();
      return trainer;
    } catch (const dnnl::error& e) {
      if (e.status == dnnl_out_of_memory) throw std::bad_alloc();
      // Without a trainer, the CPU engine itself could not be created: every layer failed.
      failed_layer = trainer ? trainer->current_layer() : "";
      const std::string what = trainer ? trainer->current_primitive() : "a CPU engine";
      reason = "oneDNN cannot create " + what + " (" + std::string(Name(config.dtype)) +
               "): " + StatusName(e.status) + " (" + e.what() + ")";
    }
  }
  for (const LayerSpec& spec : specs) {
    if (failed_layer.empty() || spec.name == failed_layer) {
      fallbacks.push_back({spec.name, reason});
    } else {
      fallbacks.push_back({spec.name, "the whole model runs on scalar kernels: layer " +
                                          failed_layer + " has no oneDNN primitive"});
    }
  }
  return nullptr;
}

}  // namespace dlcheck::mlp::internal
