// SPDX-License-Identifier: Apache-2.0
#pragma once
// What libcpuid says about each feature: the one place dlcheck calls libcpuid (besides its
// version). libcpuid.h stays inside libcpuid_layer.cpp.

#include <map>
#include <optional>
#include <string>

#include "detect/cpuid_dump.h"

namespace dlcheck::detect {

/// libcpuid's opinion: a value for each feature it has a flag for; features it has no flag for
/// are absent (no opinion). `available` is false (and `note` says why) when it could not run.
struct LibcpuidLayer {
  bool available = false;
  std::string note;
  std::map<std::string, bool, std::less<>> flags;
  std::string codename;  ///< libcpuid's codename (informational; 0.6.2's table is dated)
  std::string left_out;  ///< for a dump: the subleaves libcpuid was not given, said for a finding
};

/// libcpuid on this machine (cpu_identify on the current CPU).
LibcpuidLayer LibcpuidLive();

/// libcpuid on a recorded dump: the first logical CPU's parsed leaves are copied into libcpuid's
/// raw struct (cpu_raw_data_t), within the bounds of its fixed arrays, and identified
/// (cpu_identify). libcpuid never reads the dump text itself.
LibcpuidLayer LibcpuidFromDump(const CpuidDump& dump);

/// Whether libcpuid reads back `path` (a dump written by dlcheck) and identifies a CPU: the
/// check that --save-raw writes a file libcpuid understands. Empty string: yes; else why not.
std::string LibcpuidCanRead(const std::string& path);

}  // namespace dlcheck::detect
