// SPDX-License-Identifier: Apache-2.0
// The end of a program run by `run -- CMD` and `dispatch -- CMD` is what waitpid says, not the
// end of its output: a process it leaves in the background, writing to the same pipe every
// 10 ms, neither keeps dlcheck reading nor outlives it; a signal to dlcheck reaches the program's
// whole process group.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"
#include "support/test_files.h"

namespace dlcheck {
namespace {

using Json = nlohmann::json;
using testing::StartDlcheck;
using Clock = std::chrono::steady_clock;
using ProgramEndTest = testing::ScratchDirTest;

using dlcheck::testing::ReadFile;

int WaitExit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// The process group the program wrote into `file` ($$ of the shell dlcheck started: the
// leader of its own group), once it is there.
pid_t WaitForGroup(const std::string& file, std::chrono::seconds limit) {
  const auto end = Clock::now() + limit;
  while (Clock::now() < end) {
    std::ifstream in(file);
    pid_t group = 0;
    if (in >> group && group > 0) return group;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return 0;
}

// The processes of process group `group` that still run (a zombie waiting for init to reap it
// has ended: this machine's init may take a second to do so), from /proc/PID/stat.
std::vector<pid_t> LiveMembers(pid_t group) {
  std::vector<pid_t> members;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string stat = ReadFile(e.path().string() + "/stat");
    const std::size_t close = stat.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(stat.substr(close + 2));
    std::string state;
    pid_t parent = 0, pgrp = 0;
    fields >> state >> parent >> pgrp;
    if (pgrp == group && state != "Z" && state != "X") members.push_back(std::stoi(name));
  }
  return members;
}

// True once no process of the group runs, waiting up to `limit`; on failure the group is
// killed, so that nothing is left behind either way.
bool GroupGoneWithin(pid_t group, std::chrono::milliseconds limit) {
  const auto end = Clock::now() + limit;
  while (!LiveMembers(group).empty()) {
    if (Clock::now() > end) {
      kill(-group, SIGKILL);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// The program: a "trainer" in the background writing a line every 10 ms, and a shell
// that ends after half a second; the shell's pid (its process group) goes to `group_file`.
std::string TrainerScript(const std::string& group_file, const std::string& shell_end) {
  return "echo $$ > '" + group_file +
         "'; (while :; do echo trainer-line; sleep 0.01; done) & sleep 0.5; " + shell_end;
}

TEST_F(ProgramEndTest, RunEndsWithTheShellNotWithItsBackgroundWriter) {
  const std::string group_file = (dir_ / "group").string();
  const std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
  const auto start = Clock::now();
  const pid_t dlcheck = StartDlcheck(
      {"run", "--format", "json", "--", "sh", "-c", TrainerScript(group_file, "exit 0")}, out, err);
  const pid_t group = WaitForGroup(group_file, std::chrono::seconds(20));
  ASSERT_GT(group, 0);
  const int status = WaitExit(dlcheck);
  const auto took = Clock::now() - start;
  EXPECT_EQ(status, 0) << ReadFile(err);
  // The shell ends 0.5 s after it starts; dlcheck within about a second of that.
  EXPECT_LT(took, std::chrono::milliseconds(2000));
  EXPECT_TRUE(GroupGoneWithin(group, std::chrono::milliseconds(1000)));
  const std::string report = ReadFile(out);
  ASSERT_TRUE(Json::accept(report)) << report;
  EXPECT_EQ(Json::parse(report)["run"]["exit_status"], 0);
}

// One more of the class: the shell ends with a status of its own while the writer goes on; the
// status is the shell's, and dispatch's runs end as run's do.
TEST_F(ProgramEndTest, DispatchEndsEachRunWithItsShell) {
  const std::string group_file = (dir_ / "group").string();
  const std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
  const auto start = Clock::now();
  const pid_t dlcheck =
      StartDlcheck({"dispatch", "--isa", "sse41", "--repeat", "1", "--format", "json", "--", "sh",
                    "-c", TrainerScript(group_file, "exit 3")},
                   out, err);
  const pid_t group = WaitForGroup(group_file, std::chrono::seconds(20));
  ASSERT_GT(group, 0);
  const int status = WaitExit(dlcheck);
  const auto took = Clock::now() - start;
  EXPECT_EQ(status, 3) << ReadFile(err);
  // Two runs (the cap and the default) of half a second each, and dlcheck's own start.
  EXPECT_LT(took, std::chrono::milliseconds(4000));
  EXPECT_TRUE(GroupGoneWithin(group, std::chrono::milliseconds(1000)));
}

// `kill PID` of dlcheck running a wrapper script whose trainer runs in the background: dlcheck
// ends at once with 128+15 and no process of the program's group is left.
TEST_F(ProgramEndTest, SigtermToDlcheckLeavesNoProcessOfTheGroup) {
  const std::string group_file = (dir_ / "group").string();
  const std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
  const pid_t dlcheck =
      StartDlcheck({"run", "--format", "json", "--", "sh", "-c",
                    "echo $$ > '" + group_file +
                        "'; sh -c 'while :; do echo trainer-line; sleep 0.01; done' & wait"},
                   out, err);
  const pid_t group = WaitForGroup(group_file, std::chrono::seconds(20));
  ASSERT_GT(group, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const auto sent = Clock::now();
  kill(dlcheck, SIGTERM);
  const int status = WaitExit(dlcheck);
  EXPECT_LT(Clock::now() - sent, std::chrono::milliseconds(1000));
  EXPECT_EQ(status, 128 + SIGTERM) << ReadFile(err);
  EXPECT_TRUE(GroupGoneWithin(group, std::chrono::milliseconds(1000)));
  EXPECT_TRUE(Json::accept(ReadFile(out))) << ReadFile(out);
}

// The same with SIGINT, and a background process that holds the pipe without writing.
TEST_F(ProgramEndTest, SigintToDlcheckEndsASilentBackgroundChildToo) {
  const std::string group_file = (dir_ / "group").string();
  const std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
  const pid_t dlcheck = StartDlcheck(
      {"run", "--", "sh", "-c", "echo $$ > '" + group_file + "'; sleep 30 & wait"}, out, err);
  const pid_t group = WaitForGroup(group_file, std::chrono::seconds(20));
  ASSERT_GT(group, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(dlcheck, SIGINT);
  EXPECT_EQ(WaitExit(dlcheck), 128 + SIGINT) << ReadFile(err);
  EXPECT_TRUE(GroupGoneWithin(group, std::chrono::milliseconds(1000)));
}

}  // namespace
}  // namespace dlcheck
