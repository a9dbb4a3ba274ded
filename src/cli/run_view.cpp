#include "cli/run_view.h"

#include <iostream>

#include "cli/log_view.h"
#include "cli/stats_view.h"
#include "dispatch/run_fields.h"
#include "report/primitive_columns.h"
#include "report/printer.h"

namespace dlcheck::cli {
namespace col = report::primitive_column;
using report::Value;

namespace {

// Where the timeline's start_ms 0 lies in the trace, in ms: the epoch time of the first
// execution when the log had timestamps (so the trace holds the log's own absolute times and
// merges with a framework's profile), else 0.001 (1 us: DevTools' trace engine takes ts 0 for
// unset and would leave the first event out of its bounds).
double TraceOriginMs(const std::vector<verbose::ExecRecord>& execs) {
  for (const auto& e : execs) {
    if (e.stamp_ms) return *e.stamp_ms - e.start_ms;
  }
  return 0.001;
}

}  // namespace

// The human table leaves the timeline out; JSON carries it, and `--format trace` prints only it.
void AddRunStream(report::Report& report, dispatch::Run& run, SortKey sort, std::size_t top) {
  const bool model = run.model.has_value();
  SortRows(run.rows, sort);
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
  report.primary_table = report::kPrimitivesTable.name;
  // A worker's input counts its lines that were not its own protocol, skips by reason.
  AddInputSection(report, {}, run.input);
  if (!model) AddHeaderSection(report, run.header);
  AddSummary(report, run.summary, run.diagnostics);
  AddTimeline(report, run.execs);
}

void AddTimeline(report::Report& report, const std::vector<verbose::ExecRecord>& execs) {
  report::Table& t = report.AddTable(report::kTracePart, report::kTraceColumns);
  t.omit_in_table = true;
  const double origin_ms = TraceOriginMs(execs);
  for (const auto& e : execs) {
    t.rows.push_back({e.layer.empty() ? e.primitive : e.layer + " " + e.primitive, e.primitive,
                      Value((origin_ms + e.start_ms) * 1e3, 3), Value(e.time_ms * 1e3, 3), 1,
                      e.layer.empty() ? Value() : Value(e.layer), e.implementation, e.prop_kind,
                      e.problem});
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

void AddNoiseGuard(report::Report& report, report::Section& section,
                   const dispatch::ThreadChoice& threads,
                   const std::optional<dispatch::LoadAverage>& load_start,
                   const std::optional<dispatch::LoadAverage>& load_end) {
  namespace run_field = dispatch::model_run_field;
  section.Add(run_field::kThreadsFrom, threads.from);
  auto load = [](const std::optional<dispatch::LoadAverage>& l) {
    return l ? report::Value(l->one, 2) : report::Value();
  };
  section.Add(run_field::kLoadStart, load(load_start));
  section.Add(run_field::kLoadEnd, load(load_end));
  for (Finding& f : dispatch::NoiseFindings(threads, load_start, load_end)) {
    report.findings.push_back(std::move(f));
  }
}

}  // namespace dlcheck::cli
