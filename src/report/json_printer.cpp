// JSON: one document. Reals are rounded to their Value's precision; non-finite reals are null.
#include <cmath>
#include <ostream>

#include "dlcheck/version.h"
#include "report/json_value.h"
#include "report/printer.h"

namespace dlcheck::report {

Json ToJson(const Value& value) {
  return std::visit(
      [&](const auto& v) -> Json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return nullptr;
        } else if constexpr (std::is_same_v<T, double>) {
          if (!std::isfinite(v)) return nullptr;
          const double scale = std::pow(10.0, value.precision);
          return std::round(v * scale) / scale;
        } else {
          return v;
        }
      },
      value.data);
}

// Pure ASCII: bytes that are not UTF-8 become U+FFFD, and every other non-ASCII character a
// \uXXXX escape, so that no control character (C0 or C1, which some terminals obey) reaches a
// terminal that shows the document; a JSON reader gets the same text back.
std::string DumpJson(const Json& doc, int indent) {
  return doc.dump(indent, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
}

namespace {

Json RowObject(const Table& table, const std::vector<Value>& row, std::size_t first) {
  Json obj = Json::object();
  for (std::size_t i = first; i < table.columns.size() && i < row.size(); ++i) {
    obj[table.columns[i]] = ToJson(row[i]);
  }
  return obj;
}

Json ToJson(const Table& table) {
  if (table.keyed_by_first_column) {
    Json obj = Json::object();
    for (const auto& row : table.rows) {
      obj[ValueText(row.front(), "null", "true", "false")] = RowObject(table, row, 1);
    }
    return obj;
  }
  Json arr = Json::array();
  for (const auto& row : table.rows) arr.push_back(RowObject(table, row, 0));
  return arr;
}

Json ToJson(const Section& section) {
  Json obj = Json::object();
  for (const auto& [key, value] : section.fields) obj[key] = ToJson(value);
  for (const auto& child : section.sections) obj[child.name] = ToJson(child);
  for (const auto& table : section.tables) {
    if (!table.only_in_table) obj[table.name] = ToJson(table);
  }
  return obj;
}

Json Findings(const Report& report) {
  Json arr = Json::array();
  for (const auto& f : report.findings) {
    arr.push_back(
        {{"severity", SeverityName(f.severity)}, {"code", f.code}, {"message", f.message}});
  }
  return arr;
}

Json Head(const Report& report) {
  Json doc = Json::object();
  doc["schema_version"] = Report::kSchemaVersion;
  doc["command"] = report.command;
  doc["dlcheck_version"] = kVersion;
  for (const auto& s : report.sections) doc[s.name] = ToJson(s);
  return doc;
}

// The members of `obj` without the braces, for splicing around a streamed array.
std::string Members(const Json& obj) {
  if (obj.empty()) return {};
  std::string text = DumpJson(obj, 2);
  // "{\n  ...\n}" -> "  ..."
  return text.substr(2, text.size() - 4);
}

class JsonStream : public RowStream {
 public:
  JsonStream(std::ostream& out, const Table& stream) : out_(out), header_(stream) {
    header_.rows.clear();
  }
  void Row(const std::vector<Value>& row) override {
    out_ << (first_ ? "\n    " : ",\n    ") << DumpJson(RowObject(header_, row, 0), -1);
    first_ = false;
  }
  void Finish(const Report& tail) override {
    out_ << (first_ ? "]" : "\n  ]");
    Json rest = Json::object();
    for (const auto& s : tail.sections) rest[s.name] = ToJson(s);
    for (const auto& t : tail.tables) {
      if (!t.only_in_table) rest[t.name] = ToJson(t);
    }
    rest["findings"] = Findings(tail);
    out_ << ",\n" << Members(rest) << "\n}\n";
    out_.flush();
  }

 private:
  std::ostream& out_;
  Table header_;
  bool first_ = true;
};

}  // namespace

void PrintJson(const Report& report, std::ostream& out) {
  Json doc = Head(report);
  for (const auto& t : report.tables) {
    if (!t.only_in_table) doc[t.name] = ToJson(t);
  }
  doc["findings"] = Findings(report);
  out << DumpJson(doc, 2) << '\n';
}

std::unique_ptr<RowStream> StartJsonStream(std::ostream& out, const Report& head,
                                           const Table& stream) {
  out << "{\n" << Members(Head(head)) << ",\n  \"" << stream.name << "\": [";
  return std::make_unique<JsonStream>(out, stream);
}

}  // namespace dlcheck::report
