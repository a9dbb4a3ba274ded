// SPDX-License-Identifier: Apache-2.0
#include "verbose/benchdnn.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

#include "common/onednn_isa.h"
#include "common/primitive_kinds.h"
#include "common/propagation.h"
#include "verbose/aggregate.h"
#include "verbose/line_parser.h"
#include "verbose/problem_keys.h"
#include "verbose/shape_math.h"

namespace dlcheck::verbose {
namespace {

std::string_view DriverOf(std::string_view primitive) {
  return onednn::BenchdnnDriver(primitive);
}

// The tensors of a row by role; `diff_` prefixes and numbered sources fold into the role.
struct Tensors {
  std::vector<const MemoryDesc*> sources;  ///< src, src1, data (eltwise), diff_src ...
  const MemoryDesc* weights = nullptr;
  const MemoryDesc* bias = nullptr;
  const MemoryDesc* destination = nullptr;
};

bool Present(const MemoryDesc& md) {
  return md.format_kind != "undef" && md.data_type != "undef" && !md.data_type.empty();
}

std::string_view Role(std::string_view name) {
  if (name.substr(0, 5) == "diff_") name.remove_prefix(5);
  if (name == "data" || name.substr(0, 3) == "src") return "src";
  return name;
}

Tensors SortTensors(const std::vector<MemoryDesc>& mds) {
  Tensors tensors;
  for (const MemoryDesc& md : mds) {
    if (!Present(md)) continue;
    const std::string_view role = Role(md.name);
    if (role == "src") tensors.sources.push_back(&md);
    if (role == "wei" && tensors.weights == nullptr) tensors.weights = &md;
    if (role == "bia" && tensors.bias == nullptr) tensors.bias = &md;
    if (role == "dst" && tensors.destination == nullptr) tensors.destination = &md;
  }
  return tensors;
}

const MemoryDesc* FirstSource(const Tensors& tensors) {
  return tensors.sources.empty() ? nullptr : tensors.sources.front();
}

// The first present tensor called `name`, for the rnn driver's many tensors.
const MemoryDesc* Named(const std::vector<MemoryDesc>& mds, std::string_view name) {
  for (const MemoryDesc& md : mds) {
    if (md.name == name && Present(md)) return &md;
  }
  return nullptr;
}

// `f32:f32:f32` -> `f32` (benchdnn broadcasts one type to every tensor).
std::string JoinTypes(const std::vector<std::string_view>& types) {
  bool all_same = true;
  for (std::string_view type : types) all_same = all_same && type == types.front();
  if (all_same && !types.empty()) return std::string(types.front());
  std::string joined;
  for (std::string_view type : types) {
    if (!joined.empty()) joined.push_back(':');
    joined += type;
  }
  return joined;
}

// `f32`, `f32` -> `f32:f32`: drivers with one value per input (binary, sum, prelu) want each.
std::string JoinEach(const std::vector<std::string_view>& values) {
  std::string joined;
  for (std::string_view value : values) {
    if (!joined.empty()) joined.push_back(':');
    joined += value;
  }
  return joined;
}

// A 2.x `--cfg=`: one type when all agree and benchdnn 2.x names it so (`f32`, `f16`, and `s8`,
// `u8`, `s32`, `bf16` where the driver lists them), else the types run together (`u8s8s32`,
// `bf16bf16bf16`), as the cfg tables of benchdnn 2.6.3 spell them.
std::string Config(std::string_view driver, const std::vector<std::string_view>& types) {
  bool all_same = true;
  for (std::string_view type : types) all_same = all_same && type == types.front();
  const bool one_name = types.empty() || types.front() == "f32" || types.front() == "f16" ||
                        driver == "pool" || driver == "rnn";
  if (all_same && one_name) return types.empty() ? "" : std::string(types.front());
  std::string joined;
  for (std::string_view type : types) joined += type;
  return joined;
}

std::string_view TypeOf(const MemoryDesc* md) {
  return md == nullptr ? std::string_view{} : std::string_view(md->data_type);
}

std::string_view TagOf(const MemoryDesc* md) {
  return md == nullptr || md->tag.empty() ? std::string_view{} : std::string_view(md->tag);
}

// What a value may be at its place on a benchdnn line. A log is input from anyone: a field
// holding `$(...)`, a quote, a space or ` --batch=FILE` must reach neither a shell nor benchdnn
// as syntax, so every value is checked against what its option takes before it is written.
enum class ValueKind {
  kTypes,      ///< data type names (`f32`, `u8s8s32`, `bf16:f32`): [a-z0-9_] pieces joined by ':'
  kTags,       ///< memory tags (`aBcd16b`, `any`, `abcd:abcd`): [A-Za-z0-9] pieces joined by ':'
  kAttribute,  ///< `relu:0.5+sum:1`, `src:common:1*`: [A-Za-z0-9_.*-] fields by ':' and '+'
  kWord,       ///< an algorithm, a number, an engine: [A-Za-z0-9_.:+-]
};

// Generous bounds: the longest real value is a concat's tags, a few hundred bytes.
constexpr std::size_t kMaxValueBytes = 512;
constexpr std::size_t kMaxProblemBytes = 4096;

ValueKind KindOfFlag(std::string_view name) {
  if (name == "dt" || name == "sdt" || name == "ddt" || name == "cfg" || name == "bia-dt" ||
      name == "bia_dt") {
    return ValueKind::kTypes;
  }
  if (name == "stag" || name == "wtag" || name == "dtag" || name == "tag") return ValueKind::kTags;
  if (name.substr(0, 5) == "attr-" || name == "oflag") return ValueKind::kAttribute;
  return ValueKind::kWord;
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || IsDigit(c);
}

// A problem descriptor as verbose prints one (`mb16ic3ih224oc64oh112kh7sh2ph3`, `16x3x3x3`,
// `2x3:3x4`, `mb2ic16ih7iw7ls5beta0.75`): it starts like no option and holds no byte a shell or
// a batch file reads as syntax.
bool IsProblem(std::string_view problem) {
  if (problem.empty() || problem.size() > kMaxProblemBytes || !IsAlnum(problem.front())) {
    return false;
  }
  return std::all_of(problem.begin(), problem.end(), [](char c) {
    return IsAlnum(c) || c == '_' || c == '.' || c == ':' || c == '-';
  });
}

// Whether each piece of `value` between separators is non-empty and made of `allowed` bytes.
template <typename Allowed>
bool PiecesAre(std::string_view value, std::string_view separators, Allowed allowed) {
  if (value.empty() || value.size() > kMaxValueBytes) return false;
  bool piece_empty = true;
  for (char c : value) {
    if (separators.find(c) != std::string_view::npos) {
      if (piece_empty) return false;
      piece_empty = true;
    } else if (allowed(c)) {
      piece_empty = false;
    } else {
      return false;
    }
  }
  return !piece_empty;
}

// "" when `value` is one its option takes, else why not (for the `untranslated` comment).
std::string_view Invalid(ValueKind kind, std::string_view value) {
  switch (kind) {
    case ValueKind::kTypes:
      if (PiecesAre(value, ":",
                    [](char c) { return (c >= 'a' && c <= 'z') || IsDigit(c) || c == '_'; })) {
        return {};
      }
      return "not a data type name";
    case ValueKind::kTags:
      if (PiecesAre(value, ":", IsAlnum)) return {};
      return "not a memory tag";
    case ValueKind::kAttribute:
      if (PiecesAre(value, ":+", [](char c) {
            return IsAlnum(c) || c == '_' || c == '.' || c == '*' || c == '-';
          })) {
        return {};
      }
      return "not in benchdnn's attribute syntax";
    case ValueKind::kWord:
      if (PiecesAre(value, "", [](char c) {
            return IsAlnum(c) || c == '_' || c == '.' || c == ':' || c == '+' || c == '-';
          })) {
        return {};
      }
      return "not a value benchdnn takes there";
  }
  return "not a value benchdnn takes there";
}

// A shell word that stands for `word` whatever it holds: as it is when it has no byte a shell
// treats specially, else in single quotes (`1*` would be a glob).
std::string ShellWord(std::string_view word) {
  const bool plain = !word.empty() && std::all_of(word.begin(), word.end(), [](char c) {
    return IsAlnum(c) || std::string_view("_.,:+=/@%^-").find(c) != std::string_view::npos;
  });
  if (plain) return std::string(word);
  std::string quoted = "'";
  for (char c : word) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted.push_back(c);
    }
  }
  quoted.push_back('\'');
  return quoted;
}

