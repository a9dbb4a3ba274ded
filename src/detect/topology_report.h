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
//     Caches
//       level  type         size_kib  instances  cores_per_instance  pus_per_instance
//       1      data         48        2          1                   1
//       3      unified      32768     1          2                   2

#include "detect/topology.h"
#include "report/report.h"

namespace dlcheck::detect {

/// Adds the section `topology` (counts, allowed CPUs, and the nested tables `caches`, `numa`
/// and `core_kinds`) to `report`, and the topology's findings (TopologyFindings).
void AddTopology(const Topology& topology, report::Report& report);

}  // namespace dlcheck::detect
