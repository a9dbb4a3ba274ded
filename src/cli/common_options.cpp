#include <algorithm>
#include <iostream>
#include <map>

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
}

void AddRowOptions(CLI::App& sub, SortKey& sort, std::size_t& top) {
  AddEnumOption(sub, "--sort", sort,
                {{"time", SortKey::kTime},
                 {"execs", SortKey::kExecs},
                 {"creates", SortKey::kCreates},
                 {"name", SortKey::kName}},
                "row order: time (default), execs, creates, name", "KEY");
  sub.add_option("--top", top, "print only the first N rows (0: all)")
      ->check(CLI::NonNegativeNumber);
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
