// SPDX-License-Identifier: Apache-2.0
// The charts (report/chart.h), a report's declared charts read from its tables
// (report/chart_data.h) and the html printer, on hand-built reports: marks counted, rows summed
// and averaged as declared, hostile text escaped.
#include "report/chart.h"

#include <gtest/gtest.h>

#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "report/chart_data.h"
#include "report/printer.h"

namespace dlcheck::report {
namespace {

std::size_t Count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++n;
  }
  return n;
}

TEST(Chart, BarsDrawOneBarAndWhiskerPerEntry) {
  chart::Bars bars{.title = "t", .unit = "samples/s"};
  bars.bars.push_back({.label = "sse41", .value = 10, .low = 9, .high = 11});
  bars.bars.push_back({.label = "avx2", .value = 20});
  std::ostringstream out;
  chart::WriteSvg(bars, out);
  EXPECT_EQ(Count(out.str(), "class=\"bar\""), 2u);
  EXPECT_EQ(Count(out.str(), "class=\"whisker\""), 1u);
  EXPECT_NE(out.str().find("data-kind=\"bars\""), std::string::npos);
}

TEST(Chart, HeatMapDrawsEveryCellEmptyOnesToo) {
  chart::HeatMap map{.title = "t", .unit = "ms", .rows = {"a", "b", "c"}, .columns = {"x", "y"}};
  map.cells = {{1.0, 2.0}, {std::nullopt, 3.0}, {4.0, std::nullopt}};
  std::ostringstream out;
  chart::WriteSvg(map, out);
  EXPECT_EQ(Count(out.str(), "class=\"cell\""), 6u);
}

// The lines of `svg` that hold `what`, in order.
std::vector<std::string> LinesWith(const std::string& svg, const std::string& what) {
  std::vector<std::string> lines;
  std::istringstream in(svg);
  for (std::string line; std::getline(in, line);) {
    if (line.find(what) != std::string::npos) lines.push_back(line.substr(0, line.find("</text>")));
  }
  return lines;
}

// Each row on its own scale (issue 47: absolute ms let the scalar column set the scale, so a
// row's winner could not be seen): every row's least cell is its best, outlined and white,
// whatever the other rows hold.
TEST(Chart, HeatMapMarksEachRowsBestOnItsOwnScale) {
  chart::HeatMap map{.title = "t", .unit = "ms", .rows = {"a", "b"}, .columns = {"x", "y", "z"}};
  map.cells = {{900.0, 2.0, 3.0}, {0.010, 0.040, std::nullopt}};
  std::ostringstream out;
  chart::WriteSvg(map, out);
  const std::string svg = out.str();
  EXPECT_EQ(Count(svg, "data-best=\"1\""), 2u) << svg;
  const std::string outlined = "data-best=\"1\" stroke=\"#2e7d32\" stroke-width=\"2\"><title>";
  EXPECT_NE(svg.find(outlined + "a / y: 2.00 ms (x1.00 the row's best)"), std::string::npos) << svg;
  EXPECT_NE(svg.find(outlined + "b / x: 0.01 ms"), std::string::npos) << svg;
  // 0.04 ms is 4x its row's best: darker than white, though tiny against 900 ms.
  EXPECT_NE(svg.find("b / y: 0.04 ms (x4.00 the row's best)"), std::string::npos) << svg;
}

TEST(Chart, HeatMapAndMatrixDrawTheSameGridFrame) {
  // A long column name (a primitive's full name) is cut alike in both, the cell titles keep it.
  const std::vector<std::string> rows = {"convolution", "inner_product"};
  const std::vector<std::string> columns = {"x", "jit:avx512_core_amx_bf16_with_a_long_tail"};
  chart::HeatMap map{.title = "t", .unit = "ms", .rows = rows, .columns = columns};
  map.cells = {{1.0, 2.0}, {3.0, 4.0}};
  chart::Matrix matrix{.title = "t", .rows = rows, .columns = columns};
  matrix.marks = {{.name = "used", .symbol = "u", .color = "#000"}};
  matrix.cells = {{0, 0}, {0, -1}};
  std::ostringstream heat_svg;
  std::ostringstream matrix_svg;
  chart::WriteSvg(map, heat_svg);
  chart::WriteSvg(matrix, matrix_svg);
  const std::vector<std::string> heads = LinesWith(heat_svg.str(), "rotate(-45");
  ASSERT_EQ(heads.size(), 2u);
  EXPECT_EQ(heads[1].find(columns[1]), std::string::npos) << heads[1];
  EXPECT_NE(heat_svg.str().find(columns[1]), std::string::npos);
  EXPECT_NE(matrix_svg.str().find(columns[1]), std::string::npos);
  // The heads stand at the same height over the first row in both, cut alike (their x follows
  // each chart's cell width).
  const std::vector<std::string> matrix_heads = LinesWith(matrix_svg.str(), "rotate(-45");
  ASSERT_EQ(matrix_heads.size(), 2u);
  auto y_and_text = [](const std::string& head) {
    const std::size_t y = head.find(" y=");
    return head.substr(y, head.find(' ', y + 1) - y) + head.substr(head.rfind('>'));
  };
  for (std::size_t c = 0; c < 2; ++c) EXPECT_EQ(y_and_text(heads[c]), y_and_text(matrix_heads[c]));
  EXPECT_EQ(LinesWith(heat_svg.str(), "<g><text"), LinesWith(matrix_svg.str(), "<g><text"));
}

