#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <map>
#include <regex>

#include "cli/commands.h"
#include "cli/enum_option.h"
#include "detect/library_versions.h"
#include "dispatch/onednn_info.h"
#include "dlcheck/version.h"

namespace dlcheck::cli {

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
         help.empty() ? "output format: table (default), csv or json" : help)
      ->check(CLI::IsMember(names, CLI::ignore_case))
      ->type_name("FORMAT");
  sub.add_option_function<std::string>(
         "--columns",
         [](const std::string& list) {
           report::PrintSettings settings = report::CurrentPrintSettings();
           settings.columns = CLI::detail::split(list, ',');
           report::SetPrintSettings(std::move(settings));
         },
         "the main table's columns, in this order, in every format (comma-separated names; "
         "an unknown name lists the valid ones)")
      ->type_name("LIST");
  sub.add_flag_callback(
      "--csv-lf",
      [] {
        report::PrintSettings settings = report::CurrentPrintSettings();
        settings.csv_lf = true;
        report::SetPrintSettings(std::move(settings));
      },
      "CSV lines end in LF (for awk, cut, grep) instead of CRLF");
}

void AddRowOptions(CLI::App& sub, SortKey& sort, std::size_t& top) {
  AddEnumOption(sub, "--sort", sort,
                {{"time", SortKey::kTime},
                 {"execs", SortKey::kExecs},
                 {"creates", SortKey::kCreates},
                 {"name", SortKey::kName}},
                "row order: time (default), execs, creates, name", "KEY");
  sub.add_option("--top", top, "print only the first N rows (0: all)")
      ->check(CLI::NonNegativeNumber.description(""))
      ->type_name("N");
}

void PrintError(const std::string& message) {
  std::cerr << "dlcheck: " << message << '\n';
}

int EndCommand(const StatusOr<int>& result, std::optional<int> failure_exit_code) {
  if (result.ok()) return *result;
  PrintError(result.status().message());
  return failure_exit_code.value_or(ToInt(result.status().code()));
}

std::string VersionText() {
  return "dlcheck " + std::string(kVersion) + "\noneDNN " + dispatch::OneDnnVersion() +
         "\nlibcpuid " + detect::LibcpuidVersion() + "\nhwloc " + detect::HwlocVersion();
}

}  // namespace dlcheck::cli

namespace dlcheck::cli {
namespace {

std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j < row.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string DidYouMean(std::string_view word, const std::vector<std::string>& candidates) {
  const std::string nearest = NearestName(word, candidates);
  return nearest.empty() ? std::string() : "; did you mean '" + nearest + "'?";
}

// The commands a user can name (the hidden worker is not one).
std::vector<std::string> CommandNames(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  }
  return names;
}

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

}  // namespace

std::string NearestName(std::string_view word, const std::vector<std::string>& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    const std::size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string UsageErrorText(CLI::App& app, const std::vector<std::string>& args,
                           const CLI::ParseError& error) {
  const std::string top_help = " (see 'dlcheck --help')";
  const auto word = std::find_if(args.begin(), args.end(),
                                 [](const std::string& a) { return a.empty() || a[0] != '-'; });
  if (word == args.end()) {
    std::string names;
    for (const auto& name : CommandNames(app)) names += (names.empty() ? "" : ", ") + name;
    return "no command given: name one of " + names + top_help;
  }
  const std::vector<std::string> commands = CommandNames(app);
  if (std::find(commands.begin(), commands.end(), *word) == commands.end()) {
    // The hidden worker is named by dlcheck itself, never by a user: its errors stay as they are.
    if (*word == "worker") return std::string(error.what());
    return "unknown command '" + *word + "'" + DidYouMean(*word, commands) + top_help;
  }
  CLI::App& sub = *app.get_subcommand(*word);
  const std::string help = " (see 'dlcheck " + *word + " --help')";
  const std::vector<std::string> rest(word + 1, args.end());
  if (const std::string unknown = UnknownOption(sub, rest); !unknown.empty()) {
    return *word + ": unknown option '" + unknown + "'" + DidYouMean(unknown, OptionNames(sub)) +
           help;
  }
  return *word + ": " + ShortRangeText(error.what()) + help;
}

}  // namespace dlcheck::cli
