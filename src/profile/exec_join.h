// SPDX-License-Identifier: Apache-2.0
#pragma once
// The join of on-CPU samples with the oneDNN executions verbose timed: oneDNN stamps each exec
// line with the wall clock at its start (ONEDNN_VERBOSE_TIMESTAMP=1, ms since the epoch, from
// gettimeofday), perf records on CLOCK_MONOTONIC (perf.h kRecordClock), and the stamps are moved
// to that clock by the two clocks' difference read during the run, so a sample taken while an
// execution ran was taken for that primitive, on whichever thread of the process.
//
//   ExecTimeline timeline({{.start_s = 1.0, .end_s = 1.2, .label = "convolution ..."}, ...});
//   builder.UseExecTimeline(&timeline);  // each operator then counts its samples by execution

#include <string>
#include <string_view>
#include <vector>

#include "verbose/timeline.h"

namespace dlcheck::profile {

/// One timed primitive execution: [start_s, end_s) on the wall clock, in seconds since the
/// epoch; `label` names the verbose row it belongs to (ExecLabel).
struct ExecSpan {
  double start_s = 0;
  double end_s = 0;
  std::string label;
};

/// The wall clock minus CLOCK_MONOTONIC now, in seconds: what to subtract from a verbose
/// timestamp (in seconds) to put it on perf's clock.
double WallClockAheadOfMonotonicS();

/// "convolution forward_training jit:avx512_core mb32_ic3oc64_ih32oh32kh3sh1ph1": a verbose
/// row's primitive kind, propagation kind, implementation and shape, the empty ones left out.
std::string ExecLabel(std::string_view primitive, std::string_view prop_kind,
                      std::string_view implementation, std::string_view problem);

/// The executions verbose stamped with the wall clock, as spans on perf's clock: each stamp (ms
/// since the epoch) less `wall_ahead_s` (WallClockAheadOfMonotonicS, read during the run);
/// those without a stamp are left out.
std::vector<ExecSpan> ExecSpans(const std::vector<verbose::ExecRecord>& execs, double wall_ahead_s);

/// Executions ordered by start, for finding the one running at a given time.
class ExecTimeline {
 public:
  ExecTimeline() = default;
  /// Spans in any order; those that end before they start are dropped.
  explicit ExecTimeline(std::vector<ExecSpan> spans);
  /// The execution running at `time_s` (the latest started at or before it that has not ended:
  /// executions do not overlap within a process); nullptr when none is.
  const ExecSpan* At(double time_s) const;
  bool empty() const { return spans_.empty(); }
  std::size_t size() const { return spans_.size(); }

 private:
  std::vector<ExecSpan> spans_;
};

}  // namespace dlcheck::profile
