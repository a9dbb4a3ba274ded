// SPDX-License-Identifier: Apache-2.0
#include "dispatch/capture.h"

#include <fmt/format.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>

#include "common/onednn_isa.h"
#include "detect/platform.h"
#include "dispatch/worker_protocol.h"
#include "verbose/log_session.h"
#include "verbose/output_splitter.h"

namespace dlcheck::dispatch {

std::string ConfiguredIsaCap() {
  for (const char* name : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return value;
  }
  return {};
}

const std::vector<std::pair<std::string, std::string>>& VerboseEnvironment() {
  static const std::vector<std::pair<std::string, std::string>> kEnvironment = {
      {"ONEDNN_VERBOSE", "2,dispatch"},
      {"DNNL_VERBOSE", "2"},
      {"MKLDNN_VERBOSE", "2"},
      {"ONEDNN_VERBOSE_TIMESTAMP", "1"},
      {"DNNL_VERBOSE_TIMESTAMP", "1"}};
  return kEnvironment;
}

namespace {
constexpr std::size_t kLevelVariables = 3;  // VerboseEnvironment's first three
}  // namespace

VerboseRequest ChooseVerboseRequest(const std::function<const char*(const char*)>& lookup) {
  VerboseRequest request;
  const auto& ours = VerboseEnvironment();
  for (std::size_t i = 0; i < kLevelVariables; ++i) {
    if (const char* value = lookup(ours[i].first.c_str()); value != nullptr) {
      request.variables.emplace_back(ours[i].first, value);
    }
  }
  request.from_user = !request.variables.empty();
  if (!request.from_user) request.variables.assign(ours.begin(), ours.begin() + kLevelVariables);
  return request;
}

std::vector<std::pair<std::string, std::string>> EngineLogEnvironment(
    const std::function<const char*(const char*)>& lookup) {
  static const std::array<std::pair<std::string_view, std::string_view>, 4> kZendnn = {{
      {"ZENDNN_VERBOSE", "2"},
      {"ZENDNN_PRIMITIVE_LOG_ENABLE", "1"},
      {"ZENDNNL_ENABLE_PROFILER", "1"},
      {"ZENDNNL_PROFILE_LOG_LEVEL", "4"},
  }};
  std::vector<std::pair<std::string, std::string>> added;
  for (const auto& [name, value] : kZendnn) {
    if (lookup(std::string(name).c_str()) == nullptr) added.emplace_back(name, value);
  }
  return added;
}

std::vector<std::pair<std::string, std::string>> MaxIsaEnvironment(const std::string& cap) {
  const std::string value = onednn::MaxIsaValue(cap);
  return {
      {"ONEDNN_MAX_CPU_ISA", value}, {"DNNL_MAX_CPU_ISA", value}, {"MKLDNN_MAX_CPU_ISA", value}};
}

std::optional<std::string> IsaCapOf(const RunConfig& config) {
  if (const auto* cap = std::get_if<CapConfig>(&config)) return cap->isa;
  if (std::holds_alternative<ScalarConfig>(config)) return std::string(kScalarCap);
  return std::nullopt;
}

namespace {

// What both sources share: the session of `parse` (joining, the memo, skip counts) with the
// timeline listening, and the run record it fills.
struct Recorder {
  Recorder(std::size_t max_timeline, std::string input_name)
      : timeline(session, run.execs, max_timeline) {
    session.AddListener(&timeline);
    session.StartInput(std::move(input_name));
  }
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  // The run once its process has ended: the session's results moved into it.
  Run Finish(os::Outcome outcome, verbose::RunContext context) {
    session.Finish();
    session.RemoveListener(&timeline);
    run.outcome = std::move(outcome);
    run.header = session.header();
    run.diagnostics = session.aggregator().diagnostics();
    run.summary = session.Summarize(context);
    run.rows = session.TakeRows();
    run.input = session.stats();
    run.timeline_dropped = timeline.dropped();
    return std::move(run);
  }

