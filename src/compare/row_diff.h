// SPDX-License-Identifier: Apache-2.0
#pragma once
// Two runs side by side: the rows of two verbose logs or two dlcheck reports matched by what the
// primitive computes (kind, propagation, data types, attributes, algorithm, shape, layer), and
// for each what changed: the implementation (a `jit` that became `ref:any` is the headline), the
// ISA, the mean execution time; rows only one side has are new or vanished.
//
//   StatusOr<RunRows> a = LoadRunRows("before.json"), b = LoadRunRows("after.log.gz");
//   RowDiff diff = CompareRuns(*a, *b, {.threshold_pct = 20});
//   report::Report r = DiffReport(diff);   // diff.regressions > 0: exit 1

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"
#include "verbose/interned_text.h"

namespace dlcheck::compare {

// The diff's words, declared once.
namespace diff_field {
using report::Field;
using report::Type;
// clang-format off
// summary
inline constexpr Field kA{"a"};  ///< the first input, as given
inline constexpr Field kB{"b"};
inline constexpr Field kRowsMatched{"rows_matched", Type::kInteger};
inline constexpr Field kChangedImplementation{"changed_implementation", Type::kInteger};
inline constexpr Field kWorseClass{"worse_class", Type::kInteger};
inline constexpr Field kSlower{"slower", Type::kInteger};
inline constexpr Field kFaster{"faster", Type::kInteger};
inline constexpr Field kNew{"new", Type::kInteger};
inline constexpr Field kVanished{"vanished", Type::kInteger};
inline constexpr Field kExecMsA{"exec_ms_a", Type::kNumber};
inline constexpr Field kExecMsB{"exec_ms_b", Type::kNumber};
inline constexpr Field kExecTimeRatio{"exec_time_ratio", Type::kNumber};
inline constexpr Field kThresholdPct{"threshold_pct", Type::kNumber};
inline constexpr Field kRegressions{"regressions", Type::kInteger};
/// Rows slower beyond the threshold on the mean whose per-execution ranges overlap.
inline constexpr Field kWithinNoise{"within_noise", Type::kInteger};
// a `run` report's program: its wall time and oneDNN's share of it; null for other inputs
inline constexpr Field kWallSA{"wall_s_a", Type::kNumber};
inline constexpr Field kWallSB{"wall_s_b", Type::kNumber};
inline constexpr Field kExecPctOfWallA{"exec_pct_of_wall_a", Type::kNumber};
inline constexpr Field kExecPctOfWallB{"exec_pct_of_wall_b", Type::kNumber};
/// The libraries whose rows each input holds (`oneDNN`, `ZenDNN`, `ONNX Runtime`, joined by
/// " and "); null where an input says none (a report from before the library column).
inline constexpr Field kLibrariesA{"libraries_a"};
inline constexpr Field kLibrariesB{"libraries_b"};
// primitives: a row of each run
inline constexpr Field kPrimitive = report::IdentityColumn("primitive");
inline constexpr Field kPropKind = report::PropagationColumn();
inline constexpr Field kProblem = report::IdentityColumn("problem");
inline constexpr Field kLayer = report::IdentityColumn("layer");
inline constexpr Field kChange{"change"};
inline constexpr Field kRegressed{"regressed", Type::kBoolean};
inline constexpr Field kImplementationA = report::IdentityColumn("implementation_a");
inline constexpr Field kImplementationB = report::IdentityColumn("implementation_b");
inline constexpr Field kIsaA{"isa_a"};
inline constexpr Field kIsaB{"isa_b"};
inline constexpr Field kFallbackA{"fallback_a"};
inline constexpr Field kFallbackB{"fallback_b"};
inline constexpr Field kExecsA{"execs_a", Type::kInteger};
inline constexpr Field kExecsB{"execs_b", Type::kInteger};
inline constexpr Field kExecMsMeanA{"exec_ms_mean_a", Type::kNumber};
inline constexpr Field kExecMsMeanB{"exec_ms_mean_b", Type::kNumber};
inline constexpr Field kRatio{"ratio", Type::kNumber};  ///< b's mean over a's
// clang-format on
}  // namespace diff_field

inline constexpr report::Part kDiffSummarySection{"summary", "Summary"};
inline constexpr report::Part kDiffRowsTable{"primitives", "Rows (a -> b)"};

inline constexpr std::array kDiffColumns = {diff_field::kPrimitive,
                                            diff_field::kPropKind,
                                            diff_field::kProblem,
                                            diff_field::kLayer,
                                            diff_field::kChange,
                                            diff_field::kRegressed,
                                            diff_field::kImplementationA,
                                            diff_field::kImplementationB,
                                            diff_field::kIsaA,
                                            diff_field::kIsaB,
                                            diff_field::kFallbackA,
                                            diff_field::kFallbackB,
                                            diff_field::kExecsA,
                                            diff_field::kExecsB,
                                            diff_field::kExecMsMeanA,
                                            diff_field::kExecMsMeanB,
                                            diff_field::kRatio};

/// `diff`'s document.
const report::contract::Document& DiffDocument();

/// One primitive of one run, in the terms both a log and a JSON report give. Texts are interned
/// (verbose/interned_text.h): a row is a handle per text, and equal keys are one pointer.
struct RunRow {
  using Text = verbose::InternedText;
  /// What matches rows across runs (never the implementation or layouts): what the primitive
  /// computes. Handles, compared and hashed as pointers.
  struct Key {
    std::array<Text, 8> parts;  // engine, primitive, prop kind, data types, attributes,
                                // auxiliary, problem, layer
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& key) const noexcept;
  };
  Key key;
  Text primitive, prop_kind, problem, layer;
  Text implementation;  ///< several, joined by " + ", when layouts split one key
  Text isa;
  Text fallback;  ///< jit, gemm, external, acl, scalar, unknown (the worst when merged)
  std::uint64_t execs = 0;
  double exec_ms = 0;
  /// The fastest and slowest single execution; nullopt where the input does not say (a report
  /// without the columns).
  std::optional<double> exec_ms_min, exec_ms_max;
};

