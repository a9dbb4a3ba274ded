#include <iostream>
#include <map>

#include "cli/commands.h"
#include "cli/enum_option.h"
#include "detect/library_versions.h"
#include "dispatch/onednn_info.h"
#include "dlcheck/version.h"

namespace dlcheck::cli {

void AddFormatOption(CLI::App& sub, report::Format& format, bool allow_trace) {
  std::vector<std::pair<std::string, report::Format>> formats = {{"table", report::Format::kTable},
                                                                 {"csv", report::Format::kCsv},
                                                                 {"json", report::Format::kJson}};
  if (allow_trace) formats.emplace_back("trace", report::Format::kTrace);
  AddEnumOption(sub, "-f,--format", format, formats,
                allow_trace ? "output format: table (default), csv, json or trace (Chrome trace)"
                            : "output format: table (default), csv or json",
                "FORMAT");
}

void PrintError(const std::string& message) {
  std::cerr << "dlcheck: " << message << '\n';
}

std::string VersionText() {
  return "dlcheck " + std::string(kVersion) + "\noneDNN " + dispatch::OneDnnVersion() +
         "\nlibcpuid " + detect::LibcpuidVersion() + "\nhwloc " + detect::HwlocVersion();
}

}  // namespace dlcheck::cli
