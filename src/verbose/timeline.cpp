// SPDX-License-Identifier: Apache-2.0
#include "verbose/timeline.h"

#include <utility>

namespace dlcheck::verbose {

std::string TimelineCappedText(std::size_t kept, std::uint64_t dropped) {
  return "the timeline keeps the first " + std::to_string(kept) + " executions; " +
         std::to_string(dropped) + " later ones are in the totals but not in the timeline";
}

void Timeline::OnEvent(const VerboseEvent& e, std::size_t) {
  if (e.operation != Operation::kExec || !recording_ || !e.time_ms) return;
  double start_ms = 0;
  if (!Advance(*e.time_ms, e.timestamp, start_ms)) return;
  execs_.push_back({.primitive = e.primitive,
                    .layer = e.layer.value_or(""),
                    .implementation = e.implementation,
                    .prop_kind = e.prop_kind,
                    .problem = e.problem,
                    .start_ms = start_ms,
                    .time_ms = *e.time_ms,
                    .stamp_ms = e.timestamp});
}

void Timeline::OnRepeat(const LineMemo::Entry& repeat, double ms, std::optional<double> timestamp) {
  if (!repeat.exec || !recording_) return;
  double start_ms = 0;
  if (!Advance(ms, timestamp, start_ms)) return;
  const PrimitiveStats& s = session_.aggregator().rows()[repeat.row];
  execs_.push_back({.primitive = s.primitive.str(),
                    .layer = std::string(s.LayerOr("")),
                    .implementation = s.implementation.str(),
                    .prop_kind = s.prop_kind.str(),
                    .problem = s.problem.str(),
                    .start_ms = start_ms,
                    .time_ms = ms,
                    .stamp_ms = timestamp});
}

// Starts at the timestamp since the first recorded execution; without timestamps, executions
// are laid back to back. An execution past the cap moves the clock and is counted, its texts
// never copied.
bool Timeline::Advance(double time_ms, std::optional<double> timestamp, double& start_ms) {
  if (timestamp) {
    if (!first_stamp_) first_stamp_ = *timestamp;
    start_ms = *timestamp - *first_stamp_;
  } else {
    start_ms = clock_ms_;
  }
  clock_ms_ = start_ms + time_ms;
  if (execs_.size() >= max_records_) {
    ++dropped_;
    return false;
  }
  return true;
}

}  // namespace dlcheck::verbose
