// SPDX-License-Identifier: Apache-2.0
#pragma once
// Text split into its lines (without the line feeds), for tests that read printed output.
#include <sstream>
#include <string>
#include <vector>

namespace dlcheck::testing {

inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

}  // namespace dlcheck::testing
