// SPDX-License-Identifier: Apache-2.0
#pragma once
// The test data directory and reading a file whole: the one spelling of each for every test.

#include <fstream>
#include <sstream>
#include <string>

namespace dlcheck::testing {

/// The path of a file under tests/data (`../../man/dlcheck.1` reaches the source tree's man
/// page): the one spelling of the data directory (DLCHECK_TEST_DATA) in the tests.
inline std::string DataPath(const std::string& relative) {
  return std::string(DLCHECK_TEST_DATA) + "/" + relative;
}

/// The whole content of the file at `path`; "" when it cannot be read.
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// The first line of a perf map a test writes in /tmp as another run's (a process that has
/// ended): the tests that look for maps left behind pass it over.
inline constexpr char kAnotherRunsPerfMap[] =
    "# not a leftover: another run's map, written by a test";

}  // namespace dlcheck::testing
