// SPDX-License-Identifier: Apache-2.0
#pragma once
// The sweep of `dlcheck dispatch`, written once for both sources (dlcheck's model, a user's
// program): which configurations to run (the oneDNN ISA caps up to the machine's, the scalar
// kernels for the model, the thread sets asked for), each run `repeat` times through Capture,
// and the cells of the same primitive across configurations. What the runs compare (the fastest
// cap, speedups, efficiency, peak fraction) is in sweep_compare.h, what they conclude (findings,
// rankings, exit status) in sweep_findings.h; the command lays both out as tables.
//
//   StatusOr<SweepPlan> plan = PlanSweep({.thread_sets = {"1", "all"}, .scalar = true});
//   StatusOr<std::vector<ConfigRuns>> runs = RunSweep(ModelSource{options}, *plan, settings);
//   SweepCells cells = CellsOf((*runs)[0]);  // per PrimitiveKey (layer, primitive, prop kind,
//                                            // shape): ms of each run, the implementation

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/onednn_isa.h"
#include "common/status.h"
#include "detect/platform.h"
#include "dispatch/capture.h"
#include "dispatch/noise.h"
#include "dispatch/run.h"

namespace dlcheck::dispatch {

/// `requested` (--isa) checked and sorted, or, when empty, every cap of the machine's
/// architecture (onednn::SweepCaps(info.Arch()): x86 from sse41, AArch64 from asimd) up to what
/// oneDNN dispatches to on `info`'s machine (avx2_vnni only where AVX-VNNI is usable: it would
/// run the avx2 kernels again). Errors: a name that is no cap of that architecture (usage), a cap
/// above the machine (unsupported).
StatusOr<std::vector<std::string>> ChooseCaps(const std::vector<std::string>& requested,
                                              const detect::PlatformInfo& info);

/// One configuration of a sweep.
struct SweepConfig {
  RunConfig run;    ///< CapConfig, ScalarConfig or ThreadSetConfig
  int threads = 0;  ///< OpenMP threads asked (a thread set: one per core); 0: inherited

  const CapConfig* cap() const { return std::get_if<CapConfig>(&run); }
  const ThreadSetConfig* thread_set() const { return std::get_if<ThreadSetConfig>(&run); }
  bool scalar() const { return std::holds_alternative<ScalarConfig>(run); }
  /// How reports and findings name it: "cap avx2", "threads socket", "scalar".
  std::string Name() const;
  /// How progress names it: the name, with a thread set's cpuset ("threads socket (0-3)").
  std::string Label() const;
};

/// What a sweep is asked for.
struct SweepRequest {
  std::vector<std::string> isa;          ///< --isa; empty: every cap up to the machine's
  std::vector<std::string> thread_sets;  ///< --thread-sets; empty: no thread sweep
  int threads = 0;      ///< --threads of the ISA sweep; 0: OMP_NUM_THREADS, else the idle cores
  bool scalar = false;  ///< a run on dlcheck's scalar kernels after the caps (the model's)
};

/// The configurations, in run order: the caps from lowest up, the scalar run, the thread sets.
struct SweepPlan {
  std::vector<SweepConfig> configs;
  std::vector<std::string> caps;  ///< the caps of the first configs
  /// The ISA sweep's thread count and why, the load average before it and (EndCaptureFrame by
  /// the caller) after it.
  CaptureFrame frame;
  /// What the plan says before anything runs: `cap-hidden` (HiddenCapsFinding).
  std::vector<Finding> findings;
};

/// `cap-hidden`: the caps above this guest's level that the silicon of its microarchitecture
/// reaches with the features the hypervisor hides (features.hidden): not tried, because the
/// guest hides them, not because the CPU lacks them. Nullopt when nothing hidden would raise
/// the level, or when `caps` (the sweep's) do not reach the guest's level (--isa chose fewer).
std::optional<Finding> HiddenCapsFinding(const detect::PlatformInfo& info,
                                         const std::vector<std::string>& caps);

/// The plan for this machine: its caps (ChooseCaps), thread count (ChooseThreads) and thread
/// sets (hwloc). Errors: as ChooseCaps; an unknown thread set (usage).
StatusOr<SweepPlan> PlanSweep(const SweepRequest& request);

/// What every run of a sweep shares besides its configuration.
struct SweepSettings {
  int repeat = 1;  ///< runs per configuration
  double timeout_s = 0;
  bool peak = false;  ///< the model measures its FMA peak before each cap's run
  std::vector<std::pair<std::string, std::string>> extra_env;  ///< ONEDNN_JIT_PROFILE, ...
  /// Called before each run with its label ("cap avx2", "cap avx2 (run 2/3)"), and passed on to
  /// Capture (phases, a program's output); each may be empty.
  std::function<void(std::string_view label)> on_run;
  std::function<void(std::string_view phase)> on_phase;
  std::function<void()> on_output;
  std::function<void()> on_chunk;
};

/// One configuration's runs.
struct ConfigRuns {
  SweepConfig config;
  std::vector<Run> runs;  ///< in order; at least one
  Spread wall;            ///< the runs' wall times, seconds

