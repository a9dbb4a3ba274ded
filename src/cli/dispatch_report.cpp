// The tables of `dlcheck dispatch` (see dispatch_report.h).
#include "cli/dispatch_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "cli/stats_view.h"
#include "common/text.h"
#include "dispatch/sweep_findings.h"
#include "profile/perf_map.h"

namespace dlcheck::cli {
namespace {

using dispatch::ConfigRuns;
using dispatch::PrimitiveKey;
using dispatch::SweepCells;
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

std::vector<const ConfigRuns*> CapsOf(const std::vector<ConfigRuns>& results) {
  std::vector<const ConfigRuns*> caps;
  for (const auto& r : results) {
    if (r.config.cap() != nullptr) caps.push_back(&r);
  }
  return caps;
}

const ConfigRuns* ScalarOf(const std::vector<ConfigRuns>& results) {
  for (const auto& r : results) {
    if (r.config.scalar()) return &r;
  }
  return nullptr;
}

// ---- the per-primitive reading view, one for both sources ----------------------------------

// How the sweep table reads for a source.
struct SweepShape {
  double steps = 1;    ///< a run's totals over this: ms per step (the model's traced steps)
  bool model = false;  ///< layers, the scalar kernels' column and the speedup columns
};

// The fastest cap of a key. A program's runs are repeated: a cap is named only when its runs do
// not overlap the others' (SeparatedFastest). The model's one run per cap is named by its time
// alone (its samples/s payoff finding has the chunks' spread).
std::optional<std::size_t> FastestOf(const std::vector<const ConfigRuns*>& caps,
                                     const std::vector<SweepCells>& cells, const PrimitiveKey& k,
                                     bool model) {
  std::vector<std::optional<dispatch::Spread>> spreads;
  std::optional<std::size_t> lowest;
  for (std::size_t i = 0; i < caps.size(); ++i) {
    const auto c = cells[i].find(k);
    if (c == cells[i].end()) {
      spreads.emplace_back();
      continue;
    }
    spreads.push_back(dispatch::SpreadOf(c->second.ms));
    if (!lowest || c->second.MedianMs() < cells[*lowest].at(k).MedianMs()) lowest = i;
  }
  return model ? lowest : dispatch::SeparatedFastest(spreads);
}

Value CapCell(const ConfigRuns& r, const SweepCells& cells, const PrimitiveKey& k,
              const SweepShape& shape) {
  const auto c = cells.find(k);
  if (c == cells.end()) {
    return r.first().model && !r.first().outcome.ok() ? Value("(worker failed)") : Value("-");
  }
  // The time first: a cell cut to fit a terminal keeps what the columns compare.
  return fmt::format("{:.4f} {}{}", c->second.MedianMs() / shape.steps,
                     ValidUtf8(c->second.implementation), c->second.scalar ? " [scalar]" : "");
}

// The scalar kernels' ms per step for a key; nullopt when they did not run it.
std::optional<double> ScalarMs(const SweepCells& scalar_cells, const PrimitiveKey& k,
                               double steps) {
  const auto s = scalar_cells.find(k);
  if (s == scalar_cells.end()) return std::nullopt;
  return s->second.MedianMs() / steps;
}

std::vector<std::string> SweepColumns(const std::vector<const ConfigRuns*>& caps, bool model) {
  namespace col = report::primitive_column;
  std::vector<std::string> columns =
      report::Names({col::kPrimitive, col::kPropKind, col::kProblem});
  if (model) columns.insert(columns.begin(), std::string(col::kLayer.name));
  for (const ConfigRuns* r : caps) columns.push_back(r->config.cap()->isa);
  if (model) columns.emplace_back("scalar");
  columns.emplace_back("fastest");
  if (model) {
    columns.emplace_back("x scalar");
    columns.emplace_back("x lowest");
  }
  return columns;
}

void AddSweepTable(report::Report& report, const std::vector<ConfigRuns>& results,
                   const SweepShape& shape) {
  const std::vector<const ConfigRuns*> caps = CapsOf(results);
  if (caps.empty()) return;
  const ConfigRuns* scalar = ScalarOf(results);
  const SweepCells scalar_cells = scalar != nullptr ? dispatch::CellsOf(*scalar) : SweepCells();
  std::vector<SweepCells> cells;
  for (const ConfigRuns* r : caps) cells.push_back(dispatch::CellsOf(*r));
  std::vector<const ConfigRuns*> keyed = caps;
  if (scalar != nullptr) keyed.push_back(scalar);  // scalar-only keys last
  report::Table& t = report.AddView(
      "sweep", SweepColumns(caps, shape.model),
      shape.model ? "Per primitive: ms per step and implementation under each cap ([scalar]: "
                    "reference code); the fastest cap and its speedup over dlcheck's scalar "
                    "kernels and over the lowest cap"
                  : "Per primitive: ms per run (median) and implementation under each cap "
                    "([scalar]: reference code); the fastest cap where its runs do not overlap "
                    "the others'");
  // A reading view: JSON and xlsx have the same values typed in `primitives` (and `configs`).
  t.only_in_table = true;
  t.answer_columns = shape.model ? std::vector<std::string>{"fastest", "x scalar", "x lowest"}
                                 : std::vector<std::string>{"fastest"};
  namespace col = report::primitive_column;
  t.leave_out_first = report::Names({col::kProblem, col::kPropKind});
  if (shape.model) t.leave_out_first.emplace_back("scalar");
  for (const PrimitiveKey& k : dispatch::KeysOf(keyed)) {
    std::vector<Value> row = {k.primitive, k.prop_kind, ValidUtf8(k.problem)};
    if (shape.model) row.insert(row.begin(), Value(k.layer));
    for (std::size_t i = 0; i < caps.size(); ++i)
      row.push_back(CapCell(*caps[i], cells[i], k, shape));
    if (shape.model) row.push_back(Opt(ScalarMs(scalar_cells, k, shape.steps), 4));
    const auto fastest = FastestOf(caps, cells, k, shape.model);
    // A program's cap is named only apart from the others' spread; the model's always is.
    const Value no_fastest = shape.model ? Value() : Value("(too close)");
    row.push_back(fastest ? Value(caps[*fastest]->config.cap()->isa) : no_fastest);
    if (shape.model) {
      row.push_back(fastest ? Opt(SpeedupOver(scalar_cells, cells[*fastest], k), 1) : Value());
      row.push_back(fastest ? Opt(SpeedupOver(cells.front(), cells[*fastest], k), 1) : Value());
    }
    t.rows.push_back(std::move(row));
  }
}

// ---- the model's tables --------------------------------------------------------------------

Value LayerValue(const verbose::PrimitiveStats& s) {
  if (!s.layer) return {};
  return s.layer->str();
}

// The row's GFLOP/s over the peak of `threads` cores.
std::optional<double> PeakFraction(const verbose::PrimitiveStats& s,
                                   const std::optional<double>& peak, int threads) {
  const auto gflops = s.Gflops();
  if (!peak || !gflops || *peak <= 0) return std::nullopt;
  return *gflops / (*peak * threads);
}

// The long form, one row per (cap, primitive row), the scalar run's last: the CSV contract.
void AddModelRowsTable(report::Report& report, const std::vector<ConfigRuns>& results,
                       double steps) {
  std::vector<report::Field> columns(sweep_columns::kModelRowsFirst.begin(),
                                     sweep_columns::kModelRowsFirst.end());
  for (const report::Field& c : PrimitiveColumns()) columns.push_back(c);
  columns.insert(columns.end(), sweep_columns::kModelRowsLast.begin(),
                 sweep_columns::kModelRowsLast.end());
  report::Table& rows = report.AddTable(kModelRowsTable, columns);
  rows.omit_in_table = true;
  const ConfigRuns* scalar = ScalarOf(results);
  const SweepCells scalar_cells = scalar != nullptr ? dispatch::CellsOf(*scalar) : SweepCells();
  const SweepCells lowest = dispatch::CellsOf(results.front());
  for (const ConfigRuns& r : results) {
    if (r.config.thread_set() != nullptr) continue;  // thread sets: their own table
    const SweepCells cells = dispatch::CellsOf(r);
    const std::optional<double> peak = dispatch::PeakOf(r);
    for (const auto& s : r.first().rows) {
      std::vector<Value> row;
      row.push_back(CapValue(r));
      row.push_back(LayerValue(s));
      for (auto& v : PrimitiveRow(s, r.first().summary.exec_ms)) row.push_back(std::move(v));
      const PrimitiveKey k = dispatch::KeyOf(s);
      row.emplace_back(s.exec_ms_total / steps, 4);
      row.push_back(Opt(SpeedupOver(scalar_cells, cells, k), 2));
      row.push_back(Opt(r.config.scalar() ? std::nullopt : SpeedupOver(lowest, cells, k), 2));
      row.push_back(Opt(peak, 1));
      row.push_back(Opt(PeakFraction(s, peak, dispatch::ThreadsOf(r)), 3));
      rows.rows.push_back(std::move(row));
    }
  }
  report.primary_table = report::kPrimitivesTable.name;
}

std::optional<double> SamplesPerS(const ConfigRuns& r) {
  return r.first().Number(dispatch::result_key::kSamplesPerS);
}

// The perf map oneDNN wrote for a worker, when asked to.
Value PerfMapOf(bool perf_map, const ConfigRuns& r) {
  if (!perf_map || r.config.scalar()) return {};
  return profile::PerfMapPath(r.first().outcome.pid);
}

void AddRunsTable(report::Report& report, const std::vector<ConfigRuns>& results, bool perf_map) {
  report::Table& t = report.AddTable(kRunsTable, sweep_columns::kRuns);
  namespace m = dispatch::model_run_field;
  namespace s = sweep_field;
  t.hidden_in_table = report::Names({m::kSamplesPerSMin, m::kSamplesPerSMax});
  t.answer_columns = report::Names({m::kSamplesPerS, s::kSpeedupVsScalar, s::kSpeedupVsLowest});
  t.leave_out_first = report::Names({m::kMaxDeviation, m::kBackend, s::kPeakGflops});
  if (!perf_map) t.hidden_in_table.emplace_back(s::kPerfMapFile.name);
  const ConfigRuns* scalar_run = ScalarOf(results);
  const double scalar = scalar_run != nullptr ? SamplesPerS(*scalar_run).value_or(0.0) : 0.0;
  const auto lowest = SamplesPerS(results.front());
  for (const auto& r : results) {
    if (r.config.thread_set() != nullptr) continue;
    const dispatch::WorkerResults& res = r.first().model->results;
    const auto sps = res.samples_per_s;
    const std::string& isa = r.first().header.isa_short;
    t.rows.push_back(
        {CapValue(r), res.backend ? Value(*res.backend) : Value(), dispatch::ThreadsOf(r),
         isa.empty() || r.config.scalar() ? Value() : Value(isa), Opt(sps, 1),
         Opt(res.samples_per_s_min, 1), Opt(res.samples_per_s_max, 1),
         sps && scalar > 0 ? Value(*sps / scalar, 2) : Value(),
         sps && lowest && *lowest > 0 && !r.config.scalar() ? Value(*sps / *lowest, 2) : Value(),
         Opt(res.max_deviation, 9), Opt(dispatch::PeakOf(r), 1), dispatch::Describe(r),
         PerfMapOf(perf_map, r)});
  }
}

void AddThreadsTable(report::Report& report, const std::vector<ConfigRuns>& results) {
  std::vector<const ConfigRuns*> sets;
  for (const auto& r : results) {
    if (r.config.thread_set() != nullptr) sets.push_back(&r);
  }
  if (sets.empty()) return;
  report::Table& t = report.AddTable(kThreadsTable, sweep_columns::kThreads);
  const auto base = SamplesPerS(*sets.front());
  for (const ConfigRuns* r : sets) {
    const auto sps = SamplesPerS(*r);
    std::optional<double> speedup;
    if (sps && base && *base > 0) speedup = *sps / *base;
    std::optional<double> efficiency;
    if (speedup && r->config.threads > 0) {
      efficiency = *speedup * sets.front()->config.threads / r->config.threads;
    }
    const dispatch::ThreadSetConfig& set = *r->config.thread_set();
    t.rows.push_back({set.name, r->config.threads, set.cpuset, Opt(sps, 1), Opt(speedup, 2),
                      Opt(efficiency, 2), dispatch::Describe(*r)});
  }
}

// ---- a program's tables --------------------------------------------------------------------

std::string StatusesOf(const ConfigRuns& r) {
  std::vector<std::string> statuses;
  for (const auto& run : r.runs) statuses.push_back(std::to_string(run.outcome.ShellStatus()));
  return Join(statuses, ",");
}

void AddConfigsTable(report::Report& report, const std::vector<ConfigRuns>& results) {
  report::Table& t = report.AddTable(kConfigsTable, sweep_columns::kConfigs);
  namespace s = sweep_field;
  t.hidden_in_table = report::Names({s::kIsaCap, s::kThreadSet, s::kWallSMin, s::kWallSMax});
  t.answer_columns =
      report::Names({dispatch::program_run_field::kWallS, dispatch::model_run_field::kSpreadPct});
  for (const auto& r : results) {
    std::vector<double> exec;
    for (const auto& run : r.runs) exec.push_back(run.summary.exec_ms);
    const int seen = dispatch::ThreadsSeen(r);
    const std::string& isa = r.first().header.isa_short;
    const dispatch::ThreadSetConfig* set = r.config.thread_set();
    t.rows.push_back({r.config.Name(), CapValue(r), ThreadSetValue(r),
                      r.config.threads > 0 ? Value(r.config.threads) : Value(),
                      set != nullptr && !set->cpuset.empty() ? Value(set->cpuset) : Value(),
                      seen > 0 ? Value(seen) : Value(),
                      isa.empty() ? Value() : Value(ValidUtf8(isa)), r.runs.size(),
                      Value(r.wall.median, 3), Value(r.wall.min, 3), Value(r.wall.max, 3),
                      Value(100 * r.wall.Relative(), 1), Value(dispatch::SpreadOf(exec).median, 3),
                      StatusesOf(r)});
  }
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
        std::vector<Value> row = {r.config.Name(), CapValue(r), ThreadSetValue(r), i + 1};
        for (auto& v : PrimitiveRow(s, r.runs[i].summary.exec_ms)) row.push_back(std::move(v));
        t.rows.push_back(std::move(row));
      }
    }
  }
  report.primary_table = report::kPrimitivesTable.name;
}

}  // namespace

void AddModelSweepTables(report::Report& report, const std::vector<ConfigRuns>& results,
                         int traced_steps, bool perf_map) {
  const double steps = std::max(1, traced_steps);
  AddSweepTable(report, results, {.steps = steps, .model = true});
  AddModelRowsTable(report, results, steps);
  AddRunsTable(report, results, perf_map);
  AddThreadsTable(report, results);
}

void AddProgramSweepTables(report::Report& report, const std::vector<ConfigRuns>& results) {
  AddConfigsTable(report, results);
  AddSweepTable(report, results, {.steps = 1, .model = false});
  AddProgramRowsTable(report, results);
}

}  // namespace dlcheck::cli
