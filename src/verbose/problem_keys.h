// SPDX-License-Identifier: Apache-2.0
#pragma once
// The problem field of a verbose line, read once for every module that needs its numbers: the
// keyed form of convolution, pooling, inner product, normalization and lrn problems, and the
// shapes of the others.
//
//   ProblemKeys::Read("mb64_ic1oc20_ih28oh24kh5sh1dh0ph0_iw28ow24kw5sw1dw0pw0")
//     -> Dim("mb") 64, Dim("kh") 5, Has("id") false
//   ProblemKeys::Read("mb2ic16ih7iw7ls5beta0.75")  -> Dim("ls") 5, Value("beta") 0.75
//   ReadProblemShape("4x8x16")                     -> {4, 8, 16}
//   ReadRnnProblem("l1t3mb2sic8")                   -> l 1, t 3, mb 2, sic slc dhc dic 8
//   AuxiliaryValue("alg:vanilla_lstm direction:bidirectional_sum", "direction")
//                                                  -> "bidirectional_sum"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck::verbose {

/// The `<letters><number>` pairs of a benchdnn-style problem (`_` separates groups).
class ProblemKeys {
 public:
  /// nullopt when a value is not a plain non-negative number (`*`: a run-time dimension,
  /// `-9223...`: an unset one) or a key has no value.
  static std::optional<ProblemKeys> Read(std::string_view text);

  bool Has(std::string_view key) const { return values_.find(key) != values_.end(); }
  /// The value of `key` as a dimension (a fraction dropped), `fallback` when absent.
  std::int64_t Dim(std::string_view key, std::int64_t fallback = 0) const;
  /// The value of `key` as printed (lrn's `beta0.75`), `fallback` when absent.
  double Value(std::string_view key, double fallback) const;
  /// "" when every value is a dimension dlcheck computes with (at most kMaxDimension,
  /// verbose/shape_math.h), else why not: `ic 4294967296 is above 2147483647, ...`.
  std::string OutOfRange() const;

 private:
  std::map<std::string, double, std::less<>> values_;
};

/// `4x8x16` -> {4, 8, 16}; nullopt for `*`, a negative or any other text.
std::optional<std::vector<std::int64_t>> ReadProblemShape(std::string_view text);

/// The shapes of a problem with several tensors: `2x16x7x7:1x16x1x1`; nullopt when one of them
/// cannot be read.
std::optional<std::vector<std::vector<std::int64_t>>> ReadProblemShapes(std::string_view text);

/// The sizes of an rnn problem (`l1t3mb2sic8slc8dhc8dic8`, benchdnn's keys: layers, time steps,
/// batch, the channels of src_iter, src_layer, the hidden state and dst_iter), with benchdnn's
/// defaults for the keys a line may leave out (l 1, t 1, mb 2, slc and dhc sic, dic dhc).
struct RnnProblem {
  std::int64_t l = 1, t = 1, mb = 2, sic = 0, slc = 0, dhc = 0, dic = 0;
};
/// nullopt when the problem names no sic or has a run-time dimension.
std::optional<RnnProblem> ReadRnnProblem(std::string_view text);

/// The value of `key` in an auxiliary field of `key:value` pairs (`alg:eltwise_relu alpha:0`),
/// "" when absent.
std::string_view AuxiliaryValue(std::string_view aux, std::string_view key);

}  // namespace dlcheck::verbose
