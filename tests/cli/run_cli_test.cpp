// SPDX-License-Identifier: Apache-2.0
// `dlcheck run -- CMD` through the built binary: exit statuses, the program's own output kept
// byte for byte on stderr, counts equal to `parse` of the same log and to `verbose` of the same
// worker, signals, no process left behind, and a real PyTorch training script.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "common/exit_code.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"
#include "support/terminal.h"
#include "support/test_files.h"
#include "support/trace_rules.h"

namespace dlcheck {
namespace {

using Json = nlohmann::json;
using testing::DataPath;
using testing::ExpectDrawnAndCleared;
using testing::RunDlcheck;
using testing::StartDlcheck;
using testing::UnderTerminal;
using RunCliTest = testing::ScratchDirTest;
using Clock = std::chrono::steady_clock;

// Debian's interpreter, whose python3-torch the tests use (PATH may hold another one).
constexpr const char* kPython = "/usr/bin/python3";

using dlcheck::testing::ReadFile;

std::string Text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : std::string();
}

// (primitive, implementation) -> (execs, creates), summed over a report's rows.
using Counts = std::map<std::pair<std::string, std::string>, std::pair<int, int>>;
Counts CountsOf(const Json& rows) {
  Counts counts;
  for (const auto& row : rows) {
    auto& c = counts[{Text(row["primitive"]), Text(row["implementation"])}];
    c.first += row["execs"].get<int>();
    c.second += row["creates"].get<int>();
  }
  return counts;
}

// A /proc file's text; "" when the process is gone (its files fail with ESRCH, even mid-read,
// which a std::ifstream reports by throwing).
std::string ProcText(const std::string& path) {
  std::string text;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[4096];
  for (ssize_t n; (n = read(fd, buffer, sizeof buffer)) > 0;) {
    text.append(buffer, static_cast<std::size_t>(n));
  }
  close(fd);
  return text;
}

// The children of `pid` (Linux /proc), once it has one: waits up to `limit`.
std::vector<pid_t> WaitForChildren(pid_t pid, std::chrono::seconds limit) {
  const auto end = Clock::now() + limit;
  const std::string path =
      "/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children";
  while (Clock::now() < end) {
    std::istringstream in(ProcText(path));
    std::vector<pid_t> children;
    for (pid_t child; in >> child;) children.push_back(child);
    if (!children.empty()) return children;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return {};
}

// True when `pid` no longer runs: gone (kill -0 fails) or a zombie waiting for init.
bool Gone(pid_t pid) {
  if (kill(pid, 0) != 0) return true;
  const std::string text = ProcText("/proc/" + std::to_string(pid) + "/stat");
  const auto paren = text.rfind(')');
  return paren == std::string::npos || text.substr(paren + 2, 1) == "Z";
}

bool GoneWithin(pid_t pid, std::chrono::milliseconds limit) {
  const auto end = Clock::now() + limit;
  while (!Gone(pid)) {
    if (Clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

// "SIGINT" for SIGINT.
std::string SignalName(int signal) {
  return "SIG" + std::string(sigabbrev_np(signal));
}

int WaitExit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST_F(RunCliTest, EndsWithTheProgramsExitStatus) {
  auto r = RunDlcheck({"run", "--", "sh", "-c", "exit 3"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  r = RunDlcheck({"run", "--", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// The audit of tune (dispatch/process_audit.h) in run's report too: python3 with GNU's and LLVM's
// OpenMP runtimes loaded beside each other, sampled while it sleeps.
TEST_F(RunCliTest, TheProcessSectionNamesTheLibrariesItMapped) {
  const auto r = RunDlcheck({"run", "--format", "json", "--", "/usr/bin/python3", "-c",
                             "import ctypes, time\nctypes.CDLL('libgomp.so.1')\n"
                             "ctypes.CDLL('libomp.so.5')\ntime.sleep(0.6)\n"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_GE(doc["process"]["samples"].get<int>(), 2) << doc["process"];
  EXPECT_EQ(doc["process"]["openmp_runtimes"].size(), 2u) << doc["process"];
  bool warned = false;
  for (const Json& f : doc["findings"]) warned = warned || f["code"] == "two-openmp-runtimes";
  EXPECT_TRUE(warned) << r.out;
}

TEST_F(RunCliTest, ProgramKilledBySignalEndsWith128PlusItAndIsNamed) {
  const auto r = RunDlcheck({"run", "--format", "json", "--", "sh", "-c", "kill -SEGV $$"});
  EXPECT_EQ(r.exit_code, 128 + SIGSEGV) << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["run"]["signal"], "SIGSEGV");
  EXPECT_EQ(doc["run"]["exit_status"], 139);
  EXPECT_EQ(doc["run"]["ended"], "was killed by signal 11 (SIGSEGV)");
  // It died before oneDNN printed a line: said as such, with the signal.
  bool named = false;
  for (const auto& f : doc["findings"]) {
    EXPECT_NE(f["code"], "program-signaled") << "said once, by program-ended-early";
    named = named || (f["code"] == "program-ended-early" &&
                      Text(f["message"]).find("SIGSEGV") != std::string::npos);
  }
  EXPECT_TRUE(named) << doc["findings"];
}

// The codes of a report's findings.
std::vector<std::string> Codes(const Json& doc) {
  std::vector<std::string> codes;
  for (const auto& f : doc["findings"]) codes.push_back(Text(f["code"]));
  return codes;
}

const Json* FindingOf(const Json& doc, std::string_view code) {
  for (const auto& f : doc["findings"]) {
    if (f["code"] == code) return &f;
  }
  return nullptr;
}

// Without the user's own verbose variables (putenv of a bare name unsets it).
const std::vector<std::string> kNoUserVerbose = {"ONEDNN_VERBOSE", "DNNL_VERBOSE",
                                                 "MKLDNN_VERBOSE"};

TEST_F(RunCliTest, HowTheRunEndedIsToldApart) {
  // Failed before oneDNN printed anything.
  auto r = RunDlcheck({"run", "--format", "json", "--", "sh", "-c", "echo no torch; exit 3"}, "",
                      kNoUserVerbose);
  EXPECT_EQ(r.exit_code, 3);
  Json doc = Json::parse(r.out);
  EXPECT_EQ(Codes(doc), std::vector<std::string>{"program-ended-early"});
  EXPECT_EQ(Text((*FindingOf(doc, "program-ended-early"))["message"]),
            "sh exited with status 3 before oneDNN printed anything: it failed before it created "
            "a oneDNN primitive (an import, its arguments, its data: see its own output above), "
            "so this report is empty; fix that first");
  // Ended well, and oneDNN never spoke.
  r = RunDlcheck({"run", "--format", "json", "--", "true"}, "", kNoUserVerbose);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(Codes(Json::parse(r.out)), std::vector<std::string>{"onednn-not-loaded"});
  // oneDNN refused what it was asked and the program gave up: oneDNN's documented create:check
  // line of a matmul whose operands disagree, after a 3.x header.
  const std::string log =
      Write("refused.log",
            "onednn_verbose,info,oneDNN v3.4.0 (commit N/A)\n"
            "onednn_verbose,info,cpu,runtime:OpenMP,nthr:1\n"
            "onednn_verbose,v0,primitive,create:check,matmul,dimension src:1 is inconsistent with "
            "weights:0,src/common/matmul.cpp:144\n");
  r = RunDlcheck({"run", "--format", "json", "--", "sh", "-c", "cat \"$0\"; exit 1", log}, "",
                 kNoUserVerbose);
  EXPECT_EQ(r.exit_code, 1);
  doc = Json::parse(r.out);
  const Json* refused = FindingOf(doc, "onednn-errors-only");
  ASSERT_NE(refused, nullptr) << doc["findings"];
  EXPECT_EQ((*refused)["severity"], "error");
  EXPECT_EQ(Text((*refused)["message"]),
            "sh's oneDNN created no primitive and printed only diagnostics: it refused what it "
            "was asked (create:check matmul: dimension src:1 is inconsistent with "
            "weights:0,src/common/matmul.cpp:144); then the program exited with status 1");
  EXPECT_EQ(FindingOf(doc, "program-ended-early"), nullptr);
  EXPECT_EQ(FindingOf(doc, "onednn-not-loaded"), nullptr);
  // The check line in plain words, in the diagnostics table and the finding.
  ASSERT_EQ(doc["diagnostics"].size(), 1u);
  EXPECT_EQ(doc["diagnostics"][0]["meaning"],
            "the caller's shapes disagree: dimension 1 of src does not match dimension 0 of "
            "weights (an operand transposed, or of the wrong shape)");
  ASSERT_NE(FindingOf(doc, "caller-checks"), nullptr);
}

// A program whose oneDNN refused what it was asked (benchdnn 3.10.2's recorded create:check of a
// matmul whose operands disagree): onednn-errors-only says why the log has no primitive line,
// and the parser's guesses at it (no-exec's "is ONEDNN_VERBOSE set?", partial-log's "verbose
// output was off") are not made; parse of the same log, which has only the log, makes them.
TEST_F(RunCliTest, ErrorsOnlyIsSaidOnceNotGuessedAt) {
  const std::string log = DataPath("verbose/benchdnn_refused_3.10.2.log");
  const auto r = RunDlcheck(
      {"run", "--format", "json", "--", "sh", "-c", "cat \"$0\"; exit 1", log}, "", kNoUserVerbose);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const Json doc = Json::parse(r.out);
  ASSERT_NE(FindingOf(doc, "onednn-errors-only"), nullptr) << doc["findings"];
  EXPECT_NE(FindingOf(doc, "caller-checks"), nullptr) << doc["findings"];
  EXPECT_EQ(FindingOf(doc, "no-exec"), nullptr) << doc["findings"];
  EXPECT_EQ(FindingOf(doc, "partial-log"), nullptr) << doc["findings"];
  const auto parsed = RunDlcheck({"parse", "--format", "json", log});
  EXPECT_EQ(parsed.exit_code, 0) << parsed.err;
  const Json parsed_doc = Json::parse(parsed.out);
  EXPECT_NE(FindingOf(parsed_doc, "no-exec"), nullptr) << parsed_doc["findings"];
  EXPECT_NE(FindingOf(parsed_doc, "partial-log"), nullptr) << parsed_doc["findings"];
}

// Where the time is: below half of wall time in oneDNN, the report points at profile.
TEST_F(RunCliTest, TimeOutsideOneDnnPointsAtProfile) {
  const std::string log = DataPath("verbose/torch_cnn_2.6.3.log");
  const auto parsed = RunDlcheck({"parse", "--format", "json", log});
  const double exec_ms = Json::parse(parsed.out)["summary"]["exec_ms"].get<double>();
  ASSERT_GT(exec_ms, 0);
  // The log's lines, then a wait of three times their exec time: under a third of wall time.
  const std::string wait = std::to_string(3 * exec_ms / 1e3 + 0.2);
  const auto r =
      RunDlcheck({"run", "--format", "json", "--", "sh", "-c", "cat \"$0\"; sleep " + wait, log},
                 "", kNoUserVerbose);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  const double pct = doc["run"]["exec_pct_of_wall"].get<double>();
  EXPECT_LT(pct, 50);
  const Json* outside = FindingOf(doc, "time-outside-onednn");
  ASSERT_NE(outside, nullptr) << doc["findings"];
  EXPECT_NE(Text((*outside)["message"]).find("run `dlcheck profile -- sh ...` to see where"),
            std::string::npos)
      << (*outside)["message"];
  // The log alone (no wait): its exec time is most of the wall time or more; no such finding
  // where oneDNN has half of it, whatever the machine.
  const auto quick = RunDlcheck({"run", "--format", "json", "--", "cat", log}, "", kNoUserVerbose);
  const Json q = Json::parse(quick.out);
  EXPECT_EQ(FindingOf(q, "time-outside-onednn") != nullptr,
            q["run"]["exec_pct_of_wall"].get<double>() < 50);
}

TEST_F(RunCliTest, MissingCommandEndsWith127) {
  const auto r = RunDlcheck({"run", "--", "dlcheck-no-such-command", "x"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_EQ(r.err, "dlcheck: cannot run 'dlcheck-no-such-command': command not found\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(RunCliTest, NonExecutableFileEndsWith126) {
  const std::string path = Write("not-executable.sh", "#!/bin/sh\necho hi\n");
  chmod(path.c_str(), 0644);
  const auto r = RunDlcheck({"run", "--", path});
  EXPECT_EQ(r.exit_code, 126);
  EXPECT_EQ(r.err, "dlcheck: cannot run '" + path + "': Permission denied\n");
}

TEST_F(RunCliTest, NoCommandIsAUsageError) {
  const auto r = RunDlcheck({"run"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
}

TEST_F(RunCliTest, ProgramOutputReachesStderrByteForByte) {
  const std::string header = "onednn_verbose,info,oneDNN v2.6.3 (commit N/A)";
  const std::string exec =
      "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
      "dst_f32::blocked:ba:f0,,,8x8,0.01";
  const std::string junk("bin\0\x01\xff\xfe junk", 13);
  // A progress bar ended by \r before a verbose marker, binary bytes, a partial last line.
  const std::string log = "epoch 1\n" + std::string("50%\r") + header + "\n" + junk + "\n" +
                          "100%\r" + exec + "\r\n" + "tail without line feed";
  const std::string path = Write("mixed.log", log);
  const auto r = RunDlcheck({"run", "--format", "json", "--", "cat", path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "epoch 1\n50%\r" + junk + "\n100%\rtail without line feed");
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["run"]["verbose_lines"], 2);
  EXPECT_EQ(doc["run"]["program_lines"], 2);
  EXPECT_EQ(doc["header"]["library_version"], "oneDNN v2.6.3 (commit N/A)");
  ASSERT_EQ(doc["primitives"].size(), 1u);
  EXPECT_EQ(doc["primitives"][0]["execs"], 1);
}

TEST_F(RunCliTest, CountsEqualParseOfTheSameLog) {
  for (const char* name : {"verbose/generated_2.6.3.txt", "verbose/formats_3.13.1.txt",
                           "verbose/torch_cnn_2.6.3.log"}) {
    const std::string log = DataPath(name);
    const auto run = RunDlcheck({"run", "--format", "json", "--", "cat", log});
    const auto parse = RunDlcheck({"parse", "--format", "json", log});
    ASSERT_EQ(run.exit_code, 0) << name << run.err;
    ASSERT_EQ(parse.exit_code, 0) << name << parse.err;
    const Json a = Json::parse(run.out), b = Json::parse(parse.out);
    EXPECT_EQ(CountsOf(a["primitives"]), CountsOf(b["primitives"])) << name;
    EXPECT_EQ(a["primitives"].size(), b["primitives"].size()) << name;
    EXPECT_EQ(a["summary"]["execs"], b["summary"]["execs"]) << name;
    EXPECT_EQ(a["summary"]["creates"], b["summary"]["creates"]) << name;
    EXPECT_EQ(a["input"]["events"], b["input"]["events"]) << name;
  }
}

TEST_F(RunCliTest, WorkerUnderRunGivesTheRowsOfVerbose) {
  const std::vector<std::string> model = {"--model",  "mlp", "--iters",  "1",
                                          "--warmup", "0",   "--traced", "2"};
  std::vector<std::string> run = {"run", "--format", "json", "--", DLCHECK_BINARY, "worker"};
  run.insert(run.end(), model.begin(), model.end());
  std::vector<std::string> verbose = {"verbose", "--format", "json"};
  verbose.insert(verbose.end(), model.begin(), model.end());
  const auto a = RunDlcheck(run);
  const auto b = RunDlcheck(verbose);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const Counts from_run = CountsOf(Json::parse(a.out)["primitives"]);
  EXPECT_FALSE(from_run.empty());
  EXPECT_EQ(from_run, CountsOf(Json::parse(b.out)["primitives"]));
}

// The trace of a program is in the program's own process (its id, its main thread) and counts
// microseconds from the moment dlcheck started it: baseTimeNanoseconds (the JSON's
// started_unix_s) plus an event's ts is the epoch time oneDNN stamped, between the start and the
// end of the run. The program writes its own pid ($$ of a shell that execs the worker).
TEST_F(RunCliTest, TraceIsInTheProgramsProcessFromItsStart) {
  const std::string pid_file = (dir_ / "pid").string();
  const std::string program =
      Write("program.sh", "#!/bin/sh\necho $$ > '" + pid_file + "'\nexec '" +
                              std::string(DLCHECK_BINARY) +
                              "' worker --model mlp --iters 1 --warmup 0 --traced 2\n");
  std::filesystem::permissions(program, std::filesystem::perms::owner_all);
  const auto epoch_us = [](std::chrono::system_clock::time_point t) {
    return std::chrono::duration<double, std::micro>(t.time_since_epoch()).count();
  };
  const double before_us = epoch_us(std::chrono::system_clock::now());
  const auto r = RunDlcheck({"run", "--format", "trace", "--", program});
  const double after_us = epoch_us(std::chrono::system_clock::now());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json trace = Json::parse(r.out);
  const std::vector<Json> events = testing::ExpectDevToolsTrace(trace);
  ASSERT_FALSE(events.empty());
  std::ifstream in(pid_file);
  long pid = 0;
  in >> pid;
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(trace["baseTimeNanoseconds"].is_number_integer());
  const double base_us = trace["baseTimeNanoseconds"].get<double>() / 1e3;
  EXPECT_GE(base_us, before_us);
  EXPECT_LE(base_us, after_us);
  for (const Json& e : events) {
    EXPECT_EQ(e["pid"], pid) << e.dump();
    EXPECT_EQ(e["tid"], pid) << "the main thread: " << e.dump();
    EXPECT_LE(base_us + e["ts"].get<double>() + e["dur"].get<double>(), after_us) << e.dump();
  }
  for (const Json& m : trace["traceEvents"]) {
    if (m["name"] == "thread_name") {
      EXPECT_EQ(m["args"]["name"], "main thread") << m.dump();
    }
  }
}

TEST_F(RunCliTest, SigintIsPassedOnAndTheReportStillPrinted) {
  const std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
  const pid_t dlcheck = StartDlcheck({"run", "--format", "json", "--", "sleep", "30"}, out, err);
  const std::vector<pid_t> children = WaitForChildren(dlcheck, std::chrono::seconds(20));
  ASSERT_EQ(children.size(), 1u);
  const auto sent = Clock::now();
  kill(dlcheck, SIGINT);
  EXPECT_TRUE(GoneWithin(children[0], std::chrono::milliseconds(1000)));
  const int status = WaitExit(dlcheck);
  EXPECT_LT(Clock::now() - sent, std::chrono::seconds(2));
  EXPECT_EQ(status, 128 + SIGINT) << ReadFile(err);
  const Json doc = Json::parse(ReadFile(out));
  EXPECT_EQ(doc["run"]["signal"], "SIGINT");
  EXPECT_EQ(doc["run"]["forwarded_signal"], "SIGINT");
}

TEST_F(RunCliTest, KilledVerboseLeavesNoWorkerBehind) {
  const std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
  const pid_t dlcheck =
      StartDlcheck({"verbose", "--model", "cnn", "--time", "600", "--threads", "1"}, out, err);
  const std::vector<pid_t> workers = WaitForChildren(dlcheck, std::chrono::seconds(20));
  ASSERT_EQ(workers.size(), 1u);
  kill(dlcheck, SIGKILL);
  EXPECT_EQ(WaitExit(dlcheck), 128 + SIGKILL);
  EXPECT_TRUE(GoneWithin(workers[0], std::chrono::milliseconds(1000)));
  if (!Gone(workers[0])) kill(workers[0], SIGKILL);  // leave nothing behind, even on failure
}

// SIGINT, SIGTERM and SIGHUP to dlcheck while `run`, `verbose` or `dispatch` waits for a child:
// the child is gone within a second, dlcheck prints the report of what it captured (JSON that
// says it was interrupted) and ends with 128 + the signal.
class SignalTest : public testing::ScratchDirTest, public ::testing::WithParamInterface<int> {
 protected:
  // Starts dlcheck with `args`, signals it once its child runs (after `settle`), and checks.
  Json Interrupt(const std::vector<std::string>& args, std::chrono::milliseconds settle) {
    const std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
    const pid_t dlcheck = StartDlcheck(args, out, err);
    const std::vector<pid_t> children = WaitForChildren(dlcheck, std::chrono::seconds(30));
    EXPECT_EQ(children.size(), 1u);
    std::this_thread::sleep_for(settle);
    kill(dlcheck, GetParam());
    for (pid_t child : children) {
      EXPECT_TRUE(GoneWithin(child, std::chrono::milliseconds(1000))) << child;
      if (!Gone(child)) kill(child, SIGKILL);  // leave nothing behind, even on failure
    }
    EXPECT_EQ(WaitExit(dlcheck), 128 + GetParam()) << ReadFile(err);
    const std::string report = ReadFile(out);
    EXPECT_TRUE(Json::accept(report)) << report << ReadFile(err);
    return Json::accept(report) ? Json::parse(report) : Json();
  }
  static bool HasFinding(const Json& doc, const std::string& code) {
    for (const auto& f : doc["findings"]) {
      if (f["code"] == code) return true;
    }
    return false;
  }
};

TEST_P(SignalTest, RunPassesItOnAndReports) {
  const Json doc =
      Interrupt({"run", "--format", "json", "--", "sleep", "30"}, std::chrono::milliseconds(100));
  EXPECT_EQ(doc["run"]["forwarded_signal"], SignalName(GetParam()));
}

TEST_P(SignalTest, VerboseStopsItsWorkerAndReports) {
  const Json doc = Interrupt(
      {"verbose", "--model", "cnn", "--time", "600", "--threads", "1", "--format", "json"},
      std::chrono::milliseconds(1500));
  EXPECT_TRUE(HasFinding(doc, "interrupted")) << doc["findings"];
  // Conclusions drawn from a whole run do not hold for a stopped one (the timed phase had
  // executed nothing verbose could see; creation took longer than nothing).
  for (const char* code : {"no-exec", "create-dominates", "first-exec-slow"}) {
    EXPECT_FALSE(HasFinding(doc, code)) << code << ": " << doc["findings"];
  }
}

TEST_P(SignalTest, DispatchStopsItsWorkerAndReports) {
  const Json doc = Interrupt({"dispatch", "--model", "cnn", "--time", "600", "--isa", "sse41",
                              "--no-peak", "--threads", "1", "--format", "json"},
                             std::chrono::milliseconds(1500));
  EXPECT_TRUE(HasFinding(doc, "interrupted")) << doc["findings"];
  // The stopped worker is said once, as interrupted: it did not fail.
  EXPECT_FALSE(HasFinding(doc, "worker-failed")) << doc["findings"];
  ASSERT_EQ(doc["runs"].size(), 1u);  // no worker started after the signal
  EXPECT_EQ(Text(doc["runs"][0]["worker"])
                .rfind("was stopped: dlcheck received " + std::string(SignalName(GetParam())) +
                           " and passed it on in phase ",
                       0),
            0u)
      << doc["runs"][0];
}

// A worker that crashed before the signal (a real SIGILL under the cap sse41) is still a
// failure; the one the signal stopped (the scalar kernels' run) is not.
TEST_P(SignalTest, DispatchStillNamesAWorkerThatFailedBeforeTheSignal) {
  setenv("DLCHECK_WORKER_FAULT", "init", 1);
  setenv("DLCHECK_WORKER_FAULT_ISA", "sse41", 1);
  const Json doc = Interrupt({"dispatch", "--model", "cnn", "--time", "600", "--isa", "sse41",
                              "--no-peak", "--threads", "1", "--format", "json"},
                             std::chrono::milliseconds(1500));
  unsetenv("DLCHECK_WORKER_FAULT");
  unsetenv("DLCHECK_WORKER_FAULT_ISA");
  EXPECT_TRUE(HasFinding(doc, "interrupted")) << doc["findings"];
  std::vector<std::string> failed;
  for (const auto& f : doc["findings"]) {
    if (f["code"] == "worker-failed") failed.push_back(Text(f["message"]));
  }
  ASSERT_EQ(failed.size(), 1u) << doc["findings"];
  EXPECT_EQ(failed[0],
            "the worker for sse41 was killed by signal 4 (SIGILL) in phase init; the other runs "
            "went on");
  ASSERT_EQ(doc["runs"].size(), 2u) << doc["runs"];
  EXPECT_EQ(doc["runs"][1]["isa_cap"], "scalar") << doc["runs"];
}

TEST_P(SignalTest, DispatchOfACommandStopsItAndReports) {
  const Json doc = Interrupt(
      {"dispatch", "--isa", "sse41", "--repeat", "3", "--format", "json", "--", "sleep", "30"},
      std::chrono::milliseconds(100));
  EXPECT_EQ(doc["run"]["interrupted_by"], SignalName(GetParam()));
  EXPECT_EQ(doc["run"]["runs"], 1);  // no run started after the signal
}

INSTANTIATE_TEST_SUITE_P(Signals, SignalTest, ::testing::Values(SIGINT, SIGTERM, SIGHUP),
                         [](const ::testing::TestParamInfo<int>& param_info) {
                           return SignalName(param_info.param).substr(3);
                         });

// Progress: drawn on stderr when it is a terminal (a pseudo-terminal from util-linux's
// `script`), with the command, the configuration, the time elapsed, and cleared before the
// report; never drawn when stderr is not a terminal.
TEST(ProgressTest, RunDrawsOnATerminalOnly) {
  const std::string text = UnderTerminal("run --format json -- sh -c 'sleep 0.3; echo hi'");
  ExpectDrawnAndCleared(text, "dlcheck run sh", "{");
  EXPECT_NE(text.find("hi"), std::string::npos) << text;
  const auto piped = RunDlcheck({"run", "--format", "json", "--", "sh", "-c", "sleep 0.3"});
  EXPECT_EQ(piped.err, "");
}

TEST(ProgressTest, VerboseShowsThePhase) {
  const std::string text = UnderTerminal(
      "verbose --model mlp --iters 2 --warmup 0 --traced 1 --threads 1 --format json");
  ExpectDrawnAndCleared(text, "dlcheck verbose: ", "{");
  EXPECT_NE(text.find("dlcheck verbose: traced"), std::string::npos) << text;
}

TEST(ProgressTest, DispatchCountsItsConfigurations) {
  const std::string text =
      UnderTerminal("dispatch --isa sse41 --repeat 2 --format json -- sh -c 'sleep 0.3'");
  ExpectDrawnAndCleared(text, "dlcheck dispatch [1/2] cap sse41 (run 1/2)", "{");
  // After the first run, an estimate of the time left.
  EXPECT_NE(text.find("dlcheck dispatch [2/2] cap sse41 (run 2/2)"), std::string::npos) << text;
  EXPECT_NE(text.find(" left"), std::string::npos) << text;
  const auto piped = RunDlcheck({"dispatch", "--isa", "sse41", "--format", "json", "--", "true"});
  EXPECT_EQ(piped.exit_code, 0);
  EXPECT_EQ(piped.err, "");
}

// `run` asks every oneDNN generation for the dispatch reasons: ONEDNN_VERBOSE=2,dispatch, which
// oneDNN 2.x reads as the integer 2 (atoi stops at the comma), so Debian's PyTorch (oneDNN 2.6.3)
// prints what ONEDNN_VERBOSE=2 prints. A user's own value is kept and named.
TEST_F(RunCliTest, AsksForDispatchReasonsAndKeepsTheUsersVerboseSetting) {
  const std::vector<std::string> script = {
      "run", "--format", "json", "--", kPython, DataPath("torch/train_cnn.py"), "--steps", "2"};
  const auto ours = RunDlcheck(script, "", kNoUserVerbose);
  ASSERT_EQ(ours.exit_code, 0) << ours.err;
  const Json a = Json::parse(ours.out);
  EXPECT_EQ(a["run"]["verbose_request"],
            "ONEDNN_VERBOSE=2,dispatch DNNL_VERBOSE=2 MKLDNN_VERBOSE=2");
  EXPECT_EQ(a["run"]["verbose_request_from"], "dlcheck");
  EXPECT_EQ(FindingOf(a, "verbose-setting-kept"), nullptr);
  const auto users = RunDlcheck(script, "", {"ONEDNN_VERBOSE=2", "DNNL_VERBOSE", "MKLDNN_VERBOSE"});
  ASSERT_EQ(users.exit_code, 0) << users.err;
  const Json b = Json::parse(users.out);
  EXPECT_EQ(b["run"]["verbose_request"], "ONEDNN_VERBOSE=2");
  EXPECT_EQ(b["run"]["verbose_request_from"], "environment");
  const Json* kept = FindingOf(b, "verbose-setting-kept");
  ASSERT_NE(kept, nullptr) << b["findings"];
  EXPECT_EQ((*kept)["severity"], "info");
  // oneDNN 2.6.3 prints the same lines for both: the same rows, creates and executions.
  ASSERT_GT(a["summary"]["execs"].get<int>(), 0);
  EXPECT_EQ(CountsOf(a["primitives"]), CountsOf(b["primitives"]));
  for (const char* total : {"rows", "creates", "execs", "diagnostics"}) {
    EXPECT_EQ(a["summary"][total], b["summary"][total]) << total;
  }
  // ONEDNN_VERBOSE=all: 2.x reads it as 0 and prints nothing; said so, not "not loaded".
  const auto all = RunDlcheck(script, "", {"ONEDNN_VERBOSE=all", "DNNL_VERBOSE", "MKLDNN_VERBOSE"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const Json c = Json::parse(all.out);
  if (c["run"]["verbose_lines"] == 0) {  // a 2.x oneDNN (Debian 12's); 3.2+ reads `all`
    const Json* silenced = FindingOf(c, "verbose-setting-kept");
    ASSERT_NE(silenced, nullptr) << c["findings"];
    EXPECT_EQ((*silenced)["severity"], "warning");
    EXPECT_NE(Text((*silenced)["message"]).find("`all` is 0"), std::string::npos);
    EXPECT_EQ(FindingOf(c, "onednn-not-loaded"), nullptr);
  }
}

TEST_F(RunCliTest, PytorchTrainingScript) {
  const std::string raw = (dir_ / "raw.log").string();
  const auto r = RunDlcheck({"run", "--format", "json", "--raw-log", raw, "--", kPython,
                             DataPath("torch/train_cnn.py"), "--steps", "3"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The script's own lines, intact: a \r progress mark before each step line, a partial last.
  std::string expected;
  for (int step = 1; step <= 3; ++step) {
    expected +=
        "step " + std::to_string(step) + "/3\rtrain_cnn step=" + std::to_string(step) + " loss=";
  }
  std::string seen;  // the program's output with the loss values taken out
  std::istringstream lines(r.err);
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with("step ")) seen += line.substr(0, line.find(" loss=") + 6);
  }
  EXPECT_EQ(seen, expected) << r.err;
  EXPECT_TRUE(r.err.ends_with("\ntrain_cnn done steps=3")) << r.err;

  // Exec counts per (primitive, implementation), from the raw lines themselves.
  Counts from_log;
  std::istringstream log(ReadFile(raw));
  for (std::string line; std::getline(log, line);) {
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string field; std::getline(fields, field, ',');) f.push_back(field);
    // onednn_verbose,<timestamp>,exec,cpu,<primitive>,<implementation>,...
    if (f.size() > 5 && f[2] == "exec") ++from_log[{f[4], f[5]}].first;
  }
  ASSERT_FALSE(from_log.empty());
  Counts from_report = CountsOf(Json::parse(r.out)["primitives"]);
  for (auto& [key, counts] : from_report) counts.second = 0;  // creates: not counted above
  for (auto it = from_report.begin(); it != from_report.end();) {
    it = it->second.first == 0 ? from_report.erase(it) : std::next(it);
  }
  EXPECT_EQ(from_report, from_log);
  bool convolution = false;
  for (const auto& [key, counts] : from_log)
    convolution = convolution || key.first == "convolution";
  EXPECT_TRUE(convolution) << "PyTorch 1.13 runs its convolutions through oneDNN";
}

}  // namespace
}  // namespace dlcheck
