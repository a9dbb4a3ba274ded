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

#include "fleet/fleet.h"
#include "report/report.h"

namespace dlcheck::fleet {

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
