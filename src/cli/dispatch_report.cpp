// SPDX-License-Identifier: Apache-2.0
// The tables of `dlcheck dispatch` (see dispatch_report.h).
#include "cli/dispatch_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "cli/stats_view.h"
#include "common/text.h"
#include "profile/perf_map.h"

namespace dlcheck::cli {
namespace {

using dispatch::ConfigRuns;
using dispatch::PrimitiveKey;
using dispatch::SweepComparison;
using report::Value;

Value Opt(const std::optional<double>& v, int precision) {
  return v ? Value(*v, precision) : Value();
}

// The `isa_cap` of a configuration: its cap, `scalar`, or null (a thread set).
Value CapValue(const ConfigRuns& r) {
  const std::optional<std::string> cap = dispatch::IsaCapOf(r.config.run);
  return cap ? Value(*cap) : Value();
}
Value ThreadSetValue(const ConfigRuns& r) {
  const dispatch::ThreadSetConfig* set = r.config.thread_set();
  return set != nullptr ? Value(set->name) : Value();
}

// ---- the per-primitive reading view, one for both sources ----------------------------------

// A cap's cell: the time first, so that a cell cut to fit a terminal keeps what the columns
// compare.
Value CapCell(const ConfigRuns& r, const std::optional<dispatch::KeyCell>& cell) {
  if (!cell) {
    return r.first().model && !r.first().outcome.ok() ? Value("(worker failed)") : Value("-");
  }
  return fmt::format("{:.4f} {}{}", cell->ms, ValidUtf8(cell->cell.implementation),
                     cell->cell.scalar ? " [scalar]" : "");
}

// The sweep view's columns after those of each cap (a reading view: no document declares them).
constexpr char kScalarColumn[] = "scalar";
constexpr char kFastestColumn[] = "fastest";
constexpr char kTimesScalarColumn[] = "x scalar";
constexpr char kTimesLowestColumn[] = "x lowest";

std::vector<std::string> SweepColumns(const SweepComparison& c) {
  namespace col = report::primitive_column;
  std::vector<std::string> columns =
      report::Names({col::kPrimitive, col::kPropKind, col::kProblem});
  if (c.model) columns.insert(columns.begin(), std::string(col::kLayer.name));
  for (const std::size_t i : c.caps) columns.push_back(c.configs[i].config.cap()->isa);
  if (c.model) columns.emplace_back(kScalarColumn);
  columns.emplace_back(kFastestColumn);
  if (c.model) {
    columns.emplace_back(kTimesScalarColumn);
    columns.emplace_back(kTimesLowestColumn);
  }
  return columns;
}

// The `fastest` cell: the cap, "avx512_core = avx512_core_bf16" where caps tie (the same kernel);
// for a program without one, "(1 run)" where a cap ran once (no spread to rank by), else
// "(too close)" (the runs overlap).
Value FastestValue(const std::vector<ConfigRuns>& results, const SweepComparison& c,
                   const dispatch::KeyComparison& key) {
  if (key.fastest) {
    std::vector<std::size_t> caps = key.tied;
    caps.push_back(*key.fastest);
    std::sort(caps.begin(), caps.end());
    std::vector<std::string> names;
    for (const std::size_t i : caps) names.push_back(c.configs[i].config.cap()->isa);
    return Value(Join(names, " = "));
  }
  if (c.model) return Value();
  const bool one_run = std::any_of(c.caps.begin(), c.caps.end(),
                                   [&](std::size_t i) { return results[i].runs.size() < 2; });
  return Value(one_run ? "(1 run)" : "(too close)");
}

void AddSweepTable(report::Report& report, const std::vector<ConfigRuns>& results,
                   const SweepComparison& c) {
  if (c.caps.empty()) return;
  report::Table& t = report.AddView(
      std::string(kSweepView), SweepColumns(c),
      c.model ? "Per primitive: ms per step and implementation under each cap ([scalar]: "
                "reference code); the fastest cap and its speedup over dlcheck's scalar "
                "kernels and over the lowest cap (a = b: caps that ran the same kernel)"
              : "Per primitive: ms per run (median) and implementation under each cap "
                "([scalar]: reference code); the fastest cap where its runs do not overlap "
                "the others' (a = b: caps that ran the same kernel)");
  // A reading view: JSON and xlsx have the same values typed in `primitives` (and `configs`).
  t.only_in_table = true;
  t.answer_columns =
      c.model ? std::vector<std::string>{kFastestColumn, kTimesScalarColumn, kTimesLowestColumn}
              : std::vector<std::string>{kFastestColumn};
  namespace col = report::primitive_column;
  t.identity_columns =
      report::IdentityNames({col::kLayer, col::kPrimitive, col::kPropKind, col::kProblem});
  t.short_forms = report::ShortForms({col::kPropKind});
  if (c.model) t.leave_out_first.emplace_back(kScalarColumn);
  for (const PrimitiveKey& k : c.keys) {
    const dispatch::KeyComparison& key = c.by_key.at(k);
    report::RowSetter row = t.AddRow();
    if (c.model) row.Set(col::kLayer, Value(k.layer));
    row.Set(col::kPrimitive, k.primitive)
        .Set(col::kPropKind, k.prop_kind)
        .Set(col::kProblem, ValidUtf8(k.problem));
    for (const std::size_t i : c.caps) {
      row.Set(c.configs[i].config.cap()->isa, CapCell(results[i], key.cells[i]));
    }
    if (c.model) row.Set(kScalarColumn, Opt(key.scalar_ms, 4));
    row.Set(kFastestColumn, FastestValue(results, c, key));
    if (c.model) {
      row.Set(kTimesScalarColumn, Opt(key.speedup_vs_scalar, 1))
          .Set(kTimesLowestColumn, Opt(key.speedup_vs_lowest, 1));
    }
  }
}

// ---- the model's tables --------------------------------------------------------------------

Value LayerValue(const verbose::PrimitiveStats& s) {
  if (!s.layer) return {};
  return s.layer->str();
}

// The long form, one row per (cap, primitive row), the scalar run's last: the CSV contract.
void AddModelRowsTable(report::Report& report, const std::vector<ConfigRuns>& results,
                       const SweepComparison& c) {
  std::vector<report::Field> columns(sweep_columns::kModelRowsFirst.begin(),
                                     sweep_columns::kModelRowsFirst.end());
  for (const report::Field& f : PrimitiveColumns()) columns.push_back(f);
  columns.insert(columns.end(), sweep_columns::kModelRowsLast.begin(),
                 sweep_columns::kModelRowsLast.end());
  report::Table& rows = report.AddTable(kModelRowsTable, columns);
  rows.omit_in_table = true;
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ConfigRuns& r = results[i];
    if (r.config.thread_set() != nullptr) continue;  // thread sets: their own table
    const dispatch::ConfigComparison& config = c.configs[i];
    for (std::size_t j = 0; j < r.first().rows.size(); ++j) {
      const verbose::PrimitiveStats& s = r.first().rows[j];
      const dispatch::RowComparison& compared = config.rows[j];
      report::RowSetter row = rows.AddRow();
      row.Set(sweep_field::kIsaCap, CapValue(r))
          .Set(report::primitive_column::kLayer, LayerValue(s));
      SetPrimitiveCells(row, s, r.first().summary.exec_ms);
      row.Set(sweep_field::kMsPerStep, Value(compared.ms, 4))
          .Set(sweep_field::kSpeedupVsScalar, Opt(compared.speedup_vs_scalar, 2))
          .Set(sweep_field::kSpeedupVsLowest, Opt(compared.speedup_vs_lowest, 2))
          .Set(sweep_field::kPeakGflops, Opt(config.peak_gflops, 1))
          .Set(sweep_field::kPeakFraction, Opt(compared.peak_fraction, 3));
    }
  }
  namespace col = report::primitive_column;
  report.charts.push_back({.kind = report::Chart::Kind::kHeatMap,
                           .title = "ms per step of each primitive under each ISA cap",
                           .table = std::string(kModelRowsTable.name),
                           .label = report::Names({col::kLayer, col::kPrimitive, col::kPropKind}),
                           .value = std::string(sweep_field::kMsPerStep.name),
                           .series = std::string(sweep_field::kIsaCap.name),
                           .unit = "ms",
                           .limit = 40});
}

// The perf map oneDNN wrote for a worker, when asked to.
Value PerfMapOf(bool perf_map, const ConfigRuns& r) {
  if (!perf_map || r.config.scalar()) return {};
  return profile::PerfMapPath(r.first().outcome.pid);
}

void AddRunsTable(report::Report& report, const std::vector<ConfigRuns>& results,
                  const SweepComparison& c, bool perf_map) {
  report::Table& t = report.AddTable(kRunsTable, sweep_columns::kRuns);
  namespace m = dispatch::model_run_field;
  namespace s = sweep_field;
  t.hidden_in_table = report::Names({m::kSamplesPerSMin, m::kSamplesPerSMax});
  t.answer_columns = report::Names({m::kSamplesPerS, s::kSpeedupVsScalar, s::kSpeedupVsLowest});
  t.leave_out_first = report::Names({m::kMaxDeviation, m::kBackend, s::kPeakGflops});
  if (!perf_map) t.hidden_in_table.emplace_back(s::kPerfMapFile.name);
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ConfigRuns& r = results[i];
    if (r.config.thread_set() != nullptr) continue;
    const dispatch::ConfigComparison& config = c.configs[i];
    const dispatch::WorkerResults& res = r.first().model->results;
    const std::string& isa = r.header().isa_short;
    t.AddRow()
        .Set(s::kIsaCap, CapValue(r))
        .Set(m::kBackend, res.backend ? Value(*res.backend) : Value())
        .Set(m::kThreads, config.threads)
        .Set(s::kDispatchedIsa, isa.empty() || r.config.scalar() ? Value() : Value(isa))
        .Set(m::kSamplesPerS, Opt(config.samples_per_s, 1))
        .Set(m::kSamplesPerSMin, Opt(res.samples_per_s_min, 1))
        .Set(m::kSamplesPerSMax, Opt(res.samples_per_s_max, 1))
        .Set(s::kSpeedupVsScalar, Opt(config.speedup_vs_scalar, 2))
        .Set(s::kSpeedupVsLowest, Opt(config.speedup_vs_lowest, 2))
        .Set(m::kMaxDeviation, Opt(res.max_deviation, 9))
        .Set(s::kPeakGflops, Opt(config.peak_gflops, 1))
        .Set(m::kWorker, dispatch::Describe(r))
        .Set(s::kPerfMapFile, PerfMapOf(perf_map, r));
  }
  // The answer first, before the heat map of the rows (declared with their table, before it).
  report.charts.insert(report.charts.begin(),
                       {.title = "Samples/s by ISA cap, verbose off (whiskers: the slowest and "
                                 "fastest timed chunk)",
                        .table = std::string(kRunsTable.name),
                        .label = report::Names({s::kIsaCap}),
                        .value = std::string(m::kSamplesPerS.name),
                        .low = std::string(m::kSamplesPerSMin.name),
                        .high = std::string(m::kSamplesPerSMax.name),
                        .unit = "samples/s"});
}

