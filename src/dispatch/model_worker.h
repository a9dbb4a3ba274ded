#pragma once
// A model run in a worker process: `dlcheck verbose` starts `dlcheck worker ...` with oneDNN's
// verbose mode on, and the worker trains the model in phases, telling the parent through
// worker lines (worker_protocol.h) which phase and layer each oneDNN verbose line belongs to:
//
//   peak       (with --peak) the single-core FMA peak per vector ISA (peak.h)
//   init       create every primitive (verbose on: creation lines, layer by layer)
//   reference  one step on oneDNN and one on the scalar kernels from the same weights and
//              batch, compared (verbose off)
//   warmup     untimed steps (verbose off)
//   timed      `iters` steps timed as a whole: samples/s (verbose off, no worker lines)
//   traced     `traced` steps with verbose on and a worker line before each layer's work
//   evaluate   test accuracy with --data (verbose off)
//   done       results
//
// Verbose is switched per phase with dnnl_set_verbose, so throughput is measured without
// verbose's cost and the per-primitive report comes from the traced steps.

#include <string>
#include <vector>

#include "mlp/model.h"

namespace dlcheck::dispatch {

struct ModelRunOptions {
  mlp::ModelConfig model;
  mlp::Backend backend = mlp::Backend::kOneDnn;
  int warmup = 5;        ///< untimed steps after the reference step
  int iters = 50;        ///< timed steps (verbose off)
  int traced = 3;        ///< steps with verbose on: the per-primitive report
  std::string data_dir;  ///< MNIST-format IDX directory; empty: synthetic data
  std::string cpuset;    ///< bind the worker to these CPUs (hwloc list syntax); empty: no binding
  bool peak = false;     ///< measure the FMA peak per vector ISA first (phase `peak`)
};

/// The result keys a worker reports (ResultLine), in the order it reports them.
namespace result_key {
inline constexpr const char* kBackend = "backend";  ///< what ran: onednn or scalar
inline constexpr const char* kTrainSamples = "train_samples";
inline constexpr const char* kMaxDeviation = "max_deviation";
inline constexpr const char* kDeviationTensor = "deviation_tensor";
inline constexpr const char* kTolerance = "tolerance";
inline constexpr const char* kLossFirst = "loss_first";
inline constexpr const char* kSamplesPerS = "samples_per_s";
inline constexpr const char* kStepMsTimed = "step_ms_timed";
inline constexpr const char* kStepMsTraced = "step_ms_traced";
inline constexpr const char* kLossLast = "loss_last";
inline constexpr const char* kTestAccuracy = "test_accuracy";
/// `peak_gflops_<isa>` (sse41, avx2, avx512_core): the single-core FMA peak, with --peak.
inline constexpr const char* kPeakGflopsPrefix = "peak_gflops_";
}  // namespace result_key

/// The arguments of `dlcheck worker` that reproduce `options` (without the program path).
std::vector<std::string> WorkerArguments(const ModelRunOptions& options);

/// Runs the phases above in this process, writing worker lines and oneDNN's verbose lines to
/// stdout; errors go to stderr as `dlcheck: ...`. Returns the process exit code.
int RunModelWorker(const ModelRunOptions& options);

}  // namespace dlcheck::dispatch
