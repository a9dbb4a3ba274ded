// SPDX-License-Identifier: Apache-2.0
#pragma once
// Events -> one PrimitiveStats row per distinct primitive, and a Summary of the whole log.
//
//   Aggregator agg;
//   for (each event) agg.Add(event);
//   Summary s = agg.Summarize(header);  // time by kind, by fallback class, findings
//
// LogSession (log_session.h) drives it with the parser and the memo; use that to read a log.
//
// Rows are keyed by (engine, primitive, implementation, prop kind, memory descriptors,
// attributes, auxiliary, problem, layer); memory grows with the number of rows, not with the
// log. A lookup builds the key in a reused buffer and finds it without allocating.

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "common/finding.h"
#include "verbose/hash.h"
#include "verbose/interned_text.h"
#include "verbose/line_memo.h"
#include "verbose/native_paths.h"
#include "verbose/primitive_stats.h"
#include "verbose/verbose_event.h"

namespace dlcheck::verbose {

/// The rows of a log, in the order their primitives first appeared. A deque: it grows a block
/// at a time, never holding the rows twice while it grows, and wastes no capacity.
using PrimitiveRows = std::deque<PrimitiveStats>;

/// A distinct diagnostic line (create:dispatch, create:check, exec:check, error, warning, ...).
struct DiagnosticStats {
  std::string operation;  ///< `create:dispatch`, `error`, ...
  std::string primitive;  ///< the component it names
  std::string implementation;
  std::string message;
  std::uint64_t count = 0;
  std::uint64_t first_line = 0;
};

/// A share of execution time under one name (a primitive kind or a fallback class).
struct TimeShare {
  std::string name;
  std::uint64_t rows = 0;
  std::uint64_t execs = 0;
  double exec_ms = 0;
  double pct = 0;  ///< of all exec time
};

struct Summary {
  std::uint64_t rows = 0;
  std::uint64_t creates = 0;
  std::uint64_t cache_hits = 0;
  std::uint64_t nested_creates = 0;  ///< create_nested events, not in creates
  double nested_create_ms = 0;       ///< their time, not in create_ms
  std::uint64_t execs = 0;
  std::uint64_t diagnostics = 0;
  std::uint64_t graph_dispatch = 0;  ///< oneDNN Graph pattern-matcher lines, counted only
  std::uint64_t other_events = 0;    ///< events of primitives beyond kMaxRows (the other row)
  double create_ms = 0;
  double exec_ms = 0;
  double reorder_exec_ms = 0;
  double reorder_pct = 0;
  std::optional<double> cache_hit_rate;  ///< hits / creates
  double first_exec_ms = 0;              ///< sum of each row's first timed exec
  std::uint64_t first_execs = 0;
  double steady_exec_ms = 0;  ///< sum of the later execs
  std::uint64_t steady_execs = 0;
  std::vector<TimeShare> by_kind;      ///< by exec time, descending
  std::vector<TimeShare> by_fallback;  ///< by exec time, descending
  /// by library (`oneDNN`, `ZenDNN`: a log may hold both), by exec time, descending
  std::vector<TimeShare> by_library;
  std::vector<Finding> notes;  ///< plain-language conclusions about the log
};

/// Whether the note `code` (Summary::notes) concludes from the proportions of a whole run: no
/// primitive executed, creation costlier than execution, first executions slower than the
/// steady state. A run that was stopped early (a signal, a crash) did not give its whole log,
/// so these notes are dropped for it; the others (scalar fallback, ISA inferred, ...) still hold.
bool NeedsAWholeRun(std::string_view code);

/// What the caller knows about the run a log came from, which the log itself cannot say. The
/// notes are made knowing it, so no caller erases a note after the fact.
struct RunContext {
  /// The log holds the whole run. False when the run was stopped early (a signal, a crash): the
  /// notes that conclude from a whole run (NeedsAWholeRun) are not made.
  bool whole_run = true;
  /// The verbose lines of a log dlcheck recorded itself, a program's it ran with verbose output
  /// on (nullopt: a log read as it is, or the model worker's). Where such a log has no primitive
  /// line, the caller says why (CallerSaysWhyNoPrimitive) and the notes that guess it are not
  /// made.
  std::optional<std::uint64_t> recorded_verbose_lines;
  /// The whole timed phase (ms) where the log traced only part of the run (the model's traced
  /// steps; its timed phase runs without verbose): create-dominates compares creation with it.
  std::optional<double> timed_ms;
  /// What the CPU the user names has for each low-precision data type (a replayed CPUID dump).
  /// dtype-no-native-path judges a log by its ISA line (what oneDNN ran under: a cap, or the
  /// recording CPU's level), and by this CPU where the log has none; where the log has one, the
  /// finding adds what this CPU has, in a sentence of its own.
  std::optional<DtypeUnits> cpu;
  /// What the machine dlcheck runs on has: where no `cpu` is named and it differs from the
  /// log's CPU for a row's data type, dtype-no-native-path adds a sentence on this host.
  std::optional<DtypeUnits> host;
};

/// oneDNN created and ran no primitive and printed diagnostics only: it refused what it was
/// asked (dispatch's `onednn-errors-only`).
bool DiagnosticsOnly(const Summary& s, const std::vector<DiagnosticStats>& diagnostics);

/// The one rule for a recorded log without a primitive line: the caller that recorded it says
/// why in its own findings (`program-ended-early`, `onednn-not-loaded`: no verbose line at all;
/// `onednn-errors-only`: DiagnosticsOnly), so the parser's guesses (`no-exec`, and
/// `partial-log`'s "no primitive line") are not made.
bool CallerSaysWhyNoPrimitive(const RunContext& context, const Summary& s,
                              const std::vector<DiagnosticStats>& diagnostics);

class Aggregator {
 public:
  static constexpr std::size_t kNoRow = static_cast<std::size_t>(-1);
  /// Adds a create, exec or diagnostic event; info events are ignored. Returns the row index
  /// of a create or exec, kNoRow otherwise.
  std::size_t Add(const VerboseEvent& event);
  /// Adds one more event like the one remembered in `entry`, with time `ms`.
  void AddRepeat(const LineMemo::Entry& entry, double ms);
  /// Rows of the following events belong to input `input` (1-based; 0: inputs are not told
  /// apart): the same primitive in two labelled inputs is two rows.
  void SetInput(std::uint32_t input) { input_ = input; }

