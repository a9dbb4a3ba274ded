// SPDX-License-Identifier: Apache-2.0
// Office Open XML workbook (libxlsxwriter): one sheet per section and table, typed cells (a
// number is a number whatever the reader's locale; text is a string, never a formula or a
// date, so `10:10` and `=1+2` stay text), a bold frozen header row and an autofilter on each
// table. libxlsxwriter writes to a file; the printer writes a temporary one and copies its bytes
// to the stream, so `-f xlsx > report.xlsx` and `-o report.xlsx` both work.
#include <fcntl.h>
#include <unistd.h>
#include <xlsxwriter.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

#include "common/lazy_library.h"
#include "os/removed_on_signal.h"
#include "report/printer.h"
#include "report/safe_text.h"

namespace dlcheck::report {
namespace {

// libxlsxwriter, loaded at the first workbook, not linked: it brings libcrypto and minizip with
// it, and loading them cost every run of dlcheck about 1 ms of its start, for the one format that
// calls it. library.error() says why it cannot be used.
struct XlsxLibrary {
  LazyLibrary library{"libxlsxwriter.so.4"};
  DLCHECK_LAZY_FUNCTION(workbook_new_opt);
  DLCHECK_LAZY_FUNCTION(workbook_close);
  DLCHECK_LAZY_FUNCTION(workbook_add_worksheet);
  DLCHECK_LAZY_FUNCTION(workbook_add_format);
  DLCHECK_LAZY_FUNCTION(format_set_bold);
  DLCHECK_LAZY_FUNCTION(worksheet_write_string);
  DLCHECK_LAZY_FUNCTION(worksheet_write_number);
  DLCHECK_LAZY_FUNCTION(worksheet_write_boolean);
  DLCHECK_LAZY_FUNCTION(worksheet_set_column);
  DLCHECK_LAZY_FUNCTION(worksheet_freeze_panes);
  DLCHECK_LAZY_FUNCTION(worksheet_autofilter);
  DLCHECK_LAZY_FUNCTION(lxw_strerror);
};

const XlsxLibrary& Xlsx() {
  static const XlsxLibrary library;
  return library;
}

// Valid UTF-8 for the sheet's XML (libxlsxwriter escapes control characters itself).
std::string ValidText(const std::string& text) {
  return ValidUtf8Text(text, "\xEF\xBF\xBD");  // U+FFFD, as in JSON
}

// A sheet name Excel accepts: at most 31 characters, none of []:*?/\, unique in the workbook.
std::string SheetName(std::string name, std::set<std::string>& used) {
  for (char& c : name) {
    if (std::string_view("[]:*?/\\").find(c) != std::string_view::npos) c = '_';
  }
  if (name.empty()) name = "sheet";
  name = name.substr(0, 31);
  std::string unique = name;
  for (int n = 2; used.count(unique) != 0; ++n) {
    const std::string suffix = "_" + std::to_string(n);
    unique = name.substr(0, 31 - suffix.size()) + suffix;
  }
  used.insert(unique);
  return unique;
}

struct Styles {
  lxw_format* header = nullptr;
};

// Excel's limit on a cell's text (LXW_STR_MAX): a longer string is not written at all.
constexpr std::size_t kMaxCellChars = 32767;
// Column widths, in characters: from the header and the cells, within these bounds.
constexpr double kMinColumnWidth = 6;
constexpr double kMaxColumnWidth = 60;

// What a workbook's sheets met on the way: each text cell cut to Excel's limit ("sheet!B12:
// 40000 characters"), the widest text of each column of the sheet being written.
struct WriteLog {
  std::vector<std::string> cut_cells;
  std::vector<std::size_t> widths;
};

// Characters (code points) of UTF-8 text.
std::size_t Chars(std::string_view text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

// `text` cut to Excel's limit with a visible marker ("… [cut: 40000 characters]"), whole code
// points only.
std::string CutToCellLimit(const std::string& text) {
  const std::string marker = "\u2026 [cut: " + std::to_string(Chars(text)) + " characters]";
  const std::size_t keep = kMaxCellChars - Chars(marker);
  std::size_t chars = 0;
  std::size_t end = 0;
  while (end < text.size() && chars < keep) {
    ++end;
    while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
    ++chars;
  }
  return text.substr(0, end) + marker;
}

std::string CellName(lxw_row_t row, lxw_col_t col) {
  std::string letters;
  for (unsigned n = col + 1; n > 0; n = (n - 1) / 26) {
    letters.insert(letters.begin(), static_cast<char>('A' + (n - 1) % 26));
  }
  return letters + std::to_string(row + 1);
}

void Widen(WriteLog& log, lxw_col_t col, std::size_t width) {
  if (log.widths.size() <= col) log.widths.resize(col + 1, 0);
  log.widths[col] = std::max(log.widths[col], width);
}

void WriteText(lxw_worksheet* sheet, const std::string& name, lxw_row_t row, lxw_col_t col,
               const std::string& raw, WriteLog& log) {
  std::string text = ValidText(raw);
  if (Chars(text) > kMaxCellChars) {
    log.cut_cells.push_back(name + "!" + CellName(row, col) + ": " + std::to_string(Chars(text)) +
                            " characters");
    text = CutToCellLimit(text);
  }
  Widen(log, col, Chars(text));
  Xlsx().worksheet_write_string(sheet, row, col, text.c_str(), nullptr);
}

void WriteCell(lxw_worksheet* sheet, const std::string& name, lxw_row_t row, lxw_col_t col,
               const Value& value, WriteLog& log) {
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool>) {
          Xlsx().worksheet_write_boolean(sheet, row, col, v ? 1 : 0, nullptr);
          Widen(log, col, 5);
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          Xlsx().worksheet_write_number(sheet, row, col, static_cast<double>(v), nullptr);
          Widen(log, col, std::to_string(v).size());
        } else if constexpr (std::is_same_v<T, double>) {
          if (std::isfinite(v)) Xlsx().worksheet_write_number(sheet, row, col, v, nullptr);
          Widen(log, col, ValueText(value, "", "", "").size());
        } else if constexpr (std::is_same_v<T, std::string>) {
          WriteText(sheet, name, row, col, v, log);
        } else if constexpr (std::is_same_v<T, TextList>) {
          WriteText(sheet, name, row, col, ValueText(value, "", "true", "false"), log);
        }
      },
      value.data);
}