// Builds the command as flags are added; empty values are left out, and so are values that are
// not what their option takes (each named in `untranslated`).
class CommandLine {
 public:
  explicit CommandLine(std::string_view driver) : driver_("--" + std::string(driver)) {}
  void Flag(std::string_view name, std::string_view value) {
    if (value.empty()) return;
    if (const std::string_view why = Invalid(KindOfFlag(name), value); !why.empty()) {
      untranslated_.push_back("--" + std::string(name) + ": " + std::string(why) + " (" +
                              BenchdnnCommentText(value, 40) + ")");
      return;
    }
    options_.push_back("--" + std::string(name) + "=" + std::string(value));
  }
  void Finish(std::string_view problem) { options_.emplace_back(problem); }
  const std::string& driver() const { return driver_; }
  std::vector<std::string>& options() { return options_; }
  std::vector<std::string>& untranslated() { return untranslated_; }

 private:
  std::string driver_;
  std::vector<std::string> options_;
  std::vector<std::string> untranslated_;
};

std::string_view StripPrefix(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix ? text.substr(prefix.size()) : text;
}

std::string Upper(std::string_view text) {
  std::string upper(text);
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

// A oneDNN mask as a benchdnn policy: 0 common, 1 per_dim_0, 2 per_dim_1, 3 per_dim_01, ...
std::string_view PolicyOfMask(std::string_view mask) {
  constexpr std::array<std::string_view, 9> kPolicies{
      "common", "per_dim_0", "per_dim_1", "per_dim_01", "per_dim_2", "", "", "", "per_dim_3"};
  char* end = nullptr;
  const std::string digits(mask);
  const long value = std::strtol(digits.c_str(), &end, 10);
  if (digits.empty() || *end != '\0' || value < 0 || value >= 9) return {};
  return kPolicies[static_cast<std::size_t>(value)];
}

// Calls `each` for every piece of `list` split at `separator`.
template <typename Each>
void ForEachPiece(std::string_view list, char separator, Each each) {
  while (!list.empty()) {
    const std::size_t at = list.find(separator);
    if (!list.substr(0, at).empty()) each(list.substr(0, at));
    if (at == std::string_view::npos) break;
    list.remove_prefix(at + 1);
  }
}

struct AttributeFlags {
  std::string post_ops, oscale, scales, zero_points, scratchpad, fpmath;
  std::vector<std::string> untranslated;
};

void Append(std::string& list, std::string_view piece) {
  if (!list.empty()) list.push_back('+');
  list += piece;
}

// `eltwise_relu:0.5` -> `relu:0.5`; `binary_add:f32:2` -> `add:f32:2`; `sum:1` stays.
void TranslatePostOp(std::string_view op, BenchdnnVersion version, AttributeFlags& flags) {
  if (op.substr(0, 20) == "eltwise_bounded_relu") {
    const std::size_t colon = op.find(':');
    const std::string_view alpha = colon == std::string_view::npos ? "0" : op.substr(colon + 1);
    if (version == BenchdnnVersion::kV2) {
      Append(flags.post_ops, "bounded_relu:" + std::string(alpha));
    } else {  // removed in oneDNN 3.0: bounded_relu(alpha) is clip(0, alpha)
      Append(flags.post_ops, "clip:0:" + std::string(alpha));
    }
  } else if (op.substr(0, 8) == "eltwise_") {
    Append(flags.post_ops, op.substr(8));
  } else if (op.substr(0, 7) == "binary_") {
    Append(flags.post_ops, op.substr(7));
  } else if (op.substr(0, 3) == "sum" || op.substr(0, 5) == "prelu") {
    Append(flags.post_ops, op);
  } else {
    flags.untranslated.push_back("post-op " + std::string(op));
  }
}

// The value a 2.x log holds after a mask (`0.500000`, `119`, `*` or `nan` for a run-time one)
// as benchdnn 2.x takes it (`0.500000`, `119`, `1*`); 1 where the log holds none (3.x logs hold
// a data type there, the values being run-time arguments).
std::string ValueAfterMask(std::string_view rest, BenchdnnVersion version) {
  if (version != BenchdnnVersion::kV2 || rest.empty()) return "1";
  if (rest == "*" || rest == "nan") return "1*";
  const std::string text(rest);
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return *end == '\0' ? text : "1";
}

// The policy of a scale or zero-point mask: conv/deconv/ip weights per output channel (mask 1,
// or 3 when grouped) are `per_oc`, which benchdnn takes there where `per_dim_0` is refused.
std::string_view PolicyOf(std::string_view argument, std::string_view mask,
                          std::string_view driver) {
  const bool weights_per_oc = argument == "wei" && (mask == "1" || mask == "3") &&
                              (driver == "conv" || driver == "deconv" || driver == "ip");
  return weights_per_oc ? "per_oc" : PolicyOfMask(mask);
}

// `src0:0+wei:1:f16` -> `src:common:1+wei:per_oc` (3.x logs hold masks, not values; benchdnn 3.x
// takes a value for `common` only); 2.x `src:0:*+dst:0:119` -> `src:common:1*+dst:common:119`.
bool TranslateArgumentMasks(std::string_view list, std::string_view driver, BenchdnnVersion version,
                            std::string& out) {
  bool all_known = true;
  ForEachPiece(list, '+', [&](std::string_view piece) {
    const std::size_t colon = piece.find(':');
    std::string_view argument = piece.substr(0, colon);
    if (argument == "src0") argument = "src";
    std::string_view mask = colon == std::string_view::npos ? "0" : piece.substr(colon + 1);
    const std::size_t value_at = mask.find(':');
    const std::string_view rest =
        value_at == std::string_view::npos ? std::string_view{} : mask.substr(value_at + 1);
    mask = mask.substr(0, value_at);
    const std::string_view policy = PolicyOf(argument, mask, driver);
    if (policy.empty()) {
      all_known = false;
      return;
    }
    std::string item = std::string(argument) + ":" + std::string(policy);
    if (version == BenchdnnVersion::kV2 || policy == "common") {
      item += ":" + ValueAfterMask(rest, version);
    }
    Append(out, item);
  });
  return all_known;
}

// 2.x `oscale:<mask>[:<value>]` -> `--attr-oscale=<policy>:<value>` (benchdnn 2.x has the knob;
// 3.x has no output scales).
bool TranslateOutputScale(std::string_view value, BenchdnnVersion version, std::string& out) {
  if (version != BenchdnnVersion::kV2) return false;
  const std::size_t colon = value.find(':');
  const std::string_view policy = PolicyOfMask(value.substr(0, colon));
  if (policy.empty()) return false;
  const std::string_view rest =
      colon == std::string_view::npos ? std::string_view{} : value.substr(colon + 1);
  out = std::string(policy) + ":" + ValueAfterMask(rest, version);
  return true;
}

void TranslateAttribute(std::string_view token, std::string_view driver, BenchdnnVersion version,
                        AttributeFlags& flags) {
  token = StripPrefix(token, "attr-");
  if (token.back() == ';') token.remove_suffix(1);
  if (token.substr(0, 9) == "post-ops:" || token.substr(0, 9) == "post_ops:") {
    std::string_view list = token.substr(9);
    if (!list.empty() && list.front() == '\'') list.remove_prefix(1);
    if (!list.empty() && list.back() == '\'') list.remove_suffix(1);
    ForEachPiece(list, list.find(';') != std::string_view::npos ? ';' : '+',
                 [&](std::string_view op) { TranslatePostOp(op, version, flags); });
  } else if (token.substr(0, 7) == "oscale:") {
    if (!TranslateOutputScale(token.substr(7), version, flags.oscale)) {
      flags.untranslated.emplace_back(token);
    }
  } else if (token.substr(0, 7) == "scales:") {
    if (!TranslateArgumentMasks(token.substr(7), driver, version, flags.scales)) {
      flags.untranslated.emplace_back(token);
    }
  } else if (token.substr(0, 12) == "zero-points:") {
    if (!TranslateArgumentMasks(token.substr(12), driver, version, flags.zero_points)) {
      flags.untranslated.emplace_back(token);
    }
  } else if (token.substr(0, 11) == "scratchpad:" || token.substr(0, 16) == "scratchpad_mode:") {
    flags.scratchpad = std::string(token.substr(token.find(':') + 1));
  } else if (token.substr(0, 7) == "fpmath:") {
    flags.fpmath = std::string(token.substr(7));
  } else {
    flags.untranslated.emplace_back(token);
  }
}

AttributeFlags TranslateAttributes(std::string_view attributes, std::string_view driver,
                                   BenchdnnVersion version) {
  AttributeFlags flags;
  ForEachPiece(attributes, ' ', [&](std::string_view token) {
    // 2.x joined several attributes with `;` inside one token: `oscale:0:nan;post_ops:'...'`.
    if (token.find('\'') == std::string_view::npos && token.find(';') != std::string_view::npos) {
      ForEachPiece(token, ';', [&](std::string_view part) {
        TranslateAttribute(part, driver, version, flags);
      });
    } else {
      TranslateAttribute(token, driver, version, flags);
    }
  });
  return flags;
}

void AddAttributes(CommandLine& line, const AttributeFlags& flags) {
  line.Flag("attr-oscale", flags.oscale);
  line.Flag("attr-scales", flags.scales);
  line.Flag("attr-zero-points", flags.zero_points);
  line.Flag("attr-post-ops", flags.post_ops);
  line.Flag("attr-scratchpad", flags.scratchpad == "library" ? "" : flags.scratchpad);
  line.Flag("attr-fpmath", flags.fpmath);
}

// The `maskN` of a bias's flags (`f0_mask2`), as matmul's --bia_mask wants it.
std::string_view BiasMask(const MemoryDesc& bias) {
  const std::size_t at = bias.flags.find("mask");
  return at == std::string::npos ? std::string_view{} : std::string_view(bias.flags).substr(at + 4);
}

// The compensation a tensor's extra flags carry (`f1:s8m1`, `f8:zpm1`, `f9:s8m1:zpm1`) as
// reorder's --oflag spells it: `s8s8_comp:1+zp_comp:1`; "" for none.
std::string CompensationFlags(const MemoryDesc* md) {
  std::string oflag;
  if (md == nullptr) return oflag;
  ForEachPiece(md->flags, ':', [&](std::string_view piece) {
    piece = piece.substr(0, piece.find('_'));
    if (piece.substr(0, 3) == "s8m") Append(oflag, "s8s8_comp:" + std::string(piece.substr(3)));
    if (piece.substr(0, 3) == "zpm") Append(oflag, "zp_comp:" + std::string(piece.substr(3)));
  });
  return oflag;
}

// The tag of a conv/deconv/ip/matmul tensor: `any` where the log says the framework created it
// with `any` (the `a` property of 3.2+), so that benchdnn lets the library choose as the
// framework did; else the tag the log resolved.
std::string_view WeightedTag(const MemoryDesc* md) {
  if (md != nullptr && md->properties.find('a') != std::string::npos) return "any";
  return TagOf(md);
}

// Weights whose layout carries a compensation buffer can only come from `any`: a plain tag has
// none, and the log's int8 kernel needs it.
std::string_view WeightsTag(const MemoryDesc* weights) {
  if (!CompensationFlags(weights).empty()) return "any";
  return WeightedTag(weights);
}

// The direction and bias type of a conv/deconv/ip. 3.x (3.8+): FWD_B/BWD_WB mean an f32 bias,
// any other bias is `--bia-dt` beside FWD_D/FWD_I/BWD_W. 2.x: FWD_B/BWD_WB, whose bias type
// follows --cfg (2.x has no inference with bias: FWD_B stands for it).
// The direction that carries a bias: FWD_B for the forward ones, BWD_WB for the weights.
std::string_view WithBias(std::string_view dir) {
  if (dir == "FWD_D" || dir == "FWD_I") return "FWD_B";
  if (dir == "BWD_W") return "BWD_WB";
  return dir;
}

void AddDirectionAndBias(CommandLine& line, std::string_view prop_kind, const MemoryDesc* bias,
                         BenchdnnVersion version) {
  const std::string_view dir = onednn::BenchdnnDirection(prop_kind);
  if (bias == nullptr) {
    line.Flag("dir", dir);
  } else if (version == BenchdnnVersion::kV2) {
    line.Flag("dir", WithBias(dir));
  } else if (dir != "FWD_I" && bias->data_type == "f32") {
    line.Flag("dir", WithBias(dir));
  } else {
    line.Flag("dir", dir);
    line.Flag("bia-dt", bias->data_type);
  }
}

void AddWeightedFlags(CommandLine& line, std::string_view driver, const PrimitiveStats& row,
                      const Tensors& tensors, BenchdnnVersion version) {
  const MemoryDesc* src = FirstSource(tensors);
  const std::vector<std::string_view> types = {TypeOf(src), TypeOf(tensors.weights),
                                               TypeOf(tensors.destination)};
  const bool v2 = version == BenchdnnVersion::kV2;
  if (driver == "matmul") {
    if (tensors.bias != nullptr) {
      line.Flag(v2 ? "bia_dt" : "bia-dt", tensors.bias->data_type);
      line.Flag("bia_mask", BiasMask(*tensors.bias));
    }
  } else if (onednn::BenchdnnDirection(row.prop_kind) != "BWD_D") {
    AddDirectionAndBias(line, row.prop_kind, tensors.bias, version);
  } else {
    line.Flag("dir", "BWD_D");
  }
  if (v2) {
    line.Flag("cfg", Config(driver, types));
  } else {
    line.Flag("dt", JoinTypes(types));
  }
  line.Flag("stag", WeightedTag(src));
  line.Flag("wtag", WeightsTag(tensors.weights));
  line.Flag("dtag", WeightedTag(tensors.destination));
  const std::string_view alg = AuxiliaryValue(row.auxiliary, "alg");
  if (alg == "convolution_winograd" || alg == "deconvolution_winograd") line.Flag("alg", "WINO");
  if (driver == "matmul") {
    line.Flag("runtime_dims_masks", AuxiliaryValue(row.auxiliary, "runtime_dims_masks"));
  }
}

// `eltwise_relu` -> `relu`, `softmax_log` -> `LOGSOFTMAX`, `pooling_max` -> `max`, ...
std::string AlgorithmFlag(std::string_view driver, const PrimitiveStats& row) {
  const std::string_view alg = AuxiliaryValue(row.auxiliary, "alg");
  if (driver == "eltwise") {
    // benchdnn names `eltwise_relu_use_dst_for_bwd` `relu_dst`.
    std::string name(StripPrefix(alg, "eltwise_"));
    if (name.ends_with("_use_dst_for_bwd")) name.replace(name.size() - 16, 16, "_dst");
    return name;
  }
  if (driver == "softmax") {
    const bool log =
        alg == "softmax_log" || onednn::ImpliedAlgorithm(row.primitive) == "softmax_log";
    return log ? "LOGSOFTMAX" : "SOFTMAX";
  }
  if (driver == "pool") {
    if (alg == "pooling_max") return "max";
    if (alg == "pooling_avg_include_padding") return "avg_p";
    return alg.empty() ? "" : "avg_np";
  }
  if (driver == "binary") return Upper(StripPrefix(alg, "binary_"));
  if (driver == "lrn") return alg == "lrn_within_channel" ? "WITHIN" : "ACROSS";
  if (driver == "resampling") return std::string(StripPrefix(alg, "resampling_"));
  if (driver == "reduction") return std::string(StripPrefix(alg, "reduction_"));
  return {};
}

// The types and tags of drivers with one data type for src and dst (`--dt`, `--tag`).
void AddOneTypeFlags(CommandLine& line, std::string_view driver, const Tensors& tensors,
                     BenchdnnVersion version) {
  const MemoryDesc* src = FirstSource(tensors);
  const MemoryDesc* dst = tensors.destination == nullptr ? src : tensors.destination;
  if (driver == "pool") {
    const std::vector<std::string_view> types = {TypeOf(src), TypeOf(dst)};
    line.Flag(version == BenchdnnVersion::kV2 ? "cfg" : "dt",
              version == BenchdnnVersion::kV2 ? Config(driver, types) : JoinTypes(types));
  } else if ((driver == "lnorm" || driver == "gnorm") && version == BenchdnnVersion::kV3) {
    line.Flag("dt", JoinEach({TypeOf(src), TypeOf(dst)}));
  } else {
    line.Flag("dt", TypeOf(src));
  }
  if ((driver == "lnorm" || driver == "gnorm") && version == BenchdnnVersion::kV3) {
    line.Flag("tag", JoinEach({TagOf(src), TagOf(dst)}));
  } else {
    line.Flag("tag", TagOf(src));
  }
}

// The types and tags of drivers with a source and a destination type (`--sdt`, `--ddt`).
void AddSourceDestinationTypes(CommandLine& line, std::string_view driver, const Tensors& tensors) {
  const MemoryDesc* src = FirstSource(tensors);
  std::vector<std::string_view> types;
  std::vector<std::string_view> tags;
  for (const MemoryDesc* source : tensors.sources) {
    types.push_back(source->data_type);
    tags.push_back(TagOf(source));
  }
  const bool per_input = driver == "binary" || driver == "sum";
  line.Flag("sdt", per_input ? JoinEach(types) : std::string(TypeOf(src)));
  line.Flag("ddt", TypeOf(tensors.destination));
  if (driver == "resampling") {
    line.Flag("tag", TagOf(src));
    return;
  }
  line.Flag("stag", per_input || driver == "concat" ? JoinEach(tags) : std::string(TagOf(src)));
  line.Flag("dtag", TagOf(tensors.destination));
}

bool OneTypeDriver(std::string_view driver) {
  return driver == "eltwise" || driver == "bnorm" || driver == "lnorm" || driver == "gnorm" ||
         driver == "lrn" || driver == "shuffle" || driver == "pool";
}

void AddSourceDestinationFlags(CommandLine& line, std::string_view driver,
                               const PrimitiveStats& row, const Tensors& tensors,
                               BenchdnnVersion version) {
  if (driver == "shuffle") {  // benchdnn's shuffle runs FWD_D and BWD_D only
    const std::string_view dir = onednn::BenchdnnDirection(row.prop_kind);
    line.Flag("dir", dir == "FWD_I" ? "FWD_D" : dir);
  } else if (driver != "reorder" && driver != "sum" && driver != "concat" &&
             driver != "reduction" && driver != "binary") {
    line.Flag("dir", onednn::BenchdnnDirection(row.prop_kind));
  }
  if (driver == "prelu") {
    line.Flag("sdt", JoinEach({TypeOf(FirstSource(tensors)), TypeOf(tensors.weights)}));
    line.Flag("stag", JoinEach({TagOf(FirstSource(tensors)), TagOf(tensors.weights)}));
  } else if (OneTypeDriver(driver)) {
    AddOneTypeFlags(line, driver, tensors, version);
  } else {
    AddSourceDestinationTypes(line, driver, tensors);
  }
  if (driver == "reorder") line.Flag("oflag", CompensationFlags(tensors.destination));
  line.Flag("alg", AlgorithmFlag(driver, row));
  line.Flag("alpha", AuxiliaryValue(row.auxiliary, "alpha"));
  line.Flag("beta", AuxiliaryValue(row.auxiliary, "beta"));
  line.Flag("axis", AuxiliaryValue(row.auxiliary, "axis"));
  if (driver == "shuffle") line.Flag("group", AuxiliaryValue(row.auxiliary, "group"));
  if (driver == "reduction") {
    line.Flag("p", AuxiliaryValue(row.auxiliary, "p"));
    line.Flag("eps", AuxiliaryValue(row.auxiliary, "eps"));
  }
  if (driver == "bnorm" || driver == "lnorm" || driver == "gnorm") {
    line.Flag("flags", AuxiliaryValue(row.auxiliary, "flags"));
  }
}

// rnn: `alg:vanilla_lstm direction:unidirectional_left2right activation:undef`.
std::string RnnAlgorithm(std::string_view alg) {
  return Upper(alg);
}

std::string_view RnnDirection(std::string_view direction) {
  if (direction == "unidirectional_left2right" || direction == "unidirectional") {
    return "left2right";
  }
  if (direction == "unidirectional_right2left") return "right2left";
  if (direction == "bidirectional_concat") return "concat";
  if (direction == "bidirectional_sum") return "sum";
  return {};
}

std::string_view RnnProp(std::string_view prop_kind) {
  const std::string_view dir = onednn::BenchdnnDirection(prop_kind);
  return dir == "BWD_D" || dir == "BWD_W" ? "BWD_DW" : dir;
}

void AddRnnFlags(CommandLine& line, const PrimitiveStats& row, const std::vector<MemoryDesc>& mds) {
  line.Flag("prop", RnnProp(row.prop_kind));
  line.Flag("cfg", TypeOf(Named(mds, "src_layer")));
  line.Flag("alg", RnnAlgorithm(AuxiliaryValue(row.auxiliary, "alg")));
  line.Flag("direction", RnnDirection(AuxiliaryValue(row.auxiliary, "direction")));
  const std::string_view activation = AuxiliaryValue(row.auxiliary, "activation");
  if (activation != "undef") line.Flag("activation", Upper(StripPrefix(activation, "eltwise_")));
  // An lstm's extensions show as tensors of their own (2.x and 3.x alike).
  if (Named(mds, "wei_peephole") != nullptr) line.Flag("with-peephole", "true");
  if (Named(mds, "wei_proj") != nullptr) line.Flag("with-projection", "true");
}

void AddEngine(CommandLine& line, std::string_view driver, std::string_view engine) {
  if (engine == "cpu2gpu" || engine == "gpu2cpu") {
    if (driver == "reorder") line.Flag("cross-engine", engine);
    return;
  }
  if (engine.substr(0, 3) == "gpu") line.Flag("engine", engine);
}

bool HasBlockedTag(const std::vector<MemoryDesc>& mds) {
  for (const MemoryDesc& md : mds) {
    for (char c : md.tag) {
      if (std::isupper(static_cast<unsigned char>(c)) != 0) return true;
    }
  }
  return false;
}

bool HasRuntimeDimensions(std::string_view problem) {
  return problem.find("-9223372036854775808") != std::string_view::npos ||
         problem.find('*') != std::string_view::npos;
}

// Why an rnn row cannot be spelled by benchdnn's rnn driver ("" when it can).
std::string_view RnnMissingReason(const PrimitiveStats& row, const std::vector<MemoryDesc>& mds) {
  const MemoryDesc* layer = Named(mds, "src_layer");
  if (layer == nullptr) return "the log line names no data types (MKL-DNN 0.x)";
  for (const MemoryDesc& md : mds) {
    if (Present(md) && md.data_type != layer->data_type && md.name != "bias") {
      return "mixed-precision rnn: benchdnn's --cfg names are not derived by dlcheck";
    }
  }
  if (layer->data_type != "f32" && layer->data_type != "bf16" && layer->data_type != "f16") {
    return "mixed-precision rnn: benchdnn's --cfg names are not derived by dlcheck";
  }
  if (RnnDirection(AuxiliaryValue(row.auxiliary, "direction")).empty()) {
    return "the rnn direction is not in the log line";
  }
  return {};
}

}  // namespace

