// SPDX-License-Identifier: Apache-2.0
#include "verbose/problem_keys.h"

#include <charconv>
#include <cmath>

#include "verbose/shape_math.h"

namespace dlcheck::verbose {
namespace {

bool IsLower(char c) {
  return c >= 'a' && c <= 'z';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// Above this no dimension is real, and a cast to an integer would overflow.
constexpr double kMaxValue = 1e15;

}  // namespace

std::optional<ProblemKeys> ProblemKeys::Read(std::string_view text) {
  ProblemKeys keys;
  std::size_t i = 0;
  while (i < text.size()) {
    if (text[i] == '_') {
      ++i;
      continue;
    }
    const std::size_t key_start = i;
    while (i < text.size() && IsLower(text[i])) ++i;
    const std::size_t num_start = i;
    while (i < text.size() && IsDigit(text[i])) ++i;
    // `beta0.75` of lrn: a fraction after the digits.
    if (i + 1 < text.size() && text[i] == '.' && IsDigit(text[i + 1])) {
      ++i;
      while (i < text.size() && IsDigit(text[i])) ++i;
    }
    if (key_start == num_start || num_start == i) return std::nullopt;
    double v = 0;
    const auto [ptr, ec] = std::from_chars(text.data() + num_start, text.data() + i, v);
    if (ec != std::errc() || ptr != text.data() + i || v > kMaxValue) return std::nullopt;
    keys.values_.insert_or_assign(std::string(text.substr(key_start, num_start - key_start)), v);
  }
  return keys;
}

std::int64_t ProblemKeys::Dim(std::string_view key, std::int64_t fallback) const {
  const auto it = values_.find(key);
  return it == values_.end() ? fallback : static_cast<std::int64_t>(std::floor(it->second));
}

double ProblemKeys::Value(std::string_view key, double fallback) const {
  const auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

std::string ProblemKeys::OutOfRange() const {
  for (const auto& [key, value] : values_) {
    if (std::string why = DimensionProblem(key, Dim(key)); !why.empty()) return why;
  }
  return {};
}

std::optional<std::vector<std::int64_t>> ReadProblemShape(std::string_view text) {
  std::vector<std::int64_t> dims;
  while (true) {
    const std::size_t x = text.find('x');
    const std::string_view part = text.substr(0, x);
    std::int64_t v = 0;
    const auto [ptr, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (part.empty() || ec != std::errc() || ptr != part.data() + part.size() || v < 0)
      return std::nullopt;
    dims.push_back(v);
    if (x == std::string_view::npos) return dims;
    text.remove_prefix(x + 1);
  }
}

std::optional<std::vector<std::vector<std::int64_t>>> ReadProblemShapes(std::string_view text) {
  std::vector<std::vector<std::int64_t>> shapes;
  while (true) {
    const std::size_t colon = text.find(':');
    std::optional<std::vector<std::int64_t>> dims = ReadProblemShape(text.substr(0, colon));
    if (!dims) return std::nullopt;
    shapes.push_back(std::move(*dims));
    if (colon == std::string_view::npos) return shapes;
    text.remove_prefix(colon + 1);
  }
}

std::optional<RnnProblem> ReadRnnProblem(std::string_view text) {
  const std::optional<ProblemKeys> k = ProblemKeys::Read(text);
  if (!k || !k->Has("sic")) return std::nullopt;
  RnnProblem p;
  p.l = k->Dim("l", p.l);
  p.t = k->Dim("t", p.t);
  p.mb = k->Dim("mb", p.mb);
  p.sic = k->Dim("sic");
  p.slc = k->Dim("slc", p.sic);
  p.dhc = k->Dim("dhc", p.sic);
  p.dic = k->Dim("dic", p.dhc);
  return p;
}

std::string_view AuxiliaryValue(std::string_view aux, std::string_view key) {
  while (!aux.empty()) {
    const std::size_t space = aux.find(' ');
    const std::string_view pair = aux.substr(0, space);
    if (pair.size() > key.size() && pair.starts_with(key) && pair[key.size()] == ':') {
      return pair.substr(key.size() + 1);
    }
    if (space == std::string_view::npos) break;
    aux.remove_prefix(space + 1);
  }
  return {};
}

}  // namespace dlcheck::verbose
