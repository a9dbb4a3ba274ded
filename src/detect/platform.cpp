// SPDX-License-Identifier: Apache-2.0
#include "detect/platform.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sched.h>

#include <algorithm>
#include <map>
#include <utility>

#include "common/finding_codes.h"
#include "common/onednn_isa.h"
#include "common/text.h"
#include "detect/cpuinfo.h"
#include "detect/library_versions.h"
#include "report/safe_text.h"

namespace dlcheck::detect {
namespace {

// Short names for the AVX-512 subsets, as Intel's manuals write them.
const std::vector<std::pair<std::string, std::string>>& Avx512Short() {
  static const std::vector<std::pair<std::string, std::string>> kNames = {
      {"avx512f", "F"},
      {"avx512cd", "CD"},
      {"avx512bw", "BW"},
      {"avx512dq", "DQ"},
      {"avx512vl", "VL"},
      {"avx512ifma", "IFMA"},
      {"avx512vbmi", "VBMI"},
      {"avx512_vbmi2", "VBMI2"},
      {"avx512_vnni", "VNNI"},
      {"avx512_bitalg", "BITALG"},
      {"avx512_vpopcntdq", "VPOPCNTDQ"},
      {"avx512_vp2intersect", "VP2INTERSECT"},
      {"avx512_bf16", "BF16"},
      {"avx512_fp16", "FP16"},
      {"avx512er", "ER"},
      {"avx512pf", "PF"}};
  return kNames;
}

void AddFinding(PlatformInfo& info, Severity severity, std::string code, std::string message,
                Topic topic = Topic::kGeneral) {
  info.findings.push_back({severity, std::move(code), std::move(message), topic});
}

void LibcpuidFindings(PlatformInfo& info, const FeatureSet& cpuid) {
  if (info.libcpuid_note.empty() == false) {
    AddFinding(info, Severity::kInfo, codes::kLibcpuidUnavailable, info.libcpuid_note,
               Topic::kLibcpuid);
    return;
  }
  const std::string lib = "libcpuid " + info.libcpuid_version;
  std::vector<std::string> cpuid_avx512;
  bool lib_any_avx512 = false;
  for (const auto& [name, short_name] : Avx512Short()) {
    if (cpuid.at(name)) cpuid_avx512.push_back(short_name);
  }
  for (const FeatureLayers& f : info.features) {
    if (StateClassOf(f.name) == StateClass::kAvx512 && f.libcpuid.value_or(false)) {
      lib_any_avx512 = true;
    }
  }
  std::vector<std::string> other;
  for (const FeatureLayers& f : info.features) {
    if (!f.libcpuid || *f.libcpuid == f.cpu) continue;
    if (!lib_any_avx512 && !cpuid_avx512.empty() && StateClassOf(f.name) == StateClass::kAvx512) {
      continue;  // said once below
    }
    other.push_back(fmt::format("{} ({} {}, CPUID {})", f.name, lib, *f.libcpuid ? "yes" : "no",
                                f.cpu ? "yes" : "no"));
  }
  if (!lib_any_avx512 && !cpuid_avx512.empty()) {
    const bool amd = info.cpu.vendor == "AuthenticAMD";
    // dlcheck already trusts the leaves and the user cannot act on the library: information.
    AddFinding(info, Severity::kInfo, codes::kLibcpuidNoAvx512,
               fmt::format("{} reports no AVX-512, but CPUID leaf 7 reports {}: {}; dlcheck "
                           "trusts the CPUID leaves",
                           lib, Join(cpuid_avx512, "/"),
                           amd ? "libcpuid predates AVX-512 on AMD"
                               : "libcpuid does not decode these bits"),
               Topic::kLibcpuid);
  }
  if (!other.empty()) {
    AddFinding(info, Severity::kInfo, codes::kLibcpuidDisagrees,
               fmt::format("{} and CPUID disagree on {}; dlcheck trusts the CPUID leaves", lib,
                           Join(other, ", ")),
               Topic::kLibcpuid);
  }
}

void XsaveFindings(PlatformInfo& info, const X86Part& x86, const FeatureSet& cpuid) {
  // The CPU itself (leaf 0Dh) must offer the state its feature bits need, or no OS can enable it.
  const std::uint64_t can = x86.xsave_supported;
  if (cpuid.at("avx512f") && !HasState(can, kXcr0Avx512State)) {
    AddFinding(info, Severity::kWarning, codes::kXsaveLacksAvx512State,
               fmt::format("CPUID leaf 7 reports AVX-512 but leaf 0Dh offers no AVX-512 register "
                           "state (supported XCR0 bits {:#x}): no OS can enable it; a hypervisor "
                           "is probably passing an inconsistent CPU model",
                           can));
  }
  if (cpuid.at("amx_tile") && !HasState(can, kXcr0AmxState)) {
    AddFinding(info, Severity::kWarning, codes::kXsaveLacksAmxState,
               fmt::format("CPUID leaf 7 reports AMX but leaf 0Dh offers no tile state (supported "
                           "XCR0 bits {:#x}): no OS can enable it",
                           can));
  }
}

void OsFindings(PlatformInfo& info, const X86Part& x86, const FeatureSet& cpuid) {
  if (!x86.xcr0) return;
  const std::uint64_t xcr0 = *x86.xcr0;
  if (cpuid.at("avx") && !HasState(xcr0, kXcr0AvxState)) {
    AddFinding(info, Severity::kWarning, codes::kOsAvxDisabled,
               fmt::format("CPUID reports AVX but XCR0 bits 1-2 are not both set (XCR0 = {:#x}): "
                           "the OS or hypervisor has not enabled AVX state; nothing can use AVX, "
                           "AVX2, FMA or AVX-512 here",
                           xcr0));
  } else if (cpuid.at("avx512f") && !HasState(xcr0, kXcr0Avx512State)) {
    AddFinding(
        info, Severity::kWarning, codes::kOsAvx512Disabled,
        fmt::format("CPUID reports AVX-512 but XCR0 bits 5-7 are clear (XCR0 = {:#x}): the "
                    "OS or hypervisor has not enabled AVX-512 state; nothing can use it here",
                    xcr0));
  }
  if (cpuid.at("amx_tile")) {
    if (!HasState(xcr0, kXcr0AmxState)) {
      AddFinding(info, Severity::kWarning, codes::kOsAmxDisabled,
                 fmt::format("CPUID reports AMX but XCR0 bits 17-18 are clear (XCR0 = {:#x}): the "
                             "OS or hypervisor has not enabled AMX tile state; nothing can use "
                             "AMX here",
                             xcr0));
    } else if (x86.amx_permission.has_value() && !*x86.amx_permission) {
      AddFinding(info, Severity::kWarning, codes::kAmxPermissionDenied,
                 "the OS enabled AMX state, but arch_prctl(ARCH_REQ_XCOMP_PERM) did not grant "
                 "this process the tile data: AMX kernels cannot run (Linux 5.16 or later is "
                 "needed)");
    }
  }
}

void KernelFindings(PlatformInfo& info) {
  std::vector<std::string> hidden;
  std::vector<std::string> extra;
  for (const FeatureLayers& f : info.features) {
    if (!f.kernel || *f.kernel == f.cpu) continue;
    (f.cpu ? hidden : extra).push_back(f.name);
  }
  if (!hidden.empty()) {
    AddFinding(info, Severity::kWarning, codes::kKernelHidesFeatures,
               fmt::format("CPUID reports {} but /proc/cpuinfo does not list {}: the kernel "
                           "disabled {} (or is too old to name {}); software that asks the kernel "
                           "will not use {}",
                           Join(hidden, ", "), hidden.size() == 1 ? "it" : "them",
                           hidden.size() == 1 ? "it" : "them", hidden.size() == 1 ? "it" : "them",
                           hidden.size() == 1 ? "it" : "them"));
  }
  if (!extra.empty()) {
    AddFinding(info, Severity::kWarning, codes::kKernelListsAbsentFeatures,
               fmt::format("/proc/cpuinfo lists {} but CPUID on this CPU does not report {}: the "
                           "CPUs differ, or the kernel and the hypervisor disagree",
                           Join(extra, ", "), extra.size() == 1 ? "it" : "them"));
  }
}

// A model number whose microarchitecture has none of some reported instruction sets (a
// hypervisor that reports another CPU's model: family 6 model 167, Rocket Lake's, on a guest
// with AMX and AVX512-FP16) names no microarchitecture (DecodeIdentity): one finding says why.
// True when it did.
bool ModelContradictsFeatures(PlatformInfo& info) {
  const std::string& named = info.cpu.model_microarchitecture;
  if (named.empty()) return false;
  FeatureSet reported_bits;
  for (const FeatureLayers& f : info.features) reported_bits[f.name] = f.cpu;
  const std::vector<std::string> reported = ContradictedFeatures(named, reported_bits);
  const bool guest = info.cpu.hypervisor;
  AddFinding(info, guest ? Severity::kInfo : Severity::kWarning, codes::kModelContradictsFeatures,
             fmt::format("CPUID's model number (family {} model {}) is {}'s, but this CPU "
                         "reports {}, which no {} has: {}; dlcheck names no microarchitecture "
                         "here and decodes the features from CPUID as they are",
                         info.cpu.family, info.cpu.model, named, Join(reported, ", "), named,
                         guest ? fmt::format("the hypervisor ({}) reports another CPU's model",
                                             info.cpu.hypervisor_vendor.empty()
                                                 ? "vendor unknown"
                                                 : info.cpu.hypervisor_vendor)
                               : "the model number or dlcheck's table is wrong (please report "
                                 "it with `dlcheck platform --save-raw DIR`)"));
  return true;
}

// Features the silicon of this microarchitecture has in every part that this guest's CPUID
// lacks: hidden by the hypervisor, not absent from the CPU (one finding naming them all).
void HypervisorFindings(PlatformInfo& info) {
  if (!info.cpu.hypervisor) return;
  std::vector<std::string> hidden;
  for (std::string_view name : SiliconFeatures(info.cpu.microarchitecture)) {
    for (FeatureLayers& f : info.features) {
      if (f.name == name && !f.cpu) {
        f.hidden_by_hypervisor = true;
        hidden.push_back(f.name);
      }
    }
  }
  if (hidden.empty()) return;
  const bool amx = std::any_of(hidden.begin(), hidden.end(),
                               [](const std::string& n) { return n.starts_with("amx_"); });
  AddFinding(info, Severity::kWarning, codes::kHypervisorHides,
             fmt::format(
                 "every {} part has {}; this guest's hypervisor ({}) does not expose {}: "
                 "the CPU has {}, this guest cannot use {}. Ask for an instance type or "
                 "a hypervisor setting that passes {} through (KVM: -cpu host)",
                 info.cpu.microarchitecture, fmt::join(hidden, ", "),
                 info.cpu.hypervisor_vendor.empty() ? "vendor unknown" : info.cpu.hypervisor_vendor,
                 hidden.size() > 1 ? "them" : "it", hidden.size() > 1 ? "them" : "it",
                 hidden.size() > 1 ? "them" : "it", amx ? "AMX" : "these features"));
}

// The x86 decoder: the identity, each feature's CPU and OS layers, the levels and the x86 part,
// from the CPUID source whose feature bits are already decoded (`cpuid`).
PlatformInfo DecodeX86Machine(const CpuidSource& source, const FeatureSet& cpuid) {
  PlatformInfo info;
  info.cpu = DecodeIdentity(source);
  X86Part x86{.xcr0 = source.Xcr0(),
              .xsave_supported = XsaveSupported(source),
              .amx_palette = DecodeAmxPalette(source),
              .avx10_version = DecodeAvx10Version(source),
              .amx_permission = source.AmxPermission()};

  std::optional<FeatureSet> os;
  if (x86.xcr0) os = OsEnablement(cpuid, *x86.xcr0, x86.amx_permission);
  FeatureSet effective;  // what the levels are derived from
  for (const auto& [name, present] : cpuid) effective[name] = present && (!os || os->at(name));
  info.levels_basis = os ? "usable" : "cpuid";
  x86.x86_64_level = X86_64Level(effective);
  info.onednn_max_isa = MaxOneDnnIsa(effective);
  info.onednn3_max_isa = MaxOneDnn3Isa(effective, x86.avx10_version);

  for (const std::string& name : ReportedFeatures()) {
    FeatureLayers f;
    f.name = name;
    f.cpu = cpuid.at(name);
    if (os) {
      f.os = os->at(name);
      f.usable = f.cpu && *f.os;
    }
    info.features.push_back(std::move(f));
  }
  info.arch = std::move(x86);
  return info;
}

// The layers of the generic readers, feature by feature: libcpuid's flags (where the library
// answered) and the kernel's /proc/cpuinfo flags (nullopt: the kernel's view is unknown).
void AddReaderLayers(PlatformInfo& info, const LibcpuidLayer& libcpuid,
                     const std::optional<std::set<std::string, std::less<>>>& kernel_flags) {
  info.libcpuid_version = LibcpuidVersion();
  info.libcpuid_note = libcpuid.available ? std::string() : libcpuid.note;
  for (FeatureLayers& f : info.features) {
    if (libcpuid.available) {
      const auto it = libcpuid.flags.find(f.name);
      if (it != libcpuid.flags.end()) f.libcpuid = it->second;
    }
    if (kernel_flags && KernelNamesFeature(f.name)) f.kernel = kernel_flags->count(f.name) > 0;
  }
}

// What the x86 registers say against the layers: libcpuid's gaps, state the CPU cannot offer,
// state the OS did not enable.
void X86Findings(PlatformInfo& info, const FeatureSet& cpuid) {
  LibcpuidFindings(info, cpuid);
  if (const X86Part* x86 = info.x86()) {
    XsaveFindings(info, *x86, cpuid);
    OsFindings(info, *x86, cpuid);
  }
}

// What any machine's record says: the kernel against the CPU, core kinds that differ, the
// microarchitecture, the hypervisor.
void MachineFindings(PlatformInfo& info) {
  const bool model_contradicted = ModelContradictsFeatures(info);
  KernelFindings(info);
  for (const CpuidCoreType& kind : info.core_types) {
    if (!kind.same_features) {
      AddFinding(info, Severity::kWarning, codes::kCoreKindsDiffer,
                 fmt::format("the {} cores report different CPUID feature bits from the first "
                             "CPU: code that moves between cores may meet instructions it "
                             "cannot run",
                             kind.kind));
    }
  }
  if (const FeatureLayers* avx512 = info.FindFeature("avx512f");
      info.cpu.microarchitecture == "Zen 4" && avx512 != nullptr && avx512->cpu) {
    // Zen 4 splits each 512-bit operation over its 256-bit units (Zen 5's desktop and server
    // parts have 512-bit data paths): per cycle, AVX-512 computes what AVX2 does.
    AddFinding(info, Severity::kInfo, codes::kAvx512On256BitUnits,
               "Zen 4 runs AVX-512 on 256-bit units, two passes for each 512-bit operation: "
               "an avx512_core kernel has AVX2's peak per cycle and gains only from its masks, "
               "its 32 registers and its instructions (VNNI, BF16), so an avx2 kernel may be as "
               "fast or faster; `dlcheck dispatch` measures both on each primitive");
  }
  if (!model_contradicted && info.cpu.microarchitecture == "unknown") {
    AddFinding(info, Severity::kInfo, codes::kUnknownMicroarchitecture,
               fmt::format("dlcheck's table does not know {} family {} model {} stepping {}; the "
                           "feature bits are still decoded from CPUID",
                           info.cpu.vendor, info.cpu.family, info.cpu.model, info.cpu.stepping));
  }
  HypervisorFindings(info);
  if (info.cpu.hypervisor) {
    AddFinding(info, Severity::kInfo, codes::kHypervisor,
               fmt::format("running under a hypervisor ({}): it decides which CPUID bits and "
                           "which XCR0 state this guest sees",
                           info.cpu.hypervisor_vendor.empty() ? "vendor unknown"
                                                              : info.cpu.hypervisor_vendor));
  }
}

// BuildPlatformInfo with the source's feature bits already decoded (`cpuid`): the x86 decoder,
// then the generic readers' layers, then the findings.
PlatformInfo Combine(const CpuidSource& source, const FeatureSet& cpuid,
                     const LibcpuidLayer& libcpuid,
                     const std::optional<std::set<std::string, std::less<>>>& kernel_flags,
                     std::vector<CpuidCoreType> core_types, int logical_cpus) {
  PlatformInfo info = DecodeX86Machine(source, cpuid);
  info.core_types = std::move(core_types);
  info.logical_cpus = logical_cpus;
  AddReaderLayers(info, libcpuid, kernel_flags);
  X86Findings(info, cpuid);
  MachineFindings(info);
  return info;
}

// Leaf 1Ah answers for the CPU that runs it: on a hybrid CPU, each allowed CPU is visited once
// and read; otherwise every allowed CPU is of one "general" type.
std::vector<CpuidCoreType> LiveCoreTypes(const LiveCpuidSource& live, int logical_cpus) {
  const bool hybrid = live.Query(0, 0).eax >= 7 && ((live.Query(7, 0).edx >> 15) & 1u) != 0;
  if (!hybrid) return {{"general", logical_cpus, true}};
  CpuidDump dump;
  const StatusOr<int> visited = ForEachAllowedCpu([&](int cpu) {
    LogicalCpuDump d;
    d.index = cpu;
    for (std::uint32_t leaf : {0u, 1u, 0x1Au, 0x80000000u, 0x80000001u}) {
      d.leaves[{leaf, 0}] = live.Query(leaf, 0);
    }
    d.leaves[{7, 0}] = live.Query(7, 0);
    d.leaves[{7, 1}] = live.Query(7, 1);
    dump.cpus.push_back(std::move(d));
  });
  if (!visited.ok() || dump.cpus.empty()) return {};
  return CoreTypesOf(dump, DecodeFeatures(RecordedCpuidSource(dump.cpus.front())));
}

// The leaves a recording should hold (its leaf 0 and 80000000h say the CPU has them) but lacks,
// each with what is decoded from it; a dump cut short loses them without a parse error.
std::vector<std::string> MissingLeaves(const LogicalCpuDump& cpu) {
  const auto has = [&](std::uint32_t leaf, std::uint32_t subleaf) {
    return cpu.leaves.contains({leaf, subleaf});
  };
  const auto eax = [&](std::uint32_t leaf, std::uint32_t subleaf) {
    const auto it = cpu.leaves.find({leaf, subleaf});
    return it == cpu.leaves.end() ? 0u : it->second.eax;
  };
  std::vector<std::string> missing;
  if (!has(0, 0)) missing.push_back("0 (the vendor and the highest leaf)");
  const std::uint32_t max_basic = eax(0, 0);
  const std::uint32_t max_extended = eax(0x80000000u, 0);
  if (max_basic >= 1 && !has(1, 0)) missing.push_back("1 (SSE4, AVX, FMA, F16C)");
  if (max_basic >= 7 && !has(7, 0)) missing.push_back("7 (AVX2, AVX-512, AMX)");
  if (max_basic >= 7 && eax(7, 0) >= 1 && !has(7, 1)) {
    missing.push_back("7.1 (AVX-VNNI, AVX512-BF16, AMX-FP16)");
  }
  if (max_basic >= 0xD && !has(0xD, 0)) missing.push_back("0Dh (the XSAVE state components)");
  if (max_extended >= 0x80000001u && max_extended <= 0x8000FFFFu && !has(0x80000001u, 0)) {
    missing.push_back("80000001h (LAHF, LZCNT, for the x86-64 levels)");
  }
  return missing;
}

void RecordingFindings(PlatformInfo& info, const LogicalCpuDump& first) {
  const std::vector<std::string> missing = MissingLeaves(first);
  if (!missing.empty()) {
    AddFinding(info, Severity::kWarning, codes::kRecordingIncomplete,
               fmt::format("the CPUID recording lacks leaf {} although the CPU reports {}: the "
                           "features from {} are unknown (shown as absent); record the dump again",
                           fmt::join(missing, ", leaf "), missing.size() > 1 ? "them" : "it",
                           missing.size() > 1 ? "them" : "it"));
  }
  AddFinding(info, Severity::kInfo, codes::kRecording,
             "replayed from a CPUID recording: the os, kernel and oneDNN layers cannot be known "
             "and are null; the levels assume the OS enables every state the CPU reports");
}

}  // namespace

std::vector<CpuidCoreType> CoreTypesOf(const CpuidDump& dump, const FeatureSet& first_cpu_bits) {
  std::vector<CpuidCoreType> types;
  for (std::size_t i = 0; i < dump.cpus.size(); ++i) {
    const RecordedCpuidSource source(dump.cpus[i]);
    std::string kind = DecodeCoreType(source);
    if (kind.empty()) kind = "general";
    auto it = std::find_if(types.begin(), types.end(),
                           [&](const CpuidCoreType& t) { return t.kind == kind; });
    if (it == types.end()) it = types.insert(types.end(), CpuidCoreType{kind, 0, true});
    ++it->logical_cpus;
    if (i > 0 && it->same_features && DecodeFeatures(source) != first_cpu_bits) {
      it->same_features = false;
    }
  }
  return types;
}

PlatformInfo BuildPlatformInfo(
    const CpuidSource& source, const LibcpuidLayer& libcpuid,
    const std::optional<std::set<std::string, std::less<>>>& kernel_flags,
    std::vector<CpuidCoreType> core_types, int logical_cpus) {
  return Combine(source, DecodeFeatures(source), libcpuid, kernel_flags, std::move(core_types),
                 logical_cpus);
}

namespace {

FeatureSet UsableFeatures(const CpuidSource& source) {
  const FeatureSet cpuid = DecodeFeatures(source);
  const std::optional<std::uint64_t> xcr0 = source.Xcr0();
  std::optional<FeatureSet> os;
  if (xcr0) os = OsEnablement(cpuid, *xcr0, source.AmxPermission());
  FeatureSet usable;
  for (const auto& [name, present] : cpuid) usable[name] = present && (!os || os->at(name));
  return usable;
}

}  // namespace

FeatureSet LiveUsableFeatures() {
  return UsableFeatures(LiveCpuidSource());
}

std::string LiveOneDnn3MaxIsa() {
  const LiveCpuidSource source;
  return MaxOneDnn3Isa(UsableFeatures(source), DecodeAvx10Version(source)).isa;
}

PlatformInfo DetectLivePlatform() {
  const LiveCpuidSource live;
  std::optional<std::set<std::string, std::less<>>> kernel_flags;
  if (const std::optional<std::string> text = ReadProcCpuinfo()) {
    kernel_flags = ParseCpuinfoFlags(*text);
  }
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  int logical_cpus = 1;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) == 0) logical_cpus = CPU_COUNT(&allowed);
  PlatformInfo info = BuildPlatformInfo(live, LibcpuidLive(), kernel_flags,
                                        LiveCoreTypes(live, logical_cpus), logical_cpus);
  if (!kernel_flags) {
    AddFinding(info, Severity::kInfo, codes::kNoProcCpuinfo,
               "/proc/cpuinfo has no flags line here: the kernel layer is null");
  }
  return info;
}

