// dlcheck worker: the model run in a child process (started by `verbose`, `dispatch`, `check`);
// hidden from --help.
#include "cli/commands.h"
#include "cli/model_options.h"
#include "detect/binding.h"
#include "mlp/model.h"

namespace dlcheck::cli {
namespace {

// Exit status 7 tells the parent that memory ran out, and nothing else does: a model oneDNN
// could not allocate comes back as kUnsupported (mlp::MakeTrainer), and a std::bad_alloc anywhere
// else (loading --data, a step) reaches main's error edge, which ends with 7 too.
StatusOr<int> RunWorker(const dispatch::ModelRunOptions& options) {
  if (Status valid = mlp::Validate(options.model); !valid.ok()) return valid;
  // Bound before oneDNN or OpenMP start a thread: every thread inherits the binding.
  if (!options.cpuset.empty()) {
    if (Status bound = detect::BindProcess(options.cpuset); !bound.ok()) return bound;
  }
  if (Status ran = dispatch::RunModelWorker(options); !ran.ok()) return ran;
  return ToInt(ExitCode::kOk);
}

}  // namespace

// Every model option and the worker's own (--cpuset, --peak).
void SetupWorker(CLI::App& subcommand, int& exit_code) {
  auto options = std::make_shared<dispatch::ModelRunOptions>();
  CLI::App* const sub = &subcommand;
  AddWorkerOptions(*sub, *options);
  sub->callback([options, &exit_code] { exit_code = EndCommand(RunWorker(*options)); });
}

}  // namespace dlcheck::cli
