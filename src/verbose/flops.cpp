// SPDX-License-Identifier: Apache-2.0
#include "verbose/flops.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/primitive_kinds.h"
#include "verbose/problem_keys.h"
#include "verbose/shape_math.h"

namespace dlcheck::verbose {
namespace {

// A loop over one spatial dimension's positions or taps longer than this is no real problem.
constexpr std::int64_t kMaxLoop = std::int64_t{1} << 24;

// floor(a / b) and ceil(a / b) for b > 0, any sign of a.
std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}
std::int64_t CeilDiv(std::int64_t a, std::int64_t b) {
  return -FloorDiv(-a, b);
}

// One spatial dimension of a convolution as benchdnn counts it: `positions` outputs, each
// reading the kernel's taps k at position * stride - pad + k * step of an input of `extent`.
struct Axis {
  std::int64_t positions = 1, extent = 1, kernel = 1, stride = 1, step = 1, pad = 0;
};

// The taps, over all positions, that land inside the input: per position, the taps k with
// 0 <= o * stride - pad + k * step < extent form one range; summed over positions (or, when
// the kernel is the shorter loop, the positions of each tap summed over taps). nullopt for a
// dimension no convolution has.
std::optional<double> ValidTaps(const Axis& a) {
  if (a.positions < 0 || a.extent < 0 || a.kernel < 0 || a.stride < 1 || a.step < 1)
    return std::nullopt;
  if (std::min(a.positions, a.kernel) > kMaxLoop) return std::nullopt;
  double taps = 0;
  if (a.positions <= a.kernel) {
    for (std::int64_t o = 0; o < a.positions; ++o) {
      const std::int64_t base = o * a.stride - a.pad;
      const std::int64_t lo = std::max<std::int64_t>(0, CeilDiv(-base, a.step));
      const std::int64_t hi = std::min(a.kernel - 1, FloorDiv(a.extent - 1 - base, a.step));
      taps += static_cast<double>(std::max<std::int64_t>(0, hi - lo + 1));
    }
  } else {
    for (std::int64_t k = 0; k < a.kernel; ++k) {
      const std::int64_t base = k * a.step - a.pad;
      const std::int64_t lo = std::max<std::int64_t>(0, CeilDiv(-base, a.stride));
      const std::int64_t hi = std::min(a.positions - 1, FloorDiv(a.extent - 1 - base, a.stride));
      taps += static_cast<double>(std::max<std::int64_t>(0, hi - lo + 1));
    }
  }
  return taps;
}

// benchdnn's count: 2 * mb * oc * ic / g * the taps inside the input over all output positions,
// a product of one sum per spatial dimension. A deconvolution is counted as the convolution it
// transposes: its input positions read taps of its output.
std::optional<double> ConvFlops(std::string_view problem, bool deconvolution) {
  const std::optional<ProblemKeys> k = ProblemKeys::Read(problem);
  if (!k || !k->Has("mb") || !k->Has("ic") || !k->Has("oc")) return std::nullopt;
  const std::int64_t g = k->Dim("g", 1);
  if (g <= 0) return std::nullopt;
  double taps = 1;
  for (const char* s : {"d", "h", "w"}) {
    const std::string d(s);
    const std::int64_t in = k->Dim("i" + d, 1), out = k->Dim("o" + d, 1);
    const std::optional<double> axis_taps = ValidTaps({.positions = deconvolution ? in : out,
                                                       .extent = deconvolution ? out : in,
                                                       .kernel = k->Dim("k" + d, 1),
                                                       .stride = k->Dim("s" + d, 1),
                                                       .step = k->Dim("d" + d, 0) + 1,
                                                       .pad = k->Dim("p" + d, 0)});
    if (!axis_taps) return std::nullopt;
    taps *= *axis_taps;
  }
  return 2.0 * static_cast<double>(k->Dim("mb")) * static_cast<double>(k->Dim("oc")) *
         (static_cast<double>(k->Dim("ic")) / static_cast<double>(g)) * taps;
}

std::optional<double> InnerProductFlops(std::string_view problem) {
  const std::optional<ProblemKeys> k = ProblemKeys::Read(problem);
  if (!k || !k->Has("mb") || !k->Has("ic") || !k->Has("oc")) return std::nullopt;
  const double spatial = static_cast<double>(k->Dim("id", 1)) *
                         static_cast<double>(k->Dim("ih", 1)) *
                         static_cast<double>(k->Dim("iw", 1));
  return 2.0 * static_cast<double>(k->Dim("mb")) * static_cast<double>(k->Dim("ic")) * spatial *
         static_cast<double>(k->Dim("oc"));
}

std::optional<double> MatmulFlops(std::string_view problem) {
  if (problem.starts_with("b") || problem.starts_with("m")) {
    // 1.2-1.7 and 2.0: `[b<B>]m<M>n<N>k<K>`.
    const std::optional<ProblemKeys> k = ProblemKeys::Read(problem);
    if (!k || !k->Has("m") || !k->Has("n") || !k->Has("k")) return std::nullopt;
    return 2.0 * static_cast<double>(k->Dim("b", 1)) * static_cast<double>(k->Dim("m")) *
           static_cast<double>(k->Dim("n")) * static_cast<double>(k->Dim("k"));
  }
  // `src:wei[:dst]` dims, `AxBxMxK:AxBxKxN`; batch dims broadcast.
  const std::optional<std::vector<std::vector<std::int64_t>>> shapes = ReadProblemShapes(problem);
  if (!shapes || shapes->size() < 2) return std::nullopt;
  const std::vector<std::int64_t>& src = (*shapes)[0];
  const std::vector<std::int64_t>& wei = (*shapes)[1];
  if (src.size() < 2 || wei.size() != src.size()) return std::nullopt;
  const std::size_t r = src.size();
  const double m = static_cast<double>(src[r - 2]), k = static_cast<double>(src[r - 1]),
               n = static_cast<double>(wei[r - 1]);
  if (wei[r - 2] != src[r - 1]) return std::nullopt;
  double batch = 1;
  for (std::size_t i = 0; i + 2 < r; ++i) batch *= static_cast<double>(std::max(src[i], wei[i]));
  return 2.0 * batch * m * n * k;
}

// benchdnn's count for an rnn: per layer, direction, time step and gate, the two products of the
// layer and iteration inputs with their weights, 2 * mb * dhc * (slc + sic) (slc for every layer,
// as benchdnn counts it); an lstm with projection (dic != dhc) adds 2 * mb * dhc * dic per step.
// Peephole and attention are not counted; a backward pass counts twice the forward one.
std::optional<double> RnnFlops(std::string_view problem, std::string_view auxiliary,
                               std::string_view prop_kind) {
  const std::optional<RnnProblem> p = ReadRnnProblem(problem);
  const std::string_view alg = AuxiliaryValue(auxiliary, "alg");
  if (!p) return std::nullopt;
  int gates = 0;
  if (alg == "vanilla_rnn") gates = 1;
  if (alg == "vanilla_lstm") gates = 4;
  if (alg == "vanilla_gru" || alg == "lbr_gru" || alg == "vanilla_augru" || alg == "lbr_augru")
    gates = 3;
  if (gates == 0) return std::nullopt;
  const double dirs = AuxiliaryValue(auxiliary, "direction").starts_with("bidirectional") ? 2 : 1;
  const double sic = static_cast<double>(p->sic), slc = static_cast<double>(p->slc),
               dhc = static_cast<double>(p->dhc), dic = static_cast<double>(p->dic);
  const double steps =
      static_cast<double>(p->l) * dirs * static_cast<double>(p->t) * static_cast<double>(p->mb);
  double ops = 2.0 * steps * gates * dhc * (slc + sic);
  if (gates == 4 && dic != dhc) ops += 2.0 * steps * dhc * dic;
  return prop_kind.starts_with("backward") ? 2 * ops : ops;
}

}  // namespace

std::optional<double> FlopsOf(std::string_view primitive, std::string_view problem,
                              std::string_view auxiliary, std::string_view prop_kind) {
  // Every dimension at most kMaxDimension (shape_math.h): the loops and products below neither
  // overflow nor run for ever, and the count is finite.
  if (!ProblemOutOfRange(problem).empty()) return std::nullopt;
  using onednn::Kind;
  switch (onednn::KindOf(primitive).value_or(Kind::kReorder)) {
    case Kind::kRnn:
      return RnnFlops(problem, auxiliary, prop_kind);
    case Kind::kConvolution:
      return ConvFlops(problem, false);
    case Kind::kDeconvolution:
      return ConvFlops(problem, true);
    case Kind::kInnerProduct:
      return InnerProductFlops(problem);
    case Kind::kMatmul:
      return MatmulFlops(problem);
    default:
      return std::nullopt;
  }
}

}  // namespace dlcheck::verbose
