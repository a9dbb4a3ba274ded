// SPDX-License-Identifier: Apache-2.0
#include "profile/verdict.h"

#include <fmt/format.h>

namespace dlcheck::profile {

std::optional<std::string> NothingToReport(const StatusOr<Profile>& p) {
  if (!p.ok()) return "perf's recording could not be read: " + p.status().message();
  if (p->samples == 0) return "perf recorded no sample before it";
  const double span = p->last_s - p->first_s;
  if (span < kShortestProfileS) {
    return fmt::format("stopped after {:.3f} s, too soon to report ({} samples)", span, p->samples);
  }
  return std::nullopt;
}

Status CheckReportable(const Profile& p, std::string_view what, std::string_view ended,
                       const PerfSettings& perf) {
  const bool empty = p.samples == 0 && p.off_cpu.empty();
  const double span = p.last_s - p.first_s;
  if (span < kShortestProfileS) {
    return Status(ExitCode::kUnsupported,
                  fmt::format("{} {} after {:.3f} s, too soon to profile ({} samples at {} per "
                              "second); profile a run that lasts at least a second",
                              what, ended, span, p.samples, perf.frequency));
  }
  if (empty) {
    return Status(ExitCode::kUnsupported,
                  fmt::format("perf recorded no sample of {} in {:.3f} s ({}): check that the "
                              "event samples here ('perf record -e {} -- {}')",
                              what, span, ended, perf.event, what));
  }
  return {};
}

}  // namespace dlcheck::profile
