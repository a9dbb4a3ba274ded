// SPDX-License-Identifier: Apache-2.0
#pragma once
// The per-primitive views of verbose statistics: the primitives table (the CSV contract), the
// events table, their columns and rows, the sort, and benchdnn batch files. Used by every command
// that reports primitives (parse, verbose, run, dispatch, profile).
//
//   CSV, aggregates (columns in this order, `layer` appended when asked):
//   engine,primitive,implementation,isa,isa_source,fallback,prop_kind,data_types,layouts,
//   attributes,auxiliary,problem,creates,cache_hits,create_ms,nested_creates,nested_create_ms,
//   execs,exec_ms_total,exec_ms_mean,exec_ms_min,exec_ms_max,time_pct,gflops,benchdnn
//   CSV, --events:
//   line,era,operation,cache,engine,primitive,implementation,isa,isa_source,fallback,prop_kind,
//   memory_descriptors,attributes,auxiliary,problem,time_ms,timestamp,message

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/sort_key.h"
#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"
#include "verbose/aggregate.h"
#include "verbose/benchdnn.h"
#include "verbose/line_parser.h"
#include "verbose/verbose_event.h"

namespace dlcheck::cli {

/// The events table's columns (one row per verbose event, `--events`), declared once.
namespace event_column {
using report::Field;
using report::Type;
// clang-format off
inline constexpr Field kLine{"line", Type::kInteger, report::Arity::kOne, report::Role::kIdentity};
inline constexpr Field kEra{"era"};
inline constexpr Field kOperation{"operation"};
inline constexpr Field kCache{"cache"};
inline constexpr Field kMemoryDescriptors{"memory_descriptors"};
inline constexpr Field kTimeMs{"time_ms", Type::kNumber};
inline constexpr Field kTimestamp{"timestamp", Type::kNumber};
inline constexpr Field kMessage{"message"};
// clang-format on
}  // namespace event_column
inline constexpr report::Part kEventsTable{"events", "Events"};

/// The `primitives` member of a log's document: the declared columns, then `layer` and `file`
/// where the document's rows can have them.
report::contract::Member PrimitivesMember(bool with_layer, bool with_file);
/// The `events` member (`parse --events`: a log's events, without a layer).
report::contract::Member EventsMember();

/// Extensions of the column contract; every extension is appended after the contract columns.
struct ColumnOptions {
  bool include_layer = false;  ///< a `layer` column (dlcheck's own models, graph op names)
  /// A last `file` column naming each row's input (`parse` of several logs); null: none.
  const std::vector<std::string>* input_names = nullptr;
  /// The syntax of the `benchdnn` column: kLogs speaks each log's own benchdnn version.
  verbose::BenchdnnVersion benchdnn_version = verbose::BenchdnnVersion::kLogs;
  /// The header that tells a row's oneDNN version and ISA (the merged one), and each input's
  /// own (PrimitiveStats::input - 1 indexes it when inputs are labelled); null: none.
  const verbose::LogHeader* header = nullptr;
  const std::vector<std::pair<std::string, verbose::LogHeader>>* input_headers = nullptr;
};

std::vector<report::Field> PrimitiveColumns(const ColumnOptions& options = {});
std::vector<report::Field> EventColumns(const ColumnOptions& options = {});
/// The streamed events table (`parse --events`): its columns, and what a narrow terminal keeps
/// of them (which kernel ran, on which ISA, for how long) and leaves out first.
report::Table EventTable(const ColumnOptions& options);

/// Sets the cells of the primitives table's columns (PrimitiveColumns(options)) in `row`, which
/// may have other columns too (dispatch's long forms); `total_exec_ms` gives time_pct.
void SetPrimitiveCells(report::RowSetter& row, const verbose::PrimitiveStats& stats,
                       double total_exec_ms, const ColumnOptions& options = {});
std::vector<report::Value> EventRow(const verbose::VerboseEvent& event,
                                    const ColumnOptions& options = {});

/// Sorts by the key (descending for numbers, ascending for names; ties: first seen first).
void SortRows(std::vector<verbose::PrimitiveStats>& rows, SortKey key);

/// Adds the `primitives` table (the primary table) with the first `top` rows (0: all). The table
/// owns `rows` (and the input names `options` points to) and makes each row's cells only when a
/// printer reads it: callers move their rows in.
void AddPrimitivesTable(report::Report& report, std::vector<verbose::PrimitiveStats> rows,
                        double total_exec_ms, std::size_t top, const ColumnOptions& options = {});
/// A benchdnn `--batch` file of the rows' reproducers for one driver (`conv`), in the syntax the
/// options ask for: a first comment with the command that runs it (`ONEDNN_MAX_CPU_ISA=X
/// OMP_NUM_THREADS=N benchdnn --conv --mode=P --batch=FILE`), then `--reset <options> <problem>`
/// per distinct line, `#` comments for that driver's rows without a line, for lines the log ran
/// at another ISA or thread count, and for lines above the host's ISA (DLCHECK_HOST_ISA, else
/// this CPU's).
std::string BenchdnnBatch(std::vector<verbose::PrimitiveStats> rows, std::string_view driver,
                          const ColumnOptions& options = {});
/// `text` with every byte sequence that is not valid UTF-8 replaced by `?` (JSON needs UTF-8).
std::string ValidUtf8(std::string_view text);

}  // namespace dlcheck::cli
