// SPDX-License-Identifier: Apache-2.0
// --format folded, svg and speedscope: the `stacks` table (stack, samples) as collapsed-stack
// text, as a flame graph or as a speedscope file, the way the trace printer reads the `trace`
// table.
#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string_view>
#include <unordered_map>

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

// speedscope's file format (its published schema, version 0.0.1 of the format): the frames once,
// then one "sampled" profile whose samples are frame indexes, root first, each weighted by its
// sample count; nothing else is needed to open it.
void PrintSpeedscope(const Report& report, std::ostream& out) {
  const Table* table = report.FindTable(kStacksTable);
  nlohmann::json frames = nlohmann::json::array();
  nlohmann::json samples = nlohmann::json::array();
  nlohmann::json weights = nlohmann::json::array();
  std::unordered_map<std::string, std::size_t> frame_index;
  std::uint64_t total = 0;
  for (const auto& [stack, count] : Stacks(table)) {
    nlohmann::json sample = nlohmann::json::array();
    std::size_t start = 0;
    while (start <= stack.size()) {
      const std::size_t end = std::min(stack.find(';', start), stack.size());
      std::string name = stack.substr(start, end - start);
      const auto [at, added] = frame_index.try_emplace(name, frame_index.size());
      if (added) frames.push_back({{"name", std::move(name)}});
      sample.push_back(at->second);
      start = end + 1;
    }
    samples.push_back(std::move(sample));
    weights.push_back(count);
    total += count;
  }
  const std::string name =
      table != nullptr && !table->title.empty() ? table->title : "dlcheck " + report.command;
  const nlohmann::json file = {{"$schema", "https://www.speedscope.app/file-format-schema.json"},
                               {"exporter", "dlcheck " + report.command},
                               {"name", name},
                               {"activeProfileIndex", 0},
                               {"shared", {{"frames", std::move(frames)}}},
                               {"profiles",
                                {{{"type", "sampled"},
                                  {"name", name},
                                  {"unit", "none"},
                                  {"startValue", 0},
                                  {"endValue", total},
                                  {"samples", std::move(samples)},
                                  {"weights", std::move(weights)}}}}};
  // ASCII, with any byte that is not UTF-8 (a symbol from a binary) replaced, never thrown on.
  out << file.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace) << '\n';
}

void PrintSvg(const Report& report, std::ostream& out) {
  if (report.FindTable(kStacksTable) != nullptr) {
    PrintFlameGraph(report, out);
  } else {
    PrintCharts(report, out);
  }
}

}  // namespace dlcheck::report
