#pragma once
// The model options shared by `verbose`, `dispatch` and the hidden `worker`, made from their one
// description (dispatch::VisitModelOptions), which also makes the worker's argv.

#include <CLI/CLI.hpp>

#include "dispatch/model_worker.h"

namespace dlcheck::cli {

/// A real number above 0 and finite ("nan", "inf", "0", "-1" are refused): seconds of a
/// --timeout, a learning rate.
const CLI::Validator& PositiveFinite();

/// The one rule for a duration in seconds (every --timeout): a finite number above 0 and at most
/// kMaxSeconds, so that every clock it reaches (std::chrono's nanoseconds) holds it.
inline constexpr double kMaxSeconds = 30.0 * 86400;
const CLI::Validator& Seconds();

/// A real number from `low` to `high`; unlike CLI::Range, "nan" and "inf" are refused.
CLI::Validator RealRange(double low, double high);

/// --model, --dtype, --backend, --layers, --batch, --iters, --warmup, --traced, --seed, --lr,
/// --data.
void AddModelOptions(CLI::App& sub, dispatch::ModelRunOptions& options);
/// The same, and the options only the worker takes (--cpuset, --peak): every option
/// dispatch::WorkerArguments writes.
void AddWorkerOptions(CLI::App& sub, dispatch::ModelRunOptions& options);

}  // namespace dlcheck::cli
