// SPDX-License-Identifier: Apache-2.0
#pragma once
// The machine's topology as hwloc sees it: packages, NUMA nodes, cores, PUs, caches, core kinds
// (hybrid P/E cores) and the PUs this process may use. Read live, or replayed from an hwloc XML
// file recorded elsewhere (`lstopo --of xml`, or `dlcheck platform --save-raw`).
//
//   StatusOr<Topology> topo = path.empty() ? LoadLiveTopology() : LoadTopologyXml(path);
//   if (!topo.ok()) return topo.status();
//   std::cout << topo->packages << " sockets, " << topo->cores << " cores\n";

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/finding.h"
#include "common/status.h"

namespace dlcheck::detect {

/// One kind of cache: every instance with the same level, type and size. A homogeneous machine
/// has one entry per level and type; a hybrid one (P-core L2 1.25 MiB, E-core cluster L2 2 MiB)
/// has one per distinct size.
struct CacheInfo {
  int level = 0;                ///< 1, 2, 3, 4; memory-side caches: their hwloc depth (usually 1)
  std::string type;             ///< "data", "instruction", "unified" or "memory-side"
  std::int64_t size_bytes = 0;  ///< of one instance; 0 when unknown
  int instances = 0;            ///< how many caches of this kind the machine has
  int cores_per_instance = 0;   ///< cores under one instance (the largest, if they differ)
  int pus_per_instance = 0;     ///< PUs (hardware threads) under one instance (the largest)
  int line_bytes = 0;  ///< cache line size (lscpu -C's ONE-SIZE... COHERENCY-SIZE); 0: unknown
  int ways = 0;        ///< associativity; 0: unknown, -1: fully associative
};

/// One PU (hardware thread) where it sits, as `lscpu -e` maps it: its core, package, NUMA node
/// and the caches it shares (their logical indexes at each level; -1 where it has none there).
struct PuPlace {
  unsigned cpu = 0;     ///< the OS's CPU number
  int core = -1;        ///< hwloc's logical core index
  int package = -1;     ///< the package's OS index (socket)
  int node = -1;        ///< the NUMA node's OS index
  int l1d = -1;         ///< the L1 data cache's logical index
  int l2 = -1;          ///< the L2's
  int l3 = -1;          ///< the L3's
  bool allowed = true;  ///< this process may run on it (the allowed cpuset)
};

/// One NUMA node (memory domain).
struct NumaNodeInfo {
  unsigned os_index = 0;          ///< the OS's node number
  std::int64_t memory_bytes = 0;  ///< local memory; 0 when unknown (CPUID-derived topologies)
  int pus = 0;                    ///< PUs local to this node
  int cores = 0;                  ///< cores wholly local to this node
};

/// One kind of core on a hybrid machine, as hwloc ranks its CPU kinds (lowest efficiency first).
/// CPUID's view of the same cores is CpuidCoreType (platform.h).
struct HwlocCpuKind {
  std::string name;     ///< hwloc's CoreType ("IntelCore", "IntelAtom", ...), else "kind<N>"
  std::string infos;    ///< every hwloc info of the kind, "Name=value" joined by spaces
  int efficiency = -1;  ///< hwloc's rank: 0 = most power-efficient; -1 when hwloc cannot rank
  int cores = 0;
  int pus = 0;
};

/// Everything dlcheck reports about the topology. Counts cover the whole machine, including
/// PUs this process is not allowed to use.
struct Topology {
  std::string source;           ///< "live", or the XML file's path
  bool is_this_system = false;  ///< hwloc describes the machine dlcheck runs on (false for XML)
  int packages = 0;             ///< sockets
  int numa_nodes = 0;
  int dies = 0;    ///< hwloc Die objects (AMD CCDs, multi-die packages); 0 when none
  int groups = 0;  ///< hwloc Group objects (sub-NUMA clusters, Cluster-on-Die, ...)
  int cores = 0;
  int pus = 0;                     ///< processing units: hardware threads
  int smt_per_core = 0;            ///< max PUs per core
  std::int64_t memory_bytes = 0;   ///< total NUMA memory; 0 when unknown
  int l3_instances = 0;            ///< number of L3 caches (CCXs on AMD); 0 when there is no L3
  std::vector<NumaNodeInfo> numa;  ///< sorted by os_index
  /// Sorted by level, then type (data, instruction, unified, memory-side), then size.
  std::vector<CacheInfo> caches;
  std::vector<HwlocCpuKind> cpu_kinds;  ///< empty when hwloc knows no kinds, or only one
  std::vector<PuPlace> cpus;            ///< every PU, by OS number (lscpu -e's map)
  /// PUs this process may use: the cgroup cpuset intersected with its CPU affinity. For an XML
  /// file, what the recording process was allowed (the file's allowed_cpuset).
  int allowed_pus = 0;
  std::string allowed_cpuset;    ///< hwloc list syntax, e.g. "0-3,8"
  bool allowed_differs = false;  ///< allowed_pus != pus
  /// The cgroup CPU quota of this process, in CPUs (os::ReadCpuQuota: the smallest of its cgroup
  /// and the cgroups above it); nullopt with no quota, and for an XML file (not recorded there).
  std::optional<double> cpu_quota;
  std::string cpu_quota_file;     ///< the cgroup file the quota was read from
  std::vector<Finding> findings;  ///< TopologyFindings(*this), filled by the loaders
};

/// What the counts mean for someone who runs benchmarks here: `restricted-cpus` when the process
/// may use fewer PUs than the machine has (a warning live, info for a recorded topology, where
/// the limits applied to the process that recorded it); `cpu-quota` when its cgroup's CPU quota
/// is below the PUs it may use.
std::vector<Finding> TopologyFindings(const Topology& topology);

/// The topology of the machine this process runs on (whole system, disallowed PUs included).
StatusOr<Topology> LoadLiveTopology();

/// A topology recorded in an hwloc XML file (version 1 or 2). A missing or unreadable file, a
/// file that is not an hwloc topology, or one written by hwloc 3.x (XML version 3, which hwloc
/// 2.x cannot read) is an InputError with a one-line message that says what to do.
StatusOr<Topology> LoadTopologyXml(const std::string& path);

/// Writes the live topology (CPUs, memory and caches; no I/O devices) as hwloc XML, loadable by
/// LoadTopologyXml and by `lstopo --input`, without following a symlink at `path`
/// (WriteFileReplacing). A file that cannot be written is an OutputFileError.
Status SaveLiveTopologyXml(const std::string& path);

}  // namespace dlcheck::detect