void AddThreadsTable(report::Report& report, const std::vector<ConfigRuns>& results,
                     const SweepComparison& c) {
  if (c.thread_sets.empty()) return;
  report::Table& t = report.AddTable(kThreadsTable, sweep_columns::kThreads);
  for (const std::size_t i : c.thread_sets) {
    const ConfigRuns& r = results[i];
    const dispatch::ConfigComparison& config = c.configs[i];
    const dispatch::ThreadSetConfig& set = *r.config.thread_set();
    namespace m = dispatch::model_run_field;
    namespace s = sweep_field;
    t.AddRow()
        .Set(s::kThreadSet, set.name)
        .Set(m::kThreads, r.config.threads)
        .Set(s::kCpuset, set.cpuset)
        .Set(m::kSamplesPerS, Opt(config.samples_per_s, 1))
        .Set(s::kSpeedup, Opt(config.speedup_vs_first_set, 2))
        .Set(s::kEfficiency, Opt(config.efficiency, 2))
        .Set(m::kWorker, dispatch::Describe(r));
  }
  report.charts.push_back({.title = "Samples/s by thread set",
                           .table = std::string(kThreadsTable.name),
                           .label = report::Names({sweep_field::kThreadSet}),
                           .value = std::string(dispatch::model_run_field::kSamplesPerS.name),
                           .unit = "samples/s"});
}