StatusOr<PlatformInfo> DetectRecordedPlatform(const std::string& path) {
  StatusOr<std::string> text = ReadDumpText(path);
  if (!text.ok()) return text.status();
  StatusOr<CpuidDump> dump = ParseCpuidDump(*text, path);
  if (!dump.ok()) return dump.status();
  const LibcpuidLayer libcpuid = LibcpuidFromDump(*dump);
  const RecordedCpuidSource first(dump->cpus.front());
  const FeatureSet first_bits = DecodeFeatures(first);  // CPU 0, decoded once
  PlatformInfo info = Combine(first, first_bits, libcpuid, std::nullopt,
                              CoreTypesOf(*dump, first_bits), static_cast<int>(dump->cpus.size()));
  info.source = report::SafeText(path);  // a path may hold any bytes; the report needs text
  if (!libcpuid.left_out.empty()) {
    AddFinding(info, Severity::kInfo, codes::kLibcpuidSubleavesLeftOut, libcpuid.left_out,
               Topic::kLibcpuid);
  }
  RecordingFindings(info, dump->cpus.front());
  if (!dump->repeated_cpus.empty()) {
    AddFinding(info, Severity::kWarning, codes::kDumpRepeatsCpus,
               fmt::format("the dump names logical CPU {} more than once: each is counted once "
                           "({} logical CPUs), from its first block; the repeated blocks were "
                           "left out",
                           fmt::join(dump->repeated_cpus, ", "), dump->cpus.size()));
  }
  if (!dump->left_out.empty()) {
    AddFinding(info, Severity::kInfo, codes::kReportPartsLeftOut,
               fmt::format("read the CPUID blocks of an AIDA64 report and left out the rest ({})",
                           dump->left_out));
  }
  return info;
}

