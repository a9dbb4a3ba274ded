// SPDX-License-Identifier: Apache-2.0
#pragma once
// Runs the built dlcheck binary in a child process and captures what it prints, for CLI tests.

#include <sys/types.h>

#include <string>
#include <vector>

#include "support/test_files.h"

namespace dlcheck::testing {

struct RunResult {
  int exit_code = -1;  ///< the exit status, or 128 + signal number
  std::string out;
  std::string err;
};

/// Runs DLCHECK_BINARY with `args`; `stdin_text` is written to its standard input.
RunResult RunDlcheck(const std::vector<std::string>& args, const std::string& stdin_text = {},
                     const std::vector<std::string>& extra_env = {});

/// Starts DLCHECK_BINARY with `args` without waiting, its stdout and stderr going to the files
/// `out` and `err`: for tests that signal it while it runs. The caller reaps it.
pid_t StartDlcheck(const std::vector<std::string>& args, const std::string& out,
                   const std::string& err);

/// The report commands of the binary's command table (`dlcheck help --list`), in --help order:
/// what the tests that hold every command to a rule iterate, so none can be left out.
std::vector<std::string> ReportCommands();

}  // namespace dlcheck::testing
