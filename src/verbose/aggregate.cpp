// SPDX-License-Identifier: Apache-2.0
#include "verbose/aggregate.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "common/finding_codes.h"
#include "common/onednn_isa.h"
#include "common/primitive_kinds.h"
#include "verbose/aggregate_inline.h"
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

}  // namespace

void Aggregator::AddRepeat(const LineMemo::Entry& entry, double ms) {
  AddRepeatHere(entry, ms);
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
  if (LibraryOf(e.era) != Library::kOneDnn) key_.push_back('Z');  // mixed logs: apart
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
         LibraryOf(row.era) == LibraryOf(e.era) && row.layer.has_value() == e.layer.has_value() &&
         (!e.layer || *row.layer == *e.layer);
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

}  // namespace dlcheck::verbose