  Run run;
  verbose::LogSession session;
  verbose::Timeline timeline;
};

// ---- the model worker ----

// The worker's options under `config`: the backend and binding a configuration implies.
ModelRunOptions ConfiguredModel(ModelRunOptions run, const RunConfig& config) {
  if (std::holds_alternative<ScalarConfig>(config)) run.backend = mlp::Backend::kScalar;
  if (std::holds_alternative<CapConfig>(config)) run.backend = mlp::Backend::kOneDnn;
  if (const auto* set = std::get_if<ThreadSetConfig>(&config)) {
    run.backend = mlp::Backend::kOneDnn;
    run.cpuset = set->cpuset;
  }
  return run;
}

// The cap the worker's oneDNN gets: the configured one, the environment's by default.
std::string WorkerCap(const RunConfig& config) {
  if (const auto* cap = std::get_if<CapConfig>(&config)) return cap->isa;
  if (std::holds_alternative<DefaultConfig>(config)) return ConfiguredIsaCap();
  return {};
}

// A launcher (perf record) writes its recording after the signal that stopped its workload.
constexpr double kLauncherGraceS = 120;

os::Spec WorkerSpec(const ModelSource& source, const CaptureSettings& settings) {
  os::Spec spec;
  spec.argv = settings.launcher;
  spec.argv.push_back(source.worker_binary.empty() ? os::SelfExecutable() : source.worker_binary);
  for (auto& a : WorkerArguments(ConfiguredModel(source.run, settings.config))) {
    spec.argv.push_back(std::move(a));
  }
  // Level 2 prints creation as well as execution; timestamps give the timeline. The legacy
  // variables are removed so that a user's DNNL_VERBOSE=0 cannot silence the worker.
  spec.env = {{"ONEDNN_VERBOSE", VerboseEnvironment().front().second},
              {"ONEDNN_VERBOSE_TIMESTAMP", "1"}};
  spec.unset_env = {"DNNL_VERBOSE", "MKLDNN_VERBOSE", "DNNL_VERBOSE_TIMESTAMP",
                    "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"};
  if (settings.threads > 0)
    spec.env.emplace_back("OMP_NUM_THREADS", std::to_string(settings.threads));
  if (const std::string cap = WorkerCap(settings.config); !cap.empty()) {
    spec.env.emplace_back("ONEDNN_MAX_CPU_ISA", cap);
  }
  spec.timeout_s = settings.timeout_s;
  if (!settings.launcher.empty()) spec.grace_after_signal_s = kLauncherGraceS;
  spec.keep_stderr_tail = true;  // says why a worker failed
  spec.read_to_end = true;       // under perf, the worker (which writes) ends after perf
  for (const auto& kv : settings.extra_env) spec.env.push_back(kv);
  return spec;
}

// Handles a worker line (layer, phase, result, fallback); false for any other line.
bool TakeWorkerLine(std::string_view line, const CaptureSettings& settings, ModelResults& model,
                    Recorder& recorder) {
  const auto msg = ParseWorkerLine(line);
  if (!msg) return false;
  switch (msg->kind) {
    case WorkerMessage::Kind::kLayer:
      model.last_layer = msg->name;
      recorder.session.SetLayer(model.last_layer);
      break;
    case WorkerMessage::Kind::kPhase:
      model.last_phase = msg->name;
      // The traced steps, unless no timeline is asked (max_timeline 0: none is said dropped).
      recorder.timeline.set_recording(model.last_phase == "traced" && settings.max_timeline > 0);
      model.last_layer.clear();
      recorder.session.SetLayer("");
      if (settings.on_phase) settings.on_phase(model.last_phase);
      break;
    case WorkerMessage::Kind::kResult:
      RecordResult(model.results, msg->name, msg->value);
      break;
    case WorkerMessage::Kind::kFallback:
      model.fallbacks.push_back({std::string(msg->name), std::string(msg->value)});
      break;
  }
  return true;
}

StatusOr<Run> CaptureModel(const ModelSource& source, const CaptureSettings& settings) {
  Recorder recorder(settings.max_timeline, "<worker>");
  ModelResults model;
  std::uint64_t line_number = 0;
  auto on_line = [&](std::string_view line) {
    ++line_number;
    if (TakeWorkerLine(line, settings, model, recorder)) return;
    if (settings.raw_log != nullptr) *settings.raw_log << line << '\n';
    recorder.session.Feed(line, line_number);
  };
  StatusOr<os::Outcome> outcome = os::RunProcessLines(WorkerSpec(source, settings), on_line);
  if (!outcome.ok()) return Status(ExitCode::kWorkerFailed, outcome.status().message());
  // A worker stopped early (a signal, a crash) left part of its log: the notes that conclude
  // from a whole run are not made for it.
  const bool whole_run = outcome->ok() && outcome->interrupted == 0;
  // Its log traced a few steps; the timed phase ran without verbose: creation is weighed
  // against the whole timed phase.
  std::optional<double> timed_ms;
  const WorkerResults& res = model.results;
  if (res.step_ms_timed && res.timed_steps) timed_ms = *res.step_ms_timed * *res.timed_steps;
  Run run = recorder.Finish(std::move(*outcome), {.whole_run = whole_run, .timed_ms = timed_ms});
  run.verbose_lines = run.input.events;
  run.model = std::move(model);
  return run;
}

// ---- a user's program ----

// Takes the splitter's output: verbose lines to the session (and the raw log), the program's
// own bytes to stderr at once.
class ProgramSink : public verbose::OutputSink {
 public:
  ProgramSink(verbose::LogSession& session, std::ostream* raw_log,
              const std::function<void()>& on_output)
      : session_(session), raw_log_(raw_log), on_output_(on_output) {}

