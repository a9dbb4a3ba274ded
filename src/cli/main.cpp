// dlcheck: what a CPU machine can do for deep learning, and what oneDNN does on it.
// main() wires the subcommands (one file each) and turns errors into exit codes.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>

#include "cli/commands.h"
#include "common/exit_code.h"

int main(int argc, char** argv) {
  using dlcheck::ExitCode;
  CLI::App app{"dlcheck: what a CPU machine can do for deep learning, and what oneDNN does on it",
               "dlcheck"};
  app.require_subcommand(1);
  app.set_version_flag(
      "-V,--version", [] { return dlcheck::cli::VersionText(); },
      "print the versions of dlcheck, oneDNN, libcpuid and hwloc");
  app.footer("See dlcheck(1) for the output columns and the exit status.");

  // A usage error's code until a command runs (see commands.h); the command then sets its own.
  int exit_code = dlcheck::ToInt(ExitCode::kUsage);
  // In --help order: the main job first.
  dlcheck::cli::SetupVerbose(app, exit_code);
  dlcheck::cli::SetupParse(app, exit_code);
  dlcheck::cli::SetupRun(app, exit_code);
  dlcheck::cli::SetupProfile(app, exit_code);
  dlcheck::cli::SetupPlatform(app, exit_code);
  dlcheck::cli::SetupDispatch(app, exit_code);
  dlcheck::cli::SetupCheck(app, exit_code);
  dlcheck::cli::SetupDiff(app, exit_code);
  dlcheck::cli::SetupFleet(app, exit_code);
  dlcheck::cli::SetupWorker(app, exit_code);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    dlcheck::cli::PrintError(std::string(e.what()) + " (run 'dlcheck --help' for usage)");
    return exit_code;
  } catch (const std::exception& e) {
    dlcheck::cli::PrintError(std::string("internal error: ") + e.what() +
                             " (this is a bug in dlcheck; please report it)");
    return dlcheck::ToInt(ExitCode::kFailure);
  }
  return exit_code;
}
