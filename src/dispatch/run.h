// SPDX-License-Identifier: Apache-2.0
#pragma once
// One run, of dlcheck's model in a worker or of a user's program: how it ended, what its verbose
// stream said (header, rows, summary, diagnostics, timeline, parse counts) and, for the model,
// what only the worker reports. Every command that runs something (`verbose`, `run`, `dispatch`,
// `profile`, `check`) gets this record from dispatch::Capture (capture.h).
//
//   StatusOr<Run> run = Capture(ProgramSource{{"python3", "train.py"}}, settings);
//   run->rows ...                          // per primitive; run->outcome says how it ended
//   if (run->model) run->model->results.samples_per_s ...   // the worker's own results

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/finding.h"
#include "common/status.h"
#include "dispatch/worker_protocol.h"
#include "os/subprocess.h"
#include "verbose/aggregate.h"
#include "verbose/line_parser.h"
#include "verbose/timeline.h"

namespace dlcheck::dispatch {

/// What only dlcheck's model worker reports, besides its verbose lines.
struct ModelResults {
  std::string last_phase;  ///< the phase the worker was in when it ended
  std::string last_layer;  ///< the layer it announced last
  WorkerResults results;   ///< its result lines, typed
  struct LayerFallback {
    std::string layer;
    std::string reason;
  };
  std::vector<LayerFallback> fallbacks;  ///< layers oneDNN could not run (the scalar kernels did)
};

/// What a user's program wrote on its stdout besides verbose lines (passed on to dlcheck's
/// stderr).
struct ProgramOutput {
  std::uint64_t bytes = 0;
  std::uint64_t lines = 0;
};

/// How a program's oneDNN was asked for verbose output: the level variables it got, dlcheck's
/// request or the user's own (capture.h: ChooseVerboseRequest).
struct VerboseRequest {
  /// The variables that set the level, in the order oneDNN reads them, as the program got them.
  std::vector<std::pair<std::string, std::string>> variables;
  /// The user set at least one of them before dlcheck ran: those are kept, none is added.
  bool from_user = false;
  /// `ONEDNN_VERBOSE=2,dispatch DNNL_VERBOSE=2 MKLDNN_VERBOSE=2`.
  std::string Text() const;
  /// The level oneDNN 2.x and 3.0-3.1 read (src/common/utils.cpp, getenv_int_user): the first of
  /// ONEDNN_VERBOSE, DNNL_VERBOSE whose value has 1 to 11 characters, through atoi (`2,dispatch`
  /// -> 2, `all` -> 0); 0 when none: verbose off.
  int OneDnn2Level() const;
  /// What oneDNN 3.2+ reads (src/common/verbose.cpp, get_verbose): the first set of
  /// ONEDNN_VERBOSE, DNNL_VERBOSE, split at commas, lower case; nullopt when neither is set.
  struct OneDnn3Reading {
    bool profile = false;   ///< create or exec lines (1, 2, all, profile...)
    bool dispatch = false;  ///< create:dispatch lines (dispatch, all)
  };
  OneDnn3Reading OneDnn3() const;
};

struct Run {
  os::Outcome outcome;
  verbose::LogHeader header;
  std::vector<verbose::PrimitiveStats> rows;  ///< one per primitive (and layer, for the model)
  std::vector<verbose::DiagnosticStats> diagnostics;
  verbose::Summary summary;
  verbose::ParseStats input;        ///< the lines that were not the worker's protocol: counts,
                                    ///< skips by reason
  std::uint64_t verbose_lines = 0;  ///< verbose lines (creates, execs, diagnostics)
  /// The timeline (the model's traced steps; all of a program).
  std::vector<verbose::ExecRecord> execs;
  std::uint64_t timeline_dropped = 0;  ///< executions past the timeline's cap, counted
  ProgramOutput program_output;        ///< a program's; zero for the model
  std::optional<ModelResults> model;   ///< the model worker's; nullopt for a program
  VerboseRequest verbose_request;      ///< a program's; empty for the model

