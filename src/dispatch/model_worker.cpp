// SPDX-License-Identifier: Apache-2.0
#include "dispatch/model_worker.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <oneapi/dnnl/dnnl.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <type_traits>

#include "dispatch/peak.h"
#include "dispatch/worker_protocol.h"
#include "mlp/dataset.h"
#include "mlp/trainer.h"

namespace dlcheck::dispatch {
namespace {

using Clock = std::chrono::steady_clock;

// DLCHECK_WORKER_FAULT=<phase> makes the worker execute an undefined instruction (a real
// SIGILL, as on a machine whose CPUID claims more than it has) when it enters that phase, so
// that the parent's crash handling can be tested on any machine.
void MaybeFault(std::string_view phase) {
  const char* fault = std::getenv("DLCHECK_WORKER_FAULT");
  // DLCHECK_WORKER_FAULT_ISA=<cap> limits the fault to the worker running under that ISA cap.
  const char* only_isa = std::getenv("DLCHECK_WORKER_FAULT_ISA");
  const char* cap = std::getenv("ONEDNN_MAX_CPU_ISA");
  if (only_isa != nullptr && (cap == nullptr || std::string_view(cap) != only_isa)) return;
  if (fault != nullptr && phase == fault) {
    std::fflush(stdout);
    __builtin_trap();
  }
  // DLCHECK_WORKER_HANG=<phase> makes it hang there instead, for the parent's timeout.
  const char* hang = std::getenv("DLCHECK_WORKER_HANG");
  if (hang != nullptr && phase == hang) {
    std::fflush(stdout);
    for (;;) pause();
  }
}

void Emit(const std::string& line) {
  std::fputs(line.c_str(), stdout);
  std::fputc('\n', stdout);
}

void EnterPhase(std::string_view phase) {
  Emit(PhaseLine(phase));
  MaybeFault(phase);
}

void Result(std::string_view key, std::string_view value) {
  Emit(ResultLine(key, value));
}
void Result(std::string_view key, double value) {
  Emit(ResultLine(key, value));
}

// Prints a worker line before each layer's work and the scalar kernels' events, but only while
// tracing: in timed steps it stays silent so that throughput is measured without it.
class TracingObserver : public mlp::Observer {
 public:
  void set_tracing(bool on) { tracing_ = on; }
  void OnLayer(std::string_view layer, std::string_view phase) override {
    if (tracing_) Emit(LayerLine(layer, phase));
  }
  void OnScalarOp(const mlp::ScalarOpEvent& event) override {
    if (tracing_) Emit(mlp::ToVerboseLine(event));
  }

