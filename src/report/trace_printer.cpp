// Chrome trace event format ("JSON object format" with complete events), which chrome://tracing,
// Perfetto and DevTools' performance panel open:
//   {"traceEvents": [
//     {"name": "process_name", "ph": "M", "ts": 1795312886954178.9, "pid": 1, "tid": 1,
//      "args": {"name": "dlcheck verbose"}},
//     {"name": "thread_name", "ph": "M", ..., "args": {"name": "oneDNN primitives"}},
//     {"name": "fc1 inner_product", "cat": "inner_product", "ph": "X",
//      "ts": 1795312886954178.9, "dur": 40.1, "pid": 1, "tid": 1,
//      "args": {"implementation": "brgemm:avx512_core", ...}}, ...],
//    "displayTimeUnit": "ms", "otherData": {"command": "verbose", ...}}
// The rules DevTools' trace engine holds a file to, kept here: the metadata events come first,
// at the earliest event's time (no event before them), every duration is >= 0, ts and dur are
// numbers (microseconds; absolute where the log has timestamps, so the file merges with a
// framework's profile).
#include <algorithm>
#include <limits>
#include <optional>
#include <ostream>
#include <set>

#include "dlcheck/version.h"
#include "report/json_value.h"
#include "report/printer.h"

namespace dlcheck::report {
namespace {

double Number(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v.data)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v.data)) return *d;
  return 0;
}

// Where the trace columns are in the table, found by name; nullopt for a missing one.
struct TraceColumns {
  std::optional<std::size_t> name, category, ts_us, dur_us, thread;
  bool IsTraceColumn(std::size_t c) const {
    return c == name || c == category || c == ts_us || c == dur_us || c == thread;
  }
};

TraceColumns FindTraceColumns(const Table& table) {
  auto find = [&](std::string_view column) -> std::optional<std::size_t> {
    const auto it = std::find(table.columns.begin(), table.columns.end(), column);
    if (it == table.columns.end()) return std::nullopt;
    return static_cast<std::size_t>(it - table.columns.begin());
  };
  return {find(trace_column::kName.name), find(trace_column::kCategory.name),
          find(trace_column::kTsUs.name), find(trace_column::kDurUs.name),
          find(trace_column::kThread.name)};
}

Json Cell(const std::vector<Value>& row, std::optional<std::size_t> column) {
  if (!column || *column >= row.size()) return nullptr;
  return ToJson(row[*column]);
}

double NumberCell(const std::vector<Value>& row, std::optional<std::size_t> column) {
  if (!column || *column >= row.size()) return 0;
  return Number(row[*column]);
}

Json Event(const Table& trace, const TraceColumns& at, const std::vector<Value>& row) {
  Json args = Json::object();
  for (std::size_t c = 0; c < row.size() && c < trace.columns.size(); ++c) {
    if (!at.IsTraceColumn(c) && !row[c].is_null()) args[trace.columns[c]] = ToJson(row[c]);
  }
  return {{"name", Cell(row, at.name)},
          {"cat", Cell(row, at.category)},
          {"ph", "X"},
          {"ts", NumberCell(row, at.ts_us)},
          {"dur", std::max(0.0, NumberCell(row, at.dur_us))},
          {"pid", 1},
          {"tid", at.thread ? Cell(row, at.thread) : Json(1)},
          {"args", std::move(args)}};
}

Json Metadata(std::string_view name, double ts, const Json& tid, std::string label) {
  return {{"name", name}, {"ph", "M"},  {"ts", ts},
          {"pid", 1},     {"tid", tid}, {"args", {{"name", std::move(label)}}}};
}

// The process and thread names (viewers show "Process 1" without them), at `ts`.
void AddNames(const Report& report, const std::set<Json>& tids, double ts, Json& events) {
  events.push_back(Metadata("process_name", ts, 1, "dlcheck " + report.command));
  for (const Json& tid : tids) {
    const std::string label =
        tids.size() == 1 ? "oneDNN primitives" : "oneDNN primitives " + tid.dump();
    events.push_back(Metadata("thread_name", ts, tid, label));
  }
}

}  // namespace

void PrintTrace(const Report& report, std::ostream& out) {
  Json execs = Json::array();
  double first_ts = std::numeric_limits<double>::infinity();
  std::set<Json> tids;
  if (const Table* trace = report.FindTable(kTraceTable)) {
    const TraceColumns at = FindTraceColumns(*trace);
    ForEachRow(*trace, [&](const std::vector<Value>& row) {
      Json event = Event(*trace, at, row);
      first_ts = std::min(first_ts, event["ts"].get<double>());
      tids.insert(event["tid"]);
      execs.push_back(std::move(event));
    });
  }
  if (tids.empty()) tids.insert(Json(1));
  Json events = Json::array();
  AddNames(report, tids, execs.empty() ? 0.0 : first_ts, events);
  for (Json& event : execs) events.push_back(std::move(event));
  Json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ms"},
              {"otherData", {{"command", report.command}, {"dlcheck_version", kVersion}}}};
  out << DumpJson(doc, 1) << '\n';
}

}  // namespace dlcheck::report