/// How far the fallback class named `fallback` is from vector code, by the classes' one order
/// (verbose::FallbackDepth); nullopt for unknown (no opinion). Merging keeps the worst; a diff
/// calls a deeper fallback a regression.
std::optional<int> FallbackDepthOf(std::string_view fallback);

/// The rows of one input, merged by key, in first-seen order.
struct RunRows {
  std::string name;  ///< the path as given
  std::string kind;  ///< "verbose log" or "dlcheck <command> report"
  std::vector<RunRow> rows;
  /// A report's rows left out because `execs` or `exec_ms_total` is no number (a string, a
  /// negative, beyond a double): missing, not 0, and named in a finding of the diff.
  std::size_t rows_without_numbers = 0;
  /// A `run` report's program: its wall time (seconds) and oneDNN's share of it (percent).
  std::optional<double> wall_s, exec_pct_of_wall;
  /// The libraries its rows came from, without versions, in first-seen order.
  std::vector<std::string> libraries;
};

/// Reads a verbose log (plain or gzip; any oneDNN/MKL-DNN version) or a dlcheck JSON report
/// with a primitives table (`parse`, `verbose`, `run`), told apart by the first byte. Another
/// command's report (`dispatch`, ...) is an InputError saying which reports diff reads. A large
/// log file is read on `jobs` threads (verbose/parallel_feed.h), with the same rows.
StatusOr<RunRows> LoadRunRows(const std::string& path, int jobs = 1);

enum class Change { kSame, kImplementation, kNew, kVanished };

struct DiffRow {
  std::optional<RunRow> a, b;
  Change change = Change::kSame;
  std::optional<double> ratio;  ///< mean exec time b / a
  bool worse_class = false;     ///< the fallback class got worse (jit -> scalar, ...)
  bool slower = false;          ///< ratio beyond the threshold on a row that counts
  /// Beyond the threshold on the mean, but the per-execution ranges [min, max] of a and b
  /// overlap: the difference is within the executions' own spread, not a regression.
  bool within_noise = false;
  bool Regressed() const { return worse_class || slower; }
};

struct DiffOptions {
  double threshold_pct = 20;  ///< a row slower by more than this regressed
  /// Rows below this share of both runs' exec time are not judged on time (noise).
  double min_share_pct = 1;
};

struct RowDiff {
  std::string a_name, b_name;
  DiffOptions options;
  std::vector<DiffRow> rows;  ///< regressions first, then by time moved
  double a_exec_ms = 0, b_exec_ms = 0;
  std::uint64_t regressions = 0;
  std::size_t a_rows_without_numbers = 0, b_rows_without_numbers = 0;  ///< RunRows' counts
  std::optional<double> a_wall_s, b_wall_s, a_exec_pct_of_wall, b_exec_pct_of_wall;
  std::vector<std::string> a_libraries, b_libraries;  ///< RunRows::libraries
};

RowDiff CompareRuns(const RunRows& a, const RunRows& b, const DiffOptions& options);

/// The `diff` report: the summary section, the `primitives` table (primary, its cells made as
/// it is printed: the report owns the rows), findings.
report::Report DiffReport(RowDiff diff);

}  // namespace dlcheck::compare
