// SPDX-License-Identifier: Apache-2.0
#pragma once
// The lines a model worker writes on stdout besides oneDNN's own verbose lines, so the parent can
// tell which layer and phase each verbose line belongs to and collect the run's results. They
// share stdout (and its buffer) with oneDNN's printf, so their order with the verbose lines is
// exactly the order of events in the worker.
//
//   dlcheck_worker,phase,traced
//   dlcheck_worker,layer,fc1,forward
//   dlcheck_worker,fallback,fc2,oneDNN has no bf16 inner product on this CPU (unimplemented)
//   dlcheck_worker,result,samples_per_s,104233.53125
//
// Numbers are written in their shortest round-trip form and parsed once, here, into
// WorkerResults: the parent never handles a result as text.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/exit_code.h"

namespace dlcheck::dispatch {

inline constexpr std::string_view kWorkerMarker = "dlcheck_worker,";

/// The exit status of a model worker that ran out of memory, and of no other end of a worker:
/// the parent tells the machine's memory limit from a crash by it (Run::OutOfMemory). The worker
/// ends with it for mlp's "not enough memory" (cli/worker_command.cpp); a std::bad_alloc anywhere
/// in the worker reaches main's error edge (cli/main.cpp), which ends every command that runs
/// out of memory with ExitCode::kUnsupported: so the two numbers are one.
inline constexpr int kWorkerOutOfMemoryExit = 7;
static_assert(kWorkerOutOfMemoryExit == static_cast<int>(ExitCode::kUnsupported),
              "main's out-of-memory edge (cli/main.cpp) ends a worker with kUnsupported");

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
/// The timed steps run in `timed_chunks` chunks (at least 2 when reported), each timed: the
/// slowest and fastest chunk's samples/s are the spread of the measurement.
inline constexpr const char* kTimedChunks = "timed_chunks";
/// How many steps the timed phase ran: --iters, or what fitted in --time.
inline constexpr const char* kTimedSteps = "timed_steps";
inline constexpr const char* kSamplesPerSMin = "samples_per_s_min";
inline constexpr const char* kSamplesPerSMax = "samples_per_s_max";
inline constexpr const char* kStepMsTraced = "step_ms_traced";
inline constexpr const char* kLossLast = "loss_last";
inline constexpr const char* kTestAccuracy = "test_accuracy";
/// `peak_gflops_<isa>` (sse41, avx2, avx512_core): the single-core FMA peak, with --peak.
inline constexpr const char* kPeakGflopsPrefix = "peak_gflops_";
}  // namespace result_key

/// What a worker reported, typed. A field is empty when the worker did not report it (it ended
/// before, or the run had no such phase).
struct WorkerResults {
  std::optional<std::string> backend;           ///< onednn or scalar
  std::optional<std::int64_t> train_samples;    ///< samples in the training set
  std::optional<double> max_deviation;          ///< largest deviation from the scalar reference
  std::optional<std::string> deviation_tensor;  ///< where it is ("-" when equal)
  std::optional<double> tolerance;              ///< the deviation allowed for the dtype
  std::optional<double> loss_first;
  std::optional<double> samples_per_s;      ///< timed steps, verbose off
  std::optional<double> step_ms_timed;      ///< mean step time, verbose off
  std::optional<double> timed_chunks;       ///< chunks of the timed steps, each timed
  std::optional<double> timed_steps;        ///< steps the timed phase ran (by time or --iters)
  std::optional<double> samples_per_s_min;  ///< the slowest chunk
  std::optional<double> samples_per_s_max;  ///< the fastest chunk
  std::optional<double> step_ms_traced;     ///< mean step time, verbose on
  std::optional<double> loss_last;
  std::optional<double> test_accuracy;        ///< with --data
  std::map<std::string, double> peak_gflops;  ///< by vector ISA (sse41, avx2, avx512_core)
  std::vector<std::string> malformed;         ///< result lines whose key or value was not
                                              ///< understood, as `key,value`
};

/// Records one result (key and value of a result line) in `results`. False, with the line kept
/// in `results.malformed`, for an unknown key or a number that does not parse.
bool RecordResult(WorkerResults& results, std::string_view key, std::string_view value);
/// A numeric result by its key (train_samples and peak_gflops_<isa> included); nullopt when the
/// worker did not report it or the key is not numeric.
std::optional<double> NumericResult(const WorkerResults& results, std::string_view key);

/// One worker line. For kLayer: `name` is the layer, `value` the phase of the layer's work
/// (create, forward, backward, update). kPhase: `name` is the run phase (init, warmup, timed,
/// traced, reference, done). kResult: `name` is the key, `value` the text. kFallback: `name` is
/// the layer, `value` the reason (may contain commas).
struct WorkerMessage {
  enum class Kind { kLayer, kPhase, kResult, kFallback };
  Kind kind = Kind::kPhase;
  std::string_view name;
  std::string_view value;
};

/// `dlcheck_worker,layer,<layer>,<layer_phase>`: the layer whose work follows.
std::string LayerLine(std::string_view layer, std::string_view layer_phase);
/// `dlcheck_worker,phase,<phase>`: the run phase the worker enters.
std::string PhaseLine(std::string_view phase);
/// A text result (backend, deviation_tensor).
std::string ResultLine(std::string_view key, std::string_view value);
/// A numeric result, in the shortest text that reads back as the same double.
std::string ResultLine(std::string_view key, double value);
/// An integer result (train_samples).
std::string ResultLine(std::string_view key, std::int64_t value);
/// `dlcheck_worker,fallback,<layer>,<reason>`: the layer runs on dlcheck's scalar kernels.
std::string FallbackLine(std::string_view layer, std::string_view reason);

/// The message in `line`, or nullopt when the line is not a worker line (e.g. a verbose line).
std::optional<WorkerMessage> ParseWorkerLine(std::string_view line);

}  // namespace dlcheck::dispatch
