// SPDX-License-Identifier: Apache-2.0
// `dlcheck profile` stopped by a signal, on this machine's real perf: at any moment (while perf
// is probed, while it records), the end is 128+N with the report of what was recorded or one
// `dlcheck:` line saying why there is none, never a false error ("perf script exited with
// status 255"); no scratch directory, perf map or process is left.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/scratch_dir.h"
#include "support/test_files.h"

namespace dlcheck {
namespace {

using Json = nlohmann::json;

using dlcheck::testing::ReadFile;

// The perf maps in /tmp now whose process has ended: a running process's map (another test's
// worker, as ctest runs tests side by side) is nobody's leftover yet, nor the one a test writes
// as another run's (kAnotherRunsPerfMap).
std::set<std::string> PerfMaps() {
  std::set<std::string> maps;
  std::error_code error;
  for (const auto& e : std::filesystem::directory_iterator("/tmp", error)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("perf-") || !name.ends_with(".map")) continue;
    const pid_t pid = static_cast<pid_t>(std::atol(name.c_str() + 5));
    if (pid > 0 && (kill(pid, 0) == 0 || errno == EPERM)) continue;
    if (ReadFile(e.path().string()).starts_with(testing::kAnotherRunsPerfMap)) continue;
    maps.insert(name);
  }
  return maps;
}

// The parent of process `pid` (0 when it is gone).
pid_t ParentOf(pid_t pid) {
  const std::string stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t end = stat.rfind(')');
  if (end == std::string::npos) return 0;
  std::istringstream fields(stat.substr(end + 2));
  std::string state;
  pid_t parent = 0;
  fields >> state >> parent;
  return parent;
}

// Descendants of `root` whose command line holds `marker` (the profiled program's own argument:
// the program, perf record), so that other tests' workers on the same machine are not counted;
// with `root` 0, every process (for a marker no other test uses).
int ProcessesWith(pid_t root, const std::string& marker) {
  int found = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::string cmdline = ReadFile(e.path().string() + "/cmdline");
    for (char& c : cmdline) c = c == '\0' ? ' ' : c;
    if (cmdline.find(marker) == std::string::npos) continue;
    if (root == 0) {
      ++found;
      continue;
    }
    for (pid_t p = static_cast<pid_t>(std::stol(name)); p > 1; p = ParentOf(p)) {
      if (p == root) {
        ++found;
        break;
      }
    }
  }
  return found;
}

class ProfileInterruptTest : public testing::ScratchDirTest {
 protected:
  struct Ended {
    int status = -1;
    std::string out;
    std::string err;
  };

  // Runs `dlcheck profile ARGS` with TMPDIR in the scratch directory and sends `signal` after
  // `delay` (counted from the moment a process with `started_marker` in its command line runs,
  // where one is given).
  Ended Interrupt(const std::vector<std::string>& args, int signal, std::chrono::milliseconds delay,
                  const std::string& started_marker = "", int started_processes = 0) {
    const std::filesystem::path tmpdir = dir_ / "tmp";
    std::filesystem::create_directory(tmpdir);
    const std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
    const pid_t pid = fork();
    if (pid == 0) {
      dup2(open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), STDOUT_FILENO);
      dup2(open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644), STDERR_FILENO);
      setenv("TMPDIR", tmpdir.c_str(), 1);
      std::vector<char*> argv = {const_cast<char*>(DLCHECK_BINARY), const_cast<char*>("profile")};
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(DLCHECK_BINARY, argv.data());
      _exit(127);
    }
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!started_marker.empty() && ProcessesWith(pid, started_marker) < started_processes &&
           std::chrono::steady_clock::now() < end) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::this_thread::sleep_for(delay);
    kill(pid, signal);
    int status = 0;
    waitpid(pid, &status, 0);
    Ended ended{WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), ReadFile(out),
                ReadFile(err)};
    EXPECT_TRUE(std::filesystem::is_empty(tmpdir)) << "a scratch directory was left";
    return ended;
  }

  // The end every interrupted profile must have: 128+N, and either a report with the one line
  // that says it was interrupted or the one line that says why there is no report.
  static void ExpectInterruptedEnd(const Ended& e, int signal) {
    const std::string name = "SIG" + std::string(sigabbrev_np(signal));
    EXPECT_EQ(e.status, 128 + signal) << e.err;
    EXPECT_EQ(e.err.find("perf script"), std::string::npos) << e.err;
    // A signal that lands before dlcheck has set up its handlers (a slow start: the sanitizer
    // build on a loaded machine) ends it as the signal's default does: 128+N, nothing written.
    if (e.out.empty() && e.err.empty()) return;
    if (e.out.empty()) {
      EXPECT_TRUE(e.err.starts_with("dlcheck: profile interrupted by " + name + ": ")) << e.err;
      EXPECT_EQ(std::count(e.err.begin(), e.err.end(), '\n'), 1) << e.err;
    } else {
      EXPECT_TRUE(Json::accept(e.out)) << e.out;
      EXPECT_TRUE(e.err.ends_with("dlcheck: interrupted by " + name +
                                  "; the report holds what perf recorded before\n"))
          << e.err;
    }
  }
};

// The example: Ctrl-C (SIGINT) in the model profile's first seconds, at three moments
// (while perf is probed, as it starts recording, while it records).
TEST_F(ProfileInterruptTest, SigintInTheFirstSecondsOfTheModel) {
  for (int ms : {50, 400, 1500}) {
    SCOPED_TRACE(ms);
    const std::set<std::string> maps_before = PerfMaps();
    const Ended e =
        Interrupt({"--model", "mlp", "--time", "600", "--threads", "1", "--format", "json"}, SIGINT,
                  std::chrono::milliseconds(ms));
    ExpectInterruptedEnd(e, SIGINT);
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    for (const std::string& map : PerfMaps()) {
      EXPECT_TRUE(maps_before.count(map) != 0) << "left behind: /tmp/" << map;
    }
  }
}

// And once the model worker runs under perf (two seconds after it started): the report of what
// perf recorded, not "the model worker was stopped" as an error, and no perf map left.
TEST_F(ProfileInterruptTest, SigintWhileTheModelIsRecorded) {
  const std::set<std::string> maps_before = PerfMaps();
  const Ended e =
      Interrupt({"--model", "mlp", "--time", "600", "--threads", "1", "--format", "json"}, SIGINT,
                std::chrono::milliseconds(2000), " worker --",
                /*started_processes=*/2);  // perf record and the worker
  ExpectInterruptedEnd(e, SIGINT);
  EXPECT_FALSE(e.out.empty()) << e.err;
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (const std::string& map : PerfMaps()) {
    EXPECT_TRUE(maps_before.count(map) != 0) << "left behind: /tmp/" << map;
  }
}

// One more of the class: SIGTERM to dlcheck a second after the profiled program started: the
// report of what perf recorded, 143, and nothing of the program left.
TEST_F(ProfileInterruptTest, SigtermWhileAProgramIsRecordedReportsIt) {
  const std::string marker = "profiled-marker-" + std::to_string(getpid());
  const Ended e = Interrupt({"--format", "json", "--", "sh", "-c", "while :; do :; done", marker},
                            SIGTERM, std::chrono::milliseconds(1000), marker,
                            /*started_processes=*/3);
  ExpectInterruptedEnd(e, SIGTERM);
  ASSERT_FALSE(e.out.empty()) << e.err;
  EXPECT_GT(Json::parse(e.out)["profile"]["samples"].get<int>(), 0) << e.out;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(ProcessesWith(0, marker), 0);
}

}  // namespace
}  // namespace dlcheck
