// dlcheck dispatch: the same model once per oneDNN ISA cap (ONEDNN_MAX_CPU_ISA in a worker's
// environment) and once on dlcheck's scalar kernels, side by side per primitive; optionally per
// thread set (one core, one socket, the whole machine, bound by hwloc). The table that tells
// whether AVX-512 (or VNNI, BF16, AMX) pays off for this workload on this machine.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>
#include <tuple>

#include "cli/commands.h"
#include "cli/dispatch_program.h"
#include "cli/model_options.h"
#include "cli/verbose_report.h"
#include "detect/binding.h"
#include "detect/cpu_features.h"
#include "detect/platform.h"
#include "dispatch/capture.h"
#include "dispatch/noise.h"
#include "dispatch/onednn_info.h"
#include "dispatch/sweep.h"
#include "dispatch/sweep_findings.h"
#include "mlp/model.h"
#include "os/exit_status.h"
#include "os/signals.h"
#include "report/progress.h"
#include "verbose/rules.h"

namespace dlcheck::cli {
namespace {

using dispatch::CellsOf;
using dispatch::Describe;
using dispatch::KeyOf;
using dispatch::PeakOf;
using dispatch::PrimitiveKey;
using dispatch::SpeedupOver;
using dispatch::SweepCells;
using dispatch::SweepRun;
using dispatch::ThreadsOf;
using report::Value;

constexpr std::string_view kModelGroup = "Model options (not with -- CMD)";

struct DispatchOptions {
  dispatch::ModelRunOptions run;
  std::vector<std::string> isa;      ///< --isa; empty: every cap up to the machine's
  std::vector<std::string> threads;  ///< --thread-sets; empty: no thread sweep
  int cap_threads = 0;               ///< --threads: OpenMP threads of the ISA sweep; 0: inherit
  int repeat = 1;                    ///< --repeat (runs of CMD per configuration)
  std::vector<std::string> command;  ///< CMD after --: sweep the user's program
  bool perf_map = false;
  bool no_peak = false;
  double timeout_s = 600;
  report::Format format = report::Format::kTable;
};

// The noise guard of a sweep: the ISA sweep's thread count and the load at the start and end.
struct SweepNoise {
  dispatch::ThreadChoice threads;
  std::optional<dispatch::LoadAverage> load_start;
  std::optional<dispatch::LoadAverage> load_end;
};

Value Opt(const std::optional<double>& v, int precision) {
  return v ? Value(*v, precision) : Value();
}

// The `isa_cap` of a run of the cap tables: its cap, or `scalar` (thread sets have their own
// table).
std::string CapName(const SweepRun& r) {
  return dispatch::IsaCapOf(r.config).value_or("");
}

void AddSweepTables(report::Report& report, const DispatchOptions& o,
                    const std::vector<SweepRun>& runs) {
  // runs: the caps in order, then the scalar run last (missing when a signal stopped the sweep).
  const bool has_scalar = runs.back().scalar();
  const SweepCells scalar_cells = has_scalar ? CellsOf(runs.back().run) : SweepCells();
  std::vector<SweepCells> cells;
  for (const auto& r : runs) cells.push_back(CellsOf(r.run));
  const SweepCells& lowest = cells.front();

  // Keys in first-seen order over the caps (lowest first), then scalar-only keys.
  std::vector<PrimitiveKey> keys;
  for (const auto& r : runs) {
    for (const auto& s : r.run.rows) {
      if (s.execs == 0) continue;
      const PrimitiveKey k = KeyOf(s);
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }

  const double traced = std::max(1, o.run.traced);
  const std::size_t n_caps = runs.size() - (has_scalar ? 1 : 0);
  std::vector<std::string> columns = {"layer", "primitive", "prop_kind", "problem"};
  for (std::size_t i = 0; i < n_caps; ++i) columns.push_back(CapName(runs[i]));
  for (const char* c : {"scalar", "fastest", "x scalar", "x lowest"}) columns.emplace_back(c);
  report::Table& wide = report.AddTable(
      "sweep", columns,
      "Per primitive: ms per step and implementation under each cap ([scalar]: reference code); "
      "the fastest cap and its speedup over dlcheck's scalar kernels and over the lowest cap");
  // A reading view: JSON and xlsx have the same values typed in `primitives` (ms_per_step, ...).
  wide.only_in_table = true;
  wide.answer_columns = {"fastest", "x scalar", "x lowest"};
  wide.leave_out_first = {"problem", "prop_kind", "scalar"};
  for (const PrimitiveKey& k : keys) {
    std::vector<Value> row = {k.layer, k.primitive, k.prop_kind, k.problem};
    std::optional<std::size_t> fastest;
    for (std::size_t i = 0; i < n_caps; ++i) {
      const auto c = cells[i].find(k);
      if (c == cells[i].end()) {
        row.push_back(runs[i].run.outcome.ok() ? Value("-") : Value("(worker failed)"));
        continue;
      }
      if (!fastest || c->second.ms_total < cells[*fastest].at(k).ms_total) fastest = i;
      // The time first: a cell cut to fit a terminal keeps what the columns compare.
      row.push_back(fmt::format("{:.4f} {}{}", c->second.ms_total / traced,
                                c->second.implementation, c->second.scalar ? " [scalar]" : ""));
    }
    const auto s = scalar_cells.find(k);
    row.push_back(s == scalar_cells.end() ? Value() : Value(s->second.ms_total / traced, 4));
    row.push_back(fastest ? Value(CapName(runs[*fastest])) : Value());
    row.push_back(fastest ? Opt(SpeedupOver(scalar_cells, cells[*fastest], k), 1) : Value());
    row.push_back(fastest ? Opt(SpeedupOver(lowest, cells[*fastest], k), 1) : Value());
    wide.rows.push_back(std::move(row));
  }

  // The long form, one row per (cap, primitive row): the CSV contract.
  std::vector<std::string> long_columns = {"isa_cap", "layer"};
  for (auto& c : PrimitiveColumns()) long_columns.push_back(std::move(c));
  for (const char* c :
       {"ms_per_step", "speedup_vs_scalar", "speedup_vs_lowest", "peak_gflops", "peak_fraction"}) {
    long_columns.emplace_back(c);
  }
  report::Table& rows =
      report.AddTable("primitives", long_columns, "Primitives (every configuration)");
  rows.omit_in_table = true;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const SweepRun& r = runs[i];
    const std::optional<double> peak = PeakOf(r);
    for (const auto& s : r.run.rows) {
      std::vector<Value> row = {CapName(r), s.layer ? Value(s.layer->str()) : Value()};
      for (auto& v : PrimitiveRow(s, r.run.summary.exec_ms)) row.push_back(std::move(v));
      const PrimitiveKey k = KeyOf(s);
      row.push_back(Value(s.exec_ms_total / traced, 4));
      row.push_back(Opt(SpeedupOver(scalar_cells, cells[i], k), 2));
      row.push_back(r.scalar() ? Value() : Opt(SpeedupOver(lowest, cells[i], k), 2));
      row.push_back(Opt(peak, 1));
      const auto gflops = s.Gflops();
      row.push_back(peak && gflops && *peak > 0 ? Value(*gflops / (*peak * ThreadsOf(r)), 3)
                                                : Value());
      rows.rows.push_back(std::move(row));
    }
  }
  report.primary_table = "primitives";
}

// The perf map oneDNN wrote for a worker, when asked to.
Value PerfMapOf(bool perf_map, const SweepRun& r) {
  if (!perf_map || r.scalar()) return {};
  return fmt::format("/tmp/perf-{}.map", r.run.outcome.pid);
}

void AddRunsTable(report::Report& report, const std::vector<SweepRun>& runs, bool perf_map) {
  report::Table& t =
      report.AddTable("runs",
                      {"isa_cap", "backend", "threads", "dispatched_isa", "samples_per_s",
                       "samples_per_s_min", "samples_per_s_max", "speedup_vs_scalar",
                       "speedup_vs_lowest", "max_deviation", "peak_gflops", "worker", "perf_map"},
                      "Runs (samples/s with verbose off)");
  t.hidden_in_table = {"samples_per_s_min", "samples_per_s_max"};
  t.answer_columns = {"samples_per_s", "speedup_vs_scalar", "speedup_vs_lowest"};
  t.leave_out_first = {"max_deviation", "backend", "peak_gflops"};
  if (!perf_map) t.hidden_in_table.push_back("perf_map");
  // The scalar run is last, unless a signal stopped the sweep before it.
  const SweepRun* scalar_run = runs.back().scalar() ? &runs.back() : nullptr;
  const double scalar = scalar_run != nullptr && scalar_run->run.results.samples_per_s
                            ? *scalar_run->run.results.samples_per_s
                            : 0.0;
  const auto lowest = runs.front().run.results.samples_per_s;
  for (const auto& r : runs) {
    const auto sps = r.run.results.samples_per_s;
    t.rows.push_back(
        {CapName(r), r.run.results.backend ? Value(*r.run.results.backend) : Value(), ThreadsOf(r),
         r.run.header.isa_short.empty() || r.scalar() ? Value() : Value(r.run.header.isa_short),
         Opt(sps, 1), Opt(r.run.results.samples_per_s_min, 1),
         Opt(r.run.results.samples_per_s_max, 1),
         sps && scalar > 0 ? Value(*sps / scalar, 2) : Value(),
         sps && lowest && *lowest > 0 && !r.scalar() ? Value(*sps / *lowest, 2) : Value(),
         Opt(r.run.results.max_deviation, 9), Opt(PeakOf(r), 1),
         r.run.outcome.ok() ? Value("ok") : Value(Describe(r)), PerfMapOf(perf_map, r)});
  }
}

void AddThreadsTable(report::Report& report, const std::vector<SweepRun>& sets) {
  report::Table& t = report.AddTable(
      "threads",
      {"thread_set", "threads", "cpuset", "samples_per_s", "speedup", "efficiency", "worker"},
      "Thread sets (one thread per core, bound by hwloc; speedup over the first set)");
  const auto base = sets.front().run.results.samples_per_s;
  for (const auto& r : sets) {
    const auto sps = r.run.results.samples_per_s;
    std::optional<double> speedup;
    if (sps && base && *base > 0) speedup = *sps / *base;
    std::optional<double> efficiency;
    if (speedup && r.threads > 0) efficiency = *speedup * sets.front().threads / r.threads;
    const dispatch::ThreadSetConfig& set = *r.thread_set();
    t.rows.push_back({set.name, r.threads, set.cpuset, Opt(sps, 1), Opt(speedup, 2),
                      Opt(efficiency, 2), r.run.outcome.ok() ? Value("ok") : Value(Describe(r))});
  }
}

// How a run's worker ended, when that is news: `out-of-memory` or `worker-failed`. A worker
// stopped by the signal dlcheck passed on is no failure: the `interrupted` finding says it once.
void AddWorkerEndFinding(report::Report& report, const SweepRun& r) {
  const std::string what =
      r.thread_set() != nullptr ? "thread set " + r.thread_set()->name : CapName(r);
  const std::string then = r.run.OutOfMemory() ? "" : "; the other runs went on";
  if (auto ended = dispatch::WorkerEndFinding(r.run, "the worker for " + what, then)) {
    report.findings.push_back(std::move(*ended));
  }
}

void AddFindings(report::Report& report, const std::vector<SweepRun>& runs) {
  for (const auto& r : runs) {
    AddWorkerEndFinding(report, r);
    const dispatch::CapConfig* cap = r.cap();
    if (cap == nullptr) continue;
    std::vector<Finding> found = dispatch::CapFindings(r.run.rows, cap->isa);
    report.findings.insert(report.findings.end(), found.begin(), found.end());
    if (auto model = dispatch::CapModelFallbackFinding(r.run, cap->isa)) {
      report.findings.push_back(std::move(*model));
    }
  }
  if (auto payoff = dispatch::ModelPayoff(runs)) report.findings.push_back(std::move(*payoff));
}

void AddRunSection(report::Report& report, const DispatchOptions& o,
                   const std::vector<std::string>& caps, const SweepNoise& noise) {
  const auto& m = o.run.model;
  report::Section& s = report.AddSection("run", "Run");
  s.Add("model", std::string(mlp::Name(m.model)));
  s.Add("dtype", std::string(mlp::Name(m.dtype)));
  s.Add("batch", m.batch);
  s.Add("warmup_iters", o.run.warmup);
  // Each run sizes its timed phase by the budget unless --iters fixed it (then: that count).
  s.Add("timed_iters", o.run.iters == dispatch::kItersByTime ? Value() : Value(o.run.iters));
  const std::optional<double> budget = dispatch::TimedBudget(o.run);
  s.Add("timed_s", budget ? Value(*budget, 3) : Value());
  s.Add("traced_iters", o.run.traced);
  s.Add("isa_caps", Value(report::TextList(caps)));
  s.Add("thread_sets", o.threads.empty() ? Value() : Value(report::TextList(o.threads)));
  s.Add("cap_threads", noise.threads.threads > 0 ? Value(noise.threads.threads) : Value());
  s.Add("onednn_version", dispatch::OneDnnVersion());
  s.Add("perf_map", o.perf_map);
  AddNoiseGuard(report, s, noise.threads, noise.load_start, noise.load_end);
}

// What a dispatch run needs before its first worker: the caps and the thread sets.
struct SweepPlan {
  std::vector<std::string> caps;
  std::vector<detect::ThreadSet> sets;
  SweepNoise noise;
};

StatusOr<SweepPlan> PlanSweep(const DispatchOptions& o) {
  if (Status valid = mlp::Validate(o.run.model); !valid.ok()) return valid;
  detect::PlatformInfo info = detect::DetectLivePlatform();
  detect::SetOneDnnEffectiveIsa(info, dispatch::OneDnnEffectiveIsa(), "");
  StatusOr<std::vector<std::string>> caps = dispatch::ChooseCaps(o.isa, info);
  if (!caps.ok()) return caps.status();
  SweepPlan plan{.caps = std::move(*caps)};
  plan.noise.load_start = dispatch::ReadLoadAverage();
  StatusOr<std::vector<detect::ThreadSet>> all = detect::LiveThreadSets({"all"});
  if (!all.ok()) return all.status();
  plan.noise.threads = dispatch::ChooseThreads(o.cap_threads, all->front().threads,
                                               dispatch::AllowedCpus(), plan.noise.load_start);
  if (!o.threads.empty()) {
    StatusOr<std::vector<detect::ThreadSet>> found = detect::LiveThreadSets(o.threads);
    if (!found.ok()) return found.status();
    plan.sets = std::move(*found);
  }
  return plan;
}

// The workers of the sweep, one after the other: every cap, the scalar kernels, every thread
// set (`set_runs`), until a signal stops it or the first worker refuses the request. Fails only
// when a worker cannot be started at all.
Status RunSweep(const DispatchOptions& o, const SweepPlan& plan, std::vector<SweepRun>& runs,
                std::vector<SweepRun>& set_runs) {
  report::Progress progress("dispatch", plan.caps.size() + 1 + plan.sets.size());
  dispatch::SweepSettings settings{o.run, o.timeout_s, o.perf_map};
  if (progress.active()) {
    settings.on_phase = [&progress](std::string_view phase) { progress.Phase(std::string(phase)); };
  }
  auto run = [&](std::vector<SweepRun>& into, const std::string& what, dispatch::RunConfig config,
                 int threads, bool peak) -> Status {
    if (os::SignalForwarding::Received() != 0) return {};        // stopped: no further run
    if (!runs.empty() && runs.front().run.Refused()) return {};  // the same refusal again
    progress.Step(what);
    StatusOr<SweepRun> r = dispatch::RunSweepWorker(settings, std::move(config), threads, peak);
    if (!r.ok()) return r.status();
    into.push_back(std::move(*r));
    return {};
  };
  for (const auto& cap : plan.caps) {
    if (Status s = run(runs, "cap " + cap, dispatch::CapConfig{cap}, plan.noise.threads.threads,
                       !o.no_peak);
        !s.ok()) {
      return s;
    }
  }
  if (Status s = run(runs, "dlcheck scalar kernels", dispatch::ScalarConfig{},
                     plan.noise.threads.threads, false);
      !s.ok()) {
    return s;
  }
  for (const auto& set : plan.sets) {
    const std::string what = fmt::format("threads {} ({})", set.name, set.cpuset);
    const dispatch::ThreadSetConfig config{
        .name = set.name, .cpuset = set.cpuset, .cpus = set.cpus};
    if (Status s = run(set_runs, what, config, set.threads, false); !s.ok()) {
      return s;
    }
  }
  return {};
}

// The exit status of a finished sweep: 128 + N when signal N stopped it, 5 when a worker failed.
StatusOr<int> SweepStatus(const std::vector<SweepRun>& all) {
  if (const int sig = os::SignalForwarding::Received(); sig != 0) {
    PrintError(
        fmt::format("interrupted by {}; the report holds the runs done", os::SignalName(sig)));
    return os::ExitStatusForSignal(sig);
  }
  for (const auto& r : all) {
    // Out of memory (a worker's exit 7) is the machine's limit: said once, for the first run.
    if (r.run.OutOfMemory()) return r.run.OutOfMemoryError();
  }
  for (const auto& r : all) {
    if (!r.run.outcome.ok()) {
      return Status(ExitCode::kWorkerFailed,
                    "a model worker failed; the report holds the other runs");
    }
  }
  return ToInt(ExitCode::kOk);
}

StatusOr<int> RunDispatch(const DispatchOptions& o) {
  StatusOr<SweepPlan> plan = PlanSweep(o);
  if (!plan.ok()) return plan.status();
  os::SignalForwarding forwarding;  // a signal between workers stops the sweep
  std::vector<SweepRun> runs;
  std::vector<SweepRun> set_runs;
  if (Status s = RunSweep(o, *plan, runs, set_runs); !s.ok()) return s;
  if (runs.empty()) return SweepStatus(runs);  // a signal before the first worker
  // A worker that refused the request (a bad --data directory, say) refuses it under every cap:
  // its own reason, once, and its exit status.
  if (runs.front().run.Refused()) return EndRefused(runs.front().run);

  report::Report report;
  report.command = "dispatch";
  plan->noise.load_end = dispatch::ReadLoadAverage();
  AddRunSection(report, o, plan->caps, plan->noise);
  AddSweepTables(report, o, runs);
  AddRunsTable(report, runs, o.perf_map);
  if (!set_runs.empty()) AddThreadsTable(report, set_runs);
  std::vector<SweepRun> all = runs;
  for (auto& r : set_runs) all.push_back(r);
  AddFindings(report, all);
  if (const int sig = os::SignalForwarding::Received(); sig != 0) {
    report.findings.push_back(dispatch::InterruptedFinding(sig));
  }
  report::Print(report, o.format, std::cout);
  std::cout.flush();
  return SweepStatus(all);
}

// `dispatch -- CMD` takes the sweep's options, not the model's: a model option given with CMD
// is a usage error rather than silently ignored.
Status CheckProgramMode(const CLI::App& sub, const DispatchOptions& o) {
  if (o.command.empty()) {
    if (o.repeat != 1) return UsageError("--repeat: only with a command (dispatch -- CMD)");
    return {};
  }
  for (const CLI::Option* option : sub.get_options()) {
    const std::string& group = option->get_group();
    if (group == kModelGroup && option->count() > 0) {
      return UsageError(fmt::format("{}: a model option; dispatch -- CMD runs CMD, not a model",
                                    option->get_name()));
    }
  }
  return {};
}

StatusOr<int> RunDispatchCommand(const CLI::App& sub, const DispatchOptions& o) {
  if (Status s = CheckProgramMode(sub, o); !s.ok()) return s;
  if (o.command.empty()) return RunDispatch(o);
  return RunDispatchProgram({.command = o.command,
                             .isa = o.isa,
                             .thread_sets = o.threads,
                             .threads = o.cap_threads,
                             .repeat = o.repeat,
                             .format = o.format});
}

}  // namespace

void SetupDispatch(CLI::App& subcommand, int& exit_code) {
  auto o = std::make_shared<DispatchOptions>();
  CLI::App* const sub = &subcommand;
  AddModelOptions(*sub, o->run);
  // Each run of the sweep chooses its own backend (oneDNN under a cap, then the scalar kernels).
  sub->remove_option(sub->get_option("--backend"));
  for (CLI::Option* option : sub->get_options()) {
    if (option->get_name() != "--help" && option->get_name() != "--help-all") {
      option->group(std::string(kModelGroup));
    }
  }
  sub->add_option("--isa", o->isa,
                  "ISA caps to sweep, comma-separated (default: every cap from sse41 up to what "
                  "this machine supports)")
      ->delimiter(',')
      ->type_name("LIST");
  sub->add_option("--thread-sets", o->threads,
                  "also run (at the machine's best ISA) on each thread set: 1, socket, all or a "
                  "number of cores, comma-separated; one thread per core, bound by hwloc")
      ->delimiter(',')
      ->type_name("LIST");
  sub->add_option("-t,--threads", o->cap_threads,
                  "OpenMP threads of the ISA sweep (default: OMP_NUM_THREADS; else for a model "
                  "all, for CMD the cores idle over the last minute)")
      ->check(CLI::Range(1, 4096))
      ->type_name("N");
  sub->add_option("--repeat", o->repeat,
                  "runs of CMD per configuration (median and spread reported; default 1)")
      ->check(CLI::Range(1, 1000))
      ->type_name("N");
  sub->add_option("command", o->command, "the program and its arguments, after --");
  sub->add_flag("--perf-map", o->perf_map,
                "write oneDNN's JIT kernel names to /tmp/perf-<pid>.map (ONEDNN_JIT_PROFILE=2) so "
                "that perf report shows them");
  sub->add_flag("--no-peak", o->no_peak, "skip the FMA peak probe in each worker");
  sub->add_option("--timeout", o->timeout_s, "kill a worker after this many seconds (default 600)")
      ->check(Seconds())
      ->type_name("SECONDS");
  AddFormatOption(*sub, o->format);
  AddOutputOption(*sub);
  sub->callback([o, sub, &exit_code] { exit_code = EndCommand(RunDispatchCommand(*sub, *o)); });
}

}  // namespace dlcheck::cli
