// SPDX-License-Identifier: Apache-2.0
#pragma once
// A rebuilt primitive (rebuild.h) measured as benchdnn --mode=P measures: creation timed apart,
// one untimed execution, then executions until the time budget is spent and at least
// `min_runs` have run; the minimum and the mean of the timed ones. Inputs are filled with small
// finite values (multiples of 1/8 in [-0.5, 0.5], or small integers for integer tensors) so that
// kernels stay on their normal path: no denormals, no NaN, no saturation. A backward pass that
// reads its forward pass's workspace (max pooling, lrn, a fused ReLU) gets it from one untimed
// execution of its forward hint (Rebuilt::hint), as in training.
//
//   Measurement m = *Measure(rebuilt, engine, {.budget_s = 0.2});
//   m.min_ms, m.avg_ms, m.runs, m.create_ms, m.implementation

#include <cstdint>
#include <dnnl.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "whatif/rebuild.h"

namespace dlcheck::whatif {

struct MeasureSettings {
  double budget_s = 0.2;  ///< timed executions go on until this much time is spent ...
  int min_runs = 5;       ///< ... and at least this many ran
  /// Rotate through copies of every buffer that hold more than `cache_bytes` together, so that
  /// each execution starts from memory, not from the caches.
  bool cold = false;
  std::size_t cache_bytes = 0;
  /// Fill every input with small integers (what an int8 variant and its f32 reference share).
  bool integer_inputs = false;
  /// Keep the result (the output argument, as dense f32) for a deviation.
  bool keep_output = false;
  /// Asked between executions: true ends the loop early (Ctrl-C).
  std::function<bool()> stop;
};

/// A tensor's values as dense f32, in storage that is not zeroed before it is written: on a tensor
/// of gigabytes the zeroing alone took seconds that no signal could stop.
struct DenseValues {
  std::unique_ptr<float[]> storage;
  std::size_t size = 0;
  std::span<const float> view() const { return {storage.get(), size}; }
  bool empty() const { return size == 0; }
};

struct Measurement {
  double create_ms = 0;
  double min_ms = 0;
  double avg_ms = 0;
  std::uint64_t runs = 0;
  std::string implementation;
  std::string note;    ///< fewer runs than asked, and why
  DenseValues output;  ///< with keep_output: the result
};

/// Creates, executes and times the current implementation of `rebuilt`. An error says why it
/// could not run (oneDNN refused to create or execute it).
StatusOr<Measurement> Measure(const Rebuilt& rebuilt, const dnnl::engine& engine,
                              const MeasureSettings& settings);

/// The largest difference between `got` and `reference` (same size): absolute, and relative to
/// the reference's largest magnitude (an element's own magnitude would make a sum that cancels
/// to nearly 0 look wrong by orders of magnitude). `stop` is asked every 2^22 elements: nullopt
/// when it stopped the pass (a tensor of gigabytes takes seconds).
struct Deviation {
  double max_abs = 0;
  double relative_to_largest = 0;  ///< max_abs over the reference's largest magnitude
};
std::optional<Deviation> DeviationOf(std::span<const float> got, std::span<const float> reference,
                                     const std::function<bool()>& stop = {});

/// The reorder between two descriptors of one tensor, as a rebuilt primitive to measure;
/// nullopt when oneDNN cannot reorder them.
std::optional<Rebuilt> ReorderBetween(const dnnl::memory::desc& from, const dnnl::memory::desc& to,
                                      const dnnl::engine& engine);

/// The last-level cache's size as the C library reports it, or 32 MiB when it does not.
std::size_t LastLevelCacheBytes();

/// Sets the OpenMP threads oneDNN's next primitives use (created after the call).
void SetThreads(int threads);
/// The OpenMP threads a parallel region would have now.
int MaxThreads();

}  // namespace dlcheck::whatif
