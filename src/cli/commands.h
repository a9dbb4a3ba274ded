// SPDX-License-Identifier: Apache-2.0
#pragma once
// One file per subcommand: an options struct, a Setup...(CLI::App& sub, int& exit_code) that adds
// the options and the callback to the subcommand main made from the command's row in the command
// table (command_table.cpp), and a Run...(const Options&) that returns a StatusOr<int>: the exit
// code it chose, or the failure that ends it. The callback hands that to EndCommand, the one
// place that prints `dlcheck: <message>`. main() only iterates the table.
//
//   sub->callback([o, &exit_code] { exit_code = EndCommand(RunVerbose(*o)); });
//
// Until a command's callback runs, `exit_code` holds what a usage error of the command line
// ends with (2, or the row's failure_exit as soon as the command is named).
//
// Where a report's view lives (one rule): a module whose data one report lays out owns that
// report's builder and declares its document beside it (detect: platform; check; fleet; profile;
// compare: diff). A report composed of several modules' data (parse, verbose, run, dispatch) is
// built here, by the views in cli/*_view.h and dispatch_report.h, and its document is declared
// in its command's file (ParseDocument() ... below); decisions (findings, comparisons) stay in
// the module that owns the data, never in a view.

#include <CLI/CLI.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/sort_key.h"
#include "common/nearest_name.h"
#include "common/status.h"
#include "report/contract.h"
#include "report/printer.h"

namespace dlcheck::cli {

/// A report command's declared document (report/contract.h), defined beside its builder.
using DocumentFunction = const report::contract::Document& (*)();

/// A command's Setup: adds the options and the callback of `sub`, the subcommand main made from
/// the command's table row (named and described there). The callback sets `exit_code`.
using SetupFunction = void (*)(CLI::App& sub, int& exit_code);

/// One row of the command table (command_table.cpp), the one list of dlcheck's commands.
struct Command {
  /// Who names the command, from the most visible: a command that writes a report (it has
  /// --format, a JSON document and a SYNOPSIS line in the man page), a utility (`help`), a
  /// command only dlcheck or a script names (hidden from --help and from "did you mean").
  enum class Kind { kReport, kUtility, kHidden };
  std::string_view name;
  std::string_view help;  ///< its line in `dlcheck --help`
  SetupFunction setup;
  /// The document its --format json writes; nullptr for a command without one.
  DocumentFunction document = nullptr;
  /// The exit status of every failure once the command is named (a usage error of its command
  /// line, memory exhausted, a report that could not be written), for a command read by a
  /// convention of its own (`check`: 3, UNKNOWN); nullopt: each failure's own code.
  std::optional<int> failure_exit = std::nullopt;
  Kind kind = Kind::kReport;
};

// The documents of the commands whose builders live in cli (the views): each is defined in its
// command's file, beside the code that fills it.
const report::contract::Document& ParseDocument();
const report::contract::Document& VerboseDocument();
const report::contract::Document& RunDocument();
const report::contract::Document& DispatchDocument();
const report::contract::Document& WhatifDocument();
const report::contract::Document& TuneDocument();
const report::contract::Document& ProfileCommandDocument();

/// Checks the `--columns` choices of the command line against `document` before the command
/// does any work (a model or a program that would run to its end for nothing): a column that no
/// table of its choice declares is a ColumnChoiceError. A table the document does not declare (a
/// view) is left to the printer's own check.
void CheckColumnChoices(const report::contract::Document& document);

/// Every command, in --help order.
std::span<const Command> Commands();
/// The command named `name` (hidden ones too), or nullptr.
const Command* FindCommand(std::string_view name);
/// The names of the commands at most as hidden as `least_visible`, in --help order:
/// kReport gives what `dlcheck help --list` prints, kUtility what a user can name.
std::vector<std::string> CommandNames(Command::Kind least_visible);

/// Adds `-f,--format table|csv|json|xlsx|html` to a subcommand, named as in report::kFormatChoices,
/// with `extra_names` of that list too (`trace` where the command has a timeline, `folded` and
/// `svg` where it has stacks), and the options of every command that prints tables:
/// `--columns [TABLE:]LIST`, `--csv-lf`, `--csv-raw`. `help` replaces the usual help text when
/// not empty.
void AddFormatOption(CLI::App& sub, report::Format& format,
                     const std::vector<std::string_view>& extra_names = {},
                     const std::string& help = {});

/// Adds `-o,--output FILE`: what the command writes to std::cout goes to FILE instead, in every
/// format, at full width, through os::OutputFile (os/output_file.h): a regular file is written
/// under a fresh name beside it and renamed over it by EndCommand when the command ends with a
/// value, so a failed command leaves it as it was and a planted symlink is replaced, never
/// followed; a device or FIFO is written into. FILE is opened as soon as the command line is
/// read: one that cannot be (a directory, a missing directory) is an output error (exit 8)
/// before any work. For commands that print to std::cout (run, profile and check open their own
/// --output with os::OutputFile).
void AddOutputOption(CLI::App& sub);

/// Refuses an empty FILE or DIR (`--cpuid-dump ''`), which would otherwise mean "not given".
CLI::Validator NotEmpty(const std::string& what);

/// Makes every option of `sub` take one value per occurrence (a list is comma-separated or the
/// option repeated), so that `--` always ends dlcheck's options: CLI11 lets an option with room
/// for more values (`--isa avx2`, `--isa=avx2`) swallow the `--` that follows it, and the
/// program's own options (`sh -c ...`) were then read as dlcheck's. main applies it to every
/// command after its Setup; an option that may take no value at all (`platform --probe`) is left.
void OneValuePerOccurrence(CLI::App& sub);

/// Moves the report written so far to -o FILE (flushed, synced, renamed) and gives std::cout its
/// standard output back; the OutputFileError of a write that failed. Nothing to do without -o.
/// EndCommand calls it; a command need not.
Status CommitReportOutput();
/// Gives std::cout its standard output back and leaves -o FILE as it was (the temporary file is
/// removed). EndCommand calls it for a failure, main for an exception that ended a command.
void DiscardReportOutput();

/// Adds `--sort time|execs|creates|name` and `--top N`: the primitives table's row order and
/// length (`parse`, `verbose`, `run`).
void AddRowOptions(CLI::App& sub, SortKey& sort, std::size_t& top);

/// Adds `-j,--jobs N`: the threads that read a large log file (verbose/parallel_feed.h); 0, the
/// default, takes LogJobs(). The report is the same for every N.
void AddJobsOption(CLI::App& sub, int& jobs);
/// The threads a log file is read on by default, the calling one among them: the CPUs dlcheck
/// may use, at most 8 (the one place that asks).
int LogJobs();

/// Throws CLI::ValidationError (a usage error) when the command chose a format for another
/// program (xlsx, html: report::IsFileOnly) for standard output and standard output is a
/// terminal, as gzip refuses: the remedy is -o FILE or a redirect. Run once the command line is
/// parsed, before the command does any work.
void RefuseFileOnlyOnTerminal(CLI::App& app);

/// Loads what the command's chosen --format needs that is not linked (report::PrepareFormat):
/// an OutputError (exit 8) where it cannot, before the command does any work.
void PrepareChosenFormat(CLI::App& app);

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
/// the exit code the command chose. The one place -o FILE (AddOutputOption) is settled: a value
/// commits the report to FILE (a write that fails there is the failure: exit 8), a failure
/// discards it.
int EndCommand(const StatusOr<int>& result, std::optional<int> failure_exit_code = std::nullopt);

/// dlcheck's version and the versions of the libraries it runs on, one per line.
std::string VersionText();

}  // namespace dlcheck::cli
