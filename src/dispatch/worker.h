#pragma once
// A worker process: dlcheck runs oneDNN in a child so that process-wide settings (maximum ISA,
// verbose mode, threads) can differ per run and so that a crash (SIGILL on a machine whose CPUID
// lies) is a result, not the end of dlcheck. The parent reads the child's stdout line by line as
// it is written and hands each line on at once (the verbose callback).
//
//   WorkerSpec spec{.argv = {SelfExecutable(), "worker", ...}, .env = {{"ONEDNN_VERBOSE", "1"}}};
//   StatusOr<WorkerOutcome> outcome = RunWorker(spec, [&](std::string_view line) { ... });

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace dlcheck::dispatch {

struct WorkerSpec {
  std::vector<std::string> argv;  ///< argv[0] is the program to run
  /// Variables set (or overridden) in the child's environment; the rest is inherited.
  std::vector<std::pair<std::string, std::string>> env;
  /// Variables removed from the child's environment (e.g. a user's ONEDNN_VERBOSE).
  std::vector<std::string> unset_env;
  double timeout_s = 600;  ///< the child is killed (SIGKILL) after this many seconds
};

/// How the child ended. Exactly one of exited / signaled / timed_out is true.
struct WorkerOutcome {
  bool exited = false;
  int exit_code = 0;  ///< when exited
  bool signaled = false;
  int signal = 0;  ///< when signaled (or the SIGKILL sent after a timeout)
  bool timed_out = false;
  std::size_t stdout_lines = 0;
  std::string stderr_tail;  ///< the last 16 KiB the child wrote on stderr
  int pid = 0;              ///< the child's process id (names its perf map, /tmp/perf-<pid>.map)
  /// The SIGINT, SIGTERM or SIGHUP dlcheck received and passed on to the child; 0: none.
  int interrupted = 0;

  bool ok() const { return exited && exit_code == 0; }
  /// "exited with status 3", "killed by signal 4 (SIGILL)", "timed out after 5 s and was killed",
  /// "was stopped: dlcheck received SIGINT and passed it on".
  std::string Describe(double timeout_s) const;
};

/// Runs the worker, calling `on_line` for every line of its stdout (without the line end) as it
/// arrives. Lines longer than `max_line` bytes are cut into pieces of that size. SIGINT, SIGTERM
/// and SIGHUP sent to dlcheck meanwhile are passed on to the child's process group (signals.h)
/// and recorded in `interrupted`. Returns an error Status only when the child could not be
/// started at all.
StatusOr<WorkerOutcome> RunWorker(const WorkerSpec& spec,
                                  const std::function<void(std::string_view)>& on_line,
                                  std::size_t max_line = 1 << 20);

/// In a child between fork and exec: asks the kernel to SIGKILL it when its parent dies, and
/// exits at once (status 127) if `parent` has already gone: the race prctl leaves open.
/// Every child dlcheck starts calls it, so no worker or program outlives a killed dlcheck.
void DieWithParent(int parent);

/// "SIGSEGV" for 11 (glibc's abbreviation with `SIG`), or "" for a number that names none.
std::string SignalName(int signal);

/// "was killed by signal 11 (SIGSEGV)" (without the name where the signal has none).
std::string KilledBySignalText(int signal);

/// A child's environment: this process's, minus the names in `unset` and those `overrides` sets,
/// plus `overrides`, as NAME=VALUE strings.
std::vector<std::string> ChildEnvironment(
    const std::vector<std::pair<std::string, std::string>>& overrides,
    const std::vector<std::string>& unset = {});

/// The path of the running dlcheck binary (/proc/self/exe), to start itself as a worker.
std::string SelfExecutable();

}  // namespace dlcheck::dispatch
