#include "detect/cpu_features.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "common/onednn_isa.h"

namespace dlcheck::detect {
namespace {

bool Bit(std::uint32_t value, int bit) {
  return ((value >> bit) & 1u) != 0;
}

std::string RegsText(std::initializer_list<std::uint32_t> regs) {
  std::string out;
  for (std::uint32_t r : regs) {
    char chars[4];
    std::memcpy(chars, &r, 4);
    out.append(chars, 4);
  }
  out.erase(std::find(out.begin(), out.end(), '\0'), out.end());
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

// Bit positions: Intel SDM vol. 2A (CPUID) and AMD APM vol. 3, as Linux names them.
constexpr std::array<BitSpec, 51> kBits = {{
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
  static const std::vector<std::string> kNames = {"sse4_1",
                                                  "sse4_2",
                                                  "avx",
                                                  "avx2",
                                                  "fma",
                                                  "f16c",
                                                  "avx512f",
                                                  "avx512cd",
                                                  "avx512bw",
                                                  "avx512dq",
                                                  "avx512vl",
                                                  "avx512ifma",
                                                  "avx512vbmi",
                                                  "avx512_vbmi2",
                                                  "avx512_vnni",
                                                  "avx512_bitalg",
                                                  "avx512_vpopcntdq",
                                                  "avx512_vp2intersect",
                                                  "avx512_bf16",
                                                  "avx512_fp16",
                                                  "avx512er",
                                                  "avx512pf",
                                                  "avx_vnni",
                                                  "amx_tile",
                                                  "amx_bf16",
                                                  "amx_int8",
                                                  "amx_fp16"};
  return kNames;
}

StateClass StateClassOf(std::string_view feature) {
  if (feature.starts_with("amx_")) return StateClass::kAmx;
  if (feature.starts_with("avx512")) return StateClass::kAvx512;
  if (feature.starts_with("avx") || feature == "fma" || feature == "f16c") return StateClass::kAvx;
  return StateClass::kLegacy;
}

std::string Microarchitecture(std::string_view vendor, int family, int model, int stepping) {
  if (vendor == "GenuineIntel" && family == 6) {
    switch (model) {
      case 0x1A:
      case 0x1E:
      case 0x1F:
      case 0x2E:
        return "Nehalem";
      case 0x17:
      case 0x1D:
        return "Penryn";
      case 0x3C:
      case 0x3F:
      case 0x45:
      case 0x46:
        return "Haswell";
      case 0x3D:
      case 0x47:
      case 0x4F:
      case 0x56:
        return "Broadwell";
      case 0x55:
        // One model number, three generations told apart by stepping (Linux intel-family.h).
        if (stepping <= 4) return "Skylake-SP";
        if (stepping <= 7) return "Cascade Lake";
        if (stepping >= 10 && stepping <= 11) return "Cooper Lake";
        return "unknown";
      case 0x66:
        return "Cannon Lake";
      case 0x7D:
      case 0x7E:
        return "Ice Lake";
      case 0x6A:
      case 0x6C:
        return "Ice Lake-SP";
      case 0x8C:
      case 0x8D:
        return "Tiger Lake";
      case 0x8F:
        return "Sapphire Rapids";
      case 0xCF:
        return "Emerald Rapids";
      case 0x97:
      case 0x9A:
        return "Alder Lake";
      case 0xB7:
      case 0xBA:
      case 0xBF:
        return "Raptor Lake";
      case 0xAA:
      case 0xAC:
        return "Meteor Lake";
      case 0x57:
        return "Knights Landing";
      case 0x85:
        return "Knights Mill";
      default:
        return "unknown";
    }
  }
  if (vendor == "AuthenticAMD" || vendor == "HygonGenuine") {
    if (vendor == "HygonGenuine") return "unknown";
    // Model ranges as Linux's arch/x86/kernel/cpu/amd.c assigns them.
    if (family == 0x17) {
      if (model == 0x08 || model == 0x18) return "Zen+";
      if (model <= 0x2F) return "Zen";
      if ((model >= 0x30 && model <= 0x4F) || (model >= 0x60 && model <= 0x7F) ||
          (model >= 0x90 && model <= 0x91) || (model >= 0xA0 && model <= 0xAF)) {
        return "Zen 2";
      }
      return "unknown";
    }
    if (family == 0x19) {
      if (model <= 0x0F || (model >= 0x20 && model <= 0x5F)) return "Zen 3";
      if ((model >= 0x10 && model <= 0x1F) || (model >= 0x60 && model <= 0xAF)) return "Zen 4";
      return "unknown";
    }
    if (family == 0x1A) {
      if (model <= 0x2F || (model >= 0x40 && model <= 0x4F) || (model >= 0x60 && model <= 0x7F)) {
        return "Zen 5";
      }
      return "unknown";
    }
  }
  return "unknown";
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
  id.hypervisor = Bit(leaf1.ecx, 31);
  if (id.hypervisor) {
    const CpuidRegs hv = source.Query(0x40000000u, 0);
    id.hypervisor_vendor = HypervisorName(TrimSpaces(RegsText({hv.ebx, hv.ecx, hv.edx})));
  }
  if (leaf0.eax >= 0x1A) {
    switch (source.Query(0x1A, 0).eax >> 24) {
      case 0x20:
        id.core_type = "efficiency";
        break;
      case 0x40:
        id.core_type = "performance";
        break;
      default:
        break;
    }
  }
  return id;
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
  // oneDNN 2.6 src/cpu/x64/cpu_isa_traits.hpp, mayiuse(): avx512_core needs F+BW+VL+DQ (not
  // CD); avx512_mic (Xeon Phi) needs F+CD+ER+PF and sits beside, not below, avx512_core.
  const bool core = All(bits, {"avx512f", "avx512bw", "avx512vl", "avx512dq"});
  const bool core_vnni = core && All(bits, {"avx512_vnni"});
  const bool core_bf16 = core_vnni && All(bits, {"avx512_bf16"});
  if (core_bf16 && All(bits, {"amx_tile", "amx_int8", "amx_bf16"})) return "avx512_core_amx";
  if (core_bf16) return "avx512_core_bf16";
  if (core_vnni) return "avx512_core_vnni";
  if (core) return "avx512_core";
  if (All(bits, {"avx512f", "avx512cd", "avx512er", "avx512pf"})) return "avx512_mic";
  if (All(bits, {"avx2", "avx_vnni"})) return "avx2_vnni";
  if (All(bits, {"avx2"})) return "avx2";
  if (All(bits, {"avx"})) return "avx";
  if (All(bits, {"sse4_1"})) return "sse41";
  return "none";
}

int OneDnnIsaRank(std::string_view isa) {
  return onednn::IsaRank(isa).value_or(-1);
}

}  // namespace dlcheck::detect
