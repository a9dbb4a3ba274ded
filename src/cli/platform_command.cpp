// dlcheck platform: what this CPU machine can do.
#include "cli/commands.h"
#include "common/exit_code.h"

namespace dlcheck::cli {

void SetupPlatform(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("platform", "what this CPU machine can do for deep learning");
  sub->callback([&exit_code] { exit_code = ToInt(ExitCode::kOk); });
}

}  // namespace dlcheck::cli
