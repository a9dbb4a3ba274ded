// SPDX-License-Identifier: Apache-2.0
#pragma once
// A Fleet as a report: the `fleet` section (counts), the `groups` table (the one CSV prints),
// `outliers`, `skipped` and `versions`. Hosts are in Slurm's compressed hostlist form.
//
//   Fleet
//     reports  12   hosts  11   groups  2   skipped  1
//   Groups
//     group  hosts  hostlist      onednn_isa        topology                 status  lacks
//     1      9      node[1-9]     avx512_core_bf16  1 socket, 1 NUMA, ...    OK
//     2      2      node[10-11]   avx2              1 socket, 1 NUMA, ...    OK      avx512f ...

#include <array>

#include "fleet/fleet.h"
#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"

namespace dlcheck::fleet {

// The fleet's words, declared once.
namespace fleet_field {
using report::Field;
using report::Type;
// clang-format off
// fleet: the counts
inline constexpr Field kReports{"reports", Type::kInteger};
inline constexpr Field kHosts{"hosts", Type::kInteger};
inline constexpr Field kGroups{"groups", Type::kInteger};
inline constexpr Field kSkipped{"skipped", Type::kInteger};
inline constexpr Field kVersions{"versions", Type::kInteger};
// groups
inline constexpr Field kGroup{"group", Type::kInteger};
inline constexpr Field kHostlist{"hostlist"};
inline constexpr Field kBest{"best", Type::kBoolean};
inline constexpr Field kCpu = report::IdentityColumn("cpu");
inline constexpr Field kMicroarchitecture = report::IdentityColumn("microarchitecture");
inline constexpr Field kOnednnIsa = report::IdentityColumn("onednn_isa");
inline constexpr Field kSockets{"sockets", Type::kInteger};
inline constexpr Field kNumaNodes{"numa_nodes", Type::kInteger};
inline constexpr Field kCores{"cores", Type::kInteger};
inline constexpr Field kPus{"pus", Type::kInteger};
inline constexpr Field kStatus{"status"};
inline constexpr Field kLacks{"lacks", Type::kText, report::Arity::kList};
inline constexpr Field kFeatures{"features", Type::kText, report::Arity::kList};
inline constexpr Field kHidden{"hidden", Type::kText, report::Arity::kList};
// outliers, skipped, versions
inline constexpr Field kHost{"host"};
inline constexpr Field kProblem{"problem"};
inline constexpr Field kFile{"file"};
inline constexpr Field kReason{"reason"};
inline constexpr Field kDlcheckVersion{"dlcheck_version"};
// clang-format on
}  // namespace fleet_field

inline constexpr report::Part kFleetSection{"fleet", "Fleet"};
inline constexpr report::Part kGroupsTable{
    "groups", "Groups (by usable features, oneDNN ISA, topology, status)"};
inline constexpr report::Part kOutliersTable{"outliers", "Outliers"};
inline constexpr report::Part kSkippedTable{"skipped", "Skipped reports"};
inline constexpr report::Part kVersionsTable{"versions", "dlcheck versions"};
inline constexpr report::Part kHostsTable{"hosts", "Hosts (each host and its group)"};

inline constexpr std::array kGroupColumns = {
    fleet_field::kGroup,     fleet_field::kHosts,    fleet_field::kHostlist,
    fleet_field::kBest,      fleet_field::kCpu,      fleet_field::kMicroarchitecture,
    fleet_field::kOnednnIsa, fleet_field::kSockets,  fleet_field::kNumaNodes,
    fleet_field::kCores,     fleet_field::kPus,      fleet_field::kStatus,
    fleet_field::kLacks,     fleet_field::kFeatures, fleet_field::kHidden};
inline constexpr std::array kOutlierColumns = {fleet_field::kHost, fleet_field::kProblem};
inline constexpr std::array kSkippedColumns = {fleet_field::kFile, fleet_field::kReason};
inline constexpr std::array kVersionColumns = {fleet_field::kDlcheckVersion, fleet_field::kHosts,
                                               fleet_field::kHostlist};
/// One row per host used, by host: which group it fell into and what its report says.
inline constexpr std::array kHostColumns = {fleet_field::kHost,
                                            fleet_field::kGroup,
                                            fleet_field::kCpu,
                                            fleet_field::kMicroarchitecture,
                                            fleet_field::kOnednnIsa,
                                            fleet_field::kStatus,
                                            fleet_field::kDlcheckVersion,
                                            fleet_field::kFile};

/// `fleet`'s document.
const report::contract::Document& FleetDocument();

/// The fleet's verdict: "12 hosts in 3 groups of what the nodes can do (the largest: 8 on
/// oneDNN avx512_core_amx), 1 outlier(s)".
std::string FleetVerdict(const Fleet& fleet);

report::Report FleetReport(const Fleet& fleet);

/// One slurm.conf node line per group (`check --emit slurm-conf`'s shape, NodeName a compressed
/// hostlist, RealMemory the least of the group's hwloc memory), largest group first, and the
/// groups left out (a host name that is no valid node name) with why.
struct SlurmConfLines {
  std::string lines;
  std::vector<std::string> left_out;
};
SlurmConfLines FleetSlurmConf(const Fleet& fleet);

}  // namespace dlcheck::fleet
