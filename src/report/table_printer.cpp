// SPDX-License-Identifier: Apache-2.0
// The human table: the verdict, the findings, then section headings, aligned key/value fields
// and aligned tables.
//
//   oneDNN ran 17 primitives: 1204 executions, 41.2 ms; 1 warning: scalar-fallback
//
//   Findings
//     warning  libcpuid 0.6.2 reports no AVX-512, but CPUID leaf 7 reports ...
//
//   CPU
//     vendor             AuthenticAMD
//     microarchitecture  Zen 5
//
//   Features
//     feature   cpuid  os   libcpuid  kernel  usable
//     avx512f   yes    yes  no        yes     yes
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <span>

#include "report/printer.h"
#include "report/safe_text.h"
#include "report/table_layout.h"

namespace dlcheck::report {
namespace {

constexpr std::string_view kNull = "-";
constexpr std::size_t kGap = 2;               // spaces between columns
constexpr std::size_t kMinTextColumn = 10;    // a text column is cut, but not narrower than this
constexpr std::size_t kMinAnswerColumn = 24;  // nor an answer column narrower than this
constexpr std::size_t kMinFirstColumn = 16;   // nor the first column (what a row is)
constexpr std::size_t kRoomyTextColumn = 32;  // columns are left out before text is cut to this
constexpr std::size_t kMaxWordColumn = 16;    // a header's longer word may be split inside
constexpr std::size_t kMinWrapWidth = 20;     // findings and fields wrap, but not narrower
constexpr std::size_t kFoldIndent = 4;        // the later lines of a row too wide to fit one

// Text a terminal shows as it is (never an escape sequence from a log acting on it).
std::string Visible(std::string_view text) {
  return VisibleText(text);
}

std::string Cell(const Value& v) {
  return Visible(ValueText(v, kNull, "yes", "no"));
}

std::string Heading(const std::string& title, const std::string& name) {
  return title.empty() ? name : title;
}

std::string Pad(std::size_t n) {
  return std::string(n, ' ');
}

// `text` wrapped at word boundaries into what is left of `width` after `indent` columns (at
// least kMinWrapWidth); the first line continues what is already printed on the current line,
// the others start at `indent`.
void PrintWrapped(std::string_view text, std::size_t indent, std::size_t width, std::ostream& out) {
  const std::size_t room =
      width == 0 ? 0 : std::max(kMinWrapWidth, width - std::min(width, indent));
  const std::vector<std::string> lines = WrapText(text, room, WrapAt::kSpaces);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i > 0) out << Pad(indent);
    out << lines[i] << '\n';
  }
}

void PrintFields(const std::vector<std::pair<std::string, Value>>& fields, std::size_t indent,
                 std::size_t width, std::ostream& out) {
  std::size_t key_width = 0;
  for (const auto& [key, value] : fields) key_width = std::max(key_width, DisplayWidth(key));
  for (const auto& [key, value] : fields) {
    out << Pad(indent) << key << Pad(key_width - DisplayWidth(key) + kGap);
    PrintWrapped(Cell(value), indent + key_width + kGap, width, out);
  }
}

bool Hidden(const Table& table, const std::string& column) {
  return std::find(table.hidden_in_table.begin(), table.hidden_in_table.end(), column) !=
         table.hidden_in_table.end();
}

// Per column, the short spelling it is shown in (Table::short_forms), or nullptr: whole. Empty
// when no column is shortened.
using Shortened = std::vector<ShortForm>;

// Each column's short spelling where the table declares one (Table::short_forms), else nullptr.
Shortened ShortFormsByColumn(const Table& table) {
  Shortened forms(table.columns.size(), nullptr);
  for (const auto& [name, form] : table.short_forms) {
    const auto at = std::find(table.columns.begin(), table.columns.end(), name);
    if (at != table.columns.end())
      forms[static_cast<std::size_t>(at - table.columns.begin())] = form;
  }
  return forms;
}

// A row's cell texts as the human table shows them, one per column ("" past a short row);
// with `only`, just those columns' (the others stay empty); with `shortened`, those columns in
// their short spelling.
std::vector<std::string> RowTexts(const Table& table, const std::vector<Value>& row,
                                  const std::vector<std::size_t>* only = nullptr,
                                  const Shortened* shortened = nullptr) {
  std::vector<std::string> texts(table.columns.size());
  const auto text = [&](std::size_t c) {
    if (c >= row.size()) return std::string();
    std::string cell = Cell(row[c]);
    if (shortened != nullptr && c < shortened->size() && (*shortened)[c] != nullptr) {
      return std::string((*shortened)[c](cell));
    }
    return cell;
  };
  if (only != nullptr) {
    for (std::size_t c : *only) texts[c] = text(c);
    return texts;
  }
  for (std::size_t c = 0; c < texts.size(); ++c) texts[c] = text(c);
  return texts;
}

