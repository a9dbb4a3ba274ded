// SPDX-License-Identifier: Apache-2.0
#include "verbose/aggregate.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "common/onednn_isa.h"
#include "verbose/diagnostic_words.h"
#include "verbose/exec_time.h"
#include "verbose/flops.h"
#include "verbose/isa.h"
#include "verbose/line_parser.h"
#include "verbose/rules.h"

namespace dlcheck::verbose {
namespace {

constexpr char kSep = '\x1f';  // never printed by oneDNN

void AppendKeyPart(std::string& key, std::string_view part) {
  key.append(part);
  key.push_back(kSep);
}

std::string Percent(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  return buf;
}

std::string Ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}

std::vector<TimeShare> SortedShares(std::map<std::string, TimeShare> by_name, double total) {
  std::vector<TimeShare> out;
  for (auto& [name, share] : by_name) {
    share.name = name;
    share.pct = total > 0 ? 100.0 * share.exec_ms / total : 0;
    out.push_back(share);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const TimeShare& a, const TimeShare& b) { return a.exec_ms > b.exec_ms; });
  return out;
}

// The position of the last comma (memrchr: one vector compare for the short time field).
std::size_t LastComma(std::string_view s) {
  const void* hit = memrchr(s.data(), ',', s.size());
  return hit == nullptr ? std::string_view::npos
                        : static_cast<std::size_t>(static_cast<const char*>(hit) - s.data());
}

std::string_view TrimLineEnd(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// The bytes of `v` that are not ASCII digits, as their high bits: a byte is a digit when its
// value less '0' is below 10. Only the lowest flagged byte is sure (a carry moves upward, to
// bytes past the first non-digit).
constexpr std::uint64_t NotDigits(std::uint64_t v) {
  const std::uint64_t x = v ^ 0x3030303030303030ULL;  // digits: 0..9
  return ((x + 0x7676767676767676ULL) | x) & 0x8080808080808080ULL;
}

std::uint64_t Load8(const char* p) {
  std::uint64_t v = 0;
  std::memcpy(&v, p, 8);
  return v;
}

// Past the ASCII digits at `p` (before `end`), eight bytes at a time.
[[gnu::always_inline]] inline const char* SkipDigits(const char* p, const char* end) {
  for (; end - p >= 8; p += 8) {
    if (const std::uint64_t stop = NotDigits(Load8(p)); stop != 0) {
      return p + (__builtin_ctzll(stop) >> 3);
    }
  }
  while (p < end && static_cast<unsigned>(*p - '0') < 10) ++p;
  return p;
}

// The value of the first `count` (1 to 8) bytes of `v`, ASCII digits (fast_float's SWAR steps);
// the bytes past them are shifted out (a borrow from one of them only moves upward).
[[gnu::always_inline]] inline std::uint64_t DigitsValue(std::uint64_t v, int count) {
  v = (v - 0x3030303030303030ULL) << (8 * (8 - count));
  v = (v * 10) + (v >> 8);
  return (((v & 0x000000FF000000FFULL) * (100 + (1000000ULL << 32))) +
          (((v >> 16) & 0x000000FF000000FFULL) * (1 + (10000ULL << 32)))) >>
         32;
}

constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                             1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
constexpr std::uint64_t kPow10Int[] = {1,
                                       10,
                                       100,
                                       1000,
                                       10000,
                                       100000,
                                       1000000,
                                       10000000,
                                       100000000,
                                       1000000000,
                                       10000000000,
                                       100000000000,
                                       1000000000000,
                                       10000000000000,
                                       100000000000000,
                                       1000000000000000};

// Clinger's fast path: up to 15 digits and a decimal point are exact in a double, and one
// division by an exact power of ten is correctly rounded, so this equals from_chars. The time
// at `begin`: digits, then a point and digits; returns where the number ends, or nullptr when
// it is not in that form (from_chars reads it then).
const char* ScanTimeByDigit(const char* const begin, const char* const end, double& ms) {
  std::uint64_t mantissa = 0;
  const char* p = begin;
  while (p < end && static_cast<unsigned>(*p - '0') < 10 && p - begin < 16) {
    mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    ++p;
  }
  const std::ptrdiff_t int_digits = p - begin;
  if (int_digits == 0 || int_digits > 15) return nullptr;  // 16 digits fit a uint64, not a double
  if (p == end || *p != '.') {
    ms = static_cast<double>(mantissa);
    return p;
  }
  const char* const fraction = ++p;
  while (p < end && static_cast<unsigned>(*p - '0') < 10 && p - begin <= 16) {
    mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    ++p;
  }
  const std::ptrdiff_t decimals = p - fraction;
  if (decimals == 0 || int_digits + decimals > 15 ||
      (p < end && static_cast<unsigned>(*p - '0') < 10)) {
    return nullptr;
  }
  ms = static_cast<double>(mantissa) / kPow10[decimals];
  return p;
}

// ScanTimeByDigit, on words where 17 bytes can be read (a line read ahead: the next lines
// follow): the point is taken out of the first 16 bytes, and the digits on both sides of it
// read as one mantissa, eight at a time. The same mantissa and power of ten: the same value.
[[gnu::always_inline]] inline const char* ScanTime(const char* const begin, const char* const end,
                                                   double& ms) {
  if (end - begin < 17) return ScanTimeByDigit(begin, end, ms);
  const std::uint64_t low = Load8(begin);
  const std::uint64_t high = Load8(begin + 8);
  const std::uint64_t integer_stop = NotDigits(low);
  if (integer_stop == 0) return ScanTimeByDigit(begin, end, ms);  // 8 integer digits or more
  const int int_digits = __builtin_ctzll(integer_stop) >> 3;
  if (int_digits == 0) return nullptr;
  if (begin[int_digits] != '.') {
    ms = static_cast<double>(DigitsValue(low, int_digits));
    return begin + int_digits;
  }
  // The 15 bytes after the point's removal: its integer digits kept, the rest a byte down.
  const std::uint64_t kept = (std::uint64_t{1} << (8 * int_digits)) - 1;
  const std::uint64_t first = (low & kept) | ((low >> 8) & ~kept) | (high << 56);
  const std::uint64_t second = high >> 8;  // its top byte 0: never a digit
  const std::uint64_t first_stop = NotDigits(first);
  int digits = 0;
  std::uint64_t mantissa = 0;
  if (first_stop != 0) {
    digits = __builtin_ctzll(first_stop) >> 3;
    mantissa = DigitsValue(first, digits);
  } else {
    const int more = __builtin_ctzll(NotDigits(second)) >> 3;
    digits = 8 + more;
    mantissa = DigitsValue(first, 8) * kPow10Int[more];
    if (more != 0) mantissa += DigitsValue(second, more);
    // 15 digits read: a 16th makes it too long for the fast path.
    if (more == 7 && static_cast<unsigned>(begin[16] - '0') < 10) return nullptr;
  }
  const int decimals = digits - int_digits;
  if (decimals == 0) return nullptr;
  ms = static_cast<double>(mantissa) / kPow10[decimals];
  return begin + digits + 1;
}

// The time field's text `text`: the fast path, else from_chars.
bool ReadTime(std::string_view text, double& ms) {
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  if (ScanTime(begin, end, ms) == end) return IsExecTime(ms);
  const auto [ptr, ec] = std::from_chars(begin, end, ms);
  return ec == std::errc() && ptr == end && IsExecTime(ms);
}

// Past the blanks TrimLineEnd drops, from `p`.
[[gnu::always_inline]] inline const char* SkipLineEndBlanks(const char* p, const char* end) {
  while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
  return p;
}

}  // namespace

