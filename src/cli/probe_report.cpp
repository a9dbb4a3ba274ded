#include "cli/probe_report.h"

#include <fmt/format.h>

#include <algorithm>

namespace dlcheck::cli {
namespace {

bool Claimed(const detect::PlatformInfo& info, const std::string& name) {
  const detect::FeatureLayers* f = info.FindFeature(name);
  return f != nullptr && f->cpuid;
}

}  // namespace

std::optional<std::string> CheckProbeName(const std::string& feature) {
  if (feature == detect::kFaultingProbe) return std::nullopt;
  const auto& names = detect::ProbedFeatures();
  if (std::find(names.begin(), names.end(), feature) != names.end()) return std::nullopt;
  std::string list;
  for (auto n : names) list += fmt::format("{}{}", list.empty() ? "" : ",", n);
  return fmt::format("--probe: dlcheck has no probe for '{}' (it has: {},{})", feature, list,
                     detect::kFaultingProbe);
}

std::vector<detect::ProbeResult> RunProbes(const detect::PlatformInfo& info, bool claimed,
                                           const std::vector<std::string>& forced) {
  std::vector<std::string> order;
  const auto& probed = detect::ProbedFeatures();
  for (const auto& f : info.features) {
    const bool has_probe = std::find(probed.begin(), probed.end(), f.name) != probed.end();
    const bool wanted =
        (claimed && f.cpuid) || std::find(forced.begin(), forced.end(), f.name) != forced.end();
    if (has_probe && wanted) order.push_back(f.name);
  }
  for (const auto& name : forced) {
    if (std::find(order.begin(), order.end(), name) == order.end()) order.push_back(name);
  }
  std::vector<detect::ProbeResult> results;
  for (const auto& name : order) results.push_back(detect::RunProbe(name));
  return results;
}

const detect::ProbeResult* FindProbe(const std::vector<detect::ProbeResult>& probes,
                                     const std::string& feature) {
  for (const auto& p : probes) {
    if (p.feature == feature) return &p;
  }
  return nullptr;
}

report::Value ProbeValue(const detect::ProbeResult* probe) {
  if (probe == nullptr) return {};
  switch (probe->state) {
    case detect::ProbeState::kPassed:
      return true;
    case detect::ProbeState::kFaulted:
      return false;
    case detect::ProbeState::kNoProbe:
    case detect::ProbeState::kError:
      return {};
  }
  return {};
}

void AddProbeFindings(const detect::PlatformInfo& info,
                      const std::vector<detect::ProbeResult>& probes, report::Report& report) {
  for (const auto& p : probes) {
    const detect::FeatureLayers* f = info.FindFeature(p.feature);
    const bool claimed = Claimed(info, p.feature);
    if (p.state == detect::ProbeState::kError) {
      report.AddFinding(report::Severity::kWarning, "probe-error",
                        fmt::format("the probe of {} could not run: {}", p.feature, p.detail));
    } else if (p.state == detect::ProbeState::kFaulted && claimed) {
      if (f != nullptr && f->usable && !*f->usable) {
        report.AddFinding(report::Severity::kInfo, "probe-faults-os-disabled",
                          fmt::format("CPUID claims {} but the instruction faults ({}), as "
                                      "expected: the OS has not enabled its register state",
                                      p.feature, p.detail));
      } else {
        report.AddFinding(report::Severity::kWarning, "probe-faults",
                          fmt::format("CPUID claims {} but the instruction faults ({}): the "
                                      "hypervisor or kernel hides it",
                                      p.feature, p.detail));
      }
    } else if (p.state == detect::ProbeState::kFaulted && p.feature == detect::kFaultingProbe) {
      report.AddFinding(report::Severity::kInfo, "probe-faults-as-expected",
                        fmt::format("the {} probe faults ({}), as it always does: the fault path "
                                    "works",
                                    p.feature, p.detail));
    } else if (p.state == detect::ProbeState::kFaulted) {
      report.AddFinding(report::Severity::kInfo, "probe-faults-as-expected",
                        fmt::format("the {} instruction does not run ({}), as CPUID says: this CPU "
                                    "does not have it",
                                    p.feature, p.detail));
    } else if (p.state == detect::ProbeState::kPassed && !claimed) {
      report.AddFinding(report::Severity::kWarning, "probe-runs-unclaimed",
                        fmt::format("CPUID denies {} but its instruction runs", p.feature));
    }
  }
}

void AddProbesTable(const detect::PlatformInfo& info,
                    const std::vector<detect::ProbeResult>& probes, report::Report& report) {
  report::Table& t =
      report.AddTable("probes", {"feature", "cpuid", "probe", "detail"}, "Execution probes");
  for (const auto& p : probes) {
    t.rows.push_back({p.feature, Claimed(info, p.feature), ProbeValue(&p),
                      p.detail.empty() ? report::Value() : report::Value(p.detail)});
  }
}

}  // namespace dlcheck::cli
