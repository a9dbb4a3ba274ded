// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every exit status dlcheck can end with, in one place; man/dlcheck.1 EXIT STATUS lists them.
// `dlcheck check` uses the monitoring-plugin convention instead (0 OK, 1 WARNING, 2 CRITICAL,
// 3 UNKNOWN) and documents that separately.

namespace dlcheck {

enum class ExitCode : int {
  kOk = 0,            ///< the command did what was asked
  kFailure = 1,       ///< an unexpected internal error (a bug: please report it)
  kRegression = 1,    ///< `diff`: B regressed against A (what a CI job gates on)
  kUsage = 2,         ///< the command line was wrong: unknown option, bad value
  kInputError = 3,    ///< an input file is missing, unreadable or malformed
  kStrictParse = 4,   ///< `parse --strict` met a line it could not parse
  kWorkerFailed = 5,  ///< the model worker crashed, was killed or timed out
  kDeviation = 6,     ///< oneDNN and the scalar reference disagree beyond tolerance
  kUnsupported = 7,   ///< the machine cannot do what was asked (e.g. an ISA it lacks)
  kOutputError = 8,   ///< an output file could not be written (full disk, no permission)
  // `dlcheck run -- CMD` ends with CMD's own exit status (128 + N for signal N), as `time`
  // does; these two are the shell's codes for a command that could not be started.
  kCannotExecute = 126,    ///< `-- CMD` (run, profile, dispatch, whatif) cannot be executed
  kCommandNotFound = 127,  ///< `-- CMD` (run, profile, dispatch, whatif) was not found
};

inline int ToInt(ExitCode code) {
  return static_cast<int>(code);
}

}  // namespace dlcheck
