// The human table: section headings, aligned key/value fields, aligned tables, findings last.
//
//   CPU
//     vendor             AuthenticAMD
//     microarchitecture  Zen 5
//
//   Features
//     feature   cpuid  os   libcpuid  kernel  usable
//     avx512f   yes    yes  no        yes     yes
//
//   Findings
//     warning  libcpuid 0.6.2 reports no AVX-512, but CPUID leaf 7 reports ...
#include <fmt/format.h>

#include <algorithm>
#include <ostream>

#include "report/printer.h"

namespace dlcheck::report {
namespace {

constexpr std::string_view kNull = "-";

// Text a terminal shows as it is: every control character (an escape sequence from a log, a
// line break in a brand string) becomes visible as \xNN instead of acting on the terminal.
std::string Visible(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += fmt::format("\\x{:02x}", byte);
    } else {
      out += c;
    }
  }
  return out;
}

std::string Cell(const Value& v) {
  return Visible(ValueText(v, kNull, "yes", "no"));
}

std::string Heading(const std::string& title, const std::string& name) {
  return title.empty() ? name : title;
}

void PrintFields(const std::vector<std::pair<std::string, Value>>& fields, int indent,
                 std::ostream& out) {
  std::size_t width = 0;
  for (const auto& [key, value] : fields) width = std::max(width, key.size());
  for (const auto& [key, value] : fields) {
    out << std::string(indent, ' ') << key << std::string(width - key.size() + 2, ' ')
        << Cell(value) << '\n';
  }
}

bool Hidden(const Table& table, const std::string& column) {
  return std::find(table.hidden_in_table.begin(), table.hidden_in_table.end(), column) !=
         table.hidden_in_table.end();
}

void PrintRows(const Table& table, int indent, std::ostream& out) {
  std::vector<std::size_t> shown;
  for (std::size_t c = 0; c < table.columns.size(); ++c) {
    if (!Hidden(table, table.columns[c])) shown.push_back(c);
  }
  std::vector<std::vector<std::string>> cells;
  cells.reserve(table.rows.size());
  std::vector<std::size_t> width(table.columns.size(), 0);
  for (std::size_t c : shown) width[c] = table.columns[c].size();
  for (const auto& row : table.rows) {
    auto& line = cells.emplace_back(table.columns.size());
    for (std::size_t c : shown) {
      if (c < row.size()) line[c] = Cell(row[c]);
      width[c] = std::max(width[c], line[c].size());
    }
  }
  auto emit = [&](auto&& text_of) {
    out << std::string(indent, ' ');
    for (std::size_t i = 0; i < shown.size(); ++i) {
      const std::string& text = text_of(shown[i]);
      out << text;
      if (i + 1 < shown.size()) out << std::string(width[shown[i]] - text.size() + 2, ' ');
    }
    out << '\n';
  };
  emit([&](std::size_t c) -> const std::string& { return table.columns[c]; });
  for (const auto& line : cells) emit([&](std::size_t c) -> const std::string& { return line[c]; });
  if (table.rows.empty()) out << std::string(indent, ' ') << "(none)\n";
}

void PrintSection(const Section& section, int indent, std::ostream& out);

void PrintTableBlock(const Table& table, int indent, std::ostream& out) {
  out << std::string(indent, ' ') << Heading(table.title, table.name) << '\n';
  PrintRows(table, indent + 2, out);
}

void PrintSection(const Section& section, int indent, std::ostream& out) {
  out << std::string(indent, ' ') << Heading(section.title, section.name) << '\n';
  PrintFields(section.fields, indent + 2, out);
  for (const auto& child : section.sections) PrintSection(child, indent + 2, out);
  for (const auto& table : section.tables) PrintTableBlock(table, indent + 2, out);
}

void PrintFindings(const Report& report, std::ostream& out) {
  if (report.findings.empty()) return;
  out << "Findings\n";
  for (const auto& f : report.findings) {
    out << "  " << SeverityName(f.severity) << ": " << Visible(f.message) << '\n';
  }
}

void PrintTail(const Report& report, std::ostream& out) {
  for (const auto& t : report.tables) {
    if (t.omit_in_table) continue;
    out << '\n';
    PrintTableBlock(t, 0, out);
  }
  if (!report.findings.empty()) {
    out << '\n';
    PrintFindings(report, out);
  }
}

class TableStream : public RowStream {
 public:
  TableStream(std::ostream& out, const Table& stream) : out_(out) {
    for (const auto& c : stream.columns) {
      width_.push_back(std::max<std::size_t>(c.size(), 6));
      hidden_.push_back(Hidden(stream, c));
    }
    Emit(stream.columns);
  }
  void Row(const std::vector<Value>& row) override {
    std::vector<std::string> line;
    line.reserve(row.size());
    for (const auto& v : row) line.push_back(Cell(v));
    Emit(line);
  }
  void Finish(const Report& tail) override {
    for (const auto& s : tail.sections) {
      out_ << '\n';
      PrintSection(s, 0, out_);
    }
    PrintTail(tail, out_);
    out_.flush();
  }

 private:
  void Emit(const std::vector<std::string>& line) {
    bool first = true;
    for (std::size_t i = 0; i < line.size() && i < width_.size(); ++i) {
      if (hidden_[i]) continue;
      if (!first) out_ << "  ";
      first = false;
      out_ << line[i];
      if (line[i].size() < width_[i]) out_ << std::string(width_[i] - line[i].size(), ' ');
    }
    out_ << '\n';
  }
  std::ostream& out_;
  std::vector<std::size_t> width_;
  std::vector<bool> hidden_;
};

}  // namespace

void PrintTable(const Report& report, std::ostream& out) {
  if (!report.headline.empty()) out << Visible(report.headline) << '\n';
  bool first = true;
  for (const auto& s : report.sections) {
    if (!first) out << '\n';
    first = false;
    PrintSection(s, 0, out);
  }
  PrintTail(report, out);
}

std::unique_ptr<RowStream> StartTableStream(std::ostream& out, const Report& head,
                                            const Table& stream) {
  for (const auto& s : head.sections) {
    PrintSection(s, 0, out);
    out << '\n';
  }
  out << Heading(stream.title, stream.name) << '\n';
  return std::make_unique<TableStream>(out, stream);
}

}  // namespace dlcheck::report
