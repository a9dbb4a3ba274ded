#include "fleet/fleet_report.h"

#include <fmt/format.h>

#include "fleet/hostlist.h"
#include "fleet/node_outputs.h"

namespace dlcheck::fleet {
namespace {

// A list of words: an array in JSON, the words joined by spaces in the table and CSV.
report::Value Words(const std::vector<std::string>& words) {
  return report::Value(report::TextList(words));
}

// One count of a group's topology; null when the reports had no topology.
report::Value Count(const std::optional<TopologyShape>& shape, long TopologyShape::*count) {
  return shape ? report::Value((*shape).*count) : report::Value();
}

void AddGroups(const Fleet& fleet, report::Report& report) {
  report::Table& t =
      report.AddTable("groups",
                      {"group", "hosts", "hostlist", "best", "cpu", "onednn_isa", "sockets",
                       "numa_nodes", "cores", "pus", "status", "lacks", "features"},
                      "Groups (by usable features, oneDNN ISA, topology, status)");
  t.hidden_in_table = {"features"};
  t.answer_columns = {"lacks"};
  t.leave_out_first = {"topology", "cpu", "onednn_isa"};
  int number = 0;
  for (const FleetGroup& g : fleet.groups) {
    t.rows.push_back(
        {++number, g.hosts.size(), CompressHostlist(g.hosts), g.best, g.cpu, g.onednn_isa,
         Count(g.topology, &TopologyShape::sockets), Count(g.topology, &TopologyShape::numa_nodes),
         Count(g.topology, &TopologyShape::cores), Count(g.topology, &TopologyShape::pus),
         g.check_status.empty() ? report::Value() : report::Value(g.check_status), Words(g.lacks),
         Words(g.usable)});
  }
}

void AddLists(const Fleet& fleet, report::Report& report) {
  report::Table& outliers = report.AddTable("outliers", {"host", "problem"}, "Outliers");
  for (const Outlier& o : fleet.outliers) outliers.rows.push_back({o.host, o.problem});
  report::Table& skipped = report.AddTable("skipped", {"file", "reason"}, "Skipped reports");
  for (const SkippedReport& s : fleet.skipped) skipped.rows.push_back({s.file, s.reason});
  report::Table& versions =
      report.AddTable("versions", {"dlcheck_version", "hosts", "hostlist"}, "dlcheck versions");
  for (const auto& [version, hosts] : fleet.versions) {
    versions.rows.push_back({version, hosts.size(), CompressHostlist(hosts)});
  }
}

}  // namespace

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
    if (g.topology && g.memory_mib > 0) {
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

report::Report FleetReport(const Fleet& fleet) {
  report::Report report;
  report.command = "fleet";
  report::Section& summary = report.AddSection("fleet", "Fleet");
  const std::pair<const char*, std::size_t> counts[] = {{"reports", fleet.files},
                                                        {"hosts", fleet.hosts()},
                                                        {"groups", fleet.groups.size()},
                                                        {"skipped", fleet.skipped.size()},
                                                        {"versions", fleet.versions.size()}};
  for (const auto& [key, count] : counts) summary.Add(key, count);
  AddGroups(fleet, report);
  AddLists(fleet, report);
  report.primary_table = "groups";
  return report;
}

}  // namespace dlcheck::fleet
