// SPDX-License-Identifier: Apache-2.0
// JSON: one document, as the command's contract (contract.h) declares it: every declared member
// is written, null when the report has nothing for it. Reals keep their full precision;
// non-finite reals are null.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <ostream>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dlcheck/version.h"
#include "report/contract.h"
#include "report/contract_check.h"
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
          // Full precision: rounding is the human table's business (a 1 us primitive's
          // exec_ms_min is 0.001, not 0.0010 nor 0).
          if (!std::isfinite(v)) return nullptr;
          return v;
        } else {
          return v;
        }
      },
      value.data);
}

namespace {

using contract::Member;
using contract::Shape;

// The members `report`'s document declares; none for a report without one.
const std::vector<Member>& Declared(const Report& report) {
  static const std::vector<Member> kNone;
  return report.document == nullptr ? kNone : report.document->members;
}

// The members of a declared object, or none.
const std::vector<Member>& ObjectMembers(const std::vector<Member>& declared,
                                         std::string_view name) {
  static const std::vector<Member> kNone;
  const Member* member = contract::FindMember(declared, name);
  return member != nullptr && member->shape == Shape::kObject ? member->members : kNone;
}

// `object` with every member `declared` names and it lacks added as null, nested objects too.
void Complete(Json& object, const std::vector<Member>& declared) {
  for (const Member& m : declared) {
    auto it = object.find(m.name);
    if (it == object.end()) {
      object[m.name] = nullptr;
    } else if (m.shape == Shape::kObject && it->is_object()) {
      Complete(*it, m.members);
    }
  }
}

}  // namespace

namespace {

// The contract's check on the documents a run writes, asked for by the environment (the
// json_schemas test sets it for every command it runs; nothing else does): a member written that
// its document does not declare, or declares with another shape or type, ends the process with
// the list (so the test fails, naming it); every member written is appended to the file, one
// "command<TAB>path" line each, for the test's other direction: every declared member written by
// some run.
void CheckContract(const Report& report) {
  const char* record = std::getenv("DLCHECK_CONTRACT_PATHS");
  if (record == nullptr || *record == '\0' || report.document == nullptr) return;
  const std::vector<std::string> problems = contract::Undeclared(report);
  if (!problems.empty()) {
    std::fprintf(stderr, "dlcheck: the %s document breaks its declaration:\n",
                 report.command.c_str());
    for (const std::string& p : problems) std::fprintf(stderr, "  %s\n", p.c_str());
    std::abort();
  }
  std::set<std::string> paths;
  contract::AddWrittenPaths(report, paths);
  if (FILE* file = std::fopen(record, "a")) {
    for (const std::string& path : paths) {
      std::fprintf(file, "%s\t%s\n", report.command.c_str(), path.c_str());
    }
    std::fclose(file);
  }
}

}  // namespace

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

Json ToJson(const Section& section, const std::vector<Member>& declared) {
  Json obj = Json::object();
  for (const auto& [key, value] : section.fields) obj[key] = ToJson(value);
  for (const auto& child : section.sections) {
    obj[child.name] = ToJson(child, ObjectMembers(declared, child.name));
  }
  for (const auto& table : section.tables) {
    if (CarriedInDocuments(table)) obj[table.name] = ToJson(table);
  }
  Complete(obj, declared);
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
  namespace identity = contract::identity_field;
  doc[std::string(identity::kSchemaVersion.name)] = Report::kSchemaVersion;
  doc[std::string(identity::kCommand.name)] = report.command;
  doc[std::string(identity::kDlcheckVersion.name)] = kVersion;
  return doc;
}

// The identity and the sections, for the head of a streamed document.
Json Head(const Report& report) {
  Json doc = Identity(report);
  for (const auto& s : report.sections)
    doc[s.name] = ToJson(s, ObjectMembers(Declared(report), s.name));
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
  JsonStream(std::ostream& out, const Report& head, const Table& stream)
      : out_(out), header_(stream), declared_(Declared(head)) {
    header_.rows.clear();
    for (const auto& s : head.sections) written_.push_back(s.name);
    written_.push_back(stream.name);
  }
  void Row(const std::vector<Value>& row) override {
    out_ << (first_ ? "\n    " : ",\n    ") << DumpJson(RowObject(header_, row, 0), -1);
    first_ = false;
  }
  void Finish(const Report& tail) override {
    CheckContract(tail);
    out_ << (first_ ? "]" : "\n  ]");
    Json rest = Json::object();
    for (const auto& s : tail.sections) rest[s.name] = ToJson(s, ObjectMembers(declared_, s.name));
    for (const auto& t : tail.tables) {
      if (CarriedInDocuments(t)) rest[t.name] = ToJson(t);
    }
    // The declared members neither the head nor the tail had, as null.
    for (const Member& m : declared_) {
      if (!rest.contains(m.name) &&
          std::find(written_.begin(), written_.end(), m.name) == written_.end()) {
        rest[m.name] = nullptr;
      }
    }
    rest[std::string(contract::identity_field::kFindings.name)] = Findings(tail);
    out_ << ",\n" << Members(rest) << "\n}\n";
    out_.flush();
  }

 private:
  std::ostream& out_;
  Table header_;
  const std::vector<Member>& declared_;
  std::vector<std::string> written_;  ///< the members the head and the stream wrote
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
  /// Each member of `declared` not added yet, as null (the contract: every declared key present).
  void AddMissing(const std::vector<Member>& declared) {
    for (const Member& m : declared) {
      const bool added = std::any_of(members_.begin(), members_.end(),
                                     [&](const auto& member) { return member.first == m.name; });
      if (!added) Add(m.name, Json(nullptr));
    }
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
    if (!CarriedInDocuments(table)) continue;
    writer.Add(table.name,
               [&table](std::ostream& out, int depth) { WriteTable(out, table, depth); });
  }
}

ObjectWriter SectionWriter(const Section& section, const std::vector<Member>& declared) {
  ObjectWriter writer;
  for (const auto& [key, value] : section.fields) writer.Add(key, ToJson(value));
  for (const Section& child : section.sections) {
    const std::vector<Member>& members = ObjectMembers(declared, child.name);
    writer.Add(child.name, [&child, &members](std::ostream& out, int depth) {
      SectionWriter(child, members).Write(out, depth);
    });
  }
  AddTables(writer, section.tables);
  writer.AddMissing(declared);
  return writer;
}

ObjectWriter DocumentWriter(const Report& report) {
  ObjectWriter writer;
  const Json identity = Identity(report);
  for (const auto& [key, value] : identity.items()) writer.Add(key, value);
  const std::vector<Member>& declared = Declared(report);
  for (const Section& section : report.sections) {
    const std::vector<Member>& members = ObjectMembers(declared, section.name);
    writer.Add(section.name, [&section, &members](std::ostream& out, int depth) {
      SectionWriter(section, members).Write(out, depth);
    });
  }
  AddTables(writer, report.tables);
  writer.AddMissing(declared);
  writer.Add(std::string(contract::identity_field::kFindings.name), Findings(report));
  return writer;
}

}  // namespace

void PrintJson(const Report& report, std::ostream& out) {
  CheckContract(report);
  DocumentWriter(report).Write(out, 0);
  out << '\n';
}

std::unique_ptr<RowStream> StartJsonStream(std::ostream& out, const Report& head,
                                           const Table& stream) {
  Report checked = head;
  checked.tables.push_back(stream);
  CheckContract(checked);
  out << "{\n" << Members(Head(head)) << ",\n  \"" << stream.name << "\": [";
  return std::make_unique<JsonStream>(out, head, stream);
}

}  // namespace dlcheck::report
