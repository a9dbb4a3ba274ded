// SPDX-License-Identifier: Apache-2.0
#include "detect/platform_report.h"

#include <fmt/format.h>

#include "detect/machine_profile_fields.h"
#include "detect/topology_report.h"

namespace dlcheck::detect {
namespace {

namespace contract = report::contract;

report::Value Optional(const std::optional<bool>& value) {
  return value ? report::Value(*value) : report::Value();
}

report::Value TextOrNull(const std::string& text) {
  return text.empty() ? report::Value() : report::Value(text);
}

// true: the instruction ran; false: it faulted; null: not probed, or no result.
report::Value ProbeValue(const ProbeResult* probe) {
  if (probe == nullptr) return {};
  switch (probe->state) {
    case ProbeState::kPassed:
      return true;
    case ProbeState::kFaulted:
      return false;
    case ProbeState::kNoProbe:
    case ProbeState::kError:
      return {};
  }
  return {};
}

report::Value Hex(const std::optional<std::uint64_t>& value) {
  return value ? report::Value(fmt::format("{:#x}", *value)) : report::Value();
}

// An x86-only text field: its value on x86, "not on AArch64" on AArch64.
report::Value X86Text(const PlatformInfo& info, report::Value x86_value) {
  return info.aarch64() != nullptr ? report::Value(std::string(kNotOnAarch64)) : x86_value;
}

// The `aarch64` section: the MIDR fields, the core and its parts, HWCAP, the SVE length.
void AddAarch64Section(const Aarch64Part& part, const PlatformInfo& info, report::Report& report) {
  using namespace aarch64_field;
  const auto number = [](const std::optional<std::uint32_t>& v) {
    return v ? report::Value(static_cast<int>(*v)) : report::Value();
  };
  const std::string& core = info.cpu.microarchitecture;
  report::Value basis;
  if (part.sve_vector_bits) basis = part.sve_vector_bits_from_core ? "core" : "recorded";
  report.AddSection(kAarch64Section)
      .Add(kImplementer, part.implementer ? report::Value(fmt::format("{:#04x}", *part.implementer))
                                          : report::Value())
      .Add(kPart, part.part ? report::Value(fmt::format("{:#05x}", *part.part)) : report::Value())
      .Add(kVariant, number(part.variant))
      .Add(kRevision, number(part.revision))
      .Add(kCore, core == "unknown" ? report::Value() : report::Value(core))
      .Add(kParts, TextOrNull(part.parts))
      .Add(kMidr, part.midr ? report::Value(fmt::format("{:#018x}", *part.midr)) : report::Value())
      .Add(kHwcap, Hex(part.hwcap))
      .Add(kHwcap2, Hex(part.hwcap2))
      .Add(kSveVectorBits,
           part.sve_vector_bits ? report::Value(*part.sve_vector_bits) : report::Value())
      .Add(kSveVectorBitsBasis, basis);
}

}  // namespace

std::vector<contract::Member> PlatformMembers(bool with_probes) {
  using namespace cpu_field;
  using namespace levels_field;
  using contract::Object;
  const std::vector<contract::Member> cpu = {
      kSource,
      kVendor,
      kBrand,
      kFamily,
      kModel,
      kStepping,
      kMicroarchitecture,
      kHypervisor,
      kHypervisorVendor,
      kLogicalCpus,
      kXcr0,
      kXsaveSupported,
      kAmxPermission,
      kLibcpuidVersion,
      kAvx10Version,
      Object(kAmxTilesSection, {kTiles, kRows, kBytesPerRow}),
      contract::Rows(kCpuCoreKindsTable, {kKind, kLogicalCpus, kSameFeatures})};
  std::vector<contract::Member> members = {
      Object(kCpuSection, cpu),
      Object(kLevelsSection, {kX86_64, kOnednnMaxIsa, kOnednnEffectiveIsa, kOnednnAgrees,
                              kOnednn3MaxIsa, kOnednn3VerboseIsa, kBasis}),
      contract::KeyedRows(kFeaturesTable,
                          contract::Members(std::span(kFeatureColumns).subspan(1)))};
  if (with_probes)
    members.push_back(contract::Rows(kProbesTable, contract::Members(kProbeColumns)));
  return members;
}

const contract::Document& PlatformDocument() {
  static const contract::Document kPlatform = [] {
    std::vector<contract::Member> members = PlatformMembers(/*with_probes=*/true);
    members.insert(members.begin() + 2, TopologyMember());
    {
      using namespace aarch64_field;
      members.insert(members.begin() + 1,
                     contract::Object(kAarch64Section, {kImplementer, kPart, kVariant, kRevision,
                                                        kCore, kParts, kMidr, kHwcap, kHwcap2,
                                                        kSveVectorBits, kSveVectorBitsBasis}));
    }
    {
      using namespace machine_profile_field;
      members.push_back(contract::Object(
          kMachineProfileSection, {kProfile, kMeasuredAt, kQuick, kMemoryGbps, kPeakGflops}));
    }
    return contract::Document{
        "platform", "what the machine can do: ISA features layer by layer, levels, topology",
        std::move(members), std::string(kFeaturesTable.name)};
  }();
  return kPlatform;
}

namespace {

// The features as the human table shows them on a vendor with rows left out (AMX on AMD): a view
// without those rows, its caption saying how many and how to see them; the full table stays in
// CSV, JSON and xlsx.
void AddVendorView(const PlatformInfo& info, report::Report& report) {
  report::Table& full = report.tables.back();
  std::vector<std::vector<report::Value>> kept;
  std::size_t left_out = 0;
  for (std::size_t i = 0; i < info.features.size(); ++i) {
    if (LeftOutForVendor(info.cpu.vendor, info.features[i].name)) {
      ++left_out;
    } else {
      kept.push_back(full.rows[i]);
    }
  }
  if (left_out == 0) return;
  full.omit_in_table = true;
  report::Table view = full;
  view.name = "features_shown";
  view.omit_in_table = false;
  view.only_in_table = true;
  view.rows = std::move(kept);
  view.caption = fmt::format(
      "{} AMX rows left out: {} has no AMX (--all shows them; CSV and JSON "
      "have every row)",
      left_out, info.cpu.vendor);
  report.tables.push_back(std::move(view));
}

}  // namespace

bool LeftOutForVendor(std::string_view vendor, std::string_view feature) {
  return vendor == "AuthenticAMD" && StateClassOf(feature) == StateClass::kAmx;
}

void AddPlatform(const PlatformInfo& info, report::Report& report,
                 const std::vector<ProbeResult>& probes, PlatformView view) {
  using namespace cpu_field;
  // The x86 fields of the document: an empty part's values (nulls, 0x0) for a record of
  // another architecture, whose words its own part will bring.
  static const X86Part kNoX86Part;
  const X86Part& x86 = info.x86() != nullptr ? *info.x86() : kNoX86Part;
  report::Section& cpu = report.AddSection(kCpuSection);
  cpu.Add(kSource, info.source)
      .Add(kVendor, info.cpu.vendor)
      .Add(kBrand, TextOrNull(info.cpu.brand))
      .Add(kFamily, info.cpu.family)
      .Add(kModel, info.cpu.model)
      .Add(kStepping, info.cpu.stepping)
      .Add(kMicroarchitecture, info.cpu.microarchitecture)
      .Add(kHypervisor, info.cpu.hypervisor)
      .Add(kHypervisorVendor, TextOrNull(info.cpu.hypervisor_vendor))
      .Add(kLogicalCpus, info.logical_cpus)
      .Add(kXcr0, X86Text(info, x86.xcr0 ? report::Value(fmt::format("{:#x}", *x86.xcr0))
                                         : report::Value()))
      .Add(kXsaveSupported, X86Text(info, fmt::format("{:#x}", x86.xsave_supported)))
      .Add(kAmxPermission, Optional(x86.amx_permission))
      .Add(kLibcpuidVersion, X86Text(info, info.libcpuid_version))
      .Add(kAvx10Version, x86.avx10_version ? report::Value(*x86.avx10_version) : report::Value());
  // The AMX tile palette as its three numbers (JSON: an object; null without AMX).
  if (x86.amx_palette) {
    cpu.AddSection(kAmxTilesSection)
        .Add(kTiles, x86.amx_palette->tiles)
        .Add(kRows, x86.amx_palette->rows)
        .Add(kBytesPerRow, x86.amx_palette->bytes_per_row);
  }
  report::Table& kinds =
      cpu.AddTable(kCpuCoreKindsTable, std::array{kKind, kLogicalCpus, kSameFeatures});
  for (const CpuidCoreType& kind : info.core_types) {
    kinds.AddRow()
        .Set(kKind, kind.kind)
        .Set(kLogicalCpus, kind.logical_cpus)
        .Set(kSameFeatures, kind.same_features);
  }
  // Leaf 1Ah is Intel's hybrid leaf: all zeros on AMD, and no CPUID at all on AArch64 (whose
  // big and little cores the recording's part numbers tell): a table that says nothing there.
  kinds.omit_in_table =
      !view.all && (info.cpu.vendor == "AuthenticAMD" || info.aarch64() != nullptr);

  using namespace levels_field;
  report::Section& levels = report.AddSection(kLevelsSection);
  levels.Add(kX86_64, X86Text(info, info.PsabiLevel()))
      .Add(kOnednnMaxIsa, info.onednn_max_isa)
      .Add(kOnednnEffectiveIsa,
           info.onednn_effective_isa ? report::Value(*info.onednn_effective_isa) : report::Value())
      .Add(kOnednnAgrees, info.onednn_effective_isa
                              ? report::Value(*info.onednn_effective_isa == info.onednn_max_isa)
                              : report::Value())
      .Add(kOnednn3MaxIsa, info.onednn3_max_isa.isa)
      .Add(kOnednn3VerboseIsa, info.onednn3_max_isa.verbose)
      .Add(kBasis, info.levels_basis);

  report::Table& features = report.AddTable(kFeaturesTable, kFeatureColumns);
  features.keyed_by_first_column = true;
  features.answer_columns = {std::string(feature_column::kUsable.name)};
  for (const FeatureLayers& f : info.features) {
    namespace column = feature_column;
    features.AddRow()
        .Set(column::kFeature, f.name)
        .Set(column::kCpuid, f.cpu)
        .Set(column::kOs, Optional(f.os))
        .Set(column::kLibcpuid, Optional(f.libcpuid))
        .Set(column::kKernel, Optional(f.kernel))
        .Set(column::kUsable, Optional(f.usable))
        .Set(column::kProbe, ProbeValue(FindProbe(probes, f.name)))
        .Set(column::kHidden, f.hidden_by_hypervisor);
  }
  if (!view.all) AddVendorView(info, report);
  if (const Aarch64Part* part = info.aarch64()) AddAarch64Section(*part, info, report);

  report.findings.insert(report.findings.end(), info.findings.begin(), info.findings.end());
}

std::string PlatformVerdict(const PlatformInfo& info) {
  const std::string cpu = info.cpu.brand.empty() ? std::string("this CPU") : info.cpu.brand;
  const std::string psabi = info.PsabiLevel();
  std::string level = psabi.empty() ? "" : ": " + psabi;
  if (const Aarch64Part* part = info.aarch64(); part != nullptr && part->sve_vector_bits) {
    level = fmt::format(": SVE {} bits", *part->sve_vector_bits);
  }
  if (info.onednn_effective_isa) {
    return cpu + level + "; oneDNN dispatches " + *info.onednn_effective_isa;
  }
  if (info.aarch64() != nullptr) {
    const auto or_dash = [](const std::string& isa) {
      return isa.empty() ? std::string("-") : isa;
    };
    return cpu + level + "; oneDNN 2.6 would dispatch " + or_dash(info.onednn_max_isa) + ", 3.x " +
           or_dash(info.onednn3_max_isa.isa);
  }
  return cpu + level + "; oneDNN 2.x would dispatch " +
         (info.onednn_max_isa.empty() ? std::string("-") : info.onednn_max_isa);
}

report::Report PlatformReport(const PlatformInfo& info, const std::vector<ProbeResult>& probes,
                              PlatformView view) {
  report::Report report(PlatformDocument());
  AddPlatform(info, report, probes, view);
  return report;
}

void AddProbesTable(const PlatformInfo& info, const std::vector<ProbeResult>& probes,
                    report::Report& report) {
  report::Table& t = report.AddTable(kProbesTable, kProbeColumns);
  for (const ProbeResult& p : probes) {
    const FeatureLayers* f = info.FindFeature(p.feature);
    t.AddRow()
        .Set(feature_column::kFeature, p.feature)
        .Set(feature_column::kCpuid, f != nullptr && f->cpu)
        .Set(feature_column::kProbe, ProbeValue(&p))
        .Set(feature_column::kDetail, TextOrNull(p.detail));
  }
}

void AddProbeFindings(const PlatformInfo& info, const std::vector<ProbeResult>& probes,
                      report::Report& report) {
  for (Finding& f : ProbeFindings(info, probes)) report.findings.push_back(std::move(f));
}

}  // namespace dlcheck::detect