 private:
  bool tracing_ = true;
};

// oneDNN's verbose level follows the tracing switch; the environment's level (set by the parent)
// applies to primitive creation.
void SetTracing(TracingObserver& observer, bool on, int level) {
  observer.set_tracing(on);
  dnnl_set_verbose(on ? level : 0);
}

// The training set (and with --data the test set): the IDX files, or synthetic data enough for
// every step.
struct TrainingData {
  mlp::Dataset train;
  mlp::Dataset test;
};

StatusOr<TrainingData> LoadData(const ModelRunOptions& options) {
  const mlp::ModelConfig& config = options.model;
  TrainingData data;
  if (!options.data_dir.empty()) {
    auto sets = mlp::LoadIdx(options.data_dir);
    if (!sets.ok()) return sets.status();
    data.train = std::move(sets->train);
    data.test = std::move(sets->test);
  } else {
    // By time, the step count is not known in advance: the batches repeat after 1,000 samples.
    const int timed = options.iters == kItersByTime ? 1000 : options.iters;
    const int steps = 1 + options.warmup + timed + options.traced;
    // In 64 bits: --batch 16384 times a million steps does not fit an int.
    const std::int64_t samples = std::min<std::int64_t>(std::max(config.batch * 10, 1000),
                                                        std::int64_t{config.batch} * steps);
    data.train = mlp::MakeSyntheticData(
        static_cast<int>(std::max<std::int64_t>(samples, config.batch)), config.seed);
  }
  if (data.train.size() < config.batch) {
    return InputError(fmt::format("the training set has {} samples, fewer than --batch {}",
                                  data.train.size(), config.batch));
  }
  return data;
}

// The same first step on the scalar kernels, from the same initial weights and batch, against
// `trainer`'s: reports the largest deviation, where it is, and the tolerance.
Status CompareWithScalar(mlp::Trainer& trainer, const mlp::ModelConfig& config,
                         const mlp::Dataset& train) {
  auto scalar = mlp::MakeTrainer(mlp::Backend::kScalar, config, nullptr);
  if (!scalar.ok()) return scalar.status();
  (*scalar)->Step(mlp::GetBatch(train, 0, config.batch));
  const mlp::Deviation d = mlp::CompareSnapshots(trainer.TakeSnapshot(), (*scalar)->TakeSnapshot());
  Result(result_key::kMaxDeviation, d.value);
  Result(result_key::kDeviationTensor, d.tensor.empty() ? "-" : d.tensor);
  Result(result_key::kTolerance, mlp::Tolerance(config.dtype));
  return {};
}

}  // namespace

namespace {

// The timed phase in up to kTimedChunkCount chunks, each timed, so that the spread of the
// chunks' samples/s tells how noisy the measurement was: exactly `iters` steps when given, else
// chunks of time_s / kTimedChunkCount seconds each (at least one step a chunk). Returns the last
// loss.
float TimedSteps(mlp::Trainer& trainer, const mlp::Dataset& train, const ModelRunOptions& options,
                 int& step) {
  constexpr int kTimedChunkCount = 5;
  const bool by_time = options.iters == kItersByTime;
  const int batch = options.model.batch;
  const int chunks = by_time ? kTimedChunkCount : std::min(options.iters, kTimedChunkCount);
  const auto chunk_budget = std::chrono::duration<double>(options.time_s / kTimedChunkCount);
  float loss = 0;
  double chunk_min = 0, chunk_max = 0;
  std::int64_t done = 0;
  const auto timed_start = Clock::now();
  for (int c = 0; c < chunks; ++c) {
    const std::int64_t fixed_steps = by_time ? 0 : (options.iters - done) / (chunks - c);
    const auto chunk_start = Clock::now();
    std::int64_t steps = 0;
    for (;;) {
      if (by_time ? steps > 0 && Clock::now() - chunk_start >= chunk_budget
                  : steps == fixed_steps) {
        break;
      }
      loss = trainer.Step(mlp::GetBatch(train, step++, batch));
      ++steps;
    }
    const double s = std::chrono::duration<double>(Clock::now() - chunk_start).count();
    const double sps = s > 0 ? static_cast<double>(steps) * batch / s : 0;
    chunk_min = c == 0 ? sps : std::min(chunk_min, sps);
    chunk_max = c == 0 ? sps : std::max(chunk_max, sps);
    done += steps;
  }
  const double timed_s = std::chrono::duration<double>(Clock::now() - timed_start).count();
  Result(result_key::kTimedSteps, static_cast<double>(done));
  if (done > 0) {
    Result(result_key::kSamplesPerS, static_cast<double>(done) * batch / timed_s);
    Result(result_key::kStepMsTimed, timed_s * 1e3 / static_cast<double>(done));
  }
  if (chunks >= 2) {
    Result(result_key::kTimedChunks, chunks);
    Result(result_key::kSamplesPerSMin, chunk_min);
    Result(result_key::kSamplesPerSMax, chunk_max);
  }
  return loss;
}

}  // namespace

std::vector<std::string> WorkerArguments(const ModelRunOptions& options) {
  std::vector<std::string> args = {"worker"};
  VisitModelOptions(options, [&args](const ModelOptionInfo& info, const auto& value) {
    const std::string_view flags = info.flags;
    const std::string name(flags.substr(flags.rfind("--")));
    using T = std::decay_t<decltype(value)>;
    if constexpr (std::is_same_v<T, bool>) {
      if (value) args.push_back(name);
    } else if constexpr (std::is_same_v<T, std::string>) {
      if (!value.empty()) args.insert(args.end(), {name, value});
    } else if constexpr (std::is_same_v<T, std::vector<int>>) {
      args.insert(args.end(), {name, fmt::format("{}", fmt::join(value, ","))});
    } else if constexpr (std::is_same_v<T, int>) {
      // An integer below its range is "not given" (kItersByTime): the worker's default holds.
      if (info.min >= info.max || value >= info.min) {
        args.insert(args.end(), {name, fmt::format("{}", value)});
      }
    } else if constexpr (std::is_enum_v<T>) {
      args.insert(args.end(), {name, std::string(mlp::Name(value))});
    } else {
      // Integers, and the learning rate in the shortest text that reads back as the same float.
      args.insert(args.end(), {name, fmt::format("{}", value)});
    }
  });
  return args;
}

namespace {

// The verbose level the parent asked for in the environment (ONEDNN_VERBOSE, else 2): the
// tracing phases switch verbose on at this level.
int TracingLevel() {
  int level = 2;
  if (const char* env = std::getenv("ONEDNN_VERBOSE")) level = std::atoi(env);
  return level <= 0 ? 2 : level;
}

// Phase peak: the single-core FMA peak per vector ISA.
void PeakPhase() {
  EnterPhase("peak");
  for (const PeakResult& p : MeasurePeak()) {
    Result(std::string(result_key::kPeakGflopsPrefix) + p.isa, p.gflops);
  }
}

// Phase init: the model built with verbose on (every primitive's creation line, layer by
// layer), then its fallbacks and the backend that runs it.
StatusOr<std::unique_ptr<mlp::Trainer>> InitPhase(const ModelRunOptions& options,
                                                  TracingObserver& observer, int level) {
  EnterPhase("init");
  SetTracing(observer, true, level);
  StatusOr<std::unique_ptr<mlp::Trainer>> made =
      mlp::MakeTrainer(options.backend, options.model, &observer);
  if (!made.ok()) return made.status();
  const mlp::Trainer& trainer = **made;
  for (const auto& f : trainer.fallbacks()) Emit(FallbackLine(f.layer, f.reason));
  Result(result_key::kBackend, std::string(mlp::Name(trainer.backend())));
  SetTracing(observer, false, level);
  return made;
}

// Phase reference: the first step, and on oneDNN the same step on the scalar kernels from the
// same initial weights, compared. Returns the first step's loss.
StatusOr<float> ReferencePhase(mlp::Trainer& trainer, const mlp::ModelConfig& config,
                               const mlp::Dataset& train, int& step) {
  EnterPhase("reference");
  const float loss_first = trainer.Step(mlp::GetBatch(train, step++, config.batch));
  if (trainer.backend() == mlp::Backend::kOneDnn) {
    if (Status compared = CompareWithScalar(trainer, config, train); !compared.ok()) {
      return compared;
    }
  }
  Result(result_key::kLossFirst, loss_first);
  return loss_first;
}

// Phase traced: `traced` steps with verbose on and a worker line before each layer's work;
// reports the last step's loss (`loss`, the loss so far, when there is none).
void TracedPhase(mlp::Trainer& trainer, const ModelRunOptions& options, const mlp::Dataset& train,
                 TracingObserver& observer, int level, int& step, float loss) {
  EnterPhase("traced");
  SetTracing(observer, true, level);
  const auto traced_start = Clock::now();
  for (int i = 0; i < options.traced; ++i) {
    loss = trainer.Step(mlp::GetBatch(train, step++, options.model.batch));
  }
  const double traced_s = std::chrono::duration<double>(Clock::now() - traced_start).count();
  SetTracing(observer, false, level);
  if (options.traced > 0) Result(result_key::kStepMsTraced, traced_s * 1e3 / options.traced);
  Result(result_key::kLossLast, loss);
}

}  // namespace

Status RunModelWorker(const ModelRunOptions& options) {
  // Line-buffered, so that what was done before a crash reaches the parent.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  const int level = TracingLevel();
  // Data first: a bad --data directory is the user's error, reported before any work.
  StatusOr<TrainingData> data = LoadData(options);
  if (!data.ok()) return data.status();
  const mlp::Dataset& train = data->train;
  Emit(ResultLine(result_key::kTrainSamples, static_cast<std::int64_t>(train.size())));
  if (options.peak) PeakPhase();

  TracingObserver observer;  // outlives the trainer, which reports to it
  StatusOr<std::unique_ptr<mlp::Trainer>> made = InitPhase(options, observer, level);
  if (!made.ok()) return made.status();
  mlp::Trainer& trainer = **made;
  int step = 0;
  StatusOr<float> loss_first = ReferencePhase(trainer, options.model, train, step);
  if (!loss_first.ok()) return loss_first.status();

  EnterPhase("warmup");
  for (int i = 0; i < options.warmup; ++i) {
    trainer.Step(mlp::GetBatch(train, step++, options.model.batch));
  }
  EnterPhase("timed");
  std::fflush(stdout);
  float loss = TimedSteps(trainer, train, options, step);
  if (options.iters == 0) loss = *loss_first;
  TracedPhase(trainer, options, train, observer, level, step, loss);

  if (data->test.size() > 0) {
    EnterPhase("evaluate");
    Result(result_key::kTestAccuracy, mlp::Accuracy(trainer, data->test));
  }
  EnterPhase("done");
  std::fflush(stdout);
  return {};
}

}  // namespace dlcheck::dispatch
