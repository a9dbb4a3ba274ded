// dlcheck dispatch -- CMD: the user's program under each ISA cap and on each thread set,
// repeated, side by side (see dispatch_program.h).
#include "cli/dispatch_program.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>

#include "cli/verbose_report.h"
#include "detect/binding.h"
#include "detect/cpu_features.h"
#include "detect/platform.h"
#include "dispatch/noise.h"
#include "dispatch/onednn_info.h"
#include "dispatch/program_capture.h"
#include "dispatch/sweep.h"
#include "dispatch/sweep_findings.h"
#include "os/signals.h"
#include "report/progress.h"
#include "verbose/log_session.h"
#include "verbose/rules.h"

namespace dlcheck::cli {
namespace {

using dispatch::Spread;
using report::Value;

// One configuration of the sweep: an ISA cap (threads as asked, unbound) or a thread set (no
// cap: oneDNN's own choice, the machine's best). A program has no scalar run.
struct Config {
  std::string name;  ///< "cap avx2", "threads socket"
  dispatch::RunConfig run;
  int threads = 0;  ///< OMP_NUM_THREADS and MKL_NUM_THREADS; 0: inherited

  const dispatch::CapConfig* cap() const { return std::get_if<dispatch::CapConfig>(&run); }
  const dispatch::ThreadSetConfig* thread_set() const {
    return std::get_if<dispatch::ThreadSetConfig>(&run);
  }
};

// Where a configuration's cap or thread set goes in a row: its name, or null.
Value CapValue(const Config& c) {
  return c.cap() != nullptr ? Value(c.cap()->isa) : Value();
}
Value ThreadSetValue(const Config& c) {
  return c.thread_set() != nullptr ? Value(c.thread_set()->name) : Value();
}

// One run of CMD under a configuration.
struct ProgramRun {
  os::Outcome outcome;
  std::vector<verbose::PrimitiveStats> rows;
  verbose::LogHeader header;
  double exec_ms = 0;
  std::uint64_t verbose_lines = 0;
};

struct ConfigResult {
  Config config;
  std::vector<ProgramRun> runs;
  Spread wall;  ///< over the runs, seconds
};

// What the sweep needs before its first run.
struct Plan {
  std::vector<Config> configs;
  dispatch::ThreadChoice threads;  ///< the ISA sweep's thread count and why
  std::optional<dispatch::LoadAverage> load_start;
  std::size_t caps = 0;  ///< the first `caps` configs are the ISA caps
};

std::string Join(const std::vector<std::string>& items, const char* separator = ",") {
  std::string text;
  for (const auto& i : items) text += (text.empty() ? "" : separator) + i;
  return text;
}

StatusOr<Plan> PlanSweep(const DispatchProgramOptions& o) {
  Plan plan;
  plan.load_start = dispatch::ReadLoadAverage();
  detect::PlatformInfo info = detect::DetectLivePlatform();
  detect::SetOneDnnEffectiveIsa(info, dispatch::OneDnnEffectiveIsa(), "");
  StatusOr<std::vector<std::string>> caps = dispatch::ChooseCaps(o.isa, info);
  if (!caps.ok()) return caps.status();
  StatusOr<std::vector<detect::ThreadSet>> all = detect::LiveThreadSets({"all"});
  if (!all.ok()) return all.status();
  plan.threads = dispatch::ChooseThreads(o.threads, all->front().threads, dispatch::AllowedCpus(),
                                         plan.load_start);
  const int threads = plan.threads.threads;
  for (const auto& cap : *caps) {
    plan.configs.push_back(
        {.name = "cap " + cap, .run = dispatch::CapConfig{cap}, .threads = threads});
  }
  plan.caps = plan.configs.size();
  if (!o.thread_sets.empty()) {
    StatusOr<std::vector<detect::ThreadSet>> sets = detect::LiveThreadSets(o.thread_sets);
    if (!sets.ok()) return sets.status();
    for (const auto& s : *sets) {
      plan.configs.push_back(
          {.name = "threads " + s.name,
           .run = dispatch::ThreadSetConfig{.name = s.name, .cpuset = s.cpuset, .cpus = s.cpus},
           .threads = s.threads});
    }
  }
  return plan;
}

os::Spec SpecOf(const DispatchProgramOptions& o, const Config& c) {
  os::Spec spec{.argv = o.command};
  if (c.cap() != nullptr) spec.env = dispatch::MaxIsaEnvironment(c.cap()->isa);
  if (c.thread_set() != nullptr) spec.cpus = c.thread_set()->cpus;
  if (c.threads > 0) {
    spec.env.emplace_back("OMP_NUM_THREADS", std::to_string(c.threads));
    spec.env.emplace_back("MKL_NUM_THREADS", std::to_string(c.threads));
  }
  // One OpenMP thread per CPU of the affinity mask, each kept on its own.
  if (!spec.cpus.empty()) spec.env.emplace_back("OMP_PROC_BIND", "true");
  return spec;
}

StatusOr<ProgramRun> RunOnce(const DispatchProgramOptions& o, const Config& c,
                             report::Progress& progress) {
  verbose::LogSession session;
  dispatch::ProgramCaptureOptions capture{.spec = SpecOf(o, c)};
  if (progress.active()) {
    capture.on_output = [&progress] { progress.Clear(); };
    capture.on_chunk = [&progress] { progress.Tick(); };
  }
  StatusOr<dispatch::ProgramCapture> ran = dispatch::CaptureProgram(capture, session);
  if (!ran.ok()) return ran.status();
  const double exec_ms = session.Summarize().exec_ms;
  return ProgramRun{.outcome = ran->outcome,
                    .rows = session.TakeRows(),
                    .header = session.header(),
                    .exec_ms = exec_ms,
                    .verbose_lines = ran->verbose_lines};
}

// Every configuration `repeat` times, one run after the other, until a signal stops it.
StatusOr<std::vector<ConfigResult>> RunSweep(const DispatchProgramOptions& o, const Plan& plan) {
  report::Progress progress("dispatch", plan.configs.size() * o.repeat);
  std::vector<ConfigResult> results;
  for (const Config& c : plan.configs) {
    ConfigResult result{.config = c};
    for (int i = 1; i <= o.repeat && os::SignalForwarding::Received() == 0; ++i) {
      progress.Step(o.repeat > 1 ? fmt::format("{} (run {}/{})", c.name, i, o.repeat) : c.name);
      StatusOr<ProgramRun> run = RunOnce(o, c, progress);
      if (!run.ok()) return run.status();
      result.runs.push_back(std::move(*run));
    }
    if (result.runs.empty()) break;
    std::vector<double> walls;
    for (const auto& r : result.runs) walls.push_back(r.outcome.wall_s);
    result.wall = dispatch::SpreadOf(walls);
    results.push_back(std::move(result));
  }
  return results;
}

// ---- the report ----------------------------------------------------------------------------

// What the per-primitive table compares across caps: the sweep's one key (dispatch::KeyOf).
using Key = dispatch::PrimitiveKey;
using dispatch::KeyOf;

// A key under one configuration: its time in each run and the implementation of its largest row.
struct Cell {
  std::vector<double> ms;  ///< per run
  std::string implementation;
  bool scalar = false;
  double top_ms = -1;
};

std::map<Key, Cell> CellsOf(const ConfigResult& r) {
  std::map<Key, Cell> cells;
  for (std::size_t i = 0; i < r.runs.size(); ++i) {
    for (const auto& s : r.runs[i].rows) {
      if (s.execs == 0) continue;
      Cell& c = cells[KeyOf(s)];
      c.ms.resize(r.runs.size(), 0.0);
      c.ms[i] += s.exec_ms_total;
      c.scalar |= verbose::IsScalarFallback(s);
      if (s.exec_ms_total > c.top_ms) {
        c.top_ms = s.exec_ms_total;
        c.implementation = s.implementation;
      }
    }
  }
  return cells;
}

int ThreadsSeen(const ConfigResult& r) {
  for (const auto& run : r.runs) {
    if (run.header.threads) return *run.header.threads;
  }
  return 0;
}

std::string StatusesOf(const ConfigResult& r) {
  std::vector<std::string> statuses;
  for (const auto& run : r.runs) statuses.push_back(std::to_string(run.outcome.ShellStatus()));
  return Join(statuses);
}

void AddConfigsTable(report::Report& report, const std::vector<ConfigResult>& results) {
  report::Table& t = report.AddTable(
      "configs",
      {"config", "isa_cap", "thread_set", "threads", "cpuset", "log_threads", "log_isa", "runs",
       "wall_s", "wall_s_min", "wall_s_max", "spread_pct", "exec_ms", "exit_status"},
      "Configurations (wall time of CMD: median of the runs, min, max, spread)");
  t.hidden_in_table = {"isa_cap", "thread_set", "wall_s_min", "wall_s_max"};
  t.answer_columns = {"wall_s", "spread_pct"};
  for (const auto& r : results) {
    std::vector<double> exec;
    for (const auto& run : r.runs) exec.push_back(run.exec_ms);
    const int seen = ThreadsSeen(r);
    const auto& header = r.runs.front().header;
    const dispatch::ThreadSetConfig* set = r.config.thread_set();
    t.rows.push_back({r.config.name, CapValue(r.config), ThreadSetValue(r.config),
                      r.config.threads > 0 ? Value(r.config.threads) : Value(),
                      set != nullptr && !set->cpuset.empty() ? Value(set->cpuset) : Value(),
                      seen > 0 ? Value(seen) : Value(),
                      header.isa_short.empty() ? Value() : Value(ValidUtf8(header.isa_short)),
                      r.runs.size(), Value(r.wall.median, 3), Value(r.wall.min, 3),
                      Value(r.wall.max, 3), Value(100 * r.wall.Relative(), 1),
                      Value(dispatch::SpreadOf(exec).median, 3), StatusesOf(r)});
  }
}

void AddSweepTable(report::Report& report, const std::vector<ConfigResult>& caps) {
  std::vector<std::map<Key, Cell>> cells;
  std::vector<Key> keys;
  for (const auto& r : caps) {
    cells.push_back(CellsOf(r));
    for (const auto& run : r.runs) {
      for (const auto& s : run.rows) {
        if (s.execs > 0 && std::find(keys.begin(), keys.end(), KeyOf(s)) == keys.end()) {
          keys.push_back(KeyOf(s));
        }
      }
    }
  }
  std::vector<std::string> columns = {"primitive", "prop_kind", "problem"};
  for (const auto& r : caps) columns.push_back(r.config.cap()->isa);
  columns.emplace_back("fastest");
  report::Table& t = report.AddTable(
      "sweep", columns,
      "Per primitive: ms per run (median) and implementation under each cap ([scalar]: "
      "reference code); the fastest cap where its runs do not overlap the others'");
  // A reading view: JSON and xlsx have the runs' values typed in `primitives` and `configs`.
  t.only_in_table = true;
  t.answer_columns = {"fastest"};
  t.leave_out_first = {"prop_kind", "problem"};
  for (const Key& k : keys) {
    std::vector<Value> row = {k.primitive, k.prop_kind, ValidUtf8(k.problem)};
    std::vector<std::optional<Spread>> spreads;
    for (const auto& c : cells) {
      const auto it = c.find(k);
      if (it == c.end()) {
        row.push_back("-");
        spreads.emplace_back();
        continue;
      }
      const Spread s = dispatch::SpreadOf(it->second.ms);
      spreads.push_back(s);
      // The time first: a cell cut to fit a terminal keeps what the columns compare.
      row.push_back(fmt::format("{:.4f} {}{}", s.median, ValidUtf8(it->second.implementation),
                                it->second.scalar ? " [scalar]" : ""));
    }
    const auto fastest = dispatch::SeparatedFastest(spreads);
    row.push_back(fastest ? Value(caps[*fastest].config.cap()->isa) : Value("(too close)"));
    t.rows.push_back(std::move(row));
  }
}

// The long form, one row per (configuration, run, primitive row): the CSV contract.
void AddRowsTable(report::Report& report, const std::vector<ConfigResult>& results) {
  std::vector<std::string> columns = {"config", "isa_cap", "thread_set", "run"};
  for (auto& c : PrimitiveColumns()) columns.push_back(std::move(c));
  report::Table& t =
      report.AddTable("primitives", columns, "Primitives (every configuration and run)");
  t.omit_in_table = true;
  for (const auto& r : results) {
    for (std::size_t i = 0; i < r.runs.size(); ++i) {
      for (const auto& s : r.runs[i].rows) {
        std::vector<Value> row = {r.config.name, CapValue(r.config), ThreadSetValue(r.config),
                                  i + 1};
        for (auto& v : PrimitiveRow(s, r.runs[i].exec_ms)) row.push_back(std::move(v));
        t.rows.push_back(std::move(row));
      }
    }
  }
  report.primary_table = "primitives";
}

void AddRunSection(report::Report& report, const DispatchProgramOptions& o, const Plan& plan,
                   const std::vector<ConfigResult>& results,
                   const std::optional<dispatch::LoadAverage>& load_end) {
  report::Section& s = report.AddSection("run", "Run");
  std::vector<std::string> words;
  for (const auto& a : o.command) words.push_back(a);
  s.Add("command", ValidUtf8(Join(words, " ")));
  std::vector<std::string> caps;
  for (std::size_t i = 0; i < plan.caps; ++i) caps.push_back(plan.configs[i].cap()->isa);
  s.Add("isa_caps", Value(report::TextList(caps)));
  s.Add("thread_sets", o.thread_sets.empty() ? Value() : Value(report::TextList(o.thread_sets)));
  s.Add("threads",
        plan.caps > 0 && plan.configs[0].threads > 0 ? Value(plan.configs[0].threads) : Value());
  s.Add("repeat", o.repeat);
  std::size_t runs = 0;
  for (const auto& r : results) runs += r.runs.size();
  s.Add("runs", runs);
  AddNoiseGuard(report, s, plan.threads, plan.load_start, load_end);
  const verbose::LogHeader* header = results.empty() ? nullptr : &results.front().runs[0].header;
  s.Add("onednn_version", header && !header->library_version.empty()
                              ? Value(ValidUtf8(header->library_version))
                              : Value());
  s.Add("interrupted_by", os::SignalForwarding::Received() != 0
                              ? Value(os::SignalName(os::SignalForwarding::Received()))
                              : Value());
}

void AddRunFindings(report::Report& report, const ConfigResult& r) {
  std::vector<os::Outcome> ends;
  for (const auto& run : r.runs) ends.push_back(run.outcome);
  if (auto failed = dispatch::ProgramFailedFinding(r.config.name, ends)) {
    report.findings.push_back(std::move(*failed));
  }
  if (auto overridden =
          dispatch::ThreadsOverriddenFinding(r.config.name, r.config.threads, ThreadsSeen(r))) {
    report.findings.push_back(std::move(*overridden));
  }
}

dispatch::RankedConfig RankedOf(const ConfigResult& r) {
  return {.name = r.config.name, .runs = r.runs.size(), .wall = r.wall};
}

void AddFindings(report::Report& report, const Plan& plan,
                 const std::vector<ConfigResult>& results) {
  std::uint64_t verbose_lines = 0;
  for (const auto& r : results) {
    if (r.config.cap() != nullptr) {
      std::vector<Finding> cap = dispatch::CapFindings(r.runs.front().rows, r.config.cap()->isa);
      report.findings.insert(report.findings.end(), cap.begin(), cap.end());
    }
    AddRunFindings(report, r);
    for (const auto& run : r.runs) verbose_lines += run.verbose_lines;
  }
  if (!results.empty() && verbose_lines == 0) {
    report.AddFinding(
        report::Severity::kWarning, "no-verbose",
        "the program printed no oneDNN verbose line in any run although dlcheck switched "
        "verbose on: it may not use oneDNN, its oneDNN may be built with verbose output "
        "compiled out, or it may redirect or close its own stdout");
  }
  const std::size_t caps = std::min(plan.caps, results.size());
  if (caps >= 2) {
    report.findings.push_back(
        dispatch::RankConfigs("ISA caps", RankedOf(results[caps - 1]), RankedOf(results[0])));
  }
  if (results.size() >= caps + 2) {
    report.findings.push_back(
        dispatch::RankConfigs("thread sets", RankedOf(results.back()), RankedOf(results[caps])));
  }
  if (const int sig = os::SignalForwarding::Received(); sig != 0) {
    report.findings.push_back(dispatch::InterruptedFinding(sig));
  }
}

int ExitStatusOf(const std::vector<ConfigResult>& results) {
  std::vector<int> statuses;
  for (const auto& r : results) {
    for (const auto& run : r.runs) statuses.push_back(run.outcome.ShellStatus());
  }
  return dispatch::ProgramSweepStatus(os::SignalForwarding::Received(), statuses);
}

}  // namespace

StatusOr<int> RunDispatchProgram(const DispatchProgramOptions& o) {
  StatusOr<Plan> plan = PlanSweep(o);
  if (!plan.ok()) return plan.status();
  os::SignalForwarding forwarding;  // a signal between runs stops the sweep
  StatusOr<std::vector<ConfigResult>> results = RunSweep(o, *plan);
  if (!results.ok()) return results.status();
  const auto load_end = dispatch::ReadLoadAverage();
  report::Report report;
  report.command = "dispatch";
  AddRunSection(report, o, *plan, *results, load_end);
  AddConfigsTable(report, *results);
  const std::vector<ConfigResult> caps(results->begin(),
                                       results->begin() + std::min(plan->caps, results->size()));
  if (!caps.empty()) AddSweepTable(report, caps);
  AddRowsTable(report, *results);
  AddFindings(report, *plan, *results);
  report::Print(report, o.format, std::cout);
  std::cout.flush();
  return ExitStatusOf(*results);
}

}  // namespace dlcheck::cli
