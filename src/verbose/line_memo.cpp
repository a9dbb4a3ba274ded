// SPDX-License-Identifier: Apache-2.0
#include "verbose/line_memo.h"

#include <charconv>
#include <cstring>

#include "verbose/aggregate.h"
#include "verbose/aggregate_inline.h"
#include "verbose/exec_time.h"

namespace dlcheck::verbose {
namespace {

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

}  // namespace dlcheck::verbose