std::string BenchdnnCommentText(std::string_view text, std::size_t max_bytes) {
  std::string safe;
  for (char c : text.substr(0, max_bytes)) {
    safe.push_back(c >= ' ' && c <= '~' ? c : '?');
  }
  if (text.size() > max_bytes) safe += "...";
  return safe;
}

BenchdnnVersion BenchdnnVersionOf(const PrimitiveStats& row, const BenchdnnContext& context) {
  if (context.version != BenchdnnVersion::kLogs) return context.version;
  const int major = LogHeader::MajorOfLibraryVersion(context.library_version);
  if (major >= 3) return BenchdnnVersion::kV3;
  if (major >= 1) return BenchdnnVersion::kV2;
  switch (row.era) {
    case Era::kMkldnn0:
    case Era::kMkldnn1:
    case Era::kDnnl:
    case Era::kZendnn:  // ZenDNN's lines are oneDNN 2.x's (its descriptors, its attributes)
    case Era::kZendnnPrimitive:
      return BenchdnnVersion::kV2;
    case Era::kOnednn:  // 2.5 - 3.1: 3.x lines name per-argument scales `src0`
      return row.attributes.find("src0:") != std::string_view::npos ? BenchdnnVersion::kV3
                                                                    : BenchdnnVersion::kV2;
    default:
      return BenchdnnVersion::kV3;
  }
}

