// SPDX-License-Identifier: Apache-2.0
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

#include <array>
#include <vector>

#include "detect/platform.h"
#include "detect/probe.h"
#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"

namespace dlcheck::detect {

// The platform's words, declared once: the builder below writes them, PlatformDocument() is made
// of them and `fleet` reads them back.

namespace cpu_field {
using report::Field;
using report::Type;
// clang-format off
inline constexpr Field kSource{"source"};                 ///< "live", or the dump replayed
inline constexpr Field kVendor{"vendor"};
inline constexpr Field kBrand{"brand"};
inline constexpr Field kFamily{"family", Type::kInteger};
inline constexpr Field kModel{"model", Type::kInteger};
inline constexpr Field kStepping{"stepping", Type::kInteger};
inline constexpr Field kMicroarchitecture{"microarchitecture"};
inline constexpr Field kHypervisor{"hypervisor", Type::kBoolean};
inline constexpr Field kHypervisorVendor{"hypervisor_vendor"};
inline constexpr Field kLogicalCpus{"logical_cpus", Type::kInteger};
inline constexpr Field kXcr0{"xcr0"};
inline constexpr Field kXsaveSupported{"xsave_supported"};
inline constexpr Field kAmxPermission{"amx_permission", Type::kBoolean};
inline constexpr Field kLibcpuidVersion{"libcpuid_version"};
inline constexpr Field kAvx10Version{"avx10_version", Type::kInteger};  ///< null without AVX10
// cpu.amx_tiles: the AMX tile palette 1
inline constexpr Field kTiles{"tiles", Type::kInteger};
inline constexpr Field kRows{"rows", Type::kInteger};
inline constexpr Field kBytesPerRow{"bytes_per_row", Type::kInteger};
// cpu.core_kinds: CPUID leaf 1Ah
inline constexpr Field kKind{"kind"};
inline constexpr Field kSameFeatures{"same_features", Type::kBoolean};
// clang-format on
}  // namespace cpu_field

namespace levels_field {
using report::Field;
using report::Type;
inline constexpr Field kX86_64{"x86_64"};
inline constexpr Field kOnednnMaxIsa{"onednn_max_isa"};
inline constexpr Field kOnednn3MaxIsa{"onednn3_max_isa"};  ///< oneDNN 3.x's level (cpu_isa_t)
inline constexpr Field kOnednn3VerboseIsa{"onednn3_verbose_isa"};  ///< its name in 3.5+ logs
inline constexpr Field kOnednnEffectiveIsa{"onednn_effective_isa"};
inline constexpr Field kOnednnAgrees{"onednn_agrees", Type::kBoolean};
inline constexpr Field kBasis{"basis"};
}  // namespace levels_field

namespace feature_column {
using report::Field;
using report::Type;
inline constexpr Field kFeature{"feature"};
inline constexpr Field kCpuid{"cpuid", Type::kBoolean};
inline constexpr Field kOs{"os", Type::kBoolean};
inline constexpr Field kLibcpuid{"libcpuid", Type::kBoolean};
inline constexpr Field kKernel{"kernel", Type::kBoolean};
inline constexpr Field kUsable{"usable", Type::kBoolean};
/// The execution probe (`platform --probe`, `check`); null when not probed.
inline constexpr Field kProbe{"probe", Type::kBoolean};
inline constexpr Field kDetail{"detail"};  ///< the probes table's words on a probe
/// Every part of this microarchitecture has it; this guest's hypervisor does not expose it.
inline constexpr Field kHidden{"hidden", Type::kBoolean};
}  // namespace feature_column

/// The AArch64 part of the record (`platform` only; null for an x86 machine).
namespace aarch64_field {
using report::Field;
using report::Type;
// clang-format off
inline constexpr Field kImplementer{"implementer"};  ///< MIDR[31:24], "0x41"
inline constexpr Field kPart{"part"};                ///< MIDR[15:4], "0xd4f"
inline constexpr Field kVariant{"variant", Type::kInteger};
inline constexpr Field kRevision{"revision", Type::kInteger};
inline constexpr Field kCore{"core"};                ///< "Neoverse V2"; null when unknown
inline constexpr Field kParts{"parts"};              ///< the server parts built on the core
inline constexpr Field kMidr{"midr"};                ///< MIDR_EL1 where recorded
inline constexpr Field kHwcap{"hwcap"};
inline constexpr Field kHwcap2{"hwcap2"};
inline constexpr Field kSveVectorBits{"sve_vector_bits", Type::kInteger};
inline constexpr Field kSveVectorBitsBasis{"sve_vector_bits_basis"};  ///< "recorded" or "core"
// clang-format on
}  // namespace aarch64_field

/// What the x86-only fields say of an AArch64 record.
inline constexpr std::string_view kNotOnAarch64 = "not on AArch64";

inline constexpr report::Part kCpuSection{"cpu", "CPU"};
inline constexpr report::Part kAarch64Section{"aarch64", "AArch64"};
inline constexpr report::Part kAmxTilesSection{"amx_tiles", "AMX tiles (palette 1)"};
inline constexpr report::Part kCpuCoreKindsTable{"core_kinds", "Core kinds (CPUID leaf 1Ah)"};
inline constexpr report::Part kLevelsSection{"levels", "Derived levels"};
inline constexpr report::Part kFeaturesTable{"features", "Features"};
inline constexpr report::Part kProbesTable{"probes", "Execution probes"};

/// The `features` table's columns, in order (JSON: keyed by the first).
inline constexpr std::array kFeatureColumns = {feature_column::kFeature, feature_column::kCpuid,
                                               feature_column::kOs,      feature_column::kLibcpuid,
                                               feature_column::kKernel,  feature_column::kUsable,
                                               feature_column::kProbe,   feature_column::kHidden};
inline constexpr std::array kProbeColumns = {feature_column::kFeature, feature_column::kCpuid,
                                             feature_column::kProbe, feature_column::kDetail};

/// `platform`'s document: cpu, levels, topology, features, probes.
const report::contract::Document& PlatformDocument();
/// The members `platform` and `check` share: cpu, levels, features, and the probes table where
/// the command writes it (`platform --probe`; a check's probes fill the features' probe column).
std::vector<report::contract::Member> PlatformMembers(bool with_probes);

/// Which rows the human table shows: on a vendor whose silicon has no such thing (AMX and
/// CPUID leaf 1Ah's core kinds on AuthenticAMD), the rows are left out of it unless `all`;
/// CSV, JSON and xlsx keep every row.
struct PlatformView {
  bool all = false;
};

/// Fills `report` (command "platform") from `info`; `probes` fill the `probe` column.
void AddPlatform(const PlatformInfo& info, report::Report& report,
                 const std::vector<ProbeResult>& probes = {}, PlatformView view = {});

/// Whether the human table leaves `feature` out for `vendor` (AMX on AuthenticAMD): a vendor
/// whose silicon has none, where 10 rows of `no` say nothing.
bool LeftOutForVendor(std::string_view vendor, std::string_view feature);

/// A new report holding just the platform.
/// The platform's verdict: "Intel(R) Xeon(R) w9-3475X: x86-64-v4; oneDNN dispatches
/// avx512_core_amx" (what oneDNN reports live, what it would choose for a recording).
std::string PlatformVerdict(const PlatformInfo& info);

report::Report PlatformReport(const PlatformInfo& info, const std::vector<ProbeResult>& probes = {},
                              PlatformView view = {});

/// The `probes` table: feature, cpuid, probe (true: ran, false: faulted, null: no result),
/// detail.
void AddProbesTable(const PlatformInfo& info, const std::vector<ProbeResult>& probes,
                    report::Report& report);

/// Appends ProbeFindings(info, probes) to the report's findings.
void AddProbeFindings(const PlatformInfo& info, const std::vector<ProbeResult>& probes,
                      report::Report& report);

}  // namespace dlcheck::detect
