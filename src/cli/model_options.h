// SPDX-License-Identifier: Apache-2.0
#pragma once
// The model options shared by `verbose`, `dispatch` and the hidden `worker`, made from their one
// description (dispatch::VisitModelOptions), which also makes the worker's argv; and the capture
// options (--threads, --timeout) of the commands that run a worker or a program.

#include <CLI/CLI.hpp>
#include <string>

#include "dispatch/model_worker.h"

namespace dlcheck::cli {

/// A real number above 0 and finite ("nan", "inf", "0", "-1" are refused): seconds of a
/// --timeout, a learning rate.
const CLI::Validator& PositiveFinite();

/// The one rule for a duration in seconds (every --timeout): a finite number above 0 and at most
/// kMaxSeconds, so that every clock it reaches (std::chrono's nanoseconds) holds it.
inline constexpr double kMaxSeconds = 30.0 * 86400;
const CLI::Validator& Seconds();

/// A real number from `low` to `high`; unlike CLI::Range, "nan", "-nan" and "inf" are refused.
/// PositiveFinite, Seconds and RealRange share one check: every floating option of every command
/// takes one of the three (command_table_test tries "nan" on each).
CLI::Validator RealRange(double low, double high);

/// --model, --dtype, --backend, --layers, --batch, --iters, --warmup, --traced, --seed, --lr,
/// --data.
void AddModelOptions(CLI::App& sub, dispatch::ModelRunOptions& options);
/// The first option of `group` (the model's options, grouped so by a command that takes the
/// model or something else: `dispatch -- CMD`, `whatif LOG`) that `sub`'s command line gave, or
/// nullptr: such a command refuses the model's options with the other.
const CLI::Option* GivenOptionOf(const CLI::App& sub, std::string_view group);
/// A command's capture options: where -t,--threads and --timeout go, and what each means for the
/// command (whose threads, the defaults, what the limit covers). A null target: the command has
/// no such option.
struct CaptureOptions {
  int* threads = nullptr;
  std::string threads_help;
  double* timeout_s = nullptr;
  std::string timeout_help;
};
/// -t,--threads N (OpenMP threads, 1 to 4096) and --timeout SECONDS (Seconds()): the options of
/// every command that runs a model worker or a program (`verbose`, `dispatch`, `profile`,
/// `check`), declared once.
void AddCaptureOptions(CLI::App& sub, const CaptureOptions& options);
/// The same, and the options only the worker takes (--cpuset, --peak): every option
/// dispatch::WorkerArguments writes.
void AddWorkerOptions(CLI::App& sub, dispatch::ModelRunOptions& options);

}  // namespace dlcheck::cli
