// SPDX-License-Identifier: Apache-2.0
#pragma once
// The words of a report, declared once beside the code that writes them. A builder declares its
// fields, sections and tables as constants in its header; it writes through them, the document
// it publishes (report/contract.h) is made of them, and a reader of its JSON (`fleet`, `diff`)
// reads through them: a field's name is spelled in one place, a misspelt one does not compile.
//
//   // detect/topology_report.h
//   namespace topology_field {
//   inline constexpr report::Field kPackages{"packages", report::Type::kInteger};
//   }
//   // detect/topology_report.cpp
//   section.Add(topology_field::kPackages, topology.packages);
//   // fleet/fleet.cpp
//   IntegerOf(topology, topology_field::kPackages.name);

#include <string_view>

#include "common/propagation.h"

namespace dlcheck::report {

/// What a value (or a map's value, or a list's item) holds when it is not null.
enum class Type { kText, kInteger, kNumber, kBoolean };

/// How many values a field holds: one, a list of them, or a map keyed by data (skip reasons).
enum class Arity { kOne, kList, kMap };

/// What a table's column is to a reader of the human table on a narrow terminal, declared with the
/// column (never per command): a detail goes before the columns that make a row unique.
enum class Role {
  kDetail,    ///< a measurement, a layout, a decoration: left out first when a row does not fit
  kIdentity,  ///< makes a row unique (kind, propagation, implementation, problem): kept last
};

/// A cell's short spelling for a narrow human table, one to one with the whole text (rows that
/// differ stay apart): `bwd_w` for `backward_weights`.
using ShortForm = std::string_view (*)(std::string_view);

/// A field of a section or a column of a table: its name in every format, its type, and, for a
/// column, its role in the human table and its short spelling there.
struct Field {
  std::string_view name;
  Type type = Type::kText;
  Arity arity = Arity::kOne;
  Role role = Role::kDetail;
  /// Where the human table would cut or leave out the column, its cells are shown in this
  /// spelling instead (every cell, so that a column reads one way); CSV, JSON, xlsx and HTML keep
  /// the whole text.
  ShortForm short_form = nullptr;
};

/// A text column that makes a row unique (Role::kIdentity).
constexpr Field IdentityColumn(std::string_view name) {
  return {name, Type::kText, Arity::kOne, Role::kIdentity};
}

/// A column of oneDNN propagation kinds: it makes a row unique, and a narrow table shows
/// benchdnn's short directions (`fwd_d`, `bwd_d`, `bwd_w`) where `backward_…` would read alike.
constexpr Field PropagationColumn(std::string_view name = "prop_kind") {
  return {name, Type::kText, Arity::kOne, Role::kIdentity, &onednn::ShortPropagation};
}

/// A section (a JSON object) or a table (an array of rows): its name in every format and its
/// heading in the human table.
struct Part {
  std::string_view name;
  std::string_view title = {};
};

}  // namespace dlcheck::report
