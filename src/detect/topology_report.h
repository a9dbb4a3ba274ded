// SPDX-License-Identifier: Apache-2.0
#pragma once
// Topology -> Report: the topology part of `dlcheck platform`'s report. It lays out what
// detect/topology.h computed (no decisions here). In the human table it reads:
//
//   Topology
//     source          live
//     packages        1
//     cores           2
//     pus             2
//     allowed_cpuset  0-1
//     cpu_quota       0.5
//     Caches
//       level  type         size_kib  instances  cores_per_instance  pus_per_instance
//       1      data         48        2          1                   1
//       3      unified      32768     1          2                   2

#include <array>

#include "detect/platform.h"
#include "detect/topology.h"
#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"

namespace dlcheck::detect {

// The topology's words, declared once (the builder, the documents and `fleet` read them).
namespace topology_field {
using report::Field;
using report::Type;
// clang-format off
inline constexpr Field kSource{"source"};  ///< "live", or the hwloc XML replayed
inline constexpr Field kIsThisSystem{"is_this_system", Type::kBoolean};
inline constexpr Field kPackages{"packages", Type::kInteger};  ///< sockets
inline constexpr Field kNumaNodes{"numa_nodes", Type::kInteger};
inline constexpr Field kDies{"dies", Type::kInteger};
inline constexpr Field kGroups{"groups", Type::kInteger};
inline constexpr Field kCores{"cores", Type::kInteger};
inline constexpr Field kPus{"pus", Type::kInteger};
inline constexpr Field kSmtPerCore{"smt_per_core", Type::kInteger};
inline constexpr Field kL3Instances{"l3_instances", Type::kInteger};
inline constexpr Field kMemoryMib{"memory_mib", Type::kInteger};
inline constexpr Field kAllowedPus{"allowed_pus", Type::kInteger};
inline constexpr Field kAllowedCpuset{"allowed_cpuset"};
inline constexpr Field kAllowedDiffers{"allowed_differs", Type::kBoolean};
inline constexpr Field kCpuQuota{"cpu_quota", Type::kNumber};  ///< CPUs; null: no cgroup quota
// topology.caches
inline constexpr Field kLevel{"level", Type::kInteger};
inline constexpr Field kType{"type"};
inline constexpr Field kSizeKib{"size_kib", Type::kInteger};
inline constexpr Field kInstances{"instances", Type::kInteger};
inline constexpr Field kCoresPerInstance{"cores_per_instance", Type::kInteger};
inline constexpr Field kPusPerInstance{"pus_per_instance", Type::kInteger};
inline constexpr Field kLineBytes{"line_bytes", Type::kInteger};  ///< null: unknown
inline constexpr Field kWays{"ways", Type::kInteger};  ///< null: unknown; -1: fully associative
// topology.cpus (lscpu -e's map: null where the PU has no such ancestor)
inline constexpr Field kCpu{"cpu", Type::kInteger};
inline constexpr Field kCore{"core", Type::kInteger};
inline constexpr Field kPackage{"package", Type::kInteger};
inline constexpr Field kNode{"node", Type::kInteger};
inline constexpr Field kL1d{"l1d", Type::kInteger};
inline constexpr Field kL2{"l2", Type::kInteger};
inline constexpr Field kL3{"l3", Type::kInteger};
inline constexpr Field kAllowed{"allowed", Type::kBoolean};
// topology.numa
inline constexpr Field kOsIndex{"os_index", Type::kInteger};
// topology.core_kinds (hwloc's CPU kinds)
inline constexpr Field kName{"name"};
inline constexpr Field kEfficiency{"efficiency", Type::kInteger};
inline constexpr Field kInfos{"infos"};
// clang-format on
}  // namespace topology_field

inline constexpr report::Part kTopologySection{"topology", "Topology"};
inline constexpr report::Part kCachesTable{"caches", "Caches"};
inline constexpr report::Part kNumaTable{"numa", "NUMA nodes"};
inline constexpr report::Part kCoreKindsTable{"core_kinds", "Core kinds"};
inline constexpr report::Part kCpusTable{"cpus", "CPUs (lscpu -e: core, socket, node, caches)"};

inline constexpr std::array kCacheColumns = {topology_field::kLevel,
                                             topology_field::kType,
                                             topology_field::kSizeKib,
                                             topology_field::kInstances,
                                             topology_field::kCoresPerInstance,
                                             topology_field::kPusPerInstance,
                                             topology_field::kLineBytes,
                                             topology_field::kWays};
inline constexpr std::array kNumaColumns = {topology_field::kOsIndex, topology_field::kMemoryMib,
                                            topology_field::kCores, topology_field::kPus};
inline constexpr std::array kCpuColumns = {topology_field::kCpu,     topology_field::kCore,
                                           topology_field::kPackage, topology_field::kNode,
                                           topology_field::kL1d,     topology_field::kL2,
                                           topology_field::kL3,      topology_field::kAllowed};
inline constexpr std::array kCoreKindColumns = {topology_field::kName, topology_field::kEfficiency,
                                                topology_field::kCores, topology_field::kPus,
                                                topology_field::kInfos};

/// The `topology` member of a document (platform's).
report::contract::Member TopologyMember();

/// Adds the section `topology` (counts, allowed CPUs, and the nested tables `caches`, `numa`
/// and `core_kinds`) to `report`, and the topology's findings (TopologyFindings).
/// `show_cpus`: the per-PU map (`cpus`) in the human table too (`platform --all`); CSV, JSON
/// and xlsx always have it.
void AddTopology(const Topology& topology, report::Report& report, bool show_cpus = false);

/// Adds the section `topology` of an AArch64 recording (platform --cpuinfo-dump) as far as it
/// goes: its logical CPUs, and lscpu's sockets, cores and threads; hwloc's other counts and
/// tables stay null, and a finding says how to add them (--topology FILE).
void AddRecordedAarch64Topology(const Aarch64Part& part, int logical_cpus, report::Report& report);

}  // namespace dlcheck::detect
