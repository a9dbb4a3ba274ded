// SPDX-License-Identifier: Apache-2.0
#pragma once
// A log's hot rows under this machine's roofline (`parse --roofline`): each row that has work
// and bytes by benchdnn's rule placed under the stored profile's roofs, the `roofline` table
// that lays them out (declared here, once) and the findings they make: `memory-bound`,
// `far-below-roof`, and the roofs used (`roofline-roofs`).
//
//   std::vector<PlacedRow> placed = PlaceHotRows(rows, profile);
//   AddRooflineTable(placed, report);
//   for (Finding& f : RooflineFindings(placed, profile, path)) report.findings.push_back(f);
#include <array>
#include <string>
#include <vector>

#include "common/finding.h"
#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"
#include "roofline/machine_profile.h"
#include "roofline/placement.h"
#include "verbose/primitive_stats.h"

namespace dlcheck::roofline {

/// One hot row under the roofline.
struct PlacedRow {
  std::string primitive;
  std::string prop_kind;  ///< forward and backward passes of one layer are two rows
  std::string layer;      ///< the model layer that ran it ("": none named)
  std::string implementation;
  std::string problem;
  std::string dtype;  ///< ComputeDataType of the row
  double exec_ms_mean = 0;
  double bytes = 0;  ///< per call, BytesPerCall
  Roofs roofs;
  bool has_peak = false;  ///< the profile has a peak of this data type (else the memory roof alone)
  Placement placement;
};

/// At most this many rows are placed: the ones with the most execution time.
inline constexpr std::size_t kHotRows = 10;

/// The rows with the most execution time (at most kHotRows) that have work, bytes and a time,
/// placed under `profile`'s roofs, the most time first.
std::vector<PlacedRow> PlaceHotRows(const std::vector<verbose::PrimitiveStats>& rows,
                                    const MachineProfile& profile);

/// The findings of the placed rows: `memory-bound` (info, the rows and what would help),
/// `far-below-roof` (warning, each row under kFarBelowRoof of its binding roof), and
/// `roofline-roofs` (info: the roofs used and where they come from, `profile_path`).
std::vector<Finding> RooflineFindings(const std::vector<PlacedRow>& placed,
                                      const MachineProfile& profile,
                                      const std::string& profile_path);

namespace row_roofline_column {
using report::Field;
using report::Type;
// clang-format off
inline constexpr Field kPrimitive = report::IdentityColumn("primitive");
inline constexpr Field kPropKind = report::PropagationColumn();
inline constexpr Field kLayer = report::IdentityColumn("layer");  ///< null: no layer named
inline constexpr Field kImplementation = report::IdentityColumn("implementation");
inline constexpr Field kProblem = report::IdentityColumn("problem");
inline constexpr Field kDtype{"dtype"};
inline constexpr Field kExecMsMean{"exec_ms_mean", Type::kNumber};
inline constexpr Field kBytesPerCall{"bytes_per_call", Type::kInteger};
inline constexpr Field kIntensity{"intensity", Type::kNumber};        ///< flops per byte
inline constexpr Field kGflops{"gflops", Type::kNumber};              ///< achieved
inline constexpr Field kGbps{"gbps", Type::kNumber};                  ///< achieved
inline constexpr Field kMemoryRoofGflops{"memory_roof_gflops", Type::kNumber};
inline constexpr Field kPeakGflops{"peak_gflops", Type::kNumber};     ///< null: none measured
inline constexpr Field kBound{"bound"};                               ///< "memory" or "compute"
inline constexpr Field kRoofFraction{"roof_fraction", Type::kNumber};  ///< of the binding roof
// clang-format on
}  // namespace row_roofline_column

inline constexpr report::Part kRowRooflineTable{"roofline", "Hot rows on this machine's roofline"};

namespace rrc = row_roofline_column;
inline constexpr std::array kRowRooflineColumns = {
    rrc::kPrimitive,  rrc::kPropKind, rrc::kLayer,       rrc::kImplementation,
    rrc::kProblem,    rrc::kDtype,    rrc::kExecMsMean,  rrc::kBytesPerCall,
    rrc::kIntensity,  rrc::kGflops,   rrc::kGbps,        rrc::kMemoryRoofGflops,
    rrc::kPeakGflops, rrc::kBound,    rrc::kRoofFraction};

/// The table's member, for a document that carries it (parse).
report::contract::Member RowRooflineMember();

/// Adds the `roofline` table of `placed` to `report`.
void AddRooflineTable(const std::vector<PlacedRow>& placed, report::Report& report);

}  // namespace dlcheck::roofline
