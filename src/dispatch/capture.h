#pragma once
// The parent side of a model run: start `dlcheck worker` with oneDNN's verbose mode on, read its
// stdout line by line as it is written, attribute every verbose line to the layer the worker
// announced before it, and aggregate per primitive. Used by `verbose` (and by `dispatch` and
// `check`, once per ISA cap or thread set).
//
//   CaptureOptions options{.run = run, .threads = 1};
//   StatusOr<CapturedRun> run = CaptureModelRun(options);
//   if (!run.ok()) ...                       // could not start the worker at all
//   if (!run->outcome.ok()) ...              // crashed, killed or timed out: what it did is kept

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/finding.h"
#include "common/status.h"
#include "dispatch/model_worker.h"
#include "dispatch/worker_protocol.h"
#include "os/subprocess.h"
#include "verbose/aggregate.h"
#include "verbose/line_parser.h"
#include "verbose/log_session.h"
#include "verbose/verbose_event.h"

namespace dlcheck::dispatch {

/// The ISA cap this process's environment sets for oneDNN (ONEDNN_MAX_CPU_ISA, else the legacy
/// DNNL_MAX_CPU_ISA); empty: none. A machine configured with a cap is run as configured: the
/// model worker of `verbose`, `profile` and `check` gets it, as any oneDNN program would.
std::string ConfiguredIsaCap();

struct CaptureOptions {
  ModelRunOptions run;
  int threads = 0;            ///< OMP_NUM_THREADS for the worker; 0: inherit the environment
  std::string max_cpu_isa;    ///< ONEDNN_MAX_CPU_ISA for the worker; empty: no cap
  double timeout_s = 600;     ///< the worker is killed after this long
  std::string raw_log_path;   ///< where to keep the raw verbose stream; empty: nowhere
  std::string worker_binary;  ///< empty: this executable (/proc/self/exe)
  /// Called when the worker enters a phase (init, reference, warmup, timed, traced, ...): for
  /// progress on a terminal. May be empty.
  std::function<void(std::string_view phase)> on_phase;
  /// More variables for the worker's environment (e.g. ONEDNN_JIT_PROFILE for perf maps).
  std::vector<std::pair<std::string, std::string>> extra_env;
  /// Words put before the worker's command line (`perf record ... --`); empty: none. The
  /// outcome's pid is then the launcher's.
  std::vector<std::string> launcher;
};

/// One primitive execution of the traced steps, for a timeline.
struct ExecRecord {
  std::string primitive;
  std::string layer;
  std::string implementation;
  std::string prop_kind;
  std::string problem;
  double start_ms = 0;  ///< since the first traced execution
  double time_ms = 0;
  /// The log's timestamp of this execution (ms since the epoch, as oneDNN prints it), when the
  /// line had one.
  std::optional<double> stamp_ms;
};

/// The executions of a session, in order, for a timeline: a listener that records while
/// `recording` (the worker's traced phase; all of a `run`), at most `max_records` of them
/// (the rest are counted in dropped()), so memory stays bounded however long the log.
class Timeline : public verbose::EventListener {
 public:
  Timeline(const verbose::LogSession& session, std::vector<ExecRecord>& execs,
           std::size_t max_records = 1'000'000)
      : session_(session), execs_(execs), max_records_(max_records) {}
  void set_recording(bool recording) { recording_ = recording; }
  /// Executions seen while recording but not kept (over max_records).
  std::uint64_t dropped() const { return dropped_; }

  void OnEvent(const verbose::VerboseEvent& e, std::size_t row) override;
  void OnRepeat(const verbose::LineMemo::Entry& repeat, double ms,
                std::optional<double> timestamp) override;

 private:
  void Add(ExecRecord rec, std::optional<double> timestamp);

  const verbose::LogSession& session_;
  std::vector<ExecRecord>& execs_;
  std::size_t max_records_;
  bool recording_ = false;
  std::uint64_t dropped_ = 0;
  std::optional<double> first_stamp_;
  double clock_ms_ = 0;
};

struct CapturedRun {
  os::Outcome outcome;
  double timeout_s = 0;
  std::string last_phase;  ///< the phase the worker was in when it ended
  std::string last_layer;  ///< the layer it announced last
  WorkerResults results;   ///< the worker's result lines, typed
  struct LayerFallback {
    std::string layer;
    std::string reason;
  };
  std::vector<LayerFallback> fallbacks;
  verbose::LogHeader header;
  std::vector<verbose::PrimitiveStats> rows;  ///< one per (layer, primitive, ...), creates and
                                              ///< traced execs
  std::vector<verbose::DiagnosticStats> diagnostics;
  verbose::Summary summary;
  std::vector<ExecRecord> execs;    ///< every traced execution, in order
  std::uint64_t verbose_lines = 0;  ///< verbose events (creates, execs, diagnostics)
  verbose::ParseStats input;        ///< the worker's non-protocol lines: counts, skips by reason

  /// True when the worker refused the request before doing anything (a bad --data directory,
  /// say): it exited with an error status other than 1 (an internal error), in no phase and
  /// without a verbose line. Its own error line (WorkerError) says why.
  bool Refused() const {
    return outcome.exited && outcome.exit_code != 0 && outcome.exit_code != 1 &&
           verbose_lines == 0 && last_phase.empty();
  }
  /// True when the worker ran out of memory: it exited with status 7 (ExitCode::kUnsupported),
  /// which a worker gives for nothing else (src/cli/worker_command.cpp).
  bool OutOfMemory() const {
    return outcome.exited && outcome.exit_code == ToInt(ExitCode::kUnsupported);
  }
  /// The worker's stderr tail without its last line feeds.
  std::string WorkerError() const {
    std::string tail = outcome.stderr_tail;
    while (!tail.empty() && tail.back() == '\n') tail.pop_back();
    return tail;
  }
  /// Where the worker ended: "in phase start-up" (before its first phase: loading the data),
  /// "in phase init", "in phase init, layer fc2".
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
  /// A numeric result by its key (NumericResult), or nullopt when the worker did not report it.
  std::optional<double> Number(std::string_view key) const { return NumericResult(results, key); }
};

/// How a run's worker ended, when that is news: `out-of-memory` ("`who` did not fit in the memory
/// it may use (where)") or `worker-failed` ("`who` was killed by signal 4 (SIGILL) in phase
/// init"), each followed by `then` ("; the other runs went on"). Nullopt for a worker that ended
/// well, or that the signal dlcheck passed on stopped (no failure: said once, as interrupted).
std::optional<Finding> WorkerEndFinding(const CapturedRun& run, std::string_view who,
                                        std::string_view then);

/// Runs the model in a worker and captures it. Errors only when the worker cannot be started
/// or the raw log cannot be written; a worker that fails is a CapturedRun with its outcome.
StatusOr<CapturedRun> CaptureModelRun(const CaptureOptions& options);

}  // namespace dlcheck::dispatch
