// dlcheck worker: the model run in a child process (started by `verbose`); hidden from --help.
#include "cli/commands.h"
#include "cli/model_options.h"
#include "mlp/model.h"

namespace dlcheck::cli {

void SetupWorker(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<dispatch::ModelRunOptions>();
  auto* sub = app.add_subcommand("worker", "run a model for a parent dlcheck (internal)");
  sub->group("");  // hidden: users run `verbose`, which starts this
  AddModelOptions(*sub, *options);
  sub->callback([options, &exit_code] {
    if (Status s = mlp::Validate(options->model); !s.ok()) {
      PrintError(s.message());
      exit_code = ToInt(s.code());
      return;
    }
    exit_code = dispatch::RunModelWorker(*options);
  });
}

}  // namespace dlcheck::cli
