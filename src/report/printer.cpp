// SPDX-License-Identifier: Apache-2.0
#include "report/printer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <type_traits>

#include "common/nearest_name.h"
#include "report/safe_text.h"

namespace dlcheck::report {

void PrintBenchdnn(const Report& report, std::ostream& out) {
  const Table* table = report.Primary();
  if (table == nullptr) return;
  const auto column = std::find(table->columns.begin(), table->columns.end(), "benchdnn");
  if (column == table->columns.end()) return;
  const std::size_t index = static_cast<std::size_t>(column - table->columns.begin());
  std::set<std::string> printed;
  ForEachRow(*table, [&](const std::vector<Value>& row) {
    if (index >= row.size() || row[index].is_null()) return;
    std::string line = ValueText(row[index], "", "true", "false");
    if (printed.insert(line).second) out << line << '\n';
  });
}

std::optional<Format> ParseFormat(std::string_view name) {
  for (const FormatChoice& choice : kFormatChoices) {
    if (choice.name.size() != name.size()) continue;
    if (std::equal(name.begin(), name.end(), choice.name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) == b;
        })) {
      return choice.format;
    }
  }
  return std::nullopt;
}

std::string_view InputTable(Format format) {
  switch (format) {
    case Format::kTrace:
      return kTraceTable;
    case Format::kFolded:
    case Format::kSvg:
    case Format::kSpeedscope:
      return kStacksTable;
    default:
      return {};
  }
}

bool FormatReads(Format format, std::string_view table) {
  return InputTable(format) == table || format == Format::kHtml;
}

std::string_view FormatName(Format format) {
  for (const FormatChoice& choice : kFormatChoices) {
    if (choice.format == format) return choice.name;
  }
  return "table";
}

namespace {

PrintSettings& Settings() {
  static PrintSettings settings;
  return settings;
}

std::string ColumnList(const std::vector<std::string>& columns) {
  std::string text;
  for (const auto& c : columns) text += (text.empty() ? "" : ",") + c;
  return text;
}

// Where each of `names` sits in `table`'s columns; ColumnChoiceError for a name it lacks.
std::vector<std::size_t> ColumnIndexes(const Table& table, const std::vector<std::string>& names) {
  std::vector<std::size_t> indexes;
  for (const auto& name : names) {
    const auto found = std::find(table.columns.begin(), table.columns.end(), name);
    if (found == table.columns.end()) {
      throw ColumnChoiceError("--columns: unknown column '" + ShortInput(name) + "'" +
                              DidYouMean(name, table.columns) + "; the " + table.name +
                              " table has: " + ColumnList(table.columns));
    }
    indexes.push_back(static_cast<std::size_t>(found - table.columns.begin()));
  }
  return indexes;
}

std::vector<Value> Project(const std::vector<Value>& row, const std::vector<std::size_t>& at) {
  std::vector<Value> projected;
  projected.reserve(at.size());
  for (std::size_t i : at) projected.push_back(i < row.size() ? row[i] : Value());
  return projected;
}

// Calls `visit(table)` for every table of the report, nested ones included.
template <typename Visit>
void ForEachTable(std::vector<Section>& sections, std::vector<Table>& tables, Visit&& visit) {
  for (Section& s : sections) ForEachTable(s.sections, s.tables, visit);
  for (Table& t : tables) visit(t);
}

// The table a --columns choice names ("" -> `main`), or ColumnChoiceError naming the report's
// tables when it has none of that name.
Table* ChosenTable(Report& report, const std::string& name, std::string_view main) {
  const std::string wanted = name.empty() ? std::string(main) : name;
  Table* found = nullptr;
  std::vector<std::string> names;
  ForEachTable(report.sections, report.tables, [&](Table& t) {
    names.push_back(t.name);
    if (found == nullptr && t.name == wanted) found = &t;
  });
  if (found == nullptr && !name.empty()) {
    throw ColumnChoiceError("--columns: no table '" + ShortInput(name) + "' in this report" +
                            DidYouMean(name, names) + "; its tables: " + ColumnList(names));
  }
  return found;
}

// "; the sweep table has them: --columns sweep:layer,fastest" when another table has every
// one of `names`, else "".
std::string TableWithColumns(Report& report, const std::vector<std::string>& names) {
  std::string hint;
  ForEachTable(report.sections, report.tables, [&](Table& t) {
    const bool has_all = std::all_of(names.begin(), names.end(), [&](const std::string& name) {
      return std::find(t.columns.begin(), t.columns.end(), name) != t.columns.end();
    });
    if (hint.empty() && has_all) {
      hint = "; the " + t.name + " table has them: --columns " + t.name + ":" + ColumnList(names);
    }
  });
  return hint;
}

// The report with its tables cut to --columns; the report itself when none were chosen.
const Report& WithChosenColumns(const Report& report, Report& storage) {
  const std::vector<ColumnChoice>& choices = Settings().columns;
  if (choices.empty()) return report;
  storage = report;
  const Table* primary = report.Primary();
  const std::string main = primary == nullptr ? std::string() : primary->name;
  for (const ColumnChoice& choice : choices) {
    Table* t = ChosenTable(storage, choice.table, main);
    if (t == nullptr) continue;
    try {
      *t = SelectColumns(*t, choice.names);
    } catch (const ColumnChoiceError& e) {
      if (!choice.table.empty()) throw;
      throw ColumnChoiceError(e.what() + TableWithColumns(storage, choice.names));
    }
  }
  return storage;
}

// The names chosen for the main table (`stream`), or none.
const std::vector<std::string>* NamesFor(const Table& stream) {
  for (const ColumnChoice& choice : Settings().columns) {
    if (choice.table.empty() || choice.table == stream.name) return &choice.names;
  }
  return nullptr;
}

// A stream that hands the next printer only the chosen columns of each row.
class ProjectedStream : public RowStream {
 public:
  ProjectedStream(std::unique_ptr<RowStream> next, std::vector<std::size_t> at)
      : next_(std::move(next)), at_(std::move(at)) {}
  void Row(const std::vector<Value>& row) override { next_->Row(Project(row, at_)); }
  void Finish(const Report& tail) override { next_->Finish(tail); }

