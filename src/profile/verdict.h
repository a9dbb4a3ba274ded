// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whether a recording can be reported: a program that exited at once, a recording with nothing
// in it, and one stopped by a signal before it held anything are said in one sentence each.
//
//   if (interrupted) {
//     if (std::optional<std::string> why = NothingToReport(p)) ... "profile interrupted by ..."
//   }
//   if (Status ok = CheckReportable(*p, "./train", "exited with status 0", perf); !ok.ok()) ...

#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "profile/perf.h"
#include "profile/profile.h"

namespace dlcheck::profile {

/// The shortest recording reported (first to last record): shorter, the program exited before
/// it could be profiled.
inline constexpr double kShortestProfileS = 0.1;

/// Why a recording stopped by a signal has nothing to report; nullopt: it has. "perf's
/// recording could not be read: <why>", "perf recorded no sample before it", "stopped after
/// 0.042 s, too soon to report (3 samples)".
std::optional<std::string> NothingToReport(const StatusOr<Profile>& p);

/// OK when the recording is long enough and holds something; otherwise (ExitCode::kUnsupported)
/// what was recorded of `what` (the program's name, or "the model worker") that `ended` as it
/// did (os::Outcome::Describe):
/// "./a.out exited with status 0 after 0.042 s, too soon to profile (3 samples at 999 per
/// second); profile a run that lasts at least a second", or "perf recorded no sample of ./a.out
/// in 2.000 s (exited with status 0): check that the event samples here ('perf record -e cycles
/// -- ./a.out')".
Status CheckReportable(const Profile& p, std::string_view what, std::string_view ended,
                       const PerfSettings& perf);

}  // namespace dlcheck::profile
