// SPDX-License-Identifier: Apache-2.0
#pragma once
// A computation that may blow up on hostile input (a demangler fed a symbol whose substitutions
// double at each level) run in a forked child, bounded in memory, time and output, so that the
// worst it can do is fail: dlcheck itself never grows or hangs with it. The child is the one the
// kernel's OOM killer takes first (oom_score_adj 1000), never dlcheck; a signal that reaches it
// alone (SIGINT, SIGTERM, SIGHUP sent to its pid) is passed on to dlcheck, which then stops as
// it stops for its own; and `stop`, asked while the child works, ends it at once (SIGKILL).
//
//   std::optional<std::string> out =
//       CallInChild([&] { return Demangle(name); }, {.max_memory_bytes = 256 << 20});
//   if (!out) ...  // it failed, ran out of memory or time, or said more than max_output_bytes

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace dlcheck::os {

struct ChildLimits {
  std::size_t max_memory_bytes = std::size_t{256} << 20;  ///< address space beyond dlcheck's own
  double timeout_s = 2;                                   ///< killed (SIGKILL) after this
  std::size_t max_output_bytes = std::size_t{64} << 10;   ///< a longer result is a failure
  std::function<bool()> stop;  ///< asked every 50 ms and on each signal: true ends the child
};

/// Runs `work` in a child process under `limits` and returns what it returned; nullopt when the
/// child could not be made, `work` threw, ran past the memory or the time, returned more than
/// `max_output_bytes`, or `stop` said to stop.
std::optional<std::string> CallInChild(const std::function<std::string()>& work,
                                       const ChildLimits& limits);

}  // namespace dlcheck::os
