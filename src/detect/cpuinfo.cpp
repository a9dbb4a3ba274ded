// SPDX-License-Identifier: Apache-2.0
#include "detect/cpuinfo.h"

#include <sstream>
#include <utility>

#include "os/input_file.h"

namespace dlcheck::detect {

std::optional<std::set<std::string, std::less<>>> ParseCpuinfoFlags(std::string_view text) {
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view key = line.substr(0, colon);
    while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
    if (key != "flags") continue;
    std::set<std::string, std::less<>> flags;
    std::istringstream words{std::string(line.substr(colon + 1))};
    for (std::string word; words >> word;) flags.insert(word);
    return flags;
  }
  return std::nullopt;
}

std::optional<std::string> ReadProcCpuinfo() {
  // The bounded reader (os/input_file.h): a regular file, read to its end, at most 64 MiB.
  StatusOr<std::string> text =
      os::ReadInputFile("/proc/cpuinfo", {.what = "/proc file", .hint = "", .regular_only = true});
  if (!text.ok()) return std::nullopt;
  return std::move(*text);
}

}  // namespace dlcheck::detect
