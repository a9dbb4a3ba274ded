// SPDX-License-Identifier: Apache-2.0
#include "whatif/rebuild.h"

#include <dnnl_debug.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <functional>
#include <map>
#include <memory>
#include <string_view>

#include "common/primitive_kinds.h"
#include "verbose/line_parser.h"
#include "verbose/problem_keys.h"
#include "verbose/shape_math.h"
#include "whatif/layout.h"

namespace dlcheck::whatif {
namespace {

using dnnl::memory;
using verbose::MemoryDesc;
using Dims = memory::dims;

Status Cannot(std::string reason) {
  return InputError(std::move(reason));
}

// The problem's numbers, read by the one reader of problems (verbose/problem_keys.h).
using verbose::ProblemKeys;

// `4x8x16` -> {4, 8, 16}; false for `*` and other text.
bool ReadShape(std::string_view text, Dims& dims) {
  std::optional<Dims> shape = verbose::ReadProblemShape(text);
  if (shape) dims = std::move(*shape);
  return shape.has_value();
}

// The shapes of a problem with several tensors: `2x16x7x7:1x16x1x1`.
bool ReadShapes(std::string_view text, std::vector<Dims>& shapes) {
  std::optional<std::vector<Dims>> read = verbose::ReadProblemShapes(text);
  if (read) shapes = std::move(*read);
  return read.has_value();
}

// `alg:eltwise_relu alpha:0 beta:0` -> the value of `key`, or "" (problem_keys.h).
using verbose::AuxiliaryValue;

float ToFloat(std::string_view text, float fallback) {
  if (text.empty()) return fallback;
  float v = fallback;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

int IntOf(std::string_view text, int fallback) {
  int v = fallback;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

std::optional<dnnl::prop_kind> PropKindNamed(std::string_view name) {
  static const std::map<std::string_view, dnnl::prop_kind, std::less<>> kKinds = {
      {"forward_training", dnnl::prop_kind::forward_training},
      {"forward_inference", dnnl::prop_kind::forward_inference},
      {"forward_scoring", dnnl::prop_kind::forward_inference},
      {"forward", dnnl::prop_kind::forward_training},
      {"backward", dnnl::prop_kind::backward},
      {"backward_data", dnnl::prop_kind::backward_data},
      {"backward_weights", dnnl::prop_kind::backward_weights},
      {"backward_bias", dnnl::prop_kind::backward_bias},
      {"undef", dnnl::prop_kind::undef},
      {"", dnnl::prop_kind::undef}};
  const auto it = kKinds.find(name);
  if (it == kKinds.end()) return std::nullopt;
  return it->second;
}

bool Present(const MemoryDesc& md) {
  return md.format_kind != "undef" && !md.format_kind.empty() && md.data_type != "undef";
}

// The tensors of a row, found by the names every era gives them.
class Tensors {
 public:
  explicit Tensors(std::vector<MemoryDesc> mds) : mds_(std::move(mds)) {}
  // The `n`-th present tensor called one of `names` (n counts from 0), or nullptr.
  const MemoryDesc* Find(std::initializer_list<std::string_view> names, int n = 0) const {
    for (const MemoryDesc& md : mds_) {
      if (!Present(md)) continue;
      if (std::find(names.begin(), names.end(), md.name) != names.end() && n-- == 0) return &md;
    }
    return nullptr;
  }
  const std::vector<MemoryDesc>& all() const { return mds_; }

 private:
  std::vector<MemoryDesc> mds_;
};

int TagDims(const MemoryDesc& md) {
  int n = 0;
  for (char c : md.tag) {
    if (!std::isalpha(static_cast<unsigned char>(c))) break;
    ++n;
  }
  return n;
}

// What the builders share: the row's fields and the settings, and the descriptors they make.
struct Context {
  const verbose::PrimitiveStats& row;
  const RebuildSettings& settings;
  const dnnl::engine& engine;
  Tensors tensors;
  dnnl::primitive_attr attr;
  Rebuilt out;
  dnnl::memory::dims dst_dims;  // for output scales and binary post-ops
  // A kind that takes the layout of its data (eltwise, pooling, normalizations, ...): oneDNN
  // 2.6.3 takes no `any` for its tensors, so under layouts_any they stay as logged.
  bool follows_data = false;
};

// The data type a tensor of `role` takes under the settings' data type ("" for the log's).
std::string TypeFor(const Context& c, std::string_view role) {
  const std::string& type = c.settings.data_type;
  if (type.empty()) return {};
  if (type == "int8") {
    if (role == "src") return "u8";
    if (role == "wei") return "s8";
    return "f32";
  }
  if (role == "bia") return "f32";
  return type;
}

// The descriptor of `md` with `dims` (format any under layouts_any), remembered as logged under
// `arg`.
StatusOr<memory::desc> Desc(Context& c, const MemoryDesc* md, const Dims& dims, int arg,
                            std::string_view role) {
  if (md == nullptr) return memory::desc();
  StatusOr<memory::desc> logged = MakeMemoryDesc(dims, *md, TypeFor(c, role));
  if (!logged.ok()) return logged;
  c.out.logged[arg] = *logged;
  // A data type of its own takes the layouts oneDNN prefers for it, as an application would.
  if (c.settings.data_type.empty() && (!c.settings.layouts_any || c.follows_data)) return logged;
  return memory::desc(dims, logged->data_type(), memory::format_tag::any);
}

// A post-op list `eltwise_relu+sum:0.5+binary_mul:f32:2`, appended to `ops`.
Status ReadPostOps(Context& c, std::string_view list, dnnl::post_ops& ops) {
  int index = 0;
  while (!list.empty()) {
    const std::size_t plus = list.find('+');
    const std::string_view op = list.substr(0, plus);
    list = plus == std::string_view::npos ? std::string_view() : list.substr(plus + 1);
    std::vector<std::string_view> parts;
    for (std::size_t pos = 0;;) {
      const std::size_t colon = op.find(':', pos);
      parts.push_back(op.substr(pos, colon == std::string_view::npos ? op.npos : colon - pos));
      if (colon == std::string_view::npos) break;
      pos = colon + 1;
    }
    const std::string_view name = parts[0];
    auto part = [&](std::size_t i) { return i < parts.size() ? parts[i] : std::string_view(); };
    if (name == "sum") {
      if (!part(3).empty()) return Cannot("post-op '" + std::string(op) + "' sets a data type");
      ops.append_sum(ToFloat(part(1), 1.f));
    } else if (name.starts_with("eltwise_")) {
      const std::optional<dnnl::algorithm> alg = AlgorithmNamed(name);
      if (!alg)
        return Cannot("post-op '" + std::string(name) + "' is not a oneDNN 2.6.3 algorithm");
      ops.append_eltwise(ToFloat(part(3), 1.f), *alg, ToFloat(part(1), 0.f), ToFloat(part(2), 0.f));
    } else if (name.starts_with("binary_")) {
      const std::optional<dnnl::algorithm> alg = AlgorithmNamed(name);
      const std::optional<memory::data_type> type = DataTypeNamed(part(1));
      if (!alg || !type || c.dst_dims.empty()) {
        return Cannot("post-op '" + std::string(op) + "' cannot be rebuilt");
      }
      int mask = 0;
      std::from_chars(part(2).data(), part(2).data() + part(2).size(), mask);
      Dims dims = c.dst_dims;
      for (std::size_t d = 0; d < dims.size(); ++d) {
        if (!(mask & (1 << d))) dims[d] = 1;
      }
      const memory::desc src1 = PlainDesc(dims, *type);
      ops.append_binary(*alg, src1);
      c.out.extra_args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(index) | DNNL_ARG_SRC_1] = src1;
    } else {
      return Cannot("post-op '" + std::string(op) + "' has no oneDNN 2.6.3 equivalent here");
    }
    ++index;
  }
  return {};
}

int ArgOfName(std::string_view name) {
  if (name == "src" || name == "src0") return DNNL_ARG_SRC;
  if (name == "wei") return DNNL_ARG_WEIGHTS;
  if (name == "dst") return DNNL_ARG_DST;
  return -1;
}

// The parts of one entry of a per-argument attribute: `src0:0:s32` -> {src0, 0, s32}.
std::vector<std::string_view> EntryParts(std::string_view entry) {
  std::vector<std::string_view> parts;
  for (std::size_t pos = 0;;) {
    const std::size_t colon = entry.find(':', pos);
    parts.push_back(entry.substr(pos, colon == std::string_view::npos ? entry.npos : colon - pos));
    if (colon == std::string_view::npos) return parts;
    pos = colon + 1;
  }
}

// Calls `read` with each `+`-separated entry of `list`; the first error ends it.
Status ForEachEntry(std::string_view list, const std::function<Status(std::string_view)>& read) {
  while (!list.empty()) {
    const std::size_t plus = list.find('+');
    if (Status s = read(list.substr(0, plus)); !s.ok()) return s;
    list = plus == std::string_view::npos ? std::string_view() : list.substr(plus + 1);
  }
  return {};
}

// Zero points: `src:0:*+dst:0:119` (2.x: a value, or `*` at run time) and `src0:0:s32` (3.x:
// a data type, the value always given at run time). Common zero points only.
Status ReadZeroPoints(Context& c, std::string_view list) {
  return ForEachEntry(list, [&c](std::string_view entry) -> Status {
    const std::vector<std::string_view> parts = EntryParts(entry);
    if (parts.size() < 3) return Cannot("zero points '" + std::string(entry) + "' cannot be read");
    const int arg = ArgOfName(parts[0]);
    if (arg < 0) {
      return Cannot("zero points of '" + std::string(parts[0]) +
                    "' have no oneDNN 2.6.3 equivalent");
    }
    if (IntOf(parts[1], -1) != 0) {
      return Cannot("zero points '" + std::string(entry) +
                    "' vary along a dimension: dlcheck rebuilds common zero points only");
    }
    if (parts.size() > 3) {
      return Cannot("zero points '" + std::string(entry) +
                    "' (groups) cannot be set in oneDNN 2.6.3");
    }
    if (parts[2] == "*" || DataTypeNamed(parts[2])) {
      c.attr.set_zero_points(arg, 0, {DNNL_RUNTIME_S32_VAL});
      c.out.extra_args[DNNL_ARG_ATTR_ZERO_POINTS | arg] =
          memory::desc({1}, memory::data_type::s32, memory::format_tag::a);
    } else {
      c.attr.set_zero_points(arg, 0, {IntOf(parts[2], 0)});
    }
    return {};
  });
}

// The most output scales a rebuild sets (2^24 floats, 64 MiB): a mask over a log's dimensions
// could ask for 2^48.
constexpr dnnl_dim_t kMaxScales = dnnl_dim_t{1} << 24;

// `0:0.500000` (a common scale), `2` (per-channel scales fixed at creation, their values not
// printed: 1 here) or `0:*` (a run-time scale, 1 at execution).
Status ReadOutputScales(Context& c, std::string_view value) {
  const std::size_t colon = value.find(':');
  int mask = 0;
  std::from_chars(value.data(), value.data() + std::min(colon, value.size()), mask);
  dnnl_dim_t count = 1;
  for (std::size_t d = 0; d < c.dst_dims.size() && d < 31; ++d) {
    if (mask & (1 << d)) count = verbose::CheckedMultiply(count, c.dst_dims[d]).value_or(-1);
    if (count < 0 || count > kMaxScales) {
      return Cannot("output scales '" + std::string(value) + "' need more than 2^24 values");
    }
  }
  const std::string_view scale =
      colon == std::string_view::npos ? std::string_view() : value.substr(colon + 1);
  if (scale.starts_with("*")) {
    c.attr.set_output_scales(mask, {DNNL_RUNTIME_F32_VAL});
    c.out.extra_args[DNNL_ARG_ATTR_OUTPUT_SCALES] =
        memory::desc({count}, memory::data_type::f32, memory::format_tag::a);
    return {};
  }
  if (mask != 0 && !scale.empty())
    return Cannot("output scales '" + std::string(value) + "' cannot be read");
  c.attr.set_output_scales(
      mask, std::vector<float>(static_cast<std::size_t>(count), ToFloat(scale, 1.f)));
  return {};
}

// Scales per argument (3.x): `src0:0:f32+wei:1:f32+dst:0:f32`, their values given at run time.
// A convolution's, deconvolution's, inner product's or matmul's multiply into one 2.6.3 output
// scale, at run time too (1 at execution): common, or per output channel where the weights'
// scales are per output channel. A binary's common source scales are 2.6.3 argument scales.
Status ReadArgumentScales(Context& c, std::string_view list) {
  const std::string_view kind = c.row.primitive.view();
  const bool compute = onednn::IsComputeKind(kind);
  const bool matmul = onednn::IsKind(kind, onednn::Kind::kMatmul);
  int output_mask = 0;
  Status read = ForEachEntry(list, [&](std::string_view entry) -> Status {
    const std::vector<std::string_view> parts = EntryParts(entry);
    const std::string_view name = parts[0];
    const int mask = parts.size() > 1 ? IntOf(parts[1], -1) : 0;
    const auto refuse = [&](std::string_view why) {
      return Cannot("scales '" + std::string(entry) + "' " + std::string(why));
    };
    if (parts.size() > 3) return refuse("(groups) cannot be set in oneDNN 2.6.3");
    if (!compute) {
      const int arg = name == "src" || name == "src0" ? DNNL_ARG_SRC_0
                      : name == "src1"                ? DNNL_ARG_SRC_1
                                                      : -1;
      if (!onednn::IsKind(kind, onednn::Kind::kBinary) || arg < 0 || mask != 0)
        return refuse("have no oneDNN 2.6.3 equivalent for a " + std::string(kind));
      c.attr.set_scales(arg, 0, {1.f});
      return {};
    }
    if (name == "wei") {
      const int channel_bit = matmul && !c.dst_dims.empty() ? 1 << (c.dst_dims.size() - 1) : 1;
      if (mask != 0 && (mask & ~(channel_bit | (matmul ? 0 : 2))) != 0)
        return refuse("vary along a dimension other than the output channels");
      if (mask != 0) output_mask = matmul ? channel_bit : 2;
      return {};
    }
    if ((name == "src" || name == "src0" || name == "dst") && mask == 0) return {};
    return refuse("cannot be folded into oneDNN 2.6.3 output scales");
  });
  if (!read.ok() || !compute) return read;
  return ReadOutputScales(c, std::to_string(output_mask) + ":*");
}

// The attributes of 1.x to 2.2, each ended by `;`: `scratchpad_mode:user;`, `oscale:2;`,
// `post_ops:'sum:1;eltwise_relu;';` (the post-ops `;`-separated inside the quotes).
Status ReadLegacyAttributes(Context& c, std::string_view text, dnnl::post_ops& ops) {
  while (!text.empty()) {
    if (text.starts_with("post_ops:'")) {
      const std::size_t end = text.find("';", 10);
      if (end == std::string_view::npos) break;
      std::string list(text.substr(10, end - 10));
      while (list.ends_with(";")) list.pop_back();
      std::replace(list.begin(), list.end(), ';', '+');
      if (Status s = ReadPostOps(c, list, ops); !s.ok()) return s;
      text.remove_prefix(end + 2);
      continue;
    }
    const std::size_t end = text.find(';');
    const std::string_view item = text.substr(0, end);
    if (item.starts_with("oscale:")) {
      if (Status s = ReadOutputScales(c, item.substr(7)); !s.ok()) return s;
    } else if (!item.starts_with("scratchpad_mode:")) {
      return Cannot("attribute '" + std::string(item) + "' has no oneDNN 2.6.3 equivalent here");
    }
    if (end == std::string_view::npos) return {};
    text.remove_prefix(end + 1);
  }
  if (!text.empty())
    return Cannot("attribute '" + std::string(text) + "' has no oneDNN 2.6.3 equivalent here");
  return {};
}

// The attributes field: `attr-scratchpad:user attr-post-ops:eltwise_relu attr-oscale:2 ...`.
Status ReadAttributes(Context& c) {
  std::string_view text = c.row.attributes.view();
  c.attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  dnnl::post_ops ops;
  while (!text.empty()) {
    const std::size_t space = text.find(' ');
    const std::string_view token = text.substr(0, space);
    text = space == std::string_view::npos ? std::string_view() : text.substr(space + 1);
    if (token.empty() || token.starts_with("attr-scratchpad")) continue;
    const std::size_t colon = token.find(':');
    const std::string_view key = token.substr(0, colon);
    const std::string_view value =
        colon == std::string_view::npos ? std::string_view() : token.substr(colon + 1);
    Status s;
    if (key == "attr-post-ops") {
      s = ReadPostOps(c, value, ops);
    } else if (key == "attr-oscale") {
      s = ReadOutputScales(c, value);
    } else if (key == "attr-zero-points") {
      s = ReadZeroPoints(c, value);
    } else if (key == "attr-scales") {
      s = ReadArgumentScales(c, value);
    } else if (!key.starts_with("attr-")) {
      s = ReadLegacyAttributes(c, token, ops);
    } else {
      s = Cannot("attribute '" + std::string(token) + "' has no oneDNN 2.6.3 equivalent here");
    }
    if (!s.ok()) return s;
  }
  if (ops.len() > 0) c.attr.set_post_ops(ops);
  return {};
}

// Creates the descriptor of `op` (an operation descriptor of the C API), positioned on the first
// implementation; an error when oneDNN has none for it. The iterator keeps pointers to the
// operation descriptor and to the hint, so the Rebuilt holds both.
template <typename Op>
Status Create(Context& c, const Op& op, const dnnl::primitive_desc* hint = nullptr) {
  auto stored = std::make_shared<Op>(op);
  c.out.op_storage = stored;
  if (hint != nullptr) c.out.hint = *hint;
  c.out.pd =
      dnnl::primitive_desc(reinterpret_cast<const_dnnl_op_desc_t>(stored.get()), &c.attr, c.engine,
                           hint ? c.out.hint.get() : nullptr, /*allow_empty=*/true);
  if (c.out.pd.get(true) == nullptr) {
    return Cannot("oneDNN 2.6.3 has no implementation for this " + c.out.kind +
                  (c.settings.data_type.empty() ? "" : " in " + c.settings.data_type) +
                  " on this CPU");
  }
  return {};
}

Status Check(dnnl_status_t status, std::string_view what) {
  if (status == dnnl_success) return {};
  return Cannot(std::string(what) + " cannot be described in oneDNN 2.6.3 (" +
                dnnl_status2str(status) + ")");
}

// The geometry of a convolution or pooling problem, per spatial dimension.
struct Window {
  Dims in, out, kernel, strides, dilates, pad_l, pad_r;
};

// The right padding of a window of `kernel` taps `dilation` apart that moves `stride` between
// `positions` and reads `extent` elements padded by `pad` on the left: (positions - 1) * stride
// - extent + (kernel - 1) * (dilation + 1) + 1 - pad; nullopt when it leaves 64 bits.
std::optional<dnnl_dim_t> RightPad(dnnl_dim_t positions, dnnl_dim_t extent, dnnl_dim_t kernel,
                                   dnnl_dim_t stride, dnnl_dim_t dilation, dnnl_dim_t pad) {
  using verbose::CheckedAdd;
  using verbose::CheckedMultiply;
  using verbose::CheckedSubtract;
  const std::optional<dnnl_dim_t> span = CheckedMultiply(kernel - 1, dilation + 1);
  const std::optional<dnnl_dim_t> travel = CheckedMultiply(positions - 1, stride);
  if (!span || !travel) return std::nullopt;
  const std::optional<dnnl_dim_t> reach = CheckedAdd(*travel, *span + 1);
  if (!reach) return std::nullopt;
  const std::optional<dnnl_dim_t> beyond = CheckedSubtract(*reach, extent);
  if (!beyond) return std::nullopt;
  return CheckedSubtract(*beyond, pad);
}

StatusOr<Window> ReadWindow(const ProblemKeys& k, bool deconv) {
  Window w;
  for (char s : std::string_view("dhw")) {
    if (!k.Has(std::string("i") + s)) continue;
    const auto get = [&](std::string key, dnnl_dim_t fallback) { return k.Dim(key + s, fallback); };
    const dnnl_dim_t i = get("i", 1), o = get("o", 1), kk = get("k", 1), st = get("s", 1),
                     d = get("d", 0), p = get("p", 0);
    w.in.push_back(i);
    w.out.push_back(o);
    w.kernel.push_back(kk);
    w.strides.push_back(st);
    w.dilates.push_back(d);
    w.pad_l.push_back(p);
    // Every value is at most 2^31 - 1 (Rebuild checked the problem), the sums of products
    // still checked: (i - 1) * st + extent reaches 2^63.
    const std::optional<dnnl_dim_t> pad_r = RightPad(deconv ? i : o, deconv ? o : i, kk, st, d, p);
    if (!pad_r) return Cannot(std::string("the window along ") + s + " overflows 64 bits");
    w.pad_r.push_back(*pad_r);
  }
  if (w.in.empty()) return Cannot("the problem names no spatial size");
  return w;
}

Dims Concat(Dims head, const Dims& tail) {
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

// A backward pass needs the forward descriptor `fwd` as its hint, as every framework gives it;
// an error when oneDNN has no forward `kind` on this CPU.
StatusOr<dnnl::primitive_desc> ForwardHint(const Context& c, const void* fwd,
                                           std::string_view kind) {
  dnnl::primitive_attr plain;
  dnnl::primitive_desc hint(fwd, &plain, c.engine, nullptr, true);
  if (hint.get(true) == nullptr) {
    return Cannot("oneDNN 2.6.3 has no forward " + std::string(kind) +
                  (c.settings.data_type.empty() ? std::string() : " in " + c.settings.data_type) +
                  " on this CPU to hint the backward one");
  }
  return hint;
}

Status RebuildConvolution(Context& c, bool deconv) {
  const std::optional<ProblemKeys> k = ProblemKeys::Read(c.row.problem.view());
  if (!k) return Cannot("the problem has a run-time dimension");
  if (!k->Has("mb") || !k->Has("ic") || !k->Has("oc"))
    return Cannot("the problem names no mb, ic or oc");
  StatusOr<Window> w = ReadWindow(*k, deconv);
  if (!w.ok()) return w.status();
  const dnnl_dim_t g = k->Dim("g", 1);
  if (g < 1) {
    return Cannot("groups g" + std::to_string(g) + ": a " + std::string(c.row.primitive.view()) +
                  " has at least one group");
  }
  const MemoryDesc* src = c.tensors.Find({"src"});
  const MemoryDesc* wei = c.tensors.Find({"wei"});
  const MemoryDesc* bia = c.tensors.Find({"bia", "bias"});
  const MemoryDesc* dst = c.tensors.Find({"dst"});
  if (!src || !wei || !dst) return Cannot("the line names no src, wei or dst tensor");
  const Dims src_dims = Concat({k->Dim("mb"), k->Dim("ic")}, w->in);
  c.dst_dims = Concat({k->Dim("mb"), k->Dim("oc")}, w->out);
  const bool grouped = TagDims(*wei) == static_cast<int>(src_dims.size()) + 1;
  const Dims wei_dims = grouped ? Concat({g, k->Dim("oc") / g, k->Dim("ic") / g}, w->kernel)
                                : Concat({k->Dim("oc"), k->Dim("ic")}, w->kernel);
  const std::string_view prop_text = c.row.prop_kind.view();
  const std::optional<dnnl::prop_kind> prop = PropKindNamed(prop_text);
  const bool bwd_d = prop_text == "backward_data", bwd_w = prop_text == "backward_weights";
  c.out.kind = onednn::NameOf(deconv ? onednn::Kind::kDeconvolution : onednn::Kind::kConvolution);
  const int src_arg = bwd_d ? DNNL_ARG_DIFF_SRC : DNNL_ARG_SRC;
  const int wei_arg = bwd_w ? DNNL_ARG_DIFF_WEIGHTS : DNNL_ARG_WEIGHTS;
  const int bia_arg = bwd_w ? DNNL_ARG_DIFF_BIAS : DNNL_ARG_BIAS;
  const int dst_arg = bwd_d || bwd_w ? DNNL_ARG_DIFF_DST : DNNL_ARG_DST;
  c.out.output_arg = bwd_d ? DNNL_ARG_DIFF_SRC : bwd_w ? DNNL_ARG_DIFF_WEIGHTS : DNNL_ARG_DST;
  StatusOr<memory::desc> s = Desc(c, src, src_dims, src_arg, "src");
  StatusOr<memory::desc> wd = Desc(c, wei, wei_dims, wei_arg, "wei");
  StatusOr<memory::desc> b = Desc(c, bia, {k->Dim("oc")}, bia_arg, "bia");
  StatusOr<memory::desc> d = Desc(c, dst, c.dst_dims, dst_arg, "dst");
  for (const auto* r : {&s, &wd, &b, &d}) {
    if (!r->ok()) return r->status();
  }
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  const std::optional<dnnl::algorithm> alg =
      AlgorithmNamed(AuxiliaryValue(c.row.auxiliary.view(), "alg").empty()
                         ? (deconv ? "deconvolution_direct" : "convolution_direct")
                         : AuxiliaryValue(c.row.auxiliary.view(), "alg"));
  if (!alg)
    return Cannot("algorithm '" + std::string(AuxiliaryValue(c.row.auxiliary.view(), "alg")) +
                  "' is unknown to oneDNN 2.6.3");
  const dnnl_memory_desc_t* bias = bia ? &b->data : nullptr;
  const auto alg_c = static_cast<dnnl_alg_kind_t>(*alg);
  const dnnl_prop_kind_t fwd_prop =
      bwd_d || bwd_w ? dnnl_forward_training : static_cast<dnnl_prop_kind_t>(*prop);
  // A deconvolution's descriptor is a convolution's (dnnl_deconvolution_desc_t is the same
  // struct), initialized by its own functions.
  dnnl_convolution_desc_t fwd{};
  const dnnl_status_t fwd_status =
      deconv ? dnnl_dilated_deconvolution_forward_desc_init(
                   &fwd, fwd_prop, alg_c, &s->data, &wd->data, bias, &d->data, w->strides.data(),
                   w->dilates.data(), w->pad_l.data(), w->pad_r.data())
             : dnnl_dilated_convolution_forward_desc_init(
                   &fwd, fwd_prop, alg_c, &s->data, &wd->data, bias, &d->data, w->strides.data(),
                   w->dilates.data(), w->pad_l.data(), w->pad_r.data());
  if (Status st = Check(fwd_status, "this " + c.out.kind); !st.ok()) return st;
  if (!bwd_d && !bwd_w) return Create(c, fwd);
  StatusOr<dnnl::primitive_desc> hint = ForwardHint(c, &fwd, c.out.kind);
  if (!hint.ok()) return hint.status();
  dnnl_convolution_desc_t op{};
  const auto* st = w->strides.data();
  const auto* dl = w->dilates.data();
  const auto* pl = w->pad_l.data();
  const auto* pr = w->pad_r.data();
  dnnl_status_t status = dnnl_success;
  if (deconv) {
    status = bwd_d ? dnnl_dilated_deconvolution_backward_data_desc_init(
                         &op, alg_c, &s->data, &wd->data, &d->data, st, dl, pl, pr)
                   : dnnl_dilated_deconvolution_backward_weights_desc_init(
                         &op, alg_c, &s->data, &wd->data, bias, &d->data, st, dl, pl, pr);
  } else {
    status = bwd_d ? dnnl_dilated_convolution_backward_data_desc_init(
                         &op, alg_c, &s->data, &wd->data, &d->data, st, dl, pl, pr)
                   : dnnl_dilated_convolution_backward_weights_desc_init(
                         &op, alg_c, &s->data, &wd->data, bias, &d->data, st, dl, pl, pr);
  }
  if (Status checked = Check(status, "this backward " + c.out.kind); !checked.ok()) return checked;
  return Create(c, op, &*hint);
}

Status RebuildInnerProduct(Context& c) {
  const std::optional<ProblemKeys> k = ProblemKeys::Read(c.row.problem.view());
  if (!k) return Cannot("the problem has a run-time dimension");
  if (!k->Has("mb") || !k->Has("ic") || !k->Has("oc"))
    return Cannot("the problem names no mb, ic or oc");
  const MemoryDesc* src = c.tensors.Find({"src"});
  const MemoryDesc* wei = c.tensors.Find({"wei"});
  const MemoryDesc* bia = c.tensors.Find({"bia", "bias"});
  const MemoryDesc* dst = c.tensors.Find({"dst"});
  if (!src || !wei || !dst) return Cannot("the line names no src, wei or dst tensor");
  Dims spatial;
  for (const char* key : {"id", "ih", "iw"}) {
    if (k->Has(key)) spatial.push_back(k->Dim(key));
  }
  // A 2D source with a 4D tag (`abcd` for mb2ic16ih7iw7): the spatial sizes the tag needs.
  while (static_cast<int>(spatial.size()) + 2 > TagDims(*src) && !spatial.empty())
    spatial.erase(spatial.begin());
  while (static_cast<int>(spatial.size()) + 2 < TagDims(*src)) spatial.insert(spatial.begin(), 1);
  c.dst_dims = {k->Dim("mb"), k->Dim("oc")};
  const std::string_view prop_text = c.row.prop_kind.view();
  const bool bwd_d = prop_text == "backward_data", bwd_w = prop_text == "backward_weights";
  c.out.kind = "inner product";
  const int src_arg = bwd_d ? DNNL_ARG_DIFF_SRC : DNNL_ARG_SRC;
  const int wei_arg = bwd_w ? DNNL_ARG_DIFF_WEIGHTS : DNNL_ARG_WEIGHTS;
  const int bia_arg = bwd_w ? DNNL_ARG_DIFF_BIAS : DNNL_ARG_BIAS;
  const int dst_arg = bwd_d || bwd_w ? DNNL_ARG_DIFF_DST : DNNL_ARG_DST;
  c.out.output_arg = bwd_d ? DNNL_ARG_DIFF_SRC : bwd_w ? DNNL_ARG_DIFF_WEIGHTS : DNNL_ARG_DST;
  StatusOr<memory::desc> s =
      Desc(c, src, Concat({k->Dim("mb"), k->Dim("ic")}, spatial), src_arg, "src");
  StatusOr<memory::desc> wd =
      Desc(c, wei, Concat({k->Dim("oc"), k->Dim("ic")}, spatial), wei_arg, "wei");
  StatusOr<memory::desc> b = Desc(c, bia, {k->Dim("oc")}, bia_arg, "bia");
  StatusOr<memory::desc> d = Desc(c, dst, c.dst_dims, dst_arg, "dst");
  for (const auto* r : {&s, &wd, &b, &d}) {
    if (!r->ok()) return r->status();
  }
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  const dnnl_memory_desc_t* bias = bia ? &b->data : nullptr;
  dnnl_inner_product_desc_t fwd{};
  const std::optional<dnnl::prop_kind> prop = PropKindNamed(prop_text);
  if (Status st = Check(
          dnnl_inner_product_forward_desc_init(
              &fwd, bwd_d || bwd_w ? dnnl_forward_training : static_cast<dnnl_prop_kind_t>(*prop),
              &s->data, &wd->data, bias, &d->data),
          "this inner product");
      !st.ok()) {
    return st;
  }
  if (!bwd_d && !bwd_w) return Create(c, fwd);
  StatusOr<dnnl::primitive_desc> hint = ForwardHint(c, &fwd, "inner product");
  if (!hint.ok()) return hint.status();
  dnnl_inner_product_desc_t op{};
  const dnnl_status_t status =
      bwd_d
          ? dnnl_inner_product_backward_data_desc_init(&op, &s->data, &wd->data, &d->data)
          : dnnl_inner_product_backward_weights_desc_init(&op, &s->data, &wd->data, bias, &d->data);
  if (Status st = Check(status, "this backward inner product"); !st.ok()) return st;
  return Create(c, op, &*hint);
}

Status RebuildMatmul(Context& c) {
  const std::string_view problem = c.row.problem.view();
  const MemoryDesc* src = c.tensors.Find({"src"});
  const MemoryDesc* wei = c.tensors.Find({"wei"});
  const MemoryDesc* bia = c.tensors.Find({"bia", "bias"});
  const MemoryDesc* dst = c.tensors.Find({"dst"});
  if (!src || !wei || !dst) return Cannot("the line names no src, wei or dst tensor");
  std::vector<Dims> shapes;
  if (problem.find('*') != std::string_view::npos || problem.find('-') != std::string_view::npos) {
    return Cannot("the problem has a run-time dimension");
  }
  if (!ReadShapes(problem, shapes) || shapes.size() < 2) {
    const std::optional<ProblemKeys> k = ProblemKeys::Read(problem);  // 1.x `b2m4n8k16`
    if (!k || !k->Has("m") || !k->Has("n") || !k->Has("k")) {
      return Cannot("the matmul problem '" + std::string(problem) + "' cannot be read");
    }
    const bool batched = TagDims(*src) == 3;
    const Dims b = batched ? Dims{k->Dim("b", 1)} : Dims{};
    shapes = {Concat(b, {k->Dim("m"), k->Dim("k")}), Concat(b, {k->Dim("k"), k->Dim("n")})};
  }
  Dims dst_dims;
  if (shapes.size() > 2) {
    dst_dims = shapes[2];
  } else {
    const Dims& a = shapes[0];
    const Dims& w = shapes[1];
    if (a.size() != w.size() || a.size() < 2) return Cannot("the matmul shapes do not agree");
    for (std::size_t i = 0; i + 2 < a.size(); ++i) dst_dims.push_back(std::max(a[i], w[i]));
    dst_dims.push_back(a[a.size() - 2]);
    dst_dims.push_back(w.back());
  }
  c.dst_dims = dst_dims;
  c.out.kind = onednn::NameOf(onednn::Kind::kMatmul);
  Dims bias_dims(dst_dims.size(), 1);
  if (bia) {
    int mask = 1 << (dst_dims.size() - 1);
    if (const std::size_t at = bia->flags.find("_mask"); at != std::string::npos) {
      std::from_chars(bia->flags.data() + at + 5, bia->flags.data() + bia->flags.size(), mask);
    }
    for (std::size_t d = 0; d < dst_dims.size(); ++d) {
      if (mask & (1 << d)) bias_dims[d] = dst_dims[d];
    }
  }
  StatusOr<memory::desc> s = Desc(c, src, shapes[0], DNNL_ARG_SRC, "src");
  StatusOr<memory::desc> wd = Desc(c, wei, shapes[1], DNNL_ARG_WEIGHTS, "wei");
  StatusOr<memory::desc> b = Desc(c, bia, bias_dims, DNNL_ARG_BIAS, "bia");
  StatusOr<memory::desc> d = Desc(c, dst, dst_dims, DNNL_ARG_DST, "dst");
  for (const auto* r : {&s, &wd, &b, &d}) {
    if (!r->ok()) return r->status();
  }
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  dnnl_matmul_desc_t op{};
  if (Status st =
          Check(dnnl_matmul_desc_init(&op, &s->data, &wd->data, bia ? &b->data : nullptr, &d->data),
                "this matmul");
      !st.ok()) {
    return st;
  }
  return Create(c, op);
}

Status RebuildReorder(Context& c) {
  const MemoryDesc* src = c.tensors.Find({"src"});
  const MemoryDesc* dst = c.tensors.Find({"dst"});
  if (!src || !dst) return Cannot("the line names no src or dst tensor");
  Dims dims;
  if (!ReadShape(c.row.problem.view(), dims))
    return Cannot("the reorder problem '" + std::string(c.row.problem.view()) + "' cannot be read");
  c.out.kind = onednn::NameOf(onednn::Kind::kReorder);
  c.out.is_reorder = true;
  c.dst_dims = dims;
  if (c.settings.layouts_any || !c.settings.data_type.empty()) {
    return Cannot("a reorder is a change of layout: it has no layout or data type to choose");
  }
  StatusOr<memory::desc> s = Desc(c, src, dims, DNNL_ARG_FROM, "src");
  StatusOr<memory::desc> d = Desc(c, dst, dims, DNNL_ARG_TO, "dst");
  if (!s.ok()) return s.status();
  if (!d.ok()) return d.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  c.out.output_arg = DNNL_ARG_TO;
  try {
    c.out.reorder_pd = dnnl::reorder::primitive_desc(c.engine, *s, c.engine, *d, c.attr);
  } catch (const dnnl::error& e) {
    return Cannot(std::string("oneDNN 2.6.3 cannot reorder these layouts: ") + e.what());
  }
  return {};
}

// The data tensor of eltwise, normalizations and softmax: `data` (2.x), `src` (3.x).
const MemoryDesc* DataTensor(const Context& c) {
  return c.tensors.Find({"data", "src"});
}

// The gradient of a data kind's backward pass: `diff` (2.x), `diff_src` or `diff_dst` (3.x).
const MemoryDesc* DiffTensor(const Context& c) {
  return c.tensors.Find({"diff", "diff_src", "diff_dst"});
}

bool IsForward(const Context& c) {
  const std::string_view prop = c.row.prop_kind.view();
  return prop.starts_with("forward");
}

dnnl_prop_kind_t PropOf(const Context& c) {
  return static_cast<dnnl_prop_kind_t>(*PropKindNamed(c.row.prop_kind.view()));
}

// A backward pass `op` with its forward pass `fwd` (forward_training) as the hint oneDNN needs,
// as a framework gives it; the hint also writes the workspace the backward pass reads (measure.h).
template <typename Op>
Status CreateBackward(Context& c, const Op& fwd, const Op& op) {
  StatusOr<dnnl::primitive_desc> hint = ForwardHint(c, &fwd, c.out.kind);
  if (!hint.ok()) return hint.status();
  return Create(c, op, &*hint);
}

// The pass of the row: the forward pass `init_forward(prop, &desc)` describes or, for a backward
// row, the backward pass `init_backward(&desc)` describes with that forward pass (at
// forward_training) as its hint. `kind` names the descriptor in an error.
template <typename Op, typename InitForward, typename InitBackward>
Status CreatePass(Context& c, std::string_view kind, InitForward init_forward,
                  InitBackward init_backward) {
  const bool forward = IsForward(c);
  Op fwd{};
  if (Status st = Check(init_forward(forward ? PropOf(c) : dnnl_forward_training, &fwd),
                        "this " + std::string(kind));
      !st.ok()) {
    return st;
  }
  if (forward) return Create(c, fwd);
  Op op{};
  if (Status st = Check(init_backward(&op), "this backward " + std::string(kind)); !st.ok())
    return st;
  return CreateBackward(c, fwd, op);
}

// The source and destination of a kind whose backward pass reads diff_dst and writes diff_src
// (pooling, resampling), as the row's pass names them.
struct Ends {
  memory::desc src, dst;
};
StatusOr<Ends> SourceAndDestination(Context& c, const MemoryDesc* src, const MemoryDesc* dst,
                                    const Dims& in, const Dims& out) {
  const bool forward = IsForward(c);
  StatusOr<memory::desc> s = Desc(c, src, in, forward ? DNNL_ARG_SRC : DNNL_ARG_DIFF_SRC, "src");
  StatusOr<memory::desc> d = Desc(c, dst, out, forward ? DNNL_ARG_DST : DNNL_ARG_DIFF_DST, "dst");
  if (!s.ok()) return s.status();
  if (!d.ok()) return d.status();
  if (!forward) c.out.output_arg = DNNL_ARG_DIFF_SRC;
  return Ends{*s, *d};
}

// The gradient of a data kind's backward pass: its diff_src (the output), and its diff_dst,
// laid out alike (2.x prints one `diff` tensor for both).
StatusOr<memory::desc> DiffDesc(Context& c, const MemoryDesc* diff, const Dims& dims) {
  if (diff == nullptr) return Cannot("the line names no diff tensor");
  StatusOr<memory::desc> g = Desc(c, diff, dims, DNNL_ARG_DIFF_SRC, "src");
  if (g.ok()) c.out.logged[DNNL_ARG_DIFF_DST] = c.out.logged[DNNL_ARG_DIFF_SRC];
  c.out.output_arg = DNNL_ARG_DIFF_SRC;
  return g;
}

// A kind's algorithm from `alg:` of the auxiliary field.
StatusOr<dnnl_alg_kind_t> AlgorithmOf(const Context& c, std::string_view fallback = {}) {
  std::string_view name = AuxiliaryValue(c.row.auxiliary.view(), "alg");
  if (name.empty()) name = fallback;
  const std::optional<dnnl::algorithm> alg = AlgorithmNamed(name);
  if (!alg)
    return Cannot(c.out.kind + " algorithm '" + std::string(name) + "' is unknown to oneDNN 2.6.3");
  return static_cast<dnnl_alg_kind_t>(*alg);
}

Status RebuildEltwise(Context& c) {
  c.follows_data = true;
  const MemoryDesc* data = DataTensor(c);
  Dims dims;
  if (!data || !ReadShape(c.row.problem.view(), dims))
    return Cannot("the eltwise problem cannot be read");
  c.out.kind = onednn::NameOf(onednn::Kind::kEltwise);
  c.dst_dims = dims;
  const std::string_view aux = c.row.auxiliary.view();
  StatusOr<dnnl_alg_kind_t> alg = AlgorithmOf(c);
  if (!alg.ok()) return alg.status();
  const float alpha = ToFloat(AuxiliaryValue(aux, "alpha"), 0.f);
  const float beta = ToFloat(AuxiliaryValue(aux, "beta"), 0.f);
  // Backward, `data` is the source, or the destination for a `*_use_dst_for_bwd` algorithm.
  const bool use_dst = AuxiliaryValue(aux, "alg").ends_with("_use_dst_for_bwd");
  const bool forward = IsForward(c);
  StatusOr<memory::desc> d =
      Desc(c, data, dims, !forward && use_dst ? DNNL_ARG_DST : DNNL_ARG_SRC, "src");
  if (!d.ok()) return d.status();
  StatusOr<memory::desc> g = forward ? memory::desc() : DiffDesc(c, DiffTensor(c), dims);
  if (!g.ok()) return g.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  return CreatePass<dnnl_eltwise_desc_t>(
      c, "eltwise",
      [&](dnnl_prop_kind_t prop, dnnl_eltwise_desc_t* fwd) {
        return dnnl_eltwise_forward_desc_init(fwd, prop, *alg, &d->data, alpha, beta);
      },
      [&](dnnl_eltwise_desc_t* op) {
        return dnnl_eltwise_backward_desc_init(op, *alg, &g->data, &d->data, alpha, beta);
      });
}

// Pooling backward needs the workspace of its forward pass (max pooling's argmax): the hint's
// execution writes it before the backward pass is timed (measure.cpp).
Status RebuildPooling(Context& c) {
  c.follows_data = true;
  const std::optional<ProblemKeys> k = ProblemKeys::Read(c.row.problem.view());
  if (!k || !k->Has("mb") || !k->Has("ic")) {
    return Cannot("the pooling problem cannot be read");
  }
  StatusOr<Window> w = ReadWindow(*k, false);
  if (!w.ok()) return w.status();
  const MemoryDesc* src = c.tensors.Find({"src", "diff_src"});
  const MemoryDesc* dst = c.tensors.Find({"dst", "diff_dst"});
  if (!src || !dst) return Cannot("the line names no src or dst tensor");
  c.out.kind = onednn::NameOf(onednn::Kind::kPooling);
  c.dst_dims = Concat({k->Dim("mb"), k->Dim("ic")}, w->out);
  StatusOr<Ends> e =
      SourceAndDestination(c, src, dst, Concat({k->Dim("mb"), k->Dim("ic")}, w->in), c.dst_dims);
  if (!e.ok()) return e.status();
  StatusOr<dnnl_alg_kind_t> alg = AlgorithmOf(c);
  if (!alg.ok()) return alg.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  return CreatePass<dnnl_pooling_v2_desc_t>(
      c, "pooling",
      [&](dnnl_prop_kind_t prop, dnnl_pooling_v2_desc_t* fwd) {
        return dnnl_pooling_v2_forward_desc_init(
            fwd, prop, *alg, &e->src.data, &e->dst.data, w->strides.data(), w->kernel.data(),
            w->dilates.data(), w->pad_l.data(), w->pad_r.data());
      },
      [&](dnnl_pooling_v2_desc_t* op) {
        return dnnl_pooling_v2_backward_desc_init(
            op, *alg, &e->src.data, &e->dst.data, w->strides.data(), w->kernel.data(),
            w->dilates.data(), w->pad_l.data(), w->pad_r.data());
      });
}

// Backward, 2.6.3 prints the diff_src as `src`, then `dst` and `diff_dst`.
Status RebuildSoftmax(Context& c) {
  c.follows_data = true;
  const bool forward = IsForward(c);
  const MemoryDesc* src = forward ? DataTensor(c) : c.tensors.Find({"diff_src", "src"});
  const MemoryDesc* dst = c.tensors.Find({"dst"});
  Dims dims;
  if (!src || !ReadShape(c.row.problem.view(), dims))
    return Cannot("the softmax problem cannot be read");
  c.out.kind = onednn::NameOf(onednn::Kind::kSoftmax);
  c.dst_dims = dims;
  const int axis = IntOf(AuxiliaryValue(c.row.auxiliary.view(), "axis"), 1);
  const std::string_view implied = onednn::ImpliedAlgorithm(c.row.primitive.view());
  StatusOr<dnnl_alg_kind_t> alg = AlgorithmOf(c, implied.empty() ? "softmax_accurate" : implied);
  if (!alg.ok()) return alg.status();
  StatusOr<memory::desc> s = Desc(c, src, dims, forward ? DNNL_ARG_SRC : DNNL_ARG_DIFF_SRC, "src");
  StatusOr<memory::desc> d = Desc(c, dst ? dst : src, dims, DNNL_ARG_DST, "dst");
  if (!s.ok()) return s.status();
  if (!d.ok()) return d.status();
  StatusOr<memory::desc> g = memory::desc();
  if (!forward) {
    const MemoryDesc* diff_dst = c.tensors.Find({"diff_dst"});
    g = Desc(c, diff_dst ? diff_dst : dst ? dst : src, dims, DNNL_ARG_DIFF_DST, "dst");
    if (!g.ok()) return g.status();
    c.out.output_arg = DNNL_ARG_DIFF_SRC;
  }
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  return CreatePass<dnnl_softmax_v2_desc_t>(
      c, "softmax",
      [&](dnnl_prop_kind_t prop, dnnl_softmax_v2_desc_t* fwd) {
        return dnnl_softmax_v2_forward_desc_init(fwd, prop, *alg, &s->data, &d->data, axis);
      },
      [&](dnnl_softmax_v2_desc_t* op) {
        return dnnl_softmax_v2_backward_desc_init(op, *alg, &s->data, &g->data, &d->data, axis);
      });
}

// `flags:CH` -> dnnl_use_scale | dnnl_use_shift (G global stats, S scale and shift, C scale,
// H shift, R fused ReLU; 2.x also prints the number).
unsigned NormalizationFlags(std::string_view text) {
  unsigned flags = 0;
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    std::from_chars(text.data(), text.data() + text.size(), flags);
    return flags;
  }
  for (char f : text) {
    if (f == 'G') flags |= dnnl_use_global_stats;
    if (f == 'S') flags |= dnnl_use_scaleshift;
    if (f == 'C') flags |= dnnl_use_scale;
    if (f == 'H') flags |= dnnl_use_shift;
    if (f == 'R') flags |= dnnl_fuse_norm_relu;
  }
  return flags;
}

// The dimensions of a problem keyed by channel (`mb2ic16ih7iw7`, batch normalization and lrn):
// mb, ic, then the spatial sizes the tensor's tag has.
std::optional<Dims> ChannelDims(const Context& c, const MemoryDesc& data) {
  const std::optional<ProblemKeys> k = ProblemKeys::Read(c.row.problem.view());
  if (!k || !k->Has("mb") || !k->Has("ic")) return std::nullopt;
  Dims dims = {k->Dim("mb"), k->Dim("ic")};
  for (const char* key : {"id", "ih", "iw"}) {
    if (k->Has(key)) dims.push_back(k->Dim(key));
  }
  while (static_cast<int>(dims.size()) < TagDims(data)) dims.push_back(1);
  return dims;
}

Status RebuildNormalization(Context& c, bool layer) {
  c.follows_data = true;
  const MemoryDesc* data = DataTensor(c);
  if (!data) return Cannot("the line names no data tensor");
  Dims dims;
  if (layer) {
    if (!ReadShape(c.row.problem.view(), dims))
      return Cannot("the layer normalization problem cannot be read");
  } else {
    std::optional<Dims> read = ChannelDims(c, *data);
    if (!read) return Cannot("the batch normalization problem cannot be read");
    dims = std::move(*read);
  }
  c.out.kind = layer ? "layer normalization" : "batch normalization";
  c.dst_dims = dims;
  const bool forward = IsForward(c);
  StatusOr<memory::desc> d = Desc(c, data, dims, DNNL_ARG_SRC, "src");
  if (!d.ok()) return d.status();
  StatusOr<memory::desc> g = forward ? memory::desc() : DiffDesc(c, DiffTensor(c), dims);
  if (!g.ok()) return g.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  const unsigned flags = NormalizationFlags(AuxiliaryValue(c.row.auxiliary.view(), "flags"));
  constexpr float kEpsilon = 1e-5f;
  if (layer) {
    return CreatePass<dnnl_layer_normalization_desc_t>(
        c, "layer normalization",
        [&](dnnl_prop_kind_t prop, dnnl_layer_normalization_desc_t* fwd) {
          return dnnl_layer_normalization_forward_desc_init(fwd, prop, &d->data, nullptr, kEpsilon,
                                                            flags);
        },
        [&](dnnl_layer_normalization_desc_t* op) {
          return dnnl_layer_normalization_backward_desc_init(op, PropOf(c), &g->data, &d->data,
                                                             nullptr, kEpsilon, flags);
        });
  }
  return CreatePass<dnnl_batch_normalization_desc_t>(
      c, "batch normalization",
      [&](dnnl_prop_kind_t prop, dnnl_batch_normalization_desc_t* fwd) {
        return dnnl_batch_normalization_forward_desc_init(fwd, prop, &d->data, kEpsilon, flags);
      },
      [&](dnnl_batch_normalization_desc_t* op) {
        return dnnl_batch_normalization_backward_desc_init(op, PropOf(c), &g->data, &d->data,
                                                           kEpsilon, flags);
      });
}

Status RebuildBinary(Context& c) {
  const MemoryDesc* src0 = c.tensors.Find({"src", "src0", "src_0"});
  const MemoryDesc* src1 = c.tensors.Find({"src1", "src_1"});
  if (src1 == nullptr) src1 = c.tensors.Find({"src"}, 1);
  const MemoryDesc* dst = c.tensors.Find({"dst"});
  std::vector<Dims> shapes;
  if (!src0 || !src1 || !dst) return Cannot("the line names no two sources and a destination");
  if (!ReadShapes(c.row.problem.view(), shapes) || shapes.size() < 2)
    return Cannot("the binary problem cannot be read");
  c.out.kind = onednn::NameOf(onednn::Kind::kBinary);
  c.dst_dims = shapes[0];
  const std::optional<dnnl::algorithm> alg =
      AlgorithmNamed(AuxiliaryValue(c.row.auxiliary.view(), "alg"));
  if (!alg)
    return Cannot("binary algorithm '" +
                  std::string(AuxiliaryValue(c.row.auxiliary.view(), "alg")) +
                  "' is unknown to oneDNN 2.6.3");
  StatusOr<memory::desc> a = Desc(c, src0, shapes[0], DNNL_ARG_SRC_0, "src");
  StatusOr<memory::desc> b = Desc(c, src1, shapes[1], DNNL_ARG_SRC_1, "src");
  StatusOr<memory::desc> d = Desc(c, dst, shapes[0], DNNL_ARG_DST, "dst");
  for (const auto* r : {&a, &b, &d}) {
    if (!r->ok()) return r->status();
  }
  if (Status at = ReadAttributes(c); !at.ok()) return at;
  dnnl_binary_desc_t op{};
  if (Status st = Check(dnnl_binary_desc_init(&op, static_cast<dnnl_alg_kind_t>(*alg), &a->data,
                                              &b->data, &d->data),
                        "this binary");
      !st.ok()) {
    return st;
  }
  return Create(c, op);
}

// lrn: `mb2ic16ih7iw7ls5beta0.75` (alpha and k are not printed: oneDNN's defaults, 1e-4 and 1).
Status RebuildLrn(Context& c) {
  c.follows_data = true;
  const MemoryDesc* data = DataTensor(c);
  if (!data) return Cannot("the line names no data tensor");
  std::optional<Dims> dims = ChannelDims(c, *data);
  const std::optional<ProblemKeys> k = ProblemKeys::Read(c.row.problem.view());
  if (!dims || !k || !k->Has("ls")) return Cannot("the lrn problem cannot be read");
  c.out.kind = onednn::NameOf(onednn::Kind::kLrn);
  c.dst_dims = *dims;
  const bool forward = IsForward(c);
  StatusOr<dnnl_alg_kind_t> alg = AlgorithmOf(c);
  if (!alg.ok()) return alg.status();
  StatusOr<memory::desc> d = Desc(c, data, *dims, DNNL_ARG_SRC, "src");
  if (!d.ok()) return d.status();
  StatusOr<memory::desc> g = forward ? memory::desc() : DiffDesc(c, DiffTensor(c), *dims);
  if (!g.ok()) return g.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  const dnnl_dim_t size = k->Dim("ls");
  const auto alpha = static_cast<float>(k->Value("alpha", 1e-4));
  const auto beta = static_cast<float>(k->Value("beta", 0.75));
  const auto bias = static_cast<float>(k->Value("k", 1));
  return CreatePass<dnnl_lrn_desc_t>(
      c, "lrn",
      [&](dnnl_prop_kind_t prop, dnnl_lrn_desc_t* fwd) {
        return dnnl_lrn_forward_desc_init(fwd, prop, *alg, &d->data, size, alpha, beta, bias);
      },
      [&](dnnl_lrn_desc_t* op) {
        return dnnl_lrn_backward_desc_init(op, *alg, &g->data, &d->data, size, alpha, beta, bias);
      });
}

// shuffle: `axis:1 group:4` (the group size).
Status RebuildShuffle(Context& c) {
  c.follows_data = true;
  const MemoryDesc* data = c.tensors.Find({"data", "src", "diff_src", "diff"});
  Dims dims;
  if (!data || !ReadShape(c.row.problem.view(), dims))
    return Cannot("the shuffle problem cannot be read");
  c.out.kind = onednn::NameOf(onednn::Kind::kShuffle);
  c.dst_dims = dims;
  const bool forward = IsForward(c);
  const std::string_view aux = c.row.auxiliary.view();
  const int axis = IntOf(AuxiliaryValue(aux, "axis"), 1);
  const dnnl_dim_t group = IntOf(AuxiliaryValue(aux, "group"), 1);
  if (axis < 0 || axis >= static_cast<int>(dims.size()) || group < 1 || dims[axis] % group != 0)
    return Cannot("shuffle axis " + std::to_string(axis) + " group " + std::to_string(group) +
                  " does not fit the shape");
  StatusOr<memory::desc> d =
      forward ? Desc(c, data, dims, DNNL_ARG_SRC, "src") : DiffDesc(c, data, dims);
  if (!d.ok()) return d.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  return CreatePass<dnnl_shuffle_desc_t>(
      c, "shuffle",
      [&](dnnl_prop_kind_t prop, dnnl_shuffle_desc_t* fwd) {
        return dnnl_shuffle_forward_desc_init(fwd, prop, &d->data, axis, group);
      },
      [&](dnnl_shuffle_desc_t* op) {
        return dnnl_shuffle_backward_desc_init(op, &d->data, axis, group);
      });
}

// resampling: `mb2ic16_ih7oh14_iw7ow14`, the factors following from the sizes.
Status RebuildResampling(Context& c) {
  c.follows_data = true;
  const std::optional<ProblemKeys> k = ProblemKeys::Read(c.row.problem.view());
  if (!k || !k->Has("mb") || !k->Has("ic")) return Cannot("the resampling problem cannot be read");
  Dims in = {k->Dim("mb"), k->Dim("ic")}, out = in;
  for (const char* s : {"d", "h", "w"}) {
    if (!k->Has(std::string("i") + s)) continue;
    in.push_back(k->Dim(std::string("i") + s));
    out.push_back(k->Dim(std::string("o") + s, in.back()));
  }
  const MemoryDesc* src = c.tensors.Find({"src", "diff_src"});
  const MemoryDesc* dst = c.tensors.Find({"dst", "diff_dst"});
  if (!src || !dst) return Cannot("the line names no src or dst tensor");
  c.out.kind = onednn::NameOf(onednn::Kind::kResampling);
  c.dst_dims = out;
  StatusOr<Ends> e = SourceAndDestination(c, src, dst, in, out);
  if (!e.ok()) return e.status();
  StatusOr<dnnl_alg_kind_t> alg = AlgorithmOf(c);
  if (!alg.ok()) return alg.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  return CreatePass<dnnl_resampling_desc_t>(
      c, "resampling",
      [&](dnnl_prop_kind_t prop, dnnl_resampling_desc_t* fwd) {
        return dnnl_resampling_forward_desc_init(fwd, prop, *alg, nullptr, &e->src.data,
                                                 &e->dst.data);
      },
      [&](dnnl_resampling_desc_t* op) {
        return dnnl_resampling_backward_desc_init(op, *alg, nullptr, &e->src.data, &e->dst.data);
      });
}

// prelu: `2x16x7x7:1x16x1x1` (data, then weights); backward also `diff` and `diff_wei`.
Status RebuildPrelu(Context& c) {
  c.follows_data = true;
  const MemoryDesc* data = DataTensor(c);
  const MemoryDesc* wei = c.tensors.Find({"wei"});
  std::vector<Dims> shapes;
  if (!data || !wei) return Cannot("the line names no data or wei tensor");
  if (!ReadShapes(c.row.problem.view(), shapes) || shapes.size() < 2)
    return Cannot("the prelu problem cannot be read");
  c.out.kind = onednn::NameOf(onednn::Kind::kPrelu);
  c.dst_dims = shapes[0];
  const bool forward = IsForward(c);
  StatusOr<memory::desc> d = Desc(c, data, shapes[0], DNNL_ARG_SRC, "src");
  StatusOr<memory::desc> w = Desc(c, wei, shapes[1], DNNL_ARG_WEIGHTS, "wei");
  if (!d.ok()) return d.status();
  if (!w.ok()) return w.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  // Backward, the gradients: of the data (the output), and of the weights.
  StatusOr<memory::desc> g = forward ? memory::desc() : DiffDesc(c, DiffTensor(c), shapes[0]);
  const MemoryDesc* diff_wei = c.tensors.Find({"diff_wei"});
  StatusOr<memory::desc> gw =
      forward ? memory::desc()
              : Desc(c, diff_wei ? diff_wei : wei, shapes[1], DNNL_ARG_DIFF_WEIGHTS, "wei");
  if (!g.ok()) return g.status();
  if (!gw.ok()) return gw.status();
  return CreatePass<dnnl_prelu_desc_t>(
      c, "prelu",
      [&](dnnl_prop_kind_t prop, dnnl_prelu_desc_t* fwd) {
        return dnnl_prelu_forward_desc_init(fwd, prop, &d->data, &w->data);
      },
      [&](dnnl_prelu_desc_t* op) {
        return dnnl_prelu_backward_desc_init(op, &d->data, &w->data, &g->data, &gw->data);
      });
}

// reduction: `alg:reduction_mean p:0 eps:0`, `2x16x7x7:2x16x1x1` (source, destination).
Status RebuildReduction(Context& c) {
  c.follows_data = true;
  const MemoryDesc* src = c.tensors.Find({"src"});
  const MemoryDesc* dst = c.tensors.Find({"dst"});
  std::vector<Dims> shapes;
  if (!src || !dst) return Cannot("the line names no src or dst tensor");
  if (!ReadShapes(c.row.problem.view(), shapes) || shapes.size() < 2)
    return Cannot("the reduction problem cannot be read");
  c.out.kind = onednn::NameOf(onednn::Kind::kReduction);
  c.dst_dims = shapes[1];
  StatusOr<memory::desc> s = Desc(c, src, shapes[0], DNNL_ARG_SRC, "src");
  StatusOr<memory::desc> d = Desc(c, dst, shapes[1], DNNL_ARG_DST, "dst");
  if (!s.ok()) return s.status();
  if (!d.ok()) return d.status();
  StatusOr<dnnl_alg_kind_t> alg = AlgorithmOf(c);
  if (!alg.ok()) return alg.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  const std::string_view aux = c.row.auxiliary.view();
  dnnl_reduction_desc_t op{};
  if (Status st = Check(dnnl_reduction_desc_init(&op, *alg, &s->data, &d->data,
                                                 ToFloat(AuxiliaryValue(aux, "p"), 0.f),
                                                 ToFloat(AuxiliaryValue(aux, "eps"), 0.f)),
                        "this reduction");
      !st.ok()) {
    return st;
  }
  return Create(c, op);
}

// sum and concat: several sources, each as logged (oneDNN takes no `any` source for them; under
// layouts any only the destination is oneDNN's choice), passed as DNNL_ARG_MULTIPLE_SRC + i.
Status RebuildSumOrConcat(Context& c, bool concat) {
  std::vector<const MemoryDesc*> srcs;
  for (int i = 0; const MemoryDesc* md = c.tensors.Find({"src"}, i); ++i) srcs.push_back(md);
  const MemoryDesc* dst = c.tensors.Find({"dst"});
  c.out.kind = onednn::NameOf(concat ? onednn::Kind::kConcat : onednn::Kind::kSum);
  if (srcs.empty() || !dst) return Cannot("the line names no sources and destination");
  std::vector<Dims> shapes;
  if (!ReadShapes(c.row.problem.view(), shapes)) {
    return Cannot("the " + c.out.kind + " problem cannot be read");
  }
  // A sum prints one shape for all its tensors.
  if (!concat) shapes.resize(srcs.size(), shapes.front());
  if (shapes.size() != srcs.size()) {
    return Cannot("the " + c.out.kind + " problem names " + std::to_string(shapes.size()) +
                  " shapes for " + std::to_string(srcs.size()) + " sources");
  }
  const int axis = IntOf(AuxiliaryValue(c.row.auxiliary.view(), "axis"), 1);
  Dims dst_dims = shapes.front();
  if (concat) {
    if (axis < 0 || axis >= static_cast<int>(dst_dims.size()))
      return Cannot("the concat axis is outside its tensors");
    for (std::size_t i = 1; i < shapes.size(); ++i) {
      if (shapes[i].size() != dst_dims.size()) return Cannot("the concat shapes do not agree");
      dst_dims[axis] += shapes[i][axis];
    }
  }
  c.dst_dims = dst_dims;
  std::vector<memory::desc> src_descs;
  for (std::size_t i = 0; i < srcs.size(); ++i) {
    StatusOr<memory::desc> s = MakeMemoryDesc(shapes[i], *srcs[i]);
    if (!s.ok()) return s.status();
    const int arg = DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i);
    c.out.logged[arg] = *s;
    c.out.extra_args[arg] = *s;
    src_descs.push_back(*s);
  }
  StatusOr<memory::desc> d = Desc(c, dst, dst_dims, DNNL_ARG_DST, "dst");
  if (!d.ok()) return d.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  try {
    if (concat) {
      c.out.single_pd = dnnl::concat::primitive_desc(*d, axis, src_descs, c.engine, c.attr);
    } else {
      const std::vector<float> scales(src_descs.size(), 1.f);  // 2.6.3 does not print them
      c.out.single_pd = dnnl::sum::primitive_desc(*d, scales, src_descs, c.engine, c.attr);
    }
  } catch (const dnnl::error& e) {
    return Cannot("oneDNN 2.6.3 has no implementation for this " + c.out.kind + " on this CPU (" +
                  e.what() + ")");
  }
  return {};
}

// rnn: `alg:vanilla_lstm direction:unidirectional_left2right activation:undef` and
// `l1t3mb2sic8slc8dhc8dic8` (benchdnn's keys: layers, time steps, batch, the channels of
// src_iter, src_layer, the hidden state and dst_iter). Neither 2.x nor 3.x verbose prints an
// LSTM's src_iter_c and dst_iter_c or an AUGRU's attention: they are rebuilt as oneDNN's own
// tests and frameworks pass them, the cell state laid out as src_iter and dst_iter are, the
// attention (t, mb, 1) as src_layer is.
struct RnnCell {
  int gates = 1;       // per hidden channel in the weights
  int bias_gates = 1;  // lbr cells add one to the bias
  bool lstm = false;
  bool attention = false;
};

std::optional<RnnCell> RnnCellOf(dnnl_alg_kind_t alg) {
  switch (alg) {
    case dnnl_vanilla_rnn:
      return RnnCell{1, 1, false, false};
    case dnnl_vanilla_lstm:
      return RnnCell{4, 4, true, false};
    case dnnl_vanilla_gru:
      return RnnCell{3, 3, false, false};
    case dnnl_lbr_gru:
      return RnnCell{3, 4, false, false};
    case dnnl_vanilla_augru:
      return RnnCell{3, 3, false, true};
    case dnnl_lbr_augru:
      return RnnCell{3, 4, false, true};
    default:
      return std::nullopt;
  }
}

std::optional<dnnl_rnn_direction_t> RnnDirectionNamed(std::string_view name) {
  if (name == "unidirectional_left2right" || name == "unidirectional")
    return dnnl_unidirectional_left2right;
  if (name == "unidirectional_right2left") return dnnl_unidirectional_right2left;
  if (name == "bidirectional_concat") return dnnl_bidirectional_concat;
  if (name == "bidirectional_sum") return dnnl_bidirectional_sum;
  return std::nullopt;
}

// The sizes of an rnn problem (problem_keys.h) and its count of directions.
struct RnnSizes : verbose::RnnProblem {
  dnnl_dim_t dirs = 1;
};

StatusOr<RnnSizes> ReadRnnSizes(const Context& c, dnnl_rnn_direction_t direction) {
  const std::optional<verbose::RnnProblem> p = verbose::ReadRnnProblem(c.row.problem.view());
  if (!p) return Cannot("the rnn problem names no sic, or has a run-time dimension");
  for (const auto& [name, value] : {std::pair<const char*, std::int64_t>{"l", p->l},
                                    {"t", p->t},
                                    {"mb", p->mb},
                                    {"sic", p->sic},
                                    {"slc", p->slc},
                                    {"dhc", p->dhc},
                                    {"dic", p->dic}}) {
    if (value < 1) {
      return Cannot("an rnn with " + std::string(name) + " " + std::to_string(value) +
                    " has nothing to run");
    }
  }
  RnnSizes s;
  static_cast<verbose::RnnProblem&>(s) = *p;
  s.dirs = direction == dnnl_bidirectional_concat || direction == dnnl_bidirectional_sum ? 2 : 1;
  return s;
}

// The descriptors of one direction of an rnn pass (forward tensors, or their gradients).
struct RnnDescs {
  memory::desc src_layer, src_iter, src_iter_c, attention, weights_layer, weights_iter, peephole,
      projection, bias, dst_layer, dst_iter, dst_iter_c;
};

// The tensors named `prefix` + name (`diff_` for the gradients), their arguments offset by
// `arg_base` (DNNL_ARG_DIFF_SRC - DNNL_ARG_SRC for gradients).
StatusOr<RnnDescs> RnnTensors(Context& c, const RnnSizes& s, const RnnCell& cell,
                              std::string_view prefix, int arg_base) {
  const auto find = [&](std::string_view name) {
    return c.tensors.Find({std::string(prefix) + std::string(name)});
  };
  const MemoryDesc* src_layer = find("src_layer");
  const MemoryDesc* src_iter = find("src_iter");
  const MemoryDesc* dst_iter = find("dst_iter");
  const MemoryDesc* wei_layer = find("wei_layer");
  const MemoryDesc* wei_iter = find("wei_iter");
  if (!src_layer || !find("dst_layer") || !wei_layer || !wei_iter)
    return Cannot("the rnn line names no " + std::string(prefix) +
                  "src_layer, dst_layer or weights");
  const dnnl_dim_t dst_channels =
      s.dirs == 2 && c.row.auxiliary.view().find("bidirectional_concat") != std::string_view::npos
          ? 2 * s.dic
          : s.dic;
  const bool projection = find("wei_proj") != nullptr;
  RnnDescs d;
  Status failed;
  const auto make = [&](const MemoryDesc* md, const Dims& dims, int arg) {
    if (md == nullptr || !failed.ok()) return memory::desc();
    StatusOr<memory::desc> desc = Desc(c, md, dims, arg + arg_base, "src");
    if (!desc.ok()) {
      failed = desc.status();
      return memory::desc();
    }
    return *desc;
  };
  d.src_layer = make(src_layer, {s.t, s.mb, s.slc}, DNNL_ARG_SRC_LAYER);
  d.src_iter = make(src_iter, {s.l, s.dirs, s.mb, s.sic}, DNNL_ARG_SRC_ITER);
  d.weights_layer =
      make(wei_layer, {s.l, s.dirs, s.slc, cell.gates, s.dhc}, DNNL_ARG_WEIGHTS_LAYER);
  d.weights_iter = make(wei_iter, {s.l, s.dirs, projection ? s.dic : s.sic, cell.gates, s.dhc},
                        DNNL_ARG_WEIGHTS_ITER);
  d.peephole = make(find("wei_peephole"), {s.l, s.dirs, 3, s.dhc}, DNNL_ARG_WEIGHTS_PEEPHOLE);
  d.projection = make(find("wei_proj"), {s.l, s.dirs, s.dhc, s.dic}, DNNL_ARG_WEIGHTS_PROJECTION);
  d.bias = make(find("bias"), {s.l, s.dirs, cell.bias_gates, s.dhc}, DNNL_ARG_BIAS);
  d.dst_layer = make(find("dst_layer"), {s.t, s.mb, dst_channels}, DNNL_ARG_DST_LAYER);
  d.dst_iter = make(dst_iter, {s.l, s.dirs, s.mb, s.dic}, DNNL_ARG_DST_ITER);
  if (cell.lstm) {
    d.src_iter_c = make(src_iter, {s.l, s.dirs, s.mb, s.dhc}, DNNL_ARG_SRC_ITER_C);
    d.dst_iter_c = make(dst_iter, {s.l, s.dirs, s.mb, s.dhc}, DNNL_ARG_DST_ITER_C);
  }
  if (cell.attention) d.attention = make(src_layer, {s.t, s.mb, 1}, DNNL_ARG_AUGRU_ATTENTION);
  if (!failed.ok()) return failed;
  return d;
}

dnnl_status_t RnnForwardInit(dnnl_rnn_desc_t& op, dnnl_prop_kind_t prop, dnnl_alg_kind_t alg,
                             dnnl_alg_kind_t activation, dnnl_rnn_direction_t direction,
                             const RnnDescs& f) {
  switch (alg) {
    case dnnl_vanilla_rnn:
      return dnnl_vanilla_rnn_forward_desc_init(&op, prop, activation, direction, &f.src_layer.data,
                                                &f.src_iter.data, &f.weights_layer.data,
                                                &f.weights_iter.data, &f.bias.data,
                                                &f.dst_layer.data, &f.dst_iter.data, 0, 0.f, 0.f);
    case dnnl_vanilla_lstm:
      return dnnl_lstm_forward_desc_init_v3(
          &op, prop, direction, &f.src_layer.data, &f.src_iter.data, &f.src_iter_c.data,
          &f.weights_layer.data, &f.weights_iter.data, &f.peephole.data, &f.projection.data,
          &f.bias.data, &f.dst_layer.data, &f.dst_iter.data, &f.dst_iter_c.data, 0);
    case dnnl_vanilla_gru:
    case dnnl_lbr_gru:
      return (alg == dnnl_vanilla_gru ? dnnl_gru_forward_desc_init
                                      : dnnl_lbr_gru_forward_desc_init)(
          &op, prop, direction, &f.src_layer.data, &f.src_iter.data, &f.weights_layer.data,
          &f.weights_iter.data, &f.bias.data, &f.dst_layer.data, &f.dst_iter.data, 0);
    default:
      return (alg == dnnl_vanilla_augru ? dnnl_augru_forward_desc_init
                                        : dnnl_lbr_augru_forward_desc_init)(
          &op, prop, direction, &f.src_layer.data, &f.src_iter.data, &f.attention.data,
          &f.weights_layer.data, &f.weights_iter.data, &f.bias.data, &f.dst_layer.data,
          &f.dst_iter.data, 0);
  }
}

dnnl_status_t RnnBackwardInit(dnnl_rnn_desc_t& op, dnnl_alg_kind_t alg, dnnl_alg_kind_t activation,
                              dnnl_rnn_direction_t direction, const RnnDescs& f,
                              const RnnDescs& g) {
  switch (alg) {
    case dnnl_vanilla_rnn:
      return dnnl_vanilla_rnn_backward_desc_init(
          &op, dnnl_backward, activation, direction, &f.src_layer.data, &f.src_iter.data,
          &f.weights_layer.data, &f.weights_iter.data, &f.bias.data, &f.dst_layer.data,
          &f.dst_iter.data, &g.src_layer.data, &g.src_iter.data, &g.weights_layer.data,
          &g.weights_iter.data, &g.bias.data, &g.dst_layer.data, &g.dst_iter.data, 0, 0.f, 0.f);
    case dnnl_vanilla_lstm:
      return dnnl_lstm_backward_desc_init_v3(
          &op, dnnl_backward, direction, &f.src_layer.data, &f.src_iter.data, &f.src_iter_c.data,
          &f.weights_layer.data, &f.weights_iter.data, &f.peephole.data, &f.projection.data,
          &f.bias.data, &f.dst_layer.data, &f.dst_iter.data, &f.dst_iter_c.data, &g.src_layer.data,
          &g.src_iter.data, &g.src_iter_c.data, &g.weights_layer.data, &g.weights_iter.data,
          &g.peephole.data, &g.projection.data, &g.bias.data, &g.dst_layer.data, &g.dst_iter.data,
          &g.dst_iter_c.data, 0);
    case dnnl_vanilla_gru:
    case dnnl_lbr_gru:
      return (alg == dnnl_vanilla_gru ? dnnl_gru_backward_desc_init
                                      : dnnl_lbr_gru_backward_desc_init)(
          &op, dnnl_backward, direction, &f.src_layer.data, &f.src_iter.data, &f.weights_layer.data,
          &f.weights_iter.data, &f.bias.data, &f.dst_layer.data, &f.dst_iter.data,
          &g.src_layer.data, &g.src_iter.data, &g.weights_layer.data, &g.weights_iter.data,
          &g.bias.data, &g.dst_layer.data, &g.dst_iter.data, 0);
    default:
      return (alg == dnnl_vanilla_augru ? dnnl_augru_backward_desc_init
                                        : dnnl_lbr_augru_backward_desc_init)(
          &op, dnnl_backward, direction, &f.src_layer.data, &f.src_iter.data, &f.attention.data,
          &f.weights_layer.data, &f.weights_iter.data, &f.bias.data, &f.dst_layer.data,
          &f.dst_iter.data, &g.src_layer.data, &g.src_iter.data, &g.attention.data,
          &g.weights_layer.data, &g.weights_iter.data, &g.bias.data, &g.dst_layer.data,
          &g.dst_iter.data, 0);
  }
}

Status RebuildRnn(Context& c) {
  c.out.kind = onednn::NameOf(onednn::Kind::kRnn);
  const std::string_view aux = c.row.auxiliary.view();
  StatusOr<dnnl_alg_kind_t> alg = AlgorithmOf(c);
  if (!alg.ok()) return alg.status();
  const std::optional<RnnCell> cell = RnnCellOf(*alg);
  if (!cell)
    return Cannot("rnn cell '" + std::string(AuxiliaryValue(aux, "alg")) +
                  "' is unknown to oneDNN 2.6.3");
  const std::string_view direction_name = AuxiliaryValue(aux, "direction");
  const std::optional<dnnl_rnn_direction_t> direction = RnnDirectionNamed(direction_name);
  if (!direction)
    return Cannot("rnn direction '" + std::string(direction_name) + "' is unknown to oneDNN 2.6.3");
  // 3.x prints `flags:` (empty) or `flags:O` (diff weights overwritten), which 2.6.3 lacks.
  if (!AuxiliaryValue(aux, "flags").empty())
    return Cannot("rnn flags '" + std::string(AuxiliaryValue(aux, "flags")) +
                  "' (oneDNN 3.x) have no 2.6.3 equivalent");
  dnnl_alg_kind_t activation = dnnl_alg_kind_undef;
  if (*alg == dnnl_vanilla_rnn) {
    const std::optional<dnnl::algorithm> act = AlgorithmNamed(AuxiliaryValue(aux, "activation"));
    if (!act)
      return Cannot("the vanilla rnn's activation '" +
                    std::string(AuxiliaryValue(aux, "activation")) +
                    "' is unknown to oneDNN 2.6.3");
    activation = static_cast<dnnl_alg_kind_t>(*act);
  }
  StatusOr<RnnSizes> sizes = ReadRnnSizes(c, *direction);
  if (!sizes.ok()) return sizes.status();
  const bool forward = IsForward(c);
  StatusOr<RnnDescs> f = RnnTensors(c, *sizes, *cell, "", 0);
  if (!f.ok()) return f.status();
  if (Status a = ReadAttributes(c); !a.ok()) return a;
  if (forward) {
    dnnl_rnn_desc_t op{};
    if (Status st =
            Check(RnnForwardInit(op, PropOf(c), *alg, activation, *direction, *f), "this rnn");
        !st.ok())
      return st;
    return Create(c, op);
  }
  StatusOr<RnnDescs> g = RnnTensors(c, *sizes, *cell, "diff_", DNNL_ARG_DIFF_SRC - DNNL_ARG_SRC);
  if (!g.ok()) return g.status();
  c.out.output_arg = DNNL_ARG_DIFF_SRC_LAYER;
  // The forward hint lays out its weights itself (the backward pass's are transposed, ldgoi).
  RnnDescs hint_descs = *f;
  for (memory::desc* w : {&hint_descs.weights_layer, &hint_descs.weights_iter, &hint_descs.peephole,
                          &hint_descs.projection}) {
    if (w->data.ndims > 0) *w = memory::desc(w->dims(), w->data_type(), memory::format_tag::any);
  }
  dnnl_rnn_desc_t fwd{};
  if (Status st = Check(
          RnnForwardInit(fwd, dnnl_forward_training, *alg, activation, *direction, hint_descs),
          "this rnn's forward pass");
      !st.ok())
    return st;
  dnnl_rnn_desc_t op{};
  if (Status st =
          Check(RnnBackwardInit(op, *alg, activation, *direction, *f, *g), "this backward rnn");
      !st.ok())
    return st;
  return CreateBackward(c, fwd, op);
}

// A kind the rebuild does not cover, said in words.
Status NotCovered(std::string_view primitive) {
  return Cannot("a " + std::string(primitive) + " primitive is not rebuilt yet");
}

// Every number of the problem a dimension dlcheck computes with (verbose/shape_math.h), and
// no shape of more dimensions than oneDNN's 12, before any builder multiplies, divides or
// shifts by them.
Status CheckProblem(std::string_view problem) {
  if (std::string why = verbose::ProblemOutOfRange(problem); !why.empty()) return Cannot(why);
  if (const std::optional<std::vector<Dims>> shapes = verbose::ReadProblemShapes(problem)) {
    for (const Dims& dims : *shapes) {
      if (dims.size() > DNNL_MAX_NDIMS) {
        return Cannot("a shape of " + std::to_string(dims.size()) +
                      " dimensions: oneDNN has at most " + std::to_string(DNNL_MAX_NDIMS));
      }
    }
  }
  return {};
}

}  // namespace

const std::vector<int>& ExecutionArguments() {
  static const std::vector<int> kArgs = {
      DNNL_ARG_SRC, DNNL_ARG_SRC_1, DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS, DNNL_ARG_DST,
      DNNL_ARG_DIFF_SRC, DNNL_ARG_DIFF_WEIGHTS, DNNL_ARG_DIFF_BIAS, DNNL_ARG_DIFF_DST,
      DNNL_ARG_WORKSPACE, DNNL_ARG_MEAN, DNNL_ARG_VARIANCE, DNNL_ARG_SCALE_SHIFT, DNNL_ARG_SCALE,
      DNNL_ARG_SHIFT, DNNL_ARG_DIFF_SCALE, DNNL_ARG_DIFF_SHIFT, DNNL_ARG_SCRATCHPAD,
      // rnn: the states, the cell state, the attention, the other weights, and their gradients.
      DNNL_ARG_SRC_2, DNNL_ARG_SRC_3, DNNL_ARG_DST_1, DNNL_ARG_DST_2, DNNL_ARG_WEIGHTS_1,
      DNNL_ARG_WEIGHTS_2, DNNL_ARG_WEIGHTS_3, DNNL_ARG_DIFF_SRC_1, DNNL_ARG_DIFF_SRC_2,
      DNNL_ARG_DIFF_SRC_3, DNNL_ARG_DIFF_DST_1, DNNL_ARG_DIFF_DST_2, DNNL_ARG_DIFF_WEIGHTS_1,
      DNNL_ARG_DIFF_WEIGHTS_2, DNNL_ARG_DIFF_WEIGHTS_3};
  return kArgs;
}

// The rebuild of each primitive kind (common/primitive_kinds.h), the names of one kind alike.
Status RebuildOfKind(Context& c, onednn::Kind kind) {
  using onednn::Kind;
  switch (kind) {
    case Kind::kConvolution:
      return RebuildConvolution(c, false);
    case Kind::kDeconvolution:
      return RebuildConvolution(c, true);
    case Kind::kInnerProduct:
      return RebuildInnerProduct(c);
    case Kind::kMatmul:
      return RebuildMatmul(c);
    case Kind::kReorder:
      return RebuildReorder(c);
    case Kind::kEltwise:
      return RebuildEltwise(c);
    case Kind::kPooling:
      return RebuildPooling(c);
    case Kind::kSoftmax:
      return RebuildSoftmax(c);
    case Kind::kBatchNormalization:
      return RebuildNormalization(c, false);
    case Kind::kLayerNormalization:
      return RebuildNormalization(c, true);
    case Kind::kBinary:
      return RebuildBinary(c);
    case Kind::kLrn:
      return RebuildLrn(c);
    case Kind::kShuffle:
      return RebuildShuffle(c);
    case Kind::kResampling:
      return RebuildResampling(c);
    case Kind::kPrelu:
      return RebuildPrelu(c);
    case Kind::kReduction:
      return RebuildReduction(c);
    case Kind::kRnn:
      return RebuildRnn(c);
    case Kind::kSum:
      return RebuildSumOrConcat(c, false);
    case Kind::kConcat:
      return RebuildSumOrConcat(c, true);
    case Kind::kGroupNormalization:
      return Cannot("group normalization came with oneDNN 3.3: 2.6.3 has no such primitive");
    case Kind::kGemmApi:
      return Cannot(
          "a gemm_api line is a call of oneDNN's BLAS functions (dnnl_sgemm, ...), not a "
          "primitive: dlcheck rebuilds primitives");
    case Kind::kUkernel:
      return Cannot(
          "a ukernel line is a micro-kernel call (oneDNN's ukernel API, once per tile of the "
          "caller's loop), not a primitive: dlcheck rebuilds primitives");
    case Kind::kSdpa:
    case Kind::kExternal:
      break;
  }
  return NotCovered(c.row.primitive.view());
}

StatusOr<Rebuilt> Rebuild(const verbose::PrimitiveStats& row, const dnnl::engine& engine,
                          const RebuildSettings& settings) {
  if (!row.engine.view().starts_with("cpu")) {
    return Cannot("a " + std::string(row.engine.view()) +
                  " primitive: dlcheck rebuilds CPU primitives only");
  }
  if (row.era == verbose::Era::kMkldnn0) return Cannot("MKL-DNN 0.x lines print no data types");
  if (row.era == verbose::Era::kOnednnGraph)
    return Cannot("a oneDNN Graph partition, not a primitive");
  if (verbose::LibraryOf(row.era) != verbose::Library::kOneDnn)
    return Cannot("a ZenDNN row: dlcheck rebuilds oneDNN's primitives, not ZenDNN's");
  std::vector<MemoryDesc> mds;
  verbose::ParseMemoryDescs(row.memory_descriptors.view(), mds);
  const std::optional<dnnl::prop_kind> prop = PropKindNamed(row.prop_kind.view());
  if (!prop)
    return Cannot("propagation kind '" + std::string(row.prop_kind.view()) +
                  "' is unknown to oneDNN 2.6.3");
  if (Status in_range = CheckProblem(row.problem.view()); !in_range.ok()) return in_range;
  Context c{row, settings, engine, Tensors(std::move(mds)), {}, {}, {}, false};
  const std::string_view kind = row.primitive.view();
  if (!settings.data_type.empty() && !onednn::IsComputeKind(kind)) {
    return Cannot("a data type variant is measured for convolution, inner product and matmul only");
  }
  const std::optional<onednn::Kind> known = onednn::KindOf(kind);
  if (!known) return NotCovered(kind);
  Status status;
  try {
    status = RebuildOfKind(c, *known);
  } catch (const dnnl::error& e) {
    status = Cannot(std::string("oneDNN 2.6.3 refused it: ") + e.what());
  }
  if (!status.ok()) return status;
  return std::move(c.out);
}

}  // namespace dlcheck::whatif