void WriteHeader(lxw_worksheet* sheet, const std::vector<std::string>& columns,
                 const Styles& styles, WriteLog& log) {
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const std::string text = ValidText(columns[c]);
    Xlsx().worksheet_write_string(sheet, 0, static_cast<lxw_col_t>(c), text.c_str(), styles.header);
    Widen(log, static_cast<lxw_col_t>(c), Chars(text) + 2);  // room for the autofilter's button
  }
  Xlsx().worksheet_freeze_panes(sheet, 1, 0);
}

// Each column as wide as its header and widest cell, within kMinColumnWidth..kMaxColumnWidth.
void SizeColumns(lxw_worksheet* sheet, const std::vector<std::size_t>& widths) {
  for (std::size_t c = 0; c < widths.size(); ++c) {
    const double width =
        std::clamp(static_cast<double>(widths[c]) + 1, kMinColumnWidth, kMaxColumnWidth);
    Xlsx().worksheet_set_column(sheet, static_cast<lxw_col_t>(c), static_cast<lxw_col_t>(c), width,
                                nullptr);
  }
}

// The workbook being written: its styles, the sheet names taken, what its sheets met.
struct Book {
  lxw_workbook* workbook = nullptr;
  Styles styles;
  std::set<std::string> used;
  std::vector<std::string> cut_cells;
};

void WriteTable(Book& book, const Table& table, const std::string& prefix) {
  const std::string name = SheetName(prefix + table.name, book.used);
  lxw_worksheet* sheet = Xlsx().workbook_add_worksheet(book.workbook, name.c_str());
  if (sheet == nullptr) throw std::runtime_error("cannot add the sheet " + name);
  WriteLog log;
  WriteHeader(sheet, table.columns, book.styles, log);
  lxw_row_t r = 0;
  ForEachRow(table, [&](const std::vector<Value>& row) {
    ++r;
    for (std::size_t c = 0; c < row.size(); ++c) {
      WriteCell(sheet, name, r, static_cast<lxw_col_t>(c), row[c], log);
    }
  });
  if (!table.columns.empty()) {
    Xlsx().worksheet_autofilter(sheet, 0, 0, r, static_cast<lxw_col_t>(table.columns.size() - 1));
  }
  SizeColumns(sheet, log.widths);
  book.cut_cells.insert(book.cut_cells.end(), log.cut_cells.begin(), log.cut_cells.end());
}

// A section's fields as a two-column sheet (field, value), then its tables and subsections.
void WriteSection(Book& book, const Section& section, const std::string& prefix) {
  const std::string path = prefix + section.name;
  if (!section.fields.empty()) {
    Table fields{section.name, section.title, {"field", "value"}, {}};
    for (const auto& [key, value] : section.fields) fields.rows.push_back({key, value});
    WriteTable(book, fields, prefix);
  }
  for (const Table& table : section.tables) {
    if (CarriedInDocuments(table)) WriteTable(book, table, path + ".");
  }
  for (const Section& sub : section.sections) WriteSection(book, sub, path + ".");
}

