#pragma once
// PlatformInfo -> Report for `dlcheck platform` (and the platform part of `dlcheck check`):
// sections `cpu` and `levels`, the primary table `features` (one row per feature, keyed by its
// name in JSON), the `probes` table, findings. It lays out what detect computed: no decisions
// and no printing here.
//
//   std::vector<ProbeResult> probes = RunProbes(info, /*claimed=*/true, {});
//   report::Report report = PlatformReport(info, probes);   // the `probe` column filled
//   AddProbesTable(info, probes, report);
//   AddProbeFindings(info, probes, report);

#include <vector>

#include "detect/platform.h"
#include "detect/probe.h"
#include "report/report.h"

namespace dlcheck::detect {

/// The `features` table's columns, in order.
/// `probe`: the execution probe (`platform --probe`, `check`); null when not probed.
inline constexpr const char* kFeatureColumns[] = {"feature", "cpuid",  "os",   "libcpuid",
                                                  "kernel",  "usable", "probe"};

/// Fills `report` (command "platform") from `info`; `probes` fill the `probe` column.
void AddPlatform(const PlatformInfo& info, report::Report& report,
                 const std::vector<ProbeResult>& probes = {});

/// A new report holding just the platform.
report::Report PlatformReport(const PlatformInfo& info,
                              const std::vector<ProbeResult>& probes = {});

/// The `probes` table: feature, cpuid, probe (true: ran, false: faulted, null: no result),
/// detail.
void AddProbesTable(const PlatformInfo& info, const std::vector<ProbeResult>& probes,
                    report::Report& report);

/// Appends ProbeFindings(info, probes) to the report's findings.
void AddProbeFindings(const PlatformInfo& info, const std::vector<ProbeResult>& probes,
                      report::Report& report);

}  // namespace dlcheck::detect
