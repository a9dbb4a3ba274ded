// SPDX-License-Identifier: Apache-2.0
#include "roofline/placement.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/primitive_kinds.h"
#include "verbose/problem_keys.h"
#include "verbose/shape_math.h"

namespace dlcheck::roofline {
namespace {

std::optional<double> Product(const std::vector<std::int64_t>& dims) {
  const std::optional<std::int64_t> p = verbose::CheckedProduct(dims);
  if (!p) return std::nullopt;
  return static_cast<double>(*p);
}

// The `_maskN` of the bias's memory descriptor (`bia_f32::blocked:abc:f0_mask4`,
// `bia:f32::blocked:abc::f0_mask4`); nullopt without one.
std::optional<unsigned> BiasMask(std::string_view memory_descriptors) {
  std::size_t at = 0;
  while (at < memory_descriptors.size()) {
    std::size_t end = memory_descriptors.find(' ', at);
    if (end == std::string_view::npos) end = memory_descriptors.size();
    const std::string_view token = memory_descriptors.substr(at, end - at);
    at = end + 1;
    if (token.rfind("bia", 0) != 0) continue;
    const std::size_t mask = token.find("_mask");
    if (mask == std::string_view::npos) return std::nullopt;
    unsigned value = 0;
    bool digits = false;
    for (std::size_t i = mask + 5; i < token.size() && token[i] >= '0' && token[i] <= '9'; ++i) {
      value = value * 10 + static_cast<unsigned>(token[i] - '0');
      digits = true;
      if (value > 0xffff) return std::nullopt;
    }
    if (digits) return value;
    return std::nullopt;
  }
  return std::nullopt;
}

struct Elements {
  double src = 0;
  double wei = 0;
  double bia = 0;  ///< when the bias is present
  double dst = 0;
};

std::optional<Elements> MatmulElements(std::string_view problem,
                                       std::string_view memory_descriptors) {
  const auto shapes = verbose::ReadProblemShapes(problem);
  if (!shapes || shapes->size() < 2) return std::nullopt;
  const std::vector<std::int64_t>& src = (*shapes)[0];
  const std::vector<std::int64_t>& wei = (*shapes)[1];
  if (src.size() < 2 || wei.size() != src.size()) return std::nullopt;
  std::vector<std::int64_t> dst;
  if (shapes->size() >= 3) {
    dst = (*shapes)[2];
  } else {
    for (std::size_t i = 0; i + 2 < src.size(); ++i) dst.push_back(std::max(src[i], wei[i]));
    dst.push_back(src[src.size() - 2]);
    dst.push_back(wei.back());
  }
  Elements e;
  const auto s = Product(src), w = Product(wei), d = Product(dst);
  if (!s || !w || !d) return std::nullopt;
  e.src = *s;
  e.wei = *w;
  e.dst = *d;
  // The bias's dimensions are the output's where its mask has a bit; without a mask, a row
  // of N (the common case).
  const std::optional<unsigned> mask = BiasMask(memory_descriptors);
  e.bia = static_cast<double>(dst.back());
  if (mask) {
    double bias = 1;
    for (std::size_t i = 0; i < dst.size(); ++i) {
      if ((*mask >> i) & 1u) bias *= static_cast<double>(dst[i]);
    }
    e.bia = bias;
  }
  return e;
}

std::optional<Elements> InnerProductElements(std::string_view problem) {
  const auto keys = verbose::ProblemKeys::Read(problem);
  if (!keys || !keys->OutOfRange().empty() || !keys->Has("ic") || !keys->Has("oc")) {
    return std::nullopt;
  }
  const double mb = static_cast<double>(keys->Dim("mb", 2));
  const double ic = static_cast<double>(keys->Dim("ic"));
  const double oc = static_cast<double>(keys->Dim("oc"));
  const double spatial =
      static_cast<double>(keys->Dim("id", 1) * keys->Dim("ih", 1) * keys->Dim("iw", 1));
  return Elements{mb * ic * spatial, oc * ic * spatial, oc, mb * oc};
}

std::optional<Elements> ConvolutionElements(std::string_view problem) {
  const auto keys = verbose::ProblemKeys::Read(problem);
  if (!keys || !keys->OutOfRange().empty() || !keys->Has("ic") || !keys->Has("oc")) {
    return std::nullopt;
  }
  const std::int64_t g = std::max<std::int64_t>(1, keys->Dim("g", 1));
  const double mb = static_cast<double>(keys->Dim("mb", 2));
  const double ic = static_cast<double>(keys->Dim("ic"));
  const double oc = static_cast<double>(keys->Dim("oc"));
  // benchdnn's defaults: a missing output size is the input's, a missing kernel 1 (a 1D or 2D
  // problem leaves the depth out).
  auto in = [&](const char* axis) { return static_cast<double>(keys->Dim(axis, 1)); };
  auto out = [&](const char* axis, const char* input) {
    return static_cast<double>(keys->Dim(axis, keys->Dim(input, 1)));
  };
  const double input = in("id") * in("ih") * in("iw");
  const double output = out("od", "id") * out("oh", "ih") * out("ow", "iw");
  const double kernel = in("kd") * in("kh") * in("kw");
  return Elements{mb * ic * input, oc * (ic / static_cast<double>(g)) * kernel, oc,
                  mb * oc * output};
}

}  // namespace

std::optional<int> DataTypeBytes(std::string_view dt) {
  if (dt == "f32" || dt == "s32") return 4;
  if (dt == "f64") return 8;
  if (dt == "bf16" || dt == "f16") return 2;
  if (dt == "s8" || dt == "u8" || dt == "f8_e5m2" || dt == "f8_e4m3" || dt == "boolean") return 1;
  return std::nullopt;
}

std::string ArgumentDataType(std::string_view data_types, std::string_view argument) {
  std::size_t at = 0;
  while (at < data_types.size()) {
    std::size_t end = data_types.find(' ', at);
    if (end == std::string_view::npos) end = data_types.size();
    const std::string_view token = data_types.substr(at, end - at);
    at = end + 1;
    if (token.size() > argument.size() && token.substr(0, argument.size()) == argument &&
        token[argument.size()] == ':') {
      return std::string(token.substr(argument.size() + 1));
    }
  }
  return {};
}

std::string ComputeDataType(std::string_view data_types) {
  std::string dt = ArgumentDataType(data_types, "wei");
  if (dt.empty() || dt == "undef") dt = ArgumentDataType(data_types, "src");
  if (dt == "s8" || dt == "u8") return "int8";
  if (dt == "f32" || dt == "bf16" || dt == "f16") return dt;
  return {};
}

std::optional<double> BytesPerCall(std::string_view primitive, std::string_view problem,
                                   std::string_view data_types,
                                   std::string_view memory_descriptors) {
  std::optional<Elements> e;
  using onednn::Kind;
  const std::optional<Kind> kind = onednn::KindOf(primitive);
  if (kind == Kind::kMatmul) {
    e = MatmulElements(problem, memory_descriptors);
  } else if (kind == Kind::kInnerProduct) {
    e = InnerProductElements(problem);
  } else if (kind == Kind::kConvolution || kind == Kind::kDeconvolution) {
    e = ConvolutionElements(problem);
  }
  if (!e) return std::nullopt;
  const auto src = DataTypeBytes(ArgumentDataType(data_types, "src"));
  const auto wei = DataTypeBytes(ArgumentDataType(data_types, "wei"));
  const auto dst = DataTypeBytes(ArgumentDataType(data_types, "dst"));
  if (!src || !wei || !dst) return std::nullopt;
  double bytes = e->src * *src + e->wei * *wei + e->dst * *dst;
  if (const auto bia = DataTypeBytes(ArgumentDataType(data_types, "bia"))) bytes += e->bia * *bia;
  return bytes;
}

const char* BoundName(Bound bound) {
  return bound == Bound::kMemory ? "memory" : "compute";
}

std::optional<Placement> Place(double flops, double bytes, double seconds, const Roofs& roofs) {
  if (!(flops > 0) || !(bytes > 0) || !(seconds > 0) || !(roofs.memory_gbps > 0) ||
      !(roofs.peak_gflops > 0)) {
    return std::nullopt;
  }
  Placement p;
  p.intensity = flops / bytes;
  p.achieved_gflops = flops / seconds / 1e9;
  p.achieved_gbps = bytes / seconds / 1e9;
  p.memory_roof_gflops = roofs.memory_gbps * p.intensity;
  p.bound = p.memory_roof_gflops < roofs.peak_gflops ? Bound::kMemory : Bound::kCompute;
  p.roof_gflops = std::min(p.memory_roof_gflops, roofs.peak_gflops);
  p.fraction = p.achieved_gflops / p.roof_gflops;
  return p;
}

}  // namespace dlcheck::roofline
