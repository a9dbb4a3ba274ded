// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a running program holds around oneDNN, read from /proc while it runs: the libraries it
// mapped, by role (common/library_kinds.h: OpenMP runtimes, BLAS, allocators, oneDNN, other
// engines, frameworks), and its threads (how many, how many runnable at once), sampled in the
// program and every process it started. The findings say what costs time, in plain words with
// the remedy: two OpenMP runtimes, two copies of oneDNN, the reference BLAS, more runnable
// threads than the CPUs they may run on (pinned together, or more than the host has).
//
//   ProcessAuditor auditor;
//   while (running) auditor.Sample(pid);             // every 0.2 s (kAuditInterval)
//   ProcessAudit audit = auditor.Result();
//   std::vector<Finding> findings = AuditFindings(audit, /*host_cpus=*/2);

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/finding.h"
#include "common/library_kinds.h"

namespace dlcheck::dispatch {

/// How often a running program is sampled, after a first sample at kAuditFirstSample.
inline constexpr double kAuditIntervalS = 0.2;
inline constexpr double kAuditFirstSampleS = 0.05;

/// The files of a /proc/PID/maps text that hold executable code (`x` in the permissions, a path
/// that starts with `/`; " (deleted)" left out), each once, in the order they first appear.
std::vector<std::string> ExecutableMappings(std::string_view maps);

/// One line of /proc/PID/task/TID/stat (or /proc/PID/stat): the state letter ('R' running or
/// runnable), the CPU time used (user and system, in clock ticks), the size of the address space
/// and the CPU it last ran on. nullopt for text that
/// is not such a line. The command name, in parentheses, may hold spaces and parentheses.
struct TaskStat {
  char state = '?';
  unsigned long long cpu_ticks = 0;
  unsigned long long vsize = 0;  ///< the size of its address space, in bytes
  int processor = -1;
};
std::optional<TaskStat> ParseTaskStat(std::string_view line);

/// A library the program mapped, and what it is.
struct MappedLibrary {
  std::string path;
  lib::LibraryKind kind;
};

/// What the samples saw.
struct ProcessAudit {
  int samples = 0;
  int processes_max = 0;  ///< the program and the processes it started, at once
  int threads_max = 0;    ///< their threads, at once
  int runnable_max = 0;   ///< of those, running or waiting for a CPU ('R'), at once
  /// Samples in which more threads were runnable than the CPUs their affinity allows together.
  int crowded_samples = 0;
  int crowded_runnable = 0;           ///< the most crowded sample: its runnable threads,
  int crowded_cpus = 0;               ///< the CPUs they were allowed,
  std::vector<int> crowded_cpu_list;  ///< and which
  int usable_cpus = 0;  ///< the program's affinity (its first process), at the last sample
  /// The known ones (library_kinds.h), in role order, then by name and path.
  std::vector<MappedLibrary> libraries;

  /// The libraries of `role`, in the order they were seen.
  std::vector<const MappedLibrary*> Of(lib::Role role) const;
};

/// Samples a running program through /proc (`proc_root`: "/proc"; a test passes a copy).
class ProcessAuditor {
 public:
  explicit ProcessAuditor(std::string proc_root = "/proc") : proc_root_(std::move(proc_root)) {}
  /// One sample of `pid` and its descendants: their mappings, threads and states. A process that
  /// ended meanwhile is passed over.
  void Sample(int pid);
  ProcessAudit Result() const;

 private:
  std::vector<int> Descendants(int pid) const;
  void SampleProcess(int pid, int& threads, int& runnable, std::set<int>& runnable_cpus);

  std::string proc_root_;
  ProcessAudit audit_;
  /// pid -> the size of its address space when its mappings were last read.
  std::map<int, unsigned long long> maps_read_at_vsize_;
  std::set<std::string> seen_files_;
  std::vector<std::string> files_;
};

/// A ProcessAuditor sampled at its pace (kAuditFirstSampleS after the first call, then every
/// kAuditIntervalS) from a hook called often while the program runs (os::Spec::while_running).
class AuditSampler {
 public:
  /// The hook: calls Tick. The sampler must outlive the run.
  std::function<void(int pid)> Hook();
  void Tick(int pid);
  ProcessAudit Result() const { return auditor_.Result(); }

 private:
  ProcessAuditor auditor_;
  std::optional<std::chrono::steady_clock::time_point> next_;
};

/// The findings of an audit: `two-openmp-runtimes`, `two-onednn-copies`, `reference-blas`
/// (warnings); where more threads were runnable than the CPUs their affinity allows in at least
/// half of the samples (3 at least), `threads-share-a-core` when those CPUs are fewer than the
/// host's `host_cpus` (an affinity pins them together), else `pools-oversubscribed`.
std::vector<Finding> AuditFindings(const ProcessAudit& audit, int host_cpus);

/// "GNU OpenMP (libgomp.so.1)": a library's name and file, for the report.
std::string LibraryText(const MappedLibrary& library);

}  // namespace dlcheck::dispatch
