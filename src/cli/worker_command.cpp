// SPDX-License-Identifier: Apache-2.0
// dlcheck worker: the model run in a child process (started by `verbose`, `dispatch`, `check`);
// hidden from --help.
#include <optional>

#include "cli/commands.h"
#include "cli/model_options.h"
#include "detect/binding.h"
#include "dispatch/worker_protocol.h"
#include "mlp/model.h"

namespace dlcheck::cli {
namespace {

StatusOr<int> RunWorker(const dispatch::ModelRunOptions& options) {
  if (Status valid = mlp::Validate(options.model); !valid.ok()) return valid;
  // Bound before oneDNN or OpenMP start a thread: every thread inherits the binding.
  if (!options.cpuset.empty()) {
    if (Status bound = detect::BindProcess(options.cpuset); !bound.ok()) return bound;
  }
  if (Status ran = dispatch::RunModelWorker(options); !ran.ok()) return ran;
  return ToInt(ExitCode::kOk);
}

// The worker's error edge: memory that ran out tells the parent so with
// dispatch::kWorkerOutOfMemoryExit, and nothing else does. A model oneDNN could not allocate comes
// back from mlp::MakeTrainer as kUnsupported (its only use of it); a std::bad_alloc elsewhere
// (loading --data, a step) reaches main's error edge, which ends with the same number.
int EndWorker(const dispatch::ModelRunOptions& options) {
  const StatusOr<int> result = RunWorker(options);
  const bool out_of_memory = !result.ok() && result.status().code() == ExitCode::kUnsupported;
  return EndCommand(result,
                    out_of_memory ? std::optional(dispatch::kWorkerOutOfMemoryExit) : std::nullopt);
}

}  // namespace

// Every model option and the worker's own (--cpuset, --peak).
void SetupWorker(CLI::App& subcommand, int& exit_code) {
  auto options = std::make_shared<dispatch::ModelRunOptions>();
  CLI::App* const sub = &subcommand;
  AddWorkerOptions(*sub, *options);
  sub->callback([options, &exit_code] { exit_code = EndWorker(*options); });
}

}  // namespace dlcheck::cli
