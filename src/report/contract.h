// SPDX-License-Identifier: Apache-2.0
#pragma once
// The JSON contract of a command's document: the members a document has, their shapes (a
// scalar, an object, a table's rows, a map keyed by data, a list) and their types. Each document
// is declared beside the builder that fills it, made of that builder's field constants
// (report/field.h), so a name is spelled once. The published schemas in schemas/ are generated
// from these declarations (`dlcheck schema COMMAND`, checked in; a test fails when they differ),
// and the JSON printer reads the declaration a Report points at to write every declared member,
// null when the run had nothing for it.
//
//   // compare/row_diff.cpp, beside BuildDiffReport
//   const Document& DiffDocument() {
//     static const Document kDiff{"diff", "two runs compared", {
//         Object(kSummary, {diff_field::kA, diff_field::kB, diff_field::kThresholdPct}),
//         Rows(kPrimitives, kDiffColumns)}};
//     return kDiff;
//   }
//
// The rules every document keeps (README, "JSON contracts"): any value may be null; a map keyed
// by data (skip reasons, features, ISA caps) has values of one shape and no fixed keys; a table's
// row objects carry the table's columns, all of them unless --columns chose some.

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "report/field.h"

namespace dlcheck::report::contract {

using report::Type;

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

  Member() = default;
  Member(std::string member_name, Shape member_shape, Type member_type,
         std::vector<Member> member_members = {})
      : name(std::move(member_name)),
        shape(member_shape),
        type(member_type),
        members(std::move(member_members)) {}
  /// A declared field: a scalar, a list or a map of its type.
  Member(const Field& field);  // NOLINT: implicit, so that a list of fields is a list of members
};

/// The members for `fields`, in their order.
std::vector<Member> Members(std::span<const Field> fields);
/// `first`'s members, then `then`'s.
std::vector<Member> Joined(std::vector<Member> first, std::vector<Member> then);

Member Object(const Part& part, std::vector<Member> members);
Member Rows(const Part& part, std::vector<Member> columns);
/// A table printed as an object keyed by its first column (`features{avx512f{...}}`): `columns`
/// are the other columns.
Member KeyedRows(const Part& part, std::vector<Member> columns);

/// The members every document starts and ends with, written by the JSON printer.
namespace identity_field {
inline constexpr Field kSchemaVersion{"schema_version", Type::kInteger};
inline constexpr Field kCommand{"command"};
inline constexpr Field kDlcheckVersion{"dlcheck_version"};
inline constexpr Field kFindings{"findings"};  ///< the list of {severity, code, message}
}  // namespace identity_field

/// One command's document: its members after the identity (schema_version, command,
/// dlcheck_version) and before `findings`, which every document has.
struct Document {
  std::string command;
  std::string title;
  std::vector<Member> members;
  /// The report's main table (its primary table): what a `--columns` choice without TABLE:
  /// names, and what the check of the command line names in its error.
  std::string main_table;
};

/// The JSON Schema name of `type`: "string", "integer", "number" or "boolean".
const char* TypeName(Type type);

/// The JSON Schema (draft 2020-12) of `document`, as schemas/<command>.schema.json holds it.
std::string SchemaText(const Document& document);

/// The member of `members` called `name`, or nullptr.
const Member* FindMember(const std::vector<Member>& members, std::string_view name);

}  // namespace dlcheck::report::contract
