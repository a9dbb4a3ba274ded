// SPDX-License-Identifier: Apache-2.0
#pragma once
// An option whose value is one of a few names, stored as an enum. Usage errors read
// "--format: xml not in {table,csv,json}" and the help shows the names, not enum numbers.

#include <CLI/CLI.hpp>
#include <string>
#include <utility>
#include <vector>

namespace dlcheck::cli {

template <typename Enum>
CLI::Option* AddEnumOption(CLI::App& sub, const std::string& flags, Enum& target,
                           std::vector<std::pair<std::string, Enum>> choices,
                           const std::string& help, const std::string& type_name) {
  std::vector<std::string> names;
  for (const auto& [name, value] : choices) names.push_back(name);
  return sub
      .add_option_function<std::string>(
          flags,
          [&target, choices](const std::string& given) {
            const std::string lower = CLI::detail::to_lower(given);
            for (const auto& [name, value] : choices) {
              if (name == lower) target = value;
            }
          },
          help)
      ->check(CLI::IsMember(names, CLI::ignore_case))
      ->type_name(type_name);
}

}  // namespace dlcheck::cli
