// SPDX-License-Identifier: Apache-2.0
// oneDNN's perf maps: their one path, the environment that asks for them (the same for `profile`
// and `dispatch --perf-map`), and their removal after a recording.
#include "profile/perf_map.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "support/scratch_dir.h"

namespace dlcheck::profile {
namespace {

namespace fs = std::filesystem;
using Env = std::vector<std::pair<std::string, std::string>>;

TEST(PerfMapTest, PathIsPerfsConvention) {
  EXPECT_EQ(PerfMapPath(4242), "/tmp/perf-4242.map");
  EXPECT_EQ(PerfMapPath(7, "/var/tmp"), "/var/tmp/perf-7.map");
}

TEST(PerfMapTest, PidIsReadFromTheFileNameOnly) {
  EXPECT_EQ(PerfMapPid("perf-4242.map"), 4242);
  EXPECT_EQ(PerfMapPid("perf-0.map"), 0);
  for (const char* other :
       {"perf-.map", "perf-12a.map", "perf--1.map", "perf-+1.map", "perf- 1.map",
        "perf-1234567890.map", "perf-1.map.old", "perf-1", "xperf-1.map", "perf.data", ""}) {
    EXPECT_EQ(PerfMapPid(other), std::nullopt) << other;
  }
}

TEST(PerfMapTest, ADsoIsAPerfMapInTmp) {
  EXPECT_TRUE(IsPerfMapPath("/tmp/perf-4242.map"));
  EXPECT_TRUE(IsPerfMapPath(PerfMapPath(1)));
  EXPECT_FALSE(IsPerfMapPath("/tmp/sub/perf-4242.map"));
  EXPECT_FALSE(IsPerfMapPath("/home/perf-4242.map"));
  EXPECT_FALSE(IsPerfMapPath("perf-4242.map"));
  EXPECT_FALSE(IsPerfMapPath("[jit]"));
  EXPECT_FALSE(IsPerfMapPath("/usr/lib/x86_64-linux-gnu/libdnnl.so.2"));
}

// Every generation of oneDNN's name for the variable, each set to 2 (the perf map).
TEST(PerfMapTest, EnvironmentNamesEveryGeneration) {
  EXPECT_EQ(
      JitProfileEnvironment(),
      (Env{{"ONEDNN_JIT_PROFILE", "2"}, {"DNNL_JIT_PROFILE", "2"}, {"MKLDNN_JIT_PROFILE", "2"}}));
}

class PerfMapCleanupTest : public testing::ScratchDirTest {
 protected:
  std::string Map(int pid) { return Write("perf-" + std::to_string(pid) + ".map", "7f00 10 k\n"); }
};

TEST_F(PerfMapCleanupTest, RemovesTheMapsOfTheRecordedProcesses) {
  const std::string a = Map(101), b = Map(102), c = Map(103);
  RemovePerfMaps({101, 103, 104}, dir_.string());  // 104 has none: no error
  EXPECT_FALSE(fs::exists(a));
  EXPECT_TRUE(fs::exists(b));
  EXPECT_FALSE(fs::exists(c));
}

}  // namespace
}  // namespace dlcheck::profile
