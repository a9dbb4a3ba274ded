// SPDX-License-Identifier: Apache-2.0
#include "profile/exec_join.h"

#include <time.h>

#include <algorithm>
#include <iterator>
#include <utility>

namespace dlcheck::profile {

double WallClockAheadOfMonotonicS() {
  timespec wall{};
  timespec monotonic{};
  clock_gettime(CLOCK_REALTIME, &wall);
  clock_gettime(CLOCK_MONOTONIC, &monotonic);
  return static_cast<double>(wall.tv_sec - monotonic.tv_sec) +
         static_cast<double>(wall.tv_nsec - monotonic.tv_nsec) / 1e9;
}

std::string ExecLabel(std::string_view primitive, std::string_view prop_kind,
                      std::string_view implementation, std::string_view problem) {
  std::string label;
  for (std::string_view part : {primitive, prop_kind, implementation, problem}) {
    if (part.empty() || part == "undef") continue;
    if (!label.empty()) label += ' ';
    label += part;
  }
  return label;
}

ExecTimeline::ExecTimeline(std::vector<ExecSpan> spans) : spans_(std::move(spans)) {
  std::erase_if(spans_, [](const ExecSpan& s) { return s.end_s < s.start_s; });
  std::stable_sort(spans_.begin(), spans_.end(),
                   [](const ExecSpan& a, const ExecSpan& b) { return a.start_s < b.start_s; });
}

const ExecSpan* ExecTimeline::At(double time_s) const {
  const auto after = std::upper_bound(spans_.begin(), spans_.end(), time_s,
                                      [](double t, const ExecSpan& s) { return t < s.start_s; });
  if (after == spans_.begin()) return nullptr;
  const ExecSpan& span = *std::prev(after);
  return time_s < span.end_s ? &span : nullptr;
}

std::vector<ExecSpan> ExecSpans(const std::vector<verbose::ExecRecord>& execs,
                                double wall_ahead_s) {
  std::vector<ExecSpan> spans;
  for (const verbose::ExecRecord& e : execs) {
    if (!e.stamp_ms) continue;
    spans.push_back({.start_s = *e.stamp_ms / 1e3 - wall_ahead_s,
                     .end_s = (*e.stamp_ms + e.time_ms) / 1e3 - wall_ahead_s,
                     .label = ExecLabel(e.primitive, e.prop_kind, e.implementation, e.problem)});
  }
  return spans;
}

}  // namespace dlcheck::profile