LineMemo::Kind LineMemo::KindOf(const Entry& entry) {
  if (entry.exec) return Kind::kExec;
  if (entry.nested) return entry.cache_hit ? Kind::kNestedHit : Kind::kNested;
  return entry.cache_hit ? Kind::kCreateHit : Kind::kCreate;
}

bool LineMemo::SameKey(const Slot& slot, std::uint32_t state, std::string_view key,
                       bool foreign) const {
  return slot.state == state && slot.length == key.size() &&
         (slot.kind == Kind::kForeign) == foreign &&
         std::memcmp(arena_.data() + slot.offset, key.data(), key.size()) == 0;
}

std::uint32_t LineMemo::Find(std::uint64_t hash, std::uint32_t state, std::string_view key,
                             bool foreign) const {
  if (count_ == 0) return kNone;
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.length == 0) return kNone;
    if (slot.hash == hash && SameKey(slot, state, key, foreign)) {
      return static_cast<std::uint32_t>(i);
    }
  }
}

[[gnu::always_inline]] void LineMemo::Follow(std::uint32_t index) {
  const std::uint32_t from = last_ != kNone ? last_ : link_from_;
  if (from != kNone && slots_[from].next != index) {
    slots_[from].next2 = slots_[from].next;
    slots_[from].next = index;
  }
  last_ = index;
  link_from_ = kNone;
}

void LineMemo::Insert(std::uint64_t hash, std::uint32_t state, std::string_view key,
                      const Entry& entry, bool foreign, std::size_t stamp_at) {
  if (key.empty() || key.size() > kMaxArena / 16 || state > 0xffff || entry.row > 0xffffffffu) {
    return;
  }
  if (const std::uint32_t known = Find(hash, state, key, foreign); known != kNone) {
    Follow(known);
    return;
  }
  if (count_ >= kMaxEntries || arena_.size() + key.size() > kMaxArena) Clear();
  if (2 * (count_ + 1) > slots_.size()) Grow();
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = hash & mask;
  while (slots_[i].length != 0) i = (i + 1) & mask;
  Slot& slot = slots_[i];
  slot.hash = hash;
  slot.offset = static_cast<std::uint32_t>(arena_.size());
  slot.length = static_cast<std::uint32_t>(key.size());
  slot.row = static_cast<std::uint32_t>(entry.row);
  slot.state = static_cast<std::uint16_t>(state);
  slot.kind = foreign ? Kind::kForeign : KindOf(entry);
  slot.stamp_at = stamp_at < key.size() && stamp_at < kNoStamp
                      ? static_cast<std::uint16_t>(stamp_at)
                      : kNoStamp;
  slot.next = kNone;
  arena_.append(key);
  ++count_;
  Follow(static_cast<std::uint32_t>(i));
}

// A remembered line matched: a foreign line, or an event whose time is read from `time_text`
// (kMiss when it does not read as a time).
LineMemo::Match LineMemo::Hit(std::uint32_t index, std::string_view time_text, Entry& entry,
                              double& ms) {
  if (slots_[index].kind != Kind::kForeign && !ReadTime(time_text, ms)) return Match::kMiss;
  return Take(index, entry);
}

[[gnu::always_inline]] LineMemo::Match LineMemo::Take(std::uint32_t index, Entry& entry) {
  const Slot& slot = slots_[index];
  if (slot.kind == Kind::kForeign) {
    Follow(index);
    return Match::kForeign;
  }
  entry = {slot.row, slot.kind == Kind::kExec,
           slot.kind == Kind::kCreateHit || slot.kind == Kind::kNestedHit,
           slot.kind == Kind::kNested || slot.kind == Kind::kNestedHit};
  Follow(index);
  return Match::kEvent;
}

LineMemo::Match LineMemo::Lookup(std::uint32_t state, std::string_view line, Entry& entry,
                                 double& ms) {
  if (count_ == 0) return Match::kMiss;
  line = TrimLineEnd(line);
  const std::size_t comma = LastComma(line);
  const bool has_prefix = comma != std::string_view::npos && comma != 0;
  const std::string_view prefix = has_prefix ? line.substr(0, comma) : std::string_view();
  const std::string_view time_text = has_prefix ? line.substr(comma + 1) : std::string_view();
  // The predicted line first: no hashing.
  if (last_ != kNone && slots_[last_].next != kNone) {
    const std::uint32_t guess = slots_[last_].next;
    const Slot& slot = slots_[guess];
    const bool foreign = slot.kind == Kind::kForeign;
    if (foreign ? SameKey(slot, 0, line, true)
                : has_prefix && SameKey(slot, state, prefix, false)) {
      const Match m = Hit(guess, time_text, entry, ms);
      if (m != Match::kMiss) return m;
    }
  }
  if (has_prefix) {
    if (const std::uint32_t i = Find(FastHash(prefix), state, prefix, false); i != kNone) {
      const Match m = Hit(i, time_text, entry, ms);
      if (m != Match::kMiss) return m;
    }
  }
  if (const std::uint32_t i = Find(FastHash(line), 0, line, true); i != kNone) {
    return Hit(i, time_text, entry, ms);
  }
  link_from_ = last_;
  last_ = kNone;
  return Match::kMiss;
}

// Lookup's rule, in place: the line is the remembered key, a comma and the time (or, for a
// foreign line, the key), then only blanks to its end. The key of a stamped line is the line
// without its timestamp field: key = line[0, at) + line[tail, comma).
[[gnu::always_inline]] bool LineMemo::TryPredicted(std::uint32_t guess,
                                                   const PredictedStates& states,
                                                   std::string_view text, bool whole_line,
                                                   std::size_t max_length, Predicted& found) {
  const Slot& slot = slots_[guess];
  const char* const line = text.data();
  const char* const end = line + text.size();
  const char* const key = arena_.data() + slot.offset;
  const std::size_t size = text.size();
  const char* after = nullptr;  // past the key: the comma before the time, or the blanks
  if (slot.kind == Kind::kForeign) {
    if (size < slot.length || std::memcmp(key, line, slot.length) != 0) return false;
    after = line + slot.length;
  } else if (slot.stamp_at == kNoStamp) {
    if (!states.plain_events || slot.state != states.plain || size <= slot.length ||
        std::memcmp(key, line, slot.length) != 0) {
      return false;
    }
    after = line + slot.length;
  } else {
    const std::size_t at = slot.stamp_at;
    if (slot.state != states.stamped || size <= at || std::memcmp(key, line, at) != 0) {
      return false;
    }
    // `<digits>.<digits>,` (FindTimestampField's rule): first in the shape of the last one.
    const char* const field = line + at;
    const char* stamp_end = nullptr;
    if (const StampShape& shape = stamp_shape_; shape.point != 0 && end - field >= 24) {
      std::uint64_t wrong = 0;
      for (int w = 0; w < 3; ++w) {
        wrong |= (NotDigits(Load8(field + 8 * w)) ^ shape.not_digits[w]) & shape.within[w];
      }
      if (wrong == 0 && field[shape.point] == '.' && field[shape.comma] == ',') {
        stamp_end = field + shape.comma;
      }
    }
    if (stamp_end == nullptr) {
      const char* const point = SkipDigits(field, end);
      if (point == field || point == end || *point != '.') return false;
      stamp_end = SkipDigits(point + 1, end);
      if (stamp_end == point + 1 || stamp_end == end || *stamp_end != ',') return false;
      LearnStampShape(static_cast<std::size_t>(point - field),
                      static_cast<std::size_t>(stamp_end - field));
    }
    const char* const tail = stamp_end + 1;
    const std::size_t rest = slot.length - at;
    if (static_cast<std::size_t>(end - tail) <= rest || std::memcmp(key + at, tail, rest) != 0) {
      return false;
    }
    found.stamp = {line + at, static_cast<std::size_t>(stamp_end - (line + at))};
    after = tail + rest;
  }
  const char* stop = after;
  if (slot.kind != Kind::kForeign) {
    if (*after != ',') return false;
    stop = ScanTime(after + 1, end, found.ms);
    if (stop == nullptr || !IsExecTime(found.ms)) return false;  // the parser says why
  }
  if (stop < end && *stop != '\n') stop = SkipLineEndBlanks(stop, end);
  found.length = static_cast<std::size_t>(stop - line);
  if (whole_line ? stop != end : (stop == end || *stop != '\n' || found.length > max_length)) {
    return false;
  }
  found.match = Take(guess, found.entry);
  return true;
}

