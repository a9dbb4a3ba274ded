// dlcheck worker: the model run in a child process (started by `verbose`); hidden from --help.
#include "cli/commands.h"
#include "cli/model_options.h"
#include "detect/binding.h"
#include "mlp/model.h"

namespace dlcheck::cli {

void SetupWorker(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<dispatch::ModelRunOptions>();
  auto* sub = app.add_subcommand("worker", "run a model for a parent dlcheck (internal)");
  sub->group("");  // hidden: users run `verbose`, which starts this
  AddModelOptions(*sub, *options);
  sub->add_option("--cpuset", options->cpuset, "bind to these CPUs (hwloc list syntax) first");
  sub->add_flag("--peak", options->peak, "measure the single-core FMA peak per vector ISA first");
  sub->callback([options, &exit_code] {
    if (Status s = mlp::Validate(options->model); !s.ok()) {
      PrintError(s.message());
      exit_code = ToInt(s.code());
      return;
    }
    // Bound before oneDNN or OpenMP start a thread: every thread inherits the binding.
    if (!options->cpuset.empty()) {
      if (Status bound = detect::BindProcess(options->cpuset); !bound.ok()) {
        PrintError(bound.message());
        exit_code = ToInt(bound.code());
        return;
      }
    }
    exit_code = dispatch::RunModelWorker(*options);
  });
}

}  // namespace dlcheck::cli
