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
  std::vector<Finding> notes;          ///< plain-language conclusions about the log
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

/// Memo of lines already aggregated, keyed by the line's text up to its last comma (all but the
/// time): a repeated line skips parsing, only its time is read. Bounded; clear it whenever the
/// parser's state changes (an `info` line: new header or template).
class Aggregator;

class LineMemo {
 public:
  static constexpr std::size_t kMaxEntries = 16384;
  struct Entry {
    std::size_t row = 0;
    bool exec = false;
    bool cache_hit = false;
    bool nested = false;  ///< a create_nested event
  };
  enum class Match {
    kMiss,     ///< not remembered: parse the line
    kEvent,    ///< a remembered create/exec: `entry` and `ms` are set
    kForeign,  ///< a remembered line without a marker
  };
  /// Looks `line` up, parsed in parser state `state`. Lines usually come in the order they came
  /// before (one training iteration after another), so the line that followed the previous one
  /// last time is tried first, without hashing.
  Match Lookup(std::uint32_t state, std::string_view line, Entry& entry, double& ms);
  /// The states and rule of LookupPredicted: `stamped` is the state of lines whose timestamp
  /// field was cut out (Remember's `stamp_at`), `plain` that of the others, which are taken only
  /// when `plain_events` (no timestamp seen in the log yet).
  struct PredictedStates {
    std::uint32_t plain = 0;
    std::uint32_t stamped = 0;
    bool plain_events = true;
  };
  /// A line LookupPredicted took.
  struct Predicted {
    Match match = Match::kMiss;
    Entry entry;
    double ms = 0;
    std::string_view stamp;  ///< the text of its timestamp field, where it has one
    std::size_t length = 0;  ///< its length without its '\n'
  };
  /// The predicted line only (see Lookup), compared in place with the line at the start of
  /// `text`: a remembered event line whose timestamp field was cut out at `stamp_at` (Remember)
  /// is compared around the field, which must still read as a timestamp (`<digits>.<digits>,`);
  /// `stamp` is then its text. With `whole_line`, `text` is one line without its end (Feed);
  /// else it is bytes read ahead, where the line must end in '\n' and be at most `max_length`
  /// bytes long (a reader's buffer, a mapped chunk). kMiss tells nothing (the memo is
  /// unchanged): look the line up by Lookup. Two memcmp and the digits of the timestamp and
  /// the time, read in one pass that also finds the line's end; nothing copied, nothing hashed.
  /// Only a time in its plain decimal form (at most 15 digits) is taken here.
  Predicted LookupPredicted(const PredictedStates& states, std::string_view text, bool whole_line,
                            std::size_t max_length);
  /// Hears each event TakePredicted adds (a session's listeners).
  class RepeatSink {
   public:
    virtual void OnRepeat(const Entry& entry, double ms, std::string_view stamp) = 0;

   protected:
    ~RepeatSink() = default;
  };
  /// What TakePredicted took: `bytes` of whole lines, each with its '\n'.
  struct Taken {
    std::size_t bytes = 0;
    std::uint64_t lines = 0;
    std::uint64_t events = 0;   ///< of them, remembered events: added to their rows
    std::uint64_t foreign = 0;  ///< of them, remembered lines without a marker
  };
  /// The per-line loop of a long log: LookupPredicted line after line over `text` (bytes read
  /// ahead), each event added to its row of `aggregator` (AddRepeat; none: null) and handed to
  /// `sink` (none: null), up to the first line it does not take.
  Taken TakePredicted(const PredictedStates& states, std::string_view text, std::size_t max_length,
                      Aggregator* aggregator, RepeatSink* sink);
  /// Remembers `line` (whose last field was parsed as the event's time `ms`); lines whose last
  /// field does not read back as exactly `ms` are not remembered. `stamp_at`: where a timestamp
  /// field was cut out of `line` (npos: none), for LookupPredicted.
  void Remember(std::uint32_t state, std::string_view line, const Entry& entry, double ms,
                std::size_t stamp_at = std::string_view::npos);
  /// Remembers a line that has no oneDNN marker (program output repeats too).
  void RememberForeign(std::string_view line);
  void Clear();
  std::size_t size() const { return count_; }

 private:
  // What a remembered line was. A foreign line is keyed by its whole text, an event by all
  // but its time.
  enum class Kind : std::uint8_t { kCreate, kCreateHit, kExec, kForeign, kNested, kNestedHit };
  static Kind KindOf(const Entry& entry);
  // Open addressing over a flat slot array; keys live in one arena string. A lookup touches one
  // slot and one key: no node chasing.
  // 40 bytes, so the table of a typical log stays in L2.
  struct Slot {
    std::uint64_t hash = 0;
    std::uint32_t offset = 0;
    std::uint32_t length = 0;  // 0: empty (keys are never empty)
    std::uint32_t row = 0;
    std::uint16_t state = 0;
    Kind kind = Kind::kCreate;
    std::uint16_t stamp_at = kNoStamp;  // where the line's timestamp field was cut out
    std::uint32_t next = kNone;         // the slot of the line that followed this one last time
    std::uint32_t next2 = kNone;        // the one that followed it before, where it was another: a
                                  // line seen at two places in an iteration (a reorder, a ReLU)
  };
  static constexpr std::uint32_t kNone = 0xffffffffu;
  static constexpr std::uint16_t kNoStamp = 0xffff;
  Match Hit(std::uint32_t index, std::string_view time_text, Entry& entry, double& ms);
  // A remembered line matched whose time (if an event) is already read.
  inline Match Take(std::uint32_t index, Entry& entry);
  inline Predicted Predict(const PredictedStates& states, std::string_view text, bool whole_line,
                           std::size_t max_length);  // LookupPredicted, inlined
  inline bool TryPredicted(std::uint32_t guess, const PredictedStates& states,
                           std::string_view text, bool whole_line, std::size_t max_length,
                           Predicted& found);
  std::uint32_t Find(std::uint64_t hash, std::uint32_t state, std::string_view key,
                     bool foreign) const;
  void Insert(std::uint64_t hash, std::uint32_t state, std::string_view key, const Entry& entry,
              bool foreign, std::size_t stamp_at = std::string_view::npos);
  bool SameKey(const Slot& slot, std::uint32_t state, std::string_view key, bool foreign) const;
  inline void Follow(std::uint32_t index);  // `index` is the slot of the current line
  static constexpr std::size_t kMaxSlots = 2 * kMaxEntries;  // power of two, load <= 1/2
  static constexpr std::size_t kMaxArena = std::size_t{8} << 20;
  void Grow();
  std::vector<Slot> slots_;
  std::string arena_;
  std::size_t count_ = 0;
  std::uint32_t last_ = kNone;       // slot of the previous line, if it was remembered
  std::uint32_t link_from_ = kNone;  // slot of the line before a miss, to link what is inserted
  // The shape of the last timestamp field read in place (`<digits>.<digits>,`: a log's
  // timestamps keep their number of digits for years), checked on three words at once.
  struct StampShape {
    std::uint64_t not_digits[3] = {};  // where the point and the comma stand: NotDigits' bits
    std::uint64_t within[3] = {};      // the bytes the field and its comma cover
    std::uint32_t point = 0;           // the point's offset in the field; 0: no shape yet
    std::uint32_t comma = 0;           // the comma's
  };
  StampShape stamp_shape_;
  void LearnStampShape(std::size_t point, std::size_t comma);
};

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
