// SPDX-License-Identifier: Apache-2.0
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
//   timed      steps timed as a whole for `time_s` seconds (or exactly `iters` steps when
//              given): samples/s (verbose off, no worker lines)
//   traced     `traced` steps with verbose on and a worker line before each layer's work
//   evaluate   test accuracy with --data (verbose off)
//   done       results
//
// Verbose is switched per phase with dnnl_set_verbose, so throughput is measured without
// verbose's cost and the per-primitive report comes from the traced steps.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "dispatch/worker_protocol.h"
#include "mlp/model.h"

namespace dlcheck::dispatch {

/// `iters` when the timed phase is sized by time: the step count is whatever fits in `time_s`, so
/// the same default is right on a CPU ten times faster or slower (as benchdnn's
/// --max-ms-per-prb and Google Benchmark's min time do).
inline constexpr int kItersByTime = -1;
/// The timed phase's budget of `verbose` and `dispatch` (each run); `check` and `profile` set
/// their own (check.h, profile_command.cpp).
inline constexpr double kDefaultTimedSeconds = 1.0;

struct ModelRunOptions {
  mlp::ModelConfig model;
  mlp::Backend backend = mlp::Backend::kOneDnn;
  int warmup = 5;            ///< untimed steps after the reference step
  int iters = kItersByTime;  ///< timed steps (verbose off); kItersByTime: as many as time_s allows
  double time_s = kDefaultTimedSeconds;  ///< the timed phase's budget when iters is kItersByTime
  int traced = 3;                        ///< steps with verbose on: the per-primitive report
  std::string data_dir;                  ///< MNIST-format IDX directory; empty: synthetic data
  std::string cpuset;  ///< bind the worker to these CPUs (hwloc list syntax); empty: no binding
  bool peak = false;   ///< measure the FMA peak per vector ISA first (phase `peak`)
};

/// One option of a model run, described once: `AddModelOptions` (src/cli) makes the command-line
/// options from it and `WorkerArguments` the worker's argv, so the two cannot drift apart.
struct ModelOptionInfo {
  std::string_view flags;      ///< CLI11 flags, e.g. "-b,--batch"; the long name goes into argv
  std::string_view help;       ///< the --help text
  std::string_view type_name;  ///< the --help placeholder (MODEL, FILE); empty: CLI11's own
  /// With min < max: the accepted range of an integer option, or of the number of values of a
  /// list option.
  int min = 0;
  int max = 0;
  bool positive = false;     ///< a real option that must be > 0
  bool seconds = false;      ///< a duration: the command line's one rule for seconds
  bool worker_only = false;  ///< only the hidden `worker` takes it (--cpuset, --peak)
};

/// Every value of each enum a model option holds, for the option's choices.
inline constexpr mlp::ModelKind kModelKinds[] = {mlp::ModelKind::kMlp, mlp::ModelKind::kCnn};
inline constexpr mlp::DType kDTypes[] = {mlp::DType::kF32, mlp::DType::kBf16};
inline constexpr mlp::Backend kBackends[] = {mlp::Backend::kOneDnn, mlp::Backend::kScalar};
inline std::span<const mlp::ModelKind> AllValues(mlp::ModelKind) {
  return kModelKinds;
}
inline std::span<const mlp::DType> AllValues(mlp::DType) {
  return kDTypes;
}
inline std::span<const mlp::Backend> AllValues(mlp::Backend) {
  return kBackends;
}

/// Calls `visit(info, member)` for every option of `options` (a ModelRunOptions, const or not),
/// in --help order. Members are enums (named by mlp::Name), int, float, std::uint64_t,
/// std::vector<int>, std::string and bool (a flag).
template <typename Options, typename Visitor>
void VisitModelOptions(Options& options, Visitor&& visit) {
  visit(
      ModelOptionInfo{
          .flags = "-m,--model", .help = "the model: mlp (default) or cnn", .type_name = "MODEL"},
      options.model.model);
  visit(ModelOptionInfo{.flags = "--dtype",
                        .help = "compute data type: f32 (default) or bf16",
                        .type_name = "DTYPE"},
        options.model.dtype);
  visit(ModelOptionInfo{.flags = "--backend",
                        .help = "onednn (default; scalar kernels where oneDNN cannot) or scalar",
                        .type_name = "BACKEND"},
        options.backend);
  visit(
      ModelOptionInfo{.flags = "--layers",
                      .help = "MLP layer sizes on 784 inputs, the last one 10 (default 128,64,10)",
                      .type_name = "LIST",
                      .min = 1,
                      .max = static_cast<int>(mlp::kMaxLayers)},
      options.model.layers);
  visit(ModelOptionInfo{.flags = "-b,--batch",
                        .help = "samples per step (default 100)",
                        .min = 1,
                        .max = mlp::kMaxBatch},
        options.model.batch);
  visit(ModelOptionInfo{.flags = "-n,--iters",
                        .help = "timed steps, verbose off (default: as many as --time allows)",
                        .min = 0,
                        .max = 1000000},
        options.iters);
  visit(ModelOptionInfo{.flags = "--time",
                        .help = "seconds of timed steps when --iters is not given (default 1; "
                                "check 0.5, profile 3)",
                        .type_name = "SECONDS",
                        .seconds = true},
        options.time_s);
  visit(ModelOptionInfo{.flags = "--warmup",
                        .help = "untimed steps before timing (default 5)",
                        .min = 0,
                        .max = 1000000},
        options.warmup);
  visit(ModelOptionInfo{.flags = "--traced",
                        .help = "steps with verbose on, reported per primitive (default 3)",
                        .min = 1,
                        .max = 100000},
        options.traced);
  visit(ModelOptionInfo{.flags = "--seed",
                        .help = "seed of the weights and synthetic data (default 1)"},
        options.model.seed);
  visit(
      ModelOptionInfo{.flags = "--lr", .help = "SGD learning rate (default 0.1)", .positive = true},
      options.model.lr);
  visit(ModelOptionInfo{.flags = "--data",
                        .help =
                            "MNIST-format IDX directory (e.g. /usr/share/datasets/fashion-mnist): "
                            "train on it and report test accuracy",
                        .type_name = "DIR"},
        options.data_dir);
  visit(ModelOptionInfo{.flags = "--cpuset",
                        .help = "bind to these CPUs (hwloc list syntax) first",
                        .worker_only = true},
        options.cpuset);
  visit(ModelOptionInfo{.flags = "--peak",
                        .help = "measure the single-core FMA peak per vector ISA first",
                        .worker_only = true},
        options.peak);
}

/// The timed phase's budget in seconds for a report: null (nullopt) when --iters fixed the count.
inline std::optional<double> TimedBudget(const ModelRunOptions& options) {
  if (options.iters != kItersByTime) return std::nullopt;
  return options.time_s;
}

/// The arguments of `dlcheck worker` that reproduce `options` (without the program path).
std::vector<std::string> WorkerArguments(const ModelRunOptions& options);

/// Runs the phases above in this process, writing worker lines and oneDNN's verbose lines to
/// stdout. A failure (bad --data, a model oneDNN and the scalar kernels both refuse) is returned
/// for the caller's error edge to print; what was done before it has been written.
Status RunModelWorker(const ModelRunOptions& options);

}  // namespace dlcheck::dispatch
