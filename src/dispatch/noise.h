// SPDX-License-Identifier: Apache-2.0
#pragma once
// The noise guard of every measurement: the machine's load average at the start and end of a
// run, and the spread of repeated runs. A ranking ("A is 2x as fast as B") is made only when the
// runs of A and B do not overlap, that is when the difference exceeds the spread.
//
//   Spread a = SpreadOf({1.02, 0.98, 1.10}), b = SpreadOf({2.1, 2.0, 2.3});
//   if (Separated(a, b)) ...  // rank them; else: too noisy to rank
//   std::optional<LoadAverage> load = ReadLoadAverage();

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/finding.h"
#include "common/status.h"
#include "os/cpu_budget.h"

namespace dlcheck::dispatch {

/// Repeated measurements of one configuration.
struct Spread {
  std::size_t runs = 0;
  double median = 0;
  double min = 0;
  double max = 0;
  /// (max - min) / median: the spread relative to the median, 0 for a single run.
  double Relative() const { return median > 0 ? (max - min) / median : 0; }
};

/// The median, minimum and maximum of `values` (runs = 0 when empty).
Spread SpreadOf(std::vector<double> values);

/// True when both have at least two runs and their ranges [min, max] do not overlap: the
/// difference between them exceeds their spread, so they can be ranked.
bool Separated(const Spread& a, const Spread& b);

/// /proc/loadavg: runnable tasks averaged over 1, 5 and 15 minutes.
struct LoadAverage {
  double one = 0;
  double five = 0;
  double fifteen = 0;
};

/// The load average from `path`; nullopt when it cannot be read. An empty `path`: the file
/// DLCHECK_LOADAVG names (a test hook: a recorded busy machine), else Linux's /proc/loadavg.
std::optional<LoadAverage> ReadLoadAverage(const std::string& path = "");

/// The CPUs that were idle on average over the last minute: `cpus` minus the 1-minute load,
/// at least 1.
int IdleCpus(int cpus, const LoadAverage& load);

}  // namespace dlcheck::dispatch

namespace dlcheck::dispatch {

/// The OpenMP thread count of a measurement and why.
struct ThreadChoice {
  int threads = 0;     ///< for OMP_NUM_THREADS; 0: leave the inherited value alone
  std::string from;    ///< "--threads", "the idle cores: 3 of 4 at load 1.02", ...
  std::string capped;  ///< when a count beyond the machine was capped: what was asked, else ""
};

/// How ChooseThreads picks its default, in the words of the help and the man pages (a test
/// holds both to what runs report as threads_from).
inline constexpr std::string_view kThreadDefaultRule =
    "OMP_NUM_THREADS, else the cores idle over the last minute (all cores without a load "
    "average); at most the CPUs this process may use and its cgroup's CPU quota";

/// `asked` (--threads; 0: none), else OMP_NUM_THREADS from the environment, else the cores idle
/// over the last minute (IdleCpus; all `cores` without a load average), so that a busy machine
/// does not make the count collapse, within the CPU budget (os::ReadCpuBudget: the affinity mask
/// and the cgroup CPU quota), and `from` says when the budget set it. A count above the budget
/// or an OMP_NUM_THREADS that is not a positive count is replaced by the budget, and `capped`
/// says so.
ThreadChoice ChooseThreads(int asked, int cores, const os::CpuBudget& budget,
                           const std::optional<LoadAverage>& load);

/// ChooseThreads on this machine: its cores (detect's "all" thread set) and its CPU budget
/// (os::ReadCpuBudget); the one choice that verbose, profile and the sweep make.
StatusOr<ThreadChoice> ChooseLiveThreads(int asked, const std::optional<LoadAverage>& load);

/// What the noise guard says of a measurement: `threads-capped` (a count beyond the machine
/// was capped) and `busy-machine` (a 1-minute load average of 1 or more at the start or the end).
std::vector<Finding> NoiseFindings(const ThreadChoice& threads,
                                   const std::optional<LoadAverage>& load_start,
                                   const std::optional<LoadAverage>& load_end);

/// The frame every command puts around a live capture (verbose, profile, whatif, the sweep), in
/// one place: the threads chosen from the load average at the start, and the load average at
/// the end; the report's noise guard reads it.
///
///   StatusOr<CaptureFrame> frame = StartCaptureFrame(o.capture.threads);  // --threads or 0
///   settings.threads = frame->threads.threads;  ... capture ...  EndCaptureFrame(*frame);
struct CaptureFrame {
  ThreadChoice threads;
  std::optional<LoadAverage> load_start;
  std::optional<LoadAverage> load_end;
};
/// Reads the load average and chooses the threads (ChooseLiveThreads of `asked`).
StatusOr<CaptureFrame> StartCaptureFrame(int asked);
/// Reads the load average after the capture.
void EndCaptureFrame(CaptureFrame& frame);
/// NoiseFindings of the frame.
std::vector<Finding> NoiseFindings(const CaptureFrame& frame);

/// The OpenMP threads a program ran oneDNN on, and where the count was read.
struct ProgramThreads {
  int threads = 0;
  std::string from;  ///< "the log's nthr:", "OMP_NUM_THREADS", "OpenMP's default (...)"
};

/// The threads of a run whose log header says `log_threads` (nthr:, oneDNN 3.x), else the
/// OMP_NUM_THREADS of `environment_threads` (the program's; nullptr: not set), else OpenMP's
/// default: one per CPU of the affinity mask (`budget.affinity`). Nullopt when none applies
/// (`assume_default` false: a log from elsewhere, whose environment is not known).
std::optional<ProgramThreads> ThreadsOfProgram(std::optional<int> log_threads,
                                               const char* environment_threads,
                                               const os::CpuBudget& budget, bool assume_default);

/// `oversubscribed`: `threads` above the CPU budget: threads that wait for each other and for
/// the cgroup quota. `who` names the program ("the program", "the log's program"); `here` is
/// empty for a run on this machine, else how the budget relates to the log (" (if the log was
/// recorded on this machine)"): then only a count this machine's affinity mask holds is judged
/// (a log of more threads than this machine has CPUs was recorded elsewhere).
std::optional<Finding> OversubscribedFinding(const ProgramThreads& threads,
                                             const os::CpuBudget& budget, std::string_view who,
                                             std::string_view here);

}  // namespace dlcheck::dispatch
