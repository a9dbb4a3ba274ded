// SPDX-License-Identifier: Apache-2.0
#include "report/chart_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "report/chart.h"
#include "report/printer.h"

namespace dlcheck::report {
namespace {

const Table* FindIn(const std::vector<Section>& sections, const std::vector<Table>& tables,
                    std::string_view name) {
  for (const Table& t : tables) {
    if (t.name == name) return &t;
  }
  for (const Section& s : sections) {
    if (const Table* t = FindIn(s.sections, s.tables, name)) return t;
  }
  return nullptr;
}

// Where the columns a chart names sit in its table; nullopt for a name the table lacks (an
// empty name is "not used": npos).
struct Columns {
  std::vector<std::size_t> label;
  std::size_t value = std::string::npos;
  std::size_t low = std::string::npos;
  std::size_t high = std::string::npos;
  std::size_t series = std::string::npos;
  std::size_t per = std::string::npos;
  std::size_t length = std::string::npos;
  std::vector<std::size_t> marks;
  std::vector<std::size_t> facet;
};

bool Locate(const Table& table, const std::string& name, std::size_t& at) {
  if (name.empty()) return true;
  const auto found = std::find(table.columns.begin(), table.columns.end(), name);
  if (found == table.columns.end()) return false;
  at = static_cast<std::size_t>(found - table.columns.begin());
  return true;
}

std::optional<Columns> LocateAll(const Table& table, const Chart& chart) {
  Columns c;
  for (const std::string& name : chart.label) {
    std::size_t at = std::string::npos;
    if (!Locate(table, name, at) || at == std::string::npos) return std::nullopt;
    c.label.push_back(at);
  }
  for (const std::string& name : chart.facet) {
    std::size_t at = std::string::npos;
    if (!Locate(table, name, at) || at == std::string::npos) return std::nullopt;
    c.facet.push_back(at);
  }
  for (const Chart::Mark& mark : chart.marks) {
    std::size_t at = std::string::npos;
    if (!Locate(table, mark.column, at) || at == std::string::npos) return std::nullopt;
    c.marks.push_back(at);
  }
  const bool found = Locate(table, chart.value, c.value) && Locate(table, chart.low, c.low) &&
                     Locate(table, chart.high, c.high) && Locate(table, chart.series, c.series) &&
                     Locate(table, chart.per, c.per) && Locate(table, chart.length, c.length);
  if (!found || c.label.empty()) return std::nullopt;
  return c;
}

std::optional<double> Number(const std::vector<Value>& row, std::size_t at) {
  if (at >= row.size()) return std::nullopt;
  if (const auto* i = std::get_if<std::int64_t>(&row[at].data)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&row[at].data)) return *d;
  return std::nullopt;
}

std::string Text(const std::vector<Value>& row, std::size_t at) {
  if (at >= row.size() || row[at].is_null()) return {};
  return ValueText(row[at], "", "yes", "no");
}

// The row's label: its label columns' texts joined by " ", nulls left out.
std::string LabelOf(const std::vector<Value>& row, const std::vector<std::size_t>& at) {
  std::string label;
  for (std::size_t i : at) {
    const std::string text = Text(row, i);
    if (!text.empty()) label += (label.empty() ? "" : " ") + text;
  }
  return label;
}

// Indexes of the `limit` largest of `totals` (all when limit is 0 or not reached), in order.
std::vector<std::size_t> Largest(const std::vector<double>& totals, std::size_t limit) {
  std::vector<std::size_t> order(totals.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (limit == 0 || totals.size() <= limit) return order;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return totals[a] > totals[b]; });
  order.resize(limit);
  std::sort(order.begin(), order.end());
  return order;
}

std::string Titled(const Chart& chart, std::size_t shown, std::size_t all) {
  if (shown == all) return chart.title;
  return fmt::format("{} (the largest {} of {})", chart.title, shown, all);
}

