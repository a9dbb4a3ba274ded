// SPDX-License-Identifier: Apache-2.0
#include "whatif/environment.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "common/finding_codes.h"
#include "common/onednn_isa.h"
#include "common/text.h"

namespace dlcheck::whatif {
namespace {

constexpr std::string_view kPrefixes[] = {"ONEDNN_", "DNNL_", "MKLDNN_", "OMP_", "KMP_", "GOMP_"};
constexpr char kEntryEnd = '\x1f';

// The name without its library prefix: MAX_CPU_ISA for ONEDNN_/DNNL_/MKLDNN_MAX_CPU_ISA; empty
// for OpenMP's.
std::string_view OneDnnSetting(std::string_view name) {
  for (std::string_view prefix : {"ONEDNN_", "DNNL_", "MKLDNN_"}) {
    if (name.starts_with(prefix)) return name.substr(prefix.size());
  }
  return {};
}

std::string Lower(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower;
}

std::string CapEffect(std::string_view value, std::string_view host_isa) {
  const std::string cap = Lower(value);
  const std::optional<int> cap_rank = onednn::IsaRank(cap);
  const std::optional<int> host_rank = onednn::IsaRank(host_isa);
  if (cap_rank && host_rank && *cap_rank >= *host_rank) return {};
  if (cap_rank && host_rank) {
    return fmt::format("capped the measurement at {}, below this host's {}: other kernels", cap,
                       host_isa);
  }
  return fmt::format("capped the measurement at '{}' (not ranked against this host's {})", value,
                     host_isa.empty() ? "ISA" : host_isa);
}

}  // namespace

bool IsMeasurementVariable(std::string_view name) {
  return std::any_of(std::begin(kPrefixes), std::end(kPrefixes),
                     [name](std::string_view prefix) { return name.starts_with(prefix); });
}

std::vector<EnvironmentVariable> MeasurementVariables(const char* const* environment) {
  std::vector<EnvironmentVariable> found;
  for (const char* const* entry = environment; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::size_t equals = text.find('=');
    if (equals == std::string_view::npos || !IsMeasurementVariable(text.substr(0, equals))) {
      continue;
    }
    found.push_back({std::string(text.substr(0, equals)), std::string(text.substr(equals + 1))});
  }
  return found;
}

std::string EffectOf(const EnvironmentVariable& v, std::string_view host_isa) {
  const std::string_view setting = OneDnnSetting(v.name);
  if (setting == "MAX_CPU_ISA") return CapEffect(v.value, host_isa);
  if (setting == "VERBOSE") {
    if (v.value.empty() || v.value == "0" || Lower(v.value) == "none") return {};
    return "printed oneDNN's verbose lines into the report and timed with them";
  }
  if (setting == "CPU_ISA_HINTS") return "steered oneDNN's choice of kernels";
  if (setting == "PRIMITIVE_CACHE_CAPACITY") return {};
  if (!setting.empty()) return {};  // JIT dumps and profiles: files beside, figures alike
  // OpenMP: whatif sets the thread count itself; where threads run and how they wait it leaves.
  if (v.name == "OMP_NUM_THREADS" || v.name == "OMP_DYNAMIC" || v.name == "OMP_DISPLAY_ENV" ||
      v.name == "KMP_SETTINGS") {
    return {};
  }
  if (v.name == "OMP_PROC_BIND" || v.name == "OMP_PLACES" || v.name == "GOMP_CPU_AFFINITY" ||
      v.name == "KMP_AFFINITY") {
    return "placed the measurement's threads on chosen CPUs";
  }
  if (v.name == "OMP_WAIT_POLICY" || v.name == "GOMP_SPINCOUNT" || v.name == "KMP_BLOCKTIME") {
    return "changed how the measurement's threads wait between primitives";
  }
  return {};
}

std::optional<Finding> RemovedEnvironmentFinding(const std::vector<EnvironmentVariable>& removed,
                                                 std::string_view host_isa) {
  if (removed.empty()) return std::nullopt;
  std::vector<std::string> effects;
  for (const EnvironmentVariable& v : removed) {
    const std::string effect = EffectOf(v, host_isa);
    if (!effect.empty())
      effects.push_back(fmt::format("{}={} would have {}", v.name, v.value, effect));
  }
  if (effects.empty()) {
    return Finding{.severity = Severity::kInfo,
                   .code = codes::kEnvironmentRemoved,
                   .message = fmt::format(
                       "{} removed from the measurement (environment_removed); none of them would "
                       "have changed its figures",
                       Join(EnvironmentTexts(removed), ", "))};
  }
  return Finding{
      .severity = Severity::kWarning,
      .code = codes::kEnvironmentRemoved,
      .message = fmt::format("removed from the measurement (environment_removed): {}; measured "
                             "without them, as oneDNN runs by default here",
                             Join(effects, "; "))};
}

std::vector<std::string> EnvironmentTexts(const std::vector<EnvironmentVariable>& variables) {
  std::vector<std::string> texts;
  for (const EnvironmentVariable& v : variables) texts.push_back(v.name + "=" + v.value);
  return texts;
}

std::string EncodeEnvironment(const std::vector<EnvironmentVariable>& variables) {
  std::string text;
  for (const EnvironmentVariable& v : variables) {
    text += v.name + "=" + v.value + kEntryEnd;
  }
  return text;
}

std::vector<EnvironmentVariable> DecodeEnvironment(std::string_view text) {
  std::vector<EnvironmentVariable> variables;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find(kEntryEnd), text.size());
    const std::string_view entry = text.substr(0, end);
    const std::size_t equals = entry.find('=');
    if (equals != std::string_view::npos && equals > 0) {
      variables.push_back(
          {std::string(entry.substr(0, equals)), std::string(entry.substr(equals + 1))});
    }
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return variables;
}

}  // namespace dlcheck::whatif