TEST(Chart, LanesJoinSpansThatShareAPixel) {
  chart::Lanes lanes{.title = "t", .unit = "us"};
  lanes.lanes.push_back({.name = "convolution"});
  for (int i = 0; i < 100000; ++i) lanes.lanes[0].spans.emplace_back(i, 0.5);
  lanes.lanes.push_back({.name = "reorder", .spans = {{0, 10}, {90000, 10}}});
  std::ostringstream out;
  chart::WriteSvg(lanes, out);
  EXPECT_EQ(Count(out.str(), "class=\"lane\""), 2u);
  // A span every 1e-2 px is one mark; the two far-apart ones stay two.
  EXPECT_EQ(Count(out.str(), "class=\"span\""), 3u);
}

// Whether an attribute of `svg` holds a number that is not finite (`x="inf"`, `width="-nan"`).
bool HasNonFiniteAttribute(const std::string& svg) {
  for (const char* bad : {"\"inf", "\"-inf", "\"nan", "\"-nan", " inf", " nan", "Minf", "Mnan"}) {
    if (svg.find(bad) != std::string::npos) return true;
  }
  return false;
}

// Issue 51: times of 1e308 summed to infinity reached the charts as `x="inf"` and `x="-nan"`.
// No chart draws a non-finite coordinate: a bar past every finite one is drawn clipped and
// labelled, one that is not a number draws nothing; spans without a place on the axis are left
// out; an infinite axis has no infinite ticks.
TEST(Chart, NoChartDrawsANonFiniteCoordinate) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  chart::Bars bars{.title = "t", .unit = "ms"};
  bars.bars.push_back({.label = "huge", .value = inf, .low = 1, .high = inf});
  bars.bars.push_back({.label = "nan", .value = nan});
  bars.bars.push_back({.label = "big", .value = 1e308});
  bars.bars.push_back({.label = "small", .value = 2});
  std::ostringstream plain;
  chart::WriteSvg(bars, plain);
  EXPECT_FALSE(HasNonFiniteAttribute(plain.str())) << plain.str();
  // The value label, the bar's title and the max of its spread.
  EXPECT_EQ(Count(plain.str(), "off scale"), 3u);
  EXPECT_EQ(Count(plain.str(), "class=\"bar\""), 4u);
  bars.diverging = true;
  std::ostringstream diverging;
  chart::WriteSvg(bars, diverging);
  EXPECT_FALSE(HasNonFiniteAttribute(diverging.str())) << diverging.str();
  chart::HeatMap map{.title = "t", .unit = "ms", .rows = {"a"}, .columns = {"x", "y", "z"}};
  map.cells = {{inf, nan, 1e308}};
  std::ostringstream heat;
  chart::WriteSvg(map, heat);
  EXPECT_FALSE(HasNonFiniteAttribute(heat.str())) << heat.str();
  chart::Lanes lanes{.title = "t", .unit = "ms"};
  lanes.lanes.push_back({.name = "a", .spans = {{0, 1}, {1e308, 1e308}, {nan, 1}, {5, inf}}});
  lanes.lanes.push_back({.name = "b", .spans = {{-1e308, 1}, {2, 1}}});
  std::ostringstream lanes_svg;
  chart::WriteSvg(lanes, lanes_svg);
  EXPECT_FALSE(HasNonFiniteAttribute(lanes_svg.str())) << lanes_svg.str();
}

