// SPDX-License-Identifier: Apache-2.0
#include "detect/cpu_features.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <set>
#include <span>
#include <utility>

#include "common/onednn_isa.h"

namespace dlcheck::detect {
namespace {

bool Bit(std::uint32_t value, int bit) {
  return ((value >> bit) & 1u) != 0;
}

// The ASCII text CPUID returns in registers (vendor, brand, hypervisor signatures), up to the
// first NUL. CPUID's strings are printable ASCII by definition; any other byte (from a bad or
// hostile dump, or a hypervisor) becomes '?', so no report carries control bytes or bad UTF-8.
std::string RegsText(std::initializer_list<std::uint32_t> regs) {
  std::string out;
  for (std::uint32_t r : regs) {
    char chars[4];
    std::memcpy(chars, &r, 4);
    out.append(chars, 4);
  }
  out.erase(std::find(out.begin(), out.end(), '\0'), out.end());
  for (char& c : out) {
    if (c < 0x20 || c > 0x7E) c = '?';
  }
  return out;
}

std::string TrimSpaces(std::string s) {
  const std::size_t first = s.find_first_not_of(' ');
  if (first == std::string::npos) return {};
  const std::size_t last = s.find_last_not_of(' ');
  return s.substr(first, last - first + 1);
}

// Leaf 40000000h signatures of common hypervisors; others are shown as their signature.
std::string HypervisorName(const std::string& signature) {
  static const std::pair<const char*, const char*> kNames[] = {
      {"KVMKVMKVM", "KVM"},     {"Microsoft Hv", "Hyper-V"},  {"VMwareVMware", "VMware"},
      {"XenVMMXenVMM", "Xen"},  {"TCGTCGTCGTCG", "QEMU TCG"}, {"VBoxVBoxVBox", "VirtualBox"},
      {"bhyve bhyve", "bhyve"}, {"ACRNACRNACRN", "ACRN"},     {"lrpepyh  vr", "Parallels"}};
  for (const auto& [sig, name] : kNames) {
    if (signature == sig) return name;
  }
  return signature;
}

enum class Reg { kEax, kEbx, kEcx, kEdx };

struct BitSpec {
  const char* name;
  std::uint32_t leaf;
  std::uint32_t subleaf;
  Reg reg;
  int bit;
};

// Bit positions: Intel SDM vol. 2A (CPUID) and AMD APM vol. 3, as Linux names them. The
// 2023-26 bits (leaf 7.1 and 1Eh.1): the Intel ISA Extensions Programming Reference (ISE,
// "CPUID"), checked against LLVM's host detection (llvm/lib/TargetParser/Host.cpp,
// getHostCPUFeatures) and Linux's arch/x86/kvm/reverse_cpuid.h.
constexpr std::array<BitSpec, 64> kBits = {{
    {"fpu", 1, 0, Reg::kEdx, 0},
    {"cx8", 1, 0, Reg::kEdx, 8},
    {"cmov", 1, 0, Reg::kEdx, 15},
    {"mmx", 1, 0, Reg::kEdx, 23},
    {"fxsr", 1, 0, Reg::kEdx, 24},
    {"sse", 1, 0, Reg::kEdx, 25},
    {"sse2", 1, 0, Reg::kEdx, 26},
    {"pni", 1, 0, Reg::kEcx, 0},
    {"ssse3", 1, 0, Reg::kEcx, 9},
    {"fma", 1, 0, Reg::kEcx, 12},
    {"cx16", 1, 0, Reg::kEcx, 13},
    {"sse4_1", 1, 0, Reg::kEcx, 19},
    {"sse4_2", 1, 0, Reg::kEcx, 20},
    {"movbe", 1, 0, Reg::kEcx, 22},
    {"popcnt", 1, 0, Reg::kEcx, 23},
    {"osxsave", 1, 0, Reg::kEcx, 27},
    {"avx", 1, 0, Reg::kEcx, 28},
    {"f16c", 1, 0, Reg::kEcx, 29},
    {"lahf_lm", 0x80000001u, 0, Reg::kEcx, 0},
    {"abm", 0x80000001u, 0, Reg::kEcx, 5},
    {"lm", 0x80000001u, 0, Reg::kEdx, 29},
    {"bmi1", 7, 0, Reg::kEbx, 3},
    {"avx2", 7, 0, Reg::kEbx, 5},
    {"bmi2", 7, 0, Reg::kEbx, 8},
    {"avx512f", 7, 0, Reg::kEbx, 16},
    {"avx512dq", 7, 0, Reg::kEbx, 17},
    {"avx512ifma", 7, 0, Reg::kEbx, 21},
    {"avx512pf", 7, 0, Reg::kEbx, 26},
    {"avx512er", 7, 0, Reg::kEbx, 27},
    {"avx512cd", 7, 0, Reg::kEbx, 28},
    {"avx512bw", 7, 0, Reg::kEbx, 30},
    {"avx512vl", 7, 0, Reg::kEbx, 31},
    {"avx512vbmi", 7, 0, Reg::kEcx, 1},
    {"avx512_vbmi2", 7, 0, Reg::kEcx, 6},
    {"avx512_vnni", 7, 0, Reg::kEcx, 11},
    {"avx512_bitalg", 7, 0, Reg::kEcx, 12},
    {"avx512_vpopcntdq", 7, 0, Reg::kEcx, 14},
    {"avx512_4vnniw", 7, 0, Reg::kEdx, 2},
    {"avx512_4fmaps", 7, 0, Reg::kEdx, 3},
    {"avx512_vp2intersect", 7, 0, Reg::kEdx, 8},
    {"amx_bf16", 7, 0, Reg::kEdx, 22},
    {"avx512_fp16", 7, 0, Reg::kEdx, 23},
    {"amx_tile", 7, 0, Reg::kEdx, 24},
    {"amx_int8", 7, 0, Reg::kEdx, 25},
    {"avx_vnni", 7, 1, Reg::kEax, 4},
    {"avx512_bf16", 7, 1, Reg::kEax, 5},
    {"amx_fp16", 7, 1, Reg::kEax, 21},
    {"avx_ifma", 7, 1, Reg::kEax, 23},
    {"movrs", 7, 1, Reg::kEax, 31},
    {"avx_vnni_int8", 7, 1, Reg::kEdx, 4},
    {"avx_ne_convert", 7, 1, Reg::kEdx, 5},
    {"amx_complex", 7, 1, Reg::kEdx, 8},
    {"avx_vnni_int16", 7, 1, Reg::kEdx, 10},
    {"avx10", 7, 1, Reg::kEdx, 19},
    {"apx_f", 7, 1, Reg::kEdx, 21},
    {"amx_fp8", 0x1E, 1, Reg::kEax, 4},
    {"amx_transpose", 0x1E, 1, Reg::kEax, 5},
    {"amx_tf32", 0x1E, 1, Reg::kEax, 6},
    {"amx_avx512", 0x1E, 1, Reg::kEax, 7},
    {"amx_movrs", 0x1E, 1, Reg::kEax, 8},
    {"hypervisor", 1, 0, Reg::kEcx, 31},
    {"xsave", 1, 0, Reg::kEcx, 26},
    {"sse4a", 0x80000001u, 0, Reg::kEcx, 6},
    {"syscall", 0x80000001u, 0, Reg::kEdx, 11},
}};

std::uint32_t Select(const CpuidRegs& r, Reg reg) {
  switch (reg) {
    case Reg::kEax:
      return r.eax;
    case Reg::kEbx:
      return r.ebx;
    case Reg::kEcx:
      return r.ecx;
    case Reg::kEdx:
      return r.edx;
  }
  return 0;
}

bool All(const FeatureSet& bits, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    const auto it = bits.find(name);
    if (it == bits.end() || !it->second) return false;
  }
  return true;
}

}  // namespace

