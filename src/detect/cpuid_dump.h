// SPDX-License-Identifier: Apache-2.0
#pragma once
// Raw CPUID as recorded: every logical CPU's (leaf, subleaf) -> EAX EBX ECX EDX. The parser reads
// the three raw formats of libcpuid's `.test` files (stopping at the line of 80 dashes) and the
// output of Todd Allen's `cpuid -r`, telling them apart line by line:
//
//   ------[ Logical CPU #0 ]------                      (AIDA64 style, also "CPUID Registers /")
//   CPUID 00000007: 00000001-239CA7EB-98C027AC-FC1CC410 [SL 00]
//   CPU#000 AffMask: 0x0000000000000000:0000000000000001 (another AIDA64 header)
//   basic_cpuid[7]=00000000 1c0d23ab 00000001 00000000  (legacy libcpuid, one CPU)
//   CPU 0:                                              (cpuid -r, one block per CPU)
//   ------[ Versions ]------  ------[ MSR Registers / Logical CPU #0 ]------
//                          (an AIDA64 report's other sections: skipped whole, with the
//                          `allcpu:` and cache description lines inside its CPUID blocks)
//      0x00000007 0x00: eax=0x00000001 ebx=0xf1bb03a9 ecx=0x18005f42 edx=0x00000110
//
// Every register has 8 hex digits: a line cut inside one is an error, never a smaller value.

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
  /// What an AIDA64 report (as InstLatx64 publishes them) held besides its CPUID blocks, left
  /// out ("sections: Versions, CPU Info, MSR Registers x14; 14 allcpu lines, 56 cache lines");
  /// empty for a plain dump.
  std::string left_out;
  /// The logical CPUs whose header the dump repeats, each once, in the order of their repeats:
  /// each is counted once, its first block read and the later ones left out.
  std::vector<int> repeated_cpus;
};

/// Parses a dump's text. Fails (InputError naming `origin` and the line) when a line inside the
/// raw part is not understood or is cut short, or when no CPUID line is found at all.
StatusOr<CpuidDump> ParseCpuidDump(std::string_view text, const std::string& origin);

/// Reads a whole file (a regular file or a pipe, at most kMaxInputBytes, decompressed `.xz`
/// included); `.xz` files are decompressed (liblzma). InputError when it cannot.
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
