// SPDX-License-Identifier: Apache-2.0
#include "fleet/hostlist.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace dlcheck::fleet {
namespace {

// A name split before its trailing digits; `digits` empty when there are none.
struct SplitName {
  std::string prefix;
  std::string digits;
};

SplitName Split(const std::string& name) {
  std::size_t end = name.size();
  while (end > 0 && std::isdigit(static_cast<unsigned char>(name[end - 1]))) --end;
  // Numbers too long for an integer are kept whole, as names without a number.
  if (name.size() - end > 18) end = name.size();
  return {name.substr(0, end), name.substr(end)};
}

// "1-3,7" from sorted, distinct numbers, each printed at `width` digits.
std::string Ranges(const std::vector<unsigned long long>& numbers, std::size_t width) {
  std::string out;
  for (std::size_t i = 0; i < numbers.size();) {
    std::size_t j = i;
    while (j + 1 < numbers.size() && numbers[j + 1] == numbers[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += fmt::format("{:0{}}", numbers[i], width);
    if (j > i) out += fmt::format("-{:0{}}", numbers[j], width);
    i = j + 1;
  }
  return out;
}

}  // namespace

std::string CompressHostlist(std::vector<std::string> names) {
  // (prefix, digit width for zero-padded numbers, else 0) -> numbers
  std::map<std::tuple<std::string, std::size_t>, std::vector<unsigned long long>> numbered;
  std::vector<std::string> plain;
  std::vector<SplitName> split;
  std::set<std::tuple<std::string, std::size_t>> padded;  // (prefix, width) seen zero-padded
  for (const auto& name : names) {
    split.push_back(Split(name));
    const SplitName& s = split.back();
    if (s.digits.size() > 1 && s.digits[0] == '0') padded.insert({s.prefix, s.digits.size()});
  }
  for (std::size_t i = 0; i < names.size(); ++i) {
    const SplitName& s = split[i];
    if (s.digits.empty()) {
      plain.push_back(names[i]);
      continue;
    }
    // n10 joins n01's group: it has as many digits as that zero-padded width.
    const bool joins_padded = padded.count({s.prefix, s.digits.size()}) > 0;
    numbered[{s.prefix, joins_padded ? s.digits.size() : 0}].push_back(std::stoull(s.digits));
  }
  std::vector<std::string> parts;
  for (auto& [key, numbers] : numbered) {
    std::sort(numbers.begin(), numbers.end());
    numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
    const auto& [prefix, width] = key;
    if (numbers.size() == 1) {
      parts.push_back(fmt::format("{}{:0{}}", prefix, numbers[0], width));
    } else {
      parts.push_back(fmt::format("{}[{}]", prefix, Ranges(numbers, width)));
    }
  }
  std::sort(plain.begin(), plain.end());
  plain.erase(std::unique(plain.begin(), plain.end()), plain.end());
  parts.insert(parts.end(), plain.begin(), plain.end());
  std::sort(parts.begin(), parts.end());
  return fmt::format("{}", fmt::join(parts, ","));
}

}  // namespace dlcheck::fleet
