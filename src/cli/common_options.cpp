// SPDX-License-Identifier: Apache-2.0
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <utility>

#include "cli/commands.h"
#include "cli/dispatch_report.h"
#include "cli/enum_option.h"
#include "common/text.h"
#include "detect/library_versions.h"
#include "dispatch/noise.h"
#include "dispatch/onednn_info.h"
#include "dlcheck/version.h"
#include "os/cpu_budget.h"
#include "os/output_file.h"
#include "profile/profile_report.h"
#include "report/safe_text.h"

namespace dlcheck::cli {

namespace {

// "output format: table (default), csv, json or xlsx": every name the option accepts.
std::string FormatHelp(const std::vector<std::string>& names) {
  std::string text = "output format: ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " or " : ", ";
    text += names[i] + (i == 0 ? " (default)" : "");
  }
  return text;
}

// "table,csv,json,xlsx": the names, less the aliases (`text`, `table` under another name).
std::string FormatList(const std::vector<std::string>& names) {
  std::string list;
  std::vector<report::Format> listed;
  for (const std::string& name : names) {
    const report::Format format = report::ParseFormat(name).value();
    if (std::find(listed.begin(), listed.end(), format) != listed.end()) continue;
    listed.push_back(format);
    list += (list.empty() ? "" : ",") + name;
  }
  return list;
}

// The report's -o FILE while the command runs: std::cout writes into the file's stream, and
// standard output's own buffer waits to be put back.
struct ReportOutput {
  os::OutputFile file;
  std::streambuf* standard_output = nullptr;
};

std::unique_ptr<ReportOutput>& PendingReportOutput() {
  static std::unique_ptr<ReportOutput> pending;
  return pending;
}

// The options of every command that prints tables: `--columns [TABLE:]LIST`, `--csv-lf`,
// `--csv-raw`.
void AddTableOptions(CLI::App& sub) {
  sub.add_option_function<std::vector<std::string>>(
         "--columns",
         [](const std::vector<std::string>& lists) {
           report::PrintSettings settings = report::CurrentPrintSettings();
           for (const std::string& list : lists) {
             settings.columns.push_back(report::ParseColumnChoice(list));
           }
           report::SetPrintSettings(std::move(settings));
         },
         "[TABLE:]NAME,... a table's columns, in this order, in every format; no TABLE: the main "
         "table; repeat for more tables (an unknown name lists the valid ones)")
      ->type_name("LIST")
      ->allow_extra_args(false);
  sub.add_flag_callback(
      "--csv-lf",
      [] {
        report::PrintSettings settings = report::CurrentPrintSettings();
        settings.csv_lf = true;
        report::SetPrintSettings(std::move(settings));
      },
      "CSV lines end in LF (for awk, cut, grep) instead of CRLF");
  sub.add_flag_callback(
      "--csv-raw",
      [] {
        report::PrintSettings settings = report::CurrentPrintSettings();
        settings.csv_raw = true;
        report::SetPrintSettings(std::move(settings));
      },
      "CSV text cells as they are, for programs (pandas, R, awk): no ' before a leading = + - @ "
      "(the guard that keeps a spreadsheet from running it as a formula)");
}

}  // namespace

void AddFormatOption(CLI::App& sub, report::Format& format,
                     const std::vector<std::string_view>& extra_names, const std::string& help) {
  std::vector<std::string> names;
  for (const report::FormatChoice& choice : report::kFormatChoices) {
    if (choice.every_command ||
        std::find(extra_names.begin(), extra_names.end(), choice.name) != extra_names.end()) {
      names.emplace_back(choice.name);
    }
  }
  // IsMember has already turned the value into one of `names`, which ParseFormat knows.
  sub.add_option_function<std::string>(
         "-f,--format",
         [&format](const std::string& name) { format = report::ParseFormat(name).value(); },
         help.empty() ? FormatHelp(names) : help)
      ->check(CLI::IsMember(names, CLI::ignore_case))
      ->type_name("FORMAT:{" + FormatList(names) + "}");
  AddTableOptions(sub);
}

void OneValuePerOccurrence(CLI::App& sub) {
  for (CLI::Option* option : sub.get_options()) {
    if (option->get_positional() || option->get_items_expected_max() <= 1) continue;
    // A container: one value (split at its delimiter) each time it is named; a count of values
    // is the command's to check (mlp::Validate: --layers).
    option->expected(CLI::detail::expected_max_vector_size)->allow_extra_args(false);
  }
}

