#pragma once
// Execution probes for `dlcheck platform --probe` and `dlcheck check`: which features to probe,
// and what a result means next to the CPUID claim. No printing here.
//
//   std::vector<detect::ProbeResult> probes = RunProbes(info, /*claimed=*/true, {"amx_tile"});
//   AddPlatform(info, report, probes);   // the `probe` column and the probe findings

#include <optional>
#include <string>
#include <vector>

#include "detect/platform.h"
#include "detect/probe.h"
#include "report/report.h"

namespace dlcheck::cli {

/// The one-line error for a `--probe FEATURE` dlcheck cannot probe; nullopt when it can.
std::optional<std::string> CheckProbeName(const std::string& feature);

/// Probes every feature the CPUID layer claims (when `claimed`) and every name in `forced`
/// (even when CPUID denies it), each once, in ReportedFeatures() order, forced extras last.
std::vector<detect::ProbeResult> RunProbes(const detect::PlatformInfo& info, bool claimed,
                                           const std::vector<std::string>& forced);

/// The probe result for `feature`, or nullptr when it was not probed.
const detect::ProbeResult* FindProbe(const std::vector<detect::ProbeResult>& probes,
                                     const std::string& feature);

/// "true" / "false" / null for the `probe` column.
report::Value ProbeValue(const detect::ProbeResult* probe);

/// Findings for probes that disagree with CPUID (warning) or confirm a denial (info).
void AddProbeFindings(const detect::PlatformInfo& info,
                      const std::vector<detect::ProbeResult>& probes, report::Report& report);

/// The `probes` table: feature, cpuid, probe, detail.
void AddProbesTable(const detect::PlatformInfo& info,
                    const std::vector<detect::ProbeResult>& probes, report::Report& report);

}  // namespace dlcheck::cli
