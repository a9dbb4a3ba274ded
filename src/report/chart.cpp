// SPDX-License-Identifier: Apache-2.0
#include "report/chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string_view>

#include "report/safe_text.h"

namespace dlcheck::report::chart {

std::string EscapeMarkup(std::string_view raw) {
  static constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size();) {
    const std::size_t bytes = Utf8SequenceBytes(raw, i);
    if (bytes == 0) {  // not UTF-8
      out += kReplacement;
      ++i;
      continue;
    }
    const char c = raw[i];
    if (c == '\t' || c == '\n' || c == '\r') {
      out += c;
    } else if (IsControl(raw, i, bytes)) {  // XML 1.0 allows no other control character
      out += kReplacement;
    } else if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else if (c == '"') {
      out += "&quot;";
    } else if (c == '\'') {
      out += "&#39;";
    } else {
      out.append(raw.substr(i, bytes));
    }
    i += bytes;
  }
  return out;
}

namespace {

constexpr int kWidth = 900;         // pixels, every chart
constexpr int kRowHeight = 20;      // a bar, a heat map row, a lane
constexpr int kTitleHeight = 28;    // the title line
constexpr int kAxisHeight = 34;     // tick labels and the unit under the plot
constexpr double kCharWidth = 6.6;  // of 11 px text, about
constexpr int kMaxLabelPx = 320;    // labels longer than this are cut with …
constexpr std::string_view kBarColor = "#4e79a7";
constexpr std::string_view kSlowerColor = "#d35f4d";
constexpr std::string_view kFasterColor = "#59a14f";

// Characters (code points) of UTF-8 text.
std::size_t Chars(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// `text` cut to `chars` code points, ending in … when cut.
std::string Cut(const std::string& text, std::size_t chars) {
  if (Chars(text) <= chars || chars < 2) return text;
  std::size_t end = 0;
  for (std::size_t n = 0; end < text.size() && n < chars - 1; ++n) {
    ++end;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
  }
  return text.substr(0, end) + "\u2026";
}

// The width of the label column: the longest label's, within bounds.
int LabelWidth(const std::vector<std::string>& labels) {
  std::size_t longest = 4;
  for (const std::string& l : labels) longest = std::max(longest, Chars(l));
  return std::min(kMaxLabelPx,
                  static_cast<int>(std::ceil(static_cast<double>(longest) * kCharWidth)) + 12);
}

// A label cut to what fits a label column `width_px` wide (LabelWidth's inverse).
std::string Label(const std::string& text, int width_px) {
  return EscapeMarkup(
      Cut(text, static_cast<std::size_t>(std::floor((width_px - 12) / kCharWidth + 1e-6))));
}

// A number as a tick or a value label shows it: 3 significant digits, no exponent below 1e9.
std::string Short(double v) {
  const double a = std::fabs(v);
  if (!std::isfinite(v)) return "off scale";
  if (a == 0) return "0";
  if (a >= 1e9) return fmt::format("{:.3g}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

// A coordinate as drawn: never a non-finite number (`x="inf"`, `x="-nan"` is no SVG): nan is 0,
// and anything past 10^6 px either way stops there. Every computed coordinate passes here.
double Px(double v) {
  if (std::isnan(v)) return 0;
  return std::clamp(v, -1e6, 1e6);
}

// A round step for about `count` ticks up to `max` (1, 2 or 5 times a power of ten).
double TickStep(double max, int count) {
  if (max <= 0) return 1;
  const double raw = max / count;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (raw <= m * power) return m * power;
  }
  return 10 * power;
}

// The start of every chart's document: its kind, size and title.
void Open(std::ostream& out, std::string_view kind, int width, int height,
          const std::string& title) {
  out << fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-kind=\"{0}\" "
      "width=\"{1}\" height=\"{2}\" viewBox=\"0 0 {1} {2}\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"
      "<text class=\"title\" x=\"8\" y=\"18\" font-size=\"14\" font-weight=\"bold\">{3}</text>\n",
      kind, width, height, EscapeMarkup(title));
}

// The frame of a grid chart (a heat map, a matrix): a label column, then one cell a column under
// the column heads, which stand at 45 degrees above the grid, cut to kColumnHeadChars (a cell's
// <title> names its column in full).
struct Grid {
  static constexpr std::size_t kColumnHeadChars = 24;
  int label_w;     ///< the row labels' column
  int x0;          ///< the first cell's left edge
  int cell_w = 0;  ///< each chart sets its own, which may depend on x0
  int top;         ///< the first row's top edge

  Grid(const std::vector<std::string>& rows, const std::vector<std::string>& columns)
      : label_w(LabelWidth(rows)), x0(label_w + 8) {
    std::size_t longest = 4;
    for (const std::string& c : columns) {
      longest = std::max(longest, std::min(Chars(c), kColumnHeadChars));
    }
    top = kTitleHeight + static_cast<int>(static_cast<double>(longest) * kCharWidth * 0.72) + 12;
  }
  int RowTop(std::size_t r) const { return top + static_cast<int>(r) * kRowHeight; }
  int CellLeft(std::size_t c) const { return x0 + static_cast<int>(c) * cell_w; }
  int Bottom(std::size_t rows) const { return RowTop(rows); }

  void WriteColumnHeads(std::ostream& out, const std::vector<std::string>& columns) const {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out << fmt::format("<text x=\"{0}\" y=\"{1}\" transform=\"rotate(-45 {0} {1})\">{2}</text>\n",
                         CellLeft(c) + cell_w / 2, top - 6,
                         EscapeMarkup(Cut(columns[c], kColumnHeadChars)));
    }
  }
  // Opens row `r`'s group with its label; the caller writes its cells and closes the group.
  void OpenRow(std::ostream& out, std::size_t r, const std::string& row) const {
    out << fmt::format("<g><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>", x0 - 6,
                       RowTop(r) + 14, Label(row, label_w));
  }
};

// A horizontal axis from x0 (value 0, or `at_zero`) to x1 at the bottom of the plot.
void Axis(std::ostream& out, int x0, int x1, int y, double max, const std::string& unit) {
  if (!std::isfinite(max) || max <= 0) max = 1;  // an infinite scale has no ticks to step by
  const double step = TickStep(max, 5);
  out << fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#999\"/>\n", x0, y, x1,
                     y);
  for (double t = 0; t <= max * 1.0001; t += step) {
    const double x = Px(x0 + (t / max) * (x1 - x0));
    out << fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#999\"/>"
        "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" fill=\"#555\">{4}</text>\n",
        x, y, y + 4, y + 15, Short(t));
  }
  // The unit on a line of its own under the right end: never on a bar, a tick or a label.
  out << fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{}</text>\n", x1,
                     y + 28, EscapeMarkup(unit));
}

