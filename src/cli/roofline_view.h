// SPDX-License-Identifier: Apache-2.0
#pragma once
// The hot rows of a report placed on the machine's roofline, for every command with rows (parse,
// run, verbose): the two options, the machine profile they name, read before any work, and the
// table with its findings (roofline/row_roofline.h does the placing).
//
//   AddRooflineOptions(*sub, o->roofline);                       // --roofline, --machine-profile
//   StatusOr<std::optional<RooflineProfile>> machine = LoadRooflineProfile(o.roofline);
//   placed = roofline::PlaceHotRows(rows, machine->profile);  // before the rows move
//   ... the primitives table ...   AddRowRoofline(placed, **machine, report);

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "report/report.h"
#include "roofline/machine_profile.h"
#include "roofline/row_roofline.h"

namespace dlcheck::cli {

/// What --roofline and --machine-profile asked.
struct RooflineRequest {
  bool roofline = false;        ///< --roofline: place the hot rows under this CPU's profile
  std::string machine_profile;  ///< --machine-profile FILE: that one instead
  bool asked() const { return roofline || !machine_profile.empty(); }
};

/// Adds `--roofline` and `--machine-profile FILE` to a command.
void AddRooflineOptions(CLI::App& sub, RooflineRequest& request);

/// The machine profile a request names (FILE, or this CPU's in the cache), with its path.
struct RooflineProfile {
  roofline::MachineProfile profile;
  std::string path;
};

/// Reads the profile `request` names (nullopt when it asks for none): an InputError, naming
/// `dlcheck roofline`, where none is stored or the file is not one.
StatusOr<std::optional<RooflineProfile>> LoadRooflineProfile(const RooflineRequest& request);

/// The hot rows placed (roofline::PlaceHotRows, before the rows move into their table) on
/// `machine`'s roofline: the row_roofline table and its findings.
void AddRowRoofline(const std::vector<roofline::PlacedRow>& placed, const RooflineProfile& machine,
                    report::Report& report);

}  // namespace dlcheck::cli
