#pragma once
// One printer per output format, all over the same Report. A new format is one new file.
//
// table (for people):            CSV (for spreadsheets):         JSON (for programs):
//   CPU                            feature,cpuid,os,usable         {"schema_version": 1,
//     vendor  AuthenticAMD         avx512f,true,true,true           "command": "platform",
//   Features                       avx_vnni,true,true,true          "cpu": {"vendor": ...},
//     feature  cpuid  os  usable                                    "features": {...},
//     avx512f  yes    yes yes                                       "findings": [...]}

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/report.h"

namespace dlcheck::report {

enum class Format { kTable, kCsv, kJson, kTrace, kXlsx };

/// A format's name on the command line (`--format NAME`).
struct FormatChoice {
  std::string_view name;
  Format format;
  bool every_command = false;  ///< offered by every command (else only where a command asks)
};
/// Every format name, in --help order: the one list the command-line options are made from.
/// `trace` is for commands with a timeline; `text` is `table` under the name `check` has always
/// used.
inline constexpr FormatChoice kFormatChoices[] = {
    {"table", Format::kTable, true}, {"csv", Format::kCsv, true}, {"json", Format::kJson, true},
    {"xlsx", Format::kXlsx, true},   {"trace", Format::kTrace},   {"text", Format::kTable}};

/// A name of kFormatChoices (case-insensitive) -> Format; anything else -> nullopt.
std::optional<Format> ParseFormat(std::string_view name);
/// The format's first name in kFormatChoices: "table", "csv", "json", "trace".
std::string_view FormatName(Format format);

/// Prints the whole report in one format.
void Print(const Report& report, Format format, std::ostream& out);
/// For people: the headline, sections, tables (without `omit_in_table` ones), findings. Control
/// characters in text are shown as `\x1b` (never sent raw to the terminal).
void PrintTable(const Report& report, std::ostream& out);
/// RFC 4180: the primary table only, one header line, CRLF line ends, quotes where needed.
void PrintCsv(const Report& report, std::ostream& out);
/// One JSON document: schema_version, command, dlcheck_version, sections, tables, findings.
/// Invalid UTF-8 in text is replaced by U+FFFD.
void PrintJson(const Report& report, std::ostream& out);

/// An Office Open XML workbook (binary): a sheet per section and table, typed cells, frozen
/// header rows, autofilters. Throws std::runtime_error when the workbook cannot be written.
void PrintXlsx(const Report& report, std::ostream& out);

/// Chrome trace JSON (chrome://tracing, Perfetto): one complete ("X") event per row of the table
/// named `trace`, whose columns `name`, `category`, `ts_us`, `dur_us` and `thread` (found by
/// name, in any order) make the event; every other column becomes an argument of the event. A
/// report without that table prints no events.
void PrintTrace(const Report& report, std::ostream& out);
inline constexpr std::string_view kTraceTable = "trace";

/// Text of a value as the table and CSV printers show it (null: `null_text`).
std::string ValueText(const Value& value, std::string_view null_text, std::string_view yes,
                      std::string_view no);

/// A report whose main table is too large to hold (one row per log line): the head is printed
/// at once, rows as they come, and the tail (summary, findings) at the end. Memory stays flat.
class RowStream {
 public:
  virtual ~RowStream() = default;
  virtual void Row(const std::vector<Value>& row) = 0;
  /// Prints the tail's sections, tables and findings, and closes the document.
  virtual void Finish(const Report& tail) = 0;
};

/// Prints `head`'s sections now and opens the streamed table `stream` (its columns and name;
/// its rows are ignored). In CSV, only the streamed table is printed.
std::unique_ptr<RowStream> StartRowStream(Format format, std::ostream& out, const Report& head,
                                          const Table& stream);

}  // namespace dlcheck::report
