#include "detect/topology_report.h"

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

void AddTopology(const Topology& topology, report::Report& report) {
  report::Section& s = report.AddSection("topology", "Topology");
  s.Add("source", topology.source)
      .Add("is_this_system", topology.is_this_system)
      .Add("packages", topology.packages)
      .Add("numa_nodes", topology.numa_nodes)
      .Add("dies", topology.dies)
      .Add("groups", topology.groups)
      .Add("cores", topology.cores)
      .Add("pus", topology.pus)
      .Add("smt_per_core", topology.smt_per_core)
      .Add("l3_instances", topology.l3_instances)
      .Add("memory_mib", SizeIn(topology.memory_bytes, kMiB))
      .Add("allowed_pus", topology.allowed_pus)
      .Add("allowed_cpuset", topology.allowed_cpuset)
      .Add("allowed_differs", topology.allowed_differs);

  report::Table& caches = s.AddTable(
      "caches",
      {"level", "type", "size_kib", "instances", "cores_per_instance", "pus_per_instance"},
      "Caches");
  for (const CacheInfo& c : topology.caches) {
    caches.rows.push_back({c.level, c.type, SizeIn(c.size_bytes, kKiB), c.instances,
                           c.cores_per_instance, c.pus_per_instance});
  }

  report::Table& numa =
      s.AddTable("numa", {"os_index", "memory_mib", "cores", "pus"}, "NUMA nodes");
  for (const NumaNodeInfo& n : topology.numa) {
    numa.rows.push_back({n.os_index, SizeIn(n.memory_bytes, kMiB), n.cores, n.pus});
  }

  report::Table& kinds =
      s.AddTable("core_kinds", {"name", "efficiency", "cores", "pus", "infos"}, "Core kinds");
  for (const HwlocCpuKind& k : topology.cpu_kinds) {
    kinds.rows.push_back({k.name, k.efficiency, k.cores, k.pus, k.infos});
  }

  report.findings.insert(report.findings.end(), topology.findings.begin(), topology.findings.end());
}

}  // namespace dlcheck::detect