void AddOutputOption(CLI::App& sub) {
  sub.add_option_function<std::string>(
         "-o,--output",
         [](const std::string& path) {
           DiscardReportOutput();  // a second -o: the last one given
           auto output = std::make_unique<ReportOutput>();
           if (Status opened = output->file.Open(path); !opened.ok()) {
             throw report::OutputError(opened.message());
           }
           std::cout.flush();
           output->standard_output = std::cout.rdbuf(output->file.stream().rdbuf());
           PendingReportOutput() = std::move(output);
           // A file gets the full table, as a pipe does.
           report::PrintSettings settings = report::CurrentPrintSettings();
           settings.width = 0;
           report::SetPrintSettings(std::move(settings));
         },
         "write the report to FILE instead of standard output (replaced when the command "
         "succeeds; a failed command leaves it as it was)")
      ->type_name("FILE");
}

Status CommitReportOutput() {
  const std::unique_ptr<ReportOutput> output = std::move(PendingReportOutput());
  if (!output) return Status();
  std::cout.flush();
  std::cout.rdbuf(output->standard_output);  // also clears a failed write's state
  return output->file.Commit();
}

void DiscardReportOutput() {
  const std::unique_ptr<ReportOutput> output = std::move(PendingReportOutput());
  if (output) std::cout.rdbuf(output->standard_output);
}  // the temporary file goes with `output`

void AddRowOptions(CLI::App& sub, SortKey& sort, std::size_t& top) {
  std::vector<std::pair<std::string, SortKey>> choices;
  std::vector<std::string> names;
  for (const auto& [name, key] : kSortKeys) {
    choices.emplace_back(name, key);
    names.push_back(key == sort ? std::string(name) + " (default)" : std::string(name));
  }
  AddEnumOption(sub, "--sort", sort, std::move(choices), "row order: " + Join(names, ", "), "KEY");
  sub.add_option("--top", top, "print only the first N rows (0: all)")
      ->check(CLI::NonNegativeNumber.description(""))
      ->type_name("N");
}

void AddJobsOption(CLI::App& sub, int& jobs) {
  sub.add_option("-j,--jobs", jobs,
                 "threads that read a log file of 64 MiB or more, the calling one among them "
                 "(default: the CPUs dlcheck may use, at most 8); the report is the same for any "
                 "N")
      ->check(CLI::Range(1, 1024).description(""))
      ->type_name("N");
}

int LogJobs() {
  // The calling thread is one of the N: it parses the chunks no worker has claimed and replays
  // the workers' records in line order. A replay takes about a tenth of the time its worker took
  // to parse the chunk (0.11 against 1.1 ms for 4 MiB, docs/measurements.md), so past about ten
  // threads the workers would wait on it: the default stops at 8 (an estimate from those times,
  // not a timing on a machine with more CPUs).
  constexpr int kMaxDefaultJobs = 8;
  return std::clamp(os::UsableCpus(), 1, kMaxDefaultJobs);
}

namespace {

// The tables (Rows and KeyedRows members) a document declares, nested ones too.
void CollectTables(const std::vector<report::contract::Member>& members,
                   std::vector<const report::contract::Member*>& tables) {
  using report::contract::Shape;
  for (const report::contract::Member& m : members) {
    if (m.shape == Shape::kRows || m.shape == Shape::kKeyedRows) tables.push_back(&m);
    if (m.shape == Shape::kObject) CollectTables(m.members, tables);
  }
}

bool HasColumn(const report::contract::Member& table, const std::string& name) {
  // A keyed table's first column is its key, which the document does not name.
  if (table.shape == report::contract::Shape::kKeyedRows) return true;
  return report::contract::FindMember(table.members, name) != nullptr;
}

}  // namespace

namespace {

// The tables `command` prints that its document does not declare: reading views, laid out at
// run time (dispatch's per-cap sweep, profile's stacks).
std::vector<std::string_view> ViewTables(std::string_view command) {
  if (command == "dispatch") return {kSweepView};
  if (command == "profile") return {report::kStacksTable, profile::kOffCpuByWaitView.name};
  return {};
}

}  // namespace

// Of `candidates`, the table that declares most of `names` (the first on a tie): the one a
// choice without TABLE: most likely meant, named in its error.
const report::contract::Member* MeantTable(
    const std::vector<const report::contract::Member*>& candidates,
    const std::vector<std::string>& names) {
  const report::contract::Member* meant = candidates.front();
  std::size_t best = 0;
  for (const auto* t : candidates) {
    const auto known = static_cast<std::size_t>(std::count_if(
        names.begin(), names.end(), [&](const std::string& n) { return HasColumn(*t, n); }));
    if (known > best) {
      best = known;
      meant = t;
    }
  }
  return meant;
}

