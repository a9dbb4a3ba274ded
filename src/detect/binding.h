// SPDX-License-Identifier: Apache-2.0
#pragma once
// Thread sets and CPU binding from the live topology (hwloc), for sweeps over thread counts:
// one thread per core, on the cores of one socket or of the whole machine (only the CPUs this
// process may use), never the naive `0..N-1` that lands two threads on one core's SMT siblings
// or straddles sockets.
//
//   StatusOr<std::vector<ThreadSet>> sets = LiveThreadSets({"1", "socket", "all"});
//   // in the worker, before oneDNN and OpenMP start their threads:
//   Status bound = BindProcess((*sets)[1].cpuset);

#include <string>
#include <vector>

#include "common/status.h"

namespace dlcheck::detect {

/// The CPUs of one run: one PU (the first allowed) of each chosen core.
struct ThreadSet {
  std::string name;       ///< as asked: "1", "socket", "all" or a count such as "4"
  int threads = 0;        ///< the number of cores (and OpenMP threads)
  std::string cpuset;     ///< hwloc list syntax, e.g. "0,2,4,6"
  std::vector<int> cpus;  ///< the same CPUs as numbers (for sched_setaffinity)
};

/// Thread sets of this machine, one per spec: "1" (one core), "socket" (every allowed core of
/// the first socket that has one), "all" (every allowed core) or a count N (the first N allowed
/// cores, socket by socket). A spec that is none of these, or a count above the allowed cores,
/// is a UsageError.
StatusOr<std::vector<ThreadSet>> LiveThreadSets(const std::vector<std::string>& specs);

/// Binds the whole process (all its threads, present and future) to `cpuset` (hwloc list
/// syntax). InputError when the list is malformed or the kernel refuses.
Status BindProcess(const std::string& cpuset);

}  // namespace dlcheck::detect
