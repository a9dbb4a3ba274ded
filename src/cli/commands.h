#pragma once
// One file per subcommand: an options struct, a Setup...(CLI::App&, int& exit_code) that adds
// the subcommand and its options, and a Run...(const Options&) that returns a StatusOr<int>: the
// exit code it chose, or the failure that ends it. The callback hands that to EndCommand, the
// one place that prints `dlcheck: <message>`. main() only wires them.
//
//   sub->callback([o, &exit_code] { exit_code = EndCommand(RunVerbose(*o)); });
//
// Until a command's callback runs, `exit_code` holds what a usage error of the command line
// ends with (2; `check` sets 3, UNKNOWN, as soon as it is named).

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/verbose_report.h"
#include "common/nearest_name.h"
#include "common/status.h"
#include "report/printer.h"

namespace dlcheck::cli {

/// `dlcheck platform`: what the machine can do (CPUID, OS, libraries, oneDNN, topology).
void SetupPlatform(CLI::App& app, int& exit_code);
/// `dlcheck verbose --model mlp|cnn`: a training pass through oneDNN, reported per primitive.
void SetupVerbose(CLI::App& app, int& exit_code);
/// `dlcheck worker`: the model run of a parent dlcheck, in a child process (hidden).
void SetupWorker(CLI::App& app, int& exit_code);
/// `dlcheck schema COMMAND`: the JSON Schema of COMMAND's document (hidden).
void SetupSchema(CLI::App& app, int& exit_code);

/// `dlcheck parse [FILE...|-]`: the per-primitive report from a oneDNN verbose log.
void SetupParse(CLI::App& app, int& exit_code);

/// `dlcheck run -- CMD`: the verbose report of any program that uses oneDNN.
void SetupRun(CLI::App& app, int& exit_code);

/// `dlcheck profile [-- CMD]`: perf samples by class, JIT kernel and primitive; flame graphs.
void SetupProfile(CLI::App& app, int& exit_code);

/// `dlcheck check`: the provisioning smoke check (exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).
void SetupCheck(CLI::App& app, int& exit_code);
/// `dlcheck dispatch`: the model under each ISA cap and thread set, side by side.
void SetupDispatch(CLI::App& app, int& exit_code);
/// `dlcheck diff A B`: two runs side by side (exit 0 no regression, 1 regression).
void SetupDiff(CLI::App& app, int& exit_code);
/// `dlcheck fleet FILE|DIR...`: many hosts' reports grouped by what the nodes can do.
void SetupFleet(CLI::App& app, int& exit_code);

/// Adds `-f,--format table|csv|json` to a subcommand, named as in report::kFormatChoices, with
/// `extra_names` of that list too (`trace` where the command has a timeline). `help` replaces
/// the usual help text when not empty.
void AddFormatOption(CLI::App& sub, report::Format& format,
                     const std::vector<std::string_view>& extra_names = {},
                     const std::string& help = {});

/// Adds the options of every command that prints tables, which AddFormatOption adds too:
/// `--columns [TABLE:]LIST`, `--csv-lf`, `--csv-raw` (for `profile`, whose --format is its own).
void AddTableOptions(CLI::App& sub);

/// Adds `-o,--output FILE`: standard output becomes FILE (created, or emptied) as soon as the
/// command line is read, so the report goes there in every format, at full width. A file that
/// cannot be opened is an output error (exit 8). For commands that print to standard output
/// (run, profile and check write their own --output).
void AddOutputOption(CLI::App& sub);

/// Adds `--sort time|execs|creates|name` and `--top N`: the primitives table's row order and
/// length (`parse`, `verbose`, `run`).
void AddRowOptions(CLI::App& sub, SortKey& sort, std::size_t& top);

/// Throws CLI::ValidationError (a usage error) when the command chose a binary format (xlsx)
/// for standard output and standard output is a terminal, as gzip refuses: the remedy is -o FILE
/// or a redirect. Run once the command line is parsed, before the command does any work.
void RefuseBinaryOnTerminal(CLI::App& app);

/// The one-line message for a command-line error (without `dlcheck: `): an unknown command or
/// option is named with the nearest known one ("did you mean"), a range error says the range in
/// words, and every message ends pointing at the help of the command it concerns
/// (`see 'dlcheck parse --help'`). `args` are argv[1...].
std::string UsageErrorText(CLI::App& app, const std::vector<std::string>& args,
                           const CLI::ParseError& error);

using dlcheck::DidYouMean;
using dlcheck::NearestName;

/// Prints `dlcheck: <message>` on stderr.
void PrintError(const std::string& message);

/// A command's error edge: a failure is printed (PrintError) and ends with its Status's code, or
/// with `failure_exit_code` when given (`check` ends every failure with 3, UNKNOWN); a value is
/// the exit code the command chose.
int EndCommand(const StatusOr<int>& result, std::optional<int> failure_exit_code = std::nullopt);

/// dlcheck's version and the versions of the libraries it runs on, one per line.
std::string VersionText();

}  // namespace dlcheck::cli
