// SPDX-License-Identifier: Apache-2.0
#pragma once
// A report's declared charts (report::Chart in report.h) read from its tables and drawn
// (report/chart.h): the one place that turns rows into a chart's bars, cells and lanes. The
// html printer draws each inline; `-f svg` draws them one under another.
//
//   for (const Chart& c : report.charts) DrawChart(report, c, out);

#include <ostream>

#include "report/report.h"

namespace dlcheck::report {

/// Draws `chart` from `report`'s tables as one <svg> element; false, with nothing written, when
/// its table is not in the report, lacks a column the chart names, or has no row to draw.
bool DrawChart(const Report& report, const Chart& chart, std::ostream& out);

/// The report's charts, each drawn that can be, stacked in one standalone SVG document (the
/// `svg` format of a report without stacks); a report without any draws an empty one that says
/// so.
void PrintCharts(const Report& report, std::ostream& out);

}  // namespace dlcheck::report
