// SPDX-License-Identifier: Apache-2.0
#pragma once
// MachineProfile -> Report for `dlcheck roofline`: the `roofline` section (the machine, the
// load beside the figures, where the profile is stored), the tables `plateaus` (the cache
// levels' bandwidth, one thread), `threads` (DRAM bandwidth at 1..N threads), `peaks` (each data
// type and unit), `sweep` (every working set) and `unmeasured` (what this host cannot give, and
// why). Its words are declared here, once.
//
//   report::Report r = RooflineReport(profile, {.path = path, .stored = true});
#include <array>
#include <string>

#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"
#include "roofline/machine_profile.h"

namespace dlcheck::roofline {

namespace roofline_field {
using report::Field;
using report::Type;
// clang-format off
inline constexpr Field kCpuKey{"cpu_key"};
inline constexpr Field kBrand{"brand"};
inline constexpr Field kMicroarchitecture{"microarchitecture"};
inline constexpr Field kMeasuredAt{"measured_at"};
inline constexpr Field kQuick{"quick", Type::kBoolean};
inline constexpr Field kUsableCpus{"usable_cpus", Type::kInteger};
inline constexpr Field kCpuBudget{"cpu_budget"};
inline constexpr Field kLoadStart{"load_start", Type::kNumber};   ///< 1-minute load average
inline constexpr Field kLoadEnd{"load_end", Type::kNumber};
inline constexpr Field kSeconds{"seconds", Type::kNumber};
inline constexpr Field kVector{"vector"};  ///< the bandwidth kernels' registers: zmm, ymm, xmm
inline constexpr Field kMemoryGbps{"memory_gbps", Type::kNumber};  ///< MachineProfile::MemoryGbps
inline constexpr Field kProfile{"profile"};                        ///< the stored file's path
inline constexpr Field kStored{"stored", Type::kBoolean};          ///< written by this run
inline constexpr Field kInterruptedBy{"interrupted_by"};            ///< "SIGINT"; null: ran to its end
// plateaus
inline constexpr Field kLevel = report::IdentityColumn("level");
inline constexpr Field kCacheKib{"cache_kib", Type::kInteger};
inline constexpr Field kFromKib{"from_kib", Type::kInteger};
inline constexpr Field kToKib{"to_kib", Type::kInteger};
inline constexpr Field kReadGbps{"read_gbps", Type::kNumber};
inline constexpr Field kCopyGbps{"copy_gbps", Type::kNumber};
inline constexpr Field kTriadGbps{"triad_gbps", Type::kNumber};
inline constexpr Field kTriadNtGbps{"triad_nt_gbps", Type::kNumber};
// threads
inline constexpr Field kThreads{"threads", Type::kInteger};
inline constexpr Field kCpus{"cpus"};
// peaks
inline constexpr Field kDtype = report::IdentityColumn("dtype");
inline constexpr Field kUnit = report::IdentityColumn("unit");
inline constexpr Field kInstruction{"instruction"};
inline constexpr Field kGflops{"gflops", Type::kNumber};
// sweep
inline constexpr Field kWorkingSetKib{"working_set_kib", Type::kInteger};
// unmeasured
inline constexpr Field kWhat{"what"};
inline constexpr Field kReason{"reason"};
// clang-format on
}  // namespace roofline_field

inline constexpr report::Part kRooflineSection{"roofline", "Machine"};
inline constexpr report::Part kPlateausTable{"plateaus", "Bandwidth by memory level (1 thread)"};
inline constexpr report::Part kThreadsTable{"threads", "DRAM bandwidth by threads (pinned)"};
inline constexpr report::Part kPeaksTable{"peaks", "Compute peaks"};
inline constexpr report::Part kSweepTable{"sweep", "Working-set sweep (1 thread)"};
inline constexpr report::Part kUnmeasuredTable{"unmeasured", "Not measurable here"};

namespace rf = roofline_field;
inline constexpr std::array kPlateauColumns = {rf::kLevel,    rf::kCacheKib, rf::kFromKib,
                                               rf::kToKib,    rf::kReadGbps, rf::kCopyGbps,
                                               rf::kTriadGbps};
inline constexpr std::array kThreadColumns = {rf::kThreads,  rf::kCpus,      rf::kReadGbps,
                                              rf::kCopyGbps, rf::kTriadGbps, rf::kTriadNtGbps};
inline constexpr std::array kPeakColumns = {rf::kDtype, rf::kUnit, rf::kInstruction, rf::kThreads,
                                            rf::kGflops};
inline constexpr std::array kSweepColumns = {rf::kWorkingSetKib, rf::kReadGbps, rf::kCopyGbps,
                                             rf::kTriadGbps};
inline constexpr std::array kUnmeasuredColumns = {rf::kWhat, rf::kReason};

/// `roofline`'s document.
const report::contract::Document& RooflineDocument();

/// Where the profile came from and what happened to it.
struct ProfileOrigin {
  std::string path;            ///< the stored (or replayed) file
  bool stored = false;         ///< this run wrote it
  std::string interrupted_by;  ///< the signal that stopped the measurements; empty: none
};

/// Adds `platform`'s `machine_profile` section (detect/machine_profile_fields.h) for `profile`,
/// stored at `path`.
void AddMachineProfileSection(const MachineProfile& profile, const std::string& path,
                              report::Report& report);

/// The report of `profile`, its findings and verdict included.
report::Report RooflineReport(const MachineProfile& profile, const ProfileOrigin& origin);

}  // namespace dlcheck::roofline