 private:
  std::unique_ptr<RowStream> next_;
  std::vector<std::size_t> at_;
};

}  // namespace

ColumnChoice ParseColumnChoice(std::string_view text) {
  ColumnChoice choice;
  const std::size_t colon = text.find(':');
  if (colon != std::string_view::npos &&
      text.substr(0, colon).find(',') == std::string_view::npos) {
    choice.table = std::string(text.substr(0, colon));
    text.remove_prefix(colon + 1);
  }
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = std::min(text.find(',', start), text.size());
    choice.names.emplace_back(text.substr(start, comma - start));
    start = comma + 1;
  }
  return choice;
}

void SetPrintSettings(PrintSettings settings) {
  Settings() = std::move(settings);
}

const PrintSettings& CurrentPrintSettings() {
  return Settings();
}

Table SelectColumns(const Table& table, const std::vector<std::string>& names) {
  const std::vector<std::size_t> at = ColumnIndexes(table, names);
  Table selected = table;
  selected.columns = names;
  selected.rows.clear();
  selected.rows.reserve(table.rows.size());
  for (const auto& row : table.rows) selected.rows.push_back(Project(row, at));
  // Generated rows are projected as they are made.
  if (table.generated.count > 0) {
    selected.generated.make = [make = table.generated.make, at](std::size_t i) {
      return Project(make(i), at);
    };
  }
  // Chosen columns are shown, whatever the table hides by default, and never left out.
  selected.hidden_in_table.clear();
  selected.answer_columns = names;
  return selected;
}

void PrepareFormat(Format format) {
  if (format == Format::kXlsx) RequireXlsx();
}

void Print(const Report& whole_report, Format format, std::ostream& out) {
  Report storage;
  const Report& report = WithChosenColumns(whole_report, storage);
  switch (format) {
    case Format::kTable:
      PrintTable(report, out, Settings().width);
      break;
    case Format::kCsv:
      PrintCsv(report, out);
      break;
    case Format::kJson:
      PrintJson(report, out);
      break;
    case Format::kTrace:
      PrintTrace(report, out);
      break;
    case Format::kXlsx:
      PrintXlsx(report, out);
      break;
    case Format::kHtml:
      PrintHtml(report, out);
      break;
    case Format::kBenchdnn:
      PrintBenchdnn(report, out);
      break;
    case Format::kFolded:
      PrintFolded(report, out);
      break;
    case Format::kSvg:
      PrintSvg(report, out);
      break;
    case Format::kSpeedscope:
      PrintSpeedscope(report, out);
      break;
  }
}

}  // namespace dlcheck::report

namespace dlcheck::report {

std::unique_ptr<RowStream> StartCsvStream(std::ostream& out, const Table& stream);
std::unique_ptr<RowStream> StartJsonStream(std::ostream& out, const Report& head,
                                           const Table& stream);
std::unique_ptr<RowStream> StartHtmlStream(std::ostream& out, const Report& head,
                                           const Table& stream);

namespace {

std::unique_ptr<RowStream> StartFormatStream(Format format, std::ostream& out, const Report& head,
                                             const Table& stream) {
  switch (format) {
    case Format::kTable:
      return StartTableStream(out, head, stream, CurrentPrintSettings().width);
    case Format::kCsv:
      return StartCsvStream(out, stream);
    case Format::kHtml:  // printed whole at the end: its findings come first
      return StartHtmlStream(out, head, stream);
    case Format::kJson:
    case Format::kTrace:     // a streamed table has no trace shape; JSON is the closest
    case Format::kXlsx:      // a workbook cannot be streamed: the command refuses the pair
    case Format::kBenchdnn:  // nor can distinct lines (parse refuses --events with either)
    case Format::kFolded:    // no command that streams has stacks
    case Format::kSvg:
    case Format::kSpeedscope:
      return StartJsonStream(out, head, stream);
  }
  return nullptr;
}

}  // namespace

std::unique_ptr<RowStream> StartRowStream(Format format, std::ostream& out, const Report& head,
                                          const Table& stream) {
  const std::vector<std::string>* names = NamesFor(stream);
  if (names == nullptr) return StartFormatStream(format, out, head, stream);
  std::vector<std::size_t> at = ColumnIndexes(stream, *names);
  const Table selected = SelectColumns(stream, *names);
  return std::make_unique<ProjectedStream>(StartFormatStream(format, out, head, selected),
                                           std::move(at));
}

}  // namespace dlcheck::report
