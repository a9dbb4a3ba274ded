// SPDX-License-Identifier: Apache-2.0
#pragma once
// One reading of a verbose log, line by line: the joining parser, the repeated-line memo, the
// aggregator, the counts of lines by outcome and the header merged over every input. `parse`,
// the worker capture, the fuzz target and the tests all drive this one class.
//
//   LogSession session({.strict = false, .memo = true});
//   session.AddListener(&timeline);              // optional: sees every event
//   session.StartInput("a.log");                 // names the input for --strict messages
//   for (each line) session.Feed(line, number);  // or FeedTooLong(number) for an over-long one
//   session.Finish();                            // end of this input; StartInput again for more
//   Summary s = session.Summarize();
//   session.stats().skipped, session.header(), session.aggregator().rows(), ...
//
// The memo lets a line seen before (all but its time, and its timestamp where it has one) add
// its time to its row without being parsed: logs repeat the same few hundred lines millions of
// times. Listeners see those repeats through OnRepeat, with the row they add to and the
// line's timestamp.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "verbose/aggregate.h"
#include "verbose/line_parser.h"
#include "verbose/line_reader.h"
#include "verbose/verbose_event.h"

namespace dlcheck::verbose {

/// What a session counted about the lines it was fed.
struct ParseStats {
  std::uint64_t lines = 0;                      ///< physical lines fed, over-long ones included
  std::uint64_t events = 0;                     ///< create, exec and diagnostic events
  std::uint64_t info_lines = 0;                 ///< header lines
  std::map<SkipReason, std::uint64_t> skipped;  ///< lines that gave no event, by reason
  /// The sum of `skipped`.
  std::uint64_t Skipped() const;
};

struct LogSessionOptions {
  /// Stop at the first marker line that cannot be parsed (foreign and graph lines excepted).
  bool strict = false;
  /// Take repeated lines by the memo's fast path. Off when every event must be parsed in full
  /// (a listener that needs every field of every event, such as `parse --events`).
  bool memo = true;
  /// Add the repeats the memo's fast path takes to their rows. Off for a session whose rows only
  /// name what it hands on (a parallel reading's worker: the calling thread adds each repeat to
  /// its own rows, so the worker's sums would never be read).
  bool add_repeats = true;
  /// The dialects read (`parse --dialect`); kAuto: every one, told by the content.
  DialectChoice dialect = DialectChoice::kAuto;
};

/// A consumer of the session's events, called as they are aggregated (llvm-mca's view
/// listeners): `--events` rows, timelines.
class EventListener {
 public:
  virtual ~EventListener() = default;
  /// A create, exec or diagnostic parsed in full; `row` is its aggregated row
  /// (Aggregator::kNoRow for diagnostics).
  virtual void OnEvent(const VerboseEvent& event, std::size_t row) = 0;
  /// A repeated line taken by the memo: one more event like those of row `repeat.row` (an
  /// exec, a create, a cache hit: see `repeat`), with time `ms` and the line's `timestamp`
  /// (what VerboseEvent::timestamp would hold had it been parsed in full).
  virtual void OnRepeat(const LineMemo::Entry& repeat, double ms, std::optional<double> timestamp) {
    (void)repeat;
    (void)ms;
    (void)timestamp;
  }
  /// Whether OnRepeat does anything now: when no listener's does, a repeat taken by
  /// FeedPredicted calls none.
  virtual bool UsesRepeats() const { return true; }
  /// Whether OnRepeat uses its `timestamp` now: when no listener does, a repeat's timestamp is
  /// not read (nullopt is passed), which saves reading a 20-digit number per line.
  virtual bool UsesTimestamps() const { return true; }
};

class LogSession : private LineMemo::RepeatSink {
 public:
  explicit LogSession(LogSessionOptions options = {});
  LogSession(const LogSession&) = delete;
  LogSession& operator=(const LogSession&) = delete;

  /// Adds a listener (not owned; it must outlive the session's feeding).
  void AddListener(EventListener* listener) { listeners_.push_back(listener); }
  /// Removes a listener added before (one that goes away while the session goes on).
  void RemoveListener(EventListener* listener) { std::erase(listeners_, listener); }

  /// Starts an input named `name` (for --strict messages): the template and header state start
  /// afresh, the rows and counts go on. Feeding without StartInput starts an unnamed one.
  void StartInput(std::string name);
  /// Feeds one physical line without its line feed; `number` is its 1-based line number in its
  /// input. Returns false once a --strict error has stopped the session (the line is ignored).
  bool Feed(std::string_view line, std::uint64_t number);
  /// Counts a line the reader could not deliver because it was too long.
  void FeedTooLong(std::uint64_t number);
  /// Ends the current input: flushes a line held back for joining (unless stopped) and merges
  /// the input's header into header().
  void Finish();
  /// Feeds the lines at the start of `text` that the memo takes in place (repeats of the lines
  /// it predicts, each ending in '\n' and at most `line_cap` bytes long), as Feed would feed
  /// them one by one, up to the first line it does not take: feed that one by Feed. Returns the
  /// bytes taken (whole lines with their '\n'); `lines` is how many lines they hold. The fast
  /// path of FeedAll and of the parallel reading: no line splitting, no call per line.
  std::size_t FeedPredicted(std::string_view text, std::size_t line_cap, std::uint64_t& lines);
  /// Feeds every line `reader` delivers as one input named `name` (StartInput, Feed or
  /// FeedTooLong, Finish), until its end or a --strict stop. Returns the reader's status.
  Status FeedAll(LineReader& reader, std::string name);

