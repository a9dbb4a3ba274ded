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
#include "cli/model_options.h"
#include "cli/verbose_report.h"
#include "detect/binding.h"
#include "detect/cpu_features.h"
#include "detect/platform.h"
#include "dispatch/capture.h"
#include "dispatch/onednn_info.h"
#include "dispatch/sweep.h"
#include "mlp/model.h"
#include "verbose/rules.h"

namespace dlcheck::cli {
namespace {

using dispatch::CellsOf;
using dispatch::Describe;
using dispatch::KeyOf;
using dispatch::kScalarCap;
using dispatch::PeakOf;
using dispatch::PrimitiveKey;
using dispatch::SpeedupOver;
using dispatch::SweepCells;
using dispatch::SweepRun;
using dispatch::ThreadsOf;
using report::Value;

struct DispatchOptions {
  dispatch::ModelRunOptions run;
  std::vector<std::string> isa;      ///< --isa; empty: every cap up to the machine's
  std::vector<std::string> threads;  ///< --threads; empty: no thread sweep
  int cap_threads = 0;               ///< OpenMP threads of the ISA sweep; 0: inherit
  bool perf_map = false;
  bool no_peak = false;
  double timeout_s = 600;
  report::Format format = report::Format::kTable;
};

Value Opt(const std::optional<double>& v, int precision) {
  return v ? Value(*v, precision) : Value();
}

void Progress(bool on, std::size_t index, std::size_t total, const std::string& what) {
  if (on) std::cerr << fmt::format("dlcheck: dispatch [{}/{}] {}\n", index, total, what);
}

void AddSweepTables(report::Report& report, const DispatchOptions& o,
                    const std::vector<SweepRun>& runs) {
  // runs: the caps in order, then the scalar run last.
  const SweepRun& scalar = runs.back();
  const SweepCells scalar_cells = CellsOf(scalar.run);
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
  const std::size_t n_caps = runs.size() - 1;
  std::vector<std::string> columns = {"layer", "primitive", "prop_kind"};
  for (std::size_t i = 0; i < n_caps; ++i) columns.push_back(runs[i].cap);
  for (const char* c : {"scalar", "fastest", "x scalar", "x lowest"}) columns.emplace_back(c);
  report::Table& wide = report.AddTable(
      "sweep", columns,
      "Per primitive: implementation and ms per step under each cap ([scalar]: reference code); "
      "the fastest cap and its speedup over dlcheck's scalar kernels and over the lowest cap");
  for (const PrimitiveKey& k : keys) {
    std::vector<Value> row = {k.layer, k.primitive, k.prop_kind};
    std::optional<std::size_t> fastest;
    for (std::size_t i = 0; i < n_caps; ++i) {
      const auto c = cells[i].find(k);
      if (c == cells[i].end()) {
        row.push_back(runs[i].run.outcome.ok() ? Value("-") : Value("(worker failed)"));
        continue;
      }
      if (!fastest || c->second.ms_total < cells[*fastest].at(k).ms_total) fastest = i;
      row.push_back(fmt::format("{} {:.4f}{}", c->second.implementation,
                                c->second.ms_total / traced, c->second.scalar ? " [scalar]" : ""));
    }
    const auto s = scalar_cells.find(k);
    row.push_back(s == scalar_cells.end() ? Value() : Value(s->second.ms_total / traced, 4));
    row.push_back(fastest ? Value(runs[*fastest].cap) : Value());
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
  report::Table& rows = report.AddTable("rows", long_columns, "Rows");
  rows.omit_in_table = true;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const SweepRun& r = runs[i];
    const std::optional<double> peak = PeakOf(r);
    for (const auto& s : r.run.rows) {
      std::vector<Value> row = {r.cap, s.layer ? Value(*s.layer) : Value()};
      for (auto& v : PrimitiveRow(s, r.run.summary.exec_ms)) row.push_back(std::move(v));
      const PrimitiveKey k = KeyOf(s);
      row.push_back(Value(s.exec_ms_total / traced, 4));
      row.push_back(Opt(SpeedupOver(scalar_cells, cells[i], k), 2));
      row.push_back(r.cap == kScalarCap ? Value() : Opt(SpeedupOver(lowest, cells[i], k), 2));
      row.push_back(Opt(peak, 1));
      const auto gflops = s.Gflops();
      row.push_back(peak && gflops && *peak > 0 ? Value(*gflops / (*peak * ThreadsOf(r)), 3)
                                                : Value());
      rows.rows.push_back(std::move(row));
    }
  }
  report.primary_table = "rows";
}

// The perf map oneDNN wrote for a worker, when asked to.
Value PerfMapOf(bool perf_map, const SweepRun& r) {
  if (!perf_map || r.cap == kScalarCap) return {};
  return fmt::format("/tmp/perf-{}.map", r.run.outcome.pid);
}

void AddRunsTable(report::Report& report, const std::vector<SweepRun>& runs, bool perf_map) {
  report::Table& t = report.AddTable(
      "runs",
      {"isa_cap", "backend", "threads", "dispatched_isa", "samples_per_s", "speedup_vs_scalar",
       "speedup_vs_lowest", "max_deviation", "peak_gflops", "worker", "perf_map"},
      "Runs (samples/s with verbose off)");
  if (!perf_map) t.hidden_in_table = {"perf_map"};
  const auto scalar = runs.back().run.results.samples_per_s;
  const auto lowest = runs.front().run.results.samples_per_s;
  for (const auto& r : runs) {
    const auto sps = r.run.results.samples_per_s;
    t.rows.push_back(
        {r.cap, r.run.results.backend ? Value(*r.run.results.backend) : Value(), ThreadsOf(r),
         r.run.header.isa_short.empty() || r.cap == kScalarCap ? Value()
                                                               : Value(r.run.header.isa_short),
         Opt(sps, 1), sps && scalar && *scalar > 0 ? Value(*sps / *scalar, 2) : Value(),
         sps && lowest && *lowest > 0 && r.cap != kScalarCap ? Value(*sps / *lowest, 2) : Value(),
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
    t.rows.push_back({r.thread_set, r.threads, r.cpuset, Opt(sps, 1), Opt(speedup, 2),
                      Opt(efficiency, 2), r.run.outcome.ok() ? Value("ok") : Value(Describe(r))});
  }
}

void AddFindings(report::Report& report, const std::vector<SweepRun>& runs) {
  for (const auto& r : runs) {
    if (!r.run.outcome.ok()) {
      report.AddFinding(
          report::Severity::kError, "worker-failed",
          fmt::format("the worker for {} {}; the other runs went on",
                      r.cap.empty() ? "thread set " + r.thread_set : r.cap, Describe(r)));
    }
    if (r.cap == kScalarCap || r.cap.empty()) continue;
    const int cap_rank = detect::OneDnnIsaRank(r.cap);
    std::vector<std::string> above, scalar;
    for (const auto& s : r.run.rows) {
      if (!s.isa.empty() && detect::OneDnnIsaRank(s.isa) > cap_rank) {
        above.push_back(
            fmt::format("{} {} ({})", s.layer.value_or("?"), s.primitive, s.implementation));
      }
      // dlcheck's own kernels are the model fallback, reported once below.
      if (s.execs > 0 && verbose::IsScalarFallback(s) &&
          !verbose::IsDataMovementPrimitive(s.primitive)) {
        scalar.push_back(fmt::format("{} {} {} ({})", s.layer.value_or("?"), s.primitive,
                                     s.prop_kind, s.implementation));
      }
    }
    auto join = [](const std::vector<std::string>& v) {
      std::string s;
      for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
      return s;
    };
    if (!above.empty()) {
      report.AddFinding(report::Severity::kWarning, "isa-above-cap",
                        fmt::format("under the cap {} oneDNN still ran {}", r.cap, join(above)));
    }
    if (!scalar.empty()) {
      report.AddFinding(report::Severity::kWarning, "cap-scalar-fallback",
                        fmt::format("under the cap {} these primitives ran scalar code: {}", r.cap,
                                    join(scalar)));
    }
    if (!r.run.fallbacks.empty()) {
      std::vector<std::string> layers;
      for (const auto& f : r.run.fallbacks) layers.push_back(f.layer);
      report.AddFinding(report::Severity::kWarning, "cap-model-fallback",
                        fmt::format("under the cap {} oneDNN could not run this model, so "
                                    "dlcheck's scalar kernels ran it (layers {}): {}",
                                    r.cap, join(layers), r.run.fallbacks.front().reason));
    }
  }
  // The payoff in one sentence: the highest cap against the lowest, in samples/s.
  const SweepRun* low = nullptr;
  const SweepRun* high = nullptr;
  for (const auto& r : runs) {
    if (r.cap == kScalarCap || r.cap.empty() || !r.run.results.samples_per_s) {
      continue;
    }
    if (low == nullptr) low = &r;
    high = &r;
  }
  if (low != nullptr && high != low) {
    const double a = *low->run.results.samples_per_s;
    const double b = *high->run.results.samples_per_s;
    report.AddFinding(report::Severity::kInfo, "payoff",
                      fmt::format("the model trains {:.2f}x as fast under the cap {} as under {} "
                                  "(samples/s)",
                                  b / a, high->cap, low->cap));
  }
}

void AddRunSection(report::Report& report, const DispatchOptions& o,
                   const std::vector<std::string>& caps) {
  const auto& m = o.run.model;
  report::Section& s = report.AddSection("run", "Run");
  s.Add("model", std::string(mlp::Name(m.model)));
  s.Add("dtype", std::string(mlp::Name(m.dtype)));
  s.Add("batch", m.batch);
  s.Add("warmup_iters", o.run.warmup);
  s.Add("timed_iters", o.run.iters);
  s.Add("traced_iters", o.run.traced);
  std::string list;
  for (const auto& c : caps) list += (list.empty() ? "" : ",") + c;
  s.Add("isa_caps", list);
  std::string sets;
  for (const auto& t : o.threads) sets += (sets.empty() ? "" : ",") + t;
  s.Add("thread_sets", sets.empty() ? Value() : Value(sets));
  s.Add("cap_threads", o.cap_threads > 0 ? Value(o.cap_threads) : Value());
  s.Add("onednn_version", dispatch::OneDnnVersion());
  s.Add("perf_map", o.perf_map);
}

// What a dispatch run needs before its first worker: the caps and the thread sets.
struct SweepPlan {
  std::vector<std::string> caps;
  std::vector<detect::ThreadSet> sets;
};

StatusOr<SweepPlan> PlanSweep(const DispatchOptions& o) {
  if (Status valid = mlp::Validate(o.run.model); !valid.ok()) return valid;
  detect::PlatformInfo info = detect::DetectLivePlatform();
  detect::SetOneDnnEffectiveIsa(info, dispatch::OneDnnEffectiveIsa(), "");
  StatusOr<std::vector<std::string>> caps = dispatch::ChooseCaps(o.isa, info);
  if (!caps.ok()) return caps.status();
  SweepPlan plan{.caps = std::move(*caps)};
  if (!o.threads.empty()) {
    StatusOr<std::vector<detect::ThreadSet>> found = detect::LiveThreadSets(o.threads);
    if (!found.ok()) return found.status();
    plan.sets = std::move(*found);
  }
  return plan;
}

// The workers of the sweep, one after the other: every cap, the scalar kernels, every thread
// set (`set_runs`). Fails only when a worker cannot be started at all.
Status RunSweep(const DispatchOptions& o, const SweepPlan& plan, std::vector<SweepRun>& runs,
                std::vector<SweepRun>& set_runs) {
  const dispatch::SweepSettings settings{o.run, o.timeout_s, o.perf_map};
  const bool progress = isatty(STDERR_FILENO) != 0;
  const std::size_t total = plan.caps.size() + 1 + plan.sets.size();
  std::size_t index = 0;
  auto run = [&](std::vector<SweepRun>& into, const std::string& what, std::string cap,
                 const std::string& set, int threads, const std::string& cpuset,
                 bool peak) -> Status {
    Progress(progress, ++index, total, what);
    StatusOr<SweepRun> r =
        dispatch::RunSweepWorker(settings, std::move(cap), set, threads, cpuset, peak);
    if (!r.ok()) return r.status();
    into.push_back(std::move(*r));
    return {};
  };
  for (const auto& cap : plan.caps) {
    if (Status s = run(runs, "cap " + cap, cap, "", o.cap_threads, "", !o.no_peak); !s.ok()) {
      return s;
    }
  }
  if (Status s = run(runs, "dlcheck scalar kernels", std::string(kScalarCap), "", o.cap_threads, "",
                     false);
      !s.ok()) {
    return s;
  }
  for (const auto& set : plan.sets) {
    const std::string what = fmt::format("threads {} ({})", set.name, set.cpuset);
    if (Status s = run(set_runs, what, "", set.name, set.threads, set.cpuset, false); !s.ok()) {
      return s;
    }
  }
  return {};
}

StatusOr<int> RunDispatch(const DispatchOptions& o) {
  StatusOr<SweepPlan> plan = PlanSweep(o);
  if (!plan.ok()) return plan.status();
  std::vector<SweepRun> runs;
  std::vector<SweepRun> set_runs;
  if (Status s = RunSweep(o, *plan, runs, set_runs); !s.ok()) return s;

  report::Report report;
  report.command = "dispatch";
  AddRunSection(report, o, plan->caps);
  AddSweepTables(report, o, runs);
  AddRunsTable(report, runs, o.perf_map);
  if (!set_runs.empty()) AddThreadsTable(report, set_runs);
  std::vector<SweepRun> all = runs;
  for (auto& r : set_runs) all.push_back(r);
  AddFindings(report, all);
  report::Print(report, o.format, std::cout);
  std::cout.flush();
  for (const auto& r : all) {
    if (!r.run.outcome.ok()) {
      return Status(ExitCode::kWorkerFailed,
                    "a model worker failed; the report holds the other runs");
    }
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void SetupDispatch(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<DispatchOptions>();
  auto* sub = app.add_subcommand(
      "dispatch",
      "run a model under each oneDNN ISA cap (and thread set) and on dlcheck's scalar kernels, "
      "side by side per primitive");
  AddModelOptions(*sub, o->run);
  // Each run of the sweep chooses its own backend (oneDNN under a cap, then the scalar kernels).
  sub->remove_option(sub->get_option("--backend"));
  sub->add_option("--isa", o->isa,
                  "ISA caps to sweep, comma-separated (default: every cap from sse41 up to what "
                  "this machine supports)")
      ->delimiter(',')
      ->type_name("LIST");
  sub->add_option("--threads", o->threads,
                  "also run at the highest cap per thread set: 1, socket, all or a number of "
                  "cores, comma-separated; one thread per core, bound by hwloc")
      ->delimiter(',')
      ->type_name("LIST");
  sub->add_option("--cap-threads", o->cap_threads,
                  "OpenMP threads of the ISA sweep (default: OMP_NUM_THREADS or all)")
      ->check(CLI::Range(1, 4096));
  sub->add_flag("--perf-map", o->perf_map,
                "write oneDNN's JIT kernel names to /tmp/perf-<pid>.map (ONEDNN_JIT_PROFILE=2) so "
                "that perf report shows them");
  sub->add_flag("--no-peak", o->no_peak, "skip the FMA peak probe in each worker");
  sub->add_option("--timeout", o->timeout_s, "kill a worker after this many seconds (default 600)")
      ->check(CLI::PositiveNumber)
      ->type_name("SECONDS");
  AddFormatOption(*sub, o->format);
  sub->callback([o, &exit_code] { exit_code = EndCommand(RunDispatch(*o)); });
}

}  // namespace dlcheck::cli
