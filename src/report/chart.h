// SPDX-License-Identifier: Apache-2.0
#pragma once
// Charts drawn by dlcheck as SVG, as the flame graph is (report/flame_graph.h): plain data in,
// one <svg> element out, with no script, so that it stands alone (`-f svg`) or sits inline in an
// HTML page (`-f html`). Every mark carries a class the browser test counts (`bar`, `cell`,
// `lane`, `span`) and a <title> that the browser shows on hover.
//
//   chart::Bars bars{.title = "Samples/s by ISA cap", .unit = "samples/s"};
//   bars.bars.push_back({.label = "avx2", .value = 5120, .low = 5010, .high = 5230});
//   chart::WriteSvg(bars, std::cout);
//
// What a report draws is declared by its builder as report::Chart (report/report.h) and read
// from its tables by chart_data.h; these functions only lay out and draw.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace dlcheck::report::chart {

/// One bar: its length `value`, and optionally a whisker from `low` to `high` (the spread of
/// the repeats).
struct Bar {
  std::string label;
  double value = 0;
  std::optional<double> low;
  std::optional<double> high;
};

/// Horizontal bars from 0, in the given order. With `diverging`, each value is a ratio drawn
/// from 1 on a log scale: above 1 to the right (slower, red), below 1 to the left (faster,
/// green).
struct Bars {
  std::string title;
  std::string unit;
  std::vector<Bar> bars;
  bool diverging = false;
  bool speedup = false;  ///< diverging: each value a speed-up, above 1 drawn left (faster)
};

/// A grid of costs (times): `cells[r][c]` for row `rows[r]` and column `columns[c]`; nullopt: no
/// value (drawn grey). Each row is drawn against its least cell, its best: darker is slower.
struct HeatMap {
  std::string title;
  std::string unit;
  std::vector<std::string> rows;
  std::vector<std::string> columns;
  std::vector<std::vector<std::optional<double>>> cells;
};

/// One lane of a timeline: its spans as [start, start + length), in the unit of the chart.
struct Lane {
  std::string name;
  std::vector<std::pair<double, double>> spans;  ///< start, length
};

/// A timeline: one lane per name, time running right. Spans closer than a pixel in one lane are
/// drawn as one, so a lane never has more marks than the chart has pixels.
struct Lanes {
  std::string title;
  std::string unit;
  std::vector<Lane> lanes;
};

/// A grid of words: row `rows[r]` has mark `cells[r][c]` for column `columns[c]`, an index into
/// `marks` (or -1: none). Each mark has its name (the legend and the cell's class) and its
/// symbol.
struct Matrix {
  struct Mark {
    std::string name;    ///< "usable", "lacks", "hidden"
    std::string symbol;  ///< drawn in the cell
    std::string color;   ///< the cell's fill
  };
  std::string title;
  std::vector<std::string> rows;
  std::vector<std::string> columns;
  std::vector<Mark> marks;
  std::vector<std::vector<int>> cells;
};

void WriteSvg(const Bars& chart, std::ostream& out);
void WriteSvg(const HeatMap& chart, std::ostream& out);
void WriteSvg(const Lanes& chart, std::ostream& out);
void WriteSvg(const Matrix& chart, std::ostream& out);

/// Text made safe for XML and HTML alike (& < > " ' escaped; control characters other than
/// tab and line breaks, and bytes that are not UTF-8, become U+FFFD).
std::string EscapeMarkup(std::string_view text);

}  // namespace dlcheck::report::chart
