// SPDX-License-Identifier: Apache-2.0
#pragma once
// The memo of verbose lines already aggregated: a repeated line (the next training step's) is
// found by its text up to the time and only its time is read, without parsing it. LogSession
// (log_session.h) uses it in front of the parser and the Aggregator (aggregate.h).

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck::verbose {

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

}  // namespace dlcheck::verbose