std::vector<std::string_view> BenchdnnDrivers() {
  std::vector<std::string_view> drivers;
  for (const onednn::PrimitiveKind& entry : onednn::kPrimitiveKinds) {
    if (!entry.driver.empty() &&
        std::find(drivers.begin(), drivers.end(), entry.driver) == drivers.end()) {
      drivers.push_back(entry.driver);
    }
  }
  return drivers;
}

std::string_view BenchdnnDriverOf(std::string_view primitive) {
  return DriverOf(primitive);
}

std::string_view HighestIsaOf(const std::vector<const PrimitiveStats*>& rows) {
  std::string_view highest;
  int highest_rank = -1;
  for (const PrimitiveStats* row : rows) {
    if (row->isa_inferred || row->isa.empty()) continue;
    const std::optional<int> rank = onednn::IsaRank(row->isa.view());
    if (rank && *rank > highest_rank) {
      highest_rank = *rank;
      highest = row->isa.view();
    }
  }
  return highest;
}

std::string MaxCpuIsaValue(std::string_view isa, BenchdnnVersion version) {
  const std::optional<int> rank = onednn::IsaRank(isa);
  if (!rank || *rank <= 0) return {};                // `uni`, `any`, AArch64 names: no x86 cap
  if (isa == "avx512_common") return "AVX512_CORE";  // 1.x's name of the avx512_core kernels
  // 3.5 renamed the AVX-512 FP16 and AMX levels: each version takes its own names.
  if (version == BenchdnnVersion::kV3) {
    if (isa == "avx512_core_fp16") return "AVX10_1_512";
    if (isa == "avx512_core_amx") return "AVX10_1_512_AMX";
    if (isa == "avx512_core_amx_fp16") return "AVX10_1_512_AMX_FP16";
  } else {
    if (isa == "avx10_1_512") return "AVX512_CORE_FP16";
    if (isa == "avx10_1_512_amx") return "AVX512_CORE_AMX";
    if (isa == "avx10_1_512_amx_fp16") return "AVX512_CORE_AMX_FP16";
  }
  return Upper(isa);
}

