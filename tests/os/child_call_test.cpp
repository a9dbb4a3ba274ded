// SPDX-License-Identifier: Apache-2.0
// Issue 51, class 7: a child of os::CallInChild is never what keeps dlcheck alive or what the
// OOM killer takes instead of it, and a signal that reaches the child alone (`kill -INT` of the
// newest `dlcheck profile`) stops dlcheck too, as one sent to dlcheck would; `stop` ends the
// child at once.
#include "os/child_call.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>

#include "os/signals.h"

namespace dlcheck::os {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The processes whose parent is this one.
int OwnChildren() {
  std::ifstream children("/proc/self/task/" + std::to_string(getpid()) + "/children");
  int n = 0;
  for (pid_t pid = 0; children >> pid;) ++n;
  return n;
}

TEST(CallInChild, TheChildIsTheOomKillersFirstChoice) {
  const std::optional<std::string> score = CallInChild(
      [] {
        std::ifstream in("/proc/self/oom_score_adj");
        std::string text;
        in >> text;
        return text;
      },
      {});
  ASSERT_TRUE(score.has_value());
  EXPECT_EQ(*score, "1000");
}

TEST(CallInChild, StopEndsTheChildAtOnce) {
  const auto start = Clock::now();
  const std::optional<std::string> out = CallInChild(
      [] {
        std::this_thread::sleep_for(std::chrono::seconds(20));
        return std::string("late");
      },
      {.timeout_s = 30, .stop = [start] { return SecondsSince(start) > 0.2; }});
  EXPECT_FALSE(out.has_value());
  EXPECT_LT(SecondsSince(start), 3.0);  // 20 s without the stop; 0.2 s and a poll with it
  EXPECT_EQ(OwnChildren(), 0);
}

// The child sends its own pid through a pipe-less side channel (a file), then waits; SIGINT to
// it alone reaches this process's SignalForwarding, and the child is gone.
TEST(CallInChild, ASignalToTheChildAloneIsPassedOnToItsParent) {
  const std::string pid_file =
      ::testing::TempDir() + "dlcheck_child_call_" + std::to_string(getpid());
  const SignalForwarding forwarding;
  std::thread signaller([&] {
    const auto until = Clock::now() + std::chrono::seconds(10);
    pid_t child = 0;
    while (child == 0 && Clock::now() < until) {
      std::ifstream(pid_file) >> child;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (child > 0) kill(child, SIGINT);
  });
  const auto start = Clock::now();
  const std::optional<std::string> out = CallInChild(
      [&] {
        { std::ofstream(pid_file) << getpid() << '\n'; }
        std::this_thread::sleep_for(std::chrono::seconds(20));
        return std::string("late");
      },
      {.timeout_s = 30, .stop = [] { return SignalForwarding::Received() != 0; }});
  signaller.join();
  std::remove(pid_file.c_str());
  EXPECT_FALSE(out.has_value());
  EXPECT_EQ(SignalForwarding::Received(), SIGINT);
  EXPECT_LT(SecondsSince(start), 10.0);
  EXPECT_EQ(OwnChildren(), 0);
}

}  // namespace
}  // namespace dlcheck::os
