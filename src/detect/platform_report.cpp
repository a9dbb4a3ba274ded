#include "detect/platform_report.h"

#include <fmt/format.h>

namespace dlcheck::detect {
namespace {

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

void AddPlatform(const PlatformInfo& info, report::Report& report,
                 const std::vector<ProbeResult>& probes) {
  report::Section& cpu = report.AddSection("cpu", "CPU");
  cpu.Add("source", info.source)
      .Add("vendor", info.cpu.vendor)
      .Add("brand", TextOrNull(info.cpu.brand))
      .Add("family", info.cpu.family)
      .Add("model", info.cpu.model)
      .Add("stepping", info.cpu.stepping)
      .Add("microarchitecture", info.cpu.microarchitecture)
      .Add("hypervisor", info.cpu.hypervisor)
      .Add("hypervisor_vendor", TextOrNull(info.cpu.hypervisor_vendor))
      .Add("logical_cpus", info.logical_cpus)
      .Add("xcr0", info.xcr0 ? report::Value(fmt::format("{:#x}", *info.xcr0)) : report::Value())
      .Add("xsave_supported", fmt::format("{:#x}", info.xsave_supported))
      .Add("amx_permission", Optional(info.amx_permission))
      .Add("libcpuid_version", info.libcpuid_version);
  // The AMX tile palette as its three numbers (JSON: an object; null without AMX).
  if (info.amx_palette) {
    cpu.AddSection("amx_tiles", "AMX tiles (palette 1)")
        .Add("tiles", info.amx_palette->tiles)
        .Add("rows", info.amx_palette->rows)
        .Add("bytes_per_row", info.amx_palette->bytes_per_row);
  }
  report::Table& kinds = cpu.AddTable("core_kinds", {"kind", "logical_cpus", "same_features"},
                                      "Core kinds (CPUID leaf 1Ah)");
  for (const CpuidCoreType& kind : info.core_types) {
    kinds.rows.push_back({kind.kind, kind.logical_cpus, kind.same_features});
  }

  report::Section& levels = report.AddSection("levels", "Derived levels");
  levels.Add("x86_64", info.x86_64_level)
      .Add("onednn_max_isa", info.onednn_max_isa)
      .Add("onednn_effective_isa",
           info.onednn_effective_isa ? report::Value(*info.onednn_effective_isa) : report::Value())
      .Add("onednn_agrees", info.onednn_effective_isa
                                ? report::Value(*info.onednn_effective_isa == info.onednn_max_isa)
                                : report::Value())
      .Add("basis", info.levels_basis);

  report::Table& features = report.AddTable(
      "features", std::vector<std::string>(std::begin(kFeatureColumns), std::end(kFeatureColumns)),
      "Features");
  features.keyed_by_first_column = true;
  features.answer_columns = {"usable"};
  for (const FeatureLayers& f : info.features) {
    features.rows.push_back({f.name, f.cpuid, Optional(f.os), Optional(f.libcpuid),
                             Optional(f.kernel), Optional(f.usable),
                             ProbeValue(FindProbe(probes, f.name))});
  }
  report.primary_table = "features";

  report.findings.insert(report.findings.end(), info.findings.begin(), info.findings.end());
}

report::Report PlatformReport(const PlatformInfo& info, const std::vector<ProbeResult>& probes) {
  report::Report report;
  report.command = "platform";
  AddPlatform(info, report, probes);
  return report;
}

void AddProbesTable(const PlatformInfo& info, const std::vector<ProbeResult>& probes,
                    report::Report& report) {
  report::Table& t =
      report.AddTable("probes", {"feature", "cpuid", "probe", "detail"}, "Execution probes");
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
