// SPDX-License-Identifier: Apache-2.0
#pragma once
// The tables of `dlcheck dispatch`, for both sources of its one sweep (dispatch/sweep.h). The
// model's: `sweep` (per primitive, ms per step under each cap, the scalar kernels, the fastest
// cap and its speedups), `primitives` (the long form: one row per cap and row, the CSV contract),
// `runs` (samples/s per cap) and `threads` (per thread set). A program's: `configs` (wall time
// per configuration: median and spread of its runs), `sweep` (ms per run, median) and
// `primitives` (one row per configuration, run and row). They lay out dispatch::SweepComparison
// (dispatch/sweep_compare.h) beside what the runs recorded; they work nothing out themselves.

#include <array>
#include <string_view>
#include <vector>

#include "dispatch/run_fields.h"
#include "dispatch/sweep.h"
#include "dispatch/sweep_compare.h"
#include "report/field.h"
#include "report/primitive_columns.h"
#include "report/report.h"

namespace dlcheck::cli {

/// The name of dispatch's reading view (per primitive, one column per cap): not declared in its
/// document, its columns made at run time (--columns sweep:... is checked when it is printed).
inline constexpr std::string_view kSweepView = "sweep";

// The sweep's words, declared once (the run section's are dispatch/run_fields.h's).
namespace sweep_field {
using report::Arity;
using report::Field;
using report::Type;
// clang-format off
// run
inline constexpr Field kIsaCaps{"isa_caps", Type::kText, Arity::kList};
inline constexpr Field kThreadSets{"thread_sets", Type::kText, Arity::kList};
inline constexpr Field kCapThreads{"cap_threads", Type::kInteger};  ///< threads of each cap's run
inline constexpr Field kRepeat{"repeat", Type::kInteger};
inline constexpr Field kRuns{"runs", Type::kInteger};
inline constexpr Field kPerfMap{"perf_map", Type::kBoolean};
inline constexpr Field kInterruptedBy{"interrupted_by"};
// primitives (the long form), runs, threads, configs
inline constexpr Field kIsaCap{"isa_cap"};
inline constexpr Field kConfig{"config"};
inline constexpr Field kThreadSet{"thread_set"};
inline constexpr Field kRun{"run", Type::kInteger, Arity::kOne,
                            report::Role::kIdentity};  ///< which run of the configuration
inline constexpr Field kMsPerStep{"ms_per_step", Type::kNumber};
inline constexpr Field kSpeedupVsScalar{"speedup_vs_scalar", Type::kNumber};
inline constexpr Field kSpeedupVsLowest{"speedup_vs_lowest", Type::kNumber};
inline constexpr Field kPeakGflops{"peak_gflops", Type::kNumber};
inline constexpr Field kPeakFraction{"peak_fraction", Type::kNumber};
inline constexpr Field kDispatchedIsa{"dispatched_isa"};
inline constexpr Field kPerfMapFile{"perf_map_file"};  ///< the runs table's: the map's path (the
                                                    ///< option is perf_map, a boolean)
inline constexpr Field kCpuset{"cpuset"};
inline constexpr Field kSpeedup{"speedup", Type::kNumber};
inline constexpr Field kEfficiency{"efficiency", Type::kNumber};
inline constexpr Field kLogThreads{"log_threads", Type::kInteger};
inline constexpr Field kLogIsa{"log_isa"};
inline constexpr Field kWallSMin{"wall_s_min", Type::kNumber};
inline constexpr Field kWallSMax{"wall_s_max", Type::kNumber};
inline constexpr Field kExecMsMin{"exec_ms_min", Type::kNumber};  ///< the runs' least oneDNN time
inline constexpr Field kExecMsMax{"exec_ms_max", Type::kNumber};  ///< and most
inline constexpr Field kExitStatuses{"exit_status"};  ///< the runs' statuses, joined by commas
// clang-format on
}  // namespace sweep_field

inline constexpr report::Part kModelRowsTable{"primitives", "Primitives (every configuration)"};
inline constexpr report::Part kProgramRowsTable{"primitives",
                                                "Primitives (every configuration and run)"};
inline constexpr report::Part kRunsTable{"runs", "Runs (samples/s with verbose off)"};
inline constexpr report::Part kThreadsTable{
    "threads", "Thread sets (one thread per core, bound by hwloc; speedup over the first set)"};
inline constexpr report::Part kConfigsTable{
    "configs", "Configurations (wall time of CMD: median of the runs, min, max, spread)"};

namespace sweep_columns {
namespace m = dispatch::model_run_field;
namespace p = dispatch::program_run_field;
namespace s = sweep_field;
inline constexpr std::array kModelRowsFirst = {s::kIsaCap, report::primitive_column::kLayer};
inline constexpr std::array kModelRowsLast = {
    s::kMsPerStep, s::kSpeedupVsScalar, s::kSpeedupVsLowest, s::kPeakGflops, s::kPeakFraction};
inline constexpr std::array kProgramRowsFirst = {s::kConfig, s::kIsaCap, s::kThreadSet, s::kRun};
inline constexpr std::array kRuns = {s::kIsaCap,         m::kBackend,         m::kThreads,
                                     s::kDispatchedIsa,  m::kSamplesPerS,     m::kSamplesPerSMin,
                                     m::kSamplesPerSMax, s::kSpeedupVsScalar, s::kSpeedupVsLowest,
                                     m::kMaxDeviation,   s::kPeakGflops,      m::kWorker,
                                     s::kPerfMapFile};
inline constexpr std::array kThreads = {s::kThreadSet, m::kThreads,    s::kCpuset, m::kSamplesPerS,
                                        s::kSpeedup,   s::kEfficiency, m::kWorker};
inline constexpr std::array kConfigs = {
    s::kConfig, s::kIsaCap,    s::kThreadSet, m::kThreads,     s::kCpuset,   s::kLogThreads,
    s::kLogIsa, s::kRuns,      p::kWallS,     s::kWallSMin,    s::kWallSMax, m::kSpreadPct,
    p::kExecMs, s::kExecMsMin, s::kExecMsMax, s::kExitStatuses};
}  // namespace sweep_columns

/// The model sweep's tables: `comparison` (dispatch::CompareSweep of `results`) laid out beside
/// what each run recorded.
void AddModelSweepTables(report::Report& report, const std::vector<dispatch::ConfigRuns>& results,
                         const dispatch::SweepComparison& comparison, bool perf_map);

/// A program sweep's tables, likewise.
void AddProgramSweepTables(report::Report& report, const std::vector<dispatch::ConfigRuns>& results,
                           const dispatch::SweepComparison& comparison);

}  // namespace dlcheck::cli