void SetOneDnnEffectiveIsa(PlatformInfo& info, const std::string& effective,
                           const std::string& max_isa_env) {
  info.onednn_effective_isa = effective;
  if (effective == info.onednn_max_isa) return;
  if (onednn::Compare(effective, info.onednn_max_isa) == onednn::IsaOrder::kAbove) {
    AddFinding(info, Severity::kWarning, codes::kOnednnIsaAboveDerived,
               fmt::format("oneDNN dispatches to {}, above the {} that dlcheck derives from the "
                           "usable features: one of the two is wrong; please report this",
                           effective, info.onednn_max_isa));
  } else if (!max_isa_env.empty()) {
    AddFinding(info, Severity::kInfo, codes::kOnednnIsaCapped,
               fmt::format("oneDNN dispatches to {}, below the {} the usable features allow, "
                           "because ONEDNN_MAX_CPU_ISA={} caps it",
                           effective, info.onednn_max_isa, max_isa_env));
  } else {
    AddFinding(info, Severity::kWarning, codes::kOnednnIsaBelowDerived,
               fmt::format("oneDNN dispatches to {}, below the {} the usable features allow: it "
                           "does not use everything this CPU offers",
                           effective, info.onednn_max_isa));
  }
}

const FeatureLayers* PlatformInfo::FindFeature(std::string_view name) const {
  for (const FeatureLayers& f : features) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool PlatformInfo::FeatureAvailable(std::string_view name) const {
  const FeatureLayers* f = FindFeature(name);
  return f != nullptr && f->Available();
}

std::optional<bool> PlatformInfo::OsSavesState(std::string_view feature) const {
  const X86Part* part = x86();
  if (part == nullptr || !part->xcr0) return std::nullopt;
  // No permission given: XCR0 alone (OsEnablement counts an unknown permission as granted).
  const FeatureSet one = {{std::string(feature), true}};
  return OsEnablement(one, *part->xcr0, std::nullopt).begin()->second;
}

std::optional<bool> PlatformInfo::ProcessPermitted(std::string_view feature) const {
  const X86Part* part = x86();
  if (part == nullptr || StateClassOf(feature) != StateClass::kAmx) return std::nullopt;
  return part->amx_permission;
}

std::string PlatformInfo::PsabiLevel() const {
  const X86Part* part = x86();
  return part == nullptr ? std::string() : part->x86_64_level;
}

onednn::IsaArch PlatformInfo::Arch() const {
  if (x86() != nullptr) return onednn::IsaArch::kX64;
  if (aarch64() != nullptr) return onednn::IsaArch::kAarch64;
  return onednn::IsaArch::kNone;
}

const Finding* PlatformInfo::FindFinding(std::string_view code) const {
  for (const Finding& f : findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

}  // namespace dlcheck::detect
