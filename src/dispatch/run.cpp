#include "dispatch/run.h"

#include <fmt/format.h>

#include "common/onednn_isa.h"
#include "os/signals.h"
#include "verbose/rules.h"

namespace dlcheck::dispatch {

bool Run::Refused() const {
  return model && outcome.exited && outcome.exit_code != 0 && outcome.exit_code != 1 &&
         verbose_lines == 0 && model->last_phase.empty();
}

bool Run::OutOfMemory() const {
  return model && outcome.exited && outcome.exit_code == kWorkerOutOfMemoryExit;
}

std::string Run::WorkerError() const {
  std::string tail = outcome.stderr_tail;
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  return tail;
}

std::string Run::Where() const {
  if (!model) return {};
  const std::string_view phase = model->last_phase.empty() ? std::string_view("start-up")
                                                           : std::string_view(model->last_phase);
  if (model->last_layer.empty()) return fmt::format("in phase {}", phase);
  return fmt::format("in phase {}, layer {}", phase, model->last_layer);
}

Status Run::OutOfMemoryError() const {
  return Status(ExitCode::kUnsupported,
                fmt::format("out of memory: the model worker did not fit in the memory it may use "
                            "({}); raise the limit (ulimit -v, the cgroup's memory.max) or use a "
                            "smaller --batch, --layers or --data set",
                            Where()));
}

Run::Refusal Run::RefusalOf() const {
  if (OutOfMemory()) return {.error = OutOfMemoryError()};
  std::string line = WorkerError();
  if (line.empty()) {
    return {.error = Status(static_cast<ExitCode>(outcome.exit_code),
                            fmt::format("the model worker {}", outcome.Describe()))};
  }
  return {.exit_status = outcome.exit_code, .worker_line = std::move(line)};
}

std::optional<double> Run::Number(std::string_view key) const {
  if (!model) return std::nullopt;
  return NumericResult(model->results, key);
}

std::optional<Finding> WorkerEndFinding(const Run& run, std::string_view who,
                                        std::string_view then) {
  if (!run.model || run.outcome.ok() || run.outcome.interrupted != 0) return std::nullopt;
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

bool Deviates(const WorkerResults& results) {
  return results.max_deviation && results.tolerance &&
         !(*results.max_deviation <= *results.tolerance);
}

namespace {

// Fallbacks to the scalar kernels: one finding naming the layers and the first reason.
std::optional<Finding> ModelFallbackFinding(const ModelResults& model) {
  if (model.fallbacks.empty()) return std::nullopt;
  std::string layers;
  for (const auto& f : model.fallbacks) layers += (layers.empty() ? "" : ", ") + f.layer;
  return Finding{.severity = Severity::kWarning,
                 .code = "model-fallback",
                 .message = fmt::format("oneDNN could not run this model here, so dlcheck's "
                                        "scalar kernels ran it (layers {}): {}",
                                        layers, model.fallbacks.front().reason)};
}

Finding DeviationFinding(const WorkerResults& results) {
  return {.severity = Severity::kError,
          .code = "deviation",
          .message = fmt::format(
              "oneDNN and dlcheck's scalar reference disagree: largest deviation {:.3g} (in {}) "
              "exceeds the tolerance {:.3g}; oneDNN's kernels give wrong numbers on this "
              "machine, or the reference is wrong: please report it",
              *results.max_deviation, results.deviation_tensor.value_or("?"), *results.tolerance)};
}

void AddModelFindings(const Run& run, std::vector<Finding>& findings) {
  if (auto fallback = ModelFallbackFinding(*run.model)) findings.push_back(std::move(*fallback));
  if (Deviates(run.model->results)) findings.push_back(DeviationFinding(run.model->results));
  if (run.outcome.interrupted != 0) {
    findings.push_back({.severity = Severity::kWarning,
                        .code = "interrupted",
                        .message = fmt::format("interrupted by {}: the worker was stopped; the "
                                               "report holds what it did before",
                                               os::SignalName(run.outcome.interrupted))});
  } else if (auto ended = WorkerEndFinding(run, "the model worker",
                                           "; the report holds what it did before")) {
    findings.push_back(std::move(*ended));
  }
}

void AddProgramFindings(const Run& run, std::string_view program, std::vector<Finding>& findings) {
  if (run.verbose_lines == 0) {
    findings.push_back(
        {.severity = Severity::kWarning,
         .code = "no-verbose",
         .message = fmt::format(
             "{} printed no oneDNN verbose line although dlcheck switched verbose on: it may "
             "not use oneDNN at all (or not for these operations: PyTorch's nn.Linear does "
             "not), its oneDNN may be built with verbose output compiled out "
             "(ONEDNN_VERBOSE=OFF), or it may redirect or close its own stdout",
             program)});
  }
  if (run.outcome.signaled) {
    findings.push_back({.severity = Severity::kError,
                        .code = "program-signaled",
                        .message = fmt::format("{} {}; the report holds what it printed before",
                                               program, run.outcome.Ended())});
  }
}

}  // namespace

std::optional<Finding> BelowHostIsaFinding(const Run& run, std::string_view host_onednn3_isa) {
  if (run.header.MajorVersion() < 3 || !onednn::IsaRank(host_onednn3_isa)) return std::nullopt;
  double compute_ms = 0, below_ms = 0;
  std::size_t below = 0;
  std::string lowest;
  for (const verbose::PrimitiveStats& row : run.rows) {
    if (!verbose::IsComputePrimitive(row) || row.execs == 0) continue;
    compute_ms += row.exec_ms_total;
    const std::string_view isa = row.isa.empty() ? onednn::IsaName("none") : row.isa.view();
    if (onednn::Compare(isa, host_onednn3_isa) != onednn::IsaOrder::kBelow) continue;
    ++below;
    below_ms += row.exec_ms_total;
    if (lowest.empty() || onednn::SortRank(isa) < onednn::SortRank(lowest)) lowest = isa;
  }
  if (below == 0) return std::nullopt;
  return Finding{
      .severity = Severity::kInfo,
      .code = "below-host-isa",
      .message = fmt::format(
          "{} compute primitive row(s) of this oneDNN 3.x log ({:.1f}% of the compute time) ran "
          "below {}, the level oneDNN 3.x dispatches on this CPU (lowest {}): "
          "ONEDNN_MAX_CPU_ISA or the program capped it, or oneDNN has no kernel at that level "
          "for their data type or shape",
          below, compute_ms > 0 ? 100 * below_ms / compute_ms : 0.0, host_onednn3_isa, lowest)};
}

std::vector<Finding> RunFindings(const Run& run, std::string_view program) {
  std::vector<Finding> findings;
  if (run.timeline_dropped > 0) {
    findings.push_back(
        {.severity = Severity::kInfo,
         .code = "timeline-capped",
         .message = verbose::TimelineCappedText(run.execs.size(), run.timeline_dropped)});
  }
  if (run.model) {
    AddModelFindings(run, findings);
  } else {
    AddProgramFindings(run, program, findings);
  }
  return findings;
}

}  // namespace dlcheck::dispatch
