// SPDX-License-Identifier: Apache-2.0
// The processes of a real recording, read from perf's task events alone (what a run whose full
// reading failed removes the perf maps of): the same as the full reading's, sampled or not.
#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>

#include "profile/perf.h"
#include "profile/perf_script.h"
#include "profile/profile.h"
#include "support/scratch_dir.h"

namespace dlcheck::profile {
namespace {

class RecordedPidsTest : public testing::ScratchDirTest {
 protected:
  // perf as dlcheck finds it (linux-perf is among the tests' packages).
  static std::string Perf() {
    const StatusOr<std::string> perf = FindPerf(std::getenv("PATH"));
    EXPECT_TRUE(perf.ok()) << perf.status().message();
    return perf.ok() ? *perf : "perf";
  }
};

TEST_F(RecordedPidsTest, TaskEventsAloneNameEveryProcessOfTheRecording) {
  const PerfSettings s{.perf = Perf(),
                       .event = "cpu-clock",
                       .frequency = 99,
                       .data_path = (dir_ / "p.data").string()};
  // A shell that starts two children, one of which sleeps through its life (never sampled),
  // recorded with a call graph as dlcheck records.
  const std::string record = s.perf + " record --quiet -e cpu-clock -F 99 --call-graph fp -o " +
                             s.data_path + " -- sh -c 'sleep 0.2 & true; wait' >/dev/null 2>&1";
  ASSERT_EQ(std::system(record.c_str()), 0) << "perf record could not run: " << record;
  const StatusOr<std::set<int>> alone = ReadRecordedPids(s);
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  EXPECT_GE(alone->size(), 2u);  // the shell and its sleep (true may be the shell's builtin)

  ProfileBuilder builder;
  PerfScriptParser parser([&](const PerfRecord& r) { builder.Add(r); });
  ASSERT_TRUE(ReadPerfScript(s, [&](std::string_view l) { parser.Feed(l); }).ok());
  parser.Finish();
  const Profile full = builder.profile();
  EXPECT_EQ(*alone, full.recorded_pids);
  for (int sampled : full.pids) EXPECT_EQ(alone->count(sampled), 1u) << sampled;
}

TEST_F(RecordedPidsTest, AnUnreadableRecordingIsAnError) {
  const PerfSettings s{.perf = Perf(), .data_path = Write("p.data", "PERFILE2 damaged")};
  const StatusOr<std::set<int>> pids = ReadRecordedPids(s);
  ASSERT_FALSE(pids.ok());
  EXPECT_NE(pids.status().message().find("perf could not list the processes of"), std::string::npos)
      << pids.status().message();
}

}  // namespace
}  // namespace dlcheck::profile
