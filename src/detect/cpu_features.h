// SPDX-License-Identifier: Apache-2.0
#pragma once
// Pure decoding of raw CPUID into what dlcheck reports: identity, feature bits (keyed by the
// Linux /proc/cpuinfo names), OS enablement from XCR0, and the levels derived from them.
//
//   RecordedCpuidSource src(dump.cpus[0]);
//   FeatureSet bits = DecodeFeatures(src);            // bits["avx512f"] == true on Skylake-SP
//   std::string level = X86_64Level(bits);            // "x86-64-v4"
//   std::string isa = MaxOneDnnIsa(bits);             // "avx512_core"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "detect/cpuid_source.h"

namespace dlcheck::detect {

/// Feature name -> present. DecodeFeatures fills every reported feature and the few extra bits
/// the x86-64 levels need (cmov, cx16, popcnt, movbe, bmi1, ...).
using FeatureSet = std::map<std::string, bool, std::less<>>;

/// The features dlcheck reports, in report order (Linux /proc/cpuinfo names).
const std::vector<std::string>& ReportedFeatures();
/// Whether Linux names `feature` in /proc/cpuinfo's flags (the kernel layer); false for the
/// 2023-26 bits that only KVM or recent kernels know: their kernel layer is null.
bool KernelNamesFeature(std::string_view feature);

/// Which register state a feature needs the OS to enable.
enum class StateClass {
  kLegacy,  ///< SSE and older: always enabled by a 64-bit OS
  kAvx,     ///< XCR0 bits 1-2 (XMM, YMM)
  kAvx512,  ///< XCR0 bits 1-2 and 5-7 (opmask, ZMM_Hi256, Hi16_ZMM)
  kAmx,     ///< XCR0 bits 17-18 (TILECFG, TILEDATA) and, on Linux, the arch_prctl permission
  kApx,     ///< XCR0 bit 19 (APX's extended general-purpose registers)
};
StateClass StateClassOf(std::string_view feature);

/// Who made the CPU and what it is.
struct CpuIdentity {
  std::string vendor;  ///< leaf 0: "GenuineIntel", "AuthenticAMD", ...
  std::string brand;   ///< leaves 80000002h-80000004h, trimmed
  int family = 0;      ///< displayed family, as Linux computes it
  int model = 0;       ///< displayed model, as Linux computes it
  int stepping = 0;
  /// dlcheck's name for the model number; "unknown" when its table has none, or when the CPU
  /// reports an instruction set no part of it has (then model_microarchitecture holds the name).
  std::string microarchitecture = "unknown";
  /// The microarchitecture the model number names when the features contradict it (a hypervisor
  /// that reports another CPU's model); empty otherwise.
  std::string model_microarchitecture;
  bool hypervisor = false;        ///< leaf 1 ECX[31]
  std::string hypervisor_vendor;  ///< leaf 40000000h signature ("KVMKVMKVM"); empty: unknown
  std::string core_type;  ///< hybrid Intel, leaf 1Ah: "performance" / "efficiency"; else empty
};

/// Decodes leaves 0, 1, 40000000h, 80000002h-80000004h and 1Ah.
CpuIdentity DecodeIdentity(const CpuidSource& source);

/// The hybrid core type of the CPU `source` answers for (leaf 1Ah EAX[31:24]): "performance",
/// "efficiency", or empty when the leaf is absent or names neither.
std::string DecodeCoreType(const CpuidSource& source);

/// dlcheck's own table for the CPUs it knows; "unknown" otherwise (never a guess).
std::string Microarchitecture(std::string_view vendor, int family, int model, int stepping);

/// The reported features every part of `microarchitecture` has in silicon (server parts whose
/// every SKU has AVX-512 or AMX, Zen 4 and 5): what a guest that lacks one had hidden by its
/// hypervisor. Empty for a microarchitecture whose parts differ (client Intel fuses AVX-512
/// off) or that dlcheck does not know.
std::vector<std::string_view> SiliconFeatures(std::string_view microarchitecture);

/// Of deep learning's instruction sets (AVX-512, its BF16 and FP16, AMX, AMX-FP16), those no part
/// of `microarchitecture` has in silicon: a CPU that reports one is not that microarchitecture,
/// whatever its model number says (a hypervisor that reports another CPU's model). Empty for a
/// microarchitecture dlcheck does not know or whose parts may have them all.
std::vector<std::string_view> FeaturesNoPartHas(std::string_view microarchitecture);

/// Of FeaturesNoPartHas(microarchitecture), those `features` reports present.
std::vector<std::string> ContradictedFeatures(std::string_view microarchitecture,
                                              const FeatureSet& features);

/// The CPUID bits, decoded from leaves 1, 7.0, 7.1 and 80000001h.
FeatureSet DecodeFeatures(const CpuidSource& source);

/// The XCR0 bits the CPU can enable (leaf 0Dh subleaf 0, EDX:EAX); 0 without leaf 0Dh.
std::uint64_t XsaveSupported(const CpuidSource& source);

/// AMX tile geometry of palette 1 (leaf 1Dh subleaf 1).
struct AmxPalette {
  int tiles = 0;          ///< max tile names
  int rows = 0;           ///< max rows per tile
  int bytes_per_row = 0;  ///< max bytes per row
};

/// Palette 1, or nullopt when the CPU reports no AMX palette (leaf 1Dh absent or empty).
std::optional<AmxPalette> DecodeAmxPalette(const CpuidSource& source);
/// The AVX10 version (leaf 24h EBX[7:0]) where leaf 7.1 EDX bit 19 says AVX10; nullopt without.
std::optional<int> DecodeAvx10Version(const CpuidSource& source);

/// Whether the OS enabled the state each feature in `features` needs, from XCR0 and the AMX
/// permission (nullopt: unknown, counted as not granted only when XCR0 already says no).
FeatureSet OsEnablement(const FeatureSet& features, std::uint64_t xcr0,
                        std::optional<bool> amx_permission);

/// "x86-64-v1" ... "x86-64-v4" for the given (usable) bits; "none" below v1.
std::string X86_64Level(const FeatureSet& bits);

/// The highest oneDNN 2.6 ISA level (its ONEDNN_MAX_CPU_ISA names) these (usable) bits allow,
/// following oneDNN's cpu_isa_traits.hpp `mayiuse`; "none" below sse41.
std::string MaxOneDnnIsa(const FeatureSet& bits);

/// The highest ISA oneDNN 3.x dispatches to with `bits` (src/cpu/x64/cpu_isa_traits.hpp,
/// mayiuse(), 3.5 - 3.13): the levels 2.6 never read (avx2_vnni_2, avx512_core_fp16,
/// avx512_core_amx_fp16, avx10_2, avx10_2_amx_2), and 3.x's stricter avx512_core_amx (it needs
/// AVX512-FP16). `avx10_version` is leaf 24h's (avx10_2 needs 2 or more).
struct OneDnn3Level {
  std::string isa;      ///< its cpu_isa_t name ("avx512_core_amx_fp16"), ONEDNN_MAX_CPU_ISA's
  std::string verbose;  ///< the name 3.5+ prints in implementation names ("avx10_1_512_amx_fp16")
};
OneDnn3Level MaxOneDnn3Isa(const FeatureSet& bits, std::optional<int> avx10_version);

}  // namespace dlcheck::detect
