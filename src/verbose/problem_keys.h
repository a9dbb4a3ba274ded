#pragma once
// The problem field of a verbose line, read once for every module that needs its numbers: the
// keyed form of convolution, pooling, inner product, normalization and lrn problems, and the
// shapes of the others.
//
//   ProblemKeys::Read("mb64_ic1oc20_ih28oh24kh5sh1dh0ph0_iw28ow24kw5sw1dw0pw0")
//     -> Dim("mb") 64, Dim("kh") 5, Has("id") false
//   ProblemKeys::Read("mb2ic16ih7iw7ls5beta0.75")  -> Dim("ls") 5, Value("beta") 0.75
//   ReadProblemShape("4x8x16")                     -> {4, 8, 16}

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

 private:
  std::map<std::string, double, std::less<>> values_;
};

/// `4x8x16` -> {4, 8, 16}; nullopt for `*`, a negative or any other text.
std::optional<std::vector<std::int64_t>> ReadProblemShape(std::string_view text);

/// The shapes of a problem with several tensors: `2x16x7x7:1x16x1x1`; nullopt when one of them
/// cannot be read.
std::optional<std::vector<std::vector<std::int64_t>>> ReadProblemShapes(std::string_view text);

}  // namespace dlcheck::verbose
