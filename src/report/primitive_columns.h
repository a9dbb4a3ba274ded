// SPDX-License-Identifier: Apache-2.0
#pragma once
// The columns of the primitives table, declared once: the printers' writer
// (cli/stats_view.cpp), `diff`'s reader of JSON reports (compare/run_rows.cpp) and the JSON
// contract the schemas are generated from (each document beside its builder) all read these names
// and types, so a column renamed here is renamed everywhere, and none can be spelled two ways.
//
//   for (const primitive_column::Column& c : kPrimitiveColumns) names.push_back(c.name);
//   TextOf(row, primitive_column::kImplementation.name)

#include <array>

#include "report/contract.h"
#include "report/field.h"

namespace dlcheck::report {
namespace primitive_column {

/// One column: its name in every format, and the JSON type of its values.
using Column = Field;

// clang-format off
/// The library that printed the row (`oneDNN`, `ZenDNN`), with its version where the log's
/// header says it (`ZenDNN v5.0.0`)
inline constexpr Column kLibrary{"library", Type::kText};
inline constexpr Column kEngine{"engine", Type::kText};
inline constexpr Column kPrimitive = IdentityColumn("primitive");
inline constexpr Column kImplementation = IdentityColumn("implementation");
inline constexpr Column kIsa{"isa", Type::kText};
inline constexpr Column kIsaSource{"isa_source", Type::kText};
inline constexpr Column kFallback{"fallback", Type::kText};
inline constexpr Column kPropKind = PropagationColumn();
inline constexpr Column kDataTypes{"data_types", Type::kText};
inline constexpr Column kLayouts{"layouts", Type::kText};
inline constexpr Column kAttributes{"attributes", Type::kText};
inline constexpr Column kAuxiliary{"auxiliary", Type::kText};
inline constexpr Column kProblem = IdentityColumn("problem");
inline constexpr Column kCreates{"creates", Type::kInteger};
inline constexpr Column kCacheHits{"cache_hits", Type::kInteger};
inline constexpr Column kCreateMs{"create_ms", Type::kNumber};
inline constexpr Column kNestedCreates{"nested_creates", Type::kInteger};
inline constexpr Column kNestedCreateMs{"nested_create_ms", Type::kNumber};
inline constexpr Column kExecs{"execs", Type::kInteger};
inline constexpr Column kExecMsTotal{"exec_ms_total", Type::kNumber};
inline constexpr Column kExecMsMean{"exec_ms_mean", Type::kNumber};
inline constexpr Column kExecMsMin{"exec_ms_min", Type::kNumber};
inline constexpr Column kExecMsMax{"exec_ms_max", Type::kNumber};
inline constexpr Column kTimePct{"time_pct", Type::kNumber};
inline constexpr Column kGflops{"gflops", Type::kNumber};
inline constexpr Column kBenchdnn{"benchdnn", Type::kText};
/// What oneDNN skipped before creating the row, and why (create:dispatch lines)
inline constexpr Column kSkipped{"skipped", Type::kText};
// Appended after the others where a run has them.
inline constexpr Column kLayer = IdentityColumn("layer");  ///< the model layer that ran the row
inline constexpr Column kFile = IdentityColumn("file");    ///< the input file, when several are read
// clang-format on

}  // namespace primitive_column

/// The primitives table, in every document that has one (`diff`'s is its rows compared).
inline constexpr Part kPrimitivesTable{"primitives", "Primitives"};

/// The columns every primitives table has, in their order.
inline constexpr std::array kPrimitiveColumns = {
    primitive_column::kEngine,         primitive_column::kPrimitive,
    primitive_column::kImplementation, primitive_column::kIsa,
    primitive_column::kIsaSource,      primitive_column::kFallback,
    primitive_column::kPropKind,       primitive_column::kDataTypes,
    primitive_column::kLayouts,        primitive_column::kAttributes,
    primitive_column::kAuxiliary,      primitive_column::kProblem,
    primitive_column::kCreates,        primitive_column::kCacheHits,
    primitive_column::kCreateMs,       primitive_column::kNestedCreates,
    primitive_column::kNestedCreateMs, primitive_column::kExecs,
    primitive_column::kExecMsTotal,    primitive_column::kExecMsMean,
    primitive_column::kExecMsMin,      primitive_column::kExecMsMax,
    primitive_column::kTimePct,        primitive_column::kGflops,
    primitive_column::kBenchdnn,       primitive_column::kSkipped,
    primitive_column::kLibrary,
};

/// The primitives table of a document: the columns every one has, then `extra` (a layer, a file,
/// a configuration's figures).
inline contract::Member PrimitivesMember(std::vector<contract::Member> extra = {}) {
  return contract::Rows(kPrimitivesTable,
                        contract::Joined(contract::Members(kPrimitiveColumns), std::move(extra)));
}

}  // namespace dlcheck::report
