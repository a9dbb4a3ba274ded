// SPDX-License-Identifier: Apache-2.0
#pragma once
// The views of a captured run (dispatch::Run): the body `verbose` and `run` share, the timeline
// (`trace` table), the noise guard's fields, and the end of a command whose worker refused.

#include <cstddef>
#include <optional>
#include <vector>

#include "cli/roofline_view.h"
#include "cli/sort_key.h"
#include "common/status.h"
#include "dispatch/noise.h"
#include "dispatch/run.h"
#include "report/report.h"
#include "verbose/timeline.h"

namespace dlcheck::cli {

/// What a captured run's verbose stream says, the one body of `verbose` and `run` (after their
/// run sections): the primitives table (the primary table; sorted by `sort`, the first `top`
/// rows; the model's with its layer column, engine and creates left to JSON), the input section,
/// a program's header section (the model's run section says what its header would), the summary
/// with the diagnostics, and the timeline. Moves the run's rows into the report.
/// With `machine`, the hot rows are placed on its roofline too (roofline_view.h).
void AddRunStream(report::Report& report, dispatch::Run& run, SortKey sort, std::size_t top,
                  const RooflineProfile* machine = nullptr);

/// The `trace` table (omitted from the human table): one row per execution, as
/// report::PrintTrace reads it.
/// The process a timeline's executions ran in, for the trace: its id and when it started.
struct TraceProcess {
  int pid = 1;                         ///< 1: unknown (a log read from a file)
  std::optional<double> start_unix_s;  ///< nullopt: unknown; ts 0 is the log's first stamp
  bool lane_per_layer = false;         ///< dlcheck's model: a lane (thread) per layer
};

/// The `trace` table of `execs`: ts_us since the process start where the log has timestamps
/// (since its first timestamp when the start is unknown; since the first execution, plus 1 us,
/// when it has none), the process id, and the thread: a lane per layer for the model, the main
/// thread (the pid) for a program.
void AddTimeline(report::Report& report, const std::vector<verbose::ExecRecord>& execs,
                 const TraceProcess& process = {});

/// The noise guard's part of a measurement's report: `threads_from`, `load_start`, `load_end`
/// in `section`, and its findings (dispatch::NoiseFindings).
void AddNoiseGuard(report::Report& report, report::Section& section,
                   const dispatch::CaptureFrame& frame);

/// Ends a command whose worker refused (Run::Refused), as Run::RefusalOf says: with its error, or
/// with the worker's own error line and its exit status; a failure either way (no report).
StatusOr<int> EndRefused(const dispatch::Run& run);

/// The model worker's failure, said once: out of memory (the machine's limit, and what to do), or
/// its own last words on stderr, then how it ended (kWorkerFailed); ok where it ended well.
Status WorkerFailure(const dispatch::Run& run);

}  // namespace dlcheck::cli