[[gnu::always_inline]] LineMemo::Predicted LineMemo::Predict(const PredictedStates& states,
                                                             std::string_view text, bool whole_line,
                                                             std::size_t max_length) {
  Predicted found;
  if (last_ == kNone) return found;
  const Slot& last = slots_[last_];
  const std::uint32_t second = last.next2;
  if (last.next != kNone && TryPredicted(last.next, states, text, whole_line, max_length, found)) {
    return found;
  }
  found.stamp = {};
  if (second != kNone && TryPredicted(second, states, text, whole_line, max_length, found)) {
    return found;
  }
  return {};
}

LineMemo::Predicted LineMemo::LookupPredicted(const PredictedStates& states, std::string_view text,
                                              bool whole_line, std::size_t max_length) {
  return Predict(states, text, whole_line, max_length);
}

LineMemo::Taken LineMemo::TakePredicted(const PredictedStates& states, std::string_view text,
                                        std::size_t max_length, Aggregator* aggregator,
                                        RepeatSink* sink) {
  Taken taken;
  while (true) {
    const Predicted found = Predict(states, text.substr(taken.bytes), false, max_length);
    if (found.match == Match::kMiss) break;
    taken.bytes += found.length + 1;
    ++taken.lines;
    if (found.match == Match::kForeign) {
      ++taken.foreign;
      continue;
    }
    ++taken.events;
    if (aggregator != nullptr) aggregator->AddRepeatHere(found.entry, found.ms);
    if (sink != nullptr) sink->OnRepeat(found.entry, found.ms, found.stamp);
  }
  return taken;
}

// A shape is kept where its field and comma fit three words (24 bytes): the point and the
// comma are the only bytes in it that are not digits (NotDigits never misses one; a byte past a
// non-ASCII one may be flagged too, which only fails the check).
void LineMemo::LearnStampShape(std::size_t point, std::size_t comma) {
  stamp_shape_ = {};
  if (comma >= 24) return;
  for (std::size_t i = 0; i <= comma; ++i) {
    const std::uint64_t high_bit = std::uint64_t{0x80} << (8 * (i % 8));
    stamp_shape_.within[i / 8] |= high_bit;
    if (i == point || i == comma) stamp_shape_.not_digits[i / 8] |= high_bit;
  }
  stamp_shape_.point = static_cast<std::uint32_t>(point);
  stamp_shape_.comma = static_cast<std::uint32_t>(comma);
}

void LineMemo::Remember(std::uint32_t state, std::string_view line, const Entry& entry, double ms,
                        std::size_t stamp_at) {
  line = TrimLineEnd(line);
  const std::size_t comma = LastComma(line);
  double read = 0;
  if (comma == std::string_view::npos || comma == 0 || !ReadTime(line.substr(comma + 1), read) ||
      read != ms) {
    return;
  }
  const std::string_view key = line.substr(0, comma);
  Insert(FastHash(key), state, key, entry, false, stamp_at);
}

// Foreign lines are keyed by their whole text and state 0: no marker, whatever the state.
void LineMemo::RememberForeign(std::string_view line) {
  line = TrimLineEnd(line);
  Insert(FastHash(line), 0, line, {}, true);
}

void LineMemo::Clear() {
  slots_.clear();
  arena_.clear();
  count_ = 0;
  last_ = link_from_ = kNone;
}

void LineMemo::Grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(old.empty() ? 1024 : 2 * old.size(), Slot{});
  const std::size_t mask = slots_.size() - 1;
  for (const Slot& slot : old) {
    if (slot.length == 0) continue;
    std::size_t i = slot.hash & mask;
    while (slots_[i].length != 0) i = (i + 1) & mask;
    slots_[i] = slot;
    slots_[i].next = slots_[i].next2 = kNone;  // indices moved: forget the predictions
  }
  last_ = link_from_ = kNone;
}

void Aggregator::AddRepeat(const LineMemo::Entry& entry, double ms) {
  AddRepeatHere(entry, ms);
}

[[gnu::always_inline]] void Aggregator::AddRepeatHere(const LineMemo::Entry& entry, double ms) {
  ++events_;
  if (entry.row == other_row_) ++other_events_;
  PrimitiveStats& row = rows_[entry.row];
  if (!entry.exec && !pending_dispatch_.empty()) {
    JoinDispatch(row, row.problem.view());
    if (!entry.nested) pending_dispatch_.clear();
  }
  AddTime(row, entry, ms);
}

[[gnu::always_inline]] void Aggregator::AddTime(PrimitiveStats& row, const LineMemo::Entry& kind,
                                                std::optional<double> ms) {
  if (kind.nested) {
    ++row.nested_creates;
    if (ms) row.nested_create_ms += *ms;
  } else if (kind.exec) {
    ++row.execs;
    if (ms) {
      if (row.timed_execs == 0) {
        row.exec_ms_min = row.exec_ms_max = row.first_exec_ms = *ms;
      } else {
        row.exec_ms_min = std::min(row.exec_ms_min, *ms);
        row.exec_ms_max = std::max(row.exec_ms_max, *ms);
      }
      ++row.timed_execs;
      row.exec_ms_total += *ms;
    }
  } else {
    ++row.creates;
    if (kind.cache_hit) ++row.cache_hits;
    if (ms) row.create_ms += *ms;
  }
}

