#pragma once
// One row of a log's primitives table: what happened to one distinct primitive. The aggregator
// (aggregate.h) fills rows; the rules (rules.h), the reports, `check`, `diff` and the sweeps read
// them. Its own header, so that a reader of rows does not include the aggregator.

#include <cstdint>
#include <optional>
#include <string_view>

#include "verbose/interned_text.h"
#include "verbose/verbose_event.h"

namespace dlcheck::verbose {

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

  /// exec_ms_total over the timed execs; nullopt without one.
  std::optional<double> ExecMsMean() const {
    if (timed_execs == 0) return std::nullopt;
    return exec_ms_total / static_cast<double>(timed_execs);
  }
  /// flops / mean exec time, in GFLOP/s; nullopt without work or time.
  std::optional<double> Gflops() const {
    const std::optional<double> mean = ExecMsMean();
    if (!flops || !mean || *mean <= 0) return std::nullopt;
    return *flops / (*mean * 1e6);
  }
};

}  // namespace dlcheck::verbose