const std::vector<std::string>& ReportedFeatures() {
  static const std::vector<std::string> kNames = {
      "sse4_1", "sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512cd", "avx512bw",
      "avx512dq", "avx512vl", "avx512ifma", "avx512vbmi", "avx512_vbmi2", "avx512_vnni",
      "avx512_bitalg", "avx512_vpopcntdq", "avx512_vp2intersect", "avx512_bf16", "avx512_fp16",
      "avx512er", "avx512pf", "avx_vnni", "amx_tile", "amx_bf16", "amx_int8", "amx_fp16",
      // 2023-26: Granite Rapids, Sierra Forest,
      // Arrow/Lunar/Panther Lake, Diamond Rapids
      "avx_ifma", "avx_vnni_int8", "avx_ne_convert", "avx_vnni_int16", "avx10", "apx_f", "movrs",
      "amx_complex", "amx_fp8", "amx_transpose", "amx_tf32", "amx_avx512", "amx_movrs"};
  return kNames;
}

bool KernelNamesFeature(std::string_view feature) {
  // The bits Linux decodes into /proc/cpuinfo's flags for every kernel dlcheck meets; the
  // 2023-26 ones are KVM-only or named only by recent kernels (6.12 and later print only
  // features with an explicit name), so their absence from the flags says nothing.
  static const std::set<std::string_view> kUnnamed = {
      "avx_ifma", "avx_vnni_int8", "avx_ne_convert", "avx_vnni_int16", "avx10",
      "apx_f",    "movrs",         "amx_complex",    "amx_fp8",        "amx_transpose",
      "amx_tf32", "amx_avx512",    "amx_movrs"};
  return kUnnamed.count(feature) == 0;
}

