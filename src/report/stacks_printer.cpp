// SPDX-License-Identifier: Apache-2.0
// --format folded and --format svg: the `stacks` table (stack, samples) as collapsed-stack text
// or as a flame graph, the way the trace printer reads the `trace` table.
#include <algorithm>
#include <map>
#include <optional>
#include <ostream>

#include "report/chart_data.h"
#include "report/flame_graph.h"
#include "report/printer.h"

namespace dlcheck::report {
namespace {

std::optional<std::size_t> ColumnOf(const Table& table, std::string_view name) {
  const auto it = std::find(table.columns.begin(), table.columns.end(), name);
  if (it == table.columns.end()) return std::nullopt;
  return static_cast<std::size_t>(it - table.columns.begin());
}

// The stacks table's rows, stack -> samples; empty without the table or its two columns.
std::map<std::string, std::uint64_t> Stacks(const Table* table) {
  std::map<std::string, std::uint64_t> folded;
  if (table == nullptr) return folded;
  const std::optional<std::size_t> stack = ColumnOf(*table, "stack");
  const std::optional<std::size_t> samples = ColumnOf(*table, "samples");
  if (!stack || !samples) return folded;
  ForEachRow(*table, [&](const std::vector<Value>& row) {
    const auto* text = std::get_if<std::string>(&row[*stack].data);
    const auto* count = std::get_if<std::int64_t>(&row[*samples].data);
    if (text != nullptr && count != nullptr && *count > 0) {
      folded[*text] += static_cast<std::uint64_t>(*count);
    }
  });
  return folded;
}

}  // namespace

void PrintFolded(const Report& report, std::ostream& out) {
  WriteFolded(Stacks(report.FindTable(kStacksTable)), out);
}

void PrintFlameGraph(const Report& report, std::ostream& out) {
  const Table* table = report.FindTable(kStacksTable);
  FlameGraphOptions options;
  if (table != nullptr) {
    if (!table->title.empty()) options.title = table->title;
    options.subtitle = table->caption;
  }
  WriteFlameGraphSvg(Stacks(table), options, out);
}

void PrintSvg(const Report& report, std::ostream& out) {
  if (report.FindTable(kStacksTable) != nullptr) {
    PrintFlameGraph(report, out);
  } else {
    PrintCharts(report, out);
  }
}

}  // namespace dlcheck::report
