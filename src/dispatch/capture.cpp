#include "dispatch/capture.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "dispatch/worker_protocol.h"

namespace dlcheck::dispatch {

StatusOr<CapturedRun> CaptureModelRun(const CaptureOptions& options) {
  WorkerSpec spec;
  spec.argv.push_back(options.worker_binary.empty() ? SelfExecutable() : options.worker_binary);
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
  for (const auto& kv : options.extra_env) spec.env.push_back(kv);

  std::ofstream raw_log;
  if (!options.raw_log_path.empty()) {
    raw_log.open(options.raw_log_path, std::ios::binary | std::ios::trunc);
    if (!raw_log) {
      return InputError(fmt::format("cannot write the raw log '{}': {}", options.raw_log_path,
                                    std::strerror(errno)));
    }
  }

  CapturedRun run;
  run.timeout_s = options.timeout_s;
  verbose::LineParser parser;
  verbose::Aggregator aggregator;
  aggregator.SetHeader(&parser.header());
  verbose::VerboseEvent event;
  std::string layer;
  std::string phase;
  std::optional<double> first_exec_stamp;
  double traced_clock_ms = 0;  // a timeline without timestamps: executions back to back
  std::uint64_t line_number = 0;

  auto on_line = [&](std::string_view line) {
    ++line_number;
    if (const auto msg = ParseWorkerLine(line)) {
      switch (msg->kind) {
        case WorkerMessage::Kind::kLayer:
          layer = msg->name;
          break;
        case WorkerMessage::Kind::kPhase:
          phase = msg->name;
          layer.clear();
          if (options.on_phase) options.on_phase(phase);
          break;
        case WorkerMessage::Kind::kResult:
          RecordResult(run.results, msg->name, msg->value);
          break;
        case WorkerMessage::Kind::kFallback:
          run.fallbacks.push_back({std::string(msg->name), std::string(msg->value)});
          break;
      }
      return;
    }
    if (raw_log.is_open()) raw_log << line << '\n';
    const verbose::ParseResult r = parser.Parse(line, event);
    if (r.kind == verbose::LineKind::kSkipped) ++run.skipped[r.reason];
    if (r.kind != verbose::LineKind::kEvent) return;
    ++run.verbose_lines;
    event.line = line_number;
    if (layer.empty()) {
      event.layer.reset();
    } else {
      event.layer = layer;
    }
    aggregator.Add(event);
    if (event.operation == verbose::Operation::kExec && phase == "traced" && event.time_ms) {
      ExecRecord rec{.primitive = event.primitive,
                     .layer = layer,
                     .implementation = event.implementation,
                     .prop_kind = event.prop_kind,
                     .problem = event.problem,
                     .time_ms = *event.time_ms};
      if (event.timestamp) {
        if (!first_exec_stamp) first_exec_stamp = *event.timestamp;
        rec.start_ms = *event.timestamp - *first_exec_stamp;
      } else {
        rec.start_ms = traced_clock_ms;
      }
      traced_clock_ms = rec.start_ms + rec.time_ms;
      run.execs.push_back(std::move(rec));
    }
  };

  StatusOr<WorkerOutcome> outcome = RunWorker(spec, on_line);
  if (!outcome.ok()) return outcome.status();
  run.outcome = std::move(*outcome);
  run.last_phase = phase;
  run.last_layer = layer;
  run.header = parser.header();
  aggregator.SetHeader(&run.header);
  run.rows = aggregator.rows();
  run.diagnostics = aggregator.diagnostics();
  run.summary = aggregator.Summarize();
  return run;
}

}  // namespace dlcheck::dispatch
