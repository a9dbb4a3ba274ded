// SPDX-License-Identifier: Apache-2.0
#pragma once
// One printer per output format, all over the same Report. A new format is one new file.
//
// table (for people):            CSV (for spreadsheets):         JSON (for programs):
//   CPU                            feature,cpuid,os,usable         {"schema_version": 1,
//     vendor  AuthenticAMD         avx512f,true,true,true           "command": "platform",
//   Features                       avx_vnni,true,true,true          "cpu": {"vendor": ...},
//     feature  cpuid  os  usable                                    "features": {...},
//     avx512f  yes    yes yes                                       "findings": [...]}

#include <array>
#include <iosfwd>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"

namespace dlcheck::report {

enum class Format {
  kTable,
  kCsv,
  kJson,
  kTrace,
  kXlsx,
  kHtml,
  kBenchdnn,
  kFolded,
  kSvg,
  kSpeedscope
};

/// A format's name on the command line (`--format NAME`).
struct FormatChoice {
  std::string_view name;
  Format format;
  bool every_command = false;  ///< offered by every command (else only where a command asks)
};
/// Every format name, in --help order: the one list the command-line options are made from.
/// `trace` is for commands with a timeline, `folded`, `svg` and `speedscope` for those with stacks;
/// `text` is
/// `table` under the name `check` has always used.
inline constexpr FormatChoice kFormatChoices[] = {
    {"table", Format::kTable, true}, {"csv", Format::kCsv, true},
    {"json", Format::kJson, true},   {"xlsx", Format::kXlsx, true},
    {"html", Format::kHtml, true},   {"trace", Format::kTrace},
    {"benchdnn", Format::kBenchdnn}, {"folded", Format::kFolded},
    {"svg", Format::kSvg},           {"speedscope", Format::kSpeedscope},
    {"text", Format::kTable}};

/// Whether `format` is a document for another program (a workbook, a web page), never written to
/// a terminal: what a terminal would show of it is bytes or markup, not the report.
inline bool IsFileOnly(Format format) {
  return format == Format::kXlsx || format == Format::kHtml;
}

/// The table a format's printer draws from instead of the whole report: `trace` for trace,
/// `stacks` for folded and svg; empty for the formats that print the whole report. A command
/// fills such a table only when the chosen format reads it (parse's timeline): FormatReads.
std::string_view InputTable(Format format);
/// Whether `format` reads the table named `table` (the `trace` and `stacks` a command fills only
/// when asked): its InputTable, and html, which draws both.
bool FormatReads(Format format, std::string_view table);

/// A name of kFormatChoices (case-insensitive) -> Format; anything else -> nullopt.
std::optional<Format> ParseFormat(std::string_view name);
/// The format's first name in kFormatChoices: "table", "csv", "json", "trace".
std::string_view FormatName(Format format);

/// One `--columns` value: `sweep:layer,fastest` -> {"sweep", {"layer", "fastest"}}; `a,b` ->
/// {"", {"a", "b"}} (the main table).
struct ColumnChoice {
  std::string table;
  std::vector<std::string> names;
};
/// Reads one `--columns` value.
ColumnChoice ParseColumnChoice(std::string_view text);

/// How every Print and StartRowStream call of this process lays out its output: set once from the
/// command line (`--columns`) and the terminal (main), read by the printers.
struct PrintSettings {
  /// Display columns a human table may use: 0, no limit (standard output is not a terminal).
  std::size_t width = 0;
  /// `--columns [TABLE:]NAME,...`: a table's columns, in this order, in every format; with no
  /// TABLE, the main table's (the primary table, or the streamed one). One entry per table.
  std::vector<ColumnChoice> columns;
  /// `--csv-lf`: CSV lines end in LF (for awk, cut, grep) instead of RFC 4180's CRLF.
  bool csv_lf = false;
  /// `--csv-raw`: text cells exactly as they are, without the `'` that keeps a spreadsheet from
  /// running `=1+2` as a formula (for pandas, R, awk: programs that read the `'` as data).
  bool csv_raw = false;
};
void SetPrintSettings(PrintSettings settings);
const PrintSettings& CurrentPrintSettings();

/// `--columns` named a column the main table does not have. Thrown before anything is printed;
/// what() names the unknown column and lists the valid ones.
class ColumnChoiceError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// A report that could not be written for a reason outside dlcheck (a temporary file that cannot
/// be made, a full disk): what() says what failed and what to do. Reported as exit 8.
class OutputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Loads what printing `format` needs that is not linked (libxlsxwriter for xlsx, loaded with
/// dlopen so that no other run pays for it); throws OutputError where it cannot. Called once the
/// command line is read, before the work: a missing library fails first, not after a long run,
/// and the memory the library maps is taken before the run's own.
void PrepareFormat(Format format);

/// `table` with only the columns `names`, in that order (each row likewise), or
/// ColumnChoiceError when one is not a column of it. The human table never leaves a chosen
/// column out.
Table SelectColumns(const Table& table, const std::vector<std::string>& names);

/// Prints the whole report in one format, with the current PrintSettings.
void Print(const Report& report, Format format, std::ostream& out);
/// For people: the headline, sections, tables (without `omit_in_table` ones), findings, fitted
/// into `width` display columns (0: no limit): the widest columns shrink and their cells wrap at
/// word boundaries inside the column; columns that still do not fit are left out, the rightmost
/// first, and a note under the table names them. A column hidden in the table is shown after all
/// when rows would otherwise look identical. Control characters and bytes that are not UTF-8 are
/// shown as `\x1b` (never sent raw to the terminal).
void PrintTable(const Report& report, std::ostream& out, std::size_t width = 0);
/// RFC 4180: the primary table only, one header line, CRLF line ends (LF with csv_lf), quotes
/// where needed; a text cell starting with = + - @ tab or CR gets a leading ' (no formula runs
/// from log text in a spreadsheet).
void PrintCsv(const Report& report, std::ostream& out);
/// One JSON document: schema_version, command, dlcheck_version, sections, tables, findings.
/// Pure ASCII: invalid UTF-8 in text is replaced by U+FFFD, other non-ASCII text is escaped.
void PrintJson(const Report& report, std::ostream& out);

/// An Office Open XML workbook (binary): a sheet per section and table, typed cells, frozen
/// header rows, autofilters. Throws OutputError when the workbook's files (in TMPDIR, else /tmp)
/// cannot be made or written.
void PrintXlsx(const Report& report, std::ostream& out);
/// Throws OutputError where libxlsxwriter cannot be loaded (PrepareFormat's part for xlsx).
void RequireXlsx();

/// One self-contained HTML page (inline CSS, script and SVG; nothing fetched): findings, the
/// report's charts (Report::charts, chart_data.h), the flame graph and its bottom-up table when
/// the report has `stacks`, then every section and table, sortable and filterable. All text is
/// escaped.
void PrintHtml(const Report& report, std::ostream& out);

/// One line per distinct value of the primary table's `benchdnn` column (the commands that
/// reproduce its primitives), in table order; nothing for a report without that column.
void PrintBenchdnn(const Report& report, std::ostream& out);

/// Chrome trace JSON (chrome://tracing, Perfetto): one complete ("X") event per row of the table
/// named `trace`, whose columns `name`, `category`, `ts_us`, `dur_us`, `pid` and `thread` (found
/// by name, in any order) make the event; every other column becomes an argument of the event.
/// Each thread is named by its rows' layer ("layer fc1") or as the process's main thread. A
/// top-level section's `started_unix_s` (kTraceOrigin: the process start that ts 0 is) becomes
/// the trace's `baseTimeNanoseconds`, as torch.profiler (kineto) writes its own. A report without
/// that table prints no events.
void PrintTrace(const Report& report, std::ostream& out);
inline constexpr std::string_view kTraceTable = "trace";

/// The trace table's columns, declared once (the builder, the trace printer and the documents).
namespace trace_column {
inline constexpr Field kName{"name"};          ///< the event's name
inline constexpr Field kCategory{"category"};  ///< the primitive kind
/// Microseconds since the process started (kTraceOrigin), on CLOCK_REALTIME: the clock of
/// oneDNN's verbose timestamps (gettimeofday) and of torch.profiler's events (clock_gettime
/// CLOCK_REALTIME); without a known start, since the log's first timestamp.
inline constexpr Field kTsUs{"ts_us", Type::kNumber};
inline constexpr Field kDurUs{"dur_us", Type::kNumber};
inline constexpr Field kPid{"pid", Type::kInteger};  ///< the program's process id; 1: unknown
/// The thread (a lane): the main thread's id (the pid) for a program, whose log names no thread;
/// one lane per layer for dlcheck's model.
inline constexpr Field kThread{"thread", Type::kInteger};
inline constexpr Field kLayer{"layer"};
inline constexpr Field kImplementation{"implementation"};
inline constexpr Field kPropKind{"prop_kind"};
inline constexpr Field kProblem{"problem"};
}  // namespace trace_column
inline constexpr Part kTracePart{kTraceTable, "Timeline"};
inline constexpr std::array kTraceColumns = {trace_column::kName,     trace_column::kCategory,
                                             trace_column::kTsUs,     trace_column::kDurUs,
                                             trace_column::kPid,      trace_column::kThread,
                                             trace_column::kLayer,    trace_column::kImplementation,
                                             trace_column::kPropKind, trace_column::kProblem};
/// When the process whose timeline a report holds started, in seconds since the epoch
/// (CLOCK_REALTIME, read by dlcheck just before it started the process): ts_us 0 of the trace.
inline constexpr Field kTraceOrigin{"started_unix_s", Type::kNumber};
/// The `trace` member of a document that has a timeline.
inline contract::Member TraceMember() {
  return contract::Rows(kTracePart, contract::Members(kTraceColumns));
}

/// Collapsed-stack text (what flamegraph.pl, inferno and speedscope read): one "a;b;c N" line per
/// row of the table named `stacks` (its columns `stack`, frames joined by ';', and `samples`),
/// in row order. A report without that table prints nothing.
void PrintFolded(const Report& report, std::ostream& out);
/// The flame graph of the `stacks` table as one SVG document (see flame_graph.h), titled with
/// the table's title and caption.
void PrintFlameGraph(const Report& report, std::ostream& out);
/// `--format svg`: the flame graph of a report with a `stacks` table, else the report's charts
/// (Report::charts) one under another in one SVG document (chart_data.h).
void PrintSvg(const Report& report, std::ostream& out);
/// --format speedscope: the `stacks` table as a speedscope file (its file-format schema: shared
/// frames, one sampled profile whose samples are the stacks, root first, weighted by their
/// sample counts), which speedscope and other flame-graph viewers open.
void PrintSpeedscope(const Report& report, std::ostream& out);
inline constexpr std::string_view kStacksTable = "stacks";

/// A report whose main table is too large to hold (one row per log line): the head is printed
/// at once, rows as they come, and the tail (summary, findings) at the end. Memory stays flat.
class RowStream {
 public:
  virtual ~RowStream() = default;
  virtual void Row(const std::vector<Value>& row) = 0;
  /// Prints the tail's sections, tables and findings, and closes the document.
  virtual void Finish(const Report& tail) = 0;
};

/// The rows a page (`--format html`) keeps of a streamed table: a browser holds no more, and the
/// table's caption says how many were left out.
inline constexpr std::size_t kMaxPageRows = 100000;

/// Prints `head`'s sections now and opens the streamed table `stream` (its columns and name;
/// its rows are ignored). In CSV, only the streamed table is printed. A page (html) is printed
/// whole at Finish, its findings first, with the first kMaxPageRows rows.
std::unique_ptr<RowStream> StartRowStream(Format format, std::ostream& out, const Report& head,
                                          const Table& stream);
/// The table printer's stream, fitted into `width` display columns (0: no limit): the columns
/// get widths from their names (the rows are not known yet) and cells wrap inside them.
std::unique_ptr<RowStream> StartTableStream(std::ostream& out, const Report& head,
                                            const Table& stream, std::size_t width);

}  // namespace dlcheck::report
