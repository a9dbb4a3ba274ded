#pragma once
// PlatformInfo -> Report for `dlcheck platform`: sections `cpu` and `levels`, the primary table
// `features` (one row per feature, keyed by its name in JSON), findings. No printing here.

#include <vector>

#include "detect/platform.h"
#include "detect/probe.h"
#include "report/report.h"

namespace dlcheck::cli {

/// The `features` table's columns, in order.
/// `probe`: the execution probe (`platform --probe`, `check`); null when not probed.
inline constexpr const char* kFeatureColumns[] = {"feature", "cpuid",  "os",   "libcpuid",
                                                  "kernel",  "usable", "probe"};

/// Fills `report` (command "platform") from `info`; `probes` fill the `probe` column.
void AddPlatform(const detect::PlatformInfo& info, report::Report& report,
                 const std::vector<detect::ProbeResult>& probes = {});

/// A new report holding just the platform.
report::Report PlatformReport(const detect::PlatformInfo& info,
                              const std::vector<detect::ProbeResult>& probes = {});

}  // namespace dlcheck::cli
