// SPDX-License-Identifier: Apache-2.0
// `dlcheck fleet` end to end, on reports the built binary prints for recorded machines
// (tests/data/cpuid): one file per host, a broken file named and not fatal, and no usable report
// at all an input error.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

namespace dlcheck {
namespace {

using testing::RunDlcheck;

class FleetCliTest : public testing::ScratchDirTest {
 protected:
  std::string Platform(const std::string& dump) {
    const auto r = RunDlcheck(
        {"platform", "--cpuid-dump", testing::DataPath("cpuid/" + dump), "--format", "json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }
};

TEST_F(FleetCliTest, GroupsHostsAndNamesTheBrokenReport) {
  const std::string hsw = Platform("intel-core-i7-4770-cpu.test");
  const std::string spr = Platform("intel-xeon-w9-3475x.test.xz");
  for (const char* host : {"node1", "node2", "node3", "node7"})
    Write(std::string(host) + ".json", spr);
  Write("node4.json", hsw);
  Write("node5.json", hsw.substr(0, hsw.size() / 2));
  const auto r = RunDlcheck({"fleet", "-f", "json", dir_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["groups"].size(), 2u) << r.out;
  EXPECT_EQ(j["groups"][0]["hostlist"], "node[1-3,7]");
  EXPECT_EQ(j["groups"][0]["best"], true);
  EXPECT_EQ(j["groups"][1]["hostlist"], "node4");
  const auto lacks = j["groups"][1]["lacks"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(lacks.begin(), lacks.end(), "avx512f"), lacks.end());
  ASSERT_EQ(j["skipped"].size(), 1u);
  EXPECT_EQ(j["skipped"][0]["file"], (dir_ / "node5.json").string());
  EXPECT_EQ(j["fleet"]["reports"], 6);
  const auto csv = RunDlcheck({"fleet", "--format", "csv", dir_.string()});
  EXPECT_EQ(
      csv.out.rfind(
          "group,hosts,hostlist,best,cpu,microarchitecture,onednn_isa,sockets,numa_nodes,cores,pus,"
          "status,lacks,"
          "features,hidden\r\n",
          0),
      0u)
      << csv.out;
  const auto table = RunDlcheck({"fleet", dir_.string()});
  EXPECT_NE(table.out.find("node[1-3,7]"), std::string::npos) << table.out;
}

TEST_F(FleetCliTest, NoUsableReportIsAnInputError) {
  Write("a.json", "{");
  const auto r = RunDlcheck({"fleet", dir_.string(), (dir_ / "absent").string()});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "dlcheck: no usable dlcheck report among the 2 file(s) given: give the JSON of "
            "'dlcheck platform --format json' or 'dlcheck check --format json', one file per host "
            "(see the skipped reports above)\n");
}

TEST(FleetCliUsageTest, NoArgumentIsAUsageError) {
  const auto r = RunDlcheck({"fleet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("reports is required"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dlcheck
