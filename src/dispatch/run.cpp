// SPDX-License-Identifier: Apache-2.0
#include "dispatch/run.h"

#include <fmt/format.h>

#include <cstdlib>

#include "common/finding_codes.h"
#include "common/onednn_isa.h"
#include "common/text.h"
#include "os/signals.h"
#include "verbose/rules.h"

namespace dlcheck::dispatch {

std::string VerboseRequest::Text() const {
  std::string text;
  for (const auto& [name, value] : variables) {
    if (!text.empty()) text += ' ';
    text += name + "=" + value;
  }
  return text;
}

namespace {

// The value of `name` among `variables`, nullptr when it is not set.
const std::string* ValueOf(const std::vector<std::pair<std::string, std::string>>& variables,
                           std::string_view name) {
  for (const auto& [n, value] : variables) {
    if (n == name) return &value;
  }
  return nullptr;
}

}  // namespace

int VerboseRequest::OneDnn2Level() const {
  // oneDNN reads at most 11 characters (a 32-bit int, its sign and the terminating null): a longer
  // value does not count as set, and the next prefix is tried.
  for (std::string_view name : {"ONEDNN_VERBOSE", "DNNL_VERBOSE"}) {
    const std::string* value = ValueOf(variables, name);
    if (value != nullptr && !value->empty() && value->size() < 12) return std::atoi(value->c_str());
  }
  return 0;
}

VerboseRequest::OneDnn3Reading VerboseRequest::OneDnn3() const {
  OneDnn3Reading reading;
  for (std::string_view name : {"ONEDNN_VERBOSE", "DNNL_VERBOSE"}) {
    const std::string* value = ValueOf(variables, name);
    if (value == nullptr || value->empty() || value->size() >= 128) continue;
    const std::string text = Lower(*value);
    for (std::size_t at = 0; at <= text.size();) {
      std::size_t comma = text.find(',', at);
      if (comma == std::string::npos) comma = text.size();
      const std::string_view token = std::string_view(text).substr(at, comma - at);
      at = comma + 1;
      if (token == "0" || token == "none") reading = {};
      if (token == "1" || token == "2" || token == "all" || token == "-1" || token == "profile" ||
          token == "profile_create" || token == "profile_exec") {
        reading.profile = true;
      }
      if (token == "all" || token == "-1" || token == "dispatch") reading.dispatch = true;
    }
    break;
  }
  return reading;
}

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
                   .code = codes::kOutOfMemory,
                   .message = fmt::format("{} did not fit in the memory it may use ({}){}", who,
                                          run.Where(), then)};
  }
  return Finding{
      .severity = Severity::kError,
      .code = codes::kWorkerFailed,
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
                 .code = codes::kModelFallback,
                 .message = fmt::format("oneDNN could not run this model here, so dlcheck's "
                                        "scalar kernels ran it (layers {}): {}",
                                        layers, model.fallbacks.front().reason)};
}

Finding DeviationFinding(const WorkerResults& results) {
  return {.severity = Severity::kError,
          .code = codes::kDeviation,
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
                        .code = codes::kInterrupted,
                        .message = fmt::format("interrupted by {}: the worker was stopped; the "
                                               "report holds what it did before",
                                               os::SignalName(run.outcome.interrupted))});
  } else if (auto ended = WorkerEndFinding(run, "the model worker",
                                           "; the report holds what it did before")) {
    findings.push_back(std::move(*ended));
  }
}

// The diagnostic lines of a run that created no primitive, as `primitive: message (xN)`.
std::string DiagnosticList(const std::vector<verbose::DiagnosticStats>& diagnostics) {
  constexpr std::size_t kListed = 4;
  std::string text;
  for (std::size_t i = 0; i < diagnostics.size() && i < kListed; ++i) {
    const verbose::DiagnosticStats& d = diagnostics[i];
    if (!text.empty()) text += "; ";
    text +=
        fmt::format("{} {}: {}", d.operation, d.primitive.empty() ? "-" : d.primitive, d.message);
    if (d.count > 1) text += fmt::format(" (x{})", d.count);
  }
  if (diagnostics.size() > kListed) {
    text += fmt::format("; and {} more in the diagnostics table", diagnostics.size() - kListed);
  }
  return text;
}