double Right(const Bar& b) {
  return std::max(b.value, b.high.value_or(b.value));
}

void WritePlainBars(const Bars& chart, std::ostream& out) {
  std::vector<std::string> labels;
  double max = 0;
  for (const Bar& b : chart.bars) {
    labels.push_back(b.label);
    if (std::isfinite(Right(b))) max = std::max(max, Right(b));
  }
  if (max <= 0) max = 1;
  const int label_w = LabelWidth(labels);
  const int x0 = label_w + 8;
  const int x1 = kWidth - 70;  // room for the value label past the longest bar
  const int top = kTitleHeight + 6;
  const int height = top + static_cast<int>(chart.bars.size()) * kRowHeight + kAxisHeight + 8;
  Open(out, "bars", kWidth, height, chart.title);
  const double scale = (x1 - x0) / max;
  int y = top;
  for (const Bar& b : chart.bars) {
    // A value past every finite one (an infinite sum) is drawn clipped at the scale's end and
    // labelled so; one that is not a number draws no bar.
    const bool off_scale = std::isinf(Right(b)) && Right(b) > 0;
    const double w = off_scale                ? x1 - x0
                     : std::isfinite(b.value) ? std::max(0.0, b.value) * scale
                                              : 0;
    const double right = off_scale ? x1 - x0 : std::isfinite(Right(b)) ? Right(b) * scale : 0;
    const std::string value_text = off_scale                ? std::string("off scale")
                                   : std::isfinite(b.value) ? Short(b.value)
                                                            : std::string("no value");
    std::string spread;
    if (b.low && b.high) spread = fmt::format(" (min {}, max {})", Short(*b.low), Short(*b.high));
    out << fmt::format(
        "<g><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>"
        "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\">"
        "<title>{}: {} {}{}</title></rect>",
        x0 - 6, y + 14, Label(b.label, label_w), x0, y + 3, w, kRowHeight - 6, kBarColor,
        EscapeMarkup(b.label), value_text, EscapeMarkup(chart.unit), spread);
    if (b.low && b.high && std::isfinite(*b.low) && std::isfinite(*b.high)) {
      const double lo = Px(x0 + *b.low * scale);
      const double hi = Px(x0 + *b.high * scale);
      const int mid = y + kRowHeight / 2;
      out << fmt::format(
          "<path class=\"whisker\" d=\"M{0:.1f} {1}H{2:.1f}M{0:.1f} {3}V{4}M{2:.1f} {3}V{4}\" "
          "stroke=\"#222\" fill=\"none\"/>",
          lo, mid, hi, mid - 5, mid + 5);
    }
    out << fmt::format("<text x=\"{:.1f}\" y=\"{}\" fill=\"#333\">{}</text></g>\n",
                       Px(x0 + right + 4), y + 14, value_text);
    y += kRowHeight;
  }
  Axis(out, x0, x1, y + 2, max, chart.unit);
  out << "</svg>\n";
}

