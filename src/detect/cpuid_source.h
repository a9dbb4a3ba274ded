// SPDX-License-Identifier: Apache-2.0
#pragma once
// The machine, injected: detection reads CPUID (and XCR0) through CpuidSource, so the same
// decoding runs on this CPU (LiveCpuidSource) and on a recording (RecordedCpuidSource).
//
//   LiveCpuidSource live;
//   CpuidRegs leaf7 = live.Query(7, 0);
//   std::optional<std::uint64_t> xcr0 = live.Xcr0();   // nullopt for a recording

#include <cstdint>
#include <functional>
#include <optional>

#include "common/status.h"
#include "detect/cpuid_dump.h"

namespace dlcheck::detect {

/// XCR0 state components, by the features that need them.
inline constexpr std::uint64_t kXcr0AvxState = 0x6;      ///< bits 1-2: SSE and AVX (YMM) state
inline constexpr std::uint64_t kXcr0Avx512State = 0xE0;  ///< bits 5-7: opmask, ZMM0-15, ZMM16-31
inline constexpr std::uint64_t kXcr0AmxState = 0x60000;  ///< bits 17-18: tile config and data
inline constexpr std::uint64_t kXcr0ApxState = 0x80000;  ///< bit 19: APX's extended GPRs R16-R31
/// True when every bit of `state` is set in `xcr0`.
constexpr bool HasState(std::uint64_t xcr0, std::uint64_t state) {
  return (xcr0 & state) == state;
}

/// Where CPUID answers come from.
class CpuidSource {
 public:
  virtual ~CpuidSource() = default;
  /// The registers for (leaf, subleaf); all zero when the source has no answer.
  virtual CpuidRegs Query(std::uint32_t leaf, std::uint32_t subleaf) const = 0;
  /// XCR0 (the register state the OS enabled), or nullopt when the source cannot know it.
  virtual std::optional<std::uint64_t> Xcr0() const = 0;
  /// Whether the OS grants this process the AMX tile state (Linux `arch_prctl`
  /// ARCH_REQ_XCOMP_PERM), or nullopt when unknown or not applicable.
  virtual std::optional<bool> AmxPermission() const = 0;
};

/// One logical CPU of a recorded dump. Knows nothing about the OS: Xcr0() is nullopt.
class RecordedCpuidSource : public CpuidSource {
 public:
  explicit RecordedCpuidSource(const LogicalCpuDump& cpu) : cpu_(cpu) {}
  CpuidRegs Query(std::uint32_t leaf, std::uint32_t subleaf) const override;
  std::optional<std::uint64_t> Xcr0() const override { return std::nullopt; }
  std::optional<bool> AmxPermission() const override { return std::nullopt; }

 private:
  const LogicalCpuDump& cpu_;
};

/// The CPU this thread runs on: the CPUID instruction, XGETBV, arch_prctl.
class LiveCpuidSource : public CpuidSource {
 public:
  CpuidRegs Query(std::uint32_t leaf, std::uint32_t subleaf) const override;
  std::optional<std::uint64_t> Xcr0() const override;
  std::optional<bool> AmxPermission() const override;
};

/// One logical CPU's leaves read through `source`: every basic, hypervisor (when present) and
/// extended leaf, with the subleaves each indexed leaf enumerates, capped to what libcpuid
/// 0.6.2 can hold so that it reads the dump back safely.
LogicalCpuDump ReadAllLeaves(const CpuidSource& source, int index);

/// Pins this thread to each CPU of its affinity mask in turn (sched_setaffinity) and calls
/// `visit(cpu)` there; a CPU that cannot be pinned (gone offline meanwhile) is skipped. The
/// thread's affinity is restored afterwards. Returns how many CPUs were visited, or InputError
/// when the affinity mask cannot be read. For CPUID leaves that answer for the CPU that runs
/// them (leaf 1Ah core type, APIC IDs).
StatusOr<int> ForEachAllowedCpu(const std::function<void(int cpu)>& visit);

/// Every logical CPU this process may run on, each read by pinning the thread to it
/// (ForEachAllowedCpu).
StatusOr<CpuidDump> DumpLiveCpuid();

}  // namespace dlcheck::detect