std::size_t Aggregator::Add(const VerboseEvent& e) {
  if (e.operation == Operation::kInfo) return kNoRow;
  ++events_;
  if (e.operation == Operation::kDiagnostic) {
    if (e.component == "graph" && e.primitive == "pattern_matcher") {
      ++graph_dispatch_events_;  // thousands per model: counted, summarised, never rows
    } else {
      AddDiagnostic(e);
      if (e.operation_text == "create:dispatch") HoldDispatch(e);
    }
    return kNoRow;
  }
  key_.clear();
  AppendKeyPart(key_, e.engine);
  AppendKeyPart(key_, e.primitive);
  AppendKeyPart(key_, e.implementation);
  AppendKeyPart(key_, e.prop_kind);
  AppendKeyPart(key_, e.memory_descriptors);
  AppendKeyPart(key_, e.attributes);
  AppendKeyPart(key_, e.auxiliary);
  AppendKeyPart(key_, e.problem);
  if (e.layer) {
    key_.push_back('L');
    key_.append(*e.layer);
  }
  if (input_ != 0) {
    key_.push_back('I');
    key_.append(std::to_string(input_));
  }
  const std::uint64_t hash = FullHash(key_);  // every byte: no crafted rows share a hash cheaply
  std::size_t index = FindRow(hash, e);
  if (index == kNoRow) {
    const bool room = rows_.size() < kMaxRows && row_text_bytes_ < kMaxRowTextBytes;
    index = room ? NewRow(e, hash) : OtherRow();
  }
  if (index == other_row_) ++other_events_;
  if (e.operation != Operation::kExec) {
    if (!e.cache_state.empty()) rows_[index].cache_state_known = true;
    if (!pending_dispatch_.empty()) {
      JoinDispatch(rows_[index], e.problem);
      // A create (not nested) ends the creation the reasons were printed for: those left
      // belong to one that failed (no primitive), and are not kept to slow every create.
      if (e.operation == Operation::kCreate) pending_dispatch_.clear();
    }
  }
  AddTime(rows_[index],
          {index, e.operation == Operation::kExec, e.IsCacheHit(),
           e.operation == Operation::kCreateNested},
          e.time_ms);
  return index;
}

bool Aggregator::SameRow(const PrimitiveStats& row, const VerboseEvent& e) const {
  return row.problem == e.problem && row.memory_descriptors == e.memory_descriptors &&
         row.primitive == e.primitive && row.implementation == e.implementation &&
         row.prop_kind == e.prop_kind && row.attributes == e.attributes &&
         row.auxiliary == e.auxiliary && row.engine == e.engine && row.input == input_ &&
         row.layer.has_value() == e.layer.has_value() && (!e.layer || *row.layer == *e.layer);
}

// The row of the event's primitive, or kNoRow.
std::size_t Aggregator::FindRow(std::uint64_t hash, const VerboseEvent& e) const {
  if (row_slots_.empty()) return kNoRow;
  const std::size_t mask = row_slots_.size() - 1;
  for (std::size_t i = hash & mask; row_slots_[i].row != kEmptySlot; i = (i + 1) & mask) {
    const RowSlot& slot = row_slots_[i];
    if (slot.hash == hash && SameRow(rows_[slot.row], e)) return slot.row;
  }
  return kNoRow;
}

void Aggregator::IndexRow(std::uint64_t hash, std::size_t row) {
  if (2 * (rows_.size() + 1) > row_slots_.size()) {
    std::vector<RowSlot> old(row_slots_.empty() ? 256 : 2 * row_slots_.size());
    old.swap(row_slots_);
    for (const RowSlot& slot : old) {
      if (slot.row != kEmptySlot) IndexRow(slot.hash, slot.row);
    }
  }
  const std::size_t mask = row_slots_.size() - 1;
  std::size_t i = hash & mask;
  while (row_slots_[i].row != kEmptySlot) i = (i + 1) & mask;
  row_slots_[i] = {hash, static_cast<std::uint32_t>(row)};
}

// A row for a primitive not seen before, whose key hashes to `hash`.
std::size_t Aggregator::NewRow(const VerboseEvent& e, std::uint64_t hash) {
  const std::size_t index = rows_.size();
  IndexRow(hash, index);
  PrimitiveStats& row = rows_.emplace_back();
  auto text = [this](std::string_view s) { return InternedText(s, row_text_bytes_); };
  row.engine = text(e.engine);
  row.primitive = text(e.primitive);
  row.implementation = text(e.implementation);
  row.isa = text(e.isa);
  row.isa_inferred = e.isa_inferred;
  row.impl_class = e.impl_class;
  row.prop_kind = text(e.prop_kind);
  row.memory_descriptors = text(e.memory_descriptors);
  ParseMemoryDescs(e.memory_descriptors, mds_);
  row.data_types = text(DataTypesText(mds_));
  row.layouts = text(LayoutsText(mds_));
  row.attributes = text(e.attributes);
  row.auxiliary = text(e.auxiliary);
  row.problem = text(e.problem);
  row.era = e.era;
  if (e.layer) row.layer = text(*e.layer);
  row.input = input_;
  row.flops = FlopsOf(e.primitive, e.problem);
  row.first_line = e.line;
  return index;
}

std::vector<PrimitiveStats> Aggregator::TakeRows() {
  std::vector<PrimitiveStats> taken;
  taken.reserve(rows_.size());
  while (!rows_.empty()) {
    taken.push_back(std::move(rows_.front()));
    rows_.pop_front();  // frees each block once its rows are moved
  }
  rows_.shrink_to_fit();
  row_slots_ = {};
  row_text_bytes_ = 0;
  other_row_ = kNoRow;
  return taken;
}

// The one row that holds every primitive beyond kMaxRows (no key: nothing else maps to it).
std::size_t Aggregator::OtherRow() {
  if (other_row_ == kNoRow) {
    other_row_ = rows_.size();
    PrimitiveStats& row = rows_.emplace_back();
    row.primitive = "other";
    row.problem = "primitives beyond the first " + std::to_string(rows_.size() - 1);
  }
  return other_row_;
}

namespace {

// A diagnostic's text as kept: its first kMaxDiagnosticText bytes, `...` after a cut.
std::string DiagnosticText(std::string_view text) {
  if (text.size() <= kMaxDiagnosticText) return std::string(text);
  return std::string(text.substr(0, kMaxDiagnosticText)) + "...";
}

}  // namespace

// Diagnostics that agree in their kept texts are one row: at most kMaxDiagnostics rows of at
// most four cut texts each, whatever the lines hold.
void Aggregator::AddDiagnostic(const VerboseEvent& e) {
  ++diagnostic_events_;
  const auto cut = [](std::string_view text) { return text.substr(0, kMaxDiagnosticText); };
  key_.clear();
  AppendKeyPart(key_, cut(e.operation_text));
  AppendKeyPart(key_, cut(e.primitive));
  AppendKeyPart(key_, cut(e.implementation));
  AppendKeyPart(key_, cut(e.message));
  if (auto it = diagnostic_index_.find(std::string_view(key_)); it != diagnostic_index_.end()) {
    ++diagnostics_[it->second].count;
    return;
  }
  if (diagnostics_.size() >= kMaxDiagnostics) return;
  diagnostic_index_.emplace(key_, diagnostics_.size());
  diagnostics_.push_back({DiagnosticText(e.operation_text), DiagnosticText(e.primitive),
                          DiagnosticText(e.implementation), DiagnosticText(e.message), 1, e.line});
}

