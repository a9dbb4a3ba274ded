#include <iostream>
#include <map>

#include "cli/commands.h"
#include "detect/library_versions.h"
#include "dispatch/onednn_info.h"
#include "dlcheck/version.h"

namespace dlcheck::cli {

void AddFormatOption(CLI::App& sub, report::Format& format, bool allow_trace) {
  std::map<std::string, report::Format> formats = {{"table", report::Format::kTable},
                                                   {"csv", report::Format::kCsv},
                                                   {"json", report::Format::kJson}};
  if (allow_trace) formats.emplace("trace", report::Format::kTrace);
  sub.add_option("-f,--format", format,
                 allow_trace ? "output format: table (default), csv, json or trace"
                             : "output format: table (default), csv or json")
      ->transform(CLI::CheckedTransformer(formats, CLI::ignore_case))
      ->default_str("table");
}

void PrintError(const std::string& message) {
  std::cerr << "dlcheck: " << message << '\n';
}

std::string VersionText() {
  return "dlcheck " + std::string(kVersion) + "\noneDNN " + dispatch::OneDnnVersion() +
         "\nlibcpuid " + detect::LibcpuidVersion() + "\nhwloc " + detect::HwlocVersion();
}

}  // namespace dlcheck::cli
