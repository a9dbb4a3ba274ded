// SPDX-License-Identifier: Apache-2.0
#include "cli/run_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <optional>

#include "cli/log_view.h"
#include "cli/stats_view.h"
#include "common/exit_code.h"
#include "dispatch/run_fields.h"
#include "report/primitive_columns.h"
#include "report/printer.h"

namespace dlcheck::cli {
namespace col = report::primitive_column;
using report::Value;

namespace {

// An execution's time in the trace, in ms: since the process start when the log has timestamps
// (oneDNN's get_msec is gettimeofday: the epoch, on CLOCK_REALTIME) and the start is known;
// since the log's earliest timestamp when it is not; else since the first execution. Never below
// 0.001 (1 us): DevTools' trace engine takes ts 0 for unset and would leave the first event out
// of its bounds.
class TraceClock {
 public:
  TraceClock(const std::vector<verbose::ExecRecord>& execs, std::optional<double> start_unix_s) {
    std::optional<double> earliest_ms;
    for (const auto& e : execs) {
      if (!e.stamp_ms) continue;
      if (!stamp_origin_ms_) stamp_origin_ms_ = *e.stamp_ms - e.start_ms;
      earliest_ms = std::min(earliest_ms.value_or(*e.stamp_ms), *e.stamp_ms);
    }
    if (earliest_ms) zero_ms_ = start_unix_s ? *start_unix_s * 1e3 : *earliest_ms - kUnsetMs;
  }
  double Ms(const verbose::ExecRecord& e) const {
    if (!stamp_origin_ms_) return e.start_ms + kUnsetMs;
    const double at = e.stamp_ms ? *e.stamp_ms : *stamp_origin_ms_ + e.start_ms;
    return std::max(kUnsetMs, at - zero_ms_);
  }

 private:
  static constexpr double kUnsetMs = 0.001;
  std::optional<double> stamp_origin_ms_;  // the epoch time of start_ms 0
  double zero_ms_ = 0;                     // the epoch time of the trace's 0
};

// The lane of each layer, in the order the layers first ran (1, 2, ...).
std::map<std::string, int> LayerLanes(const std::vector<verbose::ExecRecord>& execs) {
  std::map<std::string, int> lanes;
  for (const auto& e : execs) lanes.emplace(e.layer, static_cast<int>(lanes.size()) + 1);
  return lanes;
}

}  // namespace

// The human table leaves the timeline out; JSON carries it, and `--format trace` prints only it.
void AddRunStream(report::Report& report, dispatch::Run& run, SortKey sort, std::size_t top,
                  const RooflineProfile* machine) {
  const bool model = run.model.has_value();
  SortRows(run.rows, sort);
  std::vector<roofline::PlacedRow> placed;
  if (machine != nullptr) placed = roofline::PlaceHotRows(run.rows, machine->profile);
  // The header tells the benchdnn column its version and ISA.
  AddPrimitivesTable(report, std::move(run.rows), run.summary.exec_ms, top,
                     {.include_layer = model, .header = &run.header});
  if (model) {
    // One engine (cpu) and one creation per primitive: the table has room for what varies.
    auto& hidden = report.tables.back().hidden_in_table;
    for (const std::string& name : report::Names({col::kEngine, col::kCreates})) {
      hidden.push_back(name);
    }
  }
  if (machine != nullptr) AddRowRoofline(placed, *machine, report);
  // A worker's input counts its lines that were not its own protocol, skips by reason.
  AddInputSection(report, nullptr, run.input);
  if (!model) AddHeaderSection(report, run.header);
  AddSummary(report, run.summary, run.diagnostics);
  AddTimeline(report, run.execs,
              {.pid = run.outcome.pid > 0 ? run.outcome.pid : 1,
               .start_unix_s = run.outcome.start_unix_s > 0
                                   ? std::optional<double>(run.outcome.start_unix_s)
                                   : std::nullopt,
               .lane_per_layer = model});
}

void AddTimeline(report::Report& report, const std::vector<verbose::ExecRecord>& execs,
                 const TraceProcess& process) {
  report::Table& t = report.AddTable(report::kTracePart, report::kTraceColumns);
  t.omit_in_table = true;
  const TraceClock clock(execs, process.start_unix_s);
  const std::map<std::string, int> lanes =
      process.lane_per_layer ? LayerLanes(execs) : std::map<std::string, int>();
  for (const auto& e : execs) {
    const int thread = process.lane_per_layer ? lanes.at(e.layer) : process.pid;
    namespace tc = report::trace_column;
    t.AddRow()
        .Set(tc::kName, e.layer.empty() ? e.primitive : e.layer + " " + e.primitive)
        .Set(tc::kCategory, e.primitive)
        .Set(tc::kTsUs, Value(clock.Ms(e) * 1e3, 3))
        .Set(tc::kDurUs, Value(e.time_ms * 1e3, 3))
        .Set(tc::kPid, process.pid)
        .Set(tc::kThread, thread)
        .Set(tc::kLayer, e.layer.empty() ? Value() : Value(e.layer))
        .Set(tc::kImplementation, e.implementation)
        .Set(tc::kPropKind, e.prop_kind)
        .Set(tc::kProblem, e.problem);
  }
  namespace tc = report::trace_column;
  report.charts.push_back({.kind = report::Chart::Kind::kLanes,
                           .title = "Timeline: executions by primitive kind",
                           .table = std::string(report::kTraceTable),
                           .label = report::Names({tc::kCategory}),
                           .value = std::string(tc::kTsUs.name),
                           .length = std::string(tc::kDurUs.name),
                           .unit = "\u00b5s"});
}

StatusOr<int> EndRefused(const dispatch::Run& run) {
  dispatch::Run::Refusal refusal = run.RefusalOf();
  if (!refusal.error.ok()) return refusal.error;
  // A failure, the worker's: its exit status and its own line, said once (EndCommand adds the
  // `dlcheck: ` the worker already wrote), and no report (-o FILE is left as it was).
  constexpr std::string_view kPrefix = "dlcheck: ";
  std::string line = refusal.worker_line;
  if (line.rfind(kPrefix, 0) == 0) line.erase(0, kPrefix.size());
  return Status(static_cast<ExitCode>(refusal.exit_status), std::move(line));
}

Status WorkerFailure(const dispatch::Run& run) {
  // Out of memory (the worker's exit 7) is the machine's limit, not a worker failure: one line
  // from here says so and what to do (the worker's own line would repeat it less clearly).
  if (run.OutOfMemory()) return run.OutOfMemoryError();
  if (run.outcome.ok()) return {};
  // The worker's own last words (its error line, or a sanitizer/oneDNN message) come first.
  if (const std::string err = run.WorkerError(); !err.empty()) std::cerr << err << '\n';
  return Status(ExitCode::kWorkerFailed,
                fmt::format("the model worker {}", run.outcome.Describe()));
}

void AddNoiseGuard(report::Report& report, report::Section& section,
                   const dispatch::CaptureFrame& frame) {
  namespace run_field = dispatch::model_run_field;
  section.Add(run_field::kThreadsFrom, frame.threads.from);
  auto load = [](const std::optional<dispatch::LoadAverage>& l) {
    return l ? report::Value(l->one, 2) : report::Value();
  };
  section.Add(run_field::kLoadStart, load(frame.load_start));
  section.Add(run_field::kLoadEnd, load(frame.load_end));
  for (Finding& f : dispatch::NoiseFindings(frame)) {
    report.findings.push_back(std::move(f));
  }
}

}  // namespace dlcheck::cli
