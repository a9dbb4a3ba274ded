// dlcheck help [COMMAND]: what `dlcheck [COMMAND] --help` prints; an unknown command is a usage
// error with the nearest name. `dlcheck help --list` (hidden) prints the report commands of the
// command table, one per line, for the tests, the schema check and `make schemas`.
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "common/exit_code.h"

namespace dlcheck::cli {
namespace {

struct HelpOptions {
  std::string command;  ///< empty: dlcheck's own help
  bool list = false;
};

int PrintCommandList() {
  for (const std::string& name : CommandNames(Command::Kind::kReport)) std::cout << name << '\n';
  return ToInt(ExitCode::kOk);
}

int PrintHelp(CLI::App& app, const std::string& command) {
  CLI::App* about = &app;
  if (!command.empty()) {
    const std::vector<std::string> names = CommandNames(Command::Kind::kUtility);
    if (std::find(names.begin(), names.end(), command) == names.end()) {
      PrintError("help: unknown command '" + command + "'" + DidYouMean(command, names) +
                 " (see 'dlcheck --help')");
      return ToInt(ExitCode::kUsage);
    }
    about = app.get_subcommand(command);
  }
  // App::help would print the help of the command being run (this one): the formatter is asked.
  std::cout << about->get_formatter()->make_help(
      about, about == &app ? app.get_name() : app.get_name() + " " + about->get_name(),
      CLI::AppFormatMode::Normal);
  return ToInt(ExitCode::kOk);
}

}  // namespace

void SetupHelp(CLI::App& subcommand, int& exit_code) {
  auto o = std::make_shared<HelpOptions>();
  subcommand.add_option("command", o->command, "the command whose options to print")
      ->type_name("COMMAND");
  subcommand.add_flag("--list", o->list, "print the report commands, one per line")->group("");
  CLI::App& app = *subcommand.get_parent();
  subcommand.callback([&app, o, &exit_code] {
    exit_code = o->list ? PrintCommandList() : PrintHelp(app, o->command);
  });
}

}  // namespace dlcheck::cli
