// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one report model every command fills and every printer reads. A command computes into a
// Report; printers (table, CSV, JSON, ...) never compute, they only lay out what is here.
//
//   Report r(PlatformDocument());                // the command and its declared document
//   Section& cpu = r.AddSection(kCpu);           // report::Part{"cpu", "CPU"}
//   cpu.Add(cpu_field::kVendor, "AuthenticAMD");  // report::Field{"vendor", Type::kText}
//   Table& t = r.AddTable(kFeatures, kFeatureColumns);
//   t.AddRow().Set(kName, "avx512f").Set(kCpuid, true).Set(kKernel, true);  // os: null
//
// Fields, sections and tables are named by their declarations (report/field.h), never by a
// string literal: the builder, the document (report/contract.h) and a reader share one name.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/finding.h"
#include "report/contract.h"
#include "report/field.h"

namespace dlcheck::report {

/// A list of words (features a group lacks, the input files): a JSON array, and in text formats
/// the words joined by spaces.
using TextList = std::vector<std::string>;

/// One cell or field: null (unknown / no opinion), bool, integer, real, text, or a list of texts.
struct Value {
  using Data = std::variant<std::monostate, bool, std::int64_t, double, std::string, TextList>;
  Data data;
  int precision = 3;  ///< decimals printed for reals, in every format

  Value() = default;
  Value(bool b) : data(b) {}                                           // NOLINT: implicit by design
  Value(int i) : data(std::int64_t{i}) {}                              // NOLINT
  Value(long i) : data(std::int64_t{i}) {}                             // NOLINT
  Value(long long i) : data(std::int64_t{i}) {}                        // NOLINT
  Value(unsigned i) : data(std::int64_t{i}) {}                         // NOLINT
  Value(unsigned long i) : data(static_cast<std::int64_t>(i)) {}       // NOLINT
  Value(unsigned long long i) : data(static_cast<std::int64_t>(i)) {}  // NOLINT
  Value(double d, int decimals = 3) : data(d), precision(decimals) {}  // NOLINT
  Value(std::string s) : data(std::move(s)) {}                         // NOLINT
  Value(std::string_view s) : data(std::string(s)) {}                  // NOLINT
  Value(const char* s) : data(std::string(s)) {}                       // NOLINT
  explicit Value(TextList list) : data(std::move(list)) {}

  /// Text or a list of texts (what a spreadsheet must not run as a formula, what wraps).
  bool is_text() const {
    return std::holds_alternative<std::string>(data) || std::holds_alternative<TextList>(data);
  }
  bool is_null() const { return std::holds_alternative<std::monostate>(data); }
  bool operator==(const Value& other) const { return data == other.data; }
};

/// Text of a value as the table and CSV printers show it (null: `null_text`).
std::string ValueText(const Value& value, std::string_view null_text, std::string_view yes,
                      std::string_view no);

/// Rows made when a printer reads them, for a table too large to hold as cells: `make(i)` gives
/// row i of `count`. What `make` reads it must own (a shared_ptr to its data), since a copied
/// Table shares it.
struct RowSource {
  std::size_t count = 0;
  std::function<std::vector<Value>(std::size_t)> make;
};

/// One row of a table, filled by field (Table::AddRow, or a row a RowSource makes): a column
/// never set stays null, and the order is the column list's, whatever the order of the calls.
///
///   t.AddRow().Set(kHot, hot.rank).Set(kVariant, v.variant).Set(kSpeedup, Value(v.speedup, 2));
class RowSetter {
 public:
  /// Fills `row`, which has one cell per name of `columns` (the table `table`'s, for messages).
  RowSetter(const std::vector<std::string>& columns, std::vector<Value>& row,
            std::string_view table)
      : columns_(columns), row_(row), table_(table) {}
  /// Puts `value` in the column `field` names. A column the table lacks is a programming error:
  /// std::logic_error, which every test of the table's command meets. Cells set in column order
  /// cost one comparison each.
  RowSetter& Set(const Field& field, Value value) { return Set(field.name, std::move(value)); }
  /// The same, for a view's columns made at run time (one per ISA cap, per host).
  RowSetter& Set(std::string_view column, Value value);

