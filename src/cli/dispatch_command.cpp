// SPDX-License-Identifier: Apache-2.0
// dlcheck dispatch: the same workload once per oneDNN ISA cap (ONEDNN_MAX_CPU_ISA in its
// environment) and, for dlcheck's model, once on its scalar kernels, side by side per primitive;
// optionally per thread set (one core, one socket, the whole machine, bound by hwloc). The
// workload is the model (in a worker) or the user's program (`dispatch -- CMD`, each
// configuration --repeat times): two sources of one sweep (dispatch/sweep.h). The table that
// tells whether AVX-512 (or VNNI, BF16, AMX) pays off for this workload on this machine.
#include <fmt/format.h>

#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "cli/dispatch_report.h"
#include "cli/model_options.h"
#include "cli/run_view.h"
#include "cli/stats_view.h"
#include "common/finding_codes.h"
#include "common/text.h"
#include "dispatch/capture.h"
#include "dispatch/noise.h"
#include "dispatch/onednn_info.h"
#include "dispatch/sweep.h"
#include "dispatch/sweep_findings.h"
#include "mlp/model.h"
#include "os/signals.h"
#include "profile/perf_map.h"
#include "report/progress.h"

namespace dlcheck::cli {
namespace {

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
  double timeout_s = dispatch::kWorkerTimeoutS;
  bool timeout_given = false;  ///< --timeout given: it also limits each run of CMD
  report::Format format = report::Format::kTable;

