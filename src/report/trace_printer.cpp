// Chrome trace event format ("JSON object format" with complete events), which chrome://tracing
// and Perfetto open:
//   {"traceEvents": [
//     {"name": "inner_product fc1", "cat": "exec", "ph": "X", "ts": 12.5, "dur": 40.1,
//      "pid": 1, "tid": 1, "args": {"implementation": "brgemm:avx512_core", ...}}, ...],
//    "displayTimeUnit": "ms", "otherData": {"command": "verbose", ...}}
#include <nlohmann/json.hpp>
#include <ostream>

#include "dlcheck/version.h"
#include "report/printer.h"

namespace dlcheck::report {
namespace {

using Json = nlohmann::ordered_json;

Json Scalar(const Value& v) {
  if (v.is_null()) return nullptr;
  if (const auto* b = std::get_if<bool>(&v.data)) return *b;
  if (const auto* i = std::get_if<std::int64_t>(&v.data)) return *i;
  if (const auto* d = std::get_if<double>(&v.data)) return *d;
  return std::get<std::string>(v.data);
}

double Number(const Value& v) {
  if (const auto* i = std::get_if<std::int64_t>(&v.data)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v.data)) return *d;
  return 0;
}

}  // namespace

void PrintTrace(const Report& report, std::ostream& out) {
  Json events = Json::array();
  if (const Table* trace = report.FindTable(kTraceTable)) {
    for (const auto& row : trace->rows) {
      if (row.size() < 5) continue;
      Json args = Json::object();
      for (std::size_t c = 5; c < row.size() && c < trace->columns.size(); ++c) {
        if (!row[c].is_null()) args[trace->columns[c]] = Scalar(row[c]);
      }
      events.push_back({{"name", Scalar(row[0])},
                        {"cat", Scalar(row[1])},
                        {"ph", "X"},
                        {"ts", Number(row[2])},
                        {"dur", Number(row[3])},
                        {"pid", 1},
                        {"tid", Scalar(row[4])},
                        {"args", std::move(args)}});
    }
  }
  Json doc = {{"traceEvents", std::move(events)},
              {"displayTimeUnit", "ms"},
              {"otherData", {{"command", report.command}, {"dlcheck_version", kVersion}}}};
  out << doc.dump(1) << '\n';
}

}  // namespace dlcheck::report