// ---- a program's tables --------------------------------------------------------------------

std::string StatusesOf(const ConfigRuns& r) {
  std::vector<std::string> statuses;
  for (const auto& run : r.runs) statuses.push_back(std::to_string(run.outcome.ShellStatus()));
  return Join(statuses, ",");
}

// A bar per configuration of the configs table: `what`'s median, whiskers at the least and the
// most of the runs.
report::Chart ConfigSpreadChart(std::string_view what, const report::Field& median,
                                const report::Field& least, const report::Field& most,
                                std::string unit) {
  return {.title = fmt::format(
              "{} by configuration (median; whiskers: the least and most of the runs)", what),
          .table = std::string(kConfigsTable.name),
          .label = report::Names({sweep_field::kConfig}),
          .value = std::string(median.name),
          .low = std::string(least.name),
          .high = std::string(most.name),
          .unit = std::move(unit)};
}

void AddConfigsTable(report::Report& report, const std::vector<ConfigRuns>& results,
                     const SweepComparison& c) {
  report::Table& t = report.AddTable(kConfigsTable, sweep_columns::kConfigs);
  namespace s = sweep_field;
  t.hidden_in_table = report::Names(
      {s::kIsaCap, s::kThreadSet, s::kWallSMin, s::kWallSMax, s::kExecMsMin, s::kExecMsMax});
  t.answer_columns =
      report::Names({dispatch::program_run_field::kWallS, dispatch::model_run_field::kSpreadPct,
                     dispatch::program_run_field::kExecMs});
  for (std::size_t i = 0; i < results.size(); ++i) {
    const ConfigRuns& r = results[i];
    const int seen = dispatch::ThreadsSeen(r);
    const std::string& isa = r.header().isa_short;
    const dispatch::ThreadSetConfig* set = r.config.thread_set();
    namespace m = dispatch::model_run_field;
    namespace p = dispatch::program_run_field;
    t.AddRow()
        .Set(s::kConfig, r.config.Name())
        .Set(s::kIsaCap, CapValue(r))
        .Set(s::kThreadSet, ThreadSetValue(r))
        .Set(m::kThreads, r.config.threads > 0 ? Value(r.config.threads) : Value())
        .Set(s::kCpuset, set != nullptr && !set->cpuset.empty() ? Value(set->cpuset) : Value())
        .Set(s::kLogThreads, seen > 0 ? Value(seen) : Value())
        .Set(s::kLogIsa, isa.empty() ? Value() : Value(ValidUtf8(isa)))
        .Set(s::kRuns, r.runs.size())
        .Set(p::kWallS, Value(r.wall.median, 3))
        .Set(s::kWallSMin, Value(r.wall.min, 3))
        .Set(s::kWallSMax, Value(r.wall.max, 3))
        .Set(m::kSpreadPct, Value(100 * r.wall.Relative(), 1))
        .Set(p::kExecMs, Value(c.configs[i].exec_ms, 3))
        .Set(s::kExecMsMin, Value(c.configs[i].exec_ms_min, 3))
        .Set(s::kExecMsMax, Value(c.configs[i].exec_ms_max, 3))
        .Set(s::kExitStatuses, StatusesOf(r));
  }
  namespace p = dispatch::program_run_field;
  report.charts.push_back(ConfigSpreadChart("oneDNN execution time per run", p::kExecMs,
                                            s::kExecMsMin, s::kExecMsMax, "ms"));
  report.charts.push_back(
      ConfigSpreadChart("Wall time of the program", p::kWallS, s::kWallSMin, s::kWallSMax, "s"));
}

