// SPDX-License-Identifier: Apache-2.0
#pragma once
// oneDNN's perf maps: asked for through the environment, a JIT-profiling process writes the
// address, size and name of each JIT kernel it generates to /tmp/perf-<pid>.map, where perf
// report and perf script read them (perf's own convention for JIT code, the directory fixed).
// `profile` and `dispatch --perf-map` ask for them with the same variables; `profile` removes
// them when it has read its recording, unless perf.data is kept beside them.
//
//   for (const auto& kv : JitProfileEnvironment()) spec.env.push_back(kv);
//   ... the program runs, perf records ...
//   PerfMapPath(4242)                  // "/tmp/perf-4242.map"
//   RemovePerfMaps(profile.recorded_pids);  // the recording has been read: its processes' maps

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace dlcheck::profile {

/// Where perf looks for perf maps (fixed in perf: tools/perf/util/symbol.c).
inline constexpr std::string_view kPerfMapDir = "/tmp";

/// The environment that makes oneDNN write its perf map, for every generation:
/// ONEDNN_JIT_PROFILE (2.5+), DNNL_JIT_PROFILE (1.x-2.4), MKLDNN_JIT_PROFILE (0.x); value 2 is
/// "basic Linux perf integration" (the perf map).
const std::vector<std::pair<std::string, std::string>>& JitProfileEnvironment();

/// "/tmp/perf-4242.map": the perf map of process `pid` in `dir`.
std::string PerfMapPath(int pid, std::string_view dir = kPerfMapDir);

/// 4242 for "perf-4242.map" (a file name, not a path); nullopt for any other name.
std::optional<int> PerfMapPid(std::string_view file_name);

/// Whether `path` (a sample's DSO as perf script names it) is a perf map in kPerfMapDir.
bool IsPerfMapPath(std::string_view path);

/// Removes the perf maps of `pids` in `dir` (those that are not there are no error).
void RemovePerfMaps(const std::set<int>& pids, std::string_view dir = kPerfMapDir);

}  // namespace dlcheck::profile
