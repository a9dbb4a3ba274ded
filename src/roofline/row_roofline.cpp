// SPDX-License-Identifier: Apache-2.0
#include "roofline/row_roofline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "common/finding_codes.h"

namespace dlcheck::roofline {
namespace {

std::string RowName(const PlacedRow& row) {
  return row.primitive + " " + row.problem;
}

// "a and b", "a, b and c".
std::string JoinedAnd(const std::vector<std::string>& items) {
  std::string text;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) text += i + 1 == items.size() ? " and " : ", ";
    text += items[i];
  }
  return text;
}

}  // namespace

std::vector<PlacedRow> PlaceHotRows(const std::vector<verbose::PrimitiveStats>& rows,
                                    const MachineProfile& profile) {
  std::vector<const verbose::PrimitiveStats*> by_time;
  for (const verbose::PrimitiveStats& row : rows) by_time.push_back(&row);
  std::stable_sort(by_time.begin(), by_time.end(),
                   [](const verbose::PrimitiveStats* a, const verbose::PrimitiveStats* b) {
                     return a->exec_ms_total > b->exec_ms_total;
                   });
  std::vector<PlacedRow> placed;
  for (const verbose::PrimitiveStats* row : by_time) {
    if (placed.size() >= kHotRows) break;
    const std::optional<double> mean = row->ExecMsMean();
    if (!row->flops || !mean) continue;
    const std::optional<double> bytes =
        BytesPerCall(row->primitive.view(), row->problem.view(), row->data_types.view(),
                     row->memory_descriptors.view());
    if (!bytes) continue;
    PlacedRow p;
    p.primitive = std::string(row->primitive.view());
    p.prop_kind = std::string(row->prop_kind.view());
    if (row->layer) p.layer = std::string(row->layer->view());
    p.implementation = std::string(row->implementation.view());
    p.problem = std::string(row->problem.view());
    p.dtype = ComputeDataType(row->data_types.view());
    p.exec_ms_mean = *mean;
    p.bytes = *bytes;
    p.roofs.memory_gbps = profile.MemoryGbps();
    const std::optional<ComputePeak> peak = profile.BestPeak(p.dtype);
    p.has_peak = peak.has_value();
    // Without a peak of its type the row is held to the memory roof alone.
    p.roofs.peak_gflops = peak ? peak->gflops : std::numeric_limits<double>::infinity();
    const std::optional<Placement> place = Place(*row->flops, *bytes, *mean / 1e3, p.roofs);
    if (!place) continue;
    p.placement = *place;
    placed.push_back(std::move(p));
  }
  return placed;
}

