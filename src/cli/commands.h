#pragma once
// One file per subcommand: an options struct, a Setup...(CLI::App&, int& exit_code) that adds
// the subcommand and its options, and a Run...(const Options&) that returns the exit code.
// main() only wires them.

#include <CLI/CLI.hpp>
#include <string>

#include "report/printer.h"

namespace dlcheck::cli {

void SetupPlatform(CLI::App& app, int& exit_code);
/// `dlcheck verbose --model mlp|cnn`: a training pass through oneDNN, reported per primitive.
void SetupVerbose(CLI::App& app, int& exit_code);
void SetupWorker(CLI::App& app, int& exit_code);

/// `dlcheck parse [FILE...|-]`: the per-primitive report from a oneDNN verbose log.
void SetupParse(CLI::App& app, int& exit_code);

/// `dlcheck check`: the provisioning smoke check (exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).
void SetupCheck(CLI::App& app, int& exit_code);
/// Whether the command line named `check` (its usage errors exit 3 UNKNOWN, not 2 CRITICAL).
bool CheckCommandParsed(const CLI::App& app);
/// `dlcheck dispatch`: the model under each ISA cap and thread set, side by side.
void SetupDispatch(CLI::App& app, int& exit_code);

/// Adds `--format table|csv|json` to a subcommand (and `trace` where the command has a timeline).
void AddFormatOption(CLI::App& sub, report::Format& format, bool allow_trace = false);

/// Prints `dlcheck: <message>` on stderr.
void PrintError(const std::string& message);

/// dlcheck's version and the versions of the libraries it runs on, one per line.
std::string VersionText();

}  // namespace dlcheck::cli
