#pragma once
// A user's program run with oneDNN's verbose mode on (every generation), its stdout split as it
// arrives: verbose lines to a log session (the one of `parse`), the program's own bytes on to
// dlcheck's stderr unchanged and in order. Used by `run -- CMD` (once) and `dispatch -- CMD`
// (once per configuration and repeat).
//
//   verbose::LogSession session;
//   StatusOr<ProgramCapture> run = CaptureProgram({.spec = {.argv = {"python3", "train.py"}}},
//                                                 session);
//   session.aggregator().rows() ...          // the rows; run->outcome says how it ended

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "dispatch/capture.h"
#include "os/subprocess.h"
#include "verbose/log_session.h"

namespace dlcheck::dispatch {

/// The variables that switch verbose output on for every oneDNN generation: ONEDNN_ (2.5+),
/// DNNL_ (1.1-2.4, and read by 2.5-3.x when ONEDNN_ is unset), MKLDNN_ (0.x-1.0), at level 2
/// (creation and execution), with timestamps (2.1+) for the timeline.
const std::vector<std::pair<std::string, std::string>>& VerboseEnvironment();

/// The variables that cap oneDNN's ISA at `cap` for every generation: ONEDNN_MAX_CPU_ISA (2.5+),
/// DNNL_MAX_CPU_ISA (1.1+) and MKLDNN_MAX_CPU_ISA (1.0).
std::vector<std::pair<std::string, std::string>> MaxIsaEnvironment(const std::string& cap);

struct ProgramCaptureOptions {
  /// The program (argv, env, cpus); VerboseEnvironment() is added to (and wins over) spec.env.
  /// It is looked up on PATH and runs as a job of the terminal, the way `time` runs it.
  os::Spec spec;
  /// Where to copy the verbose lines (--raw-log); null: nowhere.
  std::ostream* raw_log = nullptr;
  /// Executions kept for a timeline (the rest counted); 0: no timeline.
  std::size_t max_timeline = 0;
  /// The input's name in the session (for --strict messages); empty: "<argv[0]>".
  std::string input_name;
  /// Called before the program's own bytes are written to stderr (progress clears its line),
  /// and `on_chunk` after each piece of its stdout (progress redraws). Either may be empty.
  std::function<void()> on_output;
  std::function<void()> on_chunk;
};

/// What a captured program run produced besides the session's rows.
struct ProgramCapture {
  os::Outcome outcome;
  std::uint64_t program_bytes = 0;  ///< the program's own output, passed on to stderr
  std::uint64_t program_lines = 0;
  std::uint64_t verbose_lines = 0;
  std::vector<ExecRecord> execs;  ///< the timeline (options.max_timeline of them at most)
  std::uint64_t timeline_dropped = 0;
};

/// Runs the program, feeding its verbose lines to `session` as one input (StartInput ...
/// Finish). Errors as os::RunProcess's: the program could not be started (127, 126).
StatusOr<ProgramCapture> CaptureProgram(const ProgramCaptureOptions& options,
                                        verbose::LogSession& session);

}  // namespace dlcheck::dispatch