TEST(Chart, EscapeMarkupLeavesNoMarkupAndNoControlCharacter) {
  EXPECT_EQ(chart::EscapeMarkup("<script>\"a\"&'b'</table>\x1b\xff\n\t\xc2\x9b\xc3\xa9"),
            "&lt;script&gt;&quot;a&quot;&amp;&#39;b&#39;&lt;/table&gt;\xEF\xBF\xBD\xEF\xBF\xBD\n\t"
            "\xEF\xBF\xBD\xc3\xa9");
}

// A report with a table of (layer, kind, config, run, exec_ms) rows.
Report Rows() {
  Report r;
  r.command = "parse";
  Table& t = r.AddView("rows", {"layer", "kind", "config", "run", "exec_ms"}, "Rows");
  t.rows = {{"conv1", "convolution", "avx2", 1, 2.0}, {"conv1", "reorder", "avx2", 1, 1.0},
            {"fc1", "inner_product", "avx2", 1, 4.0}, {"conv1", "convolution", "avx2", 2, 4.0},
            {Value(), "reorder", "sse41", 1, 8.0},    {"conv1", "convolution", "sse41", 1, 6.0}};
  return r;
}

TEST(ChartData, BarsSumTheRowsOfALabelAndSkipRowsWithoutOne) {
  Report r = Rows();
  std::ostringstream out;
  ASSERT_TRUE(DrawChart(
      r,
      {.title = "by layer", .table = "rows", .label = {"layer"}, .value = "exec_ms", .unit = "ms"},
      out));
  EXPECT_EQ(Count(out.str(), "class=\"bar\""), 2u);
  // conv1: 2 + 1 + 4 + 6.
  EXPECT_NE(out.str().find("<title>conv1: 13.0 ms</title>"), std::string::npos) << out.str();
}

TEST(ChartData, HeatMapCellsAreTheMeanPerRunWhenAsked) {
  Report r = Rows();
  std::ostringstream out;
  ASSERT_TRUE(DrawChart(r,
                        {.kind = Chart::Kind::kHeatMap,
                         .table = "rows",
                         .label = {"layer", "kind"},
                         .value = "exec_ms",
                         .series = "config",
                         .per = "run",
                         .unit = "ms"},
                        out));
  // Rows: conv1 convolution, conv1 reorder, fc1 inner_product, reorder; columns avx2, sse41.
  EXPECT_EQ(Count(out.str(), "class=\"cell\""), 8u);
  // avx2 had two runs: (2 + 4) / 2.
  EXPECT_NE(out.str().find("conv1 convolution / avx2: 3.00 ms"), std::string::npos) << out.str();
}

// whatif's small multiples (issue 47): a chart per facet text, in the rows' order, each titled
// with it and holding only its rows; speed-ups above 1 drawn left (faster), below 1 right.
TEST(ChartData, FacetsAreSmallMultiplesAndSpeedupsAboveOneAreFaster) {
  Report r;
  Table& t = r.AddView("variants", {"hot", "variant", "speedup"}, "variants");
  t.rows = {{1, "as logged", 1.0},
            {1, "threads 2", 2.0},
            {2, "as logged", 1.0},
            {2, "layouts any", 0.5},
            {2, "threads 2", Value()}};
  std::ostringstream out;
  ASSERT_TRUE(DrawChart(r,
                        {.kind = Chart::Kind::kDiverging,
                         .title = "Speed-up",
                         .table = "variants",
                         .label = {"variant"},
                         .value = "speedup",
                         .unit = "x",
                         .facet = {"hot"},
                         .speedup = true},
                        out));
  const std::string svg = out.str();
  EXPECT_EQ(Count(svg, "<svg"), 2u) << svg;
  EXPECT_LT(svg.find("Speed-up: 1"), svg.find("Speed-up: 2")) << svg;
  EXPECT_EQ(Count(svg, "class=\"bar\""), 4u) << svg;  // the row without a speed-up: none
  // In each chart the faster (green) bar lies left of the line at 1, the slower right of it.
  const auto fill_of = [&](const std::string& label) {
    const std::size_t title = svg.find("<title>" + label);
    const std::size_t fill = svg.rfind("fill=\"", title);
    return svg.substr(fill + 6, svg.find('"', fill + 6) - fill - 6);
  };
  const std::size_t faster = svg.find("\u2190 faster");
  const std::size_t fill = svg.rfind("fill=\"", faster);
  const std::string faster_color = svg.substr(fill + 6, svg.find('"', fill + 6) - fill - 6);
  EXPECT_EQ(fill_of("threads 2: 2"), faster_color) << svg;
  EXPECT_NE(fill_of("layouts any: 0.5"), faster_color) << svg;
}