  const PrimitiveRows& rows() const { return rows_; }
  /// The rows, moved out block by block (never held twice); the aggregator has none after it
  /// and forgets them: call it once no more events come (LogSession::TakeRows).
  std::vector<PrimitiveStats> TakeRows();
  const std::vector<DiagnosticStats>& diagnostics() const { return diagnostics_; }
  /// Events counted by Add (creates, execs, diagnostics).
  std::uint64_t events() const { return events_; }
  /// A `create:dispatch` reason is held for a create to come.
  bool holds_dispatch() const { return !pending_dispatch_.empty(); }
  /// Primitives beyond the caps (kMaxRows, kMaxRowTextBytes) went to the `other` row.
  bool capped() const { return other_row_ != kNoRow; }
  /// Totals, time shares and the notes about the log; `header` names the ISA that inferred
  /// ISAs came from; `context` what the log cannot say about its run.
  Summary Summarize(const LogHeader& header, const RunContext& context = {}) const;

 private:
  friend class LineMemo;  // TakePredicted adds its repeats through AddRepeatHere
  // AddRepeat, inlined where it is called per line (aggregate.cpp only).
  inline void AddRepeatHere(const LineMemo::Entry& entry, double ms);
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return FastHash(s); }
  };
  using Index = std::unordered_map<std::string, std::size_t, KeyHash, std::equal_to<>>;

  // The rows' index holds no key: a slot is the key's hash and the row, and a match is
  // confirmed against the row's own fields (16 bytes a slot instead of a second copy of them).
  struct RowSlot {
    std::uint64_t hash = 0;
    std::uint32_t row = kEmptySlot;
  };
  static constexpr std::uint32_t kEmptySlot = 0xffffffffu;
  std::size_t FindRow(std::uint64_t hash, const VerboseEvent& event) const;
  void IndexRow(std::uint64_t hash, std::size_t row);
  bool SameRow(const PrimitiveStats& row, const VerboseEvent& event) const;

  void AddDiagnostic(const VerboseEvent& event);
  // A `create:dispatch` reason waiting for the create of its primitive kind.
  struct PendingDispatch {
    std::string primitive;
    std::string problem;  ///< empty in the short form
    SkippedImpl skipped;
  };
  void HoldDispatch(const VerboseEvent& event);
  void JoinDispatch(PrimitiveStats& row, std::string_view problem);
  std::size_t NewRow(const VerboseEvent& event, std::uint64_t hash);
  std::size_t OtherRow();
  inline void AddTime(PrimitiveStats& row, const LineMemo::Entry& kind, std::optional<double> ms);

  std::string key_;
  std::uint32_t input_ = 0;
  std::vector<RowSlot> row_slots_;  // open addressing, a power of two, load at most 1/2
  PrimitiveRows rows_;
  Index diagnostic_index_;
  std::vector<DiagnosticStats> diagnostics_;
  std::vector<MemoryDesc> mds_;
  std::vector<PendingDispatch> pending_dispatch_;  // in the order the lines came
  std::uint64_t events_ = 0;
  std::uint64_t diagnostic_events_ = 0;
  std::uint64_t graph_dispatch_events_ = 0;
  std::size_t row_text_bytes_ = 0;  // what the rows' new texts took in the pool
  std::size_t other_row_ = kNoRow;  // the row of the primitives beyond kMaxRows, once needed
  std::uint64_t other_events_ = 0;
};

