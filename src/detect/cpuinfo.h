// SPDX-License-Identifier: Apache-2.0
#pragma once
// The kernel's view: the `flags` line of /proc/cpuinfo. Parsing takes the text, so tests feed
// recorded files.

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace dlcheck::detect {

/// The flags of the first processor in /proc/cpuinfo text; nullopt when there is no flags line.
std::optional<std::set<std::string, std::less<>>> ParseCpuinfoFlags(std::string_view text);

/// /proc/cpuinfo's text, or nullopt when it cannot be read (not Linux, no /proc).
std::optional<std::string> ReadProcCpuinfo();

}  // namespace dlcheck::detect