// The report's findings, and one for each text cell cut to Excel's limit.
Table FindingsTable(const Report& report, const std::vector<std::string>& cut_cells) {
  Table findings{"findings", "Findings", {"severity", "code", "message"}, {}};
  for (const Finding& f : report.findings) {
    findings.rows.push_back({std::string(SeverityName(f.severity)), f.code, f.message});
  }
  for (const std::string& cell : cut_cells) {
    findings.rows.push_back(
        {std::string(SeverityName(Severity::kWarning)), "xlsx_cell_cut",
         cell + " cut to Excel's limit of " + std::to_string(kMaxCellChars) +
             " characters (marked \u2026 [cut: ...]); -f json or -f csv has the whole text"});
  }
  return findings;
}

// The directory for temporary files: TMPDIR, else /tmp.
std::string TempDir() {
  const char* dir = std::getenv("TMPDIR");
  return dir != nullptr && *dir ? dir : "/tmp";
}

// "<what> in DIR: <errno text>; set TMPDIR to a writable directory with room".
std::string TempFileError(const std::string& what, int error) {
  return what + " in " + TempDir() + (error != 0 ? ": " + std::string(std::strerror(error)) : "") +
         "; set TMPDIR to a writable directory with room";
}

// libxlsxwriter reports its own failures on stderr ("[ERROR] ... packager.c"); dlcheck says
// what went wrong in its one line, so the library's words are muted while it works.
class LibraryStderrMuted {
 public:
  LibraryStderrMuted() : saved_(dup(STDERR_FILENO)) {
    const int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ < 0 || null_fd < 0) {
      if (null_fd >= 0) close(null_fd);
      return;
    }
    std::fflush(stderr);
    dup2(null_fd, STDERR_FILENO);
    close(null_fd);
  }
  ~LibraryStderrMuted() {
    if (saved_ < 0) return;
    std::fflush(stderr);
    dup2(saved_, STDERR_FILENO);
    close(saved_);
  }
  LibraryStderrMuted(const LibraryStderrMuted&) = delete;
  LibraryStderrMuted& operator=(const LibraryStderrMuted&) = delete;

 private:
  int saved_;
};

void WriteWorkbook(const Report& report, const std::string& path) {
  RequireXlsx();
  const LibraryStderrMuted muted;
  // constant_memory: each row goes to a temporary file once the next one starts, so a large
  // table is never held (strings are then written inline in the sheet, not shared; rows must
  // come in order, as they do here).
  std::string tmpdir = TempDir();
  lxw_workbook_options options{
      .constant_memory = LXW_TRUE, .tmpdir = tmpdir.data(), .use_zip64 = LXW_FALSE};
  errno = 0;
  lxw_workbook* workbook = Xlsx().workbook_new_opt(path.c_str(), &options);
  if (workbook == nullptr) throw OutputError(TempFileError("cannot create the workbook", errno));
  Book book{.workbook = workbook, .styles = {Xlsx().workbook_add_format(workbook)}};
  Xlsx().format_set_bold(book.styles.header);
  // The primary table first: the sheet a spreadsheet opens on.
  if (const Table* primary = report.Primary()) WriteTable(book, *primary, "");
  for (const Section& section : report.sections) WriteSection(book, section, "");
  for (const Table& table : report.tables) {
    if (&table != report.Primary() && CarriedInDocuments(table)) WriteTable(book, table, "");
  }
  WriteTable(book, FindingsTable(report, book.cut_cells), "");
  errno = 0;
  const lxw_error closed = Xlsx().workbook_close(workbook);
  if (closed != LXW_NO_ERROR) {
    throw OutputError(TempFileError(
        std::string("cannot write the workbook (") + Xlsx().lxw_strerror(closed) + ")", errno));
  }
}

// A temporary file that is removed however the printer ends.
class TempPath {
 public:
  TempPath() {
    std::string pattern = TempDir() + "/dlcheck-XXXXXX";
    const int fd = mkstemp(pattern.data());
    if (fd < 0)
      throw OutputError(TempFileError("cannot create a temporary file for the workbook", errno));
    close(fd);
    path_ = pattern;
    removed_on_signal_.Reset(path_);  // a SIGTERM while the workbook is packed leaves nothing
  }
  ~TempPath() { std::remove(path_.c_str()); }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  os::RemovedOnSignal removed_on_signal_;
};

}  // namespace

void RequireXlsx() {
  if (Xlsx().library.error().empty()) return;
  throw OutputError(
      "--format xlsx needs libxlsxwriter (Debian: libxlsxwriter4), which could not "
      "be loaded: " +
      Xlsx().library.error() + "; install it, or choose another format");
}

void PrintXlsx(const Report& report, std::ostream& out) {
  const TempPath temp;
  WriteWorkbook(report, temp.path());
  std::ifstream in(temp.path(), std::ios::binary);
  out << in.rdbuf();
}

}  // namespace dlcheck::report
