// SPDX-License-Identifier: Apache-2.0
#pragma once
// One row of a log's primitives table: what happened to one distinct primitive. The aggregator
// (aggregate.h) fills rows; the rules (rules.h), the reports, `check`, `diff` and the sweeps read
// them. Its own header, so that a reader of rows does not include the aggregator.

#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verbose/interned_text.h"
#include "verbose/verbose_event.h"

namespace dlcheck::verbose {

/// An implementation oneDNN skipped before it created a row's primitive, and why: a
/// `create:dispatch` line joined to the create that followed it (aggregate.h).
struct SkippedImpl {
  /// The skipped implementation's name (long form: `brgemm:avx512_core`) or, in the short form
  /// that names none, the kernel's source file (`jit_avx2_conv_kernel_f32.cpp`).
  std::string implementation;
  std::string isa;     ///< the ISA in that name, "" when it holds none
  std::string reason;  ///< oneDNN's message, without its `file:line`
  std::uint64_t count = 0;
};

/// A row's skipped implementations: one pointer, null while there are none (most rows), so a
/// row of a log without dispatch lines costs 8 bytes more, not a vector's 24. Copies are deep.
class SkippedList {
 public:
  SkippedList() = default;
  SkippedList(const SkippedList& other)
      : list_(other.list_ ? std::make_unique<std::vector<SkippedImpl>>(*other.list_) : nullptr) {}
  SkippedList& operator=(const SkippedList& other) {
    if (this != &other) *this = SkippedList(other);
    return *this;
  }
  SkippedList(SkippedList&&) noexcept = default;
  SkippedList& operator=(SkippedList&&) noexcept = default;

  bool empty() const { return list_ == nullptr || list_->empty(); }
  std::size_t size() const { return list_ ? list_->size() : 0; }
  const SkippedImpl& operator[](std::size_t i) const { return (*list_)[i]; }
  const SkippedImpl* begin() const { return list_ ? list_->data() : nullptr; }
  const SkippedImpl* end() const { return list_ ? list_->data() + list_->size() : nullptr; }
  SkippedImpl* begin() { return list_ ? list_->data() : nullptr; }
  SkippedImpl* end() { return list_ ? list_->data() + list_->size() : nullptr; }
  void push_back(SkippedImpl skipped) {
    if (!list_) list_ = std::make_unique<std::vector<SkippedImpl>>();
    list_->push_back(std::move(skipped));
  }

 private:
  std::unique_ptr<std::vector<SkippedImpl>> list_;
};

/// One distinct primitive of a log and what happened to it.
struct PrimitiveStats {
  // Texts are interned (interned_text.h): a row is its counters and a handle per text, since
  // rows of one log share most of their texts.
  InternedText engine;
  InternedText primitive;
  InternedText implementation;
  InternedText isa;
  bool isa_inferred = false;
  ImplClass impl_class = ImplClass::kUnknown;
  InternedText prop_kind;
  InternedText memory_descriptors;  ///< raw field
  InternedText data_types;          ///< `src:f32 wei:f32 dst:f32`
  InternedText layouts;             ///< `src:aBcd16b wei:ABcd16b16a dst:aBcd16b`
  InternedText attributes;
  InternedText auxiliary;
  InternedText problem;
  Era era = Era::kUnknown;  ///< the line format of the row's first line
  /// Whether its creates said the cache state (`create:cache_miss`); 0.x - 1.4 logs do not, and
  /// their creates are neither hits nor misses.
  bool cache_state_known = false;
  std::optional<InternedText> layer;
  /// The layer's name, or `none` for a row without one.
  std::string_view LayerOr(std::string_view none) const { return layer ? layer->view() : none; }
  /// The input (1-based, LogSession::input_names()) when the session labels inputs, else 0.
  std::uint32_t input = 0;
  std::uint64_t creates = 0;  ///< every create event, cache hits included, nested ones not
  std::uint64_t cache_hits = 0;
  double create_ms = 0;
  /// `create_nested:` events (3.3+): created inside another primitive's creation, whose
  /// create_ms already holds their time; counted apart so it is not counted twice.
  std::uint64_t nested_creates = 0;
  double nested_create_ms = 0;
  std::uint64_t execs = 0;        ///< every exec event, timed or not
  std::uint64_t timed_execs = 0;  ///< execs that carried a time
  double exec_ms_total = 0;
  double exec_ms_min = 0;
  double exec_ms_max = 0;
  double first_exec_ms = 0;     ///< the time of the first timed exec
  std::optional<double> flops;  ///< per execution, where the problem defines the work
  std::uint64_t first_line = 0;
  /// What oneDNN skipped before creating it (create:dispatch lines), distinct, at most
  /// kMaxSkippedPerRow (aggregate.h).
  SkippedList skipped;
  /// Creates that were not cache hits, where the log says the cache state.
  std::uint64_t CacheMisses() const { return cache_state_known ? creates - cache_hits : 0; }

  /// exec_ms_total over the timed execs; nullopt without one.
  std::optional<double> ExecMsMean() const {
    if (timed_execs == 0) return std::nullopt;
    return exec_ms_total / static_cast<double>(timed_execs);
  }
  /// flops / mean exec time, in GFLOP/s; nullopt without work or time.
  std::optional<double> Gflops() const {
    const std::optional<double> mean = ExecMsMean();
    if (!flops || !mean || *mean <= 0) return std::nullopt;
    const double gflops = *flops / (*mean * 1e6);
    // A mean of 1e-320 ms makes an infinity of a finite count: no figure then.
    if (!std::isfinite(gflops)) return std::nullopt;
    return gflops;
  }
};

}  // namespace dlcheck::verbose
