// SPDX-License-Identifier: Apache-2.0
// The one subprocess runner, in-process, on /bin/sh: what the child wrote, how it ended, its
// environment, its start errors, signals passed on, and nothing left behind.
#include "os/subprocess.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "os/signals.h"

namespace dlcheck::os {
namespace {

Spec Shell(const std::string& script, double timeout_s = 30) {
  return Spec{.argv = {"/bin/sh", "-c", script}, .keep_stderr_tail = true, .timeout_s = timeout_s};
}

auto Ignore() {
  return [](std::string_view) {};
}

TEST(SubprocessTest, HandsOnEveryLineInOrder) {
  std::vector<std::string> lines;
  auto outcome =
      RunProcessLines(Shell("printf 'a\\nbb\\r\\n\\nlast-without-newline'; echo err >&2"),
                      [&](std::string_view l) { lines.emplace_back(l); });
  ASSERT_TRUE(outcome.ok()) << outcome.status().message();
  EXPECT_TRUE(outcome->ok());
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "bb", "", "last-without-newline"}));
  EXPECT_EQ(outcome->stderr_tail, "err\n");
  EXPECT_GT(outcome->pid, 0);
  EXPECT_GE(outcome->wall_s, 0);
}

TEST(SubprocessTest, HandsOnTheBytesAsWritten) {
  std::string bytes;
  auto outcome = RunProcess(Shell("printf 'x\\ny'"), [&](std::string_view b) { bytes += b; });
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(bytes, "x\ny");
}

TEST(SubprocessTest, PassesEnvironmentOverridesAndRemovals) {
  setenv("DLCHECK_TEST_UNSET_ME", "present", 1);
  Spec spec = Shell("echo \"$DLCHECK_TEST_SET=${DLCHECK_TEST_UNSET_ME:-gone}\"");
  spec.env = {{"DLCHECK_TEST_SET", "value"}};
  spec.unset_env = {"DLCHECK_TEST_UNSET_ME"};
  std::string line;
  auto outcome = RunProcessLines(spec, [&](std::string_view l) { line = l; });
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(line, "value=gone");
}

TEST(SubprocessTest, ReportsExitStatus) {
  auto outcome = RunProcess(Shell("echo partial; exit 3"), Ignore());
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->exited);
  EXPECT_EQ(outcome->exit_code, 3);
  EXPECT_EQ(outcome->ShellStatus(), 3);
  EXPECT_EQ(outcome->Describe(), "exited with status 3");
}

TEST(SubprocessTest, ReportsTheSignalThatKilledIt) {
  std::vector<std::string> lines;
  auto outcome = RunProcessLines(Shell("echo before; kill -ILL $$; echo after"),
                                 [&](std::string_view l) { lines.emplace_back(l); });
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->signaled);
  EXPECT_EQ(outcome->signal, SIGILL);
  EXPECT_EQ(outcome->ShellStatus(), 128 + SIGILL);
  EXPECT_EQ(lines, (std::vector<std::string>{"before"})) << "what it did before must be kept";
  EXPECT_EQ(outcome->Describe(), "was killed by signal 4 (SIGILL)");
  EXPECT_EQ(outcome->Ended(), outcome->Describe());
}

TEST(SubprocessTest, KillsAChildThatHangs) {
  std::vector<std::string> lines;
  auto outcome = RunProcessLines(Shell("echo started; sleep 60", 0.5),
                                 [&](std::string_view l) { lines.emplace_back(l); });
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->timed_out);
  EXPECT_FALSE(outcome->signaled);
  EXPECT_FALSE(outcome->ok());
  EXPECT_LT(outcome->wall_s, 30);
  EXPECT_EQ(lines, (std::vector<std::string>{"started"}));
  EXPECT_EQ(outcome->Describe(), "timed out after 0.5 s and was killed");
}

TEST(SubprocessTest, CutsOverlongLines) {
  std::vector<std::size_t> sizes;
  auto outcome = RunProcessLines(
      Shell("head -c 2500 /dev/zero | tr '\\0' x; echo"),
      [&](std::string_view l) { sizes.push_back(l.size()); }, 1000);
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(sizes, (std::vector<std::size_t>{1000, 1000, 500}));
}

TEST(SubprocessTest, AMissingProgramIsAClearError) {
  auto outcome = RunProcess(Spec{.argv = {"/nonexistent/dlcheck"}}, Ignore());
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), ExitCode::kCommandNotFound);
  EXPECT_EQ(outcome.status().message(),
            "cannot run '/nonexistent/dlcheck': No such file or directory");
}

