// SPDX-License-Identifier: Apache-2.0
#pragma once
// Host names in Slurm's compressed hostlist form, as `scontrol show hostlist` and `dshbak -c`
// print them: names that differ only in a trailing number share one bracket of ranges.
//
//   CompressHostlist({"node1", "node2", "node3", "node7", "login"})   "login,node[1-3,7]"
//   CompressHostlist({"n01", "n02", "n10"})                            "n[01-02,10]"

#include <string>
#include <vector>

namespace dlcheck::fleet {

/// The names compressed: grouped by prefix (the name less its trailing digits) and digit width
/// (so zero padding is kept), runs of consecutive numbers as `a-b`, groups in name order,
/// duplicates once. A name with no trailing number stands alone.
std::string CompressHostlist(std::vector<std::string> names);

}  // namespace dlcheck::fleet
