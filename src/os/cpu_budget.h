// SPDX-License-Identifier: Apache-2.0
#pragma once
// The CPUs dlcheck may use: its affinity mask (the cpuset) and the CPU quota of its cgroup, the
// smallest on the way from its own cgroup up to the hierarchy's mount point, in cgroup v1
// (cpu.cfs_quota_us / cpu.cfs_period_us) and v2 (cpu.max). OpenMP and oneDNN see only the
// affinity mask: two CPUs under a quota of half a CPU start two threads that wait for each other.
//
//   os::CpuBudget budget = os::ReadCpuBudget();
//   int threads = budget.cpus;  // min(affinity, ceil(quota)), at least 1
//   if (budget.quota) std::cout << budget.quota->cpus << " CPUs, from " << budget.quota->file;

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck::os {

/// A cgroup CPU quota: the CPU time its cgroup may use per period, in CPUs.
struct CpuQuota {
  double cpus = 0;   ///< quota / period: 0.5 is half a CPU
  std::string file;  ///< the file it was read from, as this process sees it
};

/// The CPUs of a v2 `cpu.max` ("$MAX $PERIOD", in microseconds); nullopt for "max ..." (no
/// limit) or text that is not that.
std::optional<double> ParseCpuMax(std::string_view text);

/// The CPUs of a v1 `cpu.cfs_quota_us` over `cpu.cfs_period_us`; nullopt for a quota of -1 (no
/// limit) or text that is not a count.
std::optional<double> ParseCfsQuota(std::string_view quota, std::string_view period);

/// A cgroup hierarchy that holds this process's CPU limits.
struct CpuCgroup {
  std::string directory;    ///< the process's own cgroup, as a path of this file system
  std::string mount_point;  ///< where the hierarchy is mounted: the highest level visible
  bool v2 = false;          ///< cgroup v2 (cpu.max); else v1 with the cpu controller
};

/// The hierarchies to read, from the text of /proc/self/cgroup and /proc/self/mountinfo: the v1
/// hierarchy that has the `cpu` controller and the v2 hierarchy, each where it is mounted. A
/// hierarchy that is not mounted is left out; a cgroup path outside the mount's root (another
/// cgroup namespace) is read at the mount point.
std::vector<CpuCgroup> FindCpuCgroups(std::string_view proc_self_cgroup,
                                      std::string_view mountinfo);

/// The smallest quota of every level of this process's CPU hierarchies, from its own cgroup up
/// to the mount point; nullopt when no level has one. The files are read below `root` ("": this
/// machine; a folder: a recorded layout, see tests/data/cgroup), and `file` names them without it.
std::optional<CpuQuota> ReadCpuQuota(const std::string& root = "");

/// The CPUs this process may use and why.
struct CpuBudget {
  int affinity = 1;               ///< CPUs in its affinity mask (sched_getaffinity), at least 1
  std::optional<CpuQuota> quota;  ///< its cgroup's CPU quota, if any
  int cpus = 1;                   ///< min(affinity, ceil(quota)), at least 1
  /// True when the quota, not the affinity mask, sets `cpus`.
  bool QuotaBinds() const { return quota && cpus < affinity; }
  /// "1 CPU (a cgroup CPU quota of 0.50 CPU; 2 in the affinity mask)", or "2 CPUs".
  std::string Text() const;
};

/// The budget of `affinity` CPUs under `quota`.
CpuBudget BudgetOf(int affinity, std::optional<CpuQuota> quota);

/// This process's budget: its affinity mask and ReadCpuQuota().
CpuBudget ReadCpuBudget();

/// The CPUs dlcheck may use, ReadCpuBudget().cpus: the one count every thread default starts
/// from.
int UsableCpus();

}  // namespace dlcheck::os