 private:
  const std::vector<std::string>& columns_;
  std::vector<Value>& row_;
  std::string_view table_;
  std::size_t next_ = 0;  ///< where the next column is looked for first
};

/// A rectangular table: a fixed column order, one Value per column in every row. Its rows are
/// the stored `rows` followed by the `generated` ones; read them with RowCount and ForEachRow.
/// Rows are added by field (AddRow); `rows` holds them in column order for the printers.
struct Table {
  std::string name;                  ///< JSON key and CSV identity
  std::string title;                 ///< heading in the human table
  std::vector<std::string> columns;  ///< names, in print order
  std::vector<std::vector<Value>> rows;
  /// Rows made one at a time while printing (none when `generated.count` is 0).
  RowSource generated;
  /// JSON shape: false gives an array of row objects; true gives one object keyed by the first
  /// column's text, each value an object of the other columns (`features{avx512f{...}}`).
  bool keyed_by_first_column = false;
  /// Columns left out of the human table (still in CSV and JSON), to keep it readable.
  std::vector<std::string> hidden_in_table;
  /// The columns' priority in the human table, which keeps every row on one screen line: when a
  /// terminal is too narrow, columns that hold one value in every row go first, then these, in
  /// this order (the lowest value first), then the rightmost of the rest; long text is cut with
  /// `…` only after that.
  std::vector<std::string> leave_out_first;
  /// The columns the table exists for (the highest priority): never left out of the human table,
  /// whatever the width (`exec_ms_total` of the primitives, `fastest` of a sweep, `ratio` of a
  /// diff). Columns chosen with --columns are all answer columns.
  std::vector<std::string> answer_columns;
  /// The columns that make a row unique (their Field::role is Role::kIdentity): in the human
  /// table they go after every other column but the answers, and only while the rows stay apart
  /// without them. AddTable fills it from the columns' declarations.
  std::vector<std::string> identity_columns;
  /// Columns whose cells have a short spelling (Field::short_form), used by the human table for
  /// a column it would otherwise cut or leave out. AddTable fills it from the declarations.
  std::vector<std::pair<std::string, ShortForm>> short_forms;
  /// Left out of the human table entirely (CSV and JSON keep it): a long form of a table that
  /// the human view shows in a wider shape.
  bool omit_in_table = false;
  /// Printed only in the human table (JSON and xlsx leave it out): a wide view whose cells join
  /// several values into text for reading, when another table holds the same values typed.
  bool only_in_table = false;
  /// What one format's printer draws from, not a table to show (the `stacks` of `--format folded`
  /// and `svg`): the table, CSV, JSON and xlsx printers leave it out.
  bool format_input = false;
  /// A line under the title, where a format draws one (the flame graph's subtitle).
  std::string caption;

