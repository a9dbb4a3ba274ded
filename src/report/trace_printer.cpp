// SPDX-License-Identifier: Apache-2.0
// Chrome trace event format ("JSON object format" with complete events), which chrome://tracing,
// Perfetto and DevTools' performance panel open:
//   {"traceEvents": [
//     {"name": "process_name", "ph": "M", "ts": 1841203.2, "pid": 4711, "tid": 4711,
//      "args": {"name": "dlcheck run"}},
//     {"name": "thread_name", "ph": "M", ..., "args": {"name": "main thread"}},
//     {"name": "convolution", "cat": "convolution", "ph": "X",
//      "ts": 1841203.2, "dur": 40.1, "pid": 4711, "tid": 4711,
//      "args": {"implementation": "brgemm:avx512_core", ...}}, ...],
//    "baseTimeNanoseconds": 1795312885113000000,
//    "displayTimeUnit": "ms", "otherData": {"command": "run", ...}}
// The rules DevTools' trace engine holds a file to, kept here: the metadata events come first,
// at the earliest event's time (no event before them), every duration is >= 0, ts and dur are
// numbers (microseconds since the process start, whose epoch time baseTimeNanoseconds is, as in
// torch.profiler's own traces: ts + baseTimeNanoseconds / 1000 is the same clock in both).
#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <utility>

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
  std::optional<std::size_t> name, category, ts_us, dur_us, pid, thread;
  bool IsTraceColumn(std::size_t c) const {
    return c == name || c == category || c == ts_us || c == dur_us || c == pid || c == thread;
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
          find(trace_column::kPid.name),  find(trace_column::kThread.name)};
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
          {"pid", at.pid ? Cell(row, at.pid) : Json(1)},
          {"tid", at.thread ? Cell(row, at.thread) : Json(1)},
          {"args", std::move(args)}};
}

Json Metadata(std::string_view name, double ts, const Json& pid, const Json& tid,
              std::string label) {
  return {{"name", name}, {"ph", "M"},  {"ts", ts},
          {"pid", pid},   {"tid", tid}, {"args", {{"name", std::move(label)}}}};
}

// A lane of the trace: a thread (second) of a process (first).
using Lane = std::pair<Json, Json>;

// The process and thread names (viewers show "Process 1" without them), at `ts`: a lane of a
// layer by its layer, the thread whose id is the process's as its main thread.
void AddNames(const Report& report, const std::map<Lane, std::string>& lanes, double ts,
              Json& events) {
  std::set<Json> pids;
  for (const auto& [lane, layer] : lanes) {
    const auto& [pid, tid] = lane;
    if (pids.insert(pid).second) {
      events.push_back(Metadata("process_name", ts, pid, pid, "dlcheck " + report.command));
    }
    std::string label = !layer.empty() ? "layer " + layer
                        : tid == pid   ? std::string("main thread")
                                       : "thread " + tid.dump();
    events.push_back(Metadata("thread_name", ts, pid, tid, std::move(label)));
  }
}

// The process start that ts 0 is, in ns since the epoch, from a top-level section's
// kTraceOrigin field; nullopt when none has it.
std::optional<std::int64_t> BaseTimeNs(const Report& report) {
  for (const Section& s : report.sections) {
    const Value* v = s.Find(kTraceOrigin.name);
    if (v == nullptr) continue;
    if (const auto* d = std::get_if<double>(&v->data); d != nullptr && *d > 0) {
      return static_cast<std::int64_t>(*d * 1e9);
    }
  }
  return std::nullopt;
}

}  // namespace

void PrintTrace(const Report& report, std::ostream& out) {
  Json execs = Json::array();
  double first_ts = std::numeric_limits<double>::infinity();
  std::map<Lane, std::string> lanes;
  if (const Table* trace = report.FindTable(kTraceTable)) {
    const TraceColumns at = FindTraceColumns(*trace);
    const auto layer =
        std::find(trace->columns.begin(), trace->columns.end(), trace_column::kLayer.name);
    const auto layer_at = static_cast<std::size_t>(layer - trace->columns.begin());
    ForEachRow(*trace, [&](const std::vector<Value>& row) {
      Json event = Event(*trace, at, row);
      first_ts = std::min(first_ts, event["ts"].get<double>());
      const std::string layer_name = layer_at < row.size() && row[layer_at].is_text()
                                         ? ValueText(row[layer_at], "", "", "")
                                         : std::string();
      lanes.emplace(Lane(event["pid"], event["tid"]), layer_name);
      execs.push_back(std::move(event));
    });
  }
  if (lanes.empty()) lanes.emplace(Lane(Json(1), Json(1)), std::string());
  Json events = Json::array();
  AddNames(report, lanes, execs.empty() ? 0.0 : first_ts, events);
  for (Json& event : execs) events.push_back(std::move(event));
  Json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ms"},
              {"otherData", {{"command", report.command}, {"dlcheck_version", kVersion}}}};
  if (const std::optional<std::int64_t> base = BaseTimeNs(report)) {
    doc["baseTimeNanoseconds"] = *base;
  }
  out << DumpJson(doc, 1) << '\n';
}

}  // namespace dlcheck::report
