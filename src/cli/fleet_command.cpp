// SPDX-License-Identifier: Apache-2.0
// dlcheck fleet FILE|DIR...: many hosts' JSON reports (`platform` or `check --format json`, one
// file per host, named after the host or carrying a `host` field) grouped by what the nodes can
// do. Unreadable, broken or foreign reports are counted and named in the output, never fatal;
// only a run that finds no usable report at all ends with an input error.
#include <iostream>

#include "cli/commands.h"
#include "cli/enum_option.h"
#include "fleet/fleet.h"
#include "fleet/fleet_report.h"

namespace dlcheck::cli {
namespace {

// What `fleet` prints: its report, or slurm.conf node lines, one per group.
enum class FleetEmit { kReport, kSlurmConf };

struct FleetOptions {
  std::vector<std::string> paths;
  report::Format format = report::Format::kTable;
  FleetEmit emit = FleetEmit::kReport;
};

void PrintSlurmConf(const fleet::Fleet& fleet) {
  const fleet::SlurmConfLines conf = fleet::FleetSlurmConf(fleet);
  std::cout << conf.lines << std::flush;
  for (const std::string& why : conf.left_out) {
    PrintError("a group left out of the node lines: " + why);
  }
}

StatusOr<int> RunFleet(const FleetOptions& o) {
  fleet::FleetReader reader;
  for (const std::string& path : o.paths) reader.Add(path);
  const fleet::Fleet fleet = reader.Finish();
  if (o.emit == FleetEmit::kSlurmConf) {
    PrintSlurmConf(fleet);
  } else {
    report::Print(fleet::FleetReport(fleet), o.format, std::cout);
  }
  if (fleet.groups.empty()) {
    return InputError(
        "no usable dlcheck report among the " + std::to_string(fleet.files) +
        " file(s) given: give the JSON of 'dlcheck platform --format json' or 'dlcheck check "
        "--format json', one file per host (see the skipped reports above)");
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void SetupFleet(CLI::App& subcommand, int& exit_code) {
  auto o = std::make_shared<FleetOptions>();
  CLI::App* const sub = &subcommand;
  sub->add_option("reports", o->paths,
                  "report files (one per host; the host is the report's 'host' or 'check.host', "
                  "else the file name less .json) or directories of *.json files")
      ->required()
      ->type_name("FILE|DIR");
  AddFormatOption(*sub, o->format);
  AddEnumOption(*sub, "--emit", o->emit,
                {{"report", FleetEmit::kReport}, {"slurm-conf", FleetEmit::kSlurmConf}},
                "print instead of the report: slurm-conf (one slurm.conf node line per group, "
                "NodeName a compressed hostlist)",
                "KIND");
  AddOutputOption(*sub);
  sub->callback([o, &exit_code] { exit_code = EndCommand(RunFleet(*o)); });
}

}  // namespace dlcheck::cli
