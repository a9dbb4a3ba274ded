#include "verbose/flops.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <vector>

namespace dlcheck::verbose {
namespace {

// The benchdnn-style keys of a problem string: `g32mb1_ic32oc32_ih56oh56kh3...`.
struct Dims {
  // g mb ic oc id od kd ih oh kh iw ow kw
  std::array<double, 13> value{};
  std::array<bool, 13> seen{};
};

int KeyIndex(std::string_view key) {
  static constexpr std::array<std::string_view, 13> kKeys = {
      "g", "mb", "ic", "oc", "id", "od", "kd", "ih", "oh", "kh", "iw", "ow", "kw"};
  for (std::size_t i = 0; i < kKeys.size(); ++i) {
    if (kKeys[i] == key) return static_cast<int>(i);
  }
  return -1;
}

// Reads `<letters><digits>` pairs; false when a value is not a plain non-negative number.
bool ReadDims(std::string_view text, Dims& dims) {
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '_') {
      ++i;
      continue;
    }
    const std::size_t key_start = i;
    while (i < text.size() && text[i] >= 'a' && text[i] <= 'z') ++i;
    const std::string_view key = text.substr(key_start, i - key_start);
    const std::size_t num_start = i;
    while (i < text.size() && ((text[i] >= '0' && text[i] <= '9') || text[i] == '.')) ++i;
    if (key.empty() || num_start == i) return false;  // `*`, `-9223...`, other characters
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + num_start, text.data() + i, v);
    if (ec != std::errc()) return false;
    const int k = KeyIndex(key);
    if (k >= 0) {
      dims.value[k] = v;
      dims.seen[k] = true;
    }
  }
  return true;
}

double Get(const Dims& d, int k, double fallback) {
  return d.seen[k] ? d.value[k] : fallback;
}

std::optional<double> ConvFlops(std::string_view problem, bool deconvolution) {
  Dims d;
  if (!ReadDims(problem, d)) return std::nullopt;
  enum { G, MB, IC, OC, ID, OD, KD, IH, OH, KH, IW, OW, KW };
  if (!d.seen[MB] || !d.seen[IC] || !d.seen[OC]) return std::nullopt;
  const double g = Get(d, G, 1);
  if (g <= 0) return std::nullopt;
  const double kernel = Get(d, KD, 1) * Get(d, KH, 1) * Get(d, KW, 1);
  if (deconvolution) {
    // Each input point scatters into kernel * oc/g outputs.
    const double in = Get(d, ID, 1) * Get(d, IH, 1) * Get(d, IW, 1);
    return 2.0 * d.value[MB] * d.value[IC] * (d.value[OC] / g) * in * kernel;
  }
  const double out = Get(d, OD, 1) * Get(d, OH, 1) * Get(d, OW, 1);
  return 2.0 * d.value[MB] * d.value[OC] * (d.value[IC] / g) * out * kernel;
}

std::optional<double> InnerProductFlops(std::string_view problem) {
  Dims d;
  if (!ReadDims(problem, d)) return std::nullopt;
  enum { G, MB, IC, OC, ID, OD, KD, IH, OH, KH, IW, OW, KW };
  if (!d.seen[MB] || !d.seen[IC] || !d.seen[OC]) return std::nullopt;
  const double spatial = Get(d, ID, 1) * Get(d, IH, 1) * Get(d, IW, 1);
  return 2.0 * d.value[MB] * d.value[IC] * spatial * d.value[OC];
}

bool ReadShape(std::string_view text, std::vector<double>& shape) {
  shape.clear();
  while (true) {
    const std::size_t x = text.find('x');
    const std::string_view part = text.substr(0, x);
    double v = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || v < 0) {
      return false;
    }
    shape.push_back(v);
    if (x == std::string_view::npos) return true;
    text.remove_prefix(x + 1);
  }
}

std::optional<double> MatmulFlops(std::string_view problem) {
  if (problem.starts_with("b") || problem.starts_with("m")) {
    // 1.2-1.7 and 2.0: `[b<B>]m<M>n<N>k<K>`.
    double b = 1, m = 0, n = 0, k = 0;
    bool has_m = false, has_n = false, has_k = false;
    std::size_t i = 0;
    while (i < problem.size()) {
      const char key = problem[i++];
      const std::size_t start = i;
      while (i < problem.size() && problem[i] >= '0' && problem[i] <= '9') ++i;
      double v = 0;
      const auto [ptr, ec] = std::from_chars(problem.data() + start, problem.data() + i, v);
      if (start == i || ec != std::errc()) return std::nullopt;
      if (key == 'b')
        b = v;
      else if (key == 'm')
        m = v, has_m = true;
      else if (key == 'n')
        n = v, has_n = true;
      else if (key == 'k')
        k = v, has_k = true;
      else
        return std::nullopt;
    }
    if (!has_m || !has_n || !has_k) return std::nullopt;
    return 2.0 * b * m * n * k;
  }
  // `src:wei[:dst]` dims, `AxBxMxK:AxBxKxN`; batch dims broadcast.
  const std::size_t colon = problem.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  std::string_view wei_text = problem.substr(colon + 1);
  wei_text = wei_text.substr(0, wei_text.find(':'));
  std::vector<double> src, wei;
  if (!ReadShape(problem.substr(0, colon), src) || !ReadShape(wei_text, wei)) return std::nullopt;
  if (src.size() < 2 || wei.size() != src.size()) return std::nullopt;
  const std::size_t r = src.size();
  const double m = src[r - 2], k = src[r - 1], n = wei[r - 1];
  if (wei[r - 2] != k) return std::nullopt;
  double batch = 1;
  for (std::size_t i = 0; i + 2 < r; ++i) batch *= std::max(src[i], wei[i]);
  return 2.0 * batch * m * n * k;
}

}  // namespace

std::optional<double> FlopsOf(std::string_view primitive, std::string_view problem) {
  if (primitive == "convolution") return ConvFlops(problem, false);
  if (primitive == "deconvolution") return ConvFlops(problem, true);
  if (primitive == "inner_product") return InnerProductFlops(problem);
  if (primitive == "matmul") return MatmulFlops(problem);
  return std::nullopt;
}

}  // namespace dlcheck::verbose
