// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one way dlcheck runs something and reads what oneDNN says about it: dlcheck's model in a
// worker process (`dlcheck worker`) or a user's program, under a run configuration (an ISA cap,
// a thread set, dlcheck's scalar kernels, or the environment as it is), with oneDNN's verbose
// mode on. Its stdout is read as it is written: verbose lines go to the log session of `parse`
// (the model worker's protocol lines, its layers and phases, to the run's model results; a
// program's own bytes on to dlcheck's stderr, unchanged and in order). Used by `verbose`, `run`,
// `dispatch` (once per configuration and repeat), `profile` (under perf) and `check`.
//
//   StatusOr<Run> run = Capture(ModelSource{.run = options}, {.config = CapConfig{"avx2"}});
//   if (!run.ok()) ...                        // could not be started at all
//   if (!run->outcome.ok()) ...               // crashed, killed or timed out: what it did is kept

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "common/status.h"
#include "dispatch/model_worker.h"
#include "dispatch/run.h"
#include "verbose/native_paths.h"
#include "verbose/timeline.h"

namespace dlcheck::dispatch {

/// A model worker's time limit unless the command says otherwise (--timeout).
inline constexpr double kWorkerTimeoutS = 600;

/// The ISA cap this process's environment sets for oneDNN (ONEDNN_MAX_CPU_ISA, else the legacy
/// DNNL_MAX_CPU_ISA); empty: none. A machine configured with a cap is run as configured: the
/// model worker of `verbose`, `profile` and `check` gets it, as any oneDNN program would.
std::string ConfiguredIsaCap();

/// The variables that switch verbose output on for every oneDNN generation: ONEDNN_ (2.5+),
/// DNNL_ (1.1-2.4, and read by 2.5-3.x when ONEDNN_ is unset), MKLDNN_ (0.x-1.0), at level 2
/// (creation and execution), with timestamps (2.1+) for the timeline. ONEDNN_VERBOSE is
/// `2,dispatch`: 3.2+ splits it at commas (exec, create and the create:dispatch reasons), while
/// 2.5-3.1 read it as an integer with atoi, which stops at the comma (2: the same lines as
/// ONEDNN_VERBOSE=2). The first three are the level variables (ChooseVerboseRequest).
const std::vector<std::pair<std::string, std::string>>& VerboseEnvironment();

/// The level variables a program gets: dlcheck's (VerboseEnvironment) unless the user set any of
/// ONEDNN_VERBOSE, DNNL_VERBOSE, MKLDNN_VERBOSE, which are then kept as they are (from_user).
/// `lookup` reads this process's environment (std::getenv; a test passes its own).
VerboseRequest ChooseVerboseRequest(const std::function<const char*(const char*)>& lookup);

/// The logging of the engines around oneDNN that `parse` reads, switched on beside oneDNN's:
/// AMD ZenDNN's oneDNN-2.x-shaped lines (ZENDNN_VERBOSE=2), its plug-in's profiling lines
/// (ZENDNN_PRIMITIVE_LOG_ENABLE=1) and ZenDNN 5.1+'s profiler (ZENDNNL_ENABLE_PROFILER=1,
/// ZENDNNL_PROFILE_LOG_LEVEL=4, as AMD's user guide 57300 says). Each only where the user's
/// environment (`lookup`) does not set it: a user's value is kept. A program without ZenDNN
/// reads none of them. (ONNX Runtime's profile is switched on in the program's own code.)
std::vector<std::pair<std::string, std::string>> EngineLogEnvironment(
    const std::function<const char*(const char*)>& lookup);

/// The variables that cap oneDNN's ISA at `cap` for every generation: ONEDNN_MAX_CPU_ISA (2.5+),
/// DNNL_MAX_CPU_ISA (1.1+) and MKLDNN_MAX_CPU_ISA (1.0).
std::vector<std::pair<std::string, std::string>> MaxIsaEnvironment(const std::string& cap);

// ---- what runs ------------------------------------------------------------------------------

/// dlcheck's model, in a worker process.
struct ModelSource {
  ModelRunOptions run;
  std::string worker_binary;  ///< empty: this executable (/proc/self/exe)
};
/// A user's program (looked up on PATH; it runs as a job of the terminal, the way `time` runs
/// it).
struct ProgramSource {
  std::vector<std::string> argv;
};
using RunSource = std::variant<ModelSource, ProgramSource>;

// ---- how it runs ----------------------------------------------------------------------------

/// oneDNN as the environment configures it (a cap set in ONEDNN_MAX_CPU_ISA is kept).
struct DefaultConfig {};
/// oneDNN capped at an ISA (ONEDNN_MAX_CPU_ISA and its older spellings).
struct CapConfig {
  std::string isa;  ///< a name in onednn::SweepCaps(the host's architecture)
};
/// oneDNN's own choice (no cap), one thread per core of a thread set, bound to its cores.
struct ThreadSetConfig {
  std::string name;  ///< core, socket, numa0, ...
  std::string cpuset;
  std::vector<int> cpus;
};
/// dlcheck's scalar kernels, not oneDNN (the model sweep's baseline; a program has none).
struct ScalarConfig {};
/// How one run is configured: a typed choice, the same for the model and a program.
using RunConfig = std::variant<DefaultConfig, CapConfig, ThreadSetConfig, ScalarConfig>;

/// The pseudo-cap of the run on dlcheck's scalar kernels.
inline constexpr std::string_view kScalarCap = "scalar";
/// The `isa_cap` a report gives a run: the cap, kScalarCap for the scalar kernels, nullopt for a
/// thread set or the default (no cap of dlcheck's).
std::optional<std::string> IsaCapOf(const RunConfig& config);

struct CaptureSettings {
  RunConfig config;
  int threads = 0;       ///< OMP_NUM_THREADS (and MKL_NUM_THREADS for a program); 0: inherited
  double timeout_s = 0;  ///< killed (with its process group) after this long; 0: never
  std::ostream* raw_log = nullptr;  ///< where to copy the verbose lines; null: nowhere
  /// Executions kept for the timeline (the rest counted); 0: no timeline.
  std::size_t max_timeline = verbose::kMaxReportTimeline;
  /// Words put before the command line (`perf record ... --`); empty: none. The outcome's pid
  /// is then the launcher's.
  std::vector<std::string> launcher;
  /// More variables for the environment (ONEDNN_JIT_PROFILE for perf maps, ...).
  std::vector<std::pair<std::string, std::string>> extra_env;
  /// Progress on a terminal; each may be empty. The model worker enters a phase (init, reference,
  /// warmup, timed, traced, ...).
  std::function<void(std::string_view phase)> on_phase;
  /// Before a program's own bytes are written to stderr (progress clears its line), and after
  /// each piece of its stdout (progress redraws).
  std::function<void()> on_output;
  std::function<void()> on_chunk;
  /// A program's: called with its process id while it runs (os::Spec::while_running).
  std::function<void(int pid)> while_running;
};

/// Runs `source` under `settings` and captures it. Errors only when it cannot be started
/// (a program: 127 not found, 126 not executable; the worker: 5) or a program is asked for a
/// scalar run (2); a run that fails is a Run with its outcome.
StatusOr<Run> Capture(const RunSource& source, const CaptureSettings& settings);

/// What this host has for each low-precision data type (its usable features), named "this host"
/// in findings: a log's findings add it where the log's CPU or cap differs
/// (verbose::RunContext::host).
verbose::DtypeUnits HostDtypeUnits();

}  // namespace dlcheck::dispatch
