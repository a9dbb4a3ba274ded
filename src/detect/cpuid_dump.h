#pragma once
// Raw CPUID as recorded: every logical CPU's (leaf, subleaf) -> EAX EBX ECX EDX. The parser reads
// the three raw formats of libcpuid's `.test` files and stops at the line of 80 dashes:
//
//   ------[ Logical CPU #0 ]------                      (AIDA64 style, also "CPUID Registers /")
//   CPUID 00000007: 00000001-239CA7EB-98C027AC-FC1CC410 [SL 00]
//   CPU#000 AffMask: 0x0000000000000000:0000000000000001 (another AIDA64 header)
//   basic_cpuid[7]=00000000 1c0d23ab 00000001 00000000  (legacy libcpuid, one CPU)

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"

namespace dlcheck::detect {

/// The four registers one CPUID query returns.
struct CpuidRegs {
  std::uint32_t eax = 0;
  std::uint32_t ebx = 0;
  std::uint32_t ecx = 0;
  std::uint32_t edx = 0;
  bool operator==(const CpuidRegs&) const = default;
};

/// One logical CPU's leaves, keyed by (leaf, subleaf); a leaf recorded without a subleaf tag is
/// stored as subleaf 0.
struct LogicalCpuDump {
  int index = 0;  ///< the N of "Logical CPU #N" (0 for a legacy dump)
  std::map<std::pair<std::uint32_t, std::uint32_t>, CpuidRegs> leaves;
};

/// A whole dump: one entry per logical CPU, in file order.
struct CpuidDump {
  std::vector<LogicalCpuDump> cpus;
};

/// Parses a dump's text. Fails (InputError naming `origin` and the line) when a line inside the
/// raw part is not understood or when no CPUID line is found at all.
StatusOr<CpuidDump> ParseCpuidDump(std::string_view text, const std::string& origin);

/// Reads a whole file; `.xz` files are decompressed (liblzma). InputError when it cannot.
StatusOr<std::string> ReadDumpText(const std::string& path);

/// Reads and parses a dump file.
StatusOr<CpuidDump> LoadCpuidDump(const std::string& path);

/// The dump in AIDA64 style (`------[ Logical CPU #N ]------` blocks, `CPUID xxxxxxxx:
/// EAX-EBX-ECX-EDX [SL nn]` lines), which both ParseCpuidDump and libcpuid 0.6.2 read. Leaves
/// for which IsSubleafIndexed() holds carry the `[SL nn]` tag.
std::string FormatCpuidDump(const CpuidDump& dump);

/// Leaves whose output depends on the subleaf (ECX input); only these carry `[SL nn]`.
bool IsSubleafIndexed(std::uint32_t leaf);

}  // namespace dlcheck::detect
