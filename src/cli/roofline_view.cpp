// SPDX-License-Identifier: Apache-2.0
#include "cli/roofline_view.h"

#include "cli/commands.h"

namespace dlcheck::cli {

void AddRooflineOptions(CLI::App& sub, RooflineRequest& request) {
  sub.add_flag("--roofline", request.roofline,
               "place the hot rows on this machine's roofline (bytes per call, intensity, the "
               "roof that binds, its fraction) under the machine profile 'dlcheck roofline' "
               "stored for this CPU, without measuring again");
  sub.add_option("--machine-profile", request.machine_profile,
                 "--roofline under this stored machine profile (a roofline-*.json) instead of "
                 "this CPU's")
      ->check(NotEmpty("file"))
      ->option_text("FILE");
}

StatusOr<std::optional<RooflineProfile>> LoadRooflineProfile(const RooflineRequest& request) {
  if (!request.asked()) return std::optional<RooflineProfile>();
  std::string path = request.machine_profile;
  if (path.empty()) {
    StatusOr<std::string> stored = roofline::StoredProfilePath();
    if (!stored.ok()) return stored.status();
    path = *stored;
  }
  StatusOr<roofline::MachineProfile> profile = roofline::LoadProfile(path);
  if (!profile.ok()) return profile.status();
  return std::optional<RooflineProfile>(RooflineProfile{std::move(*profile), path});
}

void AddRowRoofline(const std::vector<roofline::PlacedRow>& placed, const RooflineProfile& machine,
                    report::Report& report) {
  roofline::AddRooflineTable(placed, report);
  for (Finding& finding : roofline::RooflineFindings(placed, machine.profile, machine.path)) {
    report.findings.push_back(std::move(finding));
  }
}

}  // namespace dlcheck::cli