TEST(SubprocessTest, LooksUpPathOnlyWhenAsked) {
  auto found = RunProcess(Spec{.argv = {"true"}, .search_path = true}, Ignore());
  ASSERT_TRUE(found.ok()) << found.status().message();
  EXPECT_TRUE(found->ok());
  auto not_looked_up = RunProcess(Spec{.argv = {"true"}}, Ignore());
  ASSERT_FALSE(not_looked_up.ok());
  auto missing =
      RunProcess(Spec{.argv = {"dlcheck-no-such-command"}, .search_path = true}, Ignore());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ExitCode::kCommandNotFound);
  EXPECT_EQ(missing.status().message(), "cannot run 'dlcheck-no-such-command': command not found");
}

TEST(SubprocessTest, AFileThatCannotBeExecutedIs126) {
  char dir[] = "/tmp/dlcheck-subprocess-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string path = std::string(dir) + "/not-executable";
  std::ofstream(path) << "echo hi\n";
  chmod(path.c_str(), 0644);
  auto outcome = RunProcess(Spec{.argv = {path}}, Ignore());
  unlink(path.c_str());
  rmdir(dir);
  ASSERT_FALSE(outcome.ok());
  EXPECT_EQ(outcome.status().code(), ExitCode::kCannotExecute);
  EXPECT_EQ(outcome.status().message(), "cannot run '" + path + "': Permission denied");
}

// dlcheck (this test) receives SIGTERM while the child runs: the child's group gets it, and the
// outcome says whose signal ended it.
TEST(SubprocessTest, PassesASignalOnAndSaysSo) {
  auto outcome = RunProcess(Shell("kill -TERM $PPID; sleep 20"), Ignore());
  ASSERT_TRUE(outcome.ok());
  EXPECT_EQ(outcome->interrupted, SIGTERM);
  EXPECT_TRUE(outcome->signaled);
  EXPECT_EQ(outcome->signal, SIGTERM);
  EXPECT_LT(outcome->wall_s, 15);
  EXPECT_EQ(outcome->Ended(), "was killed by signal 15 (SIGTERM)");
  EXPECT_EQ(outcome->Describe(), "was stopped: dlcheck received SIGTERM and passed it on");
  // The handlers are put back afterwards: the next run starts with no signal received.
  auto next = RunProcess(Shell("exit 0"), Ignore());
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->interrupted, 0);
}

bool Gone(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  std::string text;
  try {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    text.assign(std::istreambuf_iterator<char>(stat), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure&) {
    return true;  // the process ended while its file was read (ESRCH)
  }
  const auto paren = text.rfind(')');
  return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

// The child's end is waitpid's: a process it left in the background, holding its stdout, does
// not keep dlcheck waiting, and is sent SIGTERM.
TEST(SubprocessTest, EndsWithTheChildAndLeavesNothingBehind) {
  std::string pid_text;
  auto outcome =
      RunProcessLines(Shell("sleep 30 & echo $!"), [&](std::string_view l) { pid_text = l; });
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->ok());
  EXPECT_LT(outcome->wall_s, 10);
  ASSERT_FALSE(pid_text.empty());
  const pid_t left = std::stoi(pid_text);
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    gone = Gone(left);
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(gone) << "the background sleep " << left << " outlived the run";
}

// A helper whose output is the result (a worker under perf) is read to the end: what a process
// it started writes after it ended is kept.
TEST(SubprocessTest, ReadToEndKeepsWhatALaterWriterWrote) {
  Spec spec = Shell("(sleep 0.5; echo late) & exit 0");
  spec.read_to_end = true;
  std::vector<std::string> lines;
  auto outcome = RunProcessLines(spec, [&](std::string_view l) { lines.emplace_back(l); });
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(outcome->ok());
  EXPECT_EQ(lines, (std::vector<std::string>{"late"}));
  // Without it the end is waitpid's: the late writer is cut off (and sent SIGTERM).
  spec.read_to_end = false;
  lines.clear();
  outcome = RunProcessLines(spec, [&](std::string_view l) { lines.emplace_back(l); });
  ASSERT_TRUE(outcome.ok());
  EXPECT_TRUE(lines.empty());
}

TEST(SubprocessTest, NamesSignals) {
  EXPECT_EQ(SignalName(SIGSEGV), "SIGSEGV");
  EXPECT_EQ(KilledBySignalText(SIGSEGV), "was killed by signal 11 (SIGSEGV)");
}

}  // namespace
}  // namespace dlcheck::os