// The bars of the rows whose facet text is `facet` (all rows without facet columns).
bool DrawBars(const Table& table, const Chart& chart, const Columns& c, std::ostream& out,
              const std::string& facet = {}) {
  std::vector<chart::Bar> bars;
  std::map<std::string, std::size_t> index;
  std::vector<std::size_t> rows_of;
  ForEachRow(table, [&](const std::vector<Value>& row) {
    if (!c.facet.empty() && LabelOf(row, c.facet) != facet) return;
    const std::string label = LabelOf(row, c.label);
    const std::optional<double> value = Number(row, c.value);
    if (label.empty() || !value) return;
    auto [it, added] = index.try_emplace(label, bars.size());
    if (added) {
      bars.push_back({.label = label, .value = 0});
      rows_of.push_back(0);
    }
    chart::Bar& bar = bars[it->second];
    bar.value += *value;
    if (++rows_of[it->second] == 1) {
      bar.low = Number(row, c.low);
      bar.high = Number(row, c.high);
    } else {  // a sum of rows has no spread of its own
      bar.low.reset();
      bar.high.reset();
    }
  });
  if (bars.empty()) return false;
  std::vector<double> totals;
  for (const chart::Bar& b : bars) totals.push_back(b.value);
  chart::Bars drawn{.unit = chart.unit,
                    .diverging = chart.kind == Chart::Kind::kDiverging,
                    .speedup = chart.speedup};
  for (std::size_t i : Largest(totals, chart.limit)) drawn.bars.push_back(bars[i]);
  drawn.title = Titled(chart, drawn.bars.size(), bars.size());
  if (!c.facet.empty()) drawn.title += ": " + facet;
  chart::WriteSvg(drawn, out);
  return true;
}

// Small multiples: one bar chart per facet text, in the order of the rows.
bool DrawFacets(const Table& table, const Chart& chart, const Columns& c, std::ostream& out) {
  std::vector<std::string> facets;
  std::set<std::string> seen;
  ForEachRow(table, [&](const std::vector<Value>& row) {
    std::string facet = LabelOf(row, c.facet);
    if (!facet.empty() && seen.insert(facet).second) facets.push_back(std::move(facet));
  });
  bool drawn = false;
  for (const std::string& facet : facets) drawn = DrawBars(table, chart, c, out, facet) || drawn;
  return drawn;
}

bool DrawHeatMap(const Table& table, const Chart& chart, const Columns& c, std::ostream& out) {
  std::vector<std::string> rows;
  std::vector<std::string> columns;
  std::map<std::string, std::size_t> row_index;
  std::map<std::string, std::size_t> column_index;
  std::map<std::pair<std::size_t, std::size_t>, double> sums;
  std::vector<std::set<std::string>> pers;  // per column: the distinct `per` texts
  ForEachRow(table, [&](const std::vector<Value>& row) {
    const std::string label = LabelOf(row, c.label);
    const std::string series = Text(row, c.series);
    const std::optional<double> value = Number(row, c.value);
    if (label.empty() || series.empty() || !value) return;
    auto [r, new_row] = row_index.try_emplace(label, rows.size());
    if (new_row) rows.push_back(label);
    auto [k, new_column] = column_index.try_emplace(series, columns.size());
    if (new_column) {
      columns.push_back(series);
      pers.emplace_back();
    }
    sums[{r->second, k->second}] += *value;
    pers[k->second].insert(c.per == std::string::npos ? std::string() : Text(row, c.per));
  });
  if (rows.empty()) return false;
  std::vector<std::vector<std::optional<double>>> cells(
      rows.size(), std::vector<std::optional<double>>(columns.size()));
  std::vector<double> totals(rows.size(), 0);
  for (const auto& [at, sum] : sums) {
    const double cell = sum / static_cast<double>(std::max<std::size_t>(1, pers[at.second].size()));
    cells[at.first][at.second] = cell;
    totals[at.first] += cell;
  }
  chart::HeatMap drawn{.unit = chart.unit, .columns = columns};
  for (std::size_t i : Largest(totals, chart.limit)) {
    drawn.rows.push_back(rows[i]);
    drawn.cells.push_back(cells[i]);
  }
  drawn.title = Titled(chart, drawn.rows.size(), rows.size());
  chart::WriteSvg(drawn, out);
  return true;
}

bool DrawLanes(const Table& table, const Chart& chart, const Columns& c, std::ostream& out) {
  chart::Lanes drawn{.title = chart.title, .unit = chart.unit};
  std::map<std::string, std::size_t> index;
  ForEachRow(table, [&](const std::vector<Value>& row) {
    const std::string label = LabelOf(row, c.label);
    const std::optional<double> start = Number(row, c.value);
    const std::optional<double> length = Number(row, c.length);
    if (label.empty() || !start || !length) return;
    auto [it, added] = index.try_emplace(label, drawn.lanes.size());
    if (added) drawn.lanes.push_back({.name = label});
    drawn.lanes[it->second].spans.emplace_back(*start, *length);
  });
  if (drawn.lanes.empty()) return false;
  chart::WriteSvg(drawn, out);
  return true;
}

