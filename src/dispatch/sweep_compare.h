// SPDX-License-Identifier: Apache-2.0
#pragma once
// The sweep's comparison, worked out once from its runs: per primitive key the cells under each
// configuration, the fastest cap and its speedups; per configuration samples/s, its speedups, a
// thread set's efficiency, the cap's peak and each row's fraction of it. `dispatch`'s tables lay
// it out (cli/dispatch_report.cpp) and the findings rank from it (sweep_findings.h); the
// arithmetic is tested here (tests/dispatch/sweep_compare_test.cpp, on constructed runs).
//
//   const SweepComparison c = CompareSweep(runs, traced_steps);
//   for (const PrimitiveKey& k : c.keys) {
//     const KeyComparison& key = c.by_key.at(k);
//     if (key.fastest) ... c.configs[*key.fastest].config.Name() ... key.speedup_vs_scalar
//   }

#include <cstddef>
#include <map>
#include <optional>
#include <vector>

#include "dispatch/noise.h"
#include "dispatch/sweep.h"

namespace dlcheck::dispatch {

/// Which of the configurations ran a primitive fastest: the one with the lowest median, only
/// when its runs do not overlap any other's (nullopt otherwise, or when none ran it). A
/// configuration without the primitive is nullopt in `spreads`.
std::optional<std::size_t> SeparatedFastest(const std::vector<std::optional<Spread>>& spreads);

/// A model run's samples/s as a spread over the chunks of its timed steps (runs 0 when it
/// measured none, 1 without chunks).
Spread SamplesSpreadOf(const ConfigRuns& r);

/// A key under one configuration.
struct KeyCell {
  SweepCell cell;  ///< its time in each run, the implementation of its largest row
  double ms = 0;   ///< the median of the runs, per step (the model's traced steps) or per run
  /// The scalar kernels' median over this one's; nullopt without a scalar run of the key.
  std::optional<double> speedup_vs_scalar;
  /// The lowest cap's median over this one's; nullopt for the scalar run, or when the lowest cap
  /// did not execute the key.
  std::optional<double> speedup_vs_lowest;
};

/// One primitive key across the configurations.
struct KeyComparison {
  /// Per configuration (as SweepComparison::configs): nullopt where it did not execute the key
  /// (a cap that failed has no rows), and for a thread set (compared by samples/s alone).
  std::vector<std::optional<KeyCell>> cells;
  /// The fastest cap (an index into configs), among the caps whose runs all succeeded. The model's
  /// one run per cap is named by its time alone, the first of equal times; a program's repeated
  /// runs name a cap only when they do not overlap any other cap's (SeparatedFastest), so equal or
  /// overlapping caps name none.
  std::optional<std::size_t> fastest;
  /// The other caps that tie with `fastest` (indices into configs, lowest first): they ran the
  /// same kernel (the same implementation, where its name says the ISA or it is reference code:
  /// their difference is noise, not the cap's doing). Empty when `fastest` stands alone.
  std::vector<std::size_t> tied;
  std::optional<double> speedup_vs_scalar;  ///< the fastest cap's (KeyCell)
  std::optional<double> speedup_vs_lowest;  ///< the fastest cap's (KeyCell)
  std::optional<double> scalar_ms;          ///< the scalar run's ms (KeyCell), where it ran
};

/// A row of a configuration's first run, as the long form compares it.
struct RowComparison {
  double ms = 0;  ///< its executions' time, per step (the model's) or per run
  std::optional<double> speedup_vs_scalar;  ///< its key's under this configuration (KeyCell)
  std::optional<double> speedup_vs_lowest;  ///< its key's under this configuration (KeyCell)
  /// Its GFLOP/s over the cap's peak (peak_gflops) times the threads that ran it; nullopt
  /// without either.
  std::optional<double> peak_fraction;
};

/// One configuration across the sweep.
struct ConfigComparison {
  SweepConfig config;
  int threads = 1;  ///< the threads it ran (ThreadsOf)
  /// Every run ended well (ConfigRuns::Succeeded): else it is never fastest nor ranked.
  bool succeeded = true;
  double exec_ms = 0;      ///< the median of its runs' execution time (ms; the log's summary)
  double exec_ms_min = 0;  ///< the least of its runs' execution time
  double exec_ms_max = 0;  ///< the most of its runs' execution time
  std::optional<double> samples_per_s;  ///< the model's; nullopt for a program
  Spread samples;                       ///< samples/s over the timed chunks (SamplesSpreadOf)
  /// samples/s over the scalar run's (a cap, the scalar run itself); nullopt for a thread set.
  std::optional<double> speedup_vs_scalar;
  /// samples/s over the lowest cap's (a cap); nullopt for the scalar run and a thread set.
  std::optional<double> speedup_vs_lowest;
  /// A thread set's samples/s over the first set's.
  std::optional<double> speedup_vs_first_set;
  /// A thread set's speedup per thread asked: speedup_vs_first_set x the first set's threads /
  /// its own; nullopt where it asked for none.
  std::optional<double> efficiency;
  std::optional<double> peak_gflops;  ///< the cap's measured FMA peak (PeakOf)
  std::vector<RowComparison> rows;    ///< one per row of its first run, in order
};

/// What a sweep compares: its configurations and the primitives they ran.
struct SweepComparison {
  bool model = false;  ///< dlcheck's model (else a program): how `fastest` is chosen
  std::vector<ConfigComparison> configs;  ///< one per ConfigRuns, in run order
  std::vector<std::size_t> caps;          ///< the indices of the caps, lowest first
  std::optional<std::size_t> scalar;      ///< the index of the scalar run
  std::vector<std::size_t> thread_sets;   ///< the indices of the thread sets, in run order
  /// The keys the caps and the scalar run executed, in first-seen order (the caps' first).
  std::vector<PrimitiveKey> keys;
  std::map<PrimitiveKey, KeyComparison> by_key;  ///< one per key of `keys`

  /// The caps whose runs all succeeded (indices into configs), lowest first: the ones a
  /// ranking compares.
  std::vector<std::size_t> RankedCaps() const;
  /// The thread sets whose runs all succeeded, in run order.
  std::vector<std::size_t> RankedThreadSets() const;

  /// The lowest cap's index; nullopt without a cap.
  std::optional<std::size_t> lowest() const {
    return caps.empty() ? std::nullopt : std::optional<std::size_t>(caps.front());
  }
};

/// The comparison of `runs` (a sweep's, in run order); `traced_steps` (the model's; at least 1)
/// turns a run's totals into ms per step.
SweepComparison CompareSweep(const std::vector<ConfigRuns>& runs, int traced_steps = 1);

}  // namespace dlcheck::dispatch
