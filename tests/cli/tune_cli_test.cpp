// SPDX-License-Identifier: Apache-2.0
// dlcheck tune -- CMD through the built binary, on tests/data/tune/program.sh: a program whose
// time (it sleeps, so a loaded machine changes it little) and printed figure depend on its
// environment in a known way. Invariants, not timings: the knob that cuts its time to a quarter
// is ranked first with a speed-up within bounds; a knob without effect is within noise; a knob
// that makes it fail is that failure; SIGINT ends the tune with the runs done and 130, and no
// process of the program outlives it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
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

std::string Program() {
  return testing::DataPath("tune/program.sh");
}

// `dlcheck tune ARGS --format json -- sh program.sh`, parsed.
struct Tuned {
  testing::RunResult result;
  Json doc;
};

Tuned Tune(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
  std::vector<std::string> argv = {"tune", "--format", "json"};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.insert(argv.end(), {"--", "sh", Program()});
  Tuned t{.result = testing::RunDlcheck(argv, "", env)};
  if (Json::accept(t.result.out)) t.doc = Json::parse(t.result.out);
  return t;
}

const Json* Row(const Json& doc, const std::string& variant) {
  for (const Json& row : doc["variants"]) {
    if (row["variant"] == variant) return &row;
  }
  return nullptr;
}

// A quarter of the time: ranked first, the speed-up near 4 (the shell's start-up is the same in
// both), the line to apply sets it; a knob that changes nothing overlaps the baseline (8 runs
// each: two alike ranges fall apart by chance once in 6435 tunes).
TEST(TuneCli, TheKnobThatCutsTheTimeIsRankedFirstAndOneWithoutEffectIsWithinNoise) {
  const Tuned t = Tune({"--groups", "user", "--knob", "TUNE_TEST_FAST=1", "--knob",
                        "TUNE_TEST_NOTHING=1", "--runs", "8"});
  ASSERT_EQ(t.result.exit_code, 0) << t.result.err;
  ASSERT_FALSE(t.doc.is_null()) << t.result.out;
  const Json& tune = t.doc["tune"];
  EXPECT_EQ(tune["best"], "TUNE_TEST_FAST=1");
  EXPECT_EQ(tune["apply"], "env TUNE_TEST_FAST=1 sh " + Program());
  EXPECT_EQ(tune["rounds_done"], 8);
  EXPECT_EQ(tune["metric"], "wall_s");
  const Json& rows = t.doc["variants"];
  ASSERT_EQ(rows.size(), 3u) << rows;
  EXPECT_EQ(rows[0]["variant"], "baseline");
  EXPECT_EQ(rows[0]["verdict"], "baseline");
  EXPECT_EQ(rows[1]["variant"], "TUNE_TEST_FAST=1");
  EXPECT_EQ(rows[1]["verdict"], "faster");
  EXPECT_EQ(rows[1]["rank"], 1);
  EXPECT_GT(rows[1]["speedup"].get<double>(), 2.0) << rows[1];
  EXPECT_LT(rows[1]["speedup"].get<double>(), 4.5) << rows[1];
  EXPECT_LT(rows[1]["max"].get<double>(), rows[0]["min"].get<double>());
  const Json* nothing = Row(t.doc, "TUNE_TEST_NOTHING=1");
  ASSERT_NE(nothing, nullptr);
  EXPECT_EQ((*nothing)["verdict"], "within noise") << *nothing;
  EXPECT_TRUE((*nothing)["rank"].is_null());
  for (const Json& row : rows) EXPECT_EQ(row["runs"], 8) << row;
  // One winner: no combined variant. The program's own output went to stderr, not the report.
  EXPECT_NE(t.result.err.find("score: 4"), std::string::npos);
  EXPECT_EQ(t.result.out.find("tune test: done"), std::string::npos);
}

