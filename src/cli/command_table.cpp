// SPDX-License-Identifier: Apache-2.0
// The one table of dlcheck's commands: main adds each row as a subcommand, `dlcheck help` and
// the "did you mean" of a mistyped command read the names, and `dlcheck help --list` prints the
// report commands for the tests, the schema check and `make schemas`. A new command is its file,
// one row here (and its Setup's declaration beside the table), its CMake line and its docs.
#include "check/check.h"
#include "check/check_report.h"
#include "cli/commands.h"
#include "compare/row_diff.h"
#include "detect/platform_report.h"
#include "fleet/fleet_report.h"
#include "profile/profile_report.h"
#include "roofline/roofline_report.h"

namespace dlcheck::cli {

// Each command's file defines its Setup; nothing but this table calls them.
void SetupVerbose(CLI::App& sub, int& exit_code);
void SetupParse(CLI::App& sub, int& exit_code);
void SetupRun(CLI::App& sub, int& exit_code);
void SetupProfile(CLI::App& sub, int& exit_code);
void SetupPlatform(CLI::App& sub, int& exit_code);
void SetupRoofline(CLI::App& sub, int& exit_code);
void SetupDispatch(CLI::App& sub, int& exit_code);
void SetupWhatif(CLI::App& sub, int& exit_code);
void SetupTune(CLI::App& sub, int& exit_code);
void SetupCheck(CLI::App& sub, int& exit_code);
void SetupDiff(CLI::App& sub, int& exit_code);
void SetupFleet(CLI::App& sub, int& exit_code);
void SetupWorker(CLI::App& sub, int& exit_code);
void SetupSchema(CLI::App& sub, int& exit_code);
void SetupHelp(CLI::App& sub, int& exit_code);

namespace {

using Kind = Command::Kind;

// In --help order: the main job first.
const Command kCommands[] = {
    {"verbose", "train a model through oneDNN in a worker and report every primitive it ran",
     SetupVerbose, VerboseDocument},
    {"parse", "the per-primitive report from a oneDNN/MKL-DNN verbose log (any version)",
     SetupParse, ParseDocument},
    {"run", "run a program with oneDNN verbose on and report every primitive it ran", SetupRun,
     RunDocument},
    {"profile",
     "sample the model (or -- CMD) with perf: CPU time by class, JIT kernels by primitive, time "
     "by framework operator, off-CPU time, flame graphs",
     SetupProfile, ProfileCommandDocument},
    {"platform", "what this CPU machine can do for deep learning", SetupPlatform,
     detect::PlatformDocument},
    {"roofline",
     "the machine's limits: memory bandwidth by level and threads, the peak of each data type; "
     "stored for later commands",
     SetupRoofline, roofline::RooflineDocument},
    {"dispatch",
     "run a model (or, after --, a program) under each oneDNN ISA cap and thread set, side by "
     "side per primitive",
     SetupDispatch, DispatchDocument},
    {"whatif",
     "rebuild the hot primitives of a log (or of the model, or, after --, a program) with "
     "oneDNN and measure what layouts, implementations, threads, data types and ISA caps would "
     "gain",
     SetupWhatif, WhatifDocument},
    {"tune",
     "measure the settings around oneDNN on a program (after --): threads, OpenMP waiting and "
     "placement, allocator, oneDNN's variables, your own; ranked, with the line to apply",
     SetupTune, TuneDocument},
    // A monitoring system reads the status: once `check` is named, a bad command line is UNKNOWN,
    // and so is any failure of the check itself (memory, a report that cannot be written).
    {"check",
     "provisioning smoke check: requirements, probes and a short MLP pass; exit 0 OK, 1 WARNING, "
     "2 CRITICAL, 3 UNKNOWN",
     SetupCheck, check::CheckDocument, check::ToInt(check::State::kUnknown)},
    {"diff",
     "compare two runs (verbose logs or JSON reports of parse, verbose, run): implementation "
     "changes, time ratios, new and vanished rows; exit 1 when B regressed",
     SetupDiff, compare::DiffDocument},
    {"fleet", "many hosts' JSON reports grouped by capability: groups, what each lacks, outliers",
     SetupFleet, fleet::FleetDocument},
    // Named by dlcheck itself (verbose, dispatch and check start it), never by a user.
    {"worker", "run a model for a parent dlcheck (internal)", SetupWorker, nullptr, std::nullopt,
     Kind::kHidden},
    // For `make schemas` and scripts that validate a document.
    {"schema", "print the JSON Schema of a command's JSON document", SetupSchema, nullptr,
     std::nullopt, Kind::kHidden},
    {"help", "show the manual page of COMMAND (or the options of dlcheck)", SetupHelp, nullptr,
     std::nullopt, Kind::kUtility},
};

}  // namespace

std::span<const Command> Commands() {
  return kCommands;
}

const Command* FindCommand(std::string_view name) {
  for (const Command& command : kCommands) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

std::vector<std::string> CommandNames(Command::Kind least_visible) {
  std::vector<std::string> names;
  for (const Command& command : kCommands) {
    if (command.kind <= least_visible) names.emplace_back(command.name);
  }
  return names;
}

}  // namespace dlcheck::cli
