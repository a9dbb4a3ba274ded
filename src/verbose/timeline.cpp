#include "verbose/timeline.h"

#include <utility>

namespace dlcheck::verbose {

std::string TimelineCappedText(std::size_t kept, std::uint64_t dropped) {
  return "the timeline keeps the first " + std::to_string(kept) + " executions; " +
         std::to_string(dropped) + " later ones are in the totals but not in the timeline";
}

void Timeline::OnEvent(const VerboseEvent& e, std::size_t) {
  if (e.operation != Operation::kExec || !recording_ || !e.time_ms) return;
  Add({.primitive = e.primitive,
       .layer = e.layer.value_or(""),
       .implementation = e.implementation,
       .prop_kind = e.prop_kind,
       .problem = e.problem,
       .time_ms = *e.time_ms},
      e.timestamp);
}

void Timeline::OnRepeat(const LineMemo::Entry& repeat, double ms, std::optional<double> timestamp) {
  if (!repeat.exec || !recording_) return;
  const PrimitiveStats& s = session_.aggregator().rows()[repeat.row];
  Add({.primitive = s.primitive.str(),
       .layer = std::string(s.LayerOr("")),
       .implementation = s.implementation.str(),
       .prop_kind = s.prop_kind.str(),
       .problem = s.problem.str(),
       .time_ms = ms},
      timestamp);
}

// Starts at the timestamp since the first recorded execution; without timestamps, executions
// are laid back to back.
void Timeline::Add(ExecRecord rec, std::optional<double> timestamp) {
  rec.stamp_ms = timestamp;
  if (timestamp) {
    if (!first_stamp_) first_stamp_ = *timestamp;
    rec.start_ms = *timestamp - *first_stamp_;
  } else {
    rec.start_ms = clock_ms_;
  }
  clock_ms_ = rec.start_ms + rec.time_ms;
  if (execs_.size() >= max_records_) {
    ++dropped_;
    return;
  }
  execs_.push_back(std::move(rec));
}

}  // namespace dlcheck::verbose
