// JSON: one document. Reals are rounded to their Value's precision; non-finite reals are null.
#include <cmath>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

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
    ForEachRow(table, [&](const std::vector<Value>& row) {
      obj[ValueText(row.front(), "null", "true", "false")] = RowObject(table, row, 1);
    });
    return obj;
  }
  Json arr = Json::array();
  ForEachRow(table,
             [&](const std::vector<Value>& row) { arr.push_back(RowObject(table, row, 0)); });
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

// What every document starts with: the schema, the command and the version.
Json Identity(const Report& report) {
  Json doc = Json::object();
  doc["schema_version"] = Report::kSchemaVersion;
  doc["command"] = report.command;
  doc["dlcheck_version"] = kVersion;
  return doc;
}

// The identity and the sections, for the head of a streamed document.
Json Head(const Report& report) {
  Json doc = Identity(report);
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

// The piecewise document: written as DumpJson(doc, 2) would write the whole DOM, byte for byte,
// but a table's rows are made and dumped one row object at a time, so that a generated table is
// never held whole (as cells or as a DOM).

std::string Indent(int depth) {
  return std::string(2 * static_cast<std::size_t>(depth), ' ');
}

// `value` as DumpJson(..., 2) lays it out inside a document, its first line where the caller is
// and each further line indented for `depth` (JSON text holds no raw newline but these).
void WriteNested(std::ostream& out, const Json& value, int depth) {
  const std::string text = DumpJson(value, 2);
  const std::string indent = "\n" + Indent(depth);
  std::size_t from = 0;
  for (std::size_t at; (at = text.find('\n', from)) != std::string::npos; from = at + 1) {
    out.write(text.data() + from, static_cast<std::streamsize>(at - from));
    out << indent;
  }
  out.write(text.data() + from, static_cast<std::streamsize>(text.size() - from));
}

// An object's members, each written when the object is: `write(out, depth)` writes one value.
// A key added again replaces the earlier member's value in its place, as ordered_json does.
class ObjectWriter {
 public:
  using WriteValue = std::function<void(std::ostream&, int)>;
  void Add(const std::string& key, WriteValue write) {
    for (auto& [k, w] : members_) {
      if (k == key) {
        w = std::move(write);
        return;
      }
    }
    members_.emplace_back(key, std::move(write));
  }
  void Add(const std::string& key, Json value) {
    Add(key, [value = std::move(value)](std::ostream& out, int depth) {
      WriteNested(out, value, depth);
    });
  }
  void Write(std::ostream& out, int depth) const {
    if (members_.empty()) {
      out << "{}";
      return;
    }
    out << "{\n";
    for (std::size_t i = 0; i < members_.size(); ++i) {
      out << (i ? ",\n" : "") << Indent(depth + 1) << DumpJson(Json(members_[i].first), -1) << ": ";
      members_[i].second(out, depth + 1);
    }
    out << '\n' << Indent(depth) << '}';
  }

 private:
  std::vector<std::pair<std::string, WriteValue>> members_;
};

// An array of row objects, a row made, dumped and let go at a time. A keyed table is built
// whole: a repeated key replaces an earlier row, which only the whole object knows.
void WriteTable(std::ostream& out, const Table& table, int depth) {
  if (table.keyed_by_first_column || RowCount(table) == 0) {
    WriteNested(out, ToJson(table), depth);
    return;
  }
  out << "[\n";
  bool first = true;
  ForEachRow(table, [&](const std::vector<Value>& row) {
    out << (first ? "" : ",\n") << Indent(depth + 1);
    WriteNested(out, RowObject(table, row, 0), depth + 1);
    first = false;
  });
  out << '\n' << Indent(depth) << ']';
}

void AddTables(ObjectWriter& writer, const std::vector<Table>& tables) {
  for (const Table& table : tables) {
    if (table.only_in_table) continue;
    writer.Add(table.name,
               [&table](std::ostream& out, int depth) { WriteTable(out, table, depth); });
  }
}

ObjectWriter SectionWriter(const Section& section) {
  ObjectWriter writer;
  for (const auto& [key, value] : section.fields) writer.Add(key, ToJson(value));
  for (const Section& child : section.sections) {
    writer.Add(child.name,
               [&child](std::ostream& out, int depth) { SectionWriter(child).Write(out, depth); });
  }
  AddTables(writer, section.tables);
  return writer;
}

ObjectWriter DocumentWriter(const Report& report) {
  ObjectWriter writer;
  const Json identity = Identity(report);
  for (const auto& [key, value] : identity.items()) writer.Add(key, value);
  for (const Section& section : report.sections) {
    writer.Add(section.name, [&section](std::ostream& out, int depth) {
      SectionWriter(section).Write(out, depth);
    });
  }
  AddTables(writer, report.tables);
  writer.Add("findings", Findings(report));
  return writer;
}

}  // namespace

void PrintJson(const Report& report, std::ostream& out) {
  DocumentWriter(report).Write(out, 0);
  out << '\n';
}

std::unique_ptr<RowStream> StartJsonStream(std::ostream& out, const Report& head,
                                           const Table& stream) {
  out << "{\n" << Members(Head(head)) << ",\n  \"" << stream.name << "\": [";
  return std::make_unique<JsonStream>(out, stream);
}

}  // namespace dlcheck::report
