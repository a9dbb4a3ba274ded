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
#include <vector>

#include "common/finding.h"

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

/// `asked` (--threads; 0: none), else OMP_NUM_THREADS from the environment, else the cores idle
/// over the last minute (IdleCpus; all `cores` without a load average), so that a busy machine
/// does not make the count collapse. A count above `cpus` (the CPUs this process may use) or an
/// OMP_NUM_THREADS that is not a positive count is replaced by `cpus`, and `capped` says so.
ThreadChoice ChooseThreads(int asked, int cores, int cpus, const std::optional<LoadAverage>& load);

/// The CPUs this process may run on (its affinity mask), at least 1.
int AllowedCpus();

/// What the noise guard says of a measurement: `threads-capped` (a count beyond the machine
/// was capped) and `busy-machine` (a 1-minute load average of 1 or more at the start or the end).
std::vector<Finding> NoiseFindings(const ThreadChoice& threads,
                                   const std::optional<LoadAverage>& load_start,
                                   const std::optional<LoadAverage>& load_end);

}  // namespace dlcheck::dispatch
