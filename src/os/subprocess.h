// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one way dlcheck runs another program: the model worker, a user's program (`run -- CMD`,
// `dispatch -- CMD`, `profile -- CMD`), perf and scontrol. Every child
// - runs in its own process group, so that a signal or a timeout reaches everything it started;
// - gets SIGINT, SIGTERM and SIGHUP that dlcheck receives while it runs (signals.h), which are
//   recorded in Outcome::interrupted;
// - is killed (SIGKILL) if dlcheck dies, and with its group when it outlives a signal dlcheck
//   passed on by Spec::grace_after_signal_s; it inherits dlcheck's stdin;
// - writes its stdout into a pipe that is read as it is written.
// Its end is what waitpid says, not the end of its output: once it has ended, what it wrote is
// read (for a quarter of a second at most, or to the end with Spec::read_to_end), and whatever
// it left in its process group is sent SIGTERM, so nothing dlcheck started outlives its run.
//
//   Spec spec{.argv = {"python3", "train.py"}, .env = {{"ONEDNN_VERBOSE", "2"}},
//             .search_path = true, .terminal = true};
//   StatusOr<Outcome> ended = RunProcess(spec, [&](std::string_view bytes) { ... });
//   if (!ended.ok()) ...  // could not be started: 127 (not found) or 126 (not executable)
//   RunProcessLines(spec, [&](std::string_view line) { ... });  // the same, line by line

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "os/exit_status.h"

namespace dlcheck::os {

/// What to run and how. The defaults suit a helper program (perf, a worker): found by its path,
/// its stderr inherited, no time limit.
struct Spec {
  std::vector<std::string> argv;  ///< argv[0]: a path, or a name looked up when search_path
  /// Variables set (or overridden) in the child's environment; the rest is inherited.
  std::vector<std::pair<std::string, std::string>> env;
  /// Variables removed from the child's environment (e.g. a user's ONEDNN_VERBOSE).
  std::vector<std::string> unset_env;
  bool search_path = false;  ///< argv[0] without a `/` is looked up on PATH, as a shell does
  /// Its stderr into a pipe whose last 16 KiB are kept (Outcome::stderr_tail); else inherited.
  bool keep_stderr_tail = false;
  /// Job control, as a shell does for a job: the child's group holds dlcheck's terminal while
  /// it runs (when dlcheck held it), so it reads the terminal and gets Ctrl-C; when it is
  /// stopped (Ctrl-Z) dlcheck stops too and both go on together.
  bool terminal = false;
  /// Its output is read to the end (until every writer closed it), not for 0.25 s after it ended:
  /// for a helper whose output is the result (a worker; perf, whose workload ends after it).
  bool read_to_end = false;
  double timeout_s = 0;  ///< killed (SIGKILL, its whole group) after this many seconds; 0: never
  /// Once dlcheck has passed it a signal, how long it may take to end before its group is
  /// killed (SIGKILL): a child that ignores the signal, or a setuid one that the parent-death
  /// signal does not reach, never outlives dlcheck. A launcher that writes a file after the
  /// signal (perf record) gets longer.
  double grace_after_signal_s = 10;
  std::vector<int> cpus;  ///< the CPUs it (every thread it starts) may run on; empty: dlcheck's
  /// With keep_stderr_tail: called with each piece of its stderr as well (`tune` passes the
  /// program's stderr on and keeps its last line); empty: the tail only.
  std::function<void(std::string_view)> on_stderr;
  /// Called with the child's process id while it runs, between reads of its output (every
  /// 0.1 s at least): `tune` samples the running program's /proc there.
  std::function<void(int pid)> while_running;
};

/// How the child ended. Exactly one of exited / signaled / timed_out is true.
struct Outcome {
  bool exited = false;
  int exit_code = 0;  ///< when exited
  bool signaled = false;
  int signal = 0;  ///< when signaled (or the SIGKILL sent after a timeout)
  bool timed_out = false;
  double timeout_s = 0;  ///< the limit it ran under (Spec::timeout_s)
  /// The SIGINT, SIGTERM or SIGHUP dlcheck received and passed on to the child; 0: none.
  int interrupted = 0;
  double wall_s = 0;  ///< from its start to its end
  /// When it was started, in seconds since the epoch on CLOCK_REALTIME (the clock of oneDNN's
  /// verbose timestamps and of torch.profiler's events), read just before the fork.
  double start_unix_s = 0;
  int pid = 0;              ///< the child's process id (names its perf map, /tmp/perf-<pid>.map)
  std::string stderr_tail;  ///< with Spec::keep_stderr_tail: the last 16 KiB of its stderr

  bool ok() const { return exited && exit_code == 0; }
  /// The exit status a shell would report: the exit code, or 128 + the signal.
  int ShellStatus() const { return exited ? exit_code : ExitStatusForSignal(signal); }
  /// How the process itself ended: "exited with status 3", "was killed by signal 11 (SIGSEGV)",
  /// "timed out after 5 s and was killed".
  std::string Ended() const;
  /// Ended(), except for a child stopped on the user's word, which did not crash: "was stopped:
  /// dlcheck received SIGINT and passed it on".
  std::string Describe() const;
};

/// Runs the child, calling `on_stdout` with each piece of its stdout as it arrives. Errors: the
/// child could not be started (ExitCode::kCommandNotFound, kCannotExecute, with the reason exec
/// gave), or no pipe or process could be made (kFailure).
StatusOr<Outcome> RunProcess(const Spec& spec,
                             const std::function<void(std::string_view)>& on_stdout);

/// RunProcess(), with the stdout cut into lines (without their `\n` or `\r\n`); a line longer than
/// `max_line` bytes is cut into pieces of that size, and a last line without `\n` is a line.
StatusOr<Outcome> RunProcessLines(const Spec& spec,
                                  const std::function<void(std::string_view)>& on_line,
                                  std::size_t max_line = 1 << 20);

/// "cannot run 'x': command not found" (kCommandNotFound), "cannot run '/x/y': Permission
/// denied" (kCannotExecute): why `program` could not be started, from exec's errno.
Status CannotRun(const std::string& program, int err);

/// `name` looked up on `path_list` (PATH's syntax: an empty entry is the current directory) as
/// execvp would: the first executable regular file of that name; nullopt when none is.
std::optional<std::string> FindOnPath(std::string_view name, std::string_view path_list);

/// The program a child started with Spec::search_path would run, found before it is started: a
/// name with a `/` as it is, otherwise looked up on `path_list`. Error: CannotRun's, as exec would
/// give it ("cannot run 'x': command not found", "cannot run './y': Permission denied").
StatusOr<std::string> FindProgram(const std::string& program, std::string_view path_list);

/// "was killed by signal 11 (SIGSEGV)" (without the name where the signal has none).
std::string KilledBySignalText(int signal);

/// The path of the running dlcheck binary (/proc/self/exe), to start itself as a worker.
std::string SelfExecutable();

}  // namespace dlcheck::os
