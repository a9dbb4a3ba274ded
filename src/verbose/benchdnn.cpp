#include "verbose/benchdnn.h"

#include <array>
#include <cctype>
#include <cstdlib>

#include "verbose/aggregate.h"
#include "verbose/line_parser.h"

namespace dlcheck::verbose {
namespace {

// The benchdnn driver of each primitive kind it covers (kinds as verbose prints them).
struct DriverName {
  std::string_view primitive;
  std::string_view driver;
};
constexpr std::array<DriverName, 13> kDrivers{{
    {"convolution", "conv"},
    {"deconvolution", "deconv"},
    {"inner_product", "ip"},
    {"matmul", "matmul"},
    {"reorder", "reorder"},
    {"eltwise", "eltwise"},
    {"softmax", "softmax"},
    {"softmax_v2", "softmax"},
    {"logsoftmax", "softmax"},
    {"pooling", "pool"},
    {"pooling_v2", "pool"},
    {"binary", "binary"},
    {"batch_normalization", "bnorm"},
}};

std::string_view DriverOf(std::string_view primitive) {
  for (const DriverName& entry : kDrivers) {
    if (entry.primitive == primitive) return entry.driver;
  }
  return {};
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

// `--dir=` from the prop kind; bias decides FWD_B/FWD_D and BWD_WB/BWD_W as benchdnn names them.
std::string_view Direction(std::string_view prop_kind, bool has_bias) {
  if (prop_kind == "forward_training" || prop_kind == "forward") {
    return has_bias ? "FWD_B" : "FWD_D";
  }
  if (prop_kind == "forward_inference" || prop_kind == "forward_scoring") return "FWD_I";
  if (prop_kind == "backward_data") return "BWD_D";
  if (prop_kind == "backward_weights") return has_bias ? "BWD_WB" : "BWD_W";
  if (prop_kind == "backward") return "BWD_DW";
  return {};
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

std::string_view TypeOf(const MemoryDesc* md) {
  return md == nullptr ? std::string_view{} : std::string_view(md->data_type);
}

std::string_view TagOf(const MemoryDesc* md) {
  return md == nullptr || md->tag.empty() ? std::string_view{} : std::string_view(md->tag);
}

// Builds the command as flags are added; empty values are left out.
class CommandLine {
 public:
  explicit CommandLine(std::string_view driver) {
    text_ = "benchdnn --";
    text_ += driver;
  }
  void Flag(std::string_view name, std::string_view value) {
    if (value.empty()) return;
    text_ += " --";
    text_ += name;
    text_.push_back('=');
    text_ += value;
  }
  void Finish(std::string_view problem) {
    text_.push_back(' ');
    text_ += problem;
  }
  std::string Take() { return std::move(text_); }

 private:
  std::string text_;
};

// The value of `key:` among the space-separated `key:value` pairs of an aux field.
std::string_view AuxValue(std::string_view aux, std::string_view key) {
  while (!aux.empty()) {
    const std::size_t space = aux.find(' ');
    const std::string_view pair = aux.substr(0, space);
    if (pair.size() > key.size() && pair.substr(0, key.size()) == key && pair[key.size()] == ':') {
      return pair.substr(key.size() + 1);
    }
    if (space == std::string_view::npos) break;
    aux.remove_prefix(space + 1);
  }
  return {};
}

std::string_view StripPrefix(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix ? text.substr(prefix.size()) : text;
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
  std::string post_ops, scales, zero_points, scratchpad, fpmath;
  std::vector<std::string> untranslated;
};

void Append(std::string& list, std::string_view piece) {
  if (!list.empty()) list.push_back('+');
  list += piece;
}

// `eltwise_relu:0.5` -> `relu:0.5`; `binary_add:f32:2` -> `add:f32:2`; `sum:1` stays.
void TranslatePostOp(std::string_view op, AttributeFlags& flags) {
  if (op.substr(0, 20) == "eltwise_bounded_relu") {
    // Removed in oneDNN 3.0: bounded_relu(alpha) is clip(0, alpha).
    const std::size_t colon = op.find(':');
    const std::string_view alpha = colon == std::string_view::npos ? "0" : op.substr(colon + 1);
    Append(flags.post_ops, "clip:0:" + std::string(alpha));
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

// `src0:0+wei:1:f16` -> `src:common:1+wei:per_dim_0` (the log holds masks, not values).
bool TranslateArgumentMasks(std::string_view list, std::string& out) {
  bool all_known = true;
  ForEachPiece(list, '+', [&](std::string_view piece) {
    const std::size_t colon = piece.find(':');
    std::string_view argument = piece.substr(0, colon);
    if (argument == "src0") argument = "src";
    std::string_view mask = colon == std::string_view::npos ? "0" : piece.substr(colon + 1);
    mask = mask.substr(0, mask.find(':'));
    const std::string_view policy = PolicyOfMask(mask);
    if (policy.empty()) {
      all_known = false;
      return;
    }
    Append(out, std::string(argument) + ":" + std::string(policy) + ":1");
  });
  return all_known;
}

void TranslateAttribute(std::string_view token, AttributeFlags& flags) {
  token = StripPrefix(token, "attr-");
  if (token.back() == ';') token.remove_suffix(1);
  if (token.substr(0, 9) == "post-ops:" || token.substr(0, 9) == "post_ops:") {
    std::string_view list = token.substr(9);
    if (!list.empty() && list.front() == '\'') list.remove_prefix(1);
    if (!list.empty() && list.back() == '\'') list.remove_suffix(1);
    ForEachPiece(list, list.find(';') != std::string_view::npos ? ';' : '+',
                 [&](std::string_view op) { TranslatePostOp(op, flags); });
  } else if (token.substr(0, 7) == "scales:") {
    if (!TranslateArgumentMasks(token.substr(7), flags.scales)) {
      flags.untranslated.emplace_back(token);
    }
  } else if (token.substr(0, 12) == "zero-points:") {
    if (!TranslateArgumentMasks(token.substr(12), flags.zero_points)) {
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

AttributeFlags TranslateAttributes(std::string_view attributes) {
  AttributeFlags flags;
  ForEachPiece(attributes, ' ', [&](std::string_view token) {
    // 2.x joined several attributes with `;` inside one token: `oscale:0:nan;post_ops:'...'`.
    if (token.find('\'') == std::string_view::npos && token.find(';') != std::string_view::npos) {
      ForEachPiece(token, ';', [&](std::string_view part) { TranslateAttribute(part, flags); });
    } else {
      TranslateAttribute(token, flags);
    }
  });
  return flags;
}

void AddAttributes(CommandLine& line, const AttributeFlags& flags) {
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

void AddWeightedFlags(CommandLine& line, std::string_view driver, const PrimitiveStats& row,
                      const Tensors& tensors) {
  const MemoryDesc* src = FirstSource(tensors);
  line.Flag("dir", Direction(row.prop_kind, tensors.bias != nullptr));
  line.Flag("dt", JoinTypes({TypeOf(src), TypeOf(tensors.weights), TypeOf(tensors.destination)}));
  if (driver == "matmul" && tensors.bias != nullptr) {
    line.Flag("bia_dt", tensors.bias->data_type);
    line.Flag("bia_mask", BiasMask(*tensors.bias));
  }
  line.Flag("stag", TagOf(src));
  line.Flag("wtag", TagOf(tensors.weights));
  line.Flag("dtag", TagOf(tensors.destination));
  const std::string_view alg = AuxValue(row.auxiliary, "alg");
  if (alg == "convolution_winograd" || alg == "deconvolution_winograd") line.Flag("alg", "WINO");
}

// `eltwise_relu` -> `relu`, `softmax_log` -> `LOGSOFTMAX`, `pooling_max` -> `max`, ...
std::string AlgorithmFlag(std::string_view driver, const PrimitiveStats& row) {
  const std::string_view alg = AuxValue(row.auxiliary, "alg");
  if (driver == "eltwise") return std::string(StripPrefix(alg, "eltwise_"));
  if (driver == "softmax") {
    const bool log = alg == "softmax_log" || row.primitive == "logsoftmax";
    return log ? "LOGSOFTMAX" : "SOFTMAX";
  }
  if (driver == "pool") {
    if (alg == "pooling_max") return "max";
    if (alg == "pooling_avg_include_padding") return "avg_p";
    return alg.empty() ? "" : "avg_np";
  }
  if (driver == "binary") {
    std::string name(StripPrefix(alg, "binary_"));
    for (char& c : name) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return name;
  }
  return {};
}

void AddSourceDestinationFlags(CommandLine& line, std::string_view driver,
                               const PrimitiveStats& row, const Tensors& tensors) {
  const MemoryDesc* src = FirstSource(tensors);
  line.Flag("dir", Direction(row.prop_kind, false));
  if (driver == "eltwise" || driver == "bnorm") {
    line.Flag("dt", TypeOf(src));
    line.Flag("tag", TagOf(src));
  } else if (driver == "pool") {
    line.Flag("dt", JoinTypes({TypeOf(src), TypeOf(tensors.destination)}));
    line.Flag("tag", TagOf(src));
  } else {
    std::vector<std::string_view> types;
    std::vector<std::string_view> tags;
    for (const MemoryDesc* source : tensors.sources) {
      types.push_back(source->data_type);
      tags.push_back(source->tag);
    }
    line.Flag("sdt", driver == "binary" ? JoinTypes(types) : std::string(TypeOf(src)));
    line.Flag("ddt", TypeOf(tensors.destination));
    line.Flag("stag", driver == "binary" ? JoinTypes(tags) : std::string(TagOf(src)));
    line.Flag("dtag", TagOf(tensors.destination));
  }
  line.Flag("alg", AlgorithmFlag(driver, row));
  line.Flag("alpha", AuxValue(row.auxiliary, "alpha"));
  line.Flag("beta", AuxValue(row.auxiliary, "beta"));
  line.Flag("axis", AuxValue(row.auxiliary, "axis"));
  if (driver == "bnorm") line.Flag("flags", AuxValue(row.auxiliary, "flags"));
}

void AddEngine(CommandLine& line, std::string_view driver, std::string_view engine) {
  if (engine == "cpu2gpu" || engine == "gpu2cpu") {
    if (driver == "reorder") line.Flag("cross-engine", engine);
    return;
  }
  if (engine.substr(0, 3) == "gpu") line.Flag("engine", engine);
}

bool HasRuntimeDimensions(std::string_view problem) {
  return problem.find("-9223372036854775808") != std::string_view::npos ||
         problem.find('*') != std::string_view::npos;
}

}  // namespace

std::string_view BenchdnnMissingReason(const PrimitiveStats& row) {
  const std::string_view driver = DriverOf(row.primitive);
  if (driver.empty()) return "no benchdnn driver for this primitive kind in dlcheck's table";
  if (row.problem.empty()) return "the log line has no problem descriptor";
  if (HasRuntimeDimensions(row.problem)) return "the shapes are run-time dimensions";
  std::vector<MemoryDesc> mds;
  ParseMemoryDescs(row.memory_descriptors, mds);
  if (FirstSource(SortTensors(mds)) == nullptr) {
    return "the log line names no data types (MKL-DNN 0.x)";
  }
  return {};
}

std::optional<BenchdnnReproducer> MakeBenchdnnReproducer(const PrimitiveStats& row) {
  if (!BenchdnnMissingReason(row).empty()) return std::nullopt;
  const std::string_view driver = DriverOf(row.primitive);
  std::vector<MemoryDesc> mds;
  ParseMemoryDescs(row.memory_descriptors, mds);
  const Tensors tensors = SortTensors(mds);
  CommandLine line(driver);
  AddEngine(line, driver, row.engine);
  line.Flag("mode", "P");
  const bool weighted =
      driver == "conv" || driver == "deconv" || driver == "ip" || driver == "matmul";
  if (weighted) {
    AddWeightedFlags(line, driver, row, tensors);
  } else {
    AddSourceDestinationFlags(line, driver, row, tensors);
  }
  AttributeFlags attributes = TranslateAttributes(row.attributes);
  AddAttributes(line, attributes);
  line.Finish(row.problem);
  return BenchdnnReproducer{line.Take(), std::move(attributes.untranslated)};
}

}  // namespace dlcheck::verbose
