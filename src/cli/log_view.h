// SPDX-License-Identifier: Apache-2.0
#pragma once
// The sections a verbose log's reading gives besides its rows: `input` (files, lines, skips by
// reason), `header` (what the info lines said), `headers` (each input's own, when several) and
// `summary` (totals, shares, notes) with the `diagnostics` table. Used by parse, run and verbose.

#include <string>
#include <utility>
#include <vector>

#include "detect/platform.h"
#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"
#include "verbose/aggregate.h"
#include "verbose/line_parser.h"
#include "verbose/log_session.h"

namespace dlcheck::cli {

// The words of a log's report, declared once for every document that reads a log (parse,
// verbose, run).
namespace log_field {
using report::Arity;
using report::Field;
using report::Type;
// clang-format off
// input
inline constexpr Field kFiles{"files", Type::kText, Arity::kList};
inline constexpr Field kLines{"lines", Type::kInteger};
inline constexpr Field kEvents{"events", Type::kInteger};
inline constexpr Field kInfoLines{"info_lines", Type::kInteger};
inline constexpr Field kSkipped{"skipped", Type::kInteger};
inline constexpr Field kSkippedByReason{"skipped_by_reason", Type::kInteger, Arity::kMap};
// header, headers
inline constexpr Field kFile{"file"};
inline constexpr Field kLibraryVersion{"library_version"};
/// ZenDNN's version line, where the log has one beside (or instead of) oneDNN's
inline constexpr Field kZendnnVersion{"zendnn_version"};
inline constexpr Field kRuntime{"runtime"};
inline constexpr Field kThreads{"threads", Type::kInteger};
inline constexpr Field kIsa{"isa"};
inline constexpr Field kIsaName{"isa_name"};    ///< the header section's short ISA name
inline constexpr Field kIsaShort{"isa_short"};  ///< the same, in the headers table
// summary
inline constexpr Field kRows{"rows", Type::kInteger};
inline constexpr Field kCreates{"creates", Type::kInteger};
inline constexpr Field kCacheHits{"cache_hits", Type::kInteger};
inline constexpr Field kCacheHitRate{"cache_hit_rate", Type::kNumber};
inline constexpr Field kCreateMs{"create_ms", Type::kNumber};
inline constexpr Field kNestedCreates{"nested_creates", Type::kInteger};
inline constexpr Field kNestedCreateMs{"nested_create_ms", Type::kNumber};
inline constexpr Field kExecs{"execs", Type::kInteger};
inline constexpr Field kExecMs{"exec_ms", Type::kNumber};
inline constexpr Field kReorderExecMs{"reorder_exec_ms", Type::kNumber};
inline constexpr Field kReorderPct{"reorder_pct", Type::kNumber};
inline constexpr Field kFirstExecMsMean{"first_exec_ms_mean", Type::kNumber};
inline constexpr Field kSteadyExecMsMean{"steady_exec_ms_mean", Type::kNumber};
inline constexpr Field kDiagnostics{"diagnostics", Type::kInteger};
inline constexpr Field kGraphPatternMatcherLines{"graph_pattern_matcher_lines", Type::kInteger};
// summary.by_kind, summary.by_fallback, summary.by_library
inline constexpr Field kPrimitive{"primitive"};
inline constexpr Field kFallback{"fallback"};
inline constexpr Field kLibrary{"library"};
inline constexpr Field kTimePct{"time_pct", Type::kNumber};
// diagnostics
inline constexpr Field kOperation{"operation"};
inline constexpr Field kImplementation{"implementation"};
inline constexpr Field kMessage{"message"};
/// A check, error or warning line in plain words: what the caller passed wrong ("" unknown).
inline constexpr Field kMeaning{"meaning"};
inline constexpr Field kCount{"count", Type::kInteger};
inline constexpr Field kFirstLine{"first_line", Type::kInteger};
// clang-format on
}  // namespace log_field

inline constexpr report::Part kInputSection{"input", "Input"};
inline constexpr report::Part kSkippedByReasonSection{log_field::kSkippedByReason.name,
                                                      "Skipped lines by reason"};
inline constexpr report::Part kHeaderSection{"header", "Log header"};
inline constexpr report::Part kHeadersTable{"headers", "Log header of each input"};
inline constexpr report::Part kSummarySection{"summary", "Summary"};
inline constexpr report::Part kByKindTable{"by_kind", "Execution time by primitive kind"};
inline constexpr report::Part kByFallbackTable{"by_fallback", "Execution time by fallback class"};
inline constexpr report::Part kByLibraryTable{
    "by_library", "Execution time by library (oneDNN, ZenDNN, ONNX Runtime)"};
inline constexpr report::Part kDiagnosticsTable{log_field::kDiagnostics.name, "Diagnostics"};

/// The members of a log's document: `input` (with `files` when several can be read), `header`,
/// `headers` (one row per input file), `summary` and `diagnostics`.
/// What `platform` found in a CPU, as the units dtype-no-native-path weighs (the usable bits of
/// a live CPU, the CPUID bits of a recording); `subject` names that CPU in findings.
verbose::DtypeUnits DtypeUnitsOf(const detect::PlatformInfo& platform, std::string subject);

report::contract::Member InputMember(bool with_files);
report::contract::Member HeaderMember();
report::contract::Member HeadersMember();
report::contract::Member SummaryMember();
report::contract::Member DiagnosticsMember();

/// The `input` section: files, lines, events, skipped lines by reason. `files`: the inputs as
/// named, none to name (a captured run's scratch log: null), or nullptr for a document without
/// the field (`run`).
void AddInputSection(report::Report& report, const std::vector<std::string>* files,
                     const verbose::ParseStats& stats);
/// The `header` section: what the log's info lines said (version, runtime, threads, ISA).
void AddHeaderSection(report::Report& report, const verbose::LogHeader& header);
/// The `summary` section, the `diagnostics` table and the findings.
/// The start of the verdict of a report of oneDNN's primitives (parse, verbose, run):
/// "oneDNN ran 17 primitives: 1204 executions, 41.2 ms", or "no oneDNN primitive ran".
std::string PrimitivesVerdict(const verbose::Summary& summary);

void AddSummary(report::Report& report, const verbose::Summary& summary,
                const std::vector<verbose::DiagnosticStats>& diagnostics);
/// The `headers` table: each input's own header, when there are several (the header section
/// merges them: the first input that names a field wins).
void AddInputHeaders(report::Report& report,
                     const std::vector<std::pair<std::string, verbose::LogHeader>>& headers);
/// All of these for a whole log session: AddInputSection, AddHeaderSection, AddInputHeaders,
/// AddSummary. `files` empty: a captured run, whose log has no name (files null).
void AddLogSummary(report::Report& report, const std::vector<std::string>& files,
                   const verbose::LogSession& session, const verbose::Summary& summary);

}  // namespace dlcheck::cli
