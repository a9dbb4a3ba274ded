// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reads lines of the copied fixtures under tests/data/verbose (never /work/shared at run time).

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/test_files.h"
namespace dlcheck::verbose::testing {

inline std::string DataFile(const std::string& name) {
  return dlcheck::testing::DataPath("verbose/" + name);
}

inline std::vector<std::string> FixtureLines(const std::string& name) {
  std::ifstream in(DataFile(name), std::ios::binary);
  if (!in) throw std::runtime_error("missing test data " + name);
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

/// The names of every log under tests/data/verbose (its README and scripts left out), sorted:
/// what the tests that hold for any log iterate, so a log added there is tested too.
inline std::vector<std::string> EveryLog() {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(DataFile(""))) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".log" || ext == ".txt")) {
      names.push_back(entry.path().filename().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

/// The first line of `name` that contains `needle` (the fixture must have one).
inline std::string FixtureLine(const std::string& name, const std::string& needle) {
  for (const std::string& line : FixtureLines(name)) {
    if (line.find(needle) != std::string::npos && line.rfind("# ", 0) != 0) return line;
  }
  throw std::runtime_error("no line with '" + needle + "' in " + name);
}

}  // namespace dlcheck::verbose::testing