  bool program() const { return !command.empty(); }
};

// What the report says of the sweep besides its runs.
struct SweepContext {
  const DispatchOptions& options;
  const dispatch::SweepPlan& plan;  ///< its frame ended (EndCaptureFrame) after the runs
};

constexpr report::Part kRunPart{"run", "Run"};

void AddModelRunSection(report::Report& report, const SweepContext& c) {
  const DispatchOptions& o = c.options;
  const auto& m = o.run.model;
  using namespace dispatch::model_run_field;
  using namespace sweep_field;
  report::Section& s = report.AddSection(kRunPart);
  s.Add(kModel, std::string(mlp::Name(m.model)));
  s.Add(kDtype, std::string(mlp::Name(m.dtype)));
  s.Add(kBatch, m.batch);
  s.Add(kWarmupIters, o.run.warmup);
  // Each run sizes its timed phase by the budget unless --iters fixed it (then: that count).
  s.Add(kTimedIters, o.run.iters == dispatch::kItersByTime ? Value() : Value(o.run.iters));
  const std::optional<double> budget = dispatch::TimedBudget(o.run);
  s.Add(kTimedS, budget ? Value(*budget, 3) : Value());
  s.Add(kTracedIters, o.run.traced);
  s.Add(kIsaCaps, Value(report::TextList(c.plan.caps)));
  s.Add(kThreadSets, o.threads.empty() ? Value() : Value(report::TextList(o.threads)));
  s.Add(kCapThreads,
        c.plan.frame.threads.threads > 0 ? Value(c.plan.frame.threads.threads) : Value());
  s.Add(kOnednnVersion, dispatch::OneDnnVersion());
  s.Add(kPerfMap, o.perf_map);
  AddNoiseGuard(report, s, c.plan.frame);
}

void AddProgramRunSection(report::Report& report, const SweepContext& c,
                          const std::vector<dispatch::ConfigRuns>& results) {
  const DispatchOptions& o = c.options;
  using namespace sweep_field;
  namespace model_run_field = dispatch::model_run_field;
  report::Section& s = report.AddSection(kRunPart);
  s.Add(dispatch::program_run_field::kCommand, ValidUtf8(CommandText(o.command)));
  s.Add(kIsaCaps, Value(report::TextList(c.plan.caps)));
  s.Add(kThreadSets, o.threads.empty() ? Value() : Value(report::TextList(o.threads)));
  s.Add(model_run_field::kThreads,
        c.plan.frame.threads.threads > 0 ? Value(c.plan.frame.threads.threads) : Value());
  s.Add(kRepeat, o.repeat);
  std::size_t runs = 0;
  for (const auto& r : results) runs += r.runs.size();
  s.Add(kRuns, runs);
  AddNoiseGuard(report, s, c.plan.frame);
  const std::string version = dispatch::LibraryVersionOf(results);
  s.Add(model_run_field::kOnednnVersion, version.empty() ? Value() : Value(ValidUtf8(version)));
  const int sig = os::SignalForwarding::Received();
  s.Add(kInterruptedBy, sig != 0 ? Value(os::SignalName(sig)) : Value());
}

// "swept 4 configurations in 8 runs: the model trains 1.52x as fast under the cap avx512_core
// as under sse41 (...)": the sweep and its payoffs (the findings that rank configurations).
std::string DispatchVerdict(const report::Report& report,
                            const std::vector<dispatch::ConfigRuns>& results) {
  std::size_t runs = 0;
  for (const auto& r : results) runs += r.runs.size();
  std::string verdict = fmt::format("swept {} configuration{} in {} run{}", results.size(),
                                    results.size() == 1 ? "" : "s", runs, runs == 1 ? "" : "s");
  std::string separator = ": ";
  for (const Finding& f : report.findings) {
    if (f.code != codes::kPayoff) continue;
    verdict += separator + f.message;
    separator = "; ";
  }
  if (separator == ": ") verdict += ", no configuration ranked above another";
  return verdict;
}

report::Report BuildReport(const SweepContext& c,
                           const std::vector<dispatch::ConfigRuns>& results) {
  report::Report report(DispatchDocument());
  const dispatch::SweepComparison comparison =
      dispatch::CompareSweep(results, c.options.program() ? 1 : c.options.run.traced);
  if (c.options.program()) {
    AddProgramRunSection(report, c, results);
    AddProgramSweepTables(report, results, comparison);
  } else {
    AddModelRunSection(report, c);
    AddModelSweepTables(report, results, comparison, c.options.perf_map);
  }
  // After the noise guard's findings (busy-machine, threads-capped), which the Run section added,
  // and what the plan said before the runs (cap-hidden).
  report.findings.insert(report.findings.end(), c.plan.findings.begin(), c.plan.findings.end());
  for (Finding& f :
       dispatch::SweepFindings(results, comparison, os::SignalForwarding::Received())) {
    report.findings.push_back(std::move(f));
  }
  report::SetVerdict(report, DispatchVerdict(report, results));
  return report;
}

// Who runs: the model (in a worker) or CMD.
dispatch::RunSource SourceOf(const DispatchOptions& o) {
  if (o.program()) return dispatch::ProgramSource{o.command};
  return dispatch::ModelSource{o.run};
}

dispatch::SweepSettings SettingsOf(const DispatchOptions& o, report::Progress& progress) {
  dispatch::SweepSettings settings{
      .repeat = o.repeat,
      // A worker has a limit by default; CMD only when --timeout says so.
      .timeout_s = !o.program() || o.timeout_given ? o.timeout_s : 0,
      .peak = !o.no_peak};
  // oneDNN's perf maps, asked for as `profile` asks: perf report shows the JIT kernels' names.
  if (o.perf_map) settings.extra_env = profile::JitProfileEnvironment();
  if (!progress.active()) return settings;
  settings.on_run = [&progress](std::string_view label) { progress.Step(std::string(label)); };
  settings.on_phase = [&progress](std::string_view phase) { progress.Phase(std::string(phase)); };
  settings.on_output = [&progress] { progress.Clear(); };
  settings.on_chunk = [&progress] { progress.Tick(); };
  return settings;
}

StatusOr<int> RunDispatch(const DispatchOptions& o) {
  if (!o.program()) {
    if (Status valid = mlp::Validate(o.run.model); !valid.ok()) return valid;
  }
  StatusOr<dispatch::SweepPlan> plan = dispatch::PlanSweep(
      {.isa = o.isa, .thread_sets = o.threads, .threads = o.cap_threads, .scalar = !o.program()});
  if (!plan.ok()) return plan.status();
  os::SignalForwarding forwarding;  // a signal between runs stops the sweep
  StatusOr<std::vector<dispatch::ConfigRuns>> results = [&] {
    report::Progress progress("dispatch", plan->configs.size() * o.repeat);
    return dispatch::RunSweep(SourceOf(o), *plan, SettingsOf(o, progress));
  }();
  if (!results.ok()) return results.status();
  const int sig = os::SignalForwarding::Received();
  // The model worker refused the request (a bad --data directory, say): it would under every
  // cap; its own reason, once, and its exit status.
  if (!results->empty() && results->front().first().Refused()) {
    return EndRefused(results->front().first());
  }
  if (!results->empty()) {
    dispatch::EndCaptureFrame(plan->frame);
    const SweepContext context{.options = o, .plan = *plan};
    report::Print(BuildReport(context, *results), o.format, std::cout);
    std::cout.flush();
  }
  if (sig != 0) {
    PrintError(
        fmt::format("interrupted by {}; the report holds the runs done", os::SignalName(sig)));
  }
  return dispatch::SweepExitStatus(*results, sig);
}

// `dispatch -- CMD` takes the sweep's options, not the model's: a model option given with CMD
// is a usage error rather than silently ignored.
Status CheckProgramMode(const CLI::App& sub, const DispatchOptions& o) {
  if (o.command.empty()) {
    if (o.repeat != 1) return UsageError("--repeat: only with a command (dispatch -- CMD)");
    return {};
  }
  if (const CLI::Option* option = GivenOptionOf(sub, kModelGroup)) {
    return UsageError(fmt::format("{}: a model option; dispatch -- CMD runs CMD, not a model",
                                  option->get_name()));
  }
  return {};
}

StatusOr<int> RunDispatchCommand(const CLI::App& sub, const DispatchOptions& o) {
  if (Status s = CheckProgramMode(sub, o); !s.ok()) return s;
  return RunDispatch(o);
}

}  // namespace