void WriteDivergingBars(const Bars& chart, std::ostream& out) {
  std::vector<std::string> labels;
  double reach = std::log2(1.25);  // at least ±25% of room either side
  for (const Bar& b : chart.bars) {
    labels.push_back(b.label);
    if (b.value > 0 && std::isfinite(b.value))
      reach = std::max(reach, std::fabs(std::log2(b.value)));
  }
  const int label_w = LabelWidth(labels);
  const int x0 = label_w + 8 + 48;  // room for the value written left of a bar that reaches x0
  const int x1 = kWidth - 60;
  const double mid_x = (x0 + x1) / 2.0;
  const double scale = (x1 - x0) / 2.0 / reach;
  const int top = kTitleHeight + 18;
  const int height = top + static_cast<int>(chart.bars.size()) * kRowHeight + 24;
  Open(out, "diverging", kWidth, height, chart.title);
  out << fmt::format(
      "<text x=\"{0:.1f}\" y=\"{1}\" text-anchor=\"end\" fill=\"{2}\">\u2190 faster</text>"
      "<text x=\"{3:.1f}\" y=\"{1}\" fill=\"{4}\">slower \u2192</text>\n",
      mid_x - 6, top - 4, kFasterColor, mid_x + 6, kSlowerColor);
  int y = top;
  for (const Bar& b : chart.bars) {
    const bool known = b.value > 0 && std::isfinite(b.value);
    const double d = known ? (chart.speedup ? -1 : 1) * std::log2(b.value) * scale : 0;
    const double x = d < 0 ? mid_x + d : mid_x;
    out << fmt::format(
        "<g><text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>"
        "<rect class=\"bar\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" fill=\"{}\">"
        "<title>{}: {}{}</title></rect>"
        "<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"{}\" fill=\"#333\">{}</text></g>\n",
        x0 - 6, y + 14, Label(b.label, label_w), Px(x), y + 3, Px(std::fabs(d)), kRowHeight - 6,
        d > 0 ? kSlowerColor : kFasterColor, EscapeMarkup(b.label),
        known ? Short(b.value) : "no ratio", EscapeMarkup(chart.unit),
        Px(d < 0 ? x - 4 : mid_x + d + 4), y + 14, d < 0 ? "end" : "start",
        known ? Short(b.value) : "-");
    y += kRowHeight;
  }
  out << fmt::format(
      "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#333\"/>"
      "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\" fill=\"#555\">1: as fast{4}</text>\n",
      mid_x, top, y, y + 14, chart.unit.empty() ? "" : " (" + EscapeMarkup(chart.unit) + ")");
  out << "</svg>\n";
}

// A sequential colour from pale yellow (0) to dark red (1).
std::string HeatColor(double t) {
  t = std::isnan(t) ? 0 : std::clamp(t, 0.0, 1.0);
  const auto mix = [t](double a, double b, double c) {
    return static_cast<int>(t < 0.5 ? a + (b - a) * t * 2 : b + (c - b) * (t - 0.5) * 2);
  };
  return fmt::format("rgb({},{},{})", mix(255, 246, 165), mix(247, 146, 15), mix(188, 60, 38));
}