std::size_t Mix(std::size_t seed, std::size_t hash) {
  return seed ^ (hash + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

std::size_t Combine(std::size_t seed, std::string_view text) {
  return Mix(seed, std::hash<std::string_view>{}(text));
}

// The human view of a table: what each column's cells are like, measured in one pass over the
// rows (which are not kept: a generated table is read again to print), and which columns are
// shown.
struct Grid {
  std::vector<std::string> header;
  std::vector<bool> visible;  ///< not hidden in the table
  /// Declared to make a row unique (Table::identity_columns): its cells name the row whatever
  /// their type (a rank, a run number), where other numbers only measure it.
  std::vector<bool> names_row;
  std::size_t row_count = 0;
  std::vector<bool> numeric;        ///< every non-null cell a number or a yes/no: never wrapped
  std::vector<bool> has_number;     ///< some cell is a number or a yes/no
  std::vector<std::size_t> widest;  ///< display width of the widest cell
  std::vector<std::string> first;   ///< the first row's text
  std::vector<bool> same;           ///< every row's text is `first`
  /// Each row's hash of its visible text cells and identity cells other than "" and "-" (with
  /// their column): rows alike in every visible naming column hash alike, whichever columns turn
  /// out to hold only numbers (cells left out only make more rows hash alike, which a later pass
  /// tells apart).
  std::vector<std::size_t> row_keys;
  std::vector<std::size_t> shown;
  std::vector<std::size_t> telling;  ///< hidden columns shown to tell look-alike rows apart
  Shortened shortened;               ///< columns shown in their short spelling
};

void MeasureRow(const std::vector<Value>& row, const std::vector<std::string>& texts, Grid& grid) {
  std::size_t key = 0;
  for (std::size_t c = 0; c < texts.size(); ++c) {
    const Value* cell = c < row.size() ? &row[c] : nullptr;
    const bool text = cell != nullptr && cell->is_text();
    if (text) {
      grid.numeric[c] = false;
    } else if (cell != nullptr && !cell->is_null()) {
      grid.has_number[c] = true;
    }
    if ((text || grid.names_row[c]) && grid.visible[c] && !texts[c].empty() && texts[c] != kNull)
      key = Combine(Mix(key, c), texts[c]);
    grid.widest[c] = std::max(grid.widest[c], DisplayWidth(texts[c]));
    if (grid.row_count == 0) {
      grid.first[c] = texts[c];
    } else if (grid.same[c] && texts[c] != grid.first[c]) {
      grid.same[c] = false;
    }
  }
  grid.row_keys.push_back(key);
  ++grid.row_count;
}

// Reads every row once.
Grid MeasureGrid(const Table& table) {
  const std::size_t n = table.columns.size();
  Grid grid{.header = table.columns,
            .visible = std::vector<bool>(n),
            .names_row = std::vector<bool>(n),
            .numeric = std::vector<bool>(n, true),
            .has_number = std::vector<bool>(n, false),
            .widest = std::vector<std::size_t>(n, 0),
            .first = std::vector<std::string>(n),
            .same = std::vector<bool>(n, true)};
  for (std::size_t c = 0; c < n; ++c) {
    grid.visible[c] = !Hidden(table, table.columns[c]);
    grid.names_row[c] = std::find(table.identity_columns.begin(), table.identity_columns.end(),
                                  table.columns[c]) != table.identity_columns.end();
  }
  grid.row_keys.reserve(RowCount(table));
  ForEachRow(table,
             [&](const std::vector<Value>& row) { MeasureRow(row, RowTexts(table, row), grid); });
  return grid;
}

// Whether column `c` names a row: text, or declared to make a row unique.
bool NamesRow(const Grid& grid, std::size_t c) {
  return !grid.numeric[c] || grid.names_row[c];
}

// Whether two rows may look the same in the visible naming columns, from the row keys (which it
// uses up). A visible column of both text and numbers (whose numbers the keys leave out) may.
bool VisibleKeysRepeat(Grid& grid) {
  for (std::size_t c = 0; c < grid.visible.size(); ++c) {
    if (grid.visible[c] && !grid.numeric[c] && grid.has_number[c] && !grid.names_row[c]) {
      return true;
    }
  }
  std::vector<std::size_t> keys = std::move(grid.row_keys);
  std::sort(keys.begin(), keys.end());
  return std::adjacent_find(keys.begin(), keys.end()) != keys.end();
}

// A hash of what a row is, as the shown text and identity columns say it (other numbers measure
// a row, they do not name it), and of its text in one more column: 16 bytes a row, where the rows'
// texts would be kilobytes.
struct RowHashes {
  std::size_t key = 0;
  std::size_t value = 0;
  auto operator<=>(const RowHashes&) const = default;
};

// Each row's hashes (key over the `show` text columns, value of column `c`), sorted.
std::vector<RowHashes> SortedRowHashes(const Table& table, const Grid& grid,
                                       const std::vector<bool>& show, std::size_t c) {
  std::vector<RowHashes> hashes;
  hashes.reserve(grid.row_count);
  ForEachRow(table, [&](const std::vector<Value>& row) {
    const std::vector<std::string> texts = RowTexts(table, row, nullptr, &grid.shortened);
    RowHashes h;
    for (std::size_t k = 0; k < texts.size(); ++k) {
      if (show[k] && NamesRow(grid, k)) h.key = Combine(h.key, texts[k]);
    }
    h.value = Combine(0, texts[c]);
    hashes.push_back(h);
  });
  std::sort(hashes.begin(), hashes.end());
  return hashes;
}

// Whether column `c` differs between two rows that look the same in the `show` text columns
// (told by their hashes: two different texts that hash alike are taken as alike). Sets
// `keys_repeat` to whether any two rows look the same at all.
bool TellsApart(const Table& table, const Grid& grid, const std::vector<bool>& show, std::size_t c,
                bool& keys_repeat) {
  const std::vector<RowHashes> hashes = SortedRowHashes(table, grid, show, c);
  keys_repeat = false;
  for (std::size_t i = 1; i < hashes.size(); ++i) {
    if (hashes[i].key != hashes[i - 1].key) continue;
    keys_repeat = true;
    if (hashes[i].value != hashes[i - 1].value) return true;
  }
  return false;
}

// The table's shown columns, plus each hidden one that tells look-alike rows apart: when some
// rows look alike, a pass over the rows for each hidden text column that is not the same in
// every row, until one finds no two rows that look the same (then no later one can tell any
// apart).
void ChooseShown(const Table& table, Grid& grid) {
  std::vector<bool> show = grid.visible;
  bool keys_repeat = VisibleKeysRepeat(grid);
  for (std::size_t c = 0; c < show.size() && keys_repeat; ++c) {
    if (show[c] || grid.numeric[c] || grid.same[c]) continue;
    if (TellsApart(table, grid, show, c, keys_repeat)) {
      show[c] = true;
      grid.telling.push_back(c);
      keys_repeat = true;
    }
  }
  for (std::size_t c = 0; c < show.size(); ++c) {
    if (show[c]) grid.shown.push_back(c);
  }
}

// The text that every row holds in column `c`, or nullptr when rows differ (or there are none).
const std::string* SameInEveryRow(const Grid& grid, std::size_t c) {
  if (grid.row_count < 2 || !grid.same[c]) return nullptr;
  return &grid.first[c];
}

struct Fitted {
  std::vector<std::size_t> columns;  ///< indexes into the grid, in print order
  std::vector<std::size_t> widths;
  std::vector<Keep> keeps;                    ///< which part of each column's cut cells is kept
  std::vector<std::string> left_out;          ///< "engine (cpu in every row)", "gflops"
  std::vector<std::size_t> left_out_columns;  ///< the grid index of each of `left_out`
  /// Where each screen line of a row starts, as indexes into `columns`: {0} for a row on one
  /// line; more for a row folded because its columns do not fit even cut (a --columns list).
  std::vector<std::size_t> line_starts{0};
};

bool Contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::size_t NaturalWidth(const Grid& grid, std::size_t c) {
  return std::max(DisplayWidth(grid.header[c]), grid.widest[c]);
}

// The narrowest the header fits in two lines: a header may wrap once, after `_` or another
// break chance (`exec_ms_` / `total`), a cell never.
std::size_t HeaderWord(const Grid& grid, std::size_t c) {
  const std::string& header = grid.header[c];
  std::size_t best = DisplayWidth(header);
  for (std::size_t at = 1; at < header.size(); ++at) {
    if (std::string_view(",:;/_+ ").find(header[at - 1]) == std::string_view::npos) continue;
    const std::string_view first = std::string_view(header).substr(0, at);
    const std::string_view rest = std::string_view(header).substr(at);
    best = std::min(best, std::max(DisplayWidth(first), DisplayWidth(rest)));
  }
  return std::min(best, kMaxWordColumn);
}

// The width that shows every cell whole.
std::size_t WholeWidth(const Grid& grid, std::size_t c) {
  return std::max(grid.widest[c], HeaderWord(grid, c));
}

// The narrowest a column may get: a number's width (never cut), or a text column cut with `…`
// to kMinTextColumn (kMinAnswerColumn for an answer), never more than the column needs; in
// both, the header's longest word.
std::size_t MinimumWidth(const Grid& grid, std::size_t c, bool answer) {
  if (grid.numeric[c]) return WholeWidth(grid, c);
  const std::size_t text = std::min(grid.widest[c], answer ? kMinAnswerColumn : kMinTextColumn);
  return std::max(text, HeaderWord(grid, c));
}

std::size_t Needed(const std::vector<std::size_t>& widths, std::span<const std::size_t> columns) {
  std::size_t total = 0;
  for (std::size_t c : columns) total += widths[c];
  return total + kGap * (columns.empty() ? 0 : columns.size() - 1);
}

void LeaveOutColumn(Fitted& fit, std::size_t at, std::string note) {
  fit.left_out.push_back(std::move(note));
  fit.left_out_columns.push_back(fit.columns[at]);
  fit.columns.erase(fit.columns.begin() + static_cast<std::ptrdiff_t>(at));
}

// What the human table needs to know of a column to leave it out.
struct ColumnPriority {
  std::vector<bool> answer;    ///< never left out
  std::vector<bool> identity;  ///< makes a row unique (declared so, or shown to tell rows apart)
  std::vector<std::size_t> whole;
  std::vector<std::size_t> minimum;
};

// How many different rows the naming columns of `columns` show (by hash: 16 bytes a row).
std::size_t DistinctRows(const Table& table, const Grid& grid,
                         const std::vector<std::size_t>& columns) {
  std::vector<std::size_t> keys;
  keys.reserve(grid.row_count);
  ForEachRow(table, [&](const std::vector<Value>& row) {
    const std::vector<std::string> texts = RowTexts(table, row, &columns, &grid.shortened);
    std::size_t key = 0;
    for (std::size_t c : columns) {
      if (NamesRow(grid, c)) key = Combine(Mix(key, c), texts[c]);
    }
    keys.push_back(key);
  });
  std::sort(keys.begin(), keys.end());
  return static_cast<std::size_t>(std::unique(keys.begin(), keys.end()) - keys.begin());
}

// Leaves out columns, lowest value first, until every row fits one line, never one without which
// two rows would print alike (a text column that tells them apart), nor the first column (what a
// row is) or an answer: those with one value in every row (the note says the value) and then the
// table's `leave_out_first`, in its order, while the rest do not fit whole; then the rightmost
// details while the columns that make a row unique do not fit whole (up to kRoomyTextColumn) and
// the rest cut, then `more_details` further ones (when cut cells made rows look alike); then the
// rightmost of the rest while they do not fit even cut.
void LeaveOut(const Table& table, const Grid& grid, const ColumnPriority& p, std::size_t budget,
              std::size_t more_details, Fitted& fit) {
  for (std::size_t i = fit.columns.size(); i-- > 0 && Needed(p.whole, fit.columns) > budget;) {
    if (p.answer[fit.columns[i]]) continue;
    if (const std::string* same = SameInEveryRow(grid, fit.columns[i])) {
      LeaveOutColumn(fit, i, grid.header[fit.columns[i]] + " (" + *same + " in every row)");
    }
  }
  std::optional<std::size_t> apart;  // how many different rows the columns show
  const auto stays_apart = [&](std::size_t i) {
    if (!NamesRow(grid, fit.columns[i])) return true;
    if (!apart) apart = DistinctRows(table, grid, fit.columns);
    std::vector<std::size_t> without = fit.columns;
    without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
    return DistinctRows(table, grid, without) == *apart;
  };
  const auto detail = [&](std::size_t c) { return !p.answer[c] && !p.identity[c]; };
  for (const std::string& name : table.leave_out_first) {
    if (Needed(p.whole, fit.columns) <= budget) break;
    for (std::size_t i = 1; i < fit.columns.size(); ++i) {
      const std::size_t c = fit.columns[i];
      if (grid.header[c] == name && detail(c) && stays_apart(i)) LeaveOutColumn(fit, i, name);
    }
  }
  std::vector<std::size_t> identity_whole = p.minimum;
  for (std::size_t c : fit.columns) {
    if (p.identity[c]) identity_whole[c] = p.whole[c];
  }
  for (std::size_t i = fit.columns.size(); i-- > 1;) {
    const std::size_t c = fit.columns[i];
    if (!detail(c)) continue;
    const bool must = Needed(identity_whole, fit.columns) > budget;
    if ((must || more_details > 0) && stays_apart(i)) {
      if (!must) --more_details;
      LeaveOutColumn(fit, i, grid.header[c]);
    }
  }
  for (std::size_t i = fit.columns.size(); i-- > 1 && Needed(p.minimum, fit.columns) > budget;) {
    if (!p.answer[fit.columns[i]] && stays_apart(i)) {
      LeaveOutColumn(fit, i, grid.header[fit.columns[i]]);
    }
  }
}

// Where a row's screen lines start when its columns do not fit one line even cut: a new line
// (indented kFoldIndent more) before each column that would overflow the one it is on.
std::vector<std::size_t> FoldLines(const Fitted& fit, const std::vector<std::size_t>& minimum,
                                   std::size_t budget) {
  std::vector<std::size_t> starts{0};
  std::size_t used = 0;
  for (std::size_t i = 0; i < fit.columns.size(); ++i) {
    const std::size_t room = starts.size() == 1 ? budget : budget - std::min(budget, kFoldIndent);
    const std::size_t w = minimum[fit.columns[i]];
    if (i > starts.back() && used + kGap + w > room) {
      starts.push_back(i);
      used = w;
    } else {
      used += (i > starts.back() ? kGap : 0) + w;
    }
  }
  return starts;
}

// The columns of screen line `line` of a row, as a range of `fit.columns` indexes.
std::pair<std::size_t, std::size_t> LineRange(const Fitted& fit, std::size_t line) {
  const std::size_t end =
      line + 1 < fit.line_starts.size() ? fit.line_starts[line + 1] : fit.columns.size();
  return {fit.line_starts[line], end};
}

std::size_t LineIndent(std::size_t indent, std::size_t line) {
  return line == 0 ? indent : indent + kFoldIndent;
}

// How FitGrid fits: `more_details` detail columns left out beyond those that must go; and the
// least width of some columns (grid index -> width; at most a folded line's room): where a
// narrower cut would make rows print alike, so that a row folds onto several lines instead.
struct FitRequest {
  std::size_t more_details = 0;
  std::map<std::size_t, std::size_t> least_width;
};

Fitted FitGrid(const Table& table, const Grid& grid, std::size_t indent, std::size_t width,
               const FitRequest& request) {
  Fitted fit{.columns = grid.shown};
  if (width == 0) {
    for (std::size_t c : fit.columns) fit.widths.push_back(NaturalWidth(grid, c));
    fit.keeps.assign(fit.columns.size(), Keep::kStart);
    return fit;
  }
  const std::size_t budget = width > indent + 1 ? width - indent : 1;
  const std::size_t n = grid.header.size();
  ColumnPriority priority{.answer = std::vector<bool>(n, false),
                          .identity = std::vector<bool>(n, false),
                          .whole = std::vector<std::size_t>(n, 0),
                          .minimum = std::vector<std::size_t>(n, 0)};
  for (std::size_t c : grid.shown) {
    priority.answer[c] = Contains(table.answer_columns, grid.header[c]);
    priority.identity[c] =
        Contains(table.identity_columns, grid.header[c]) ||
        std::find(grid.telling.begin(), grid.telling.end(), c) != grid.telling.end();
    priority.whole[c] = WholeWidth(grid, c);
    priority.minimum[c] = MinimumWidth(grid, c, priority.answer[c]);
    if (const auto least = request.least_width.find(c); least != request.least_width.end()) {
      priority.minimum[c] = std::max(
          priority.minimum[c], std::min(least->second, budget - std::min(budget, kFoldIndent)));
    }
  }
  // The first column that tells rows apart says what a row is: cut last and least.
  const auto first = std::find_if(grid.shown.begin(), grid.shown.end(), [&](std::size_t c) {
    return SameInEveryRow(grid, c) == nullptr;
  });
  if (first != grid.shown.end() && !grid.numeric[*first]) {
    priority.minimum[*first] =
        std::max(priority.minimum[*first], std::min(grid.widest[*first], kMinFirstColumn));
  }
  // One long text column (a list of features) is not worth leaving out every other column for:
  // columns go while the rest do not fit at kRoomyTextColumn, then they are cut.
  for (std::size_t c : grid.shown) {
    if (!grid.numeric[c]) {
      priority.whole[c] =
          std::max(priority.minimum[c], std::min(priority.whole[c], kRoomyTextColumn));
    }
  }
  LeaveOut(table, grid, priority, budget, request.more_details, fit);
  fit.line_starts = FoldLines(fit, priority.minimum, budget);
  for (std::size_t line = 0; line < fit.line_starts.size(); ++line) {
    const auto [begin, end] = LineRange(fit, line);
    std::vector<std::size_t> natural;
    std::vector<std::size_t> whole;
    std::vector<std::size_t> floor;
    for (std::size_t i = begin; i < end; ++i) {
      const std::size_t c = fit.columns[i];
      natural.push_back(NaturalWidth(grid, c));
      whole.push_back(WholeWidth(grid, c));
      floor.push_back(priority.minimum[c]);
    }
    const std::size_t room = budget - std::min(budget, LineIndent(0, line));
    // Headers wrap (after `_`) before any cell is cut.
    for (std::size_t w : FitColumns(FitColumns(natural, whole, kGap, room), floor, kGap, room)) {
      fit.widths.push_back(w);
    }
  }
  fit.keeps.assign(fit.columns.size(), Keep::kStart);
  return fit;
}

// In order of preference: a cut in the middle keeps a name's start and its distinguishing end
// (`brgemm_…avx512_core`, `backward_…data`), where a cut at the end would lose the ISA or the
// pass.
constexpr std::array kKeeps = {Keep::kBothEnds, Keep::kStart, Keep::kEnd};

// How many different texts column `c` shows cut to `width`, for each of kKeeps, and whole (the
// last). One pass over the rows.
std::array<std::size_t, kKeeps.size() + 1> DistinctCuts(const Table& table, const Grid& grid,
                                                        std::size_t c, std::size_t width) {
  std::array<std::vector<std::size_t>, kKeeps.size() + 1> seen;
  const std::vector<std::size_t> only = {c};
  ForEachRow(table, [&](const std::vector<Value>& row) {
    const std::string text = RowTexts(table, row, &only, &grid.shortened)[c];
    for (std::size_t m = 0; m < kKeeps.size(); ++m) {
      seen[m].push_back(Combine(0, Truncate(text, width, kKeeps[m])));
    }
    seen[kKeeps.size()].push_back(Combine(0, text));
  });
  std::array<std::size_t, kKeeps.size() + 1> counts{};
  for (std::size_t m = 0; m < seen.size(); ++m) {
    std::sort(seen[m].begin(), seen[m].end());
    counts[m] =
        static_cast<std::size_t>(std::unique(seen[m].begin(), seen[m].end()) - seen[m].begin());
  }
  return counts;
}

// For each column whose cells are cut, the part of them to keep: the one that leaves the most
// rows different (both ends when they are as good: `backward_…data`; the end when the rows share
// their start: `…ic32oc64_ih16`). Returns the columns (grid indexes) whose cut still merges
// texts.
std::vector<std::size_t> ChooseKeeps(const Table& table, const Grid& grid, Fitted& fit) {
  std::vector<std::size_t> lossy;
  for (std::size_t i = 0; i < fit.columns.size(); ++i) {
    const std::size_t c = fit.columns[i];
    if (grid.numeric[c] || grid.widest[c] <= fit.widths[i]) continue;
    const auto counts = DistinctCuts(table, grid, c, fit.widths[i]);
    std::size_t best = 0;
    for (std::size_t m = 1; m < kKeeps.size(); ++m) {
      if (counts[m] > counts[best]) best = m;
    }
    fit.keeps[i] = kKeeps[best];
    if (counts[best] < counts[kKeeps.size()]) lossy.push_back(c);
  }
  return lossy;
}

// The least width at which column `c`'s cut cells stay as different as its whole ones, from
// `from` (a cut keeping the best part; its widest cell at most).
std::size_t LosslessWidth(const Table& table, const Grid& grid, std::size_t c, std::size_t from) {
  for (std::size_t width = from + 1; width < grid.widest[c]; ++width) {
    const auto counts = DistinctCuts(table, grid, c, width);
    if (*std::max_element(counts.begin(), counts.end() - 1) == counts.back()) return width;
  }
  return grid.widest[c];
}

// Whether two rows that differ in the shown text columns print the same words (their cells cut
// alike), by their hashes.
bool CutRowsLookAlike(const Table& table, const Grid& grid, const Fitted& fit) {
  std::vector<RowHashes> hashes;  // key: as printed; value: whole
  hashes.reserve(grid.row_count);
  ForEachRow(table, [&](const std::vector<Value>& row) {
    const std::vector<std::string> texts = RowTexts(table, row, &fit.columns, &grid.shortened);
    RowHashes h;
    for (std::size_t i = 0; i < fit.columns.size(); ++i) {
      const std::size_t c = fit.columns[i];
      if (grid.numeric[c]) continue;
      h.key = Combine(Mix(h.key, c), Truncate(texts[c], fit.widths[i], fit.keeps[i]));
      h.value = Combine(Mix(h.value, c), texts[c]);
    }
    hashes.push_back(h);
  });
  std::sort(hashes.begin(), hashes.end());
  for (std::size_t i = 1; i < hashes.size(); ++i) {
    if (hashes[i].key == hashes[i - 1].key && hashes[i].value != hashes[i - 1].value) return true;
  }
  return false;
}

// The fitted table: columns left out and cut so that rows that differ print differently, leaving
// out one more detail column (widening the rest) while cut cells still make rows look alike;
// when none is left to give room, rows fold onto several lines with their text whole enough.
Fitted FitRows(const Table& table, const Grid& grid, std::size_t indent, std::size_t width) {
  Fitted fit = FitGrid(table, grid, indent, width, {});
  if (width == 0) return fit;
  std::vector<std::size_t> lossy;
  for (std::size_t more = 1;; ++more) {
    lossy = ChooseKeeps(table, grid, fit);
    if (!CutRowsLookAlike(table, grid, fit)) return fit;
    Fitted wider = FitGrid(table, grid, indent, width, {.more_details = more});
    if (wider.columns.size() == fit.columns.size()) break;  // no detail left to give room
    fit = std::move(wider);
  }
  FitRequest fold;
  for (std::size_t c : lossy) {
    const auto at = std::find(fit.columns.begin(), fit.columns.end(), c) - fit.columns.begin();
    fold.least_width[c] = LosslessWidth(table, grid, c, fit.widths[static_cast<std::size_t>(at)]);
  }
  Fitted folded = FitGrid(table, grid, indent, width, fold);
  ChooseKeeps(table, grid, folded);
  return folded;
}

// Whether `fit` cuts a cell or leaves a column out: the table is narrower than its rows.
bool Narrowed(const Grid& grid, const Fitted& fit) {
  if (!fit.left_out.empty()) return true;
  for (std::size_t i = 0; i < fit.columns.size(); ++i) {
    if (fit.widths[i] < grid.widest[fit.columns[i]]) return true;
  }
  return false;
}

// In a table that `fit` narrows, shows the columns that have a short spelling
// (Table::short_forms) in it, which gives the other columns room and keeps `backward_data` and
// `backward_weights` apart where a cut would print `backward_…` for both, and measures them
// again (one pass over the rows). Returns whether any was: the table is then fitted again.
bool ShortenNarrowedColumns(const Table& table, const Fitted& fit, Grid& grid) {
  if (table.short_forms.empty() || !Narrowed(grid, fit)) return false;
  grid.shortened = ShortFormsByColumn(table);
  std::vector<std::size_t> columns;
  for (std::size_t c = 0; c < grid.shortened.size(); ++c) {
    if (grid.shortened[c] == nullptr) continue;
    grid.widest[c] = 0;
    grid.first[c] = std::string(grid.shortened[c](grid.first[c]));
    columns.push_back(c);
  }
  if (columns.empty()) return false;
  ForEachRow(table, [&](const std::vector<Value>& row) {
    const std::vector<std::string> texts = RowTexts(table, row, &columns, &grid.shortened);
    for (std::size_t c : columns) grid.widest[c] = std::max(grid.widest[c], DisplayWidth(texts[c]));
  });
  return true;
}

// One table row (or header line) on as many screen lines as the fit folds it into: each cell in
// its column, cut with `…` when wider.
void PrintGridLine(const std::vector<std::string>& cells, const Fitted& fit, std::size_t indent,
                   std::ostream& out) {
  for (std::size_t line = 0; line < fit.line_starts.size(); ++line) {
    const auto [begin, end] = LineRange(fit, line);
    std::string text = Pad(LineIndent(indent, line));
    for (std::size_t i = begin; i < end; ++i) {
      const std::string part = Truncate(cells[fit.columns[i]], fit.widths[i], fit.keeps[i]);
      text += part;
      if (i + 1 < end)
        text += Pad(fit.widths[i] - std::min(fit.widths[i], DisplayWidth(part)) + kGap);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << '\n';
  }
}

// The header: a name wider than its column wraps after `_` (`exec_ms_` / `total`), the one row
// that may take more than a line (each line of a folded row has its own header lines).
void PrintHeader(const std::vector<std::string>& names, const Fitted& fit, std::size_t indent,
                 std::ostream& out) {
  for (std::size_t line = 0; line < fit.line_starts.size(); ++line) {
    const auto [begin, end] = LineRange(fit, line);
    Fitted one{.columns = {fit.columns.begin() + static_cast<std::ptrdiff_t>(begin),
                           fit.columns.begin() + static_cast<std::ptrdiff_t>(end)},
               .widths = {fit.widths.begin() + static_cast<std::ptrdiff_t>(begin),
                          fit.widths.begin() + static_cast<std::ptrdiff_t>(end)}};
    one.keeps.assign(one.columns.size(), Keep::kStart);
    std::vector<std::vector<std::string>> wrapped;
    std::size_t height = 1;
    for (std::size_t i = 0; i < one.columns.size(); ++i) {
      wrapped.push_back(WrapText(names[one.columns[i]], one.widths[i]));
      height = std::max(height, wrapped.back().size());
    }
    for (std::size_t row = 0; row < height; ++row) {
      std::vector<std::string> cells(names.size());
      for (std::size_t i = 0; i < one.columns.size(); ++i) {
        if (row < wrapped[i].size()) cells[one.columns[i]] = wrapped[i][row];
      }
      PrintGridLine(cells, one, LineIndent(indent, line), out);
    }
  }
}

// The note under a table that left columns out: which, and the --columns that brings them back
// (`--columns sweep:NAME,...` for a table other than the main one).
void PrintLeftOut(const std::vector<std::string>& left_out, const std::string& table_prefix,
                  std::size_t indent, std::size_t width, std::ostream& out) {
  if (left_out.empty()) return;
  std::string note = "(not shown at " + std::to_string(width) + " columns: ";
  for (std::size_t i = 0; i < left_out.size(); ++i) note += (i ? ", " : "") + left_out[i];
  out << Pad(indent);
  PrintWrapped(note + "; choose with --columns " + table_prefix + "NAME,...)", indent, width, out);
}

// The note under a table whose rows still print alike where even a folded line cuts them (deep
// stacks that differ far from both ends): which columns are cut, and where the rows are whole.
void PrintAlike(const Grid& grid, const Fitted& fit, const std::string& table_prefix,
                std::size_t indent, std::size_t width, std::ostream& out) {
  std::string cut;
  for (std::size_t i = 0; i < fit.columns.size(); ++i) {
    const std::size_t c = fit.columns[i];
    if (grid.numeric[c] || fit.widths[i] >= grid.widest[c]) continue;
    cut += (cut.empty() ? "" : ", ") + grid.header[c];
  }
  if (cut.empty()) return;
  out << Pad(indent);
  PrintWrapped("(some rows that differ print alike at " + std::to_string(width) +
                   " columns: they differ in " + cut +
                   " where it is cut; fewer columns (--columns " + table_prefix +
                   "NAME,...), a wider terminal, CSV or JSON show them whole)",
               indent, width, out);
}

// The table's rows in passes: measured, told apart (when it hides text columns), then printed
// a row at a time, each on one line.
void PrintRows(const Table& table, std::string_view main_table, std::size_t indent,
               std::size_t width, std::ostream& out) {
  Grid grid = MeasureGrid(table);
  ChooseShown(table, grid);
  Fitted fit = FitRows(table, grid, indent, width);
  if (ShortenNarrowedColumns(table, fit, grid)) fit = FitRows(table, grid, indent, width);
  PrintHeader(grid.header, fit, indent, out);
  ForEachRow(table, [&](const std::vector<Value>& row) {
    PrintGridLine(RowTexts(table, row, &fit.columns, &grid.shortened), fit, indent, out);
  });
  if (grid.row_count == 0) out << Pad(indent) << "(none)\n";
  const std::string prefix = table.name == main_table ? std::string() : table.name + ":";
  PrintLeftOut(fit.left_out, prefix, indent, width, out);
  if (width > 0 && CutRowsLookAlike(table, grid, fit))
    PrintAlike(grid, fit, prefix, indent, width, out);
}

void PrintSection(const Section& section, std::string_view main_table, std::size_t indent,
                  std::size_t width, std::ostream& out);

void PrintTableBlock(const Table& table, std::string_view main_table, std::size_t indent,
                     std::size_t width, std::ostream& out) {
  out << Pad(indent);
  PrintWrapped(Visible(Heading(table.title, table.name)), indent, width, out);
  if (!table.caption.empty()) {
    out << Pad(indent + 2);
    PrintWrapped(Visible(table.caption), indent + 2, width, out);
  }
  PrintRows(table, main_table, indent + 2, width, out);
}

void PrintSection(const Section& section, std::string_view main_table, std::size_t indent,
                  std::size_t width, std::ostream& out) {
  out << Pad(indent);
  PrintWrapped(Visible(Heading(section.title, section.name)), indent, width, out);
  PrintFields(section.ShownFields(), indent + 2, width, out);
  for (const auto& child : section.sections)
    PrintSection(child, main_table, indent + 2, width, out);
  for (const auto& table : section.tables) {
    if (ShownInTable(table)) PrintTableBlock(table, main_table, indent + 2, width, out);
  }
}

// "  warning: text", the text wrapped at word boundaries under its first word.
void PrintFindings(const Report& report, std::size_t width, std::ostream& out) {
  if (report.findings.empty()) return;
  out << "Findings\n";
  for (const auto& f : report.findings) {
    const std::string lead = "  " + std::string(SeverityName(f.severity)) + ": ";
    out << lead;
    PrintWrapped(Visible(f.message), lead.size(), width, out);
  }
}

// The table an unnamed --columns chooses.
std::string_view MainTable(const Report& report) {
  const Table* primary = report.Primary();
  return primary == nullptr ? std::string_view() : std::string_view(primary->name);
}

// The top-level tables, each after a blank line.
void PrintTables(const Report& report, std::size_t width, std::ostream& out) {
  for (const auto& t : report.tables) {
    if (!ShownInTable(t)) continue;
    out << '\n';
    PrintTableBlock(t, MainTable(report), 0, width, out);
  }
}

// What a streamed report prints after its rows: its sections, tables and findings.
void PrintTail(const Report& report, std::size_t width, std::ostream& out) {
  PrintTables(report, width, out);
  if (!report.findings.empty()) {
    out << '\n';
    PrintFindings(report, width, out);
  }
}

// The streamed table: its first rows (kFitRows, or those that came within kFitWait of the first)
// are held and fitted as a whole table is (columns left out by priority, cut where rows stay
// apart, short spellings), then printed, and every later row as it comes in that layout. A later
// text wider than its column is cut like the held ones; a later number never is (its line
// widens), nor any cell where no width is set (the pipe gets every character). A column left out
// for holding one value in every held row is watched: the note under the table says the value
// only if every row held it.
class TableStream : public RowStream {
 public:
  TableStream(std::ostream& out, const Table& stream, std::size_t width)
      : out_(out), width_(width), held_(stream) {
    held_.rows.clear();
    held_.generated = {};
  }
  void Row(const std::vector<Value>& row) override {
    if (fitted_) {
      PrintRow(row);
      return;
    }
    const auto now = std::chrono::steady_clock::now();
    if (held_.rows.empty()) first_row_at_ = now;
    held_.rows.push_back(row);
    if (held_.rows.size() >= kFitRows || now - first_row_at_ >= kFitWait) FitAndPrintHeld();
  }
  void Finish(const Report& tail) override {
    const bool all_held = !fitted_;
    if (!fitted_) FitAndPrintHeld();
    if (grid_.row_count == 0) out_ << Pad(kIndent) << "(none)\n";
    PrintLeftOut(LeftOutNotes(), {}, kIndent, width_, out_);
    if (all_held && width_ > 0 && CutRowsLookAlike(held_, grid_, fit_))
      PrintAlike(grid_, fit_, {}, kIndent, width_, out_);
    for (const auto& s : tail.sections) {
      out_ << '\n';
      PrintSection(s, MainTable(tail), 0, width_, out_);
    }
    PrintTail(tail, width_, out_);
    out_.flush();
  }

 private:
  static constexpr std::size_t kIndent = 2;  // under the title, as every table's rows
  static constexpr std::size_t kFitRows = 256;
  static constexpr std::chrono::milliseconds kFitWait{500};

  void FitAndPrintHeld() {
    grid_ = MeasureGrid(held_);
    ChooseShown(held_, grid_);
    fit_ = FitRows(held_, grid_, kIndent, width_);
    if (ShortenNarrowedColumns(held_, fit_, grid_)) fit_ = FitRows(held_, grid_, kIndent, width_);
    read_ = fit_.columns;
    for (std::size_t c : fit_.left_out_columns) {
      if (SameInEveryRow(grid_, c) != nullptr) read_.push_back(c);
    }
    differed_.assign(grid_.header.size(), false);
    fitted_ = true;
    PrintHeader(grid_.header, fit_, kIndent, out_);
    for (const auto& row : held_.rows) PrintRow(row);
    held_.rows.clear();
    held_.rows.shrink_to_fit();
  }
  void PrintRow(const std::vector<Value>& row) {
    const std::vector<std::string> cells = RowTexts(held_, row, &read_, &grid_.shortened);
    for (std::size_t c : fit_.left_out_columns) {
      if (const std::string* same = SameInEveryRow(grid_, c); same && cells[c] != *same)
        differed_[c] = true;
    }
    std::optional<Fitted> wider;  // this line only: a cell that is never cut, wider than its column
    for (std::size_t i = 0; i < fit_.columns.size(); ++i) {
      const std::size_t c = fit_.columns[i];
      const std::size_t w = DisplayWidth(cells[c]);
      if (w <= fit_.widths[i] || (width_ > 0 && !grid_.numeric[c])) continue;
      if (!wider) wider = fit_;
      wider->widths[i] = w;
    }
    PrintGridLine(cells, wider ? *wider : fit_, kIndent, out_);
  }
  // The left-out notes, where a column that held one value in every held row no longer says the
  // value if a later row differed.
  std::vector<std::string> LeftOutNotes() const {
    std::vector<std::string> notes = fit_.left_out;
    for (std::size_t i = 0; i < notes.size() && i < fit_.left_out_columns.size(); ++i) {
      if (differed_[fit_.left_out_columns[i]]) notes[i] = grid_.header[fit_.left_out_columns[i]];
    }
    return notes;
  }

  std::ostream& out_;
  std::size_t width_;
  Table held_;  ///< the stream's columns and declarations; its rows until the fit
  std::chrono::steady_clock::time_point first_row_at_;
  bool fitted_ = false;
  Grid grid_;
  Fitted fit_;
  std::vector<std::size_t> read_;  ///< the columns printed, and those watched for one value
  std::vector<bool> differed_;     ///< a watched column that a later row held otherwise
};

}  // namespace

// The answer first: the verdict, the findings, then the sections and tables that back them.
void PrintTable(const Report& report, std::ostream& out, std::size_t width) {
  bool first = true;
  const auto separate = [&] {
    if (!first) out << '\n';
    first = false;
  };
  if (!report.headline.empty()) {
    PrintWrapped(Visible(report.headline), 0, width, out);
    first = false;
  }
  if (!report.apply_line.empty()) {
    out << Visible(report.apply_line) << '\n';  // whole, to be copied as it is
    first = false;
  }
  if (!report.findings.empty()) {
    separate();
    PrintFindings(report, width, out);
  }
  for (const auto& s : report.sections) {
    separate();
    PrintSection(s, MainTable(report), 0, width, out);
  }
  PrintTables(report, width, out);
}

std::unique_ptr<RowStream> StartTableStream(std::ostream& out, const Report& head,
                                            const Table& stream, std::size_t width) {
  for (const auto& s : head.sections) {
    PrintSection(s, MainTable(head), 0, width, out);
    out << '\n';
  }
  PrintWrapped(Visible(Heading(stream.title, stream.name)), 0, width, out);
  return std::make_unique<TableStream>(out, stream, width);
}

}  // namespace dlcheck::report
