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
      .Add(kXcr0, info.xcr0 ? report::Value(fmt::format("{:#x}", *info.xcr0)) : report::Value())
      .Add(kXsaveSupported, fmt::format("{:#x}", info.xsave_supported))
      .Add(kAmxPermission, Optional(info.amx_permission))
      .Add(kLibcpuidVersion, info.libcpuid_version)
      .Add(kAvx10Version,
           info.avx10_version ? report::Value(*info.avx10_version) : report::Value());
  // The AMX tile palette as its three numbers (JSON: an object; null without AMX).
  if (info.amx_palette) {
    cpu.AddSection(kAmxTilesSection)
        .Add(kTiles, info.amx_palette->tiles)
        .Add(kRows, info.amx_palette->rows)
        .Add(kBytesPerRow, info.amx_palette->bytes_per_row);
  }
  report::Table& kinds =
      cpu.AddTable(kCpuCoreKindsTable, std::array{kKind, kLogicalCpus, kSameFeatures});
  for (const CpuidCoreType& kind : info.core_types) {
    kinds.rows.push_back({kind.kind, kind.logical_cpus, kind.same_features});
  }
  // Leaf 1Ah is Intel's hybrid leaf: all zeros on AMD, a table that says nothing there.
  kinds.omit_in_table = !view.all && info.cpu.vendor == "AuthenticAMD";

  using namespace levels_field;
  report::Section& levels = report.AddSection(kLevelsSection);
  levels.Add(kX86_64, info.x86_64_level)
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
    features.rows.push_back({f.name, f.cpuid, Optional(f.os), Optional(f.libcpuid),
                             Optional(f.kernel), Optional(f.usable),
                             ProbeValue(FindProbe(probes, f.name)), f.hidden_by_hypervisor});
  }
  if (!view.all) AddVendorView(info, report);

  report.findings.insert(report.findings.end(), info.findings.begin(), info.findings.end());
}

std::string PlatformVerdict(const PlatformInfo& info) {
  const std::string cpu = info.cpu.brand.empty() ? std::string("this CPU") : info.cpu.brand;
  const std::string level = info.x86_64_level.empty() ? "" : ": " + info.x86_64_level;
  if (info.onednn_effective_isa) {
    return cpu + level + "; oneDNN dispatches " + *info.onednn_effective_isa;
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
    t.rows.push_back({p.feature, f != nullptr && f->cpuid, ProbeValue(&p), TextOrNull(p.detail)});
  }
}

void AddProbeFindings(const PlatformInfo& info, const std::vector<ProbeResult>& probes,
                      report::Report& report) {
  for (Finding& f : ProbeFindings(info, probes)) report.findings.push_back(std::move(f));
}

}  // namespace dlcheck::detect