  void OnVerboseLine(std::string_view line) override {
    ++lines_;
    if (raw_log_ != nullptr) *raw_log_ << line << '\n';
    session_.Feed(line, lines_);
  }
  void OnTooLongLine() override { session_.FeedTooLong(++lines_); }
  void OnProgramOutput(std::string_view bytes) override {
    if (on_output_ && !bytes.empty()) on_output_();
    while (!bytes.empty()) {
      const ssize_t put = write(STDERR_FILENO, bytes.data(), bytes.size());
      if (put < 0 && errno == EINTR) continue;
      if (put <= 0) return;  // stderr closed: the program's output has nowhere to go
      bytes.remove_prefix(static_cast<std::size_t>(put));
    }
  }

 private:
  verbose::LogSession& session_;
  std::ostream* raw_log_;
  const std::function<void()>& on_output_;
  std::uint64_t lines_ = 0;
};

StatusOr<os::Spec> ProgramSpec(const ProgramSource& source, const CaptureSettings& settings,
                               const VerboseRequest& request) {
  if (std::holds_alternative<ScalarConfig>(settings.config)) {
    return UsageError("a program has no run on dlcheck's scalar kernels");
  }
  os::Spec spec{.argv = settings.launcher};
  spec.argv.insert(spec.argv.end(), source.argv.begin(), source.argv.end());
  if (const auto* cap = std::get_if<CapConfig>(&settings.config)) {
    spec.env = MaxIsaEnvironment(cap->isa);
  }
  if (const auto* set = std::get_if<ThreadSetConfig>(&settings.config)) spec.cpus = set->cpus;
  if (settings.threads > 0) {
    spec.env.emplace_back("OMP_NUM_THREADS", std::to_string(settings.threads));
    spec.env.emplace_back("MKL_NUM_THREADS", std::to_string(settings.threads));
  }
  // One OpenMP thread per CPU of the affinity mask, each kept on its own.
  if (!spec.cpus.empty()) spec.env.emplace_back("OMP_PROC_BIND", "true");
  for (const auto& kv : settings.extra_env) spec.env.push_back(kv);
  // dlcheck's verbose variables win over the above; the user's own level variables are kept.
  const auto& verbose = VerboseEnvironment();
  for (std::size_t i = request.from_user ? kLevelVariables : 0; i < verbose.size(); ++i) {
    spec.env.push_back(verbose[i]);
  }
  for (auto& kv : EngineLogEnvironment([](const char* name) { return std::getenv(name); }))
    spec.env.push_back(std::move(kv));
  spec.search_path = true;
  spec.terminal = true;
  spec.timeout_s = settings.timeout_s;
  spec.while_running = settings.while_running;
  if (!settings.launcher.empty()) spec.grace_after_signal_s = kLauncherGraceS;
  return spec;
}

StatusOr<Run> CaptureProgram(const ProgramSource& source, const CaptureSettings& settings) {
  VerboseRequest request = ChooseVerboseRequest([](const char* name) { return std::getenv(name); });
  StatusOr<os::Spec> spec = ProgramSpec(source, settings, request);
  if (!spec.ok()) return spec.status();
  Recorder recorder(settings.max_timeline, "<" + source.argv.front() + ">");
  recorder.timeline.set_recording(settings.max_timeline > 0);
  ProgramSink sink(recorder.session, settings.raw_log, settings.on_output);
  verbose::OutputSplitter splitter(sink);
  StatusOr<os::Outcome> ended = os::RunProcess(*spec, [&](std::string_view bytes) {
    splitter.Feed(bytes);
    if (settings.on_chunk) settings.on_chunk();
  });
  splitter.Finish();
  if (!ended.ok()) return ended.status();
  // A signal dlcheck passed on ends the log where the program was stopped; a log without a
  // primitive line is said by the command's own findings (verbose::CallerSaysWhyNoPrimitive).
  const verbose::RunContext context{.whole_run = ended->interrupted == 0,
                                    .recorded_verbose_lines = splitter.verbose_lines(),
                                    .host = HostDtypeUnits()};
  Run run = recorder.Finish(std::move(*ended), context);
  run.verbose_lines = splitter.verbose_lines();
  run.program_output = {.bytes = splitter.program_bytes(), .lines = splitter.program_lines()};
  run.verbose_request = std::move(request);
  return run;
}

}  // namespace

verbose::DtypeUnits HostDtypeUnits() {
  const detect::FeatureSet usable = detect::LiveUsableFeatures();
  verbose::DtypeUnits units = verbose::DtypeUnitsOfFeatures(
      [&usable](std::string_view name) {
        const auto found = usable.find(name);
        return found != usable.end() && found->second;
      },
      "this host");
  units.here = true;
  return units;
}

StatusOr<Run> Capture(const RunSource& source, const CaptureSettings& settings) {
  if (const auto* model = std::get_if<ModelSource>(&source)) return CaptureModel(*model, settings);
  return CaptureProgram(std::get<ProgramSource>(source), settings);
}

}  // namespace dlcheck::dispatch
