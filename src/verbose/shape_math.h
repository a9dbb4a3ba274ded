// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one home of the arithmetic on the dimensions a log gives: every module that multiplies,
// adds or divides them (flops, whatif's rebuild, layouts and measurement, the benchdnn line)
// checks them here first. A log is input from anyone: `ic4294967296`, `g0`, a matmul batch of
// 2^62 or a shape whose element count wraps to 0 in 64 bits must give a reason, never a
// division by zero, an overflow, or a wrapped size measured as if small.
//
//   ShapeProblem({64, 3, 224, 224})          -> "" (a shape dlcheck can work with)
//   ShapeProblem({0, 4})                      -> "a dimension of 0 (an empty tensor)"
//   ShapeProblem({4294967296, 1})             -> "dimension 4294967296 is above 2147483647, ..."
//   ProblemOutOfRange("mb2_ic4294967296oc8_ih7oh7kh1") -> "ic 4294967296 is above ..."
//   CheckedMultiply(1 << 62, 4)               -> nullopt

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck::verbose {

/// The largest dimension dlcheck computes with: 2^31 - 1. oneDNN's descriptors hold dnnl_dim_t
/// (64 bits), but its kernels index a dimension with an int; benchdnn does the same.
inline constexpr std::int64_t kMaxDimension = (std::int64_t{1} << 31) - 1;
/// The most elements of one tensor: 2^48, so that its bytes (8 at most per element), padded to
/// its blocks, stay far inside dnnl_dim_t's 2^63.
inline constexpr std::int64_t kMaxElements = std::int64_t{1} << 48;

/// a * b, a + b and a - b; nullopt where the result leaves the 64-bit range.
std::optional<std::int64_t> CheckedMultiply(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> CheckedAdd(std::int64_t a, std::int64_t b);
std::optional<std::int64_t> CheckedSubtract(std::int64_t a, std::int64_t b);

/// The product of `dims`; nullopt when one is negative or the product leaves 64 bits.
std::optional<std::int64_t> CheckedProduct(const std::vector<std::int64_t>& dims);

/// "" when `value`, a dimension called `name` (`ic`, `dimension`), is in [0, kMaxDimension];
/// else why not, naming it and the bound.
std::string DimensionProblem(std::string_view name, std::int64_t value);

/// "" when `dims` is the shape of a tensor dlcheck can build: every dimension in
/// [1, kMaxDimension] and at most kMaxElements elements; else why not (the first rule broken).
std::string ShapeProblem(const std::vector<std::int64_t>& dims);

/// "" when every number of a problem descriptor (the keyed form `mb2ic16...` or the shapes
/// `2x3:3x4`) is a dimension in [0, kMaxDimension] and each shape has at most kMaxElements
/// elements; else why not. Text that is neither form, and run-time dimensions, give "" (their
/// readers refuse them with reasons of their own). Zero passes: `0x4` is a framework's empty
/// tensor, a row to count, with no work to measure.
std::string ProblemOutOfRange(std::string_view problem);

}  // namespace dlcheck::verbose
