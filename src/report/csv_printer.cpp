// SPDX-License-Identifier: Apache-2.0
// RFC 4180 CSV: one header line, CRLF line ends (LF with --csv-lf), a field quoted when it holds
// a comma, a quote, CR or LF (quotes doubled). Null is an empty field; booleans are true/false.
// Control characters other than tab, CR and LF, and bytes that are not UTF-8, are written as
// \xNN (VisibleText); a text cell that a spreadsheet would run as a formula gets a leading '
// (CellText).
#include <ostream>
#include <string_view>
#include <variant>

#include "report/printer.h"
#include "report/safe_text.h"

namespace dlcheck::report {
namespace {

void WriteField(std::ostream& out, const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) {
    out << text;
    return;
  }
  out << '"';
  for (char c : text) {
    if (c == '"') out << '"';
    out << c;
  }
  out << '"';
}

const char* LineEnd() {
  return CurrentPrintSettings().csv_lf ? "\n" : "\r\n";
}

// A text cell a spreadsheet would run as a formula (`=1+2`, `+`, `-`, `@`, or a leading tab or
// CR that some strip before looking) gets a leading `'`, the usual neutraliser: the cell then
// shows the text; with --csv-raw (for programs, which read the `'` as data) it does not. Numbers
// and booleans are never text here, so they are left as they are.
std::string CellText(const Value& value) {
  // Text from a log reaches a spreadsheet or `cat` visible, never as an escape sequence.
  std::string text = VisibleText(ValueText(value, "", "true", "false"), true);
  const bool is_text = value.is_text();
  if (is_text && !text.empty() && !CurrentPrintSettings().csv_raw &&
      std::string_view("=+-@\t\r").find(text[0]) != std::string_view::npos) {
    text.insert(text.begin(), '\'');
  }
  return text;
}

void WriteRow(std::ostream& out, const std::vector<Value>& row) {
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (i) out << ',';
    WriteField(out, CellText(row[i]));
  }
  out << LineEnd();
}

void WriteHeader(std::ostream& out, const std::vector<std::string>& columns) {
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) out << ',';
    WriteField(out, columns[i]);
  }
  out << LineEnd();
}

class CsvStream : public RowStream {
 public:
  explicit CsvStream(std::ostream& out) : out_(out) {}
  void Row(const std::vector<Value>& row) override { WriteRow(out_, row); }
  void Finish(const Report&) override { out_.flush(); }

 private:
  std::ostream& out_;
};

}  // namespace

void PrintCsv(const Report& report, std::ostream& out) {
  const Table* table = report.Primary();
  if (table == nullptr) return;
  WriteHeader(out, table->columns);
  ForEachRow(*table, [&](const std::vector<Value>& row) { WriteRow(out, row); });
}

std::unique_ptr<RowStream> StartCsvStream(std::ostream& out, const Table& stream) {
  WriteHeader(out, stream.columns);
  return std::make_unique<CsvStream>(out);
}

}  // namespace dlcheck::report
