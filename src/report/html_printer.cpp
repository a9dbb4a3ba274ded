// SPDX-License-Identifier: Apache-2.0
// --format html: the whole report as one self-contained page (inline CSS, script and SVG;
// nothing fetched, so it works from file:// and as a CI artifact). Findings first, then the
// primary table (its answer columns after its first), then the report's charts (report::Chart,
// drawn by chart_data.h), the flame graph of a `stacks` table with its bottom-up view, then each
// section and the other tables as the human table shows them. Tables
// sort on a click on a header and filter on the text typed above them; numbers are
// right-aligned, with their unit under the column's name. Every text from the report is escaped
// (chart::EscapeMarkup), and the page's only script is the constant below: a log line can
// neither close an element nor run code.
//
//   <h2>Findings</h2> <ul><li class="warning">busy-machine: the machine was busy ...</li></ul>
//   <h2>Charts</h2>   <svg class="chart" data-kind="bars"> <rect class="bar"> ...
//   <h2>Primitives</h2> <input class="filter"> <table class="data"> <th class="n">exec_ms_total
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>
#include <memory>
#include <ostream>
#include <sstream>

#include "report/chart.h"
#include "report/chart_data.h"
#include "report/flame_graph.h"
#include "report/printer.h"

namespace dlcheck::report {
namespace {

using chart::EscapeMarkup;

constexpr std::string_view kStyle = R"CSS(
body { font: 14px/1.4 system-ui, sans-serif; margin: 0 24px 40px; color: #222; }
h1 { font-size: 22px; margin: 18px 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; }
h3 { font-size: 15px; margin: 20px 0 6px; }
nav { font-size: 13px; margin: 6px 0 12px; } nav a { margin-right: 12px; }
.headline { font-family: monospace; background: #f4f4f4; padding: 6px 8px; }
ul.findings { list-style: none; padding: 0; }
ul.findings li { margin: 4px 0; padding: 6px 10px; border-left: 4px solid #888; background: #f7f7f7; }
ul.findings li.warning { border-color: #e0a000; background: #fff8e6; }
ul.findings li.error { border-color: #c62828; background: #fdecea; }
.sev { font-weight: bold; text-transform: uppercase; font-size: 11px; margin-right: 6px; }
code { font-size: 12px; }
table.fields td { padding: 1px 12px 1px 0; vertical-align: top; }
table.fields td:first-child { color: #555; white-space: nowrap; }
.scroll { overflow-x: auto; max-width: 100%; }
table.data { border-collapse: collapse; font-size: 12.5px; }
table.data th, table.data td { border-bottom: 1px solid #e2e2e2; padding: 3px 8px; vertical-align: top; }
table.data th { background: #eef1f5; position: sticky; top: 0; cursor: pointer; text-align: left;
  white-space: nowrap; user-select: none; }
table.data th small { display: block; font-weight: normal; color: #666; }
table.data th.n, table.data td.n { text-align: right; font-variant-numeric: tabular-nums; }
table.data td.n { white-space: nowrap; }
table.data td { max-width: 36em; overflow-wrap: break-word; }
table.data td:first-child, table.data th:first-child { position: sticky; left: 0; z-index: 1; }
table.data td:first-child { background: #fff; } table.data th:first-child { z-index: 2; }
table.data td.null { color: #aaa; }
table.data th[aria-sort=ascending]::after { content: " \25B2"; }
table.data th[aria-sort=descending]::after { content: " \25BC"; }
table.data tr:hover td { background: #f6f9ff; }
table.data .x { display: none; } table.data.all .x { display: table-cell; }
button.more { font-size: 11px; margin-left: 8px; }
.tools { margin: 4px 0; font-size: 12px; color: #555; }
input.filter { font-size: 12px; padding: 2px 6px; width: 22em; margin-right: 8px; }
.caption { color: #555; font-size: 12.5px; }
figure { margin: 12px 0 18px; } svg.chart { max-width: 100%; height: auto; }
figure.multiples { display: grid; grid-template-columns: repeat(auto-fill, minmax(600px, 1fr));
  gap: 8px 16px; align-items: start; }
iframe.flame { width: 100%; border: 1px solid #ddd; }
footer { margin-top: 32px; color: #777; font-size: 12px; }
)CSS";

// Sorting on a header's click (numbers by their data-v, text by its words), filtering by the
// text in the box above a table. No data is ever written into the script.
constexpr std::string_view kScript = R"JS(
(function () {
  function key(td, numeric) {
    if (numeric) { var v = td.getAttribute("data-v"); return v === null || v === "" ? null : +v; }
    return td.textContent;
  }
  function sortBy(th) {
    var table = th.closest("table"), body = table.tBodies[0];
    var column = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.classList.contains("n");
    var up = th.getAttribute("aria-sort") !== "ascending";
    Array.prototype.forEach.call(th.parentNode.children, function (h) { h.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = key(a.cells[column], numeric), y = key(b.cells[column], numeric);
      if (x === null || y === null) return x === y ? 0 : (x === null ? 1 : -1);  // nulls last
      var c = numeric ? x - y : x.localeCompare(y, undefined, {numeric: true});
      return up ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  function filter(input) {
    var table = document.getElementById(input.getAttribute("data-table"));
    var words = input.value.toLowerCase().split(/\s+/).filter(Boolean), shown = 0;
    Array.prototype.forEach.call(table.tBodies[0].rows, function (r) {
      var text = r.textContent.toLowerCase();
      var keep = words.every(function (w) { return text.indexOf(w) >= 0; });
      r.style.display = keep ? "" : "none";
      if (keep) shown++;
    });
    var count = document.getElementById(input.getAttribute("data-count"));
    if (count) count.textContent = shown + " of " + table.tBodies[0].rows.length + " rows";
  }
  document.querySelectorAll("table.data th").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });
  document.querySelectorAll("input.filter").forEach(function (input) {
    input.addEventListener("input", function () { filter(input); });
  });
  document.querySelectorAll("button.more").forEach(function (button) {
    button.addEventListener("click", function () {
      var all = document.getElementById(button.getAttribute("data-table")).classList.toggle("all");
      button.textContent = all ? "fewer columns" : button.getAttribute("data-more");
    });
  });
})();
)JS";

// The unit a column's name ends in, as the header shows it under the name ("" for none).
std::string UnitOf(std::string_view name) {
  const auto ends = [&](std::string_view suffix) { return name.ends_with(suffix); };
  const auto has = [&](std::string_view part) { return name.find(part) != std::string_view::npos; };
  if (has("_per_s")) return "per second";
  if (ends("_ms") || has("_ms_")) return "ms";
  if (ends("_us") || has("_us_")) return "\u00b5s";
  if (ends("_s") || has("_s_")) return "s";
  if (ends("_pct") || has("_pct_") || ends("_fraction")) return ends("_fraction") ? "0-1" : "%";
  if (has("gflops")) return "GFLOP/s";
  if (ends("_mib")) return "MiB";
  if (ends("_kib")) return "KiB";
  return {};
}

bool IsNumber(const Value& v) {
  return std::holds_alternative<std::int64_t>(v.data) || std::holds_alternative<double>(v.data);
}

std::string Text(const Value& v) {
  return ValueText(v, "\u2013", "yes", "no");
}

// An id for an element: the name's letters and digits, made unique on the page.
class Ids {
 public:
  std::string Make(std::string_view name) {
    std::string id = "t-";
    for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) != 0 ? c : '-';
    const int n = ++used_[id];
    return n == 1 ? id : id + "-" + std::to_string(n);
  }

 private:
  std::map<std::string, int> used_;
};

struct Page {
  std::ostream& out;
  Ids ids;
  std::vector<std::pair<std::string, std::string>> contents;  // id, title (the nav)
};

void WriteFindings(const Report& report, std::ostream& out) {
  out << "<h2 id=\"findings\">Findings</h2>\n";
  if (report.findings.empty()) {
    out << "<p>None.</p>\n";
    return;
  }
  // The first few stay on the first screen beside the verdict and the top rows; the rest fold
  // under one line that says how many.
  constexpr std::size_t kFindingsOnFirstScreen = 4;
  out << "<ul class=\"findings\">\n";
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const Finding& f = report.findings[i];
    if (i == kFindingsOnFirstScreen) {
      out << fmt::format(
          "</ul>\n<details class=\"findings\"><summary>{} more finding{}</summary>"
          "\n<ul class=\"findings\">\n",
          report.findings.size() - i, report.findings.size() - i == 1 ? "" : "s");
    }
    const std::string_view severity = SeverityName(f.severity);
    out << fmt::format(
        "<li class=\"{0}\"><span class=\"sev\">{0}</span><code>{1}</code> {2}</li>\n", severity,
        EscapeMarkup(f.code), EscapeMarkup(f.message));
  }
  out << "</ul>\n";
  if (report.findings.size() > kFindingsOnFirstScreen) out << "</details>\n";
}

// What a table's columns hold, from one pass over its rows: numbers (every non-null cell is
// one, and some cell is), and one text in every row (a column the page folds away, as the human
// table leaves it out first).
struct ColumnKinds {
  std::vector<bool> numeric;
  std::vector<bool> constant;
};

ColumnKinds KindsOf(const Table& table) {
  const std::size_t n = table.columns.size();
  std::vector<int> state(n, 0);  // 0 unknown, 1 numbers, -1 not
  std::vector<std::string> first(n);
  std::vector<bool> same(n, true);
  std::size_t rows = 0;
  ForEachRow(table, [&](const std::vector<Value>& row) {
    for (std::size_t c = 0; c < row.size() && c < n; ++c) {
      const std::string text = Text(row[c]);
      if (rows == 0) first[c] = text;
      if (text != first[c]) same[c] = false;
      if (row[c].is_null() || state[c] < 0) continue;
      state[c] = IsNumber(row[c]) ? 1 : -1;
    }
    ++rows;
  });
  ColumnKinds kinds;
  for (std::size_t c = 0; c < n; ++c) {
    kinds.numeric.push_back(state[c] > 0);
    kinds.constant.push_back(rows > 1 && same[c] && c > 0);
  }
  return kinds;
}

// A cell; `hidden` (a column the human table leaves out) is shown by the table's "all columns".
void WriteCell(const Value& v, bool numeric, bool hidden, std::ostream& out) {
  const std::string_view x = hidden ? " x" : "";
  if (v.is_null()) {
    out << (numeric ? "<td class=\"n null" : "<td class=\"null") << x
        << (numeric ? "\" data-v=\"\">" : "\">") << "\u2013</td>";
    return;
  }
  if (numeric && IsNumber(v)) {
    const double number = std::holds_alternative<double>(v.data)
                              ? std::get<double>(v.data)
                              : static_cast<double>(std::get<std::int64_t>(v.data));
    out << fmt::format("<td class=\"n{}\" data-v=\"{}\">{}</td>", x, number, EscapeMarkup(Text(v)));
    return;
  }
  out << (hidden ? "<td class=\"x\">" : "<td>") << EscapeMarkup(Text(v)) << "</td>";
}

bool HiddenIn(const Table& table, const std::string& column) {
  return std::find(table.hidden_in_table.begin(), table.hidden_in_table.end(), column) !=
         table.hidden_in_table.end();
}

// The order the page shows `table`'s columns in: the first (what a row is), then the answer
// columns (the times a table is sorted by), then the others as declared, so that a wide table's
// answers are on the first screen, not off it to the right.
std::vector<std::size_t> ColumnOrder(const Table& table) {
  std::vector<std::size_t> order;
  if (table.columns.empty()) return order;
  order.push_back(0);
  for (const std::string& answer : table.answer_columns) {
    const auto at = std::find(table.columns.begin() + 1, table.columns.end(), answer);
    if (at != table.columns.end())
      order.push_back(static_cast<std::size_t>(at - table.columns.begin()));
  }
  for (std::size_t c = 1; c < table.columns.size(); ++c) {
    if (std::find(order.begin(), order.end(), c) == order.end()) order.push_back(c);
  }
  return order;
}

void WriteTable(Page& page, const Table& table, int level) {
  if (!ShownInTable(table)) return;
  std::ostream& out = page.out;
  const std::string id = page.ids.Make(table.name);
  const std::string title = table.title.empty() ? table.name : table.title;
  page.contents.emplace_back(id, title);
  out << fmt::format("<h{0} id=\"{1}-h\">{2}</h{0}>\n", level, id, EscapeMarkup(title));
  if (!table.caption.empty()) {
    out << "<p class=\"caption\">" << EscapeMarkup(table.caption) << "</p>\n";
  }
  const std::size_t rows = RowCount(table);
  if (rows == 0) {
    out << "<p class=\"caption\">No rows.</p>\n";
    return;
  }
  out << fmt::format(
      "<div class=\"tools\"><input class=\"filter\" type=\"search\" placeholder=\"filter rows\" "
      "data-table=\"{0}\" data-count=\"{0}-count\" aria-label=\"filter {1}\">"
      "<span id=\"{0}-count\">{2} row{3}</span> (click a column's name to sort)",
      id, EscapeMarkup(table.name), rows, rows == 1 ? "" : "s");
  const ColumnKinds kinds = KindsOf(table);
  const std::vector<bool>& numeric = kinds.numeric;
  std::vector<bool> hidden;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    // An answer column (one chosen with --columns too) is always shown.
    const bool answer = std::find(table.answer_columns.begin(), table.answer_columns.end(),
                                  table.columns[c]) != table.answer_columns.end();
    hidden.push_back(!answer && (HiddenIn(table, table.columns[c]) || kinds.constant[c]));
  }
  const auto more = std::count(hidden.begin(), hidden.end(), true);
  if (more > 0) {
    const std::string label = fmt::format("all columns (+{})", more);
    out << fmt::format(
        "<button class=\"more\" type=\"button\" data-table=\"{}\" data-more=\"{}\">{}</button>", id,
        label, label);
  }
  out << "</div>\n";
  out << fmt::format("<div class=\"scroll\"><table class=\"data\" id=\"{}\" data-name=\"{}\">", id,
                     EscapeMarkup(table.name));
  const std::vector<std::size_t> order = ColumnOrder(table);
  out << "<thead><tr>";
  for (const std::size_t c : order) {
    const std::string unit = UnitOf(table.columns[c]);
    out << "<th class=\"" << (numeric[c] ? "n" : "") << (hidden[c] ? " x" : "") << "\">"
        << EscapeMarkup(table.columns[c]);
    if (!unit.empty()) out << "<small>" << EscapeMarkup(unit) << "</small>";
    out << "</th>";
  }
  out << "</tr></thead>\n<tbody>\n";
  ForEachRow(table, [&](const std::vector<Value>& row) {
    out << "<tr>";
    for (const std::size_t c : order) {
      WriteCell(c < row.size() ? row[c] : Value(), numeric[c], hidden[c], out);
    }
    out << "</tr>\n";
  });
  out << "</tbody></table></div>\n";
}

void WriteFields(const std::vector<std::pair<std::string, Value>>& fields, std::ostream& out) {
  if (fields.empty()) return;
  out << "<table class=\"fields\">\n";
  for (const auto& [key, value] : fields) {
    const std::string unit = UnitOf(key);
    out << "<tr><td>" << EscapeMarkup(key) << "</td><td>" << EscapeMarkup(Text(value));
    if (!unit.empty() && IsNumber(value)) out << ' ' << EscapeMarkup(unit);
    out << "</td></tr>\n";
  }
  out << "</table>\n";
}

void WriteSection(Page& page, const Section& section, int level) {
  const std::string id = page.ids.Make(section.name);
  const std::string title = section.title.empty() ? section.name : section.title;
  if (level == 2) page.contents.emplace_back(id, title);
  page.out << fmt::format("<section><h{0} id=\"{1}-h\">{2}</h{0}>\n", level, id,
                          EscapeMarkup(title));
  if (section.fields.empty() && section.sections.empty() && section.tables.empty()) {
    page.out << "<p class=\"caption\">None.</p>\n";  // a map keyed by data, with no key
  }
  WriteFields(section.ShownFields(), page.out);
  for (const Section& s : section.sections) WriteSection(page, s, std::min(level + 1, 4));
  for (const Table& t : section.tables) WriteTable(page, t, std::min(level + 1, 4));
  page.out << "</section>\n";
}

// The stacks (stack;frames -> samples) of a report's `stacks` table.
std::map<std::string, std::uint64_t> Folded(const Table& table) {
  std::map<std::string, std::uint64_t> folded;
  const auto stack = std::find(table.columns.begin(), table.columns.end(), "stack");
  const auto samples = std::find(table.columns.begin(), table.columns.end(), "samples");
  if (stack == table.columns.end() || samples == table.columns.end()) return folded;
  const auto s = static_cast<std::size_t>(stack - table.columns.begin());
  const auto n = static_cast<std::size_t>(samples - table.columns.begin());
  ForEachRow(table, [&](const std::vector<Value>& row) {
    const auto* text = std::get_if<std::string>(&row[s].data);
    const auto* count = std::get_if<std::int64_t>(&row[n].data);
    if (text != nullptr && count != nullptr && *count > 0) {
      folded[*text] += static_cast<std::uint64_t>(*count);
    }
  });
  return folded;
}

// A srcdoc frame is an HTML document: without its body's margin, and as a block (no line's
// descent below it), the SVG is the frame's width and, by its viewBox, exactly its height.
constexpr std::string_view kFrameStyle =
    "<style>html, body { margin: 0; } svg { display: block; }</style>";

// The flame graph in a frame of its own (its script, ids and zoom stay apart from the page's),
// and its stacks bottom-up: which leaves, called from where.
void WriteStacks(Page& page, const Table& table) {
  const std::map<std::string, std::uint64_t> folded = Folded(table);
  if (folded.empty()) return;
  FlameGraphOptions options;
  if (!table.title.empty()) options.title = table.title;
  options.subtitle = table.caption;
  options.fill_container = true;  // the page's whole width, its text scaled with it
  std::ostringstream svg;
  WriteFlameGraphSvg(folded, options, svg);
  const std::string document = svg.str();
  const std::size_t at = document.find("viewBox=\"0 0 ");
  int height = 600;
  if (at != std::string::npos) {
    const std::size_t space = document.find(' ', at + 14);
    if (space != std::string::npos) height = std::atoi(document.c_str() + space + 1);
  }
  page.contents.emplace_back("flame", "Flame graph");
  page.out << "<h2 id=\"flame\">Flame graph</h2>\n<p class=\"caption\">Hover a frame for its "
              "samples, click to zoom, Search (or Ctrl-F inside it) to highlight.</p>\n";
  // srcdoc is an attribute: the SVG's own markup is escaped once more, so nothing in it can end
  // the attribute; the frame parses it back.
  // The frame's content box keeps the drawing's aspect ratio at the page's width.
  page.out << fmt::format(
                  "<iframe class=\"flame\" title=\"flame graph\" style=\"aspect-ratio: {} / {}\" "
                  "srcdoc=\"",
                  options.width, height)
           << EscapeMarkup(kFrameStyle) << EscapeMarkup(document) << "\"></iframe>\n";

  std::uint64_t total = 0;
  for (const auto& [stack, samples] : folded) total += samples;
  Table leaves{.name = "by_leaf",
               .title = "Bottom-up: samples by leaf frame and its caller",
               .columns = {"leaf", "caller", "samples", "samples_pct"}};
  for (const LeafCall& call : BottomUp(folded)) {
    leaves.rows.push_back({call.leaf, call.caller.empty() ? Value() : Value(call.caller),
                           call.samples,
                           Value(100.0 * static_cast<double>(call.samples) /
                                     static_cast<double>(std::max<std::uint64_t>(total, 1)),
                                 2)});
  }
  WriteTable(page, leaves, 2);
}

}  // namespace

// The table the first screen shows: the primary one where the page shows it with rows, else the
// first top-level table it shows with rows (the view that stands for a primary table left out of
// the human table; profile's classes where no JIT kernel was sampled).
const Table* FirstScreenTable(const Report& report) {
  const auto has_rows = [](const Table& t) { return ShownInTable(t) && RowCount(t) > 0; };
  const Table* primary = report.Primary();
  if (primary != nullptr && has_rows(*primary)) return primary;
  for (const Table& t : report.tables) {
    if (has_rows(t)) return &t;
  }
  return primary != nullptr && ShownInTable(*primary) ? primary : nullptr;
}

void PrintHtml(const Report& report, std::ostream& out) {
  std::ostringstream body;
  Page content{body};
  WriteFindings(report, body);
  // The first screen answers: the verdict (the headline), the findings, then the top rows of the
  // primary table with their times; the charts and the other sections follow.
  const Table* primary = FirstScreenTable(report);
  if (primary != nullptr) WriteTable(content, *primary, 2);
  bool charts_started = false;
  for (const Chart& chart : report.charts) {
    std::ostringstream svg;
    if (!DrawChart(report, chart, svg)) continue;
    if (!charts_started) {
      body << "<h2 id=\"charts\">Charts</h2>\n";
      content.contents.emplace_back("charts", "Charts");
      charts_started = true;
    }
    body << "<figure data-table=\"" << EscapeMarkup(chart.table) << "\""
         << (chart.facet.empty() ? "" : " class=\"multiples\"") << ">" << svg.str()
         << "</figure>\n";
  }
  if (const Table* stacks = report.FindTable(kStacksTable)) WriteStacks(content, *stacks);
  for (const Section& s : report.sections) WriteSection(content, s, 2);
  for (const Table& t : report.tables) {
    if (&t != primary) WriteTable(content, t, 2);
  }

  const std::string title = "dlcheck " + report.command;
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         // Nothing from a network, no plug-in, no frame from elsewhere: the page is its own.
         "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
         "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:; "
         "frame-src 'self' about:\">\n"
      << "<title>" << EscapeMarkup(title) << "</title>\n<style>" << kStyle << "</style></head>\n"
      << "<body>\n<h1>" << EscapeMarkup(title) << "</h1>\n";
  if (!report.headline.empty()) {
    out << "<p class=\"headline\">" << EscapeMarkup(report.headline) << "</p>\n";
  }
  if (!report.apply_line.empty()) {
    out << "<pre class=\"headline\">" << EscapeMarkup(report.apply_line) << "</pre>\n";
  }
  out << "<nav><a href=\"#findings\">Findings</a>";
  for (const auto& [id, name] : content.contents) {
    const bool heading = id == "charts" || id == "flame";
    // A long title is cut in the bar of links (the heading has it whole).
    const std::string shown =
        name.size() > 48 ? name.substr(0, name.find_last_of(" (", 44)) + " \u2026" : name;
    out << fmt::format("<a href=\"#{}{}\">{}</a>", id, heading ? "" : "-h", EscapeMarkup(shown));
  }
  out << "</nav>\n" << body.str();
  out << "<footer>Written by dlcheck; self-contained: no file or network is read when it is "
         "opened.</footer>\n<script>"
      << kScript << "</script>\n</body></html>\n";
}

namespace {

// A streamed table on a page: the page's findings come first and are known only at the end, so
// the rows are kept (the first kMaxPageRows) and the page is printed whole by Finish.
class HtmlStream : public RowStream {
 public:
  HtmlStream(std::ostream& out, const Report& head, const Table& stream)
      : out_(out), page_(head), table_(stream) {
    table_.rows.clear();
  }
  void Row(const std::vector<Value>& row) override {
    ++rows_;
    if (table_.rows.size() < kMaxPageRows) table_.rows.push_back(row);
  }
  void Finish(const Report& tail) override {
    if (rows_ > table_.rows.size()) {
      table_.caption = fmt::format(
          "The first {} of {} rows: a page holds no more; --format csv or json has them all.",
          table_.rows.size(), rows_);
    }
    page_.tables.insert(page_.tables.begin(), std::move(table_));
    page_.sections.insert(page_.sections.end(), tail.sections.begin(), tail.sections.end());
    page_.tables.insert(page_.tables.end(), tail.tables.begin(), tail.tables.end());
    page_.findings.insert(page_.findings.end(), tail.findings.begin(), tail.findings.end());
    if (page_.headline.empty()) page_.headline = tail.headline;
    PrintHtml(page_, out_);
    out_.flush();
  }

 private:
  std::ostream& out_;
  Report page_;
  Table table_;
  std::size_t rows_ = 0;
};

}  // namespace

std::unique_ptr<RowStream> StartHtmlStream(std::ostream& out, const Report& head,
                                           const Table& stream) {
  return std::make_unique<HtmlStream>(out, head, stream);
}

}  // namespace dlcheck::report