  /// Tells the inputs apart from here on (`parse` of several logs): each StartInput numbers its
  /// input, rows are per input (PrimitiveStats::input), and input_names() names them.
  void LabelInputs() { label_inputs_ = true; }
  /// The labelled inputs' names, in order (PrimitiveStats::input - 1 indexes it).
  const std::vector<std::string>& input_names() const { return input_names_; }
  /// Each finished input's own header, with its name, in order.
  const std::vector<std::pair<std::string, LogHeader>>& input_headers() const {
    return input_headers_;
  }

  /// Tags the following events with a layer of dlcheck's own models (empty: none). Rows are
  /// per layer, and the memo tells the same line under two layers apart.
  void SetLayer(std::string_view layer);

  /// True once a --strict error stopped the session; strict_error() says where and why.
  bool stopped() const { return !strict_error_.empty(); }
  /// "file:line: reason" of the first bad line under --strict, else empty.
  const std::string& strict_error() const { return strict_error_; }

  const ParseStats& stats() const { return stats_; }
  /// The header merged over the inputs finished so far, then the current input's: the first
  /// input that names a field wins.
  LogHeader header() const;
  const Aggregator& aggregator() const { return aggregator_; }
  /// The rows, moved out of the aggregator (a report that sorts them holds them once): call it
  /// after Finish and Summarize; the session's rows are empty after it.
  std::vector<PrimitiveStats> TakeRows();
  /// The aggregator's summary, with the merged header.
  Summary Summarize(const RunContext& context = {}) const {
    return aggregator_.Summarize(header(), context);
  }

 private:
  friend class ParallelFeed;  // replays what its threads parsed into this session
  // FeedAll between StartInput and Finish: the lines `reader` has left, numbered on from its
  // line_number().
  void FeedRest(LineReader& reader);
  // Forgets the memo (its states are numbered by the parser it replaces).
  void ForgetMemo() {
    memo_.Clear();
    memo_states_.clear();
    memo_parser_state_ = memo_layer_id_ = 0xffffffffu;
  }
  // The last create or exec the parser produced, to remember its line in the memo.
  struct LastEvent {
    std::uint64_t line = 0;
    std::size_t row = Aggregator::kNoRow;
    bool exec = false;
    bool cache_hit = false;
    bool nested = false;
    std::optional<double> ms;
    bool timestamped = false;
  };

  void OnParsed(const ParseResult& result, VerboseEvent& event, std::uint64_t line);
  void OnSkipped(SkipReason reason, std::uint64_t line);
  void RememberLine(std::string_view line, std::uint64_t number);
  // The memo's key for `line`: the line itself, or, for a line with a timestamp field once the
  // log has shown one, the line without that field (in memo_key_), with `stamped` set and the
  // timestamp in `timestamp`.
  // `stamp_at` is where the timestamp field was cut out.
  std::string_view MemoKey(std::string_view line, bool& stamped, std::optional<double>& timestamp,
                           std::size_t& stamp_at);
  void NotifyRepeat(const LineMemo::Entry& entry, double ms, std::string_view stamp);
  // A repeat FeedPredicted took, for the listeners.
  void OnRepeat(const LineMemo::Entry& entry, double ms, std::string_view stamp) override {
    NotifyRepeat(entry, ms, stamp);
  }
  // The memo's state for the current line: computed again only when the parser's state, the
  // layer or whether the line had a timestamp changed (a line without its timestamp field is
  // keyed apart from lines that never had one).
  std::uint32_t MemoState(bool stamped) {
    if (parser_->state_id() != memo_parser_state_ || layer_id_ != memo_layer_id_) {
      NewMemoStates();
    }
    return stamped ? memo_stamped_state_ : memo_state_;
  }
  void NewMemoStates();  // both states of the parser's state and the layer
  LineMemo::PredictedStates PredictedStates() {
    return {.plain = MemoState(false), .stamped = MemoState(true), .plain_events = !saw_timestamp_};
  }
  static constexpr std::uint32_t kStampedBit = 0x80000000u;

  LogSessionOptions options_;
  std::vector<EventListener*> listeners_;
  std::optional<JoiningParser> parser_;
  std::string input_name_;
  LineMemo memo_;
  Aggregator aggregator_;
  bool label_inputs_ = false;
  std::vector<std::string> input_names_;
  std::vector<std::pair<std::string, LogHeader>> input_headers_;
  ParseStats stats_;
  LogHeader merged_header_;
  std::string strict_error_;
  LastEvent last_;
  std::uint64_t last_foreign_ = 0;
  bool saw_timestamp_ = false;  // a parsed event had a timestamp: look for them in memo keys
  std::string memo_key_;
  // The memo's state: the parser's state and the layer, numbered as they come.
  std::string layer_;
  std::uint32_t layer_id_ = 0;
  std::vector<std::string> layers_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint32_t> memo_states_;
  std::uint32_t memo_parser_state_ = 0xffffffffu;
  std::uint32_t memo_layer_id_ = 0xffffffffu;
  std::uint32_t memo_state_ = 0;          // of lines without a timestamp field
  std::uint32_t memo_stamped_state_ = 0;  // of lines with one
};

/// Merges `from` into `into`: each field `into` lacks is taken from `from`.
void MergeHeader(LogHeader& into, const LogHeader& from);

}  // namespace dlcheck::verbose