std::string_view BenchdnnMissingReason(const PrimitiveStats& row, const BenchdnnContext& context) {
  const std::string_view driver = DriverOf(row.primitive);
  if (driver.empty()) return "no benchdnn driver for this primitive kind in dlcheck's table";
  if (row.problem.empty()) return "the log line has no problem descriptor";
  if (HasRuntimeDimensions(row.problem)) {
    return "the shapes are run-time dimensions (a create line; the exec line has them)";
  }
  if (!IsProblem(row.problem)) {
    return "the problem descriptor is not one benchdnn reads (letters, digits and _.:- only)";
  }
  if (!ProblemOutOfRange(row.problem).empty()) {
    return "a dimension of the problem is above 2^31 - 1, or a shape has more than 2^48 "
           "elements: no oneDNN kernel runs it";
  }
  std::vector<MemoryDesc> mds;
  ParseMemoryDescs(row.memory_descriptors, mds);
  if (driver == "rnn") return RnnMissingReason(row, mds);
  if (FirstSource(SortTensors(mds)) == nullptr) {
    return "the log line names no data types (MKL-DNN 0.x)";
  }
  if (driver == "gnorm" && BenchdnnVersionOf(row, context) == BenchdnnVersion::kV2) {
    return "benchdnn 2.x has no group normalization driver";
  }
  return {};
}

