#pragma once
// Runs the built dlcheck binary in a child process and captures what it prints, for CLI tests.

#include <string>
#include <vector>

namespace dlcheck::testing {

struct RunResult {
  int exit_code = -1;  ///< the exit status, or 128 + signal number
  std::string out;
  std::string err;
};

/// Runs DLCHECK_BINARY with `args`; `stdin_text` is written to its standard input.
RunResult RunDlcheck(const std::vector<std::string>& args, const std::string& stdin_text = {},
                     const std::vector<std::string>& extra_env = {});

/// The path of a file under tests/data.
std::string DataPath(const std::string& relative);

}  // namespace dlcheck::testing
