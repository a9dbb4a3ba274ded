// SPDX-License-Identifier: Apache-2.0
#include "cli/model_options.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <type_traits>

#include "cli/enum_option.h"
#include "report/safe_text.h"

namespace dlcheck::cli {
namespace {

// Adds one described option (dispatch::VisitModelOptions) to `sub`, by the member's type.
class OptionAdder {
 public:
  OptionAdder(CLI::App& sub, bool worker) : sub_(sub), worker_(worker) {}

  template <typename T>
  void operator()(const dispatch::ModelOptionInfo& info, T& target) {
    if (info.worker_only && !worker_) return;
    const std::string flags(info.flags);
    const std::string help(info.help);
    CLI::Option* option = nullptr;
    if constexpr (std::is_enum_v<T>) {
      std::vector<std::pair<std::string, T>> choices;
      for (T value : dispatch::AllValues(T{})) choices.emplace_back(mlp::Name(value), value);
      option = AddEnumOption(sub_, flags, target, std::move(choices), help, "");
    } else if constexpr (std::is_same_v<T, bool>) {
      option = sub_.add_flag(flags, target, help);
    } else {
      option = sub_.add_option(flags, target, help);
      if constexpr (std::is_same_v<T, std::vector<int>>) {
        option->delimiter(',')->expected(info.min, info.max);
      } else if constexpr (std::is_same_v<T, int>) {
        if (info.min < info.max) option->check(CLI::Range(info.min, info.max));
      }
      if (info.positive) option->check(PositiveFinite());
      if (info.seconds) option->check(Seconds());
    }
    if (!info.type_name.empty()) option->type_name(std::string(info.type_name));
  }

 private:
  CLI::App& sub_;
  bool worker_;
};

}  // namespace

namespace {

// The one check of every floating option of every command: CLI11 reads `text` as a number, the
// number is finite ("nan", "-nan", "inf", "1e999" are not), at least `low` (above it when
// `above_low`) and at most `high`.
bool IsRealIn(const std::string& text, double low, double high, bool above_low) {
  double value = 0;
  if (!CLI::detail::lexical_cast(text, value) || !std::isfinite(value)) return false;
  return (above_low ? value > low : value >= low) && value <= high;
}

// The value as echoed in a message: 40 bytes at most, control bytes as `?` (report/safe_text.h).
std::string Echoed(const std::string& text) {
  return report::ShortInput(text, 40);
}

}  // namespace

const CLI::Validator& PositiveFinite() {
  static const CLI::Validator kValidator(
      [](std::string& text) -> std::string {
        if (!IsRealIn(text, 0, std::numeric_limits<double>::max(), /*above_low=*/true))
          return "'" + Echoed(text) + "' is not a finite number above 0";
        return {};
      },
      "NUMBER > 0");
  return kValidator;
}

const CLI::Validator& Seconds() {
  static const CLI::Validator kValidator(
      [](std::string& text) -> std::string {
        if (!IsRealIn(text, 0, kMaxSeconds, /*above_low=*/true)) {
          return "'" + Echoed(text) + "' is not a number of seconds above 0 and at most " +
                 std::to_string(static_cast<long>(kMaxSeconds)) + " (30 days)";
        }
        return {};
      },
      "SECONDS");
  return kValidator;
}

CLI::Validator RealRange(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        if (!IsRealIn(text, low, high, /*above_low=*/false))
          return fmt::format("'{}' is not a number from {:g} to {:g}", Echoed(text), low, high);
        return {};
      },
      fmt::format("NUMBER in [{:g}, {:g}]", low, high));
}

void AddModelOptions(CLI::App& sub, dispatch::ModelRunOptions& options) {
  dispatch::VisitModelOptions(options, OptionAdder(sub, /*worker=*/false));
}

void AddWorkerOptions(CLI::App& sub, dispatch::ModelRunOptions& options) {
  dispatch::VisitModelOptions(options, OptionAdder(sub, /*worker=*/true));
}

const CLI::Option* GivenOptionOf(const CLI::App& sub, std::string_view group) {
  for (const CLI::Option* option : sub.get_options()) {
    if (option->get_group() == group && option->count() > 0) return option;
  }
  return nullptr;
}

void AddCaptureOptions(CLI::App& sub, const CaptureOptions& options) {
  if (options.threads != nullptr) {
    sub.add_option("-t,--threads", *options.threads, options.threads_help)
        ->check(CLI::Range(1, 4096))
        ->type_name("N");
  }
  if (options.timeout_s != nullptr) {
    sub.add_option("--timeout", *options.timeout_s, options.timeout_help)
        ->check(Seconds())
        ->type_name("SECONDS");
  }
}

}  // namespace dlcheck::cli