  /// True when the model worker refused the request before doing anything (a bad --data
  /// directory, say): it exited with an error status other than 1 (an internal error), in no
  /// phase and without a verbose line. Its own error line (WorkerError) says why. Never for a
  /// program: its exit status is its own.
  bool Refused() const;
  /// True when the model worker ran out of memory: it exited with kWorkerOutOfMemoryExit
  /// (worker_protocol.h), which a worker gives for nothing else.
  bool OutOfMemory() const;
  /// The stderr tail the runner kept (the worker's), without its last line feeds.
  std::string WorkerError() const;
  /// Where the model worker ended: "in phase start-up" (before its first phase: loading the
  /// data), "in phase init", "in phase init, layer fc2"; empty for a program.
  std::string Where() const;
  /// The error of a worker that ran out of memory (OutOfMemory), for the command's error edge:
  /// `out of memory: the model worker did not fit in the memory it may use (in phase init, layer
  /// fc2); raise the limit ... or use a smaller --batch, --layers or --data set`.
  Status OutOfMemoryError() const;
  /// How a command ends when the worker refused (Refused): with `error` when it is set (memory
  /// ran out, or the worker gave no reason); else with the worker's exit status, after its own
  /// error line (`dlcheck: ...`, printed as it is) on stderr.
  struct Refusal {
    Status error;
    int exit_status = 0;
    std::string worker_line;
  };
  Refusal RefusalOf() const;
  /// A numeric result of the model worker by its key (NumericResult); nullopt when it did not
  /// report it, or for a program.
  std::optional<double> Number(std::string_view key) const;
};

/// How a run's model worker ended, when that is news: `out-of-memory` ("`who` did not fit in the
/// memory it may use (where)") or `worker-failed` ("`who` was killed by signal 4 (SIGILL) in
/// phase init"), each followed by `then` ("; the other runs went on"). Nullopt for a worker that
/// ended well, one that the signal dlcheck passed on stopped (no failure: said once, as
/// interrupted), and for a program (its exit status is its own: program-failed says it).
std::optional<Finding> WorkerEndFinding(const Run& run, std::string_view who,
                                        std::string_view then);

/// True when the model's numbers disagree with dlcheck's scalar reference: the largest deviation
/// exceeds the tolerance (a NaN deviation disagrees).
bool Deviates(const WorkerResults& results);

/// `verbose-setting-kept` for a program that got the user's own verbose variables (from_user):
/// what they are, what oneDNN 2.x/3.0-3.1 and 3.2+ read them as (a warning where that is off),
/// and how to get dlcheck's request instead; nullopt for dlcheck's own request. Part of
/// RunFindings; `dispatch -- CMD` and `profile -- CMD` add it to their reports.
std::optional<Finding> VerboseKeptFinding(const VerboseRequest& request);

/// oneDNN's exec time over the run's wall time, in percent (more than 100 when primitives run in
/// parallel threads); nullopt without a wall time.
std::optional<double> ExecPctOfWall(const Run& run);
/// Below this share of wall time in oneDNN, a program's run says that its time is elsewhere.
inline constexpr double kOneDnnShareOfWallPct = 50;

/// What one run says in a report of that run alone (`verbose`, `run`): `timeline-capped` when
/// the timeline left executions out; for the model worker `model-fallback`, `deviation`, and
/// `interrupted` (the signal dlcheck passed on stopped it) or how it ended (WorkerEndFinding);
/// for a program, named `program` in the messages: `verbose-setting-kept` (the user's verbose
/// variables), how it ended, told apart (`program-ended-early`: failed or crashed before oneDNN
/// printed a line; `onednn-not-loaded`: ended well without one; `onednn-errors-only`: oneDNN
/// created nothing and printed only diagnostics, listed; `program-signaled`), and
/// `time-outside-onednn` (oneDNN's exec time below kOneDnnShareOfWallPct of wall time).
std::vector<Finding> RunFindings(const Run& run, std::string_view program);

/// `below-host-isa` (info): a oneDNN 3.x log (its header's version) whose executed compute
/// primitives ran at an ISA below `host_onednn3_isa`, the level oneDNN 3.x dispatches on this CPU
/// (detect::MaxOneDnn3Isa; its 3.5+ names rank as the same level): how many rows and their share
/// of the compute time. Nullopt for an older oneDNN's log (2.x has no 3.x level to reach), when
/// none ran below, or when the host's level cannot be ranked.
std::optional<Finding> BelowHostIsaFinding(const Run& run, std::string_view host_onednn3_isa);

}  // namespace dlcheck::dispatch
