#include "detect/cpuinfo.h"

#include <fstream>
#include <iterator>
#include <sstream>

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
  std::ifstream in("/proc/cpuinfo");
  if (!in) return std::nullopt;
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace dlcheck::detect
