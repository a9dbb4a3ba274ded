#include "fleet/fleet_report.h"

#include <fmt/format.h>

#include "fleet/hostlist.h"

namespace dlcheck::fleet {
namespace {

std::string Words(const std::vector<std::string>& words) {
  return fmt::format("{}", fmt::join(words, " "));
}

void AddGroups(const Fleet& fleet, report::Report& report) {
  report::Table& t = report.AddTable("groups",
                                     {"group", "hosts", "hostlist", "best", "cpu", "onednn_isa",
                                      "topology", "status", "lacks", "features"},
                                     "Groups (by usable features, oneDNN ISA, topology, status)");
  t.hidden_in_table = {"features"};
  t.answer_columns = {"lacks"};
  t.leave_out_first = {"topology", "cpu", "onednn_isa"};
  int number = 0;
  for (const FleetGroup& g : fleet.groups) {
    t.rows.push_back({++number, g.hosts.size(), CompressHostlist(g.hosts), g.best, g.cpu,
                      g.onednn_isa,
                      g.topology.empty() ? report::Value() : report::Value(g.topology),
                      g.check_status.empty() ? report::Value() : report::Value(g.check_status),
                      Words(g.lacks), Words(g.usable)});
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

report::Report FleetReport(const Fleet& fleet) {
  report::Report report;
  report.command = "fleet";
  report.AddSection("fleet", "Fleet")
      .Add("reports", fleet.files)
      .Add("hosts", fleet.hosts())
      .Add("groups", fleet.groups.size())
      .Add("skipped", fleet.skipped.size())
      .Add("versions", fleet.versions.size());
  AddGroups(fleet, report);
  AddLists(fleet, report);
  report.primary_table = "groups";
  return report;
}

}  // namespace dlcheck::fleet