/// `create:dispatch` reasons held for a create to come: past it, the oldest is dropped.
inline constexpr std::size_t kMaxPendingDispatch = 64;
/// Distinct skipped implementations kept per row (PrimitiveStats::skipped).
inline constexpr std::size_t kMaxSkippedPerRow = 8;
/// The primitive cache's default capacity (ONEDNN_PRIMITIVE_CACHE_CAPACITY), in primitives.
inline constexpr std::size_t kDefaultCacheCapacity = 1024;
/// A row at or above this share of exec time (percent) is hot: findings about a row name hot ones.
inline constexpr double kHotSharePct = 5.0;

/// What a dispatch reason points at, and what to do about it: `isa`, `data type`, `layout`,
/// `attribute`, `shape`, `scratchpad`, or `other`.
struct DispatchKnob {
  std::string_view name;
  std::string_view remedy;  ///< plain words, a sentence
};
DispatchKnob KnobOf(std::string_view reason);

/// The ISA a kernel's source file names (`jit_avx2_conv_kernel_f32.cpp` -> `avx2`,
/// `jit_avx512_core_bf16_1x1_conv_kernel.cpp` -> `avx512_core_bf16`), "" when none is ranked.
std::string_view IsaOfSourceFile(std::string_view file);

/// The row's `skipped` cell: `impl: reason [knob] xN` per skipped implementation, `; ` between.
std::string SkippedText(const PrimitiveStats& row);

/// The row count limit for distinct diagnostics kept (the rest are counted, not stored).
inline constexpr std::size_t kMaxDiagnostics = 1000;
/// The limit on distinct primitive rows: the events of further distinct primitives go to one
/// `other` row (primitive `other`), with a finding, so memory stays bounded for any log.
inline constexpr std::size_t kMaxRows = 50000;
/// The limit on the bytes of texts that distinct rows bring (a log line may be 1 MiB, so
/// kMaxRows alone would not bound them): past it, further distinct primitives go to the
/// `other` row as well.
inline constexpr std::size_t kMaxRowTextBytes = std::size_t{16} << 20;
/// Diagnostic messages are kept up to this many bytes (the rest is cut, with `...`).
inline constexpr std::size_t kMaxDiagnosticText = 1024;

}  // namespace dlcheck::verbose
