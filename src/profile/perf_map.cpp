// SPDX-License-Identifier: Apache-2.0
#include "profile/perf_map.h"

#include <fmt/format.h>
#include <unistd.h>

#include <charconv>

namespace dlcheck::profile {

const std::vector<std::pair<std::string, std::string>>& JitProfileEnvironment() {
  static const std::vector<std::pair<std::string, std::string>> kEnvironment = {
      {"ONEDNN_JIT_PROFILE", "2"}, {"DNNL_JIT_PROFILE", "2"}, {"MKLDNN_JIT_PROFILE", "2"}};
  return kEnvironment;
}

std::string PerfMapPath(int pid, std::string_view dir) {
  return fmt::format("{}/perf-{}.map", dir, pid);
}

std::optional<int> PerfMapPid(std::string_view file_name) {
  constexpr std::string_view kPrefix = "perf-", kSuffix = ".map";
  if (!file_name.starts_with(kPrefix) || !file_name.ends_with(kSuffix)) return std::nullopt;
  const std::string_view digits =
      file_name.substr(kPrefix.size(), file_name.size() - kPrefix.size() - kSuffix.size());
  // Digits only, at most nine of them (a pid fits an int): no sign, no space, no overflow.
  if (digits.empty() || digits.size() > 9 ||
      digits.find_first_not_of("0123456789") != std::string_view::npos) {
    return std::nullopt;
  }
  int pid = 0;
  std::from_chars(digits.data(), digits.data() + digits.size(), pid);
  return pid;
}

bool IsPerfMapPath(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash != std::string_view::npos && path.substr(0, slash) == kPerfMapDir &&
         PerfMapPid(path.substr(slash + 1)).has_value();
}

void RemovePerfMaps(const std::set<int>& pids, std::string_view dir) {
  for (int pid : pids) unlink(PerfMapPath(pid, dir).c_str());
}

}  // namespace dlcheck::profile