bool DrawMatrix(const Table& table, const Chart& chart, const Columns& c, std::ostream& out) {
  chart::Matrix drawn{.title = chart.title};
  for (const Chart::Mark& mark : chart.marks) {
    drawn.marks.push_back({.name = mark.column, .symbol = mark.symbol, .color = mark.color});
  }
  std::map<std::string, std::size_t> column_index;
  std::vector<std::map<std::size_t, int>> marked;  // per row: column -> mark
  ForEachRow(table, [&](const std::vector<Value>& row) {
    const std::string label = LabelOf(row, c.label);
    if (label.empty()) return;
    drawn.rows.push_back(label);
    std::map<std::size_t, int>& cells = marked.emplace_back();
    for (std::size_t m = 0; m < c.marks.size(); ++m) {
      if (c.marks[m] >= row.size()) continue;
      const auto* words = std::get_if<TextList>(&row[c.marks[m]].data);
      if (words == nullptr) continue;
      for (const std::string& word : *words) {
        auto [it, added] = column_index.try_emplace(word, drawn.columns.size());
        if (added) drawn.columns.push_back(word);
        cells[it->second] = static_cast<int>(m);
      }
    }
  });
  if (drawn.rows.empty() || drawn.columns.empty()) return false;
  // The words most rows have under the first mark first (what every group can do, then what
  // fewer can): groups of capability read left to right.
  std::vector<std::size_t> order(drawn.columns.size());
  std::vector<std::size_t> first_marks(drawn.columns.size(), 0);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (const auto& cells : marked) {
    for (const auto& [column, mark] : cells) first_marks[column] += mark == 0 ? 1 : 0;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return first_marks[a] > first_marks[b]; });
  std::vector<std::string> columns;
  for (std::size_t i : order) columns.push_back(drawn.columns[i]);
  drawn.columns = std::move(columns);
  for (const auto& cells : marked) {
    std::vector<int>& row = drawn.cells.emplace_back(drawn.columns.size(), -1);
    for (std::size_t k = 0; k < order.size(); ++k) {
      const auto found = cells.find(order[k]);
      if (found != cells.end()) row[k] = found->second;
    }
  }
  chart::WriteSvg(drawn, out);
  return true;
}

}  // namespace

bool DrawChart(const Report& report, const Chart& chart, std::ostream& out) {
  const Table* table = FindIn(report.sections, report.tables, chart.table);
  if (table == nullptr) return false;
  const std::optional<Columns> columns = LocateAll(*table, chart);
  if (!columns) return false;
  switch (chart.kind) {
    case Chart::Kind::kBars:
    case Chart::Kind::kDiverging:
      if (!columns->facet.empty()) return DrawFacets(*table, chart, *columns, out);
      return DrawBars(*table, chart, *columns, out);
    case Chart::Kind::kHeatMap:
      return DrawHeatMap(*table, chart, *columns, out);
    case Chart::Kind::kLanes:
      return DrawLanes(*table, chart, *columns, out);
    case Chart::Kind::kMatrix:
      return DrawMatrix(*table, chart, *columns, out);
  }
  return false;
}

void PrintCharts(const Report& report, std::ostream& out) {
  // Each chart is its own <svg>; the document stacks them with a y offset each.
  std::vector<std::string> drawn;
  for (const Chart& chart : report.charts) {
    std::ostringstream svg;
    if (DrawChart(report, chart, svg)) drawn.push_back(svg.str());
  }
  const auto height_of = [](const std::string& svg) {
    const std::size_t at = svg.find("height=\"");
    return at == std::string::npos ? 0 : std::stoi(svg.substr(at + 8));
  };
  const auto width_of = [](const std::string& svg) {
    const std::size_t at = svg.find("width=\"");
    return at == std::string::npos ? 0 : std::stoi(svg.substr(at + 7));
  };
  int height = drawn.empty() ? 40 : 0;
  int width = 900;
  for (const std::string& svg : drawn) {
    height += height_of(svg) + 10;
    width = std::max(width, width_of(svg));
  }
  out << fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\">\n",
      width, height);
  if (drawn.empty()) {
    out << fmt::format(
        "<text x=\"10\" y=\"24\" font-family=\"sans-serif\">dlcheck {}: no chart for this "
        "report</text>\n",
        chart::EscapeMarkup(report.command));
  }
  int y = 0;
  for (const std::string& svg : drawn) {
    // A nested <svg> is placed by its x and y attributes.
    out << "<svg x=\"0\" y=\"" << y << "\"" << svg.substr(4);
    y += height_of(svg) + 10;
  }
  out << "</svg>\n";
}

}  // namespace dlcheck::report
