// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the arithmetic on a log's dimensions (verbose/shape_math.h) and the
// readers and users of it: the input is a problem descriptor, optionally followed by `|` and a
// memory tag. The problem goes through both problem readers, the range check, the flops of every
// kind and, when its first shape is one dlcheck builds, whatif's memory descriptor of that tag
// (layout.cpp's blocks, padding and strides). Nothing may crash or overflow (UBSan), and what
// the checks let through must keep their promises: an accepted shape has at most 2^48 elements,
// its descriptor at least as many bytes, and every flops figure is finite.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "verbose/flops.h"
#include "verbose/line_parser.h"
#include "verbose/problem_keys.h"
#include "verbose/shape_math.h"
#include "whatif/layout.h"

using namespace dlcheck::verbose;

namespace {

void Require(bool condition) {
  if (!condition) std::abort();
}

void CheckFlops(std::string_view problem) {
  const bool in_range = ProblemOutOfRange(problem).empty();
  for (std::string_view kind : {"convolution", "deconvolution", "inner_product", "matmul", "rnn"}) {
    const std::optional<double> flops =
        FlopsOf(kind, problem, "alg:vanilla_lstm direction:bidirectional_concat", "backward");
    if (flops) Require(in_range && std::isfinite(*flops) && *flops >= 0);
  }
}

void CheckLayout(const std::vector<std::int64_t>& dims, std::string_view tag) {
  if (!ShapeProblem(dims).empty() || dims.size() > DNNL_MAX_NDIMS) return;
  const MemoryDesc md{.name = "src",
                      .data_type = "f32",
                      .format_kind = "blocked",
                      .tag = std::string(tag),
                      .flags = "f0"};
  const dlcheck::StatusOr<dnnl::memory::desc> desc = dlcheck::whatif::MakeMemoryDesc(dims, md);
  if (!desc.ok()) return;
  const std::int64_t elements = *CheckedProduct(dims);
  Require(desc->get_size() >= static_cast<std::size_t>(elements) * sizeof(float));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const std::size_t bar = input.find('|');
  const std::string_view problem = input.substr(0, bar);
  const std::string_view tag = bar == std::string_view::npos ? "" : input.substr(bar + 1);
  CheckFlops(problem);
  if (const std::optional<ProblemKeys> keys = ProblemKeys::Read(problem)) {
    (void)keys->OutOfRange();
    (void)ReadRnnProblem(problem);
  }
  if (const auto shapes = ReadProblemShapes(problem)) {
    for (const std::vector<std::int64_t>& dims : *shapes) {
      if (ShapeProblem(dims).empty()) Require(*CheckedProduct(dims) <= kMaxElements);
    }
    if (!tag.empty()) CheckLayout(shapes->front(), tag);
  }
  return 0;
}
