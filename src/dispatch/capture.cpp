#include "dispatch/capture.h"

#include <fmt/format.h>

#include <cstdlib>

#include "dispatch/worker_protocol.h"
#include "os/output_file.h"
#include "verbose/log_session.h"

namespace dlcheck::dispatch {

std::string ConfiguredIsaCap() {
  for (const char* name : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"}) {
    if (const char* value = std::getenv(name); value != nullptr && *value != '\0') return value;
  }
  return {};
}

namespace {

// The worker's command line and environment for `options`.
os::Spec WorkerSpecFor(const CaptureOptions& options) {
  os::Spec spec;
  spec.argv = options.launcher;
  spec.argv.push_back(options.worker_binary.empty() ? os::SelfExecutable() : options.worker_binary);
  for (auto& a : WorkerArguments(options.run)) spec.argv.push_back(std::move(a));
  // Level 2 prints creation as well as execution; timestamps give the timeline. The legacy
  // variables are removed so that a user's DNNL_VERBOSE=0 cannot silence the worker.
  spec.env = {{"ONEDNN_VERBOSE", "2"}, {"ONEDNN_VERBOSE_TIMESTAMP", "1"}};
  spec.unset_env = {"DNNL_VERBOSE", "MKLDNN_VERBOSE", "DNNL_VERBOSE_TIMESTAMP",
                    "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"};
  if (options.threads > 0)
    spec.env.emplace_back("OMP_NUM_THREADS", std::to_string(options.threads));
  if (!options.max_cpu_isa.empty())
    spec.env.emplace_back("ONEDNN_MAX_CPU_ISA", options.max_cpu_isa);
  spec.timeout_s = options.timeout_s;
  spec.keep_stderr_tail = true;  // says why a worker failed
  spec.read_to_end = true;       // under perf, the worker (which writes) ends after perf
  for (const auto& kv : options.extra_env) spec.env.push_back(kv);
  return spec;
}

// Handles a worker line (layer, phase, result, fallback); false for any other line.
bool TakeWorkerLine(std::string_view line, const CaptureOptions& options, CapturedRun& run,
                    verbose::LogSession& session, std::string& phase, Timeline& timeline) {
  const auto msg = ParseWorkerLine(line);
  if (!msg) return false;
  switch (msg->kind) {
    case WorkerMessage::Kind::kLayer:
      run.last_layer = msg->name;
      session.SetLayer(run.last_layer);
      break;
    case WorkerMessage::Kind::kPhase:
      phase = msg->name;
      timeline.set_recording(phase == "traced");
      run.last_layer.clear();
      session.SetLayer("");
      if (options.on_phase) options.on_phase(phase);
      break;
    case WorkerMessage::Kind::kResult:
      RecordResult(run.results, msg->name, msg->value);
      break;
    case WorkerMessage::Kind::kFallback:
      run.fallbacks.push_back({std::string(msg->name), std::string(msg->value)});
      break;
  }
  return true;
}

}  // namespace

void Timeline::OnEvent(const verbose::VerboseEvent& e, std::size_t) {
  if (e.operation != verbose::Operation::kExec || !recording_ || !e.time_ms) return;
  Add({.primitive = e.primitive,
       .layer = e.layer.value_or(""),
       .implementation = e.implementation,
       .prop_kind = e.prop_kind,
       .problem = e.problem,
       .time_ms = *e.time_ms},
      e.timestamp);
}

void Timeline::OnRepeat(const verbose::LineMemo::Entry& repeat, double ms,
                        std::optional<double> timestamp) {
  if (!repeat.exec || !recording_) return;
  const verbose::PrimitiveStats& s = session_.aggregator().rows()[repeat.row];
  Add({.primitive = s.primitive.str(),
       .layer = std::string(s.LayerOr("")),
       .implementation = s.implementation.str(),
       .prop_kind = s.prop_kind.str(),
       .problem = s.problem.str(),
       .time_ms = ms},
      timestamp);
}

// Starts at the timestamp since the first recorded execution; without timestamps, executions
// are laid back to back.
void Timeline::Add(ExecRecord rec, std::optional<double> timestamp) {
  rec.stamp_ms = timestamp;
  if (timestamp) {
    if (!first_stamp_) first_stamp_ = *timestamp;
    rec.start_ms = *timestamp - *first_stamp_;
  } else {
    rec.start_ms = clock_ms_;
  }
  clock_ms_ = rec.start_ms + rec.time_ms;
  if (execs_.size() >= max_records_) {
    ++dropped_;
    return;
  }
  execs_.push_back(std::move(rec));
}

std::string CapturedRun::Where() const {
  const std::string_view phase =
      last_phase.empty() ? std::string_view("start-up") : std::string_view(last_phase);
  if (last_layer.empty()) return fmt::format("in phase {}", phase);
  return fmt::format("in phase {}, layer {}", phase, last_layer);
}

Status CapturedRun::OutOfMemoryError() const {
  return Status(ExitCode::kUnsupported,
                fmt::format("out of memory: the model worker did not fit in the memory it may use "
                            "({}); raise the limit (ulimit -v, the cgroup's memory.max) or use a "
                            "smaller --batch, --layers or --data set",
                            Where()));
}

CapturedRun::Refusal CapturedRun::RefusalOf() const {
  if (OutOfMemory()) return {.error = OutOfMemoryError()};
  std::string line = WorkerError();
  if (line.empty()) {
    return {.error = Status(static_cast<ExitCode>(outcome.exit_code),
                            fmt::format("the model worker {}", outcome.Describe()))};
  }
  return {.exit_status = outcome.exit_code, .worker_line = std::move(line)};
}

std::optional<Finding> WorkerEndFinding(const CapturedRun& run, std::string_view who,
                                        std::string_view then) {
  if (run.outcome.ok() || run.outcome.interrupted != 0) return std::nullopt;
  if (run.OutOfMemory()) {
    return Finding{.severity = Severity::kError,
                   .code = "out-of-memory",
                   .message = fmt::format("{} did not fit in the memory it may use ({}){}", who,
                                          run.Where(), then)};
  }
  return Finding{
      .severity = Severity::kError,
      .code = "worker-failed",
      .message = fmt::format("{} {} {}{}", who, run.outcome.Describe(), run.Where(), then)};
}

StatusOr<CapturedRun> CaptureModelRun(const CaptureOptions& options) {
  os::OutputFile raw_log;
  if (!options.raw_log_path.empty()) {
    if (Status opened = raw_log.Open(options.raw_log_path); !opened.ok()) return opened;
  }

  CapturedRun run;
  run.timeout_s = options.timeout_s;
  // The same session as `dlcheck parse`: joining, the memo, skip counts; layers from the worker.
  verbose::LogSession session;
  session.StartInput("<worker>");
  std::string phase;
  Timeline timeline(session, run.execs);
  session.AddListener(&timeline);
  std::uint64_t line_number = 0;
  auto on_line = [&](std::string_view line) {
    ++line_number;
    if (TakeWorkerLine(line, options, run, session, phase, timeline)) return;
    if (raw_log.is_open()) raw_log.stream() << line << '\n';
    session.Feed(line, line_number);
  };

  StatusOr<os::Outcome> outcome = os::RunProcessLines(WorkerSpecFor(options), on_line);
  if (!outcome.ok()) return Status(ExitCode::kWorkerFailed, outcome.status().message());
  if (raw_log.is_open()) {
    if (Status kept = raw_log.Commit(); !kept.ok()) return kept;
  }
  session.Finish();
  run.outcome = std::move(*outcome);
  run.last_phase = phase;
  run.header = session.header();
  run.diagnostics = session.aggregator().diagnostics();
  // A worker stopped early (a signal, a crash) left part of its log: the notes that conclude
  // from a whole run are not made for it.
  run.summary = session.Summarize({.whole_run = run.outcome.ok() && run.outcome.interrupted == 0});
  run.rows = session.TakeRows();
  run.input = session.stats();
  run.verbose_lines = run.input.events;
  return run;
}

}  // namespace dlcheck::dispatch