// The long form, one row per (configuration, run, primitive row): the CSV contract.
void AddProgramRowsTable(report::Report& report, const std::vector<ConfigRuns>& results) {
  std::vector<report::Field> columns(sweep_columns::kProgramRowsFirst.begin(),
                                     sweep_columns::kProgramRowsFirst.end());
  for (const report::Field& c : PrimitiveColumns()) columns.push_back(c);
  report::Table& t = report.AddTable(kProgramRowsTable, columns);
  t.omit_in_table = true;
  for (const auto& r : results) {
    for (std::size_t i = 0; i < r.runs.size(); ++i) {
      for (const auto& s : r.runs[i].rows) {
        report::RowSetter row = t.AddRow();
        row.Set(sweep_field::kConfig, r.config.Name())
            .Set(sweep_field::kIsaCap, CapValue(r))
            .Set(sweep_field::kThreadSet, ThreadSetValue(r))
            .Set(sweep_field::kRun, i + 1);
        SetPrimitiveCells(row, s, r.runs[i].summary.exec_ms);
      }
    }
  }
  namespace col = report::primitive_column;
  namespace s = sweep_field;
  report.charts.push_back({.kind = report::Chart::Kind::kHeatMap,
                           .title = "ms per run of each primitive under each configuration "
                                    "(the mean of the runs)",
                           .table = std::string(kProgramRowsTable.name),
                           .label = report::Names({col::kPrimitive, col::kPropKind, col::kProblem}),
                           .value = std::string(col::kExecMsTotal.name),
                           .series = std::string(s::kConfig.name),
                           .per = std::string(s::kRun.name),
                           .unit = "ms",
                           .limit = 40});
}

}  // namespace

void AddModelSweepTables(report::Report& report, const std::vector<ConfigRuns>& results,
                         const SweepComparison& comparison, bool perf_map) {
  AddSweepTable(report, results, comparison);
  AddModelRowsTable(report, results, comparison);
  AddRunsTable(report, results, comparison, perf_map);
  AddThreadsTable(report, results, comparison);
}

void AddProgramSweepTables(report::Report& report, const std::vector<ConfigRuns>& results,
                           const SweepComparison& comparison) {
  AddConfigsTable(report, results, comparison);
  AddSweepTable(report, results, comparison);
  AddProgramRowsTable(report, results);
}

}  // namespace dlcheck::cli
