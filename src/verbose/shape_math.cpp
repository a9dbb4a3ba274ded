// SPDX-License-Identifier: Apache-2.0
#include "verbose/shape_math.h"

#include "verbose/problem_keys.h"

namespace dlcheck::verbose {

std::optional<std::int64_t> CheckedMultiply(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

std::optional<std::int64_t> CheckedAdd(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

std::optional<std::int64_t> CheckedSubtract(std::int64_t a, std::int64_t b) {
  std::int64_t difference = 0;
  if (__builtin_sub_overflow(a, b, &difference)) return std::nullopt;
  return difference;
}

std::optional<std::int64_t> CheckedProduct(const std::vector<std::int64_t>& dims) {
  std::int64_t product = 1;
  for (std::int64_t d : dims) {
    if (d < 0) return std::nullopt;
    const std::optional<std::int64_t> next = CheckedMultiply(product, d);
    if (!next) return std::nullopt;
    product = *next;
  }
  return product;
}

std::string DimensionProblem(std::string_view name, std::int64_t value) {
  if (value < 0) return std::string(name) + " " + std::to_string(value) + " is negative";
  if (value > kMaxDimension) {
    return std::string(name) + " " + std::to_string(value) + " is above " +
           std::to_string(kMaxDimension) + ", the largest dimension oneDNN's kernels index";
  }
  return {};
}

namespace {

// "" when the elements of `dims` (each already in range) are at most kMaxElements.
std::string ElementsProblem(const std::vector<std::int64_t>& dims) {
  const std::optional<std::int64_t> elements = CheckedProduct(dims);
  if (!elements || *elements > kMaxElements) {
    return "the shape has more than 2^48 elements (" + std::to_string(kMaxElements) + ")";
  }
  return {};
}

}  // namespace

std::string ShapeProblem(const std::vector<std::int64_t>& dims) {
  for (std::int64_t d : dims) {
    if (std::string why = DimensionProblem("dimension", d); !why.empty()) return why;
  }
  for (std::int64_t d : dims) {
    if (d == 0) return "a dimension of 0 (an empty tensor: no work to measure)";
  }
  return ElementsProblem(dims);
}

std::string ProblemOutOfRange(std::string_view problem) {
  if (const std::optional<std::vector<std::vector<std::int64_t>>> shapes =
          ReadProblemShapes(problem)) {
    for (const std::vector<std::int64_t>& dims : *shapes) {
      for (std::int64_t d : dims) {
        if (std::string why = DimensionProblem("dimension", d); !why.empty()) return why;
      }
      if (std::string why = ElementsProblem(dims); !why.empty()) return why;
    }
    return {};
  }
  if (const std::optional<ProblemKeys> keys = ProblemKeys::Read(problem)) return keys->OutOfRange();
  return {};
}

}  // namespace dlcheck::verbose
