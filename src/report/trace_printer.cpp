// Chrome trace event format ("JSON object format" with complete events), which chrome://tracing
// and Perfetto open:
//   {"traceEvents": [
//     {"name": "inner_product fc1", "cat": "exec", "ph": "X", "ts": 12.5, "dur": 40.1,
//      "pid": 1, "tid": 1, "args": {"implementation": "brgemm:avx512_core", ...}}, ...],
//    "displayTimeUnit": "ms", "otherData": {"command": "verbose", ...}}
#include <algorithm>
#include <optional>
#include <ostream>

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
  return {find("name"), find("category"), find("ts_us"), find("dur_us"), find("thread")};
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
          {"dur", NumberCell(row, at.dur_us)},
          {"pid", 1},
          {"tid", at.thread ? Cell(row, at.thread) : Json(1)},
          {"args", std::move(args)}};
}

}  // namespace

void PrintTrace(const Report& report, std::ostream& out) {
  Json events = Json::array();
  if (const Table* trace = report.FindTable(kTraceTable)) {
    const TraceColumns at = FindTraceColumns(*trace);
    for (const auto& row : trace->rows) events.push_back(Event(*trace, at, row));
  }
  Json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ms"},
              {"otherData", {{"command", report.command}, {"dlcheck_version", kVersion}}}};
  out << DumpJson(doc, 1) << '\n';
}

}  // namespace dlcheck::report
