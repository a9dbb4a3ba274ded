// SPDX-License-Identifier: Apache-2.0
// dlcheck verbose: a real training pass through oneDNN in a worker process, its verbose stream
// captured as it is written and reported per primitive and layer, with the run's throughput,
// losses and the deviation from dlcheck's scalar reference.
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>

#include "cli/commands.h"
#include "cli/enum_option.h"
#include "cli/log_view.h"
#include "cli/model_options.h"
#include "cli/run_view.h"
#include "cli/stats_view.h"
#include "dispatch/capture.h"
#include "dispatch/noise.h"
#include "dispatch/onednn_info.h"
#include "dispatch/run_fields.h"
#include "mlp/model.h"
#include "os/exit_status.h"
#include "os/output_file.h"
#include "os/signals.h"
#include "report/primitive_columns.h"
#include "report/progress.h"
#include "verbose/aggregate.h"

namespace dlcheck::cli {
namespace {

struct VerboseOptions {
  dispatch::ModelSource source;
  dispatch::CaptureSettings capture{.timeout_s = dispatch::kWorkerTimeoutS};
  std::string raw_log_path;
  // Filled when the run starts: the noise guard's part of the report.
  dispatch::CaptureFrame frame;
  report::Format format = report::Format::kTable;
  SortKey sort = SortKey::kTime;
  std::size_t top = 0;
  RooflineRequest roofline;  ///< --roofline, --machine-profile: the hot rows on the roofline
  /// The machine profile it names, read before the worker runs.
  std::optional<RooflineProfile> machine;
};

using report::Value;

Value Num(const std::optional<double>& value, int precision) {
  return value ? Value(*value, precision) : Value();
}
template <typename T>
Value Opt(const std::optional<T>& value) {
  return value ? Value(*value) : Value();
}

std::string Layers(const std::vector<int>& layers) {
  std::string text = "784";
  for (int l : layers) text += fmt::format("-{}", l);
  return text;
}

constexpr report::Part kRunPart{"run", "Run"};

void AddRunSection(report::Report& report, const VerboseOptions& o, const dispatch::Run& run) {
  const auto& m = o.source.run.model;
  const dispatch::WorkerResults& results = run.model->results;
  using namespace dispatch::model_run_field;
  report::Section& s = report.AddSection(kRunPart);
  s.Add(kModel, std::string(mlp::Name(m.model)));
  if (m.model == mlp::ModelKind::kMlp) s.Add(kLayers, Layers(m.layers));
  s.Add(kBackendRequested, std::string(mlp::Name(o.source.run.backend)));
  s.Add(kBackend, Opt(results.backend));
  s.Add(kDtype, std::string(mlp::Name(m.dtype)));
  s.Add(kBatch, m.batch);
  s.Add(kTrainSamples, Opt(results.train_samples));
  s.Add(kWarmupIters, o.source.run.warmup);
  s.Add(kTimedIters,
        results.timed_steps ? Value(static_cast<std::int64_t>(*results.timed_steps)) : Value());
  s.Add(kTimedS, Num(dispatch::TimedBudget(o.source.run), 3));
  s.Add(kTracedIters, o.source.run.traced);
  s.Add(kThreads, run.header.threads
                      ? Value(*run.header.threads)
                      : (o.capture.threads > 0 ? Value(o.capture.threads) : Value()));
  s.Add(kSamplesPerS, Num(results.samples_per_s, 1));
  // The spread of the timed steps' chunks: how far to trust samples_per_s.
  s.Add(kSamplesPerSMin, Num(results.samples_per_s_min, 1));
  s.Add(kSamplesPerSMax, Num(results.samples_per_s_max, 1));
  const auto& sps = results.samples_per_s;
  s.Add(kSpreadPct,
        sps && *sps > 0 && results.samples_per_s_min && results.samples_per_s_max
            ? Value(100 * (*results.samples_per_s_max - *results.samples_per_s_min) / *sps, 1)
            : Value());
  s.Add(kStepMs, Num(results.step_ms_timed, 4));
  s.Add(kStepMsTraced, Num(results.step_ms_traced, 4));
  const auto& timed = results.step_ms_timed;
  const auto& traced = results.step_ms_traced;
  s.Add(kVerboseOverheadPct,
        timed && traced && *timed > 0 ? Value(100.0 * (*traced - *timed) / *timed, 1) : Value());
  s.Add(kLossFirst, Num(results.loss_first, 4));
  s.Add(kLossLast, Num(results.loss_last, 4));
  s.Add(kTestAccuracy, Num(results.test_accuracy, 4));
  s.Add(kMaxDeviation, Num(results.max_deviation, 9));
  s.Add(kDeviationTensor, Opt(results.deviation_tensor));
  s.Add(kTolerance, Num(results.tolerance, 6));
  s.Add(kOnednnVersion, dispatch::OneDnnVersion());
  s.Add(kDetectedIsa, run.header.isa_short.empty() ? Value() : Value(run.header.isa_short));
  s.Add(kWorker, run.outcome.ok() ? Value("ok") : Value(run.outcome.Describe()));
  s.Add(report::kTraceOrigin, Value(run.outcome.start_unix_s, 6));
  AddNoiseGuard(report, s, o.frame);
}

// The whole report, whatever the format: the printer chooses what to show (the human table
// leaves the timeline out; JSON and trace carry it).
report::Report BuildReport(const VerboseOptions& o, dispatch::Run& run) {
  report::Report report(VerboseDocument());
  AddRunSection(report, o, run);
  AddRunStream(report, run, o.sort, o.top, o.machine ? &*o.machine : nullptr);
  for (Finding& f : dispatch::RunFindings(run, "the model worker")) {
    report.findings.push_back(std::move(f));
  }
  const auto& sps = run.model->results.samples_per_s;
  report::SetVerdict(report, fmt::format("{}: {}{}", mlp::Name(o.source.run.model.model),
                                         PrimitivesVerdict(run.summary),
                                         sps ? fmt::format(", {:.1f} samples/s", *sps) : ""));
  return report;
}

StatusOr<int> Finish(const VerboseOptions& o, dispatch::Run& run) {
  if (run.Refused()) return EndRefused(run);
  report::Print(BuildReport(o, run), o.format, std::cout);
  std::cout.flush();
  if (const int sig = run.outcome.interrupted; sig != 0) {
    PrintError(
        fmt::format("interrupted by {}; the report holds what was captured", os::SignalName(sig)));
    return os::ExitStatusForSignal(sig);
  }
  if (Status failed = WorkerFailure(run); !failed.ok()) return failed;
  return ToInt(dispatch::Deviates(run.model->results) ? ExitCode::kDeviation : ExitCode::kOk);
}

// The worker's run, with its phases as progress on a terminal (cleared before the report).
StatusOr<dispatch::Run> Capture(const VerboseOptions& o, std::ostream* raw_log) {
  report::Progress progress("verbose", 0);
  dispatch::CaptureSettings settings = o.capture;
  settings.raw_log = raw_log;
  if (progress.active()) {
    settings.on_phase = [&progress](std::string_view phase) { progress.Phase(std::string(phase)); };
  }
  return dispatch::Capture(o.source, settings);
}

StatusOr<int> RunVerbose(VerboseOptions& o) {
  if (Status valid = mlp::Validate(o.source.run.model); !valid.ok()) return valid;
  StatusOr<std::optional<RooflineProfile>> machine = LoadRooflineProfile(o.roofline);
  if (!machine.ok()) return machine.status();
  o.machine = std::move(*machine);
  os::OutputFile raw_log;  // opened first: a bad path fails before the worker runs
  if (!o.raw_log_path.empty()) {
    if (Status opened = raw_log.Open(o.raw_log_path); !opened.ok()) return opened;
  }
  StatusOr<dispatch::CaptureFrame> frame = dispatch::StartCaptureFrame(o.capture.threads);
  if (!frame.ok()) return frame.status();
  o.frame = std::move(*frame);
  o.capture.threads = o.frame.threads.threads;
  StatusOr<dispatch::Run> run = Capture(o, raw_log.is_open() ? &raw_log.stream() : nullptr);
  if (!run.ok()) return run.status();
  dispatch::EndCaptureFrame(o.frame);
  // The worker has run: its report is printed even when the raw log could not be kept.
  const Status raw_log_kept = raw_log.is_open() ? raw_log.Commit() : Status();
  StatusOr<int> ended = Finish(o, *run);
  if (!raw_log_kept.ok()) return raw_log_kept;
  return ended;
}

}  // namespace

const report::contract::Document& VerboseDocument() {
  static const report::contract::Document kVerbose = [] {
    using namespace dispatch::model_run_field;
    namespace contract = report::contract;
    return contract::Document{
        "verbose",
        "a model trained through oneDNN in a worker, every primitive per layer",
        {contract::Object(kRunPart, {kModel,
                                     kLayers,
                                     kBackendRequested,
                                     kBackend,
                                     kDtype,
                                     kBatch,
                                     kTrainSamples,
                                     kWarmupIters,
                                     kTimedIters,
                                     kTimedS,
                                     kTracedIters,
                                     kThreads,
                                     kSamplesPerS,
                                     kSamplesPerSMin,
                                     kSamplesPerSMax,
                                     kSpreadPct,
                                     kStepMs,
                                     kStepMsTraced,
                                     kVerboseOverheadPct,
                                     kLossFirst,
                                     kLossLast,
                                     kTestAccuracy,
                                     kMaxDeviation,
                                     kDeviationTensor,
                                     kTolerance,
                                     kOnednnVersion,
                                     kDetectedIsa,
                                     kWorker,
                                     report::kTraceOrigin,
                                     kThreadsFrom,
                                     kLoadStart,
                                     kLoadEnd}),
         InputMember(/*with_files=*/false), SummaryMember(),
         PrimitivesMember(/*with_layer=*/true, /*with_file=*/false), DiagnosticsMember(),
         report::TraceMember(), roofline::RowRooflineMember()},
        std::string(report::kPrimitivesTable.name)};
  }();
  return kVerbose;
}

void SetupVerbose(CLI::App& subcommand, int& exit_code) {
  auto o = std::make_shared<VerboseOptions>();
  CLI::App* const sub = &subcommand;
  AddModelOptions(*sub, o->source.run);
  AddCaptureOptions(*sub,
                    {.threads = &o->capture.threads,
                     .threads_help = fmt::format("OpenMP threads for the worker (default: {})",
                                                 dispatch::kThreadDefaultRule),
                     .timeout_s = &o->capture.timeout_s,
                     .timeout_help = "kill the worker after this many seconds (default 600)"});
  sub->add_option("--raw-log", o->raw_log_path, "keep the worker's raw verbose stream in FILE")
      ->type_name("FILE");
  AddFormatOption(*sub, o->format, {"trace", "benchdnn"},
                  "output format: table (default), csv, json, xlsx, html (a web page with charts), "
                  "trace (Chrome trace) or "
                  "benchdnn (a command line per distinct primitive)");
  AddOutputOption(*sub);
  AddRowOptions(*sub, o->sort, o->top);
  AddRooflineOptions(*sub, o->roofline);
  sub->callback([o, &exit_code] { exit_code = EndCommand(RunVerbose(*o)); });
}

}  // namespace dlcheck::cli