StateClass StateClassOf(std::string_view feature) {
  if (feature.starts_with("amx_")) return StateClass::kAmx;
  // AVX10 runs on the AVX-512 register state (opmask and ZMM); APX has a state of its own.
  if (feature == "avx10") return StateClass::kAvx512;
  if (feature == "apx_f") return StateClass::kApx;
  if (feature.starts_with("avx512")) return StateClass::kAvx512;
  if (feature.starts_with("avx") || feature == "fma" || feature == "f16c") return StateClass::kAvx;
  return StateClass::kLegacy;
}

namespace {

// One core design: a vendor, a displayed family, a model range and a stepping range (both
// inclusive). Rows are tried in order and the first match names the CPU.
struct MicroarchitectureRow {
  std::string_view vendor;
  int family;
  int first_model;
  int last_model;
  int first_stepping;
  int last_stepping;
  std::string_view name;
};

constexpr int kLastStepping = 15;  // CPUID leaf 1 EAX[3:0]

// Intel: Linux's arch/x86/include/asm/intel-family.h (to Nova Lake and Diamond Rapids, 2025).
// AMD: the model ranges Linux's arch/x86/kernel/cpu/amd.c assigns (Zen 6: 2025). Hygon and
// everything else: unknown (never a guess).
constexpr MicroarchitectureRow kMicroarchitectures[] = {
    {"GenuineIntel", 6, 0x17, 0x17, 0, kLastStepping, "Penryn"},
    {"GenuineIntel", 6, 0x1D, 0x1D, 0, kLastStepping, "Penryn"},
    {"GenuineIntel", 6, 0x1A, 0x1A, 0, kLastStepping, "Nehalem"},
    {"GenuineIntel", 6, 0x1E, 0x1F, 0, kLastStepping, "Nehalem"},
    {"GenuineIntel", 6, 0x2E, 0x2E, 0, kLastStepping, "Nehalem"},
    {"GenuineIntel", 6, 0x3C, 0x3C, 0, kLastStepping, "Haswell"},
    {"GenuineIntel", 6, 0x3F, 0x3F, 0, kLastStepping, "Haswell"},
    {"GenuineIntel", 6, 0x45, 0x46, 0, kLastStepping, "Haswell"},
    {"GenuineIntel", 6, 0x3D, 0x3D, 0, kLastStepping, "Broadwell"},
    {"GenuineIntel", 6, 0x47, 0x47, 0, kLastStepping, "Broadwell"},
    {"GenuineIntel", 6, 0x4F, 0x4F, 0, kLastStepping, "Broadwell"},
    {"GenuineIntel", 6, 0x56, 0x56, 0, kLastStepping, "Broadwell"},
    // One model number, three generations told apart by stepping; 8, 9 and 12-15 are none.
    {"GenuineIntel", 6, 0x55, 0x55, 0, 4, "Skylake-SP"},
    {"GenuineIntel", 6, 0x55, 0x55, 5, 7, "Cascade Lake"},
    {"GenuineIntel", 6, 0x55, 0x55, 10, 11, "Cooper Lake"},
    {"GenuineIntel", 6, 0x4E, 0x4E, 0, kLastStepping, "Skylake"},
    {"GenuineIntel", 6, 0x5E, 0x5E, 0, kLastStepping, "Skylake"},
    // One model number, several products told apart by stepping (Linux's comments).
    {"GenuineIntel", 6, 0x8E, 0x8E, 9, 9, "Amber Lake"},
    {"GenuineIntel", 6, 0x8E, 0x8E, 10, 10, "Coffee Lake"},
    {"GenuineIntel", 6, 0x8E, 0x8E, 11, 12, "Whiskey Lake"},
    {"GenuineIntel", 6, 0x8E, 0x8E, 0, kLastStepping, "Kaby Lake"},
    {"GenuineIntel", 6, 0x9E, 0x9E, 10, 13, "Coffee Lake"},
    {"GenuineIntel", 6, 0x9E, 0x9E, 0, kLastStepping, "Kaby Lake"},
    {"GenuineIntel", 6, 0xA5, 0xA6, 0, kLastStepping, "Comet Lake"},
    {"GenuineIntel", 6, 0xA7, 0xA7, 0, kLastStepping, "Rocket Lake"},
    {"GenuineIntel", 6, 0x66, 0x66, 0, kLastStepping, "Cannon Lake"},
    {"GenuineIntel", 6, 0x7D, 0x7E, 0, kLastStepping, "Ice Lake"},
    {"GenuineIntel", 6, 0x6A, 0x6A, 0, kLastStepping, "Ice Lake-SP"},
    {"GenuineIntel", 6, 0x6C, 0x6C, 0, kLastStepping, "Ice Lake-SP"},
    {"GenuineIntel", 6, 0x9D, 0x9D, 0, kLastStepping, "Ice Lake"},
    {"GenuineIntel", 6, 0x8C, 0x8D, 0, kLastStepping, "Tiger Lake"},
    {"GenuineIntel", 6, 0x8F, 0x8F, 0, kLastStepping, "Sapphire Rapids"},
    {"GenuineIntel", 6, 0xCF, 0xCF, 0, kLastStepping, "Emerald Rapids"},
    {"GenuineIntel", 6, 0xAD, 0xAD, 0, kLastStepping, "Granite Rapids"},
    {"GenuineIntel", 6, 0xAE, 0xAE, 0, kLastStepping, "Granite Rapids-D"},
    // Family 19 (base family 0Fh, extended family 4).
    {"GenuineIntel", 0x13, 0x01, 0x01, 0, kLastStepping, "Diamond Rapids"},
    {"GenuineIntel", 6, 0xD7, 0xD7, 0, kLastStepping, "Bartlett Lake"},
    {"GenuineIntel", 6, 0x8A, 0x8A, 0, kLastStepping, "Lakefield"},
    {"GenuineIntel", 6, 0x97, 0x97, 0, kLastStepping, "Alder Lake"},
    {"GenuineIntel", 6, 0x9A, 0x9A, 0, kLastStepping, "Alder Lake"},
    {"GenuineIntel", 6, 0xB7, 0xB7, 0, kLastStepping, "Raptor Lake"},
    {"GenuineIntel", 6, 0xBA, 0xBA, 0, kLastStepping, "Raptor Lake"},
    {"GenuineIntel", 6, 0xBF, 0xBF, 0, kLastStepping, "Raptor Lake"},
    {"GenuineIntel", 6, 0xAA, 0xAA, 0, kLastStepping, "Meteor Lake"},
    {"GenuineIntel", 6, 0xAC, 0xAC, 0, kLastStepping, "Meteor Lake"},
    {"GenuineIntel", 6, 0xC6, 0xC6, 0, kLastStepping, "Arrow Lake"},
    {"GenuineIntel", 6, 0xC5, 0xC5, 0, kLastStepping, "Arrow Lake-H"},
    {"GenuineIntel", 6, 0xB5, 0xB5, 0, kLastStepping, "Arrow Lake-U"},
    {"GenuineIntel", 6, 0xBD, 0xBD, 0, kLastStepping, "Lunar Lake"},
    {"GenuineIntel", 6, 0xCC, 0xCC, 0, kLastStepping, "Panther Lake"},
    {"GenuineIntel", 6, 0xD5, 0xD5, 0, kLastStepping, "Wildcat Lake"},
    // Family 18 (base family 0Fh, extended family 3).
    {"GenuineIntel", 0x12, 0x01, 0x01, 0, kLastStepping, "Nova Lake"},
    {"GenuineIntel", 0x12, 0x03, 0x03, 0, kLastStepping, "Nova Lake"},
    // E-core-only parts.
    {"GenuineIntel", 6, 0xBE, 0xBE, 0, kLastStepping, "Alder Lake-N"},
    {"GenuineIntel", 6, 0xAF, 0xAF, 0, kLastStepping, "Sierra Forest"},
    {"GenuineIntel", 6, 0xB6, 0xB6, 0, kLastStepping, "Grand Ridge"},
    {"GenuineIntel", 6, 0xDD, 0xDD, 0, kLastStepping, "Clearwater Forest"},
    {"GenuineIntel", 6, 0x57, 0x57, 0, kLastStepping, "Knights Landing"},
    {"GenuineIntel", 6, 0x85, 0x85, 0, kLastStepping, "Knights Mill"},
    // Zen+ (models 08h, 18h) sits inside Zen's range: its rows come first.
    {"AuthenticAMD", 0x17, 0x08, 0x08, 0, kLastStepping, "Zen+"},
    {"AuthenticAMD", 0x17, 0x18, 0x18, 0, kLastStepping, "Zen+"},
    {"AuthenticAMD", 0x17, 0x00, 0x2F, 0, kLastStepping, "Zen"},
    {"AuthenticAMD", 0x17, 0x30, 0x4F, 0, kLastStepping, "Zen 2"},
    {"AuthenticAMD", 0x17, 0x60, 0x7F, 0, kLastStepping, "Zen 2"},
    {"AuthenticAMD", 0x17, 0x90, 0x91, 0, kLastStepping, "Zen 2"},
    {"AuthenticAMD", 0x17, 0xA0, 0xAF, 0, kLastStepping, "Zen 2"},
    {"AuthenticAMD", 0x19, 0x00, 0x0F, 0, kLastStepping, "Zen 3"},
    {"AuthenticAMD", 0x19, 0x20, 0x5F, 0, kLastStepping, "Zen 3"},
    {"AuthenticAMD", 0x19, 0x10, 0x1F, 0, kLastStepping, "Zen 4"},
    {"AuthenticAMD", 0x19, 0x60, 0xAF, 0, kLastStepping, "Zen 4"},
    {"AuthenticAMD", 0x1A, 0x00, 0x2F, 0, kLastStepping, "Zen 5"},
    {"AuthenticAMD", 0x1A, 0x40, 0x4F, 0, kLastStepping, "Zen 5"},
    {"AuthenticAMD", 0x1A, 0x60, 0x7F, 0, kLastStepping, "Zen 5"},
    {"AuthenticAMD", 0x1A, 0x50, 0x5F, 0, kLastStepping, "Zen 6"},
    {"AuthenticAMD", 0x1A, 0x80, 0xAF, 0, kLastStepping, "Zen 6"},
    {"AuthenticAMD", 0x1A, 0xC0, 0xCF, 0, kLastStepping, "Zen 6"},
};

}  // namespace

