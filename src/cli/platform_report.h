#pragma once
// PlatformInfo -> Report for `dlcheck platform`: sections `cpu` and `levels`, the primary table
// `features` (one row per feature, keyed by its name in JSON), findings. No printing here.

#include "detect/platform.h"
#include "report/report.h"

namespace dlcheck::cli {

/// The `features` table's columns, in order.
inline constexpr const char* kFeatureColumns[] = {"feature",  "cpuid",  "os",
                                                  "libcpuid", "kernel", "usable"};

/// Fills `report` (command "platform") from `info`.
void AddPlatform(const detect::PlatformInfo& info, report::Report& report);

/// A new report holding just the platform.
report::Report PlatformReport(const detect::PlatformInfo& info);

}  // namespace dlcheck::cli
