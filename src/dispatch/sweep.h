#pragma once
// The ISA sweep of `dlcheck dispatch`: which oneDNN caps to run, one worker run per cap (or per
// thread set), and the comparison of the same primitive across runs. The command turns these
// into tables; the numbers are computed here.
//
//   StatusOr<std::vector<std::string>> caps = ChooseCaps(requested, platform);
//   StatusOr<SweepRun> run = RunSweepWorker(settings, CapConfig{"avx2"}, 0, /*peak=*/true);
//   SweepCells cells = CellsOf(run->run);   // per PrimitiveKey (layer, primitive, prop kind,
//   shape)

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "common/onednn_isa.h"
#include "common/status.h"
#include "detect/platform.h"
#include "dispatch/capture.h"
#include "dispatch/model_worker.h"

namespace dlcheck::dispatch {

/// The pseudo-cap of the run on dlcheck's scalar kernels.
inline constexpr std::string_view kScalarCap = "scalar";

/// The caps a sweep may use, in dispatch order: a view of the shared ISA table.
inline constexpr const auto& kSweepCaps = onednn::kSweepCaps;

/// `requested` (--isa) checked and sorted, or, when empty, every cap from sse41 up to what oneDNN
/// dispatches to on `info`'s machine (avx2_vnni only where AVX-VNNI is usable: it would run the
/// avx2 kernels again). Errors: an unknown name (usage), a cap above the machine (unsupported).
StatusOr<std::vector<std::string>> ChooseCaps(const std::vector<std::string>& requested,
                                              const detect::PlatformInfo& info);

/// What every worker of a sweep shares.
struct SweepSettings {
  ModelRunOptions run;
  double timeout_s = 600;
  bool perf_map = false;  ///< ONEDNN_JIT_PROFILE=2: /tmp/perf-<pid>.map for `perf report`
  /// Called when a worker enters a phase (progress on a terminal); may be empty.
  std::function<void(std::string_view phase)> on_phase;
};

/// oneDNN capped at an ISA (ONEDNN_MAX_CPU_ISA and its older spellings).
struct CapConfig {
  std::string isa;  ///< a name in kSweepCaps
};
/// oneDNN's own choice (no cap), one thread per core of a thread set, bound to its cores.
struct ThreadSetConfig {
  std::string name;  ///< core, socket, numa0, ...
  std::string cpuset;
  std::vector<int> cpus;
};
/// dlcheck's scalar kernels, not oneDNN (the model sweep's baseline).
struct ScalarConfig {};
/// How a sweep runs one configuration: a typed choice, used by both sweeps (a model's and a
/// program's); no empty cap string stands for "a thread set".
using RunConfig = std::variant<CapConfig, ThreadSetConfig, ScalarConfig>;

/// The `isa_cap` a report gives a run: the cap, kScalarCap for the scalar kernels, nullopt for a
/// thread set (no cap).
std::optional<std::string> IsaCapOf(const RunConfig& config);

/// One worker run of the sweep.
struct SweepRun {
  RunConfig config;
  int threads = 0;  ///< OMP_NUM_THREADS asked; 0: inherited
  CapturedRun run;

  const CapConfig* cap() const { return std::get_if<CapConfig>(&config); }
  const ThreadSetConfig* thread_set() const { return std::get_if<ThreadSetConfig>(&config); }
  bool scalar() const { return std::holds_alternative<ScalarConfig>(config); }
};

/// Runs the model under `config` with `threads` OpenMP threads (a thread set's bound to its
/// cpuset), measuring the FMA peak first when `peak`.
StatusOr<SweepRun> RunSweepWorker(const SweepSettings& settings, RunConfig config, int threads,
                                  bool peak);

/// What both sweeps (a model's and a program's) compare across caps: one operation, whatever
/// the cap made of it. The problem (the shape: `mb64ic784oc128`) is in it because a program has
/// no layers, and two matmuls of one program must not be added together; the layer because two
/// layers of a model may share a shape. The implementation, ISA and layouts are left out: they
/// are what a cap changes.
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

/// A key's work under one run: the implementation of its largest row, time over the traced
/// steps.
struct SweepCell {
  std::string implementation;
  std::string isa;
  bool scalar = false;  ///< reference code or dlcheck's scalar kernels
  double ms_total = 0;  ///< every row of the key, all traced steps
  double flops = 0;     ///< over the timed executions
  double top_ms = -1;
};
using SweepCells = std::map<PrimitiveKey, SweepCell>;

/// The cells of a run's executed rows, by key.
SweepCells CellsOf(const CapturedRun& run);
/// base time / cells time for the key: the speedup of `cells` over `base`; nullopt when either
/// lacks the key.
std::optional<double> SpeedupOver(const SweepCells& base, const SweepCells& cells,
                                  const PrimitiveKey& key);

/// The vector ISA whose measured peak bounds a cap: avx512_core for the AVX-512 caps, avx2 for
/// avx2 and avx2_vnni, sse41 below (the peak loops cover these three).
std::string PeakIsaOf(std::string_view cap);
/// The run's measured peak GFLOP/s for its cap; nullopt without a cap (the scalar run, a thread
/// set) or without a peak.
std::optional<double> PeakOf(const SweepRun& r);
/// The OpenMP threads the run used (from oneDNN's header line when it printed one).
int ThreadsOf(const SweepRun& r);
/// "was killed by signal 4 (SIGILL) in phase timed".
std::string Describe(const SweepRun& r);

}  // namespace dlcheck::dispatch