std::string Microarchitecture(std::string_view vendor, int family, int model, int stepping) {
  for (const MicroarchitectureRow& row : kMicroarchitectures) {
    if (row.vendor == vendor && row.family == family && row.first_model <= model &&
        model <= row.last_model && row.first_stepping <= stepping &&
        stepping <= row.last_stepping) {
      return std::string(row.name);
    }
  }
  return "unknown";
}

std::vector<std::string_view> SiliconFeatures(std::string_view microarchitecture) {
  // Intel's and AMD's product briefs: every Xeon Scalable part has AVX-512 (F, CD, BW, DQ, VL;
  // VNNI from Cascade Lake; BF16 and FP16 with AMX from Sapphire Rapids; AMX-FP16 from Granite
  // Rapids); every Zen 4 and Zen 5 part has AVX-512 with VNNI and BF16.
  static constexpr std::string_view kSkylakeSp[] = {"avx512f", "avx512cd", "avx512bw", "avx512dq",
                                                    "avx512vl"};
  static constexpr std::string_view kCascadeLake[] = {"avx512f",  "avx512cd", "avx512bw",
                                                      "avx512dq", "avx512vl", "avx512_vnni"};
  static constexpr std::string_view kSapphireRapids[] = {
      "avx512f",     "avx512cd",    "avx512bw", "avx512dq", "avx512vl", "avx512_vnni",
      "avx512_bf16", "avx512_fp16", "amx_tile", "amx_int8", "amx_bf16"};
  static constexpr std::string_view kGraniteRapids[] = {
      "avx512f",     "avx512cd",    "avx512bw", "avx512dq", "avx512vl", "avx512_vnni",
      "avx512_bf16", "avx512_fp16", "amx_tile", "amx_int8", "amx_bf16", "amx_fp16"};
  static constexpr std::string_view kZen4[] = {"avx512f",  "avx512cd",    "avx512bw",   "avx512dq",
                                               "avx512vl", "avx512_vnni", "avx512_bf16"};
  const auto list = [](const auto& names) {
    return std::vector<std::string_view>(std::begin(names), std::end(names));
  };
  if (microarchitecture == "Skylake-SP") return list(kSkylakeSp);
  if (microarchitecture == "Cascade Lake" || microarchitecture == "Cooper Lake" ||
      microarchitecture == "Ice Lake-SP") {
    return list(kCascadeLake);
  }
  if (microarchitecture == "Sapphire Rapids" || microarchitecture == "Emerald Rapids") {
    return list(kSapphireRapids);
  }
  if (microarchitecture == "Granite Rapids" || microarchitecture == "Granite Rapids-D") {
    return list(kGraniteRapids);
  }
  if (microarchitecture == "Zen 4" || microarchitecture == "Zen 5") return list(kZen4);
  return {};
}

