// SPDX-License-Identifier: Apache-2.0
#pragma once
// PlatformInfo: what `dlcheck platform` knows about a machine, live or replayed, before any
// printing. Layers a recording cannot know (os, kernel, oneDNN) stay nullopt, never guessed.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/finding.h"
#include "common/status.h"
#include "detect/cpu_features.h"
#include "detect/cpuid_source.h"
#include "detect/libcpuid_layer.h"

namespace dlcheck::detect {

/// One feature, layer by layer. nullopt: that layer has no opinion or cannot know.
struct FeatureLayers {
  std::string name;
  bool cpuid = false;            ///< the CPUID bit, decoded by dlcheck
  std::optional<bool> os;        ///< the OS enabled the register state (XCR0, AMX permission)
  std::optional<bool> libcpuid;  ///< libcpuid's flag, when it has one
  std::optional<bool> kernel;    ///< listed in /proc/cpuinfo flags
  std::optional<bool> usable;    ///< cpuid && os
  /// The silicon of this microarchitecture has it in every part, but the hypervisor of this
  /// guest does not expose it (CPUID bit 0 under a hypervisor): hidden, not absent.
  bool hidden_by_hypervisor = false;
};

/// Logical CPUs of one CPUID core type (leaf 1Ah; hybrid Intel: performance / efficiency
/// cores). hwloc's view of the same cores is HwlocCpuKind (topology.h).
struct CpuidCoreType {
  std::string kind;  ///< "performance", "efficiency" or "general"
  int logical_cpus = 0;
  bool same_features = true;  ///< its CPUID feature bits equal the first CPU's
};

struct PlatformInfo {
  std::string source = "live";  ///< "live", or the path of the replayed dump
  CpuIdentity cpu;
  int logical_cpus = 0;  ///< in the dump, or this process may run on
  std::vector<CpuidCoreType> core_types;
  std::vector<FeatureLayers> features;  ///< ReportedFeatures() order
  std::optional<std::uint64_t> xcr0;
  std::uint64_t xsave_supported = 0;  ///< XCR0 bits the CPU can enable (leaf 0Dh)
  std::optional<AmxPalette> amx_palette;
  std::optional<int> avx10_version;  ///< leaf 24h EBX[7:0] where CPUID says AVX10
  std::optional<bool> amx_permission;
  std::string x86_64_level;
  std::string onednn_max_isa;
  OneDnn3Level onednn3_max_isa;  ///< what oneDNN 3.x would dispatch to (PyTorch 2.x links it)
  std::string levels_basis;      ///< "usable" (live) or "cpuid" (recording: OS state unknown)
  std::optional<std::string> onednn_effective_isa;  ///< what oneDNN reports (live only)
  std::string libcpuid_version;
  std::string libcpuid_note;  ///< why the libcpuid layer is null, when it is
  std::vector<Finding> findings;

  /// The feature of that /proc/cpuinfo name, or nullptr.
  const FeatureLayers* FindFeature(std::string_view name) const;
  /// The finding with that code, or nullptr.
  const Finding* FindFinding(std::string_view code) const;
};

/// Combines the layers (pure: every input is given). `kernel_flags` is nullopt when the kernel's
/// view is unknown; the OS layer comes from `source.Xcr0()`.
PlatformInfo BuildPlatformInfo(
    const CpuidSource& source, const LibcpuidLayer& libcpuid,
    const std::optional<std::set<std::string, std::less<>>>& kernel_flags,
    std::vector<CpuidCoreType> core_types, int logical_cpus);

/// The core types of a dump: logical CPUs grouped by leaf 1Ah core type, each CPU's feature bits
/// compared with `first_cpu_bits`, which are DecodeFeatures() of dump.cpus.front() (the caller
/// has them; that CPU is not decoded again).
std::vector<CpuidCoreType> CoreTypesOf(const CpuidDump& dump, const FeatureSet& first_cpu_bits);

/// This machine: CPUID, XGETBV, arch_prctl, libcpuid, /proc/cpuinfo.
PlatformInfo DetectLivePlatform();

/// This CPU's features (`/proc/cpuinfo` names) that CPUID reports and the OS enabled (XCR0, the
/// AMX permission), from this thread's CPUID only: no libcpuid, no /proc, for a command that
/// needs the features alone (what the host has, said beside a log's findings).
FeatureSet LiveUsableFeatures();

/// The highest ISA oneDNN 3.x would dispatch to on this CPU (MaxOneDnn3Isa of the bits the OS
/// enabled), from this thread's CPUID and XCR0 only: no libcpuid, no /proc, for a command that
/// needs the level alone (the benchdnn lines' host check).
std::string LiveOneDnn3MaxIsa();

/// A recorded dump (`.test` or `.test.xz`). InputError when it is missing or malformed.
StatusOr<PlatformInfo> DetectRecordedPlatform(const std::string& path);

/// Records what oneDNN reports and adds a finding when it differs from onednn_max_isa.
/// `max_isa_env` is the ONEDNN_MAX_CPU_ISA (or DNNL_MAX_CPU_ISA) value, empty when unset.
void SetOneDnnEffectiveIsa(PlatformInfo& info, const std::string& effective,
                           const std::string& max_isa_env);

}  // namespace dlcheck::detect
