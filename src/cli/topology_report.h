#pragma once
// The topology part of `dlcheck platform`'s report. In the human table it reads:
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

namespace dlcheck::cli {

/// Adds the section `topology` (counts, allowed CPUs, and the nested tables `caches`, `numa`
/// and `core_kinds`) to `report`, and a warning finding `restricted-cpus` when the process may
/// use fewer PUs than the machine has (an info finding for a recorded topology).
void AddTopology(const detect::Topology& topology, report::Report& report);

}  // namespace dlcheck::cli