std::vector<std::string_view> FeaturesNoPartHas(std::string_view microarchitecture) {
  // The instructions of deep learning's generations, from the vendors' briefs and optimisation
  // manuals: AVX-512 from Skylake-SP and Knights Landing (never on Intel's client cores before
  // Cannon Lake, nor on Atom cores, nor on AMD before Zen 4); AVX512-BF16 from Cooper Lake (and
  // Golden Cove, fused off in client parts) and Zen 4; AVX512-FP16 and AMX from Sapphire Rapids
  // (AMX on server cores only; FP16 never on AMD); AMX-FP16 from Granite Rapids. A hypervisor can
  // hide an instruction set but cannot add one the silicon lacks, so a reported one of these
  // means the model number is not this CPU's. AVX10 is left out: AVX10.1 names instructions
  // Sapphire Rapids already runs, so a hypervisor may enumerate it there.
  static constexpr std::string_view kBeforeAvx512[] = {"avx512f", "avx512_bf16", "avx512_fp16",
                                                       "amx_tile", "amx_fp16"};
  static constexpr std::string_view kBeforeBf16[] = {"avx512_bf16", "avx512_fp16", "amx_tile",
                                                     "amx_fp16"};
  static constexpr std::string_view kBeforeFp16[] = {"avx512_fp16", "amx_tile", "amx_fp16"};
  static constexpr std::string_view kClientGoldenCove[] = {"amx_tile", "amx_fp16"};
  static constexpr std::string_view kBeforeAmxFp16[] = {"amx_fp16"};
  struct Row {
    std::string_view microarchitecture;
    std::span<const std::string_view> absent;
  };
  static constexpr Row kRows[] = {
      {"Penryn", kBeforeAvx512},
      {"Nehalem", kBeforeAvx512},
      {"Haswell", kBeforeAvx512},
      {"Broadwell", kBeforeAvx512},
      {"Skylake", kBeforeAvx512},
      {"Kaby Lake", kBeforeAvx512},
      {"Coffee Lake", kBeforeAvx512},
      {"Whiskey Lake", kBeforeAvx512},
      {"Amber Lake", kBeforeAvx512},
      {"Comet Lake", kBeforeAvx512},
      {"Lakefield", kBeforeAvx512},
      {"Meteor Lake", kBeforeAvx512},
      {"Arrow Lake", kBeforeAvx512},
      {"Arrow Lake-H", kBeforeAvx512},
      {"Arrow Lake-U", kBeforeAvx512},
      {"Lunar Lake", kBeforeAvx512},
      {"Panther Lake", kBeforeAvx512},
      {"Wildcat Lake", kBeforeAvx512},
      {"Alder Lake-N", kBeforeAvx512},
      {"Sierra Forest", kBeforeAvx512},
      {"Grand Ridge", kBeforeAvx512},
      {"Clearwater Forest", kBeforeAvx512},
      {"Zen", kBeforeAvx512},
      {"Zen+", kBeforeAvx512},
      {"Zen 2", kBeforeAvx512},
      {"Zen 3", kBeforeAvx512},
      {"Skylake-SP", kBeforeBf16},
      {"Cascade Lake", kBeforeBf16},
      {"Cannon Lake", kBeforeBf16},
      {"Ice Lake", kBeforeBf16},
      {"Ice Lake-SP", kBeforeBf16},
      {"Tiger Lake", kBeforeBf16},
      {"Rocket Lake", kBeforeBf16},
      {"Knights Landing", kBeforeBf16},
      {"Knights Mill", kBeforeBf16},
      {"Cooper Lake", kBeforeFp16},
      {"Zen 4", kBeforeFp16},
      {"Zen 5", kBeforeFp16},
      {"Alder Lake", kClientGoldenCove},
      {"Raptor Lake", kClientGoldenCove},
      {"Bartlett Lake", kClientGoldenCove},
      {"Sapphire Rapids", kBeforeAmxFp16},
      {"Emerald Rapids", kBeforeAmxFp16},
  };
  for (const Row& row : kRows) {
    if (row.microarchitecture == microarchitecture) {
      return {row.absent.begin(), row.absent.end()};
    }
  }
  return {};
}

