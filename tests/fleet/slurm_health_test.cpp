// SPDX-License-Identifier: Apache-2.0
// The Slurm health check's decisions, on `scontrol -o show node` output recorded from a real
// Slurm 22.05 cluster (tests/data/slurm): CRITICAL drains, a pass resumes only a node dlcheck
// drained, an administrator's drain is never touched.
#include "fleet/slurm_health.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/run_dlcheck.h"

namespace dlcheck::fleet {
namespace {

SlurmNode Recorded(const std::string& name) {
  const std::string text = dlcheck::testing::ReadFile(dlcheck::testing::DataPath("slurm/" + name));
  EXPECT_FALSE(text.empty()) << name;
  return ParseShowNode(text);
}

check::CheckResult WithState(check::State state, std::string summary) {
  check::CheckResult r;
  r.state = state;
  r.summary = std::move(summary);
  return r;
}

const check::CheckResult kCritical =
    WithState(check::State::kCritical, "required amx_tile is missing");
const check::CheckResult kOk = WithState(check::State::kOk, "fine");

TEST(SlurmHealthTest, ParsesStateAndReasonWithoutWhoSetIt) {
  const SlurmNode idle = Recorded("show-node-idle.txt");
  EXPECT_EQ(idle.state, "IDLE");
  EXPECT_EQ(idle.reason, "");
  EXPECT_FALSE(idle.drained());
  const SlurmNode ours = Recorded("show-node-drained-by-dlcheck.txt");
  EXPECT_EQ(ours.state, "IDLE+DRAIN");
  EXPECT_EQ(ours.reason, "dlcheck: CRITICAL - required amx_tile is missing");
  EXPECT_TRUE(ours.drained_by_dlcheck());
  const SlurmNode admin = Recorded("show-node-drained-by-admin.txt");
  EXPECT_EQ(admin.reason, "disk replaced");
  EXPECT_TRUE(admin.drained());
  EXPECT_FALSE(admin.drained_by_dlcheck());
}

TEST(SlurmHealthTest, CriticalDrainsAnIdleNodeWithDlchecksReason) {
  EXPECT_EQ(DecideHealthAction(kCritical, Recorded("show-node-idle.txt")), HealthAction::kDrain);
  EXPECT_EQ(UpdateArguments(HealthAction::kDrain, "node1", kCritical),
            (std::vector<std::string>{"update", "NodeName=node1", "State=DRAIN",
                                      "Reason=dlcheck: CRITICAL - required amx_tile is missing"}));
}

TEST(SlurmHealthTest, CriticalAgainWithTheSameReasonChangesNothing) {
  EXPECT_EQ(DecideHealthAction(kCritical, Recorded("show-node-drained-by-dlcheck.txt")),
            HealthAction::kNone);
  const auto other = WithState(check::State::kCritical, "3 cores, fewer than 4");
  EXPECT_EQ(DecideHealthAction(other, Recorded("show-node-drained-by-dlcheck.txt")),
            HealthAction::kDrain);
}

TEST(SlurmHealthTest, AnAdministratorsDrainIsNeverTouched) {
  const SlurmNode admin = Recorded("show-node-drained-by-admin.txt");
  EXPECT_EQ(DecideHealthAction(kCritical, admin), HealthAction::kNone);
  EXPECT_EQ(DecideHealthAction(kOk, admin), HealthAction::kNone);
}

TEST(SlurmHealthTest, APassResumesOnlyWhatDlcheckDrained) {
  EXPECT_EQ(DecideHealthAction(kOk, Recorded("show-node-drained-by-dlcheck.txt")),
            HealthAction::kResume);
  EXPECT_EQ(DecideHealthAction(WithState(check::State::kWarning, "w"),
                               Recorded("show-node-drained-by-dlcheck.txt")),
            HealthAction::kResume);
  EXPECT_EQ(DecideHealthAction(kOk, Recorded("show-node-idle.txt")), HealthAction::kNone);
  EXPECT_EQ(UpdateArguments(HealthAction::kResume, "node2", kOk),
            (std::vector<std::string>{"update", "NodeName=node2", "State=RESUME"}));
}

TEST(SlurmHealthTest, UnknownChangesNothing) {
  const auto unknown = WithState(check::State::kUnknown, "the model worker could not start");
  EXPECT_EQ(DecideHealthAction(unknown, Recorded("show-node-idle.txt")), HealthAction::kNone);
  EXPECT_EQ(DecideHealthAction(unknown, Recorded("show-node-drained-by-dlcheck.txt")),
            HealthAction::kNone);
}

TEST(SlurmHealthTest, ALongReasonIsCut) {
  const auto long_one = WithState(check::State::kCritical, std::string(400, 'x'));
  const std::string reason = DrainReason(long_one);
  EXPECT_EQ(reason.size(), 250u);
  EXPECT_EQ(reason.rfind("dlcheck: CRITICAL - xxx", 0), 0u);
}

TEST(SlurmHealthTest, AMissingScontrolSaysWhatToDo) {
  StatusOr<std::string> out = RunScontrol({.scontrol = "/nonexistent/scontrol"}, {"ping"});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("give its path with --scontrol"), std::string::npos)
      << out.status().message();
}

// A runaway scontrol (300 MiB seen) cannot fill dlcheck's memory: past 1 MiB its output is
// dropped and the run is an error; a node's one line is read as it is.
TEST(SlurmHealthTest, AnScontrolThatPrintsWithoutEndIsBounded) {
  const StatusOr<std::string> line =
      RunScontrol({.scontrol = "/bin/sh"}, {"-c", "echo NodeName=n1 State=IDLE"});
  ASSERT_TRUE(line.ok()) << line.status().message();
  EXPECT_EQ(*line, "NodeName=n1 State=IDLE\n");
  const StatusOr<std::string> flood =
      RunScontrol({.scontrol = "/bin/sh"}, {"-c", "head -c 5000000 /dev/zero"});
  ASSERT_FALSE(flood.ok());
  EXPECT_EQ(flood.status().message(),
            "'/bin/sh -c head -c 5000000 /dev/zero' printed more than 1 MiB; not a node's line");
}

}  // namespace
}  // namespace dlcheck::fleet
