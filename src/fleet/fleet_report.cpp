// SPDX-License-Identifier: Apache-2.0
#include "fleet/fleet_report.h"

#include <fmt/format.h>

#include "common/finding_codes.h"
#include "fleet/hostlist.h"
#include "fleet/node_outputs.h"

namespace dlcheck::fleet {
namespace {

// A list of words: an array in JSON, the words joined by spaces in the table and CSV.
report::Value Words(const std::vector<std::string>& words) {
  return report::Value(report::TextList(words));
}

// Distinct values of a group's hosts as one cell: "Intel(R) Xeon(R) ...; Intel(R) Xeon(R) ..."
// (CPU brands hold spaces, so the list is joined by "; "); null when there are none.
report::Value Distinct(const std::vector<std::string>& values) {
  if (values.empty()) return report::Value();
  return report::Value(fmt::format("{}", fmt::join(values, "; ")));
}

// `text`, or null when it is empty.
report::Value TextOrNull(const std::string& text) {
  return text.empty() ? report::Value() : report::Value(text);
}

// One count of a group's topology; null when the reports had no topology.
report::Value Count(const std::optional<TopologyShape>& shape, long TopologyShape::*count) {
  return shape ? report::Value((*shape).*count) : report::Value();
}

void AddGroups(const Fleet& fleet, report::Report& report) {
  using namespace fleet_field;
  report::Table& t = report.AddTable(kGroupsTable, kGroupColumns);
  t.hidden_in_table = report::Names({kFeatures, kHidden});
  // What the table is for: which hosts, what oneDNN runs there, what they lack. Kept whole at 80
  // columns (answer columns are never left out, and not cut below 24 columns: the widest ISA
  // name fits, so avx512_core_bf16 and avx512_core_amx stay apart).
  t.answer_columns = report::Names({kHostlist, kOnednnIsa, kLacks});
  t.leave_out_first = report::Names({kPus, kCores, kNumaNodes, kSockets});
  int number = 0;
  for (const FleetGroup& g : fleet.groups) {
    t.AddRow()
        .Set(kGroup, ++number)
        .Set(kHosts, g.hosts.size())
        .Set(kHostlist, CompressHostlist(g.hosts))
        .Set(kBest, g.best)
        .Set(kCpu, Distinct(g.cpus))
        .Set(kMicroarchitecture, Distinct(g.microarchitectures))
        .Set(kOnednnIsa, g.onednn_isa)
        .Set(kSockets, Count(g.topology, &TopologyShape::sockets))
        .Set(kNumaNodes, Count(g.topology, &TopologyShape::numa_nodes))
        .Set(kCores, Count(g.topology, &TopologyShape::cores))
        .Set(kPus, Count(g.topology, &TopologyShape::pus))
        .Set(kStatus, TextOrNull(g.check_status))
        .Set(kLacks, Words(g.lacks))
        .Set(kFeatures, Words(g.usable))
        .Set(kHidden, Words(g.hidden));
  }
  // Hidden is marked over lacks: the silicon has it, the guest does not see it.
  report.charts.push_back({.kind = report::Chart::Kind::kMatrix,
                           .title = "Features by group of hosts",
                           .table = std::string(kGroupsTable.name),
                           .label = report::Names({kHostlist}),
                           .marks = {{std::string(kFeatures.name), "\u2713", "#a6d99a"},
                                     {std::string(kLacks.name), "\u2717", "#f2a3a3"},
                                     {std::string(kHidden.name), "H", "#f7c873"}}});
}

// Every host with its group: JSON and xlsx (the human table has the groups' hostlists).
void AddHosts(const Fleet& fleet, report::Report& report) {
  report::Table& t = report.AddTable(kHostsTable, kHostColumns);
  t.omit_in_table = true;
  t.rows.reserve(fleet.host_rows.size());
  for (const FleetHost& h : fleet.host_rows) {
    using namespace fleet_field;
    t.AddRow()
        .Set(kHost, h.host)
        .Set(kGroup, h.group)
        .Set(kCpu, h.cpu)
        .Set(kMicroarchitecture, TextOrNull(h.microarchitecture))
        .Set(kOnednnIsa, TextOrNull(h.onednn_isa))
        .Set(kStatus, TextOrNull(h.check_status))
        .Set(kDlcheckVersion, TextOrNull(h.dlcheck_version))
        .Set(kFile, h.file);
  }
}

void AddLists(const Fleet& fleet, report::Report& report) {
  report::Table& outliers = report.AddTable(kOutliersTable, kOutlierColumns);
  using namespace fleet_field;
  for (const Outlier& o : fleet.outliers) {
    outliers.AddRow().Set(kHost, o.host).Set(kProblem, o.problem);
  }
  report::Table& skipped = report.AddTable(kSkippedTable, kSkippedColumns);
  for (const SkippedReport& s : fleet.skipped)
    skipped.AddRow().Set(kFile, s.file).Set(kReason, s.reason);
  report::Table& versions = report.AddTable(kVersionsTable, kVersionColumns);
  for (const auto& [version, hosts] : fleet.versions) {
    versions.AddRow()
        .Set(kDlcheckVersion, version)
        .Set(kHosts, hosts.size())
        .Set(kHostlist, CompressHostlist(hosts));
  }
}

}  // namespace

const report::contract::Document& FleetDocument() {
  static const report::contract::Document kFleet = [] {
    using namespace fleet_field;
    namespace contract = report::contract;
    return contract::Document{
        "fleet",
        "many hosts' reports grouped by what the nodes can do",
        {contract::Object(kFleetSection, {kReports, kHosts, kGroups, kSkipped, kVersions}),
         contract::Rows(kGroupsTable, contract::Members(kGroupColumns)),
         contract::Rows(kOutliersTable, contract::Members(kOutlierColumns)),
         contract::Rows(kSkippedTable, contract::Members(kSkippedColumns)),
         contract::Rows(kVersionsTable, contract::Members(kVersionColumns)),
         contract::Rows(kHostsTable, contract::Members(kHostColumns))},
        std::string(kGroupsTable.name)};
  }();
  return kFleet;
}

SlurmConfLines FleetSlurmConf(const Fleet& fleet) {
  SlurmConfLines out;
  for (const FleetGroup& g : fleet.groups) {
    const std::string nodes = CompressHostlist(g.hosts);
    const auto invalid = std::find_if(g.hosts.begin(), g.hosts.end(), [](const std::string& h) {
      return !CheckedNodeName(h, "host").ok();
    });
    if (invalid != g.hosts.end()) {
      out.left_out.push_back(CheckedNodeName(*invalid, "host").status().message());
      continue;
    }
    std::optional<SlurmNodeHardware> hardware;
    // A count of 0 is unknown (no hardware fields, as before); numbers from reports are written
    // for slurmctld only in its range, else the group is left out.
    if (g.topology && g.memory_mib > 0 && g.topology->sockets > 0 && g.topology->cores > 0 &&
        g.topology->pus > 0) {
      const std::string problem = SlurmHardwareProblem(g.topology->sockets, g.topology->cores,
                                                       g.topology->pus, g.memory_mib);
      if (!problem.empty()) {
        out.left_out.push_back(fmt::format("{}: {}", nodes, problem));
        continue;
      }
      hardware =
          NodeHardware(g.topology->sockets, g.topology->cores, g.topology->pus, g.memory_mib);
    }
    out.lines += SlurmNodeLine(
                     nodes, hardware,
                     SlurmFeatureTokens(g.usable, g.onednn_isa, g.amx_permission, g.check_status)) +
                 "\n";
  }
  return out;
}

std::string FleetVerdict(const Fleet& fleet) {
  std::string verdict = fmt::format("{} host{} in {} group{} of what the nodes can do",
                                    fleet.hosts(), fleet.hosts() == 1 ? "" : "s",
                                    fleet.groups.size(), fleet.groups.size() == 1 ? "" : "s");
  if (!fleet.groups.empty() && !fleet.groups.front().onednn_isa.empty()) {
    verdict += fmt::format(" (the largest: {} on oneDNN {})", fleet.groups.front().hosts.size(),
                           fleet.groups.front().onednn_isa);
  }
  if (!fleet.outliers.empty()) verdict += fmt::format(", {} outlier(s)", fleet.outliers.size());
  if (!fleet.skipped.empty())
    verdict += fmt::format(", {} report(s) skipped", fleet.skipped.size());
  return verdict;
}

report::Report FleetReport(const Fleet& fleet) {
  using namespace fleet_field;
  report::Report report(FleetDocument());
  report.AddSection(kFleetSection)
      .Add(kReports, fleet.files)
      .Add(kHosts, fleet.hosts())
      .Add(kGroups, fleet.groups.size())
      .Add(kSkipped, fleet.skipped.size())
      .Add(kVersions, fleet.versions.size());
  AddGroups(fleet, report);
  AddLists(fleet, report);
  AddHosts(fleet, report);
  for (const std::string& note : fleet.same_silicon) {
    report.AddFinding(Severity::kWarning, codes::kSameSiliconDiffers,
                      note +
                          ": one microarchitecture, different exposed features (a hypervisor, "
                          "BIOS or kernel setting), not a different CPU");
  }
  report::SetVerdict(report, FleetVerdict(fleet));
  return report;
}

}  // namespace dlcheck::fleet