std::vector<std::string> ContradictedFeatures(std::string_view microarchitecture,
                                              const FeatureSet& features) {
  std::vector<std::string> reported;
  for (std::string_view name : FeaturesNoPartHas(microarchitecture)) {
    const auto it = features.find(std::string(name));
    if (it != features.end() && it->second) reported.emplace_back(name);
  }
  return reported;
}

CpuIdentity DecodeIdentity(const CpuidSource& source) {
  CpuIdentity id;
  const CpuidRegs leaf0 = source.Query(0, 0);
  id.vendor = RegsText({leaf0.ebx, leaf0.edx, leaf0.ecx});
  const CpuidRegs leaf1 = source.Query(1, 0);
  const int base_family = static_cast<int>((leaf1.eax >> 8) & 0xF);
  id.family = base_family;
  if (base_family == 0xF) id.family += static_cast<int>((leaf1.eax >> 20) & 0xFF);
  id.model = static_cast<int>((leaf1.eax >> 4) & 0xF);
  if (id.family >= 6) id.model += static_cast<int>((leaf1.eax >> 16) & 0xF) << 4;
  id.stepping = static_cast<int>(leaf1.eax & 0xF);
  if (source.Query(0x80000000u, 0).eax >= 0x80000004u) {
    std::string brand;
    for (std::uint32_t leaf = 0x80000002u; leaf <= 0x80000004u; ++leaf) {
      const CpuidRegs r = source.Query(leaf, 0);
      std::string part = RegsText({r.eax, r.ebx, r.ecx, r.edx});
      brand += part;
      if (part.size() < 16) break;
    }
    id.brand = TrimSpaces(brand);
  }
  id.microarchitecture = Microarchitecture(id.vendor, id.family, id.model, id.stepping);
  if (!ContradictedFeatures(id.microarchitecture, DecodeFeatures(source)).empty()) {
    id.model_microarchitecture = std::exchange(id.microarchitecture, "unknown");
  }
  id.hypervisor = Bit(leaf1.ecx, 31);
  if (id.hypervisor) {
    const CpuidRegs hv = source.Query(0x40000000u, 0);
    id.hypervisor_vendor = HypervisorName(TrimSpaces(RegsText({hv.ebx, hv.ecx, hv.edx})));
  }
  id.core_type = DecodeCoreType(source);
  return id;
}

