#include "dispatch/run.h"

#include <fmt/format.h>

namespace dlcheck::dispatch {

bool Run::Refused() const {
  return model && outcome.exited && outcome.exit_code != 0 && outcome.exit_code != 1 &&
         verbose_lines == 0 && model->last_phase.empty();
}

bool Run::OutOfMemory() const {
  return model && outcome.exited && outcome.exit_code == ToInt(ExitCode::kUnsupported);
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

}  // namespace dlcheck::dispatch