  const Run& first() const { return runs.front(); }
  /// True when every run ended well (a program exited 0, the model worker ok): only such a
  /// configuration is ranked or named fastest.
  bool Succeeded() const;
  /// The header of the first run that printed one (oneDNN's version or ISA): a run that failed
  /// before oneDNN started prints none. The first run's (empty) when none did.
  const verbose::LogHeader& header() const;
};

/// oneDNN's version as the first run that printed it says (`oneDNN v2.6.3 (commit N/A)`), in
/// run order; empty when none did.
std::string LibraryVersionOf(const std::vector<ConfigRuns>& results);

/// Every configuration of `plan`, `repeat` times each, one run after the other, until a signal
/// stops it (os::SignalForwarding) or the model worker refuses the request (it would refuse it
/// again under every cap: the first refusal is kept). Fails only when a run cannot be started.
StatusOr<std::vector<ConfigRuns>> RunSweep(const RunSource& source, const SweepPlan& plan,
                                           const SweepSettings& settings);

/// What the sweep compares across configurations: one operation, whatever a cap made of it. The
/// problem (the shape: `mb64ic784oc128`) is in it because a program has no layers, and two
/// matmuls of one program must not be added together; the layer because two layers of a model
/// may share a shape. The implementation, ISA and layouts are left out: they are what a cap
/// changes.
struct PrimitiveKey {
  std::string layer;      ///< empty for a row without a layer
  std::string primitive;  ///< inner_product, convolution, ...
  std::string prop_kind;  ///< forward_training, backward_data, ...
  std::string problem;    ///< the shape, as oneDNN prints it
  auto operator<=>(const PrimitiveKey&) const = default;
};
/// True when the row ran at an ISA that ranks above `cap`: what a cap must never allow.
bool AboveCap(const verbose::PrimitiveStats& s, std::string_view cap);

/// The key of a row.
PrimitiveKey KeyOf(const verbose::PrimitiveStats& s);

/// A key's work under one configuration: its time in each run, the implementation of its
/// largest row.
struct SweepCell {
  std::vector<double> ms;  ///< per run: every row of the key, all its executions
  std::string implementation;
  /// The implementation names its ISA (brgemm:avx512_core): the same name under two caps is the
  /// same kernel. jit:uni and gemm:jit pick their ISA when they run, under the cap.
  bool isa_named = false;
  bool scalar = false;  ///< reference code or dlcheck's scalar kernels
  double top_ms = -1;
  /// The median of the runs' times (ms).
  double MedianMs() const;
};
using SweepCells = std::map<PrimitiveKey, SweepCell>;

/// The cells of a configuration's executed rows, by key.
SweepCells CellsOf(const ConfigRuns& runs);
/// The cells of one run's executed rows, by key.
SweepCells CellsOf(const Run& run);
/// base time / cells time (medians) for the key: the speedup of `cells` over `base`; nullopt when
/// either lacks the key.
std::optional<double> SpeedupOver(const SweepCells& base, const SweepCells& cells,
                                  const PrimitiveKey& key);
/// The keys of the configurations' executed rows, in first-seen order.
std::vector<PrimitiveKey> KeysOf(const std::vector<const ConfigRuns*>& configs);

/// The vector ISA whose measured peak bounds a cap: avx512_core for the AVX-512 caps, avx2 for
/// avx2 and avx2_vnni, sse41 below (the peak loops cover these three).
std::string PeakIsaOf(std::string_view cap);
/// The model run's measured peak GFLOP/s for its cap; nullopt without a cap (the scalar run, a
/// thread set) or without a peak.
std::optional<double> PeakOf(const ConfigRuns& r);
/// The OpenMP threads oneDNN said it used (its header line) in the first run that printed one;
/// 0: none did.
int ThreadsSeen(const ConfigRuns& r);
/// The threads the configuration ran: those seen, else those asked, else 1.
int ThreadsOf(const ConfigRuns& r);
/// How the first run ended: "ok" or "was killed by signal 4 (SIGILL) in phase timed".
std::string Describe(const ConfigRuns& r);

}  // namespace dlcheck::dispatch