std::string DecodeCoreType(const CpuidSource& source) {
  if (source.Query(0, 0).eax < 0x1A) return {};
  switch (source.Query(0x1A, 0).eax >> 24) {
    case 0x20:
      return "efficiency";
    case 0x40:
      return "performance";
    default:
      return {};
  }
}

FeatureSet DecodeFeatures(const CpuidSource& source) {
  const std::uint32_t max_basic = source.Query(0, 0).eax;
  const std::uint32_t max_ext = source.Query(0x80000000u, 0).eax;
  const std::uint32_t max_leaf7_subleaf = max_basic >= 7 ? source.Query(7, 0).eax : 0;
  FeatureSet bits;
  for (const BitSpec& spec : kBits) {
    bool available = false;
    if (spec.leaf >= 0x80000000u) {
      available = max_ext >= spec.leaf;
    } else if (spec.leaf == 0x1E) {
      // Leaf 1Eh subleaf 0 EAX: the highest subleaf (ISE, "TMUL information").
      available = max_basic >= 0x1E && spec.subleaf <= source.Query(0x1E, 0).eax;
    } else {
      available = max_basic >= spec.leaf && (spec.leaf != 7 || spec.subleaf <= max_leaf7_subleaf);
    }
    bits[spec.name] =
        available && Bit(Select(source.Query(spec.leaf, spec.subleaf), spec.reg), spec.bit);
  }
  return bits;
}

std::uint64_t XsaveSupported(const CpuidSource& source) {
  if (source.Query(0, 0).eax < 0xD) return 0;
  const CpuidRegs r = source.Query(0xD, 0);
  return std::uint64_t{r.edx} << 32 | r.eax;
}

std::optional<int> DecodeAvx10Version(const CpuidSource& source) {
  const std::uint32_t max_basic = source.Query(0, 0).eax;
  if (max_basic < 0x24 || max_basic < 7 || source.Query(7, 0).eax < 1) return std::nullopt;
  if (!Bit(source.Query(7, 1).edx, 19)) return std::nullopt;
  return static_cast<int>(source.Query(0x24, 0).ebx & 0xFF);
}

std::optional<AmxPalette> DecodeAmxPalette(const CpuidSource& source) {
  if (source.Query(0, 0).eax < 0x1D || source.Query(0x1D, 0).eax < 1) return std::nullopt;
  const CpuidRegs r = source.Query(0x1D, 1);
  AmxPalette palette;
  palette.bytes_per_row = static_cast<int>(r.ebx & 0xFFFF);
  palette.tiles = static_cast<int>(r.ebx >> 16);
  palette.rows = static_cast<int>(r.ecx & 0xFFFF);
  if (palette.tiles == 0) return std::nullopt;
  return palette;
}

FeatureSet OsEnablement(const FeatureSet& features, std::uint64_t xcr0,
                        std::optional<bool> amx_permission) {
  const bool avx_state = HasState(xcr0, kXcr0AvxState);
  const bool avx512_state = avx_state && HasState(xcr0, kXcr0Avx512State);
  const bool amx_state = HasState(xcr0, kXcr0AmxState) && amx_permission.value_or(true);
  const bool apx_state = HasState(xcr0, kXcr0ApxState);
  FeatureSet os;
  for (const auto& [name, present] : features) {
    switch (StateClassOf(name)) {
      case StateClass::kLegacy:
        os[name] = true;
        break;
      case StateClass::kAvx:
        os[name] = avx_state;
        break;
      case StateClass::kAvx512:
        os[name] = avx512_state;
        break;
      case StateClass::kAmx:
        os[name] = amx_state;
        break;
      case StateClass::kApx:
        os[name] = apx_state;
        break;
    }
  }
  return os;
}

