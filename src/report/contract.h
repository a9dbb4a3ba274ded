#pragma once
// The JSON contract of a command's document, declared once: the members a document has, their
// shapes (a scalar, an object, a table's rows, a map keyed by data, a list) and their types. The
// published schemas in schemas/ are generated from these declarations (`dlcheck schema COMMAND`,
// checked in; a test fails when they differ), and the JSON printer reads the same declaration to
// write every declared member, null when the run had nothing for it.
//
//   const Document kDiff{"diff", "two runs compared", {
//       Object("input", {Text("a"), Text("b"), Real("threshold")}),
//       Rows("primitives", {Text("primitive"), Real("ratio"), ...}),
//   }};
//
// The rules every document keeps (README, "JSON contracts"): any value may be null; a map keyed
// by data (skip reasons, features, ISA caps) has values of one shape and no fixed keys; a table's
// row objects carry the table's columns, all of them unless --columns chose some.

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck::report::contract {

/// What a scalar (or a map's value, or a list's item) holds when it is not null.
enum class Type { kText, kInteger, kNumber, kBoolean };

enum class Shape {
  kScalar,     ///< one value of `type`
  kObject,     ///< an object of `members` (a report Section)
  kRows,       ///< an array of row objects, one member per column (a report Table)
  kKeyedRows,  ///< an object keyed by the first column's text, each value an object of `members`
  kMap,        ///< an object keyed by data, each value of `type`
  kList,       ///< an array of `type`
};

struct Member {
  std::string name;
  Shape shape = Shape::kScalar;
  Type type = Type::kText;
  std::vector<Member> members;
};

Member Text(std::string name);
Member Integer(std::string name);
Member Number(std::string name);
Member Boolean(std::string name);
Member Object(std::string name, std::vector<Member> members);
Member Rows(std::string name, std::vector<Member> columns);
/// A table printed as an object keyed by its first column (`features{avx512f{...}}`): `columns`
/// are the other columns.
Member KeyedRows(std::string name, std::vector<Member> columns);
Member Map(std::string name, Type value_type);
Member List(std::string name, Type item_type);

/// One command's document: its members after the identity (schema_version, command,
/// dlcheck_version) and before `findings`, which every document has.
struct Document {
  std::string command;
  std::string title;
  std::vector<Member> members;
};

/// The declared document of `command`, or nullptr (every command that prints JSON has one).
const Document* Find(std::string_view command);
/// Every declared document, in the order of the commands.
const std::vector<Document>& All();

/// The JSON Schema (draft 2020-12) of `document`, as schemas/<command>.schema.json holds it.
std::string SchemaText(const Document& document);

/// The member of `members` called `name`, or nullptr.
const Member* FindMember(const std::vector<Member>& members, std::string_view name);

}  // namespace dlcheck::report::contract
