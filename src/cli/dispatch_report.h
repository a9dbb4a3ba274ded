#pragma once
// The tables of `dlcheck dispatch`, for both sources of its one sweep (dispatch/sweep.h). The
// model's: `sweep` (per primitive, ms per step under each cap, the scalar kernels, the fastest
// cap and its speedups), `primitives` (the long form: one row per cap and row, the CSV contract),
// `runs` (samples/s per cap) and `threads` (per thread set). A program's: `configs` (wall time
// per configuration: median and spread of its runs), `sweep` (ms per run, median) and
// `primitives` (one row per configuration, run and row).

#include <vector>

#include "dispatch/sweep.h"
#include "report/report.h"

namespace dlcheck::cli {

/// The model sweep's tables; `traced_steps` turns a run's totals into ms per step.
void AddModelSweepTables(report::Report& report, const std::vector<dispatch::ConfigRuns>& results,
                         int traced_steps, bool perf_map);

/// A program sweep's tables.
void AddProgramSweepTables(report::Report& report,
                           const std::vector<dispatch::ConfigRuns>& results);

}  // namespace dlcheck::cli