// Text on a cell of fill `t`: white on the dark end.
std::string_view InkOn(double t) {
  return t > 0.6 ? "#fff" : "#222";
}

}  // namespace

void WriteSvg(const Bars& chart, std::ostream& out) {
  if (chart.diverging) {
    WriteDivergingBars(chart, out);
  } else {
    WritePlainBars(chart, out);
  }
}

namespace {

// How many times slower than its row's best a cell must be to be drawn darkest.
constexpr double kDarkestRatio = 8;

// The least positive finite cell of `row` (its best: heat maps are times), 0 where none is.
double RowBest(const std::vector<std::optional<double>>& row) {
  double best = 0;
  for (const auto& cell : row) {
    if (cell && std::isfinite(*cell) && *cell > 0 && (best == 0 || *cell < best)) best = *cell;
  }
  return best;
}

}  // namespace

// Each row on its own scale, against its best (least) cell: the best is white and outlined, a
// cell kDarkestRatio times slower or more darkest (log scale), so the winner of every row shows
// whatever the scale of the others (the scalar column no longer sets it).
void WriteSvg(const HeatMap& chart, std::ostream& out) {
  Grid grid(chart.rows, chart.columns);
  const int columns = std::max<int>(1, static_cast<int>(chart.columns.size()));
  grid.cell_w = std::clamp((kWidth - grid.x0 - 10) / columns, 24, 110);
  const int height = grid.Bottom(chart.rows.size()) + 30;
  const int width = std::max(kWidth, grid.x0 + columns * grid.cell_w + 120);
  Open(out, "heatmap", width, height, chart.title);
  grid.WriteColumnHeads(out, chart.columns);
  for (std::size_t r = 0; r < chart.rows.size(); ++r) {
    grid.OpenRow(out, r, chart.rows[r]);
    const int y = grid.RowTop(r);
    const double best = r < chart.cells.size() ? RowBest(chart.cells[r]) : 0;
    for (std::size_t c = 0; c < chart.columns.size(); ++c) {
      const std::optional<double> v =
          r < chart.cells.size() && c < chart.cells[r].size() ? chart.cells[r][c] : std::nullopt;
      const int x = grid.CellLeft(c);
      const double number = v.value_or(0);
      const bool known = v.has_value() && std::isfinite(number);
      const double ratio = known && best > 0 && number > 0 ? number / best : 1;
      const double t = std::clamp(std::log(ratio) / std::log(kDarkestRatio), 0.0, 1.0);
      const bool is_best = known && best > 0 && number == best;
      out << fmt::format(
          "<rect class=\"cell\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"{}>"
          "<title>{} / {}: {}</title></rect>",
          x, y, grid.cell_w - 1, kRowHeight - 1, known ? HeatColor(t) : "#e4e4e4",
          is_best ? " data-best=\"1\" stroke=\"#2e7d32\" stroke-width=\"2\"" : "",
          EscapeMarkup(chart.rows[r]), EscapeMarkup(chart.columns[c]),
          known ? Short(number) + " " + EscapeMarkup(chart.unit) +
                      (best > 0 && number > 0 ? " (x" + Short(ratio) + " the row's best)" : "")
                : "none");
      if (known && grid.cell_w >= 34) {
        out << fmt::format(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"{}\" "
            "pointer-events=\"none\">{}</text>",
            x + grid.cell_w / 2, y + 14, InkOn(t), Short(number));
      }
    }
    out << "</g>\n";
  }
  const int legend_y = grid.Bottom(chart.rows.size()) + 18;
  out << fmt::format(
      "<text x=\"{}\" y=\"{}\" fill=\"#555\">{}, each row against its best (outlined, white): "
      "darker is slower, darkest {}x or more; grey: not run or no row</text>\n",
      grid.x0, legend_y, EscapeMarkup(chart.unit), Short(kDarkestRatio));
  out << "</svg>\n";
}