std::vector<Finding> RooflineFindings(const std::vector<PlacedRow>& placed,
                                      const MachineProfile& profile,
                                      const std::string& profile_path) {
  std::vector<Finding> findings;
  // Whose roofs: the profile's CPU (this host's, or another's given by --machine-profile).
  const std::string machine = profile.brand.empty() ? std::string("an unnamed CPU") : profile.brand;
  std::string roofs = fmt::format("DRAM {:.1f} GB/s", profile.MemoryGbps());
  for (const char* dtype : {"f32", "bf16", "f16", "int8"}) {
    if (const std::optional<ComputePeak> peak = profile.BestPeak(dtype)) {
      roofs += fmt::format(", {} {:.1f} GFLOP/s", dtype, peak->gflops);
    }
  }
  findings.push_back(
      {Severity::kInfo, codes::kRooflineRoofs,
       fmt::format("the hot rows are placed under the roofs of the machine profile {} (of {}, "
                   "measured {}): {}; bytes per call by "
                   "benchdnn's rule: src, weights, bias and dst, each moved once",
                   profile_path, machine, profile.measured_at, roofs)});
  std::vector<std::string> memory_bound;
  std::vector<std::string> no_peak;
  for (const PlacedRow& row : placed) {
    if (!row.has_peak && !row.dtype.empty()) no_peak.push_back(row.dtype);
    if (row.placement.bound == Bound::kMemory) {
      memory_bound.push_back(fmt::format("{} at {:.0f}% of its {:.1f} GFLOP/s memory roof",
                                         RowName(row), 100 * row.placement.fraction,
                                         row.placement.roof_gflops));
    }
    if (row.placement.fraction < kFarBelowRoof) {
      findings.push_back(
          {Severity::kWarning, codes::kFarBelowRoof,
           fmt::format("{} ({}) reaches {:.0f}% of its {} roof ({:.1f} of {:.1f} GFLOP/s): a "
                       "kernel or layout problem, not the machine's limit; see 'dlcheck whatif'",
                       RowName(row), row.implementation, 100 * row.placement.fraction,
                       BoundName(row.placement.bound), row.placement.achieved_gflops,
                       row.placement.roof_gflops)});
    }
  }
  if (!memory_bound.empty()) {
    findings.push_back(
        {Severity::kInfo, codes::kMemoryBound,
         fmt::format("{} of the hot rows {} memory-bound ({}): more threads, AMX or bf16 compute "
                     "will not help {}; fewer bytes will: int8/bf16 weights, a larger batch",
                     memory_bound.size(), memory_bound.size() == 1 ? "is" : "are",
                     JoinedAnd(memory_bound), memory_bound.size() == 1 ? "it" : "them")});
  }
  std::sort(no_peak.begin(), no_peak.end());
  no_peak.erase(std::unique(no_peak.begin(), no_peak.end()), no_peak.end());
  for (const std::string& dtype : no_peak) {
    findings.push_back({Severity::kInfo, codes::kNoPeakForDtype,
                        "the profile has no " + dtype + " peak (its machine, " + machine +
                            ", has no " + dtype +
                            " unit dlcheck measures, see 'dlcheck roofline'): its rows are held "
                            "to the memory roof alone"});
  }
  return findings;
}

report::contract::Member RowRooflineMember() {
  return report::contract::Rows(kRowRooflineTable, report::contract::Members(kRowRooflineColumns));
}

void AddRooflineTable(const std::vector<PlacedRow>& placed, report::Report& report) {
  using report::Value;
  report::Table& table = report.AddTable(kRowRooflineTable, kRowRooflineColumns);
  // What the table is for, at any width: which kernel, which roof binds it, how close it gets.
  table.answer_columns = report::Names({rrc::kImplementation, rrc::kBound, rrc::kRoofFraction});
  table.leave_out_first =
      report::Names({rrc::kExecMsMean, rrc::kBytesPerCall, rrc::kGbps, rrc::kMemoryRoofGflops,
                     rrc::kPeakGflops, rrc::kIntensity, rrc::kDtype});
  for (const PlacedRow& row : placed) {
    const Placement& p = row.placement;
    table.AddRow()
        .Set(rrc::kPrimitive, row.primitive)
        .Set(rrc::kPropKind, row.prop_kind)
        .Set(rrc::kLayer, row.layer.empty() ? Value() : Value(row.layer))
        .Set(rrc::kImplementation, row.implementation)
        .Set(rrc::kProblem, row.problem)
        .Set(rrc::kDtype, row.dtype.empty() ? Value() : Value(row.dtype))
        .Set(rrc::kExecMsMean, Value(row.exec_ms_mean, 3))
        .Set(rrc::kBytesPerCall, static_cast<std::int64_t>(std::llround(row.bytes)))
        .Set(rrc::kIntensity, Value(p.intensity, 2))
        .Set(rrc::kGflops, Value(p.achieved_gflops, 2))
        .Set(rrc::kGbps, Value(p.achieved_gbps, 2))
        .Set(rrc::kMemoryRoofGflops, Value(p.memory_roof_gflops, 2))
        .Set(rrc::kPeakGflops, row.has_peak ? Value(row.roofs.peak_gflops, 1) : Value())
        .Set(rrc::kBound, BoundName(p.bound))
        .Set(rrc::kRoofFraction, Value(p.fraction, 3));
  }
}

}  // namespace dlcheck::roofline
