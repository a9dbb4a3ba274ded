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
};

/// libcpuid on this machine (cpu_identify on the current CPU).
LibcpuidLayer LibcpuidLive();

/// libcpuid on a recorded dump: `text` is the dump's (decompressed) text, `dump` its parsed
/// form (for the bounds check). The text is rewritten where 0.6.2 needs it (`CPU#NNN AffMask:`
/// headers) into a temporary file that libcpuid reads; the first logical CPU is identified.
LibcpuidLayer LibcpuidFromDump(const std::string& text, const CpuidDump& dump);

/// Whether libcpuid reads back `path` (a dump written by dlcheck) and identifies a CPU: the
/// check that --save-raw writes a file libcpuid understands. Empty string: yes; else why not.
std::string LibcpuidCanRead(const std::string& path);

}  // namespace dlcheck::detect