const report::contract::Document& DispatchDocument() {
  static const report::contract::Document kDispatch = [] {
    using namespace sweep_field;
    using namespace dispatch::model_run_field;
    namespace contract = report::contract;
    namespace columns = sweep_columns;
    // `dispatch --model` and `dispatch -- CMD` write one document: the members of either.
    const std::vector<contract::Member> run = {
        kModel,         kDtype,       kBatch,         kWarmupIters,
        kTimedIters,    kTimedS,      kTracedIters,   dispatch::program_run_field::kCommand,
        kIsaCaps,       kThreadSets,  kCapThreads,    kThreads,
        kRepeat,        kRuns,        kOnednnVersion, kPerfMap,
        kInterruptedBy, kThreadsFrom, kLoadStart,     kLoadEnd};
    std::vector<contract::Member> rows = contract::Members(columns::kModelRowsFirst);
    for (const report::Field& c : columns::kProgramRowsFirst) {
      if (c.name != kIsaCap.name) rows.emplace_back(c);
    }
    rows = contract::Joined(std::move(rows), contract::Members(PrimitiveColumns()));
    rows = contract::Joined(std::move(rows), contract::Members(columns::kModelRowsLast));
    return contract::Document{
        "dispatch",
        "the model (or a program) under each oneDNN ISA cap and thread set, side by side",
        {contract::Object(kRunPart, run), contract::Rows(report::kPrimitivesTable, rows),
         contract::Rows(kRunsTable, contract::Members(columns::kRuns)),
         contract::Rows(kThreadsTable, contract::Members(columns::kThreads)),
         contract::Rows(kConfigsTable, contract::Members(columns::kConfigs))},
        std::string(report::kPrimitivesTable.name)};
  }();
  return kDispatch;
}

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
  AddCaptureOptions(*sub,
                    {.threads = &o->cap_threads,
                     .threads_help = fmt::format("OpenMP threads of the ISA sweep (default: {})",
                                                 dispatch::kThreadDefaultRule),
                     .timeout_s = &o->timeout_s,
                     .timeout_help = "kill a worker after this many seconds (default 600); with "
                                     "CMD: each run of CMD (default: no limit)"});
  sub->add_option("--repeat", o->repeat,
                  "runs of CMD per configuration (median and spread reported; default 1)")
      ->check(CLI::Range(1, 1000))
      ->type_name("N");
  sub->add_option("command", o->command, "the program and its arguments, after --");
  sub->add_flag("--perf-map", o->perf_map,
                "write oneDNN's JIT kernel names to /tmp/perf-<pid>.map (ONEDNN_JIT_PROFILE=2, and "
                "DNNL_/MKLDNN_JIT_PROFILE for older oneDNN) so that perf report shows them");
  sub->add_flag("--no-peak", o->no_peak, "skip the FMA peak probe in each worker");
  AddFormatOption(*sub, o->format, {"svg"},
                  "output format: table (default), csv, json, xlsx, html (a page with the charts "
                  "and tables) or svg (the charts: samples/s or oneDNN time per configuration, "
                  "the primitive x configuration heat map)");
  AddOutputOption(*sub);
  sub->callback([o, sub, &exit_code] {
    o->timeout_given = sub->count("--timeout") > 0;
    exit_code = EndCommand(RunDispatchCommand(*sub, *o));
  });
}

}  // namespace dlcheck::cli
