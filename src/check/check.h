// SPDX-License-Identifier: Apache-2.0
#pragma once
// The provisioning check (`dlcheck check`) as a library: requirements, the evidence gathered on a
// node (platform, probes, topology, a short model run), the items they give (OK, WARNING,
// CRITICAL, UNKNOWN) and the one-line summary with its perfdata, in the monitoring-plugin
// convention. The CLI gathers live evidence; a Slurm health check, a Prometheus exporter or a
// test can evaluate any evidence, recorded or constructed, without it.
//
//   StatusOr<Requirements> req = ParseRequirements({"avx512bw", "avx2"}, 0, 0, "", false);
//   Evidence evidence{.platform = info, .probes = probes, .topology = topology, .run = run};
//   CheckResult result = Evaluate(*req, evidence);
//   result.state;     // State::kOk ... State::kUnknown, the exit status
//   result.summary;   // "AMD Ryzen 9 9950X, 1 socket, 16 cores, oneDNN avx512_core_bf16, ..."

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "detect/platform.h"
#include "detect/pmu.h"
#include "detect/probe.h"
#include "detect/topology.h"
#include "dispatch/capture.h"
#include "dispatch/run.h"
#include "roofline/machine_profile.h"

namespace dlcheck::check {

/// Seconds of the check's timed model steps: long enough that a busy node's figure is not one
/// scheduler tick (five steps took 1-60 ms and spread 57x), short enough for a health check.
inline constexpr double kModelPassSeconds = 0.5;
/// OpenMP threads of the check's model pass, whatever OMP_NUM_THREADS says: one thread is the
/// figure nodes of a fleet can compare (it does not grow with the core count) and that a busy
/// node disturbs least (no OpenMP barrier waits on a descheduled thread). A check is a smoke
/// test, not a benchmark: `dlcheck run` measures the machine at the threads you choose.
inline constexpr int kModelPassThreads = 1;

/// The state of one item and of the whole check; its number is the exit status a monitoring
/// system reads (man/dlcheck.1 documents them under `check`). Ordered: worse is greater.
enum class State : int { kOk = 0, kWarning = 1, kCritical = 2, kUnknown = 3 };

/// "OK", "WARNING", "CRITICAL", "UNKNOWN".
std::string_view StateName(State state);
inline int ToInt(State state) {
  return static_cast<int>(state);
}

/// One thing the node must have: a feature (a /proc/cpuinfo name) or a oneDNN ISA level.
struct Requirement {
  std::string name;
  bool is_isa = false;  ///< a oneDNN ISA level rather than a feature
};

/// What the node is checked against (the options of `dlcheck check`).
struct Requirements {
  std::vector<Requirement> require;
  int min_sockets = 0;              ///< 0: not checked
  int min_cores = 0;                ///< 0: not checked
  std::string expect_isa;           ///< the model's compute must dispatch at least this; empty: any
  bool no_scalar_fallback = false;  ///< a scalar fallback is CRITICAL, not a WARNING
  /// How many things were asked for (requirements, minimums, the expected ISA).
  std::size_t Count() const;
};

/// The requirements from the command-line values; a usage error names the value that is neither
/// a feature nor a oneDNN ISA. Names are matched case-insensitively; empty ones are skipped.
StatusOr<Requirements> ParseRequirements(const std::vector<std::string>& require, int min_sockets,
                                         int min_cores, std::string expect_isa,
                                         bool no_scalar_fallback);

/// What a check's model pass runs and how: dispatch::Capture's two arguments.
struct ModelPass {
  dispatch::ModelSource source;
  dispatch::CaptureSettings settings;
};

/// The model worker's own results of a run (empty ones for a run without them).
const dispatch::ModelResults& ModelOf(const dispatch::Run& run);

/// Everything the check looks at, gathered live by the CLI or recorded elsewhere.
struct Evidence {
  detect::PlatformInfo platform;  ///< with the oneDNN ISA it dispatches to filled in
  std::vector<detect::ProbeResult> probes;
  std::optional<detect::Topology> topology;  ///< nullopt: unknown (`topology_error` says why)
  std::string topology_error;
  std::optional<dispatch::Run> run;  ///< nullopt: no worker ran (`run_error` says why)
  std::string run_error;
  std::optional<detect::PmuState> pmu;  ///< the node's hardware counters; nullopt: not read
  /// The limits `dlcheck roofline` stored for this CPU (memory bandwidth, compute peaks): read,
  /// never measured by the check; nullopt when none is stored or it cannot be read.
  std::optional<roofline::MachineProfile> machine_profile;
};

/// One checked item: a row of the `checks` table. `summary` is the short text that goes into the
/// first line when the item is not OK: no timings, no PIDs, so identical nodes agree.
struct Item {
  std::string check;
  State state = State::kOk;
  std::string detail;
  std::string summary;
  /// `detail` without measured numbers (deviations) for `--stable` output; empty: `detail`
  /// has none.
  std::string stable_detail;
  /// The detail `--stable` prints: `stable_detail` when set, else `detail`.
  const std::string& StableDetail() const { return stable_detail.empty() ? detail : stable_detail; }
};

/// The whole check: every item, the worst state, the one-line summary and the perfdata.
struct CheckResult {
  std::vector<Item> items;
  State state = State::kOk;
  std::string summary;   ///< what OK looks like, or the problems, worst first
  std::string perfdata;  ///< Nagios perfdata: 'samples_per_s'=...;;;0 'problems'=N;;;0
  /// `DLCHECK <STATE> - <summary> | <perfdata>`: the monitoring first line.
  std::string Headline() const;
  /// `DLCHECK <STATE> - <summary>`: the first line without perfdata, the same on identical
  /// nodes (`--stable`).
  std::string StableHeadline() const;
};

/// The items, in check order: platform findings, probes, requirements, topology, the model run.
std::vector<Item> EvaluateItems(const Requirements& requirements, const Evidence& evidence);
/// The state, summary and perfdata of `items`.
CheckResult Summarize(const Requirements& requirements, const Evidence& evidence,
                      std::vector<Item> items);
/// EvaluateItems, then Summarize.
CheckResult Evaluate(const Requirements& requirements, const Evidence& evidence);

/// The ISA oneDNN dispatches to on the platform: what it reports, else what the bits allow.
std::string OneDnnIsa(const detect::PlatformInfo& platform);

/// `value` as Nagios perfdata writes a number: fixed-point with `significant` digits, no exponent
/// (the plugin guidelines' value class is [-0-9.]): 3.81e-06 -> "0.00000381", 0 -> "0".
std::string PerfdataNumber(double value, int significant);

}  // namespace dlcheck::check
