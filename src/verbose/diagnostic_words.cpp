// SPDX-License-Identifier: Apache-2.0
#include "verbose/diagnostic_words.h"

#include <array>
#include <charconv>
#include <utility>

namespace dlcheck::verbose {
namespace {

// DNNL_ARG_* values below the attribute bits, in words.
constexpr std::array<std::pair<long, std::string_view>, 31> kArguments = {{
    {1, "the source"},
    {2, "the second source"},
    {3, "the third source"},
    {4, "the fourth source"},
    {17, "the destination"},
    {18, "the second destination"},
    {19, "the third destination"},
    {33, "the weights"},
    {34, "the second weights"},
    {35, "the third weights"},
    {36, "the fourth weights"},
    {41, "the bias"},
    {42, "the reduction buffer"},
    {49, "the mean"},
    {50, "the variance"},
    {51, "the scale"},
    {52, "the shift"},
    {64, "the workspace"},
    {80, "the scratchpad"},
    {129, "the source gradient"},
    {130, "the second source gradient"},
    {145, "the destination gradient"},
    {146, "the second destination gradient"},
    {161, "the weights gradient"},
    {162, "the second weights gradient"},
    {169, "the bias gradient"},
    {255, "the scale gradient"},
    {256, "the shift gradient"},
    {513, "the output scales"},
    {509, "the dropout mask"},
    {510, "the dropout probability"},
}};

constexpr long kScales = 4096;               // DNNL_ARG_ATTR_SCALES
constexpr long kZeroPoints = 8192;           // DNNL_ARG_ATTR_ZERO_POINTS
constexpr long kPostOpDepthwise = 16384;     // DNNL_ARG_ATTR_POST_OP_DW
constexpr long kMultiplePostOpBase = 32768;  // DNNL_ARG_ATTR_MULTIPLE_POST_OP(i): base * (i + 1)
constexpr long kMultipleSource = 1024;       // DNNL_ARG_MULTIPLE_SRC + i (concat, sum)

std::string BaseName(long arg) {
  for (const auto& [value, name] : kArguments) {
    if (value == arg) return std::string(name);
  }
  return {};
}

bool Has(std::string_view text, std::string_view part) {
  return text.find(part) != std::string_view::npos;
}

// The number in `(N)` at the end of a message, or -1.
long NumberInParentheses(std::string_view message) {
  const std::size_t open = message.rfind('(');
  const std::size_t close = message.rfind(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) return -1;
  long value = -1;
  const auto [ptr, ec] = std::from_chars(message.data() + open + 1, message.data() + close, value);
  return ec == std::errc() && ptr == message.data() + close ? value : -1;
}

// `dimension src:1 is inconsistent with weights:0` -> the two tensors and axes in words.
std::string InconsistentDimension(std::string_view message) {
  constexpr std::string_view kWord = "dimension ";
  constexpr std::string_view kWith = " is inconsistent with ";
  const std::size_t at = message.find(kWord);
  const std::size_t with = message.find(kWith);
  if (at == std::string_view::npos || with == std::string_view::npos || with < at) return {};
  auto axis = [](std::string_view tensor_axis) {
    const std::size_t colon = tensor_axis.rfind(':');
    if (colon == std::string_view::npos) return std::string(tensor_axis);
    return "dimension " + std::string(tensor_axis.substr(colon + 1)) + " of " +
           std::string(tensor_axis.substr(0, colon));
  };
  const std::string_view first = message.substr(at + kWord.size(), with - at - kWord.size());
  const std::string_view second = message.substr(with + kWith.size());
  return "the caller's shapes disagree: " + axis(first) + " does not match " + axis(second) +
         " (an operand transposed, or of the wrong shape)";
}

// The message without the `,file:line` oneDNN ends it with (`...,src/common/matmul.cpp:144`).
std::string_view WithoutSource(std::string_view message) {
  const std::size_t comma = message.rfind(',');
  if (comma == std::string_view::npos) return message;
  const std::string_view source = message.substr(comma + 1);
  const bool file =
      source.find(".c") != std::string_view::npos || source.find(".h") != std::string_view::npos;
  return file && source.find(':') != std::string_view::npos ? message.substr(0, comma) : message;
}

}  // namespace

std::string ArgumentName(long arg) {
  if (arg <= 0) return "argument " + std::to_string(arg);
  if (arg >= kMultiplePostOpBase) {
    const long rest = arg % kMultiplePostOpBase;
    return (rest == 2 ? std::string("the second input") : ArgumentName(rest)) + " of post-op " +
           std::to_string(arg / kMultiplePostOpBase - 1);
  }
  if (arg >= kPostOpDepthwise) {
    return ArgumentName(arg - kPostOpDepthwise) + " of the depthwise post-op";
  }
  if (arg >= kZeroPoints) return "the zero points of " + ArgumentName(arg - kZeroPoints);
  if (arg >= kScales) return "the scales of " + ArgumentName(arg - kScales);
  if (std::string name = BaseName(arg); !name.empty()) return name;
  if (arg >= kMultipleSource && arg < kMultipleSource + 1024) {
    return "source " + std::to_string(arg - kMultipleSource);
  }
  return "argument " + std::to_string(arg);
}

std::string PlainWords(std::string_view operation, std::string_view full_message) {
  const bool check = operation == "create:check" || operation == "exec:check";
  if (!check && operation != "error" && operation != "warning" && operation != "warn") return {};
  const std::string_view message = WithoutSource(full_message);
  if (Has(message, "unused primitive execution argument")) {
    const long arg = NumberInParentheses(message);
    return "the caller passed " + ArgumentName(arg) + " (argument " + std::to_string(arg) +
           ") to execute(), and this primitive does not use it: the argument map holds a memory "
           "meant for another primitive, or scales or zero points the primitive was not created "
           "with (ignored; the creation and the execution disagree)";
  }
  if (Has(message, " is inconsistent with ")) {
    if (std::string words = InconsistentDimension(message); !words.empty()) return words;
  }
  if (Has(message, "invalid datatype for accumulation") ||
      Has(message, "unsupported datatype combination")) {
    return "the caller combined data types this primitive has no accumulation for (an integer "
           "source with floating-point weights, say): use a combination its documentation lists";
  }
  if (Has(message, "has no elements")) {
    return "the caller passed an empty tensor (a dimension of 0)";
  }
  if (Has(message, "bad number of dimensions") ||
      Has(message, "inconsistent number of dimensions")) {
    return "the caller passed a tensor with a number of dimensions this primitive does not take";
  }
  if (Has(message, "inconsistent datatypes")) {
    return "the caller passed tensors whose data types must agree and do not";
  }
  if (Has(message, "nullptr")) {
    return "the caller passed a null pointer for an argument the call needs";
  }
  if (Has(message, "bad propagation kind")) {
    return "the caller asked for a propagation kind (forward/backward) this primitive does not "
           "have";
  }
  if (Has(message, "bad algorithm"))
    return "the caller asked for an algorithm this primitive does not have";
  if (Has(message, "bad param")) return "the caller passed an invalid parameter at creation";
  if (Has(message, "runtime dimension")) {
    return "the caller used run-time dimensions (DNNL_RUNTIME_DIM_VAL) where this primitive "
           "needs them known at creation";
  }
  if (Has(message, "out-of-range dimensions")) {
    return "the caller passed a tensor larger than this primitive can index";
  }
  return {};
}

}  // namespace dlcheck::verbose
