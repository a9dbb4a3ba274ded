#pragma once
// Runs a user's program (`dlcheck run -- CMD`) the way `time` does: found on PATH, stdin and
// stderr inherited, with its stdout on a pipe that is read as it is written. It runs in its own
// process group, which holds the terminal while it runs when dlcheck held it (so it reads the
// terminal and gets Ctrl-C and Ctrl-Z as it would alone; dlcheck stops and goes on with it).
// SIGINT, SIGTERM and SIGHUP sent to dlcheck are passed on to the whole group (signals.h), and
// the program is killed if dlcheck dies. The program's end is what waitpid says, not the end of
// its output: what it left running in the background may hold the pipe open and keep writing;
// once the program has ended, what it wrote is read (for a quarter of a second at most), and
// whatever is left in its process group is sent SIGTERM.
//
//   ProgramSpec spec{.argv = {"python3", "train.py"}, .env = {{"ONEDNN_VERBOSE", "2"}}};
//   StatusOr<ProgramOutcome> ended = RunProgram(spec, [&](std::string_view bytes) { ... });
//   if (!ended.ok()) ...  // could not be started: 127 (not found) or 126 (not executable)

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "dispatch/worker.h"

namespace dlcheck::dispatch {

struct ProgramSpec {
  std::vector<std::string> argv;  ///< argv[0] is looked up on PATH when it has no `/`
  /// Variables set (or overridden) in the program's environment; the rest is inherited.
  std::vector<std::pair<std::string, std::string>> env;
  /// The CPUs the program (every thread it starts) may run on; empty: those dlcheck may use.
  std::vector<int> cpus;
};

/// How the program ended. Exactly one of exited / signaled is true.
struct ProgramOutcome {
  bool exited = false;
  int exit_code = 0;  ///< when exited
  bool signaled = false;
  int signal = 0;            ///< when signaled
  int forwarded_signal = 0;  ///< the last SIGINT/SIGTERM/SIGHUP dlcheck received, 0 if none
  double wall_s = 0;         ///< from the start to the end of the program
  int pid = 0;

  /// The exit status a shell would report: the exit code, or 128 + the signal.
  int ShellStatus() const { return exited ? exit_code : 128 + signal; }
  /// "exited with status 3", "was killed by signal 11 (SIGSEGV)".
  std::string Describe() const;
};

/// Runs the program, calling `on_stdout` with each piece of its stdout as it arrives. Errors:
/// the program could not be started (ExitCode::kCommandNotFound, kCannotExecute, with the
/// reason exec gave), or no pipe or process could be made (kFailure).
StatusOr<ProgramOutcome> RunProgram(const ProgramSpec& spec,
                                    const std::function<void(std::string_view)>& on_stdout);

}  // namespace dlcheck::dispatch
