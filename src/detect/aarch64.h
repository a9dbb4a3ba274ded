// SPDX-License-Identifier: Apache-2.0
#pragma once
// The AArch64 machine record from a recording: /proc/cpuinfo (or `lscpu`) text, with HWCAP,
// HWCAP2, MIDR_EL1 and the SVE vector length where they were recorded, decoded into the record's
// generic part (identity, features, oneDNN levels, findings) and its Aarch64Part. Pure: every
// input is given, so a Graviton replays on any host.
//
//   StatusOr<Aarch64Recording> rec = ParseAarch64Cpuinfo(text, "graviton4.cpuinfo");
//   PlatformInfo info = BuildAarch64PlatformInfo(*rec);  // "Neoverse V2", sve_128, sve...
//   FindArmCore(0x41, 0xd4f)->parts                        // "AWS Graviton 4, Google Axion or ..."
//
// Sources: the MIDR part numbers of Linux's arch/arm64/include/asm/cputype.h and Arm's TF-A
// (lib/cpus: neoverse_n3.h 0x410FD8E0), the HWCAP bits of arch/arm64/include/uapi/asm/hwcap.h,
// oneDNN's src/cpu/aarch64/cpu_isa_traits.{hpp,cpp} at v2.6.3 and v3.0 - v3.13.

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "detect/cpu_features.h"
#include "detect/platform.h"

namespace dlcheck::detect {

/// What an AArch64 recording says, as read; nullopt: not recorded.
struct Aarch64Recording {
  std::string format;  ///< "cpuinfo" (/proc/cpuinfo) or "lscpu"
  /// The first CPU's `Features` words (cpuinfo) or lscpu's `Flags`: the kernel's HWCAP names.
  std::set<std::string, std::less<>> features;
  std::optional<std::uint32_t> implementer;  ///< MIDR[31:24]; lscpu: from its Vendor ID
  std::optional<std::uint32_t> part;         ///< MIDR[15:4] (cpuinfo only)
  std::optional<std::uint32_t> variant;      ///< MIDR[23:20]; lscpu: Stepping's rN
  std::optional<std::uint32_t> revision;     ///< MIDR[3:0]; lscpu: Stepping's pN
  std::optional<int> architecture;           ///< cpuinfo's `CPU architecture` (8)
  std::string model_name;                    ///< lscpu's `Model name` ("Neoverse-V2")
  int logical_cpus = 0;                      ///< processor blocks, or lscpu's `CPU(s)`
  /// The logical CPUs of each core (implementer, part) in processor order (cpuinfo: a
  /// big.LITTLE part lists several); empty for lscpu.
  struct CoreCount {
    std::uint32_t implementer = 0;
    std::uint32_t part = 0;
    int logical_cpus = 0;
  };
  std::vector<CoreCount> cores_seen;
  bool cpus_differ_in_features = false;  ///< a processor block lists other Features than CPU 0
  std::optional<int> sockets;            ///< lscpu only
  std::optional<int> cores_per_socket;   ///< lscpu only
  std::optional<int> threads_per_core;   ///< lscpu only
  std::optional<std::uint64_t> hwcap;    ///< getauxval(AT_HWCAP), from a raw directory
  std::optional<std::uint64_t> hwcap2;   ///< getauxval(AT_HWCAP2)
  std::optional<std::uint64_t> midr;     ///< MIDR_EL1 (sysfs regs/identification/midr_el1)
  std::optional<int> sve_vector_bits;    ///< prctl(PR_SVE_GET_VL) in bits
};

/// Parses /proc/cpuinfo or `lscpu` text of an AArch64 machine. InputError (naming `origin`) for
/// text that is neither, for x86 text (replayed with --cpuid-dump) and for a malformed number.
StatusOr<Aarch64Recording> ParseAarch64Cpuinfo(std::string_view text, const std::string& origin);

/// One core dlcheck names, by its MIDR implementer and part number.
struct ArmCore {
  std::uint32_t implementer = 0;
  std::uint32_t part = 0;
  std::string_view name;        ///< "Neoverse V2"
  std::string_view lscpu_name;  ///< how util-linux's lscpu names it ("Neoverse-V2")
  /// The server parts built on this core, all of them where several share it; "" when dlcheck
  /// knows none.
  std::string_view parts;
  /// The SVE vector length every part of this core has (the core fixes it); nullopt without SVE.
  std::optional<int> sve_bits;
};

/// The core of (implementer, part), or nullptr for one dlcheck does not know (never a guess).
const ArmCore* FindArmCore(std::uint32_t implementer, std::uint32_t part);
/// The core lscpu calls `model_name` ("Neoverse-V2"), or nullptr.
const ArmCore* FindArmCoreByLscpuName(std::string_view model_name);
/// The implementer's name as lscpu prints it ("ARM", "Ampere"), or "" when unknown.
std::string_view ArmImplementerName(std::uint32_t implementer);

/// The features `platform` reports on AArch64, in report order (/proc/cpuinfo names).
const std::vector<std::string>& Aarch64ReportedFeatures();
/// The reported features HWCAP and HWCAP2 say.
FeatureSet Aarch64FeaturesFromHwcap(std::uint64_t hwcap, std::uint64_t hwcap2);

/// The level oneDNN 2.6.3 would dispatch: "sve_512" only where the SVE length is exactly 512
/// bits (its mayiuse() asks equality and its ISA list holds sve_512 and asimd alone), "asimd"
/// otherwise; "" with SVE of an unknown length; "none" without Advanced SIMD.
std::string OneDnn26Aarch64Isa(const FeatureSet& features, std::optional<int> sve_bits);
/// oneDNN 3.x's level: the longest of sve_512, sve_256, sve_128 the SVE length reaches (its
/// mayiuse() asks `>=`), else asimd; empty names with SVE of an unknown length.
OneDnn3Level OneDnn3Aarch64Isa(const FeatureSet& features, std::optional<int> sve_bits);

/// The machine record of a recording (levels_basis "cpuinfo", or "hwcap" where HWCAP was
/// recorded); the os and oneDNN layers stay null.
PlatformInfo BuildAarch64PlatformInfo(const Aarch64Recording& recording);

/// Replays `path`: a /proc/cpuinfo or lscpu text file (`.xz` too), or a directory holding
/// `cpuinfo` and, where recorded, `hwcap`, `hwcap2`, `midr_el1` and `sve_vl` (bits). InputError
/// when it cannot be read or understood.
StatusOr<PlatformInfo> DetectRecordedAarch64Platform(const std::string& path);

}  // namespace dlcheck::detect
