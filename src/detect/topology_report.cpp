// SPDX-License-Identifier: Apache-2.0
#include "detect/topology_report.h"

#include <optional>
#include <string>

#include "common/finding_codes.h"

namespace dlcheck::detect {
namespace {

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = 1024 * 1024;

// Sizes hwloc does not know are 0 in the record; the report says null (unknown), not 0.
report::Value SizeIn(std::int64_t bytes, std::int64_t unit) {
  if (bytes <= 0) return report::Value();
  return report::Value(bytes / unit);
}

}  // namespace

report::contract::Member TopologyMember() {
  using namespace topology_field;
  using report::contract::Members;
  using report::contract::Rows;
  return report::contract::Object(
      kTopologySection,
      {kSource, kIsThisSystem, kPackages, kNumaNodes, kDies, kGroups, kCores, kPus, kSmtPerCore,
       kL3Instances, kMemoryMib, kAllowedPus, kAllowedCpuset, kAllowedDiffers, kCpuQuota,
       Rows(kCachesTable, Members(kCacheColumns)), Rows(kNumaTable, Members(kNumaColumns)),
       Rows(kCoreKindsTable, Members(kCoreKindColumns)), Rows(kCpusTable, Members(kCpuColumns))});
}

namespace {

// A count or index that hwloc may not know: null where it is `unknown`.
report::Value KnownOrNull(int value, int unknown = 0) {
  return value != unknown ? report::Value(value) : report::Value();
}

}  // namespace

void AddTopology(const Topology& topology, report::Report& report, bool show_cpus) {
  using namespace topology_field;
  report::Section& s = report.AddSection(kTopologySection);
  s.Add(kSource, topology.source)
      .Add(kIsThisSystem, topology.is_this_system)
      .Add(kPackages, topology.packages)
      .Add(kNumaNodes, topology.numa_nodes)
      // hwloc finds no Die object where the firmware or a hypervisor does not describe them: that
      // is unknown, not a machine without dies.
      .Add(kDies, topology.dies > 0 ? report::Value(topology.dies) : report::Value())
      .Add(kGroups, topology.groups)
      .Add(kCores, topology.cores)
      .Add(kPus, topology.pus)
      .Add(kSmtPerCore, topology.smt_per_core)
      .Add(kL3Instances, topology.l3_instances)
      .Add(kMemoryMib, SizeIn(topology.memory_bytes, kMiB))
      .Add(kAllowedPus, topology.allowed_pus)
      .Add(kAllowedCpuset, topology.allowed_cpuset)
      .Add(kAllowedDiffers, topology.allowed_differs)
      .Add(kCpuQuota, topology.cpu_quota ? report::Value(*topology.cpu_quota) : report::Value());

  report::Table& caches = s.AddTable(kCachesTable, kCacheColumns);
  for (const CacheInfo& c : topology.caches) {
    caches.AddRow()
        .Set(kLevel, c.level)
        .Set(kType, c.type)
        .Set(kSizeKib, SizeIn(c.size_bytes, kKiB))
        .Set(kInstances, c.instances)
        .Set(kCoresPerInstance, c.cores_per_instance)
        .Set(kPusPerInstance, c.pus_per_instance)
        .Set(kLineBytes, KnownOrNull(c.line_bytes))
        .Set(kWays, c.ways != 0 ? report::Value(c.ways) : report::Value());
  }

  report::Table& numa = s.AddTable(kNumaTable, kNumaColumns);
  for (const NumaNodeInfo& n : topology.numa) {
    numa.AddRow()
        .Set(kOsIndex, n.os_index)
        .Set(kMemoryMib, SizeIn(n.memory_bytes, kMiB))
        .Set(kCores, n.cores)
        .Set(kPus, n.pus);
  }

  report::Table& kinds = s.AddTable(kCoreKindsTable, kCoreKindColumns);
  for (const HwlocCpuKind& k : topology.cpu_kinds) {
    kinds.AddRow()
        .Set(kName, k.name)
        .Set(kEfficiency, k.efficiency)
        .Set(kCores, k.cores)
        .Set(kPus, k.pus)
        .Set(kInfos, k.infos);
  }

  // One row a PU: long on a big machine, so the human table shows it with --all (JSON always).
  report::Table& cpus = s.AddTable(kCpusTable, kCpuColumns);
  cpus.omit_in_table = !show_cpus;
  for (const PuPlace& p : topology.cpus) {
    cpus.AddRow()
        .Set(kCpu, static_cast<std::int64_t>(p.cpu))
        .Set(kCore, KnownOrNull(p.core, -1))
        .Set(kPackage, KnownOrNull(p.package, -1))
        .Set(kNode, KnownOrNull(p.node, -1))
        .Set(kL1d, KnownOrNull(p.l1d, -1))
        .Set(kL2, KnownOrNull(p.l2, -1))
        .Set(kL3, KnownOrNull(p.l3, -1))
        .Set(kAllowed, p.allowed);
  }

  report.findings.insert(report.findings.end(), topology.findings.begin(), topology.findings.end());
}

void AddRecordedAarch64Topology(const Aarch64Part& part, int logical_cpus, report::Report& report) {
  using namespace topology_field;
  const auto known = [](const std::optional<int>& v) {
    return v ? report::Value(*v) : report::Value();
  };
  std::optional<int> cores;
  if (part.packages && part.cores_per_package) cores = *part.packages * *part.cores_per_package;
  report.AddSection(kTopologySection)
      .Add(kSource, part.packages ? "the lscpu recording" : "the /proc/cpuinfo recording")
      .Add(kIsThisSystem, false)
      .Add(kPackages, known(part.packages))
      .Add(kCores, known(cores))
      .Add(kPus, logical_cpus)
      .Add(kSmtPerCore, known(part.threads_per_core));
  report.AddFinding(report::Severity::kInfo, codes::kNoTopology,
                    "the recording gives the logical CPUs" +
                        std::string(part.packages ? ", sockets, cores and threads" : "") +
                        " only: pass the machine's hwloc XML with --topology FILE for caches "
                        "and NUMA nodes");
}

}  // namespace dlcheck::detect