void WriteSvg(const Lanes& chart, std::ostream& out) {
  std::vector<std::string> names;
  double start = INFINITY;
  double end = -INFINITY;
  for (const Lane& lane : chart.lanes) {
    names.push_back(lane.name);
    for (const auto& [s, length] : lane.spans) {
      if (!std::isfinite(s + length)) continue;  // no place on a time axis
      start = std::min(start, s);
      end = std::max(end, s + length);
    }
  }
  if (!std::isfinite(start) || !std::isfinite(end - start) || end <= start) {
    start = 0;
    end = 1;
  }
  const int label_w = LabelWidth(names);
  const int x0 = label_w + 8;
  const int x1 = kWidth - 20;
  const int top = kTitleHeight + 6;
  const int height = top + static_cast<int>(chart.lanes.size()) * kRowHeight + kAxisHeight + 8;
  Open(out, "lanes", kWidth, height, chart.title);
  const double scale = (x1 - x0) / (end - start);
  int y = top;
  for (const Lane& lane : chart.lanes) {
    out << fmt::format(
        "<g class=\"lane\"><title>{}: {} spans</title>"
        "<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f3f3f3\"/>"
        "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>",
        EscapeMarkup(lane.name), lane.spans.size(), x0, y + 2, x1 - x0, kRowHeight - 4, x0 - 6,
        y + 14, Label(lane.name, label_w));
    std::vector<std::pair<double, double>> spans = lane.spans;
    std::sort(spans.begin(), spans.end());
    // Pixels [a, b) covered, spans that touch the same pixel joined.
    double a = -1;
    double b = -1;
    const auto flush = [&] {
      if (a < 0) return;
      out << fmt::format(
          "<rect class=\"span\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" "
          "fill=\"{}\"/>",
          Px(a), y + 3, Px(std::max(b - a, 0.8)), kRowHeight - 6, kBarColor);
    };
    for (const auto& [s, length] : spans) {
      if (!std::isfinite(s + length)) continue;
      const double l = x0 + (s - start) * scale;
      const double r = x0 + (s + length - start) * scale;
      if (a >= 0 && l <= b + 1) {
        b = std::max(b, r);
        continue;
      }
      flush();
      a = l;
      b = r;
    }
    flush();
    out << "</g>\n";
    y += kRowHeight;
  }
  const double unit_scale = end - start;
  Axis(out, x0, x1, y + 2, unit_scale, chart.unit);
  out << "</svg>\n";
}

void WriteSvg(const Matrix& chart, std::ostream& out) {
  Grid grid(chart.rows, chart.columns);
  grid.cell_w = 22;
  const int width =
      std::max(kWidth, grid.x0 + static_cast<int>(chart.columns.size()) * grid.cell_w + 140);
  const int height = grid.Bottom(chart.rows.size()) + 30;
  Open(out, "matrix", width, height, chart.title);
  grid.WriteColumnHeads(out, chart.columns);
  for (std::size_t r = 0; r < chart.rows.size(); ++r) {
    grid.OpenRow(out, r, chart.rows[r]);
    const int y = grid.RowTop(r);
    for (std::size_t c = 0; c < chart.columns.size(); ++c) {
      const int m = r < chart.cells.size() && c < chart.cells[r].size() ? chart.cells[r][c] : -1;
      const bool marked = m >= 0 && m < static_cast<int>(chart.marks.size());
      const int x = grid.CellLeft(c);
      out << fmt::format(
          "<rect class=\"cell {}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
          "<title>{} / {}: {}</title></rect>",
          marked ? EscapeMarkup(chart.marks[m].name) : "none", x, y, grid.cell_w - 1,
          kRowHeight - 1, marked ? EscapeMarkup(chart.marks[m].color) : "#f3f3f3",
          EscapeMarkup(chart.rows[r]), EscapeMarkup(chart.columns[c]),
          marked ? EscapeMarkup(chart.marks[m].name) : "absent");
      if (marked) {
        out << fmt::format(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" pointer-events=\"none\">{}</text>",
            x + grid.cell_w / 2, y + 14, EscapeMarkup(chart.marks[m].symbol));
      }
    }
    out << "</g>\n";
  }
  int x = grid.x0;
  const int legend_y = grid.Bottom(chart.rows.size()) + 18;
  for (const Matrix::Mark& mark : chart.marks) {
    out << fmt::format(
        "<rect x=\"{}\" y=\"{}\" width=\"14\" height=\"14\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{} {}</text>\n",
        x, legend_y - 11, EscapeMarkup(mark.color), x + 18, legend_y, EscapeMarkup(mark.symbol),
        EscapeMarkup(mark.name));
    x += 30 + static_cast<int>(static_cast<double>(Chars(mark.name) + 2) * kCharWidth);
  }
  out << "</svg>\n";
}

}  // namespace dlcheck::report::chart