  /// Appends a row of nulls, one per column, to be filled by field.
  RowSetter AddRow();
};

/// The names of `fields`, for a table's column lists (hidden_in_table, answer_columns, ...).
inline std::vector<std::string> Names(std::initializer_list<Field> fields) {
  std::vector<std::string> names;
  names.reserve(fields.size());
  for (const Field& field : fields) names.emplace_back(field.name);
  return names;
}

/// The short spellings of those of `fields` that have one (Field::short_form), for a table's
/// short_forms (AddTable fills it from the declarations; a view passes its columns).
inline std::vector<std::pair<std::string, ShortForm>> ShortForms(std::span<const Field> fields) {
  std::vector<std::pair<std::string, ShortForm>> forms;
  for (const Field& field : fields) {
    if (field.short_form != nullptr) forms.emplace_back(field.name, field.short_form);
  }
  return forms;
}
inline std::vector<std::pair<std::string, ShortForm>> ShortForms(
    std::initializer_list<Field> fields) {
  return ShortForms(std::span<const Field>(fields.begin(), fields.size()));
}

/// The names of those of `fields` that make a row unique (Role::kIdentity), for a view's
/// identity_columns (a table added with AddTable has them from its declaration).
inline std::vector<std::string> IdentityNames(std::initializer_list<Field> fields) {
  std::vector<std::string> names;
  for (const Field& field : fields) {
    if (field.role == Role::kIdentity) names.emplace_back(field.name);
  }
  return names;
}

/// Whether the human table shows `table` (not omit_in_table, not a format's input).
inline bool ShownInTable(const Table& table) {
  return !table.omit_in_table && !table.format_input;
}
/// Whether JSON and xlsx carry `table` (not only_in_table, not a format's input).
inline bool CarriedInDocuments(const Table& table) {
  return !table.only_in_table && !table.format_input;
}

/// How many rows `table` has, stored and generated.
inline std::size_t RowCount(const Table& table) {
  return table.rows.size() + table.generated.count;
}

/// Calls `visit(row)` for each row of `table` in order: the stored rows, then the generated ones,
/// each made for the call and gone after it. The one way printers read a table's rows.
template <typename Visit>
void ForEachRow(const Table& table, Visit&& visit) {
  for (const std::vector<Value>& row : table.rows) visit(row);
  for (std::size_t i = 0; i < table.generated.count; ++i) {
    const std::vector<Value> row = table.generated.make(i);
    visit(row);
  }
}

/// A picture of one of the report's tables, declared by its builder beside the table and drawn
/// by the formats that draw (`html`, and `svg` where the report has no stacks); the other formats
/// leave it out. It names columns only: report/chart_data.h reads the rows, report/chart.h draws.
///
///   report.charts.push_back({.kind = Chart::Kind::kBars, .title = "samples/s by ISA cap",
///                            .table = "runs", .label = {"isa_cap"}, .value = "samples_per_s",
///                            .low = "samples_per_s_min", .high = "samples_per_s_max",
///                            .unit = "samples/s"});
struct Chart {
  enum class Kind {
    kBars,       ///< a bar per distinct label: `value` (summed over its rows), whiskers low..high
    kDiverging,  ///< kBars of a ratio, drawn from 1 on a log scale (slower right, faster left)
    kHeatMap,    ///< rows by label, columns by `series`, each cell `value` (summed; see `per`)
    kLanes,      ///< a lane per label, a span per row from `value` lasting `length`
    kMatrix,     ///< rows by label; columns: the words of the list columns `marks` hold
  };
  Kind kind = Kind::kBars;
  std::string title;
  std::string table;               ///< the table drawn: any of the report's, nested ones too
  std::vector<std::string> label;  ///< columns whose texts, joined by " ", name a bar, row, lane
  std::string value;               ///< the number drawn (kLanes: a span's start)
  std::string low;                 ///< kBars: the whisker's low end (optional)
  std::string high;                ///< kBars: the whisker's high end (optional)
  std::string series;              ///< kHeatMap: the column whose texts name the columns
  /// kHeatMap: a cell is the sum of its rows over the number of distinct texts of this column
  /// (`run`: the mean per run); empty: the sum.
  std::string per;
  std::string length;  ///< kLanes: a span's length
  /// kMatrix: a list column whose words are marked in its rows (the column's name is the mark's).
  struct Mark {
    std::string column;
    std::string symbol;  ///< drawn in the cell
    std::string color;   ///< the cell's fill
  };
  /// kMatrix: the marks; a word in several columns takes the last one's (`hidden` over `lacks`).
  std::vector<Mark> marks;
  std::string unit;       ///< of `value`, on the axis
  std::size_t limit = 0;  ///< at most this many bars or heat map rows (the largest); 0: all
  /// kBars, kDiverging: small multiples, one chart per distinct text of these columns (joined by
  /// " ", in the order of the rows), each titled with it and on its own scale; empty: one chart.
  std::vector<std::string> facet;
  /// kDiverging: `value` is a speed-up (above 1 faster, drawn left in green), not a time ratio.
  bool speedup = false;
};

/// A named group of key/value fields, with optional nested sections and tables. JSON prints it
/// as an object: fields first, then sections, then tables, each in insertion order.
struct Section {
  std::string name;   ///< JSON key
  std::string title;  ///< heading in the human table
  std::vector<std::pair<std::string, Value>> fields;
  std::vector<Section> sections;
  std::vector<Table> tables;
  /// Fields left out of the human table and the html page (still in CSV and JSON): what the
  /// report's headline already says there (whatif's `verdict`).
  std::vector<std::string> hidden_in_table;