std::string_view IsaOfSourceFile(std::string_view file) {
  if (const std::size_t dot = file.find('.'); dot != std::string_view::npos) {
    file = file.substr(0, dot);
  }
  // The longest run of `_`-joined words that names a ranked ISA, from the first word that starts
  // one: `jit_avx512_core_bf16_conv` -> `avx512_core_bf16`.
  for (std::size_t begin = 0; begin < file.size();) {
    std::string_view best;
    for (std::size_t end = file.find('_', begin);; end = file.find('_', end + 1)) {
      const std::string_view run =
          file.substr(begin, end == std::string_view::npos ? std::string_view::npos : end - begin);
      if (onednn::IsaRank(run).value_or(0) > 0) best = run;
      if (end == std::string_view::npos) break;
    }
    if (!best.empty()) return best;
    const std::size_t next = file.find('_', begin);
    if (next == std::string_view::npos) break;
    begin = next + 1;
  }
  return {};
}

DispatchKnob KnobOf(std::string_view reason) {
  auto has = [reason](std::string_view word) { return reason.find(word) != std::string::npos; };
  if (has("scratchpad")) {
    return {"scratchpad",
            "The kernel needs more scratch memory than allowed: raise the scratchpad limit or let "
            "the framework pass a user scratchpad"};
  }
  if (has("post-op") || has("post_op") || has("attr") || has("scales") || has("zero point") ||
      has("zero_point")) {
    return {"attribute",
            "The fused post-op or attribute is what the faster kernel lacks: allow the ISA it "
            "needs (ONEDNN_MAX_CPU_ISA), or run that operation as its own primitive instead of "
            "fusing it"};
  }
  if (has("datatype") || has("data type") || has("data_type")) {
    return {"data type",
            "The kernel has no path for these data types: use a data type it supports (f32, or "
            "bf16/int8 where the CPU has them)"};
  }
  if (has("format") || has("tag") || has("layout") || has("stride")) {
    return {"layout",
            "The kernel wants another memory layout: create the primitive with format `any` and "
            "let oneDNN choose it (the framework's blocked/channels-last mode)"};
  }
  if (has("padding") || has("shape") || has("dims") || has("dimension") || has("size") ||
      has("stride")) {
    return {"shape",
            "The kernel does not handle this shape: padding, strides or sizes outside what it "
            "supports"};
  }
  if (has("isa")) {
    return {"isa",
            "The kernel needs a higher ISA than allowed: raise ONEDNN_MAX_CPU_ISA, or run on a "
            "CPU that has it"};
  }
  return {"other", "See oneDNN's message"};
}

std::string SkippedText(const PrimitiveStats& row) {
  std::string text;
  for (const SkippedImpl& s : row.skipped) {
    if (!text.empty()) text += "; ";
    text += s.implementation.empty() ? std::string("?") : s.implementation;
    text += ": ";
    text += s.reason;
    text += " [";
    text += KnobOf(s.reason).name;
    text += "] x";
    text += std::to_string(s.count);
  }
  return text;
}

namespace {

// oneDNN's message without its trailing `,file:line`, and that file's name (no directory, no
// line): `...on isa,src/cpu/x64/jit_avx2_conv_kernel_f32.cpp:700` ->
// {`...on isa`, `jit_avx2_conv_kernel_f32.cpp`}.
std::pair<std::string_view, std::string_view> SplitSource(std::string_view message) {
  const std::size_t comma = message.rfind(',');
  if (comma == std::string_view::npos) return {message, {}};
  std::string_view file = message.substr(comma + 1);
  if (file.find(".c") == std::string_view::npos && file.find(".h") == std::string_view::npos) {
    return {message, {}};
  }
  if (const std::size_t colon = file.rfind(':'); colon != std::string_view::npos) {
    file = file.substr(0, colon);
  }
  if (const std::size_t slash = file.find_last_of("/\\"); slash != std::string_view::npos) {
    file = file.substr(slash + 1);
  }
  return {message.substr(0, comma), file};
}

}  // namespace

// A dispatch reason is held until a primitive of its kind is created: oneDNN prints it while
// it tries the implementations, before the create line of the one it chose.
void Aggregator::HoldDispatch(const VerboseEvent& e) {
  if (e.component == "graph") return;
  if (pending_dispatch_.size() >= kMaxPendingDispatch) {
    pending_dispatch_.erase(pending_dispatch_.begin());
  }
  const auto [reason, file] = SplitSource(e.message);
  PendingDispatch& p = pending_dispatch_.emplace_back();
  p.primitive = e.primitive;
  p.problem = e.problem;
  p.skipped.reason = DiagnosticText(reason);
  if (!e.implementation.empty()) {
    p.skipped.implementation = DiagnosticText(e.implementation);
    p.skipped.isa = std::string(IsaOf(e.implementation));
  } else {
    p.skipped.implementation = DiagnosticText(file);
    p.skipped.isa = std::string(IsaOfSourceFile(file));
  }
}

// Joins the held reasons of the row's kind (and problem, where the line had one) to the row.
void Aggregator::JoinDispatch(PrimitiveStats& row, std::string_view problem) {
  const std::string_view kind = row.primitive.view();
  std::erase_if(pending_dispatch_, [&](PendingDispatch& p) {
    if (p.primitive != kind || (!p.problem.empty() && p.problem != problem)) return false;
    auto same = [&p](const SkippedImpl& s) {
      return s.implementation == p.skipped.implementation && s.reason == p.skipped.reason;
    };
    if (auto it = std::find_if(row.skipped.begin(), row.skipped.end(), same);
        it != row.skipped.end()) {
      ++it->count;
    } else if (row.skipped.size() < kMaxSkippedPerRow) {
      p.skipped.count = 1;
      row.skipped.push_back(std::move(p.skipped));
    }
    return true;
  });
}