void CheckColumnChoices(const report::contract::Document& document) {
  std::vector<const report::contract::Member*> tables;
  CollectTables(document.members, tables);
  const std::vector<std::string_view> views = ViewTables(document.command);
  for (const report::ColumnChoice& choice : report::CurrentPrintSettings().columns) {
    std::vector<const report::contract::Member*> candidates;
    for (const auto* t : tables) {
      if (choice.table.empty() || t->name == choice.table) candidates.push_back(t);
    }
    // A reading view the command makes (dispatch's sweep, profile's stacks) has its columns made
    // at run time: they are checked when the report is printed. Any other table the document
    // does not declare is refused now, before a program or a model runs for nothing.
    if (candidates.empty() && (choice.table.empty() || std::find(views.begin(), views.end(),
                                                                 choice.table) != views.end())) {
      continue;
    }
    if (candidates.empty()) {
      std::vector<std::string> names;
      for (const auto* t : tables) names.push_back(t->name);
      for (std::string_view v : views) names.emplace_back(v);
      throw report::ColumnChoiceError("--columns: no table '" + report::ShortInput(choice.table) +
                                      "' in the " + document.command + " report" +
                                      DidYouMean(choice.table, names) +
                                      "; its tables: " + Join(names, ","));
    }
    for (const std::string& name : choice.names) {
      if (std::any_of(candidates.begin(), candidates.end(),
                      [&](const auto* t) { return HasColumn(*t, name); })) {
        continue;
      }
      const report::contract::Member* main =
          choice.table.empty() && !document.main_table.empty()
              ? report::contract::FindMember(document.members, document.main_table)
              : nullptr;
      const report::contract::Member& meant =
          main != nullptr ? *main : *MeantTable(candidates, choice.names);
      std::vector<std::string> columns;
      for (const auto& m : meant.members) columns.push_back(m.name);
      throw report::ColumnChoiceError("--columns: unknown column '" + report::ShortInput(name) +
                                      "'" + DidYouMean(name, columns) + "; the " + meant.name +
                                      " table has: " + Join(columns, ","));
    }
  }
}

void PrintError(const std::string& message) {
  // The one sanitizer of log text (report/safe_text.h) for every value a message echoes.
  std::cerr << "dlcheck: " << report::SafeMessage(message) << '\n';
}

int EndCommand(const StatusOr<int>& result, std::optional<int> failure_exit_code) {
  // -o FILE takes the report of a command that ended with a value, whatever exit code it chose
  // (diff's regression, verbose's deviation); a failure leaves FILE as it was.
  Status failure = result.status();
  if (result.ok()) {
    failure = CommitReportOutput();
  } else {
    DiscardReportOutput();
  }
  if (failure.ok()) return *result;
  PrintError(failure.message());
  return failure_exit_code.value_or(ToInt(failure.code()));
}

std::string VersionText() {
  return "dlcheck " + std::string(kVersion) + "\noneDNN " + dispatch::OneDnnVersion() +
         "\nlibcpuid " + detect::LibcpuidVersion() + "\nhwloc " + detect::HwlocVersion();
}

}  // namespace dlcheck::cli