// The answer first, then the line to apply, in the text table.
TEST(TuneCli, TheTableStartsWithTheAnswerAndTheLineToApply) {
  const testing::RunResult r =
      testing::RunDlcheck({"tune", "--groups", "user", "--knob", "TUNE_TEST_FAST=1", "--runs", "3",
                           "--", "sh", Program()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string answer, apply;
  std::getline(lines, answer);
  std::getline(lines, apply);
  EXPECT_EQ(answer.rfind("TUNE_TEST_FAST=1: ", 0), 0u) << r.out;
  EXPECT_NE(answer.find("x faster (wall "), std::string::npos) << answer;
  EXPECT_NE(answer.find("3 runs each"), std::string::npos) << answer;
  EXPECT_EQ(apply, "env TUNE_TEST_FAST=1 sh " + Program()) << r.out;
}

// Two winners: their combination is measured as a variant of its own, beside more baseline
// runs, never multiplied.
TEST(TuneCli, TwoWinnersAreMeasuredTogether) {
  const Tuned t = Tune({"--groups", "user", "--knob", "TUNE_TEST_HALF=1", "--knob",
                        "TUNE_TEST_FAST=1", "--runs", "3"});
  ASSERT_EQ(t.result.exit_code, 0) << t.result.err;
  const Json* combined = Row(t.doc, "TUNE_TEST_FAST=1 + TUNE_TEST_HALF=1");
  ASSERT_NE(combined, nullptr) << t.result.out;
  EXPECT_EQ((*combined)["group"], "combined");
  EXPECT_EQ((*combined)["environment"], "TUNE_TEST_FAST=1 TUNE_TEST_HALF=1");
  EXPECT_EQ((*combined)["runs"], 3);
  EXPECT_EQ((*combined)["verdict"], "faster");
  // The baseline ran beside it again.
  EXPECT_EQ(t.doc["variants"][0]["runs"], 6);
}

// A knob that makes the program fail: its exit status and stderr's last line, never ranked, run
// once; the tune itself succeeds and the line to apply is the command as it is.
TEST(TuneCli, AFailingVariantIsReportedAsFailed) {
  const Tuned t = Tune({"--groups", "user", "--knob", "TUNE_TEST_FAIL=1", "--runs", "2"});
  ASSERT_EQ(t.result.exit_code, 0) << t.result.err;
  const Json* failed = Row(t.doc, "TUNE_TEST_FAIL=1");
  ASSERT_NE(failed, nullptr) << t.result.out;
  EXPECT_EQ((*failed)["verdict"], "failed");
  EXPECT_EQ((*failed)["exit_status"], 3);
  EXPECT_EQ((*failed)["stderr_last_line"], "tune test: failing as asked");
  EXPECT_EQ((*failed)["runs"], 1);
  EXPECT_TRUE((*failed)["rank"].is_null());
  EXPECT_TRUE(t.doc["tune"]["best"].is_null());
  EXPECT_EQ(t.doc["tune"]["apply"], "sh " + Program());
  bool finding = false;
  for (const Json& f : t.doc["findings"]) {
    if (f["code"] == "variant-failed") {
      finding = true;
      EXPECT_EQ(f["message"],
                "under TUNE_TEST_FAIL=1 the program exited with status 3; its stderr's last "
                "line: tune test: failing as asked; not ranked");
    }
  }
  EXPECT_TRUE(finding) << t.doc["findings"];
  // Its stderr was passed on as well as read.
  EXPECT_NE(t.result.err.find("tune test: starting"), std::string::npos);
}

// The program's figure: exact, so the ratio is exact (4 against 1), in either direction.
TEST(TuneCli, MetricRanksByTheProgramsFigure) {
  const std::vector<std::string> base = {"--groups", "user", "--knob",   "TUNE_TEST_FAST=1",
                                         "--runs",   "2",    "--metric", "score: ([0-9.]+)"};
  std::vector<std::string> higher = base;
  higher.push_back("--higher-is-better");
  const Tuned up = Tune(higher);
  ASSERT_EQ(up.result.exit_code, 0) << up.result.err;
  const Json* fast = Row(up.doc, "TUNE_TEST_FAST=1");
  ASSERT_NE(fast, nullptr) << up.result.out;
  EXPECT_EQ((*fast)["verdict"], "better");
  EXPECT_DOUBLE_EQ((*fast)["speedup"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ((*fast)["median"].get<double>(), 4.0);
  EXPECT_EQ(up.doc["tune"]["metric"], "score: ([0-9.]+)");
  EXPECT_EQ(up.doc["tune"]["best_speedup"], 4.0);

  const Tuned down = Tune(base);
  ASSERT_EQ(down.result.exit_code, 0) << down.result.err;
  fast = Row(down.doc, "TUNE_TEST_FAST=1");
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ((*fast)["verdict"], "worse");
  EXPECT_DOUBLE_EQ((*fast)["speedup"].get<double>(), 0.25);
  EXPECT_TRUE(down.doc["tune"]["best"].is_null());
}

// A metric the program never prints: every run failed to give it.
TEST(TuneCli, AMetricNeverPrintedIsAFailedBaseline) {
  const Tuned t = Tune({"--groups", "user", "--runs", "2", "--metric", "tokens/s: ([0-9.]+)"});
  ASSERT_EQ(t.result.exit_code, 0) << t.result.err;
  EXPECT_EQ(t.doc["variants"][0]["verdict"], "failed");
  EXPECT_EQ(t.doc["variants"][0]["note"], "printed no number that --metric matches");
}

// Knobs that cannot apply are listed with the reason, not run: no allocator library in the
// directory tune looks in.
TEST(TuneCli, AnAllocatorThatIsNotInstalledIsListedNotRun) {
  const std::string empty =
      std::filesystem::temp_directory_path() / ("dlcheck_tune_no_libs_" + std::to_string(getpid()));
  std::filesystem::create_directories(empty);
  const Tuned t =
      Tune({"--groups", "allocator", "--runs", "2"}, {"DLCHECK_TUNE_LIBRARY_DIR=" + empty});
  std::filesystem::remove_all(empty);
  ASSERT_EQ(t.result.exit_code, 0) << t.result.err;
  const Json* jemalloc = Row(t.doc, "jemalloc");
  ASSERT_NE(jemalloc, nullptr) << t.result.out;
  EXPECT_EQ((*jemalloc)["verdict"], "not applicable");
  EXPECT_EQ((*jemalloc)["runs"], 0);
  EXPECT_EQ((*jemalloc)["note"], "libjemalloc.so.2 is not installed in " + empty +
                                     ": install the Debian package libjemalloc2");
  const Json* tcmalloc = Row(t.doc, "tcmalloc");
  ASSERT_NE(tcmalloc, nullptr);
  EXPECT_EQ((*tcmalloc)["verdict"], "not applicable");
}

bool Zombie(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const std::size_t name_end = line.rfind(')');
  return name_end != std::string::npos && line.size() > name_end + 2 && line[name_end + 2] == 'Z';
}

// SIGINT in the middle: the report of the runs done, 130, and no process of the program left.
TEST(TuneCli, SigintEndsWithThePartialReportAnd130AndNoChildLeft) {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("dlcheck_tune_sigint_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string pids = dir + "/pids", out = dir + "/out", err = dir + "/err";
  setenv("TUNE_TEST_PIDS", pids.c_str(), 1);
  const pid_t dlcheck =
      testing::StartDlcheck({"tune", "--format", "json", "--groups", "user", "--knob",
                             "TUNE_TEST_NOTHING=1", "--runs", "100", "--", "sh", Program()},
                            out, err);
  unsetenv("TUNE_TEST_PIDS");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  kill(dlcheck, SIGINT);
  int status = 0;
  waitpid(dlcheck, &status, 0);
  const int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  const std::string report = testing::ReadFile(out);
  const std::string errors = testing::ReadFile(err);
  EXPECT_EQ(exit_code, 130) << errors;
  ASSERT_TRUE(Json::accept(report)) << report << errors;
  const Json doc = Json::parse(report);
  EXPECT_EQ(doc["tune"]["interrupted_by"], "SIGINT");
  EXPECT_GE(doc["variants"][0]["runs"].get<int>(), 1) << doc["variants"];
  EXPECT_LT(doc["variants"][0]["runs"].get<int>(), 100);
  EXPECT_NE(errors.find("dlcheck: interrupted by SIGINT; the report holds the runs done"),
            std::string::npos)
      << errors;
  // Every shell and sleep the tune started has ended: no such process, or a zombie that its new
  // parent (init, once its shell has gone) has not reaped yet.
  std::ifstream listed(pids);
  std::vector<pid_t> started;
  for (pid_t pid; listed >> pid;) started.push_back(pid);
  EXPECT_FALSE(started.empty());
  for (pid_t pid : started) {
    bool gone = false;
    for (int i = 0; i < 150 && !gone; ++i) {
      gone = (kill(pid, 0) != 0 && errno == ESRCH) || Zombie(pid);
      if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_TRUE(gone) << "process " << pid << " outlived the tune";
  }
  std::filesystem::remove_all(dir);
}

// The budget bounds the whole command: no round starts that would not fit, a run still going at
// its end is killed, and the report says the budget ended it.
TEST(TuneCli, TheBudgetEndsTheRoundsAndSaysSo) {
  const Tuned t =
      Tune({"--groups", "user", "--knob", "TUNE_TEST_NOTHING=1", "--runs", "5", "--budget", "0.6"});
  ASSERT_EQ(t.result.exit_code, 0) << t.result.err;
  const Json& tune = t.doc["tune"];
  EXPECT_LT(tune["rounds_done"].get<int>(), 5);
  EXPECT_LT(tune["elapsed_s"].get<double>(), 0.6 + 0.5) << tune;
  bool said = false;
  for (const Json& f : t.doc["findings"]) said = said || f["code"] == "budget-ended";
  EXPECT_TRUE(said) << t.doc["findings"];
  for (const Json& row : t.doc["variants"]) EXPECT_TRUE(row["rank"].is_null()) << row;
}

TEST(TuneCli, BadOptionsAreUsageErrors) {
  const testing::RunResult knob = testing::RunDlcheck({"tune", "--knob", "NOEQUALS", "--", "true"});
  EXPECT_EQ(knob.exit_code, 2);
  EXPECT_EQ(knob.err,
            "dlcheck: --knob 'NOEQUALS': expected NAME=VALUE (an environment variable and its "
            "value, e.g. --knob OMP_SCHEDULE=static)\n");
  const testing::RunResult higher =
      testing::RunDlcheck({"tune", "--higher-is-better", "--", "true"});
  EXPECT_EQ(higher.exit_code, 2);
  EXPECT_EQ(higher.err,
            "dlcheck: --higher-is-better: only with --metric REGEX (wall time is "
            "lower-better)\n");
  const testing::RunResult group =
      testing::RunDlcheck({"tune", "--groups", "lapack", "--", "true"});
  EXPECT_EQ(group.exit_code, 2);
  EXPECT_EQ(group.err,
            "dlcheck: --groups: unknown group 'lapack' (one of: threads, openmp, placement, "
            "allocator, blas, onednn, framework, user)\n");
  const testing::RunResult regex = testing::RunDlcheck({"tune", "--metric", "(", "--", "true"});
  EXPECT_EQ(regex.exit_code, 2);
  EXPECT_EQ(regex.err.rfind("dlcheck: --metric '(': not a regular expression", 0), 0u) << regex.err;
  const testing::RunResult missing =
      testing::RunDlcheck({"tune", "--groups", "user", "--", "/nonexistent/program"});
  EXPECT_EQ(missing.exit_code, 127) << missing.err;
}

// The audit of the running program: python3 with GNU's and LLVM's OpenMP runtimes loaded beside
// each other (as two libraries built with each would) is sampled while the baseline runs; the
// report names both runtimes and warns of them; a program that ends at once has null counts
// where it was not sampled.
TEST(TuneCli, TheAuditNamesTwoOpenMpRuntimesInTheRunningProgram) {
  const std::string python = "/usr/bin/python3";
  const std::string program =
      "import ctypes, time\n"
      "ctypes.CDLL('libgomp.so.1')\n"
      "ctypes.CDLL('libomp.so.5')\n"
      "time.sleep(0.8)\n";
  const testing::RunResult r =
      testing::RunDlcheck({"tune", "--format", "json", "--groups", "user", "--knob",
                           "TUNE_TEST_NOTHING=1", "--runs", "2", "--", python, "-c", program});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  const Json& process = doc["process"];
  EXPECT_GE(process["samples"].get<int>(), 2) << process;
  ASSERT_EQ(process["openmp_runtimes"].size(), 2u) << process;
  EXPECT_EQ(process["openmp_runtimes"][0].get<std::string>().rfind("GNU OpenMP (libgomp.so", 0),
            0u);
  EXPECT_EQ(process["openmp_runtimes"][1], "LLVM OpenMP (libomp.so.5)");
  EXPECT_GE(process["threads_max"].get<int>(), 1);
  EXPECT_GE(process["processes_max"].get<int>(), 1);
  std::vector<std::string> codes;
  for (const Json& f : doc["findings"]) codes.push_back(f["code"]);
  EXPECT_NE(std::find(codes.begin(), codes.end(), "two-openmp-runtimes"), codes.end()) << r.out;

  const testing::RunResult quick = testing::RunDlcheck(
      {"tune", "--format", "json", "--groups", "user", "--runs", "2", "--", "true"});
  ASSERT_EQ(quick.exit_code, 0) << quick.err;
  // `true` ends before the first sample (0.05 s) unless the machine is loaded enough to delay
  // it: without a sample the counts are null, with one they are counts.
  const Json quick_process = Json::parse(quick.out)["process"];
  if (quick_process["samples"] == 0) {
    EXPECT_TRUE(quick_process["threads_max"].is_null()) << quick_process;
    EXPECT_TRUE(quick_process["program_cpus"].is_null()) << quick_process;
  } else {
    EXPECT_GE(quick_process["threads_max"].get<int>(), 1) << quick_process;
  }
  EXPECT_EQ(quick_process["openmp_runtimes"].size(), 0u) << quick_process;
}

// KMP_BLOCKTIME is read by Intel's and LLVM's OpenMP only: after the baseline's first run, whose
// audit saw which runtime the program mapped, it is not run for a program of GNU OpenMP (said
// why), and run for one of LLVM's.
TEST(TuneCli, KmpBlocktimeRunsOnlyWhereTheProgramMappedARuntimeThatReadsIt) {
  const auto tune = [](const std::string& library) {
    const std::string program =
        "import ctypes, time\nctypes.CDLL('" + library + "')\ntime.sleep(0.4)\n";
    const testing::RunResult r =
        testing::RunDlcheck({"tune", "--format", "json", "--groups", "openmp", "--runs", "2", "--",
                             "/usr/bin/python3", "-c", program});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
  };
  const Json gnu = tune("libgomp.so.1");
  ASSERT_GE(gnu["process"]["samples"].get<int>(), 1) << gnu["process"];
  const Json* unread = Row(gnu, "KMP_BLOCKTIME=1");
  ASSERT_NE(unread, nullptr) << gnu["variants"];
  EXPECT_EQ((*unread)["verdict"], "not applicable") << *unread;
  EXPECT_EQ((*unread)["runs"], 0) << *unread;
  EXPECT_EQ((*unread)["note"],
            "the program mapped no Intel OpenMP or LLVM OpenMP, which read KMP_BLOCKTIME")
      << *unread;
  EXPECT_EQ((*Row(gnu, "OMP_WAIT_POLICY=PASSIVE"))["runs"], 2) << gnu["variants"];

  const Json llvm = tune("libomp.so.5");
  const Json* read = Row(llvm, "KMP_BLOCKTIME=1");
  ASSERT_NE(read, nullptr) << llvm["variants"];
  EXPECT_NE((*read)["verdict"], "not applicable") << *read;
  EXPECT_EQ((*read)["runs"], 2) << *read;
}

// PyTorch's settings run only for a program that maps libtorch_cpu (Debian's python3-torch):
// ATEN_CPU_CAPABILITY=avx512 where AVX-512 is usable (Debian's PyTorch 1.13 picks AVX2's
// kernels on an AVX-512 host), THP_MEM_ALLOC_ENABLE=1 unless huge pages are off.
TEST(TuneCli, PyTorchKnobsRunOnlyForAProgramThatMapsPyTorch) {
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  const std::string thp = testing::ReadFile("/sys/kernel/mm/transparent_hugepage/enabled");
  const bool thp_off = thp.find("[never]") != std::string::npos;
  const auto tune = [](const std::string& program) {
    const testing::RunResult r =
        testing::RunDlcheck({"tune", "--format", "json", "--groups", "framework", "--runs", "2",
                             "--", "/usr/bin/python3", "-c", program});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json::parse(r.out);
  };
  const Json torch = tune(
      "import torch, time\nx = torch.randn(256, 256)\nfor _ in range(20): x.exp()\n"
      "time.sleep(0.3)\n");
  ASSERT_GE(torch["process"]["samples"].get<int>(), 1) << torch["process"];
  ASSERT_EQ(torch["process"]["frameworks"].size(), 1u) << torch["process"];
  const Json* aten = Row(torch, "ATEN_CPU_CAPABILITY=avx512");
  ASSERT_NE(aten, nullptr) << torch["variants"];
  EXPECT_EQ((*aten)["runs"], avx512 ? 2 : 0) << *aten;
  if (!avx512) {
    EXPECT_EQ((*aten)["note"], "no AVX-512 on this host: no avx512 kernels to pick") << *aten;
  }
  const Json* huge = Row(torch, "THP_MEM_ALLOC_ENABLE=1");
  ASSERT_NE(huge, nullptr) << torch["variants"];
  EXPECT_EQ((*huge)["runs"], thp_off ? 0 : 2) << *huge;

  const Json plain = tune("import time\ntime.sleep(0.4)\n");
  ASSERT_GE(plain["process"]["samples"].get<int>(), 1) << plain["process"];
  const Json* unread = Row(plain, "THP_MEM_ALLOC_ENABLE=1");
  ASSERT_NE(unread, nullptr) << plain["variants"];
  EXPECT_EQ((*unread)["runs"], 0) << *unread;
  if (!thp_off) {
    EXPECT_EQ((*unread)["note"], "the program mapped no PyTorch, which read THP_MEM_ALLOC_ENABLE")
        << *unread;
  }
}

// Two busy processes pinned to one CPU (taskset -c 0): the audit sees more runnable threads than
// the CPUs they may run on, and says they share a core (on a host of 2 usable CPUs or more) or
// that they oversubscribe it (on a host of 1).
TEST(TuneCli, TheAuditSeesThreadsPinnedTogether) {
  const std::string spin = "timeout 1.5 sh -c 'while :; do :; done'";
  const testing::RunResult r =
      testing::RunDlcheck({"tune", "--format", "json", "--groups", "user", "--runs", "2", "--",
                           "taskset", "-c", "0", "sh", "-c", spin + " & " + spin + "; wait"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_GE(doc["process"]["samples"].get<int>(), 3) << doc["process"];
  EXPECT_GE(doc["process"]["runnable_max"].get<int>(), 2) << doc["process"];
  std::string message;
  for (const Json& f : doc["findings"]) {
    if (f["code"] == "threads-share-a-core" || f["code"] == "pools-oversubscribed") {
      message = f["message"];
    }
  }
  ASSERT_FALSE(message.empty()) << r.out;
  EXPECT_TRUE(message.find("could run only on CPU 0 while") != std::string::npos ||
              message.find("on 1 usable CPU (") != std::string::npos)
      << message;
}

// Debian's numpy on the reference BLAS (its libblas.so.3 alternative, put first on the library
// path): the audit names it and warns; the blas knobs are planned (run where an optimised BLAS is
// installed, listed with the package that would make it possible where none is).
TEST(TuneCli, TheAuditNamesTheReferenceBlasUnderNumpy) {
  std::string reference_dir;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib", error)) {
    if (std::filesystem::exists(entry.path() / "blas" / "libblas.so.3")) {
      reference_dir = (entry.path() / "blas").string();
    }
  }
  if (reference_dir.empty() || !std::filesystem::exists("/usr/lib/python3/dist-packages/numpy")) {
    GTEST_SKIP() << "needs Debian's libblas3 and python3-numpy (both in the tests' packages)";
  }
  const testing::RunResult r = testing::RunDlcheck(
      {"tune", "--format", "json", "--groups", "blas", "--runs", "2", "--", "/usr/bin/python3",
       "-c", "import numpy, time; a = numpy.ones((64, 64)); a @ a; time.sleep(0.5)"},
      "", {"LD_LIBRARY_PATH=" + reference_dir});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  ASSERT_EQ(doc["process"]["blas"].size(), 1u) << doc["process"];
  EXPECT_EQ(doc["process"]["blas"][0].get<std::string>().rfind("reference BLAS (libblas.so.3", 0),
            0u)
      << doc["process"];
  bool warned = false;
  for (const Json& f : doc["findings"]) warned = warned || f["code"] == "reference-blas";
  EXPECT_TRUE(warned) << r.out;
  std::size_t blas_variants = 0;
  for (const Json& row : doc["variants"]) blas_variants += row["group"] == "blas";
  EXPECT_GE(blas_variants, 1u) << doc["variants"];
}

}  // namespace
}  // namespace dlcheck