namespace {

void AddShare(TimeShare& share, const PrimitiveStats& row) {
  ++share.rows;
  share.execs += row.execs;
  share.exec_ms += row.exec_ms_total;
}

// Counts, times and shares over the rows.
Summary Totals(const PrimitiveRows& rows) {
  Summary s;
  s.rows = rows.size();
  std::map<std::string, TimeShare> by_kind;
  std::map<std::string, TimeShare> by_fallback;
  for (const PrimitiveStats& row : rows) {
    s.creates += row.creates;
    s.cache_hits += row.cache_hits;
    s.create_ms += row.create_ms;
    s.nested_creates += row.nested_creates;
    s.nested_create_ms += row.nested_create_ms;
    s.execs += row.execs;
    s.exec_ms += row.exec_ms_total;
    if (row.primitive == "reorder") s.reorder_exec_ms += row.exec_ms_total;
    if (row.timed_execs > 0) {
      s.first_exec_ms += row.first_exec_ms;
      ++s.first_execs;
      s.steady_exec_ms += row.exec_ms_total - row.first_exec_ms;
      s.steady_execs += row.timed_execs - 1;
    }
    AddShare(by_kind[row.primitive.str()], row);
    AddShare(by_fallback[std::string(ImplClassName(row.impl_class))], row);
  }
  s.by_kind = SortedShares(std::move(by_kind), s.exec_ms);
  s.by_fallback = SortedShares(std::move(by_fallback), s.exec_ms);
  s.reorder_pct = s.exec_ms > 0 ? 100.0 * s.reorder_exec_ms / s.exec_ms : 0;
  if (s.creates > 0) {
    s.cache_hit_rate = static_cast<double>(s.cache_hits) / static_cast<double>(s.creates);
  }
  return s;
}

// "2 primitives ran scalar reference code: matmul ref:any (25.0% of exec time), ...", or "".
std::string ScalarFallbackText(const PrimitiveRows& rows, double exec_ms) {
  std::map<std::string, std::pair<std::uint64_t, double>> scalar;  // "kind impl" -> rows, ms
  for (const PrimitiveStats& row : rows) {
    if (!IsScalarFinding(row, ScalarScope::kEveryRow)) continue;
    auto& entry = scalar[row.primitive + " " + row.implementation];
    ++entry.first;
    entry.second += row.exec_ms_total;
  }
  if (scalar.empty()) return {};
  std::uint64_t count = 0;
  std::string list;
  for (const auto& [name, entry] : scalar) {
    count += entry.first;
    if (!list.empty()) list += ", ";
    list += name;
    if (exec_ms > 0) list += " (" + Percent(100.0 * entry.second / exec_ms) + " of exec time)";
  }
  return std::to_string(count) + (count == 1 ? " primitive ran" : " primitives ran") +
         " scalar reference code: " + list;
}

// "jit:uni, gemm:jit": the implementations whose ISA came from the header, or "".
std::string InferredIsaList(const PrimitiveRows& rows) {
  std::map<std::string, std::uint64_t> inferred;  // impl -> rows
  for (const PrimitiveStats& row : rows) {
    if (row.isa_inferred) ++inferred[row.implementation.str()];
  }
  std::string list;
  for (const auto& [impl, n] : inferred) {
    if (!list.empty()) list += ", ";
    list += impl;
  }
  return list;
}

// "3.2" when first executions took more than twice the steady-state mean, else "".
std::string FirstExecRatio(const Summary& s) {
  if (s.steady_execs == 0 || s.first_execs == 0) return {};
  const double first_mean = s.first_exec_ms / static_cast<double>(s.first_execs);
  const double steady_mean = s.steady_exec_ms / static_cast<double>(s.steady_execs);
  if (steady_mean <= 0 || first_mean <= 2 * steady_mean) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", first_mean / steady_mean);
  return buf;
}

// The share of all exec time a row took, in percent.
double SharePct(const PrimitiveStats& row, double exec_ms) {
  return exec_ms > 0 ? 100.0 * row.exec_ms_total / exec_ms : 0;
}

// "convolution jit:sse41": how a finding names a row.
std::string RowName(const PrimitiveStats& row) {
  return row.primitive + " " + row.implementation;
}

// skipped-faster-kernel: a hot row that ran below the ISA of an implementation oneDNN skipped.
void SkippedFasterKernels(const PrimitiveRows& rows, double exec_ms, std::vector<Finding>& out) {
  for (const PrimitiveStats& row : rows) {
    if (row.skipped.empty() || SharePct(row, exec_ms) < kHotSharePct) continue;
    const SkippedImpl* best = nullptr;
    for (const SkippedImpl& s : row.skipped) {
      if (onednn::Compare(s.isa, row.isa.view()) != onednn::IsaOrder::kAbove) continue;
      if (best == nullptr || onednn::Compare(s.isa, best->isa) == onednn::IsaOrder::kAbove) {
        best = &s;
      }
    }
    if (best == nullptr) continue;
    const DispatchKnob knob = KnobOf(best->reason);
    out.push_back({Severity::kWarning, "skipped-faster-kernel",
                   RowName(row) + " " + row.problem + " (" + Percent(SharePct(row, exec_ms)) +
                       " of exec time) ran at " + row.isa + " because oneDNN skipped the " +
                       best->isa + " kernel " + best->implementation + ": \"" + best->reason +
                       "\" (" + std::string(knob.name) + "). " + std::string(knob.remedy) + "."});
  }
}

// dtype-no-native-path: hot compute rows in a data type the log's CPU has no (or only a slower)
// native unit for. The log is judged by its ISA line (what oneDNN ran under: a cap, or the
// recording CPU's level), else by the CPU the caller names; the findings then add what the
// named CPU, else this host, has.
void DtypeNoNativePaths(const PrimitiveRows& rows, double exec_ms, const LogHeader& header,
                        const RunContext& context, std::vector<Finding>& out) {
  std::optional<DtypeUnits> cpu = DtypeUnitsOfIsa(header.isa_short);
  std::optional<DtypeUnits> host = context.cpu ? context.cpu : context.host;
  if (!cpu) {
    cpu = context.cpu;
    host = context.cpu ? context.host : std::nullopt;
  }
  if (!cpu) return;
  for (const PrimitiveStats& row : rows) {
    const double share = SharePct(row, exec_ms);
    if (share < kHotSharePct || !IsComputePrimitive(row)) continue;
    if (auto finding = DtypePathFinding(row, share, *cpu, host)) {
      out.push_back(std::move(*finding));
    }
  }
}

// The number of elements of a problem's weights: inner product `oc*ic*id*ih*iw`, convolution
// `oc*ic/g*kd*kh*kw`, matmul the second operand of `MxK:KxN:MxN`; nullopt for other kinds.
std::optional<double> WeightElements(std::string_view primitive, std::string_view problem) {
  if (primitive == "matmul") {
    const std::size_t a = problem.find(':');
    if (a == std::string_view::npos) return std::nullopt;
    std::string_view b = problem.substr(a + 1);
    b = b.substr(0, b.find(':'));
    double n = 1;
    for (std::size_t at = 0; at <= b.size();) {
      std::size_t x = b.find('x', at);
      if (x == std::string_view::npos) x = b.size();
      double d = 0;
      const auto [ptr, ec] = std::from_chars(b.data() + at, b.data() + x, d);
      if (ec != std::errc() || ptr != b.data() + x) return std::nullopt;
      n *= d;
      at = x + 1;
    }
    return n;
  }
  const bool ip = primitive == "inner_product";
  if (!ip && primitive != "convolution" && primitive != "deconvolution") return std::nullopt;
  // Letters then digits, e.g. `mb2_g1ic16oc32_ih13oh13kh3...`: the value after each key.
  std::map<std::string, double, std::less<>> value;
  for (std::size_t i = 0; i < problem.size();) {
    const std::size_t key = i;
    while (i < problem.size() && std::isalpha(static_cast<unsigned char>(problem[i]))) ++i;
    const std::size_t digits = i;
    while (i < problem.size() && std::isdigit(static_cast<unsigned char>(problem[i]))) ++i;
    if (digits > key && i > digits) {
      double d = 0;
      std::from_chars(problem.data() + digits, problem.data() + i, d);
      value[std::string(problem.substr(key, digits - key))] = d;
    } else if (i == key) {
      ++i;
    }
  }
  auto get = [&value](std::string_view k, double none) {
    const auto it = value.find(k);
    return it == value.end() ? none : it->second;
  };
  if (get("oc", 0) == 0 || get("ic", 0) == 0) return std::nullopt;
  if (ip) return get("oc", 0) * get("ic", 0) * get("id", 1) * get("ih", 1) * get("iw", 1);
  const double g = get("g", 1);
  return get("oc", 0) * get("ic", 0) / g * get("kd", 1) * get("kh", 1) * get("kw", 1);
}

double DimsProduct(std::string_view dims) {
  double n = 1;
  for (std::size_t at = 0; at <= dims.size();) {
    std::size_t x = dims.find('x', at);
    if (x == std::string_view::npos) x = dims.size();
    double d = 0;
    const auto [ptr, ec] = std::from_chars(dims.data() + at, dims.data() + x, d);
    if (ec != std::errc() || ptr != dims.data() + x) return 0;
    n *= d;
    at = x + 1;
  }
  return n;
}

const MemoryDesc* FindMd(const std::vector<MemoryDesc>& mds, std::string_view name) {
  for (const MemoryDesc& md : mds) {
    if (md.name == name) return &md;
  }
  return nullptr;
}

// reorder-every-step: a reorder into a primitive's weights layout, run about once per
// execution of that primitive (inference, where the weights do not change between calls).
void ReordersEveryStep(const PrimitiveRows& rows, double exec_ms, std::vector<Finding>& out) {
  // The possible consumers, their weights read once: inference rows that compute.
  struct Consumer {
    const PrimitiveStats* row;
    std::string tag, data_type;
    std::optional<double> elements;
  };
  std::vector<Consumer> consumers;
  std::vector<MemoryDesc> mds;
  bool any_reorder = false;
  for (const PrimitiveStats& row : rows) {
    if (row.primitive == "reorder" && row.execs >= 2) any_reorder = true;
  }
  if (!any_reorder) return;
  for (const PrimitiveStats& row : rows) {
    if (row.execs == 0 || !IsComputePrimitive(row) ||
        (row.prop_kind != "forward_inference" && row.primitive != "matmul")) {
      continue;
    }
    ParseMemoryDescs(row.memory_descriptors, mds);
    if (const MemoryDesc* wei = FindMd(mds, "wei"); wei != nullptr && !wei->tag.empty()) {
      consumers.push_back(
          {&row, wei->tag, wei->data_type, WeightElements(row.primitive, row.problem)});
    }
  }
  if (consumers.empty()) return;
  for (const PrimitiveStats& reorder : rows) {
    if (reorder.primitive != "reorder" || reorder.execs < 2) continue;
    ParseMemoryDescs(reorder.memory_descriptors, mds);
    const MemoryDesc* src = FindMd(mds, "src");
    const MemoryDesc* dst = FindMd(mds, "dst");
    if (src == nullptr || dst == nullptr || dst->tag.empty() || src->tag == dst->tag) continue;
    const std::string src_tag = src->tag, tag = dst->tag, data_type = dst->data_type;
    const double elements = DimsProduct(reorder.problem);
    const PrimitiveStats* consumer = nullptr;
    std::uint64_t consumer_execs = 0;
    for (const Consumer& c : consumers) {
      if (c.tag != tag || c.data_type != data_type) continue;
      if (c.elements && elements > 0 && *c.elements != elements) continue;
      consumer_execs += c.row->execs;
      if (consumer == nullptr || c.row->exec_ms_total > consumer->exec_ms_total) consumer = c.row;
    }
    if (consumer == nullptr || consumer_execs < 2) continue;
    const double ratio = static_cast<double>(reorder.execs) / static_cast<double>(consumer_execs);
    if (ratio < 0.75 || ratio > 1.25) continue;
    out.push_back(
        {Severity::kWarning, "reorder-every-step",
         "reorder " + reorder.implementation + " " + src_tag + "->" + tag + " " + reorder.problem +
             " ran " + std::to_string(reorder.execs) + " times for " +
             std::to_string(consumer_execs) + " executions of " + RowName(*consumer) + " " +
             consumer->problem + ": its weights are reordered on every call (" +
             Percent(SharePct(reorder, exec_ms)) + " of exec time, beside its " +
             Percent(SharePct(*consumer, exec_ms)) +
             "). Keep the weights in the layout the primitive wants: cache or prepack them "
             "(torch.jit.freeze, ipex.optimize(weights_prepack=True), TensorFlow's oneDNN "
             "weight caching), and create the primitive with format `any` so the layout "
             "propagates"});
  }
}

// cache-thrash: primitives missed in the cache more than once, or more distinct missed ones
// than the cache holds.
// "convolution jit:avx2 mb1_ic3oc16_ih32kh3, 4 creations; ...; and 2 more": the rows created
// again, the costliest first (their extra creation time), at most kNamed of them.
std::string CreatedAgainNames(std::vector<std::pair<double, const PrimitiveStats*>> again) {
  constexpr std::size_t kNamed = 3;
  std::sort(again.begin(), again.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string names;
  for (std::size_t i = 0; i < again.size() && i < kNamed; ++i) {
    const PrimitiveStats& row = *again[i].second;
    names += (i ? "; " : "") + RowName(row) + " " + row.problem + ", " +
             std::to_string(row.CacheMisses()) + " creations";
  }
  if (again.size() > kNamed) names += "; and " + std::to_string(again.size() - kNamed) + " more";
  return names;
}

void CacheThrash(const PrimitiveRows& rows, const Summary& s, std::vector<Finding>& out) {
  std::uint64_t extra = 0, missed = 0;
  double extra_ms = 0;
  std::vector<std::pair<double, const PrimitiveStats*>> again;  // extra ms, row
  for (const PrimitiveStats& row : rows) {
    const std::uint64_t misses = row.CacheMisses();
    if (misses >= 1) ++missed;
    if (misses < 2) continue;
    extra += misses - 1;
    const double row_extra_ms =
        row.create_ms * static_cast<double>(misses - 1) / static_cast<double>(misses);
    extra_ms += row_extra_ms;
    again.emplace_back(row_extra_ms, &row);
  }
  const bool over = missed > kDefaultCacheCapacity;
  if (again.empty() && !over) return;
  std::string message;
  if (!again.empty()) {
    const std::size_t count = again.size();
    message = std::to_string(count) + (count == 1 ? " primitive was" : " primitives were") +
              " created again after a cache miss (" + CreatedAgainNames(std::move(again)) + "; " +
              std::to_string(extra) + " extra creations, about " + Ms(extra_ms) + " of the " +
              Ms(s.create_ms) + " of creation time)";
  }
  if (over) {
    if (!message.empty()) message += "; ";
    message += std::to_string(missed) + " distinct primitives missed the cache, more than its " +
               std::to_string(kDefaultCacheCapacity) + " entries (the default)";
  }
  message +=
      ": the primitive cache evicts them, or shapes change from call to call. Raise "
      "ONEDNN_PRIMITIVE_CACHE_CAPACITY above the number of distinct primitives, and keep "
      "shapes stable (a fixed batch size, padded or bucketed sequence lengths)";
  out.push_back({Severity::kWarning, "cache-thrash", std::move(message)});
}

// partial-log: a log that holds only part of what ran, and what its percentages cover.
void PartialLog(const PrimitiveRows& rows, const Summary& s, const LogHeader& header,
                bool caller_says_why, std::vector<Finding>& out) {
  for (const std::string& line : header.other) {
    if (line.find("filter format is enabled") != std::string::npos) {
      out.push_back({Severity::kWarning, "partial-log",
                     "oneDNN's verbose filter was on (ONEDNN_VERBOSE=...,filter=): only the "
                     "components it matched were logged, so every total and percentage covers "
                     "those lines only, not the whole run"});
      return;
    }
  }
  if (rows.empty() && !header.library_version.empty()) {
    if (caller_says_why) return;
    out.push_back({Severity::kWarning, "partial-log",
                   "the log holds oneDNN's header" +
                       std::string(s.diagnostics > 0 ? " and diagnostic lines" : "") +
                       " but no primitive line: verbose output was off or at the error level "
                       "(ONEDNN_VERBOSE=error is oneDNN 3.x's default); set ONEDNN_VERBOSE=2 "
                       "(DNNL_VERBOSE=2 before 2.5)"});
    return;
  }
  if (s.execs > 0 && s.creates == 0 && s.nested_creates == 0) {
    out.push_back({Severity::kInfo, "partial-log",
                   "the log has no create lines (ONEDNN_VERBOSE=1 or profile_exec): the "
                   "percentages cover the " +
                       Ms(s.exec_ms) +
                       " of execution it holds; creation time and cache behaviour are not in "
                       "it (ONEDNN_VERBOSE=2 adds them)"});
  }
}

}  // namespace

bool DiagnosticsOnly(const Summary& s, const std::vector<DiagnosticStats>& diagnostics) {
  return s.creates + s.nested_creates + s.execs == 0 && !diagnostics.empty();
}

bool CallerSaysWhyNoPrimitive(const RunContext& context, const Summary& s,
                              const std::vector<DiagnosticStats>& diagnostics) {
  return context.recorded_verbose_lines &&
         (*context.recorded_verbose_lines == 0 || DiagnosticsOnly(s, diagnostics));
}

bool NeedsAWholeRun(std::string_view code) {
  return code == "no-exec" || code == "create-dominates" || code == "first-exec-slow";
}

namespace {

// caller-checks: oneDNN's check and error lines, in plain words where dlcheck knows the message.
void CallerChecks(const std::vector<DiagnosticStats>& diagnostics, std::vector<Finding>& out) {
  constexpr std::size_t kListed = 3;
  std::string list;
  std::size_t lines = 0, listed = 0;
  for (const DiagnosticStats& d : diagnostics) {
    if (d.operation != "create:check" && d.operation != "exec:check" && d.operation != "error") {
      continue;
    }
    lines += d.count;
    if (listed++ >= kListed) continue;
    std::string words = PlainWords(d.operation, d.message);
    if (!list.empty()) list += "; ";
    list += (d.primitive.empty() ? std::string() : d.primitive + ": ") +
            (words.empty() ? "\"" + d.message + "\"" : words) +
            (d.count > 1 ? " (x" + std::to_string(d.count) + ")" : std::string());
  }
  if (lines == 0) return;
  if (listed > kListed)
    list += "; " + std::to_string(listed - kListed) + " more in the diagnostics table";
  out.push_back({Severity::kWarning, "caller-checks",
                 "oneDNN's checks found " + std::to_string(lines) +
                     (lines == 1 ? " thing" : " things") + " the caller passed wrong: " + list});
}

// The plain-language conclusions about a log, in a fixed order.
std::vector<Finding> Notes(const Summary& s, const PrimitiveRows& rows, const LogHeader& header,
                           const RunContext& context,
                           const std::vector<DiagnosticStats>& diagnostics) {
  std::vector<Finding> notes;
  auto note = [&notes, &context](Severity level, std::string code, std::string message) {
    if (!context.whole_run && NeedsAWholeRun(code)) return;
    notes.push_back({level, std::move(code), std::move(message)});
  };
  const bool caller_says_why = CallerSaysWhyNoPrimitive(context, s, diagnostics);
  if (s.execs == 0 && !caller_says_why) {
    note(Severity::kWarning, "no-exec",
         "no oneDNN primitive executed \u2014 is ONEDNN_VERBOSE set? for oneDNN before 2.5 the "
         "variable is DNNL_VERBOSE");
  }
  if (std::string text = ScalarFallbackText(rows, s.exec_ms); !text.empty()) {
    // Under 1 % of the execution time a fallback costs nothing worth acting on: said, not warned.
    double scalar_ms = 0;
    for (const PrimitiveStats& row : rows) {
      if (IsScalarFinding(row, ScalarScope::kEveryRow)) scalar_ms += row.exec_ms_total;
    }
    const bool negligible = s.exec_ms > 0 && scalar_ms < 0.01 * s.exec_ms;
    note(negligible ? Severity::kInfo : Severity::kWarning, "scalar-fallback", std::move(text));
  }
  if (s.exec_ms > 0 && s.reorder_pct >= 10.0) {
    note(Severity::kWarning, "reorder-share",
         "reorders took " + Percent(s.reorder_pct) +
             " of execution time: memory layouts change between primitives");
  }
  if (const std::string list = InferredIsaList(rows); !list.empty()) {
    note(Severity::kInfo, "isa-inferred",
         "the ISA of " + list +
             " is not in the implementation name; it was inferred from the log's ISA line (" +
             header.isa_short + ")");
  }
  // Creation against the whole timed phase where the log traced only part of it (the model's).
  if (s.create_ms > 0 && s.create_ms > std::max(s.exec_ms, context.timed_ms.value_or(0))) {
    note(Severity::kInfo, "create-dominates",
         "creating primitives took longer than running them (" + Ms(s.create_ms) + " vs " +
             Ms(std::max(s.exec_ms, context.timed_ms.value_or(0))) +
             "): short runs are dominated by JIT compilation");
  }
  if (const std::string ratio = FirstExecRatio(s); !ratio.empty()) {
    note(Severity::kInfo, "first-exec-slow",
         "first executions took " + ratio +
             "x the steady-state mean: warm-up (page faults, caches) inflates short runs");
  }
  if (s.other_events > 0) {
    note(Severity::kWarning, "row-limit",
         "more than " + std::to_string(kMaxRows) + " distinct primitives (or " +
             std::to_string(kMaxRowTextBytes >> 20) + " MiB of their texts): the " +
             std::to_string(s.other_events) +
             " events of the primitives beyond them are counted in one row named 'other'");
  }
  SkippedFasterKernels(rows, s.exec_ms, notes);
  DtypeNoNativePaths(rows, s.exec_ms, header, context, notes);
  ReordersEveryStep(rows, s.exec_ms, notes);
  if (context.whole_run) CacheThrash(rows, s, notes);
  PartialLog(rows, s, header, caller_says_why, notes);
  CallerChecks(diagnostics, notes);
  if (s.graph_dispatch > 0) {
    note(Severity::kInfo, "graph-pattern-matcher",
         std::to_string(s.graph_dispatch) +
             " oneDNN Graph pattern-matcher lines (graph,create:dispatch): the fusion passes "
             "that did not match; counted, not listed");
  }
  if (s.diagnostics > 0) {
    note(Severity::kInfo, "diagnostics",
         std::to_string(s.diagnostics) +
             " diagnostic lines (dispatch reasons, checks, errors): see the diagnostics table");
  }
  return notes;
}

}  // namespace

Summary Aggregator::Summarize(const LogHeader& header, const RunContext& context) const {
  Summary s = Totals(rows_);
  s.diagnostics = diagnostic_events_;
  s.graph_dispatch = graph_dispatch_events_;
  s.other_events = other_events_;
  s.notes = Notes(s, rows_, header, context, diagnostics_);
  return s;
}

}  // namespace dlcheck::verbose