  Section& Add(const Field& field, Value value) {
    fields.emplace_back(std::string(field.name), std::move(value));
    return *this;
  }
  /// An entry of a map keyed by data (a skip reason, an ISA cap): its key is the data's.
  Section& AddEntry(std::string key, Value value) {
    fields.emplace_back(std::move(key), std::move(value));
    return *this;
  }
  Section& AddSection(const Part& part);
  Table& AddTable(const Part& part, std::span<const Field> table_columns);
  /// A table that is a view, not a declared member (only_in_table, format_input): its columns
  /// are made at run time (one per ISA cap, per host).
  Table& AddView(std::string table_name, std::vector<std::string> table_columns,
                 std::string table_title = {});
  /// The field's value, or nullptr.
  const Value* Find(std::string_view key) const;
  /// The fields the human table and the html page show: all but hidden_in_table.
  std::vector<std::pair<std::string, Value>> ShownFields() const;
};

/// A declared table on its own (a streamed one, whose rows are printed as they come): its
/// columns' names, identity and short spellings from their declarations, as AddTable makes it.
Table DeclaredTable(const Part& part, std::span<const Field> columns);

using dlcheck::Finding;
using dlcheck::Severity;
using dlcheck::SeverityName;

/// Everything one command run produced.
struct Report {
  static constexpr int kSchemaVersion = 1;
  Report() = default;
  /// A report of `declared`'s command, whose JSON is written as `declared` says.
  explicit Report(const contract::Document& declared)
      : command(declared.command), document(&declared) {}

  std::string command;  ///< "platform", "parse", ...
  /// The command's declared document (report/contract.h); nullptr: none (a part of a report).
  const contract::Document* document = nullptr;
  /// The verdict: the one line the human table prints before everything else, then the
  /// findings, then the sections and tables (`check`'s monitoring line `DLCHECK OK - ... |
  /// perfdata`, `diff`'s regressions, every other command's through SetVerdict); empty: none.
  /// The other formats carry its parts as fields, in their usual order.
  std::string headline;
  /// A shell line that acts on the verdict (`tune`'s `env NAME=VALUE ... CMD`), printed whole,
  /// never wrapped, right under the headline in the human table and on the page, so that it can
  /// be copied as it is; empty: none. The other formats carry it as a field of the command's.
  std::string apply_line;
  /// Top-level sections and tables, printed in this order (sections first).
  std::vector<Section> sections;
  std::vector<Table> tables;
  std::vector<Finding> findings;
  /// Pictures of its tables, in order (html and svg draw them).
  std::vector<Chart> charts;

  Section& AddSection(const Part& part);
  Table& AddTable(const Part& part, std::span<const Field> columns);
  /// A view, as Section::AddView.
  Table& AddView(std::string name, std::vector<std::string> columns, std::string title = {});
  void AddFinding(Severity severity, std::string code, std::string message) {
    findings.push_back({severity, std::move(code), std::move(message)});
  }
  const Table* FindTable(std::string_view name) const;
  /// The table CSV prints (the main table its document declares, else the first), or
  /// nullptr when the report has none.
  const Table* Primary() const;
};

/// What a report's findings come to, for its verdict: "no warnings", or the errors and warnings
/// with their codes, "1 error: worker-failed; 2 warnings: scalar-fallback, busy-machine" (info
/// findings are not counted; a code said twice is named once).
std::string FindingsTally(const std::vector<Finding>& findings);

/// Sets the verdict a report opens with on a terminal (`headline`): `answer`, the command's own
/// words for what it found ("oneDNN ran 17 primitives: 23 executions, 41.2 ms"), then the tally
/// of its findings. Called once, after the last finding is added: the one rule every command
/// but `check` and `diff` (whose verdicts are their own monitoring lines) follows.
void SetVerdict(Report& report, std::string_view answer);

}  // namespace dlcheck::report