TEST(ChartData, AChartOfAMissingTableOrColumnIsNotDrawn) {
  Report r = Rows();
  std::ostringstream out;
  EXPECT_FALSE(DrawChart(r, {.table = "none", .label = {"layer"}, .value = "exec_ms"}, out));
  EXPECT_FALSE(DrawChart(r, {.table = "rows", .label = {"nope"}, .value = "exec_ms"}, out));
  EXPECT_FALSE(DrawChart(r, {.table = "rows", .label = {"layer"}, .value = "nope"}, out));
  EXPECT_TRUE(out.str().empty());
}

TEST(ChartData, MatrixMarksEachWordByTheLastColumnThatHoldsIt) {
  Report r;
  Table& t = r.AddView("groups", {"hosts", "features", "lacks", "hidden"});
  t.rows.push_back(
      {"n[1-2]", Value(TextList{"avx2", "avx512f"}), Value(TextList{}), Value(TextList{})});
  t.rows.push_back(
      {"n3", Value(TextList{"avx2"}), Value(TextList{"avx512f"}), Value(TextList{"avx512f"})});
  std::ostringstream out;
  ASSERT_TRUE(DrawChart(
      r,
      {.kind = Chart::Kind::kMatrix,
       .table = "groups",
       .label = {"hosts"},
       .marks = {{"features", "+", "#0f0"}, {"lacks", "x", "#f00"}, {"hidden", "H", "#fa0"}}},
      out));
  EXPECT_EQ(Count(out.str(), "<rect class=\"cell "), 4u);
  EXPECT_EQ(Count(out.str(), "class=\"cell features\""), 3u);
  EXPECT_EQ(Count(out.str(), "class=\"cell hidden\""), 1u);
  EXPECT_EQ(Count(out.str(), "class=\"cell lacks\""), 0u);
}

TEST(HtmlPrinter, HostileTextIsShownAsTextNeverAsMarkup) {
  Report r = Rows();
  r.tables[0].title = "</h2><script>alert(1)</script>";
  r.tables[0].rows.push_back({"<script>window.x=1</script>", "</table>\"'", "a", 1, 1.5});
  r.AddFinding(Severity::kWarning, "<b>code</b>", "message </ul><img src=x onerror=alert(2)>");
  r.charts.push_back({.title = "<script>", .table = "rows", .label = {"kind"}, .value = "exec_ms"});
  std::ostringstream out;
  PrintHtml(r, out);
  const std::string page = out.str();
  EXPECT_EQ(Count(page, "<script"), 1u);  // the page's own
  EXPECT_EQ(Count(page, "<img"), 0u);
  EXPECT_EQ(Count(page, "</table>"), 1u);  // one table, closed once
  EXPECT_NE(page.find("&lt;script&gt;window.x=1&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(page.find("&lt;/table&gt;&quot;&#39;"), std::string::npos);
}

TEST(HtmlPrinter, FindingsComeFirstNumbersAreRightAlignedWithTheirUnit) {
  Report r = Rows();
  r.AddFinding(Severity::kInfo, "partial-log", "the log has no create lines");
  std::ostringstream out;
  PrintHtml(r, out);
  const std::string page = out.str();
  ASSERT_NE(page.find("id=\"findings\""), std::string::npos);
  EXPECT_LT(page.find("id=\"findings\""), page.find("<table class=\"data\""));
  EXPECT_NE(page.find("<th class=\"n\">exec_ms<small>ms</small></th>"), std::string::npos);
  EXPECT_NE(page.find("<td class=\"n\" data-v=\"2\">2.000</td>"), std::string::npos) << page;
  EXPECT_EQ(Count(page, "<tr><td"), 6u);
}

TEST(SvgFormat, AReportWithoutStacksPrintsItsChartsInOneDocument) {
  Report r = Rows();
  r.charts.push_back({.title = "a", .table = "rows", .label = {"kind"}, .value = "exec_ms"});
  r.charts.push_back({.title = "b", .table = "missing", .label = {"kind"}, .value = "exec_ms"});
  r.charts.push_back({.kind = Chart::Kind::kHeatMap,
                      .title = "c",
                      .table = "rows",
                      .label = {"kind"},
                      .value = "exec_ms",
                      .series = "config"});
  std::ostringstream out;
  Print(r, Format::kSvg, out);
  EXPECT_EQ(out.str().rfind("<?xml", 0), 0u);
  EXPECT_EQ(Count(out.str(), "<svg"), 3u);  // the document and the two charts drawn
  EXPECT_EQ(Count(out.str(), "</svg>"), 3u);
}

}  // namespace
}  // namespace dlcheck::report
