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

/// What one run says in a report of that run alone (`verbose`, `run`): `timeline-capped` when
/// the timeline left executions out; for the model worker `model-fallback`, `deviation`, and
/// `interrupted` (the signal dlcheck passed on stopped it) or how it ended (WorkerEndFinding);
/// for a program, named `program` in the messages, `no-verbose` and `program-signaled`.
std::vector<Finding> RunFindings(const Run& run, std::string_view program);

/// `below-host-isa` (info): a oneDNN 3.x log (its header's version) whose executed compute
/// primitives ran at an ISA below `host_onednn3_isa`, the level oneDNN 3.x dispatches on this CPU
/// (detect::MaxOneDnn3Isa; its 3.5+ names rank as the same level): how many rows and their share
/// of the compute time. Nullopt for an older oneDNN's log (2.x has no 3.x level to reach), when
/// none ran below, or when the host's level cannot be ranked.
std::optional<Finding> BelowHostIsaFinding(const Run& run, std::string_view host_onednn3_isa);

}  // namespace dlcheck::dispatch