std::string X86_64Level(const FeatureSet& bits) {
  // The psABI levels (x86-64-ABI, "Micro-architecture levels").
  if (!All(bits, {"lm", "cmov", "cx8", "fpu", "fxsr", "mmx", "sse", "sse2"})) return "none";
  if (!All(bits, {"cx16", "lahf_lm", "popcnt", "pni", "sse4_1", "sse4_2", "ssse3"})) {
    return "x86-64-v1";
  }
  if (!All(bits, {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "abm", "movbe", "osxsave"})) {
    return "x86-64-v2";
  }
  if (!All(bits, {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"})) {
    return "x86-64-v3";
  }
  return "x86-64-v4";
}

std::string MaxOneDnnIsa(const FeatureSet& bits) {
  using onednn::IsaName;
  // oneDNN 2.6 src/cpu/x64/cpu_isa_traits.hpp, mayiuse(): avx512_core needs F+BW+VL+DQ (not
  // CD); avx512_mic (Xeon Phi) needs F+CD+ER+PF and sits beside, not below, avx512_core.
  const bool core = All(bits, {"avx512f", "avx512bw", "avx512vl", "avx512dq"});
  const bool core_vnni = core && All(bits, {"avx512_vnni"});
  const bool core_bf16 = core_vnni && All(bits, {"avx512_bf16"});
  std::string_view isa = IsaName("none");
  if (core_bf16 && All(bits, {"amx_tile", "amx_int8", "amx_bf16"})) {
    isa = IsaName("avx512_core_amx");
  } else if (core_bf16) {
    isa = IsaName("avx512_core_bf16");
  } else if (core_vnni) {
    isa = IsaName("avx512_core_vnni");
  } else if (core) {
    isa = IsaName("avx512_core");
  } else if (All(bits, {"avx512f", "avx512cd", "avx512er", "avx512pf"})) {
    isa = IsaName("avx512_mic");
  } else if (All(bits, {"avx2", "avx_vnni"})) {
    isa = IsaName("avx2_vnni");
  } else if (All(bits, {"avx2"})) {
    isa = IsaName("avx2");
  } else if (All(bits, {"avx"})) {
    isa = IsaName("avx");
  } else if (All(bits, {"sse4_1"})) {
    isa = IsaName("sse41");
  }
  return std::string(isa);
}

OneDnn3Level MaxOneDnn3Isa(const FeatureSet& bits, std::optional<int> avx10_version) {
  using onednn::IsaName;
  const bool avx2_vnni = All(bits, {"avx2", "avx_vnni"});
  const bool avx2_vnni_2 = avx2_vnni && All(bits, {"avx_vnni_int8", "avx_ne_convert"});
  const bool core = All(bits, {"avx512f", "avx512bw", "avx512vl", "avx512dq"});
  const bool core_vnni = core && All(bits, {"avx512_vnni"});
  const bool core_bf16 = core_vnni && All(bits, {"avx512_bf16"});
  const bool core_fp16 = core_bf16 && avx2_vnni && All(bits, {"avx512_fp16"});
  const bool core_amx = core_fp16 && All(bits, {"amx_tile", "amx_int8", "amx_bf16"});
  const bool core_amx_fp16 = core_amx && All(bits, {"amx_fp16"});
  const bool avx10_2 = avx10_version.value_or(0) >= 2 && All(bits, {"avx10", "avx512f"}) &&
                       avx2_vnni_2 && All(bits, {"apx_f", "movrs"});
  const bool avx10_2_amx_2 =
      avx10_2 && All(bits, {"amx_tile", "amx_avx512", "amx_movrs", "amx_fp8"});
  // From the highest: 3.x's verbose lines name the AVX10.1 levels by their 3.5+ aliases.
  const struct {
    bool allowed;
    std::string_view isa;
    std::string_view verbose;
  } kLevels[] = {
      {avx10_2_amx_2, IsaName("avx10_2_amx_2"), IsaName("avx10_2_amx_2")},
      {avx10_2, IsaName("avx10_2"), IsaName("avx10_2")},
      {core_amx_fp16, IsaName("avx512_core_amx_fp16"), IsaName("avx10_1_512_amx_fp16")},
      {core_amx, IsaName("avx512_core_amx"), IsaName("avx10_1_512_amx")},
      {core_fp16, IsaName("avx512_core_fp16"), IsaName("avx10_1_512")},
      {core_bf16, IsaName("avx512_core_bf16"), IsaName("avx512_core_bf16")},
      {core_vnni, IsaName("avx512_core_vnni"), IsaName("avx512_core_vnni")},
      {core, IsaName("avx512_core"), IsaName("avx512_core")},
      {avx2_vnni_2, IsaName("avx2_vnni_2"), IsaName("avx2_vnni_2")},
      {avx2_vnni, IsaName("avx2_vnni"), IsaName("avx2_vnni")},
      {All(bits, {"avx2"}), IsaName("avx2"), IsaName("avx2")},
      {All(bits, {"avx"}), IsaName("avx"), IsaName("avx")},
      {All(bits, {"sse4_1"}), IsaName("sse41"), IsaName("sse41")},
  };
  for (const auto& level : kLevels) {
    if (level.allowed) return {std::string(level.isa), std::string(level.verbose)};
  }
  return {std::string(IsaName("none")), std::string(IsaName("none"))};
}

}  // namespace dlcheck::detect
