// SPDX-License-Identifier: Apache-2.0
// `dlcheck fleet`'s reader and grouping on real reports: the JSON `dlcheck platform` prints for
// recorded machines (tests/data/cpuid), edited where a test needs a host that stands out.
#include "fleet/fleet.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "detect/platform.h"
#include "detect/platform_report.h"
#include "fleet/fleet_report.h"
#include "fleet/hostlist.h"
#include "report/printer.h"
#include "report/table_layout.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

namespace dlcheck::fleet {
namespace {

using nlohmann::json;

json PlatformJson(const std::string& dump) {
  StatusOr<detect::PlatformInfo> info =
      detect::DetectRecordedPlatform(dlcheck::testing::DataPath("cpuid/" + dump));
  EXPECT_TRUE(info.ok()) << info.status().message();
  std::ostringstream out;
  report::PrintJson(detect::PlatformReport(info.ok() ? *info : detect::PlatformInfo{}, {}), out);
  return json::parse(out.str());
}

const char kSapphireRapids[] = "intel-xeon-w9-3475x.test.xz";
const char kHaswell[] = "intel-core-i7-4770-cpu.test";

TEST(FleetTest, IdenticalHostsFormOneGroupAndTheWeakerGroupLacksTheDifference) {
  const std::string spr = PlatformJson(kSapphireRapids).dump();
  const std::string hsw = PlatformJson(kHaswell).dump();
  FleetReader reader;
  for (const char* host : {"node1", "node2", "node3", "node7"}) {
    reader.AddText(std::string("/in/") + host + ".json", spr);
  }
  reader.AddText("/in/node9.json", hsw);
  const Fleet fleet = reader.Finish();
  ASSERT_EQ(fleet.groups.size(), 2u);
  EXPECT_EQ(CompressHostlist(fleet.groups[0].hosts), "node[1-3,7]");
  EXPECT_TRUE(fleet.groups[0].best);
  EXPECT_TRUE(fleet.groups[0].lacks.empty());
  EXPECT_EQ(fleet.groups[1].hosts, std::vector<std::string>{"node9"});
  const auto& lacks = fleet.groups[1].lacks;
  EXPECT_NE(std::find(lacks.begin(), lacks.end(), "avx512f"), lacks.end());
  EXPECT_NE(std::find(lacks.begin(), lacks.end(), "amx_tile"), lacks.end());
  EXPECT_EQ(std::find(lacks.begin(), lacks.end(), "avx2"), lacks.end());
  EXPECT_EQ(fleet.hosts(), 5u);
  EXPECT_TRUE(fleet.skipped.empty());
}

json WithTopology(json doc, long memory_mib) {
  doc["topology"] = {
      {"packages", 2}, {"numa_nodes", 2}, {"cores", 112}, {"pus", 224}, {"memory_mib", memory_mib}};
  return doc;
}

TEST(FleetTest, SlurmConfIsOneCompressedNodeLinePerGroup) {
  FleetReader reader;
  for (const char* host : {"node1", "node2", "node3"}) {
    // node2 has less memory: the group's RealMemory is the least, so no node of it drains.
    const long memory = std::string(host) == "node2" ? 515000 : 515703;
    reader.AddText(std::string("/in/") + host + ".json",
                   WithTopology(PlatformJson(kSapphireRapids), memory).dump());
  }
  reader.AddText("/in/node9.json", PlatformJson(kHaswell).dump());  // no topology
  const SlurmConfLines conf = FleetSlurmConf(reader.Finish());
  std::istringstream in(conf.lines);
  std::string spr, hsw, more;
  ASSERT_TRUE(std::getline(in, spr));
  ASSERT_TRUE(std::getline(in, hsw));
  EXPECT_FALSE(std::getline(in, more)) << conf.lines;
  EXPECT_EQ(spr.rfind("NodeName=node[1-3] CPUs=224 Boards=1 SocketsPerBoard=2 CoresPerSocket=56 "
                      "ThreadsPerCore=2 RealMemory=515000 Features=",
                      0),
            0u)
      << spr;
  EXPECT_NE(spr.find(",onednn_avx512_core_bf16,"), std::string::npos) << spr;
  EXPECT_NE(spr.find(",onednn_avx512_core_amx,"), std::string::npos) << spr;
  EXPECT_EQ(spr.find("dlcheck_"), std::string::npos) << "platform reports carry no status";
  EXPECT_EQ(hsw.rfind("NodeName=node9 Features=", 0), 0u) << hsw;
  EXPECT_NE(hsw.find(",onednn_avx2,"), std::string::npos) << hsw;
  EXPECT_EQ(hsw.find("onednn_avx512"), std::string::npos) << hsw;
  EXPECT_TRUE(conf.left_out.empty());
}

TEST(FleetTest, SlurmConfLeavesOutAGroupWhoseHostIsNoNodeName) {
  FleetReader reader;
  json odd = PlatformJson(kHaswell);
  odd["host"] = "n1 Features=all";
  reader.AddText("/in/x.json", odd.dump());
  const SlurmConfLines conf = FleetSlurmConf(reader.Finish());
  EXPECT_EQ(conf.lines, "");
  ASSERT_EQ(conf.left_out.size(), 1u);
  EXPECT_NE(conf.left_out[0].find("not a valid node name"), std::string::npos) << conf.left_out[0];
}

TEST(FleetTest, SlurmConfLeavesOutAGroupWhoseCountsAreNoMachines) {
  // Counts past slurm.conf's 16-bit fields (an int once wrote CPUs=-1294967296), or that no
  // machine has (more sockets than cores), are never written: the group is left out, said why.
  for (const auto& [packages, cores, pus] :
       {std::tuple{2L, 112L, 3000000000L}, std::tuple{2L, 70000L, 140000L}, std::tuple{8L, 4L, 8L},
        std::tuple{1L, 8L, 4L}}) {
    json doc = WithTopology(PlatformJson(kHaswell), 515703);
    doc["topology"]["packages"] = packages;
    doc["topology"]["cores"] = cores;
    doc["topology"]["pus"] = pus;
    FleetReader reader;
    reader.AddText("/in/node1.json", doc.dump());
    const SlurmConfLines conf = FleetSlurmConf(reader.Finish());
    EXPECT_EQ(conf.lines, "") << pus;
    ASSERT_EQ(conf.left_out.size(), 1u);
    EXPECT_EQ(conf.left_out[0],
              fmt::format("node1: its counts (sockets {}, cores {}, PUs {}) are no machine's: "
                          "slurm.conf takes 1 to 65533 of each, sockets <= cores <= PUs",
                          packages, cores, pus));
  }
  json huge = WithTopology(PlatformJson(kHaswell), 1L << 50);
  FleetReader reader;
  reader.AddText("/in/node1.json", huge.dump());
  const SlurmConfLines conf = FleetSlurmConf(reader.Finish());
  EXPECT_EQ(conf.lines, "");
  ASSERT_EQ(conf.left_out.size(), 1u);
  EXPECT_EQ(conf.left_out[0],
            "node1: its memory (1125899906842624 MiB) is no machine's: 0 to 1099511627776 MiB");
}

TEST(FleetTest, AFeatureInCpuidButNotEnabledIsAnOutlierNamed) {
  json odd = PlatformJson(kSapphireRapids);
  odd["features"]["avx512_bf16"]["os"] = false;
  odd["features"]["avx512_bf16"]["usable"] = false;
  FleetReader reader;
  reader.AddText("node1.json", PlatformJson(kSapphireRapids).dump());
  reader.AddText("node17.json", odd.dump());
  const Fleet fleet = reader.Finish();
  ASSERT_EQ(fleet.outliers.size(), 1u);
  EXPECT_EQ(fleet.outliers[0].host, "node17");
  EXPECT_EQ(fleet.outliers[0].problem, "avx512_bf16 in CPUID but not OS-enabled");
  EXPECT_EQ(fleet.groups.size(), 2u);
}

// Two Emerald Rapids guests, one whose hypervisor hides AMX (tests/data/cpuid/edited): one
// microarchitecture in two groups, named as such, and the hidden features as the host's outliers
// (hidden, not absent).
TEST(FleetTest, GuestsOfOneMicroarchitectureThatExposeDifferentFeaturesAreNamedSo) {
  FleetReader reader;
  reader.AddText("emr1.json", PlatformJson("intel-xeon-emerald-rapids-kvm16.test").dump());
  reader.AddText("emr2.json",
                 PlatformJson("edited/intel-xeon-emerald-rapids-kvm16-amx-hidden.test").dump());
  reader.AddText("hsw.json", PlatformJson(kHaswell).dump());
  const Fleet fleet = reader.Finish();
  ASSERT_EQ(fleet.groups.size(), 3u);
  EXPECT_EQ(fleet.groups[0].microarchitectures, std::vector<std::string>{"Emerald Rapids"});
  ASSERT_EQ(fleet.same_silicon.size(), 1u);
  EXPECT_NE(fleet.same_silicon[0].find("are both Emerald Rapids"), std::string::npos)
      << fleet.same_silicon[0];
  EXPECT_NE(fleet.same_silicon[0].find("lacks amx_bf16 amx_int8 amx_tile"), std::string::npos)
      << fleet.same_silicon[0];
  std::vector<std::string> emr2;
  for (const Outlier& o : fleet.outliers) {
    if (o.host == "emr2") emr2.push_back(o.problem);
  }
  EXPECT_EQ(emr2, (std::vector<std::string>{
                      "amx_bf16 hidden by the hypervisor (every Emerald Rapids part has it)",
                      "amx_int8 hidden by the hypervisor (every Emerald Rapids part has it)",
                      "amx_tile hidden by the hypervisor (every Emerald Rapids part has it)"}));
  const report::Report report = FleetReport(fleet);
  int findings = 0;
  for (const Finding& f : report.findings) findings += f.code == "same-silicon-differs" ? 1 : 0;
  EXPECT_EQ(findings, 1);
}

// Issue 51 class 9: hosts of one microarchitecture in many groups (each report lacks another
// feature) are one note, not one per pair of groups (10,000 groups made 50 million notes): it
// names the first kSameSiliconGroupsNamed groups, what each lacks of what the others have, and
// counts the rest.
TEST(FleetTest, ManyGroupsOfOneMicroarchitectureAreOneNoteNamingTheFirstAndCountingTheRest) {
  const json spr = PlatformJson(kSapphireRapids);
  std::vector<std::string> usable;
  for (const auto& [name, layers] : spr["features"].items()) {
    const json& is_usable = layers.at("usable");
    if (is_usable == true || (is_usable.is_null() && layers.at("cpuid") == true))
      usable.push_back(name);
  }
  const std::size_t kGroups = 20;
  ASSERT_GE(usable.size(), kGroups);
  FleetReader reader;
  for (std::size_t k = 0; k < kGroups; ++k) {
    json lacking = spr;
    lacking["features"][usable[k]]["cpuid"] = false;
    lacking["features"][usable[k]]["usable"] = false;
    reader.AddText(fmt::format("node{:02}.json", k), lacking.dump());
  }
  reader.AddText("xhsw.json", PlatformJson(kHaswell).dump());
  const Fleet fleet = reader.Finish();
  ASSERT_EQ(fleet.groups.size(), kGroups + 1);
  ASSERT_EQ(fleet.same_silicon.size(), 1u);
  const std::string& note = fleet.same_silicon[0];
  // One host each, so the groups go by first host: group k + 1 is node k, lacking usable[k]
  // (xhsw sorts after node*).
  EXPECT_EQ(note.rfind("groups 1, 2, 3, 4, 5, 6, 7, 8 and 12 more are all Sapphire Rapids; group 1 "
                       "lacks " +
                           usable[0] + "; group 2 lacks " + usable[1] + ";",
                       0),
            0u)
      << note;
  EXPECT_NE(note.find("; group 8 lacks " + usable[7]), std::string::npos) << note;
  EXPECT_EQ(note.find("group 9 "), std::string::npos) << note;
  const report::Report report = FleetReport(fleet);
  int findings = 0;
  for (const Finding& f : report.findings) findings += f.code == "same-silicon-differs" ? 1 : 0;
  EXPECT_EQ(findings, 1);
}

// Groups of one microarchitecture that differ only in topology or status expose the same
// features: no note.
TEST(FleetTest, GroupsOfOneMicroarchitectureWithTheSameFeaturesAreNoNote) {
  FleetReader reader;
  reader.AddText("a.json", PlatformJson(kSapphireRapids).dump());
  reader.AddText("b.json", WithTopology(PlatformJson(kSapphireRapids), 515703).dump());
  const Fleet fleet = reader.Finish();
  EXPECT_EQ(fleet.groups.size(), 2u);
  EXPECT_TRUE(fleet.same_silicon.empty()) << fleet.same_silicon[0];
}

TEST(FleetTest, BrokenForeignAndDuplicateReportsAreCountedAndNamedNeverFatal) {
  json foreign = PlatformJson(kHaswell);
  foreign["schema_version"] = 2;
  foreign["dlcheck_version"] = "9.0.0";
  json parse_report = {{"schema_version", 1}, {"command", "parse"}, {"dlcheck_version", "0.1.0"}};
  FleetReader reader;
  reader.AddText("a.json", PlatformJson(kHaswell).dump());
  reader.AddText("cut.json", PlatformJson(kHaswell).dump().substr(0, 100));
  reader.AddText("future.json", foreign.dump());
  reader.AddText("parse.json", parse_report.dump());
  reader.AddText("again/a.json", PlatformJson(kHaswell).dump());
  const Fleet fleet = reader.Finish();
  EXPECT_EQ(fleet.files, 5u);
  EXPECT_EQ(fleet.hosts(), 1u);
  ASSERT_EQ(fleet.skipped.size(), 4u);
  EXPECT_EQ(fleet.skipped[0].file, "cut.json");
  EXPECT_EQ(fleet.skipped[0].reason, "not valid JSON (a cut-off or foreign file?)");
  EXPECT_EQ(fleet.skipped[1].reason,
            "report schema 2 of dlcheck 9.0.0; this dlcheck reads schema 1");
  EXPECT_EQ(fleet.skipped[2].reason, "a dlcheck parse report, not platform or check");
  EXPECT_EQ(fleet.skipped[3].reason, "host a again (first in a.json)");
}

TEST(FleetTest, OtherDlcheckVersionsOfTheSameSchemaAreUsedAndCounted) {
  json older = PlatformJson(kHaswell);
  older["dlcheck_version"] = "0.0.9";
  FleetReader reader;
  reader.AddText("node1.json", PlatformJson(kHaswell).dump());
  reader.AddText("node2.json", older.dump());
  const Fleet fleet = reader.Finish();
  EXPECT_EQ(fleet.groups.size(), 1u);
  ASSERT_EQ(fleet.versions.size(), 2u);
  EXPECT_EQ(fleet.versions.at("0.0.9"), std::vector<std::string>{"node2"});
}

TEST(FleetTest, ACheckReportGroupsByStatusAndItsHostFieldNamesTheHost) {
  json failing = PlatformJson(kHaswell);
  failing["command"] = "check";
  failing["host"] = "gpu3";
  failing["check"] = {{"status", "CRITICAL"}, {"summary", "required amx_tile is missing"}};
  json passing = failing;
  passing.erase("host");
  passing["check"] = {{"status", "OK"}, {"summary", "fine"}, {"host", "gpu4"}};
  FleetReader reader;
  reader.AddText("x.json", failing.dump());
  reader.AddText("y.json", passing.dump());
  const Fleet fleet = reader.Finish();
  ASSERT_EQ(fleet.groups.size(), 2u);
  EXPECT_EQ(CompressHostlist(fleet.groups[0].hosts) + " " + CompressHostlist(fleet.groups[1].hosts),
            "gpu3 gpu4");
  ASSERT_EQ(fleet.outliers.size(), 1u);
  EXPECT_EQ(fleet.outliers[0].host, "gpu3");
  EXPECT_EQ(fleet.outliers[0].problem, "check CRITICAL: required amx_tile is missing");
}

class FleetDirTest : public dlcheck::testing::ScratchDirTest {};

TEST_F(FleetDirTest, ADirectoryGivesItsJsonFilesAndAMissingPathIsSkipped) {
  Write("node1.json", PlatformJson(kHaswell).dump());
  Write("node2.json", PlatformJson(kHaswell).dump());
  Write("notes.txt", "not a report");
  Write(".node3.json.tmp", "half a file");
  FleetReader reader;
  reader.Add(dir_.string());
  reader.Add((dir_ / "absent.json").string());
  const Fleet fleet = reader.Finish();
  ASSERT_EQ(fleet.groups.size(), 1u);
  EXPECT_EQ(CompressHostlist(fleet.groups[0].hosts), "node[1-2]");
  ASSERT_EQ(fleet.skipped.size(), 1u);
  EXPECT_EQ(fleet.skipped[0].file, (dir_ / "absent.json").string());
}

TEST(FleetReportTest, TableCsvAndJsonAgreeOnTheGroups) {
  FleetReader reader;
  reader.AddText("node1.json", PlatformJson(kHaswell).dump());
  reader.AddText("node2.json", PlatformJson(kSapphireRapids).dump());
  const report::Report report = FleetReport(reader.Finish());
  std::ostringstream csv, js;
  report::PrintCsv(report, csv);
  report::PrintJson(report, js);
  const json doc = json::parse(js.str());
  EXPECT_EQ(doc["command"], "fleet");
  EXPECT_EQ(doc["groups"].size(), 2u);
  EXPECT_EQ(doc["fleet"]["hosts"], 2);
  std::size_t lines = 0;
  for (char c : csv.str()) lines += c == '\n';
  EXPECT_EQ(lines, 3u) << csv.str();  // header + 2 groups
}

// Issue 47: hosts of different CPUs that can do the same things share a group, which lists every
// CPU (it was labelled by its first host's: a Sapphire Rapids in a group called Emerald Rapids);
// the per-host table says each host's own.
TEST(FleetReportTest, AGroupListsTheDistinctCpusOfItsHostsAndTheHostTableEachOne) {
  const json spr = PlatformJson(kSapphireRapids);
  json emr = spr;  // the same features on another CPU
  emr["cpu"]["brand"] = "Intel(R) Xeon(R) Platinum 8592+";
  emr["cpu"]["microarchitecture"] = "Emerald Rapids";
  FleetReader reader;
  reader.AddText("emr1.json", emr.dump());
  reader.AddText("spr1.json", spr.dump());
  reader.AddText("emr2.json", emr.dump());
  const Fleet fleet = reader.Finish();
  ASSERT_EQ(fleet.groups.size(), 1u);
  const std::string spr_brand = spr["cpu"]["brand"];
  const std::string spr_uarch = spr["cpu"]["microarchitecture"];
  ASSERT_NE(spr_uarch, "Emerald Rapids");
  EXPECT_EQ(fleet.groups[0].cpus,
            (std::vector<std::string>{"Intel(R) Xeon(R) Platinum 8592+", spr_brand}));
  EXPECT_EQ(fleet.groups[0].microarchitectures,
            (std::vector<std::string>{"Emerald Rapids", spr_uarch}));
  std::ostringstream js;
  report::PrintJson(FleetReport(fleet), js);
  const json doc = json::parse(js.str());
  EXPECT_EQ(doc["groups"][0]["cpu"], "Intel(R) Xeon(R) Platinum 8592+; " + spr_brand);
  EXPECT_EQ(doc["groups"][0]["microarchitecture"], "Emerald Rapids; " + spr_uarch);
  ASSERT_EQ(doc["hosts"].size(), 3u) << doc["hosts"];
  EXPECT_EQ(doc["hosts"][0]["host"], "emr1");
  EXPECT_EQ(doc["hosts"][0]["group"], 1);
  EXPECT_EQ(doc["hosts"][0]["cpu"], "Intel(R) Xeon(R) Platinum 8592+");
  EXPECT_EQ(doc["hosts"][2]["host"], "spr1");
  EXPECT_EQ(doc["hosts"][2]["cpu"], spr_brand);
  EXPECT_EQ(doc["hosts"][2]["microarchitecture"], spr_uarch);
  EXPECT_EQ(doc["hosts"][2]["onednn_isa"], "avx512_core_amx");
  EXPECT_EQ(doc["hosts"][2]["file"], "spr1.json");
}

// Issue 47: at 80 columns the table kept the groups but dropped their hosts, and cut both
// avx512_core_bf16 and avx512_core_amx to `avx512_core_…`.
TEST(FleetReportTest, At80ColumnsTheHostlistsAndWholeIsaNamesStay) {
  FleetReader reader;
  for (const char* host : {"node1", "node2", "node3", "node7"}) {
    reader.AddText(std::string(host) + ".json",
                   PlatformJson("intel-xeon-emerald-rapids-kvm16.test").dump());
  }
  for (const char* host : {"gpu11", "gpu12"}) {
    reader.AddText(std::string(host) + ".json",
                   PlatformJson("edited/intel-xeon-emerald-rapids-kvm16-amx-hidden.test").dump());
  }
  reader.AddText("login1.json", PlatformJson(kHaswell).dump());
  const Fleet fleet = reader.Finish();
  ASSERT_EQ(fleet.groups.size(), 3u);
  std::ostringstream out;
  report::PrintTable(FleetReport(fleet), out, 80);
  const std::string table = out.str();
  for (const char* whole :
       {"node[1-3,7]", "gpu[11-12]", "login1", "avx512_core_amx", "avx512_core_bf16", "avx2 "}) {
    EXPECT_NE(table.find(whole), std::string::npos) << whole << " in\n" << table;
  }
  EXPECT_EQ(table.find("avx512_core_\u2026"), std::string::npos) << table;
  std::istringstream lines(table);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_LE(report::DisplayWidth(line), 80u) << line;
  }
}

}  // namespace
}  // namespace dlcheck::fleet
