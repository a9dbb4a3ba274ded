#include "verbose/aggregate.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "verbose/flops.h"
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

// Clinger's fast path: up to 15 digits and a decimal point are exact in a double, and one
// division by an exact power of ten is correctly rounded, so this equals from_chars.
bool ReadTime(std::string_view text, double& ms) {
  static constexpr double kPow10[] = {1e0, 1e1, 1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
  const char* p = text.data();
  const char* end = p + text.size();
  std::uint64_t mantissa = 0;
  const char* int_start = p;
  while (p < end && static_cast<unsigned>(*p - '0') < 10) {
    mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
    ++p;
  }
  const std::ptrdiff_t int_digits = p - int_start;
  std::ptrdiff_t decimals = 0;
  bool simple = int_digits > 0;
  if (simple && p < end && *p == '.') {
    const char* frac_start = ++p;
    while (p < end && static_cast<unsigned>(*p - '0') < 10) {
      mantissa = mantissa * 10 + static_cast<unsigned>(*p - '0');
      ++p;
    }
    decimals = p - frac_start;
    simple = decimals > 0;
  }
  if (simple && p == end && int_digits + decimals <= 15) {
    ms = static_cast<double>(mantissa) / kPow10[decimals];
    return true;
  }
  const auto [ptr, ec] = std::from_chars(text.data(), end, ms);
  return ec == std::errc() && ptr == end && std::isfinite(ms) && ms >= 0;
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

void LineMemo::Follow(std::uint32_t index) {
  if (last_ != kNone) {
    slots_[last_].next = index;
  } else if (link_from_ != kNone) {
    slots_[link_from_].next = index;
  }
  last_ = index;
  link_from_ = kNone;
}

void LineMemo::Insert(std::uint64_t hash, std::uint32_t state, std::string_view key,
                      const Entry& entry, bool foreign) {
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
  slot.next = kNone;
  arena_.append(key);
  ++count_;
  Follow(static_cast<std::uint32_t>(i));
}

LineMemo::Match LineMemo::Lookup(std::uint32_t state, std::string_view line, Entry& entry,
                                 double& ms) {
  if (count_ == 0) return Match::kMiss;
  line = TrimLineEnd(line);
  const std::size_t comma = LastComma(line);
  const bool has_prefix = comma != std::string_view::npos && comma != 0;
  const std::string_view prefix = has_prefix ? line.substr(0, comma) : std::string_view();
  auto hit = [&](std::uint32_t index) {
    const Slot& slot = slots_[index];
    if (slot.kind == Kind::kForeign) {
      Follow(index);
      return Match::kForeign;
    }
    if (!ReadTime(line.substr(comma + 1), ms)) return Match::kMiss;
    entry = {slot.row, slot.kind == Kind::kExec,
             slot.kind == Kind::kCreateHit || slot.kind == Kind::kNestedHit,
             slot.kind == Kind::kNested || slot.kind == Kind::kNestedHit};
    Follow(index);
    return Match::kEvent;
  };
  // The predicted line first: no hashing.
  if (last_ != kNone && slots_[last_].next != kNone) {
    const std::uint32_t guess = slots_[last_].next;
    const Slot& slot = slots_[guess];
    const bool foreign = slot.kind == Kind::kForeign;
    if (foreign ? SameKey(slot, 0, line, true)
                : has_prefix && SameKey(slot, state, prefix, false)) {
      const Match m = hit(guess);
      if (m != Match::kMiss) return m;
    }
  }
  if (has_prefix) {
    if (const std::uint32_t i = Find(FastHash(prefix), state, prefix, false); i != kNone) {
      const Match m = hit(i);
      if (m != Match::kMiss) return m;
    }
  }
  if (const std::uint32_t i = Find(FastHash(line), 0, line, true); i != kNone) return hit(i);
  link_from_ = last_;
  last_ = kNone;
  return Match::kMiss;
}

void LineMemo::Remember(std::uint32_t state, std::string_view line, const Entry& entry, double ms) {
  line = TrimLineEnd(line);
  const std::size_t comma = LastComma(line);
  double read = 0;
  if (comma == std::string_view::npos || comma == 0 || !ReadTime(line.substr(comma + 1), read) ||
      read != ms) {
    return;
  }
  const std::string_view key = line.substr(0, comma);
  Insert(FastHash(key), state, key, entry, false);
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
    slots_[i].next = kNone;  // indices moved: forget the predictions
  }
  last_ = link_from_ = kNone;
}

void Aggregator::AddRepeat(const LineMemo::Entry& entry, double ms) {
  ++events_;
  if (entry.row == other_row_) ++other_events_;
  AddTime(rows_[entry.row], entry, ms);
}

void Aggregator::AddTime(PrimitiveStats& row, const LineMemo::Entry& kind,
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

}  // namespace

bool NeedsAWholeRun(std::string_view code) {
  return code == "no-exec" || code == "create-dominates" || code == "first-exec-slow";
}

namespace {

// The plain-language conclusions about a log, in a fixed order.
std::vector<Finding> Notes(const Summary& s, const PrimitiveRows& rows, const LogHeader& header,
                           const RunContext& context) {
  std::vector<Finding> notes;
  auto note = [&notes, &context](Severity level, std::string code, std::string message) {
    if (!context.whole_run && NeedsAWholeRun(code)) return;
    notes.push_back({level, std::move(code), std::move(message)});
  };
  if (s.execs == 0 && !context.silent_with_verbose_on) {
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
  s.notes = Notes(s, rows_, header, context);
  return s;
}

}  // namespace dlcheck::verbose