// How a program's run ended, told apart: it ended before oneDNN printed anything, its oneDNN
// printed only diagnostics (it refused what it was asked), or oneDNN never spoke.
void AddProgramEndFindings(const Run& run, std::string_view program,
                           std::vector<Finding>& findings) {
  const bool ended_badly = !run.outcome.ok() && run.outcome.interrupted == 0;
  const verbose::Summary& s = run.summary;
  if (run.verbose_lines == 0 && ended_badly) {
    findings.push_back(
        {.severity = Severity::kError,
         .code = codes::kProgramEndedEarly,
         .message = fmt::format(
             "{} {} before oneDNN printed anything: it failed before it created a oneDNN "
             "primitive (an import, its arguments, its data: see its own output above), so this "
             "report is empty; fix that first",
             program, run.outcome.Ended())});
  } else if (run.verbose_lines == 0 && run.outcome.interrupted == 0 &&
             !(run.verbose_request.from_user && run.verbose_request.OneDnn2Level() <= 0)) {
    // (A user's value that oneDNN 2.x reads as off is said by verbose-setting-kept instead.)
    findings.push_back(
        {.severity = Severity::kWarning,
         .code = codes::kOnednnNotLoaded,
         .message = fmt::format(
             "{} ended well but printed no oneDNN verbose line although dlcheck switched verbose "
             "on: it never loaded oneDNN or never created a primitive with it (PyTorch's "
             "nn.Linear does not use it), its oneDNN may be built with verbose output compiled "
             "out (ONEDNN_VERBOSE=OFF), or it may redirect or close its own stdout",
             program)});
  } else if (verbose::DiagnosticsOnly(s, run.diagnostics)) {
    findings.push_back(
        {.severity = Severity::kError,
         .code = codes::kOnednnErrorsOnly,
         .message = fmt::format(
             "{}'s oneDNN created no primitive and printed only diagnostics: "
             "it refused what it was asked ({}){}",
             program, DiagnosticList(run.diagnostics),
             ended_badly ? "; then the program " + run.outcome.Ended() : std::string())});
  }
  if (run.outcome.signaled && run.verbose_lines > 0) {
    findings.push_back({.severity = Severity::kError,
                        .code = codes::kProgramSignaled,
                        .message = fmt::format("{} {}; the report holds what it printed before",
                                               program, run.outcome.Ended())});
  }
}

// Where the time went: below half of the wall time in oneDNN, the rest is elsewhere.
std::optional<Finding> TimeOutsideFinding(const Run& run, std::string_view program) {
  const std::optional<double> pct = ExecPctOfWall(run);
  if (!pct || run.summary.execs == 0 || *pct >= kOneDnnShareOfWallPct) return std::nullopt;
  return Finding{
      .severity = Severity::kInfo,
      .code = codes::kTimeOutsideOnednn,
      .message = fmt::format(
          "oneDNN's primitives ran {:.1f}% of {}'s {:.2f} s wall time: the rest is outside "
          "them (start-up and imports, the framework, other libraries, waiting); run "
          "`dlcheck profile -- {} ...` to see where",
          *pct, program, run.outcome.wall_s, program)};
}

void AddProgramFindings(const Run& run, std::string_view program, std::vector<Finding>& findings) {
  if (auto kept = VerboseKeptFinding(run.verbose_request)) findings.push_back(std::move(*kept));
  AddProgramEndFindings(run, program, findings);
  if (auto outside = TimeOutsideFinding(run, program)) findings.push_back(std::move(*outside));
}

}  // namespace

std::optional<Finding> VerboseKeptFinding(const VerboseRequest& request) {
  if (!request.from_user) return std::nullopt;
  const bool off2 = request.OneDnn2Level() <= 0;
  const VerboseRequest::OneDnn3Reading v3 = request.OneDnn3();
  std::string reads;
  if (off2) {
    reads +=
        "oneDNN 2.x and 3.0-3.1 read it as an integer (the first 11 characters, through "
        "atoi: `all` is 0) and print nothing; ";
  }
  if (!v3.profile) {
    reads += "oneDNN 3.2+ prints no create or exec line with it; ";
  } else if (!v3.dispatch) {
    reads += "oneDNN 3.2+ prints no dispatch reasons (create:dispatch) with it; ";
  }
  return Finding{
      .severity = off2 || !v3.profile ? Severity::kWarning : Severity::kInfo,
      .code = codes::kVerboseSettingKept,
      .message = fmt::format(
          "{} was set before dlcheck ran and was kept ({}dlcheck asks for {} only when none "
          "of ONEDNN_VERBOSE, DNNL_VERBOSE, MKLDNN_VERBOSE is set: unset them to get every "
          "generation's lines and the dispatch reasons)",
          request.Text(), reads, "ONEDNN_VERBOSE=2,dispatch DNNL_VERBOSE=2 MKLDNN_VERBOSE=2")};
}

std::optional<double> ExecPctOfWall(const Run& run) {
  if (!(run.outcome.wall_s > 0)) return std::nullopt;
  return 100.0 * run.summary.exec_ms / (run.outcome.wall_s * 1e3);
}

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
      .code = codes::kBelowHostIsa,
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
         .code = codes::kTimelineCapped,
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
