// SPDX-License-Identifier: Apache-2.0
#pragma once
// The words of a captured run, declared once for every document that reports one: the model
// run's (`verbose`'s and `check`'s run section, `dispatch --model`'s run section and runs table)
// and a program's (`run`'s run section, `dispatch -- CMD`'s configurations): one value has one
// name in each, whichever command printed it.
//
//   run.Add(model_run_field::kStepMs, report::Value(*results.step_ms_timed, 4));

#include "report/field.h"

namespace dlcheck::dispatch::model_run_field {

using report::Field;
using report::Type;

// clang-format off
// What ran, as asked for.
inline constexpr Field kModel{"model"};                          ///< mlp or cnn
inline constexpr Field kLayers{"layers"};                        ///< the MLP's widths
inline constexpr Field kBackendRequested{"backend_requested"};
inline constexpr Field kBackend{"backend"};                      ///< what ran: onednn or scalar
inline constexpr Field kDtype{"dtype"};
inline constexpr Field kBatch{"batch", Type::kInteger};
inline constexpr Field kTrainSamples{"train_samples", Type::kInteger};
inline constexpr Field kWarmupIters{"warmup_iters", Type::kInteger};
inline constexpr Field kTimedIters{"timed_iters", Type::kInteger};  ///< steps the timed phase ran
inline constexpr Field kTimedS{"timed_s", Type::kNumber};  ///< the timed phase's budget; null: --iters
inline constexpr Field kTracedIters{"traced_iters", Type::kInteger};
inline constexpr Field kThreads{"threads", Type::kInteger};
inline constexpr Field kMaxCpuIsa{"max_cpu_isa"};                ///< the ISA cap it ran under
// What it measured.
inline constexpr Field kSamplesPerS{"samples_per_s", Type::kNumber};
inline constexpr Field kSamplesPerSMin{"samples_per_s_min", Type::kNumber};
inline constexpr Field kSamplesPerSMax{"samples_per_s_max", Type::kNumber};
inline constexpr Field kSpreadPct{"spread_pct", Type::kNumber};
inline constexpr Field kStepMs{"step_ms", Type::kNumber};        ///< mean step, verbose off
inline constexpr Field kStepMsTraced{"step_ms_traced", Type::kNumber};  ///< verbose on
inline constexpr Field kVerboseOverheadPct{"verbose_overhead_pct", Type::kNumber};
inline constexpr Field kLossFirst{"loss_first", Type::kNumber};
inline constexpr Field kLossLast{"loss_last", Type::kNumber};
inline constexpr Field kTestAccuracy{"test_accuracy", Type::kNumber};
inline constexpr Field kMaxDeviation{"max_deviation", Type::kNumber};  ///< from the scalar reference
inline constexpr Field kDeviationTensor{"deviation_tensor"};
inline constexpr Field kTolerance{"tolerance", Type::kNumber};
inline constexpr Field kOnednnVersion{"onednn_version"};
inline constexpr Field kDetectedIsa{"detected_isa"};             ///< the ISA oneDNN's log named
inline constexpr Field kWorker{"worker"};                        ///< "ok", or how the worker ended
// Where its figures come from (the noise guard, dispatch/noise.h).
inline constexpr Field kThreadsFrom{"threads_from"};  ///< what chose the thread count
inline constexpr Field kLoadStart{"load_start", Type::kNumber};  ///< 1-minute load average
inline constexpr Field kLoadEnd{"load_end", Type::kNumber};
// clang-format on

}  // namespace dlcheck::dispatch::model_run_field

namespace dlcheck::dispatch::program_run_field {

using report::Field;
using report::Type;

// clang-format off
inline constexpr Field kCommand{"command"};                      ///< the program and its arguments
inline constexpr Field kExitStatus{"exit_status", Type::kInteger};  ///< as a shell says it
inline constexpr Field kEnded{"ended"};                          ///< how it ended, in words
inline constexpr Field kSignal{"signal"};                        ///< the signal that ended it
inline constexpr Field kForwardedSignal{"forwarded_signal"};     ///< the one dlcheck passed on
inline constexpr Field kWallS{"wall_s", Type::kNumber};
inline constexpr Field kRuntime{"runtime"};                      ///< oneDNN's CPU runtime
inline constexpr Field kIsa{"isa"};                              ///< the ISA its log names
inline constexpr Field kExecMs{"exec_ms", Type::kNumber};        ///< oneDNN's exec time, summed
inline constexpr Field kExecPctOfWall{"exec_pct_of_wall", Type::kNumber};
/// The verbose level variables the program got (`ONEDNN_VERBOSE=2,dispatch DNNL_VERBOSE=2 ...`).
inline constexpr Field kVerboseRequest{"verbose_request"};
inline constexpr Field kVerboseRequestFrom{"verbose_request_from"};  ///< dlcheck or environment
inline constexpr Field kVerboseLines{"verbose_lines", Type::kInteger};
inline constexpr Field kProgramLines{"program_lines", Type::kInteger};
inline constexpr Field kProgramBytes{"program_bytes", Type::kInteger};
// clang-format on

/// The section of `run`'s report that holds these (`diff` reads its wall time back).
inline constexpr report::Part kProgramRunPart{"run", "Run"};

}  // namespace dlcheck::dispatch::program_run_field