namespace {

// The ISA a CPU row ran at: its implementation's, else the log's; "" for another engine.
std::string_view RowIsa(const PrimitiveStats& row, const BenchdnnContext& context) {
  if (row.engine.view().substr(0, 3) != "cpu") return {};
  return row.isa_inferred || row.isa.empty() ? context.header_isa : row.isa.view();
}

// The note for a host below the row's ISA: oneDNN caps ONEDNN_MAX_CPU_ISA at what the CPU has.
std::string HostNote(std::string_view isa, std::string_view host) {
  if (isa.empty() || host.empty() || onednn::Compare(isa, host) != onednn::IsaOrder::kAbove) {
    return {};
  }
  return BenchdnnCommentText("this host's highest ISA is " + std::string(host) +
                             ", below the log's " + std::string(isa) +
                             ": benchdnn here runs a lower kernel, not the log's");
}

}  // namespace

std::optional<BenchdnnReproducer> MakeBenchdnnReproducer(const PrimitiveStats& row,
                                                         const BenchdnnContext& context) {
  if (!BenchdnnMissingReason(row, context).empty()) return std::nullopt;
  const BenchdnnVersion version = BenchdnnVersionOf(row, context);
  const std::string_view driver = DriverOf(row.primitive);
  std::vector<MemoryDesc> mds;
  ParseMemoryDescs(row.memory_descriptors, mds);
  const Tensors tensors = SortTensors(mds);
  CommandLine line(driver);
  AddEngine(line, driver, row.engine);
  line.Flag("mode", "P");
  // benchdnn 2.x refuses a blocked tag oneDNN's format_tag enum does not name (`debcA16a`)
  // unless told before the first tag option.
  if (version == BenchdnnVersion::kV2 && driver != "rnn" && HasBlockedTag(mds)) {
    line.Flag("allow-enum-tags-only", "0");
  }
  if (driver == "rnn") {
    AddRnnFlags(line, row, mds);
  } else if (driver == "conv" || driver == "deconv" || driver == "ip" || driver == "matmul") {
    AddWeightedFlags(line, driver, row, tensors, version);
  } else {
    AddSourceDestinationFlags(line, driver, row, tensors, version);
  }
  AttributeFlags attributes = TranslateAttributes(row.attributes, driver, version);
  AddAttributes(line, attributes);
  line.Finish(row.problem);
  BenchdnnReproducer reproducer;
  reproducer.options = std::move(line.options());
  reproducer.arguments = line.driver();
  for (const std::string& option : reproducer.options) reproducer.arguments += " " + option;
  const std::string_view isa = RowIsa(row, context);
  reproducer.max_cpu_isa = MaxCpuIsaValue(isa, version);
  if (Invalid(ValueKind::kWord, reproducer.max_cpu_isa).empty()) {
    reproducer.command = "ONEDNN_MAX_CPU_ISA=" + reproducer.max_cpu_isa + " ";
    reproducer.host_note = HostNote(isa, context.host_isa);
  } else {
    reproducer.max_cpu_isa.clear();
  }
  if (context.threads && *context.threads > 0) {
    reproducer.threads = context.threads;
    reproducer.command += "OMP_NUM_THREADS=" + std::to_string(*context.threads) + " ";
  }
  reproducer.command += "benchdnn " + line.driver();
  for (const std::string& option : reproducer.options)
    reproducer.command += " " + ShellWord(option);
  for (const std::string& piece : attributes.untranslated) {
    reproducer.untranslated.push_back(BenchdnnCommentText(piece));
  }
  for (std::string& piece : line.untranslated())
    reproducer.untranslated.push_back(std::move(piece));
  return reproducer;
}

}  // namespace dlcheck::verbose
