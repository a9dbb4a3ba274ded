// SPDX-License-Identifier: Apache-2.0
#pragma once
// PlatformInfo: the machine record, what `dlcheck platform` knows about a machine, live or
// replayed, before any printing. Layers a recording cannot know (os, kernel, oneDNN) stay
// nullopt, never guessed.
//
// The record is generic (identity, features with their layers, levels, core types, findings)
// and holds one architecture part beside it: what only that architecture's registers say (x86:
// CPUID leaves, XCR0, the AMX permission, AVX10; AArch64: HWCAP, MIDR, the SVE length). Code
// outside detect asks the record's generic questions (FeatureAvailable, OsSavesState,
// ProcessPermitted, PsabiLevel, Arch), not the registers:
//
//   info.FeatureAvailable("avx512f")   // usable, or in the CPU where the OS layer is unknown
//   info.OsSavesState("amx_tile")      // x86: XCR0 bits 17-18; nullopt when unknown
//   info.x86()->xcr0                   // detect's own business

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/finding.h"
#include "common/onednn_isa.h"
#include "common/status.h"
#include "detect/cpu_features.h"
#include "detect/cpuid_source.h"
#include "detect/libcpuid_layer.h"

namespace dlcheck::detect {

/// One feature, layer by layer. nullopt: that layer has no opinion or cannot know.
struct FeatureLayers {
  std::string name;
  /// The CPU reports it, as dlcheck decodes the architecture's registers (x86: the CPUID bit;
  /// documents call this layer "cpuid").
  bool cpu = false;
  std::optional<bool> os;        ///< the OS enabled the register state (x86: XCR0, AMX permission)
  std::optional<bool> libcpuid;  ///< libcpuid's flag, when it has one
  std::optional<bool> kernel;    ///< listed in /proc/cpuinfo flags
  std::optional<bool> usable;    ///< cpu && os
  /// The silicon of this microarchitecture has it in every part, but the hypervisor of this
  /// guest does not expose it (the CPU layer 0 under a hypervisor): hidden, not absent.
  bool hidden_by_hypervisor = false;

  /// Usable, or, where the OS layer is unknown (a recording), reported by the CPU: what a
  /// requirement, a Slurm feature and the sweep's AVX-VNNI choice are held to.
  bool Available() const { return usable.value_or(cpu); }
};

/// The x86 part of a machine record: what only the CPUID leaves, XCR0 and arch_prctl say.
struct X86Part {
  std::optional<std::uint64_t> xcr0;  ///< XGETBV(0); nullopt in a recording
  std::uint64_t xsave_supported = 0;  ///< XCR0 bits the CPU can enable (leaf 0Dh)
  std::optional<AmxPalette> amx_palette;
  std::optional<int> avx10_version;    ///< leaf 24h EBX[7:0] where CPUID says AVX10
  std::optional<bool> amx_permission;  ///< arch_prctl(ARCH_REQ_XCOMP_PERM) granted the tiles
  std::string x86_64_level;            ///< the psABI level of the bits the levels rest on
};

/// The AArch64 part of a machine record: what only Arm's registers say. A recording fills it
/// (detect/aarch64.h: /proc/cpuinfo or lscpu, with HWCAP, MIDR and the SVE length where
/// recorded); the live readers (getauxval, MIDR_EL1, prctl(PR_SVE_GET_VL)) are issue 49's native
/// build.
struct Aarch64Part {
  std::optional<std::uint64_t> hwcap;   ///< getauxval(AT_HWCAP)
  std::optional<std::uint64_t> hwcap2;  ///< getauxval(AT_HWCAP2)
  std::optional<std::uint64_t> midr;    ///< MIDR_EL1: implementer, part, variant, revision
  /// The SVE vector length this process runs with (recorded), or the one its core fixes
  /// (sve_vector_bits_from_core); nullopt without SVE or where neither is known.
  std::optional<int> sve_vector_bits;
  bool sve_vector_bits_from_core = false;
  std::optional<std::uint32_t> implementer;  ///< MIDR[31:24] (0x41: Arm)
  std::optional<std::uint32_t> part;         ///< MIDR[15:4] (0xd4f: Neoverse V2)
  std::optional<std::uint32_t> variant;      ///< MIDR[23:20]
  std::optional<std::uint32_t> revision;     ///< MIDR[3:0]
  /// The server parts built on the core, all of them where several share it ("AWS Graviton 4,
  /// Google Axion or NVIDIA Grace"); empty where dlcheck knows none.
  std::string parts;
  /// What an lscpu recording says of the topology (Socket(s), Core(s) per socket, Thread(s) per
  /// core); nullopt for /proc/cpuinfo, which says none of it.
  std::optional<int> packages;
  std::optional<int> cores_per_package;
  std::optional<int> threads_per_core;
};

/// The architecture part of a record: none (a record built by hand), x86 or AArch64.
using ArchPart = std::variant<std::monostate, X86Part, Aarch64Part>;

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
  ArchPart arch;                        ///< what only this architecture's registers say
  std::string onednn_max_isa;
  OneDnn3Level onednn3_max_isa;  ///< what oneDNN 3.x would dispatch to (PyTorch 2.x links it)
  std::string levels_basis;      ///< "usable" (live) or "cpuid" (recording: OS state unknown)
  std::optional<std::string> onednn_effective_isa;  ///< what oneDNN reports (live only)
  std::string libcpuid_version;
  std::string libcpuid_note;  ///< why the libcpuid layer is null, when it is
  std::vector<Finding> findings;

  /// The feature of that /proc/cpuinfo name, or nullptr.
  const FeatureLayers* FindFeature(std::string_view name) const;
  /// Whether the feature of that name is Available() (false for a name the record lacks).
  bool FeatureAvailable(std::string_view name) const;
  /// Whether the OS saves the register state `feature` needs, before any permission a process
  /// must ask for (x86: the XCR0 bits of its state class); nullopt where unknown (a recording,
  /// no architecture part, or an architecture dlcheck does not read yet).
  std::optional<bool> OsSavesState(std::string_view feature) const;
  /// Whether this process was granted the state of `feature` where the OS makes a process ask
  /// (x86: AMX's arch_prctl permission); nullopt where unknown or no grant is asked.
  std::optional<bool> ProcessPermitted(std::string_view feature) const;
  /// The psABI level of the architecture ("x86-64-v3"); empty where the record has none.
  std::string PsabiLevel() const;
  /// The architecture the record describes, by its part (kNone without one).
  onednn::IsaArch Arch() const;

  /// The architecture parts; nullptr when the record holds another.
  const X86Part* x86() const { return std::get_if<X86Part>(&arch); }
  X86Part* x86() { return std::get_if<X86Part>(&arch); }
  const Aarch64Part* aarch64() const { return std::get_if<Aarch64Part>(&arch); }
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