namespace dlcheck::cli {
namespace {

// Every long and short option of `sub`, spelled as on the command line.
std::vector<std::string> OptionNames(const CLI::App& sub) {
  std::vector<std::string> names;
  for (const CLI::Option* option : sub.get_options()) {
    for (const auto& name : option->get_lnames()) names.push_back("--" + name);
    for (const auto& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

bool LooksLikeNumber(const std::string& arg) {
  return arg.size() > 1 && arg[0] == '-' &&
         (std::isdigit(static_cast<unsigned char>(arg[1])) != 0 || arg[1] == '.');
}

// The first option among `args` (up to `--`) that `sub` does not have, as typed; empty if none.
std::string UnknownOption(const CLI::App& sub, const std::vector<std::string>& args) {
  const std::vector<std::string> known = OptionNames(sub);
  for (const auto& arg : args) {
    if (arg == "--") break;
    if (arg.size() < 2 || arg[0] != '-' || LooksLikeNumber(arg)) continue;
    std::string name = arg.substr(0, arg.find('='));
    if (name[1] != '-' && name.size() > 2) name = name.substr(0, 2);  // -fjson
    if (std::find(known.begin(), known.end(), name) == known.end()) return name;
  }
  return {};
}

// CLI11's range message ("--top: Value -1 not in range 0.000000 to 1.797693e+308", hundreds of
// characters for a size_t) said in a few words.
std::string ShortRangeText(const std::string& message) {
  static const std::regex range(R"(^(.*): Value (\S+) not in range (\S+) to (\S+)$)");
  std::smatch m;
  if (!std::regex_match(message, m, range)) return message;
  const double low = std::strtod(m[3].str().c_str(), nullptr);
  const double high = std::strtod(m[4].str().c_str(), nullptr);
  const std::string given = m[2].str();
  char* end = nullptr;
  const double value = std::strtod(given.c_str(), &end);
  const bool number = end != given.c_str() && *end == '\0';
  // CLI11 prints PositiveNumber's least value, the smallest double, as 0.000000: a value that is
  // not below it failed for being 0.
  std::string bound;
  if (high >= 1e15 && low == 0 && number && value >= 0) {
    bound = "must be more than 0";
  } else if (high >= 1e15) {
    bound = fmt::format("must be {} or more", low);
  } else {
    bound = fmt::format("must be from {} to {}", low, high);
  }
  if (!number) return fmt::format("{}: '{}' is not a number: it {}", m[1].str(), given, bound);
  return fmt::format("{}: {} {}", m[1].str(), m[2].str(), bound);
}

// The --format the command that runs was given (its name as typed, and the format), if any.
std::optional<std::pair<std::string, report::Format>> ChosenFormat(CLI::App& app) {
  const std::vector<CLI::App*> ran = app.get_subcommands();
  if (ran.empty()) return std::nullopt;
  const CLI::Option* format = ran.front()->get_option_no_throw("--format");
  if (format == nullptr || format->count() == 0) return std::nullopt;
  const std::string name = format->results().back();
  const auto chosen = report::ParseFormat(name);
  if (!chosen) return std::nullopt;
  return std::pair{name, *chosen};
}

}  // namespace

void PrepareChosenFormat(CLI::App& app) {
  if (const auto chosen = ChosenFormat(app)) report::PrepareFormat(chosen->second);
}

void RefuseFileOnlyOnTerminal(CLI::App& app) {
  if (isatty(STDOUT_FILENO) == 0) return;
  const auto chosen = ChosenFormat(app);
  if (!chosen || !report::IsFileOnly(chosen->second)) return;
  const CLI::Option* output = app.get_subcommands().front()->get_option_no_throw("--output");
  if (output != nullptr && output->count() > 0) return;
  const std::string what = chosen->second == report::Format::kHtml ? "a web page is for a browser"
                                                                   : "a workbook is binary";
  throw CLI::ValidationError("--format " + chosen->first,
                             what +
                                 " and standard output is a terminal; write it to a file (-o "
                                 "FILE, or > FILE)");
}

std::string UsageErrorText(CLI::App& app, const std::vector<std::string>& args,
                           const CLI::ParseError& error) {
  const std::string top_help = " (see 'dlcheck --help')";
  const auto word = std::find_if(args.begin(), args.end(),
                                 [](const std::string& a) { return a.empty() || a[0] != '-'; });
  const std::string top_unknown = UnknownOption(app, {args.begin(), word});
  if (!top_unknown.empty()) {
    return "unknown option '" + report::ShortInput(top_unknown) + "'" +
           DidYouMean(top_unknown, OptionNames(app)) + top_help;
  }
  if (word == args.end()) {
    std::string names;
    for (const auto& name : CommandNames(Command::Kind::kUtility)) {
      names += (names.empty() ? "" : ", ") + name;
    }
    return "no command given: name one of " + names + top_help;
  }
  const Command* named = FindCommand(*word);
  if (named == nullptr) {
    return "unknown command '" + report::ShortInput(*word) + "'" +
           DidYouMean(*word, CommandNames(Command::Kind::kUtility)) + top_help;
  }
  // A hidden command is named by dlcheck itself or a script, not a user: its errors stay as
  // CLI11 says them.
  if (named->kind == Command::Kind::kHidden) return report::ShortWords(error.what());
  CLI::App& sub = *app.get_subcommand(*word);
  const std::string help = " (see 'dlcheck " + *word + " --help')";
  const std::vector<std::string> rest(word + 1, args.end());
  if (const std::string unknown = UnknownOption(sub, rest); !unknown.empty()) {
    return *word + ": unknown option '" + report::ShortInput(unknown) + "'" +
           DidYouMean(unknown, OptionNames(sub)) + help;
  }
  return *word + ": " + report::ShortWords(ShortRangeText(error.what())) + help;
}

}  // namespace dlcheck::cli
