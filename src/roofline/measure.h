// SPDX-License-Identifier: Apache-2.0
#pragma once
// How `dlcheck roofline` measures: a plan (sizes, thread counts, sample lengths: pure, from the
// machine's caches and CPUs), then the measurements on threads pinned one per core, each figure
// the best of a few samples of a time-sized loop (STREAM's "best rate"). A stop asked between
// two measurements ends them with what was measured so far.
//
//   MeasurePlan plan = PlanMeasurements({.quick = true, .cpus = {0, 2}, .caches = caches});
//   Measured m = Measure(plan, detect::LiveUsableFeatures(), {.stop = [] { return false; }});
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "detect/cpu_features.h"
#include "roofline/machine_profile.h"

namespace dlcheck::roofline {

/// A data cache level as one thread sees it.
struct CacheSize {
  std::string level;       ///< "L1", "L2", "L3"
  std::int64_t bytes = 0;  ///< one instance
  int instances = 1;       ///< on the whole machine
};

/// What the plan is made from.
struct PlanInput {
  bool quick = false;
  std::vector<int> cpus;          ///< one CPU per core, in the order threads are added
  std::vector<CacheSize> caches;  ///< L1, L2, L3 (any may be missing)
  std::int64_t memory_bytes = 0;  ///< the machine's memory; 0: unknown
};

struct MeasurePlan {
  bool quick = false;
  std::vector<int> cpus;
  std::vector<CacheSize> caches;
  /// The DRAM working set: 8x all the L3 together (4x quick; at least 64 MiB, 32 MiB quick), a
  /// power of two, at most 1 GiB (256 MiB quick) and an eighth of the memory. (On this
  /// project's Zen 3 VM, read at 1 thread still fell 11 % from 2x to 4x its 32 MiB L3.)
  std::int64_t dram_bytes = 0;
  std::vector<std::int64_t> sweep_sizes;  ///< 4 KiB up to dram_bytes, x2 (x4 quick)
  std::vector<int> thread_counts;         ///< of the DRAM bandwidth: ThreadCounts(cpus)
  std::vector<int> peak_thread_counts;    ///< of the compute peaks: 1 and all
  double sample_seconds = 0;              ///< one timed sample
  int samples = 0;                        ///< per figure; the best is kept
};

/// 1..n for n up to 8, else 1, 2, 4, ... and n.
std::vector<int> ThreadCounts(int n);

/// The plan for `input` (pure).
MeasurePlan PlanMeasurements(const PlanInput& input);

/// The working set from which a point is DRAM's: 4x all the L3 together (or 4x the largest
/// cache), so that no cache holds a noticeable part of it.
std::int64_t DramFrom(const std::vector<CacheSize>& caches);

/// Where the one-thread read bandwidth stopped falling at the end of `sweep`: just above the
/// working set of the point before its last points (at least kFlatTailPoints) whose read figures
/// lie within kFlatTailSpread of each other, that point above them; 0 when they do not. On a
/// guest whose hypervisor reports the host's L3 (480 MiB), read fell to 11-13 GB/s at 64 MiB
/// and stayed there to 1 GiB.
std::int64_t FlatTailFrom(const std::vector<SweepPoint>& sweep);
inline constexpr int kFlatTailPoints = 3;        // a factor 4 of working set at least
inline constexpr double kFlatTailSpread = 1.25;  // largest / smallest

/// The plateaus of a one-thread `sweep`: for each cache level of `caches`, the median of the
/// points above the level before it and at most half its size; DRAM: the points from
/// DramFrom(caches), or, where the sweep did not reach that far (caches the CPU reports as
/// hundreds of MiB), from FlatTailFrom(sweep), below which the cache levels then end. A level
/// with no point has null figures.
std::vector<Plateau> PlateausOf(const std::vector<SweepPoint>& sweep,
                                const std::vector<CacheSize>& caches);

struct MeasureHooks {
  std::function<bool()> stop;                    ///< asked before each measurement
  std::function<void(const std::string&)> step;  ///< told each measurement's name
};

struct Measured {
  std::vector<SweepPoint> sweep;
  std::vector<ThreadBandwidth> threads;
  std::vector<ComputePeak> peaks;
  bool interrupted = false;  ///< the stop ended the measurements early
};

/// How many measurements Measure makes for `plan` (the progress's steps).
std::size_t StepCount(const MeasurePlan& plan, const detect::FeatureSet& usable);

/// Measures on this machine, with the kernels `usable` can run.
Measured Measure(const MeasurePlan& plan, const detect::FeatureSet& usable,
                 const MeasureHooks& hooks);

}  // namespace dlcheck::roofline
