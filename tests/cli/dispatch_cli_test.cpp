// SPDX-License-Identifier: Apache-2.0
// `dlcheck dispatch` end to end with tiny runs. Invariants of the live host: the sweep's caps are
// exactly the caps up to what oneDNN dispatches here; no row's ISA ranks above its cap; a worker
// that dies under one cap is reported with its signal while the other caps still run.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/exit_code.h"
#include "common/onednn_isa.h"
#include "profile/perf_map.h"
#include "support/run_dlcheck.h"

namespace dlcheck {
namespace {

using testing::RunDlcheck;

const std::vector<std::string> kTiny = {"--iters",  "2", "--warmup", "0",
                                        "--traced", "1", "--batch",  "16"};

std::vector<std::string> Args(std::vector<std::string> args) {
  args.insert(args.begin(), "dispatch");
  args.insert(args.end(), kTiny.begin(), kTiny.end());
  return args;
}

// The caps a default sweep must run on this machine, from `platform`'s own levels.
std::vector<std::string> ExpectedCaps() {
  const auto r = RunDlcheck({"platform", "--format", "json"});
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const std::string max = j["levels"]["onednn_effective_isa"];
  const bool avx_vnni = j["features"]["avx_vnni"]["usable"] == true;
  std::vector<std::string> caps;
  for (const char* cap : {"sse41", "avx", "avx2", "avx2_vnni", "avx512_core", "avx512_core_vnni",
                          "avx512_core_bf16", "avx512_core_amx"}) {
    if (!onednn::AtOrBelow(cap, max)) continue;
    if (std::string(cap) == "avx2_vnni" && !avx_vnni) continue;
    caps.emplace_back(cap);
  }
  return caps;
}

std::string IsaOfCell(const nlohmann::json& cell) {
  if (!cell.is_string()) return "";
  std::string isa = cell;
  const auto space = isa.find(' ');  // "avx2 (inferred)"
  return space == std::string::npos ? isa : isa.substr(0, space);
}

// The noise guard of the model sweep: each run's samples/s lies within its timed chunks' range,
// and the caps are ranked (payoff) only when the fastest cap's range (the most samples/s, the
// lowest of equals) does not overlap the lowest cap's (the highest's where the lowest is the
// fastest), else the report says the runs are too noisy.
void ExpectRankedOnlyBeyondTheSpread(const nlohmann::json& j) {
  std::vector<const nlohmann::json*> caps;
  for (const auto& run : j["runs"]) {
    if (!run["samples_per_s_min"].is_number()) continue;
    EXPECT_LE(run["samples_per_s_min"].get<double>(), run["samples_per_s"].get<double>() + 0.1);
    EXPECT_LE(run["samples_per_s"].get<double>(), run["samples_per_s_max"].get<double>() + 0.1);
    if (run["isa_cap"] != "scalar") caps.push_back(&run);
  }
  EXPECT_TRUE(j["run"]["load_start"].is_number());
  if (caps.size() < 2) return;
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < caps.size(); ++i) {
    if ((*caps[i])["samples_per_s"].get<double>() > (*caps[fastest])["samples_per_s"].get<double>())
      fastest = i;
  }
  const auto& low = fastest == 0 ? *caps.back() : *caps.front();
  const auto& high = *caps[fastest];
  const bool separated =
      low["samples_per_s_max"].get<double>() < high["samples_per_s_min"].get<double>() ||
      high["samples_per_s_max"].get<double>() < low["samples_per_s_min"].get<double>();
  std::string codes;
  for (const auto& f : j["findings"]) codes += f["code"].get<std::string>() + " ";
  EXPECT_EQ(codes.find("payoff") != std::string::npos, separated) << codes;
  EXPECT_EQ(codes.find("too-noisy") != std::string::npos, !separated) << codes;
}

TEST(DispatchCliTest, SweepsExactlyTheCapsUpToTheMachinesAndNoRowExceedsItsCap) {
  const auto r = RunDlcheck(Args({"--format", "json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");  // progress only on a terminal
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const std::vector<std::string> expected = ExpectedCaps();
  ASSERT_FALSE(expected.empty());

  std::vector<std::string> caps;
  for (const auto& run : j["runs"]) {
    EXPECT_EQ(run["worker"], "ok") << run;
    if (run["isa_cap"] == "scalar") {
      EXPECT_EQ(run["backend"], "scalar");
      continue;
    }
    caps.push_back(run["isa_cap"]);
    EXPECT_EQ(run["dispatched_isa"], run["isa_cap"]);  // the cap is below the machine's ISA
    EXPECT_EQ(run["backend"], "onednn");
  }
  EXPECT_EQ(caps, expected);
  EXPECT_EQ(j["runs"].back()["isa_cap"], "scalar");

  int checked = 0;
  for (const auto& row : j["primitives"]) {
    const std::string cap = row["isa_cap"];
    const std::string isa = IsaOfCell(row["isa"]);
    if (cap == "scalar" || isa.empty()) continue;
    EXPECT_NE(onednn::Compare(isa, cap), onednn::IsaOrder::kAbove)
        << cap << ": " << row["implementation"];
    ++checked;
  }
  EXPECT_GT(checked, 0);
  // The typed long table has rows under the lowest and the highest cap; the wide `sweep` view
  // (text cells "impl ms") is for people: JSON leaves it out.
  std::set<std::string> row_caps;
  for (const auto& row : j["primitives"]) row_caps.insert(row["isa_cap"].get<std::string>());
  EXPECT_EQ(row_caps.count(expected.front()), 1u);
  EXPECT_EQ(row_caps.count(expected.back()), 1u);
  EXPECT_FALSE(j.contains("sweep"));
  ExpectRankedOnlyBeyondTheSpread(j);
}

TEST(DispatchCliTest, CsvHasOneRowPerCapAndPrimitive) {
  const auto json = RunDlcheck(Args({"--isa", "sse41", "--model", "cnn", "--format", "json"}));
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::size_t rows = nlohmann::json::parse(json.out)["primitives"].size();
  const auto r = RunDlcheck(Args({"--isa", "sse41", "--model", "cnn", "--format", "csv"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(
      header.rfind("isa_cap,layer,engine,primitive,implementation,isa,isa_source,fallback,", 0), 0u)
      << header;
  EXPECT_NE(header.find(",speedup_vs_scalar,"), std::string::npos) << header;
  std::size_t lines = 0;
  bool sse41 = false;
  bool scalar = false;
  for (std::string line; std::getline(in, line);) {
    ++lines;
    sse41 |= line.rfind("sse41,", 0) == 0;
    scalar |= line.rfind("scalar,", 0) == 0;
  }
  EXPECT_EQ(lines, rows);
  EXPECT_TRUE(sse41);
  EXPECT_TRUE(scalar);
}

TEST(DispatchCliTest, AWorkerKilledUnderOneCapIsReportedAndTheOthersRun) {
  // sse41 and the machine's highest cap (the same on an SSE4.1-only machine), then scalar.
  const std::vector<std::string> caps = ExpectedCaps();
  ASSERT_FALSE(caps.empty());
  const std::string isa = caps.size() == 1 ? "sse41" : "sse41," + caps.back();
  const auto r = RunDlcheck(Args({"--isa", isa, "--no-peak", "--format", "json"}), "",
                            {"DLCHECK_WORKER_FAULT=timed", "DLCHECK_WORKER_FAULT_ISA=sse41"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kWorkerFailed));
  EXPECT_EQ(r.err, "dlcheck: a model worker failed; the report holds the other runs\n");
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["runs"].size(), std::min<std::size_t>(caps.size(), 2) + 1) << r.out;
  EXPECT_EQ(j["runs"][0]["worker"], "was killed by signal 4 (SIGILL) in phase timed");
  for (std::size_t i = 1; i < j["runs"].size(); ++i) EXPECT_EQ(j["runs"][i]["worker"], "ok") << i;
  bool finding = false;
  for (const auto& f : j["findings"]) {
    finding |= f["message"] ==
               "the worker for sse41 was killed by signal 4 (SIGILL) in phase timed; the other "
               "runs went on";
  }
  EXPECT_TRUE(finding) << r.out;
}

TEST(DispatchCliTest, ThreadSetsFollowTheTopology) {
  const auto r = RunDlcheck(
      Args({"--isa", "sse41", "--no-peak", "--thread-sets", "1,socket,all", "--format", "json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const auto& sets = j["threads"];
  ASSERT_EQ(sets.size(), 3u) << r.out;
  EXPECT_EQ(sets[0]["thread_set"], "1");
  EXPECT_EQ(sets[0]["threads"], 1);
  EXPECT_EQ(std::string(sets[0]["cpuset"]).find_first_of(",-"), std::string::npos);
  EXPECT_GE(sets[1]["threads"], 1);
  EXPECT_GE(sets[2]["threads"], sets[1]["threads"]);
  EXPECT_EQ(sets[0]["speedup"], 1.0);
  for (const auto& s : sets) EXPECT_EQ(s["worker"], "ok") << s;
}

TEST(DispatchCliTest, PerfMapNamesTheJitKernels) {
  const auto r =
      RunDlcheck(Args({"--isa", "sse41", "--no-peak", "--perf-map", "--format", "json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_TRUE(j["runs"][1]["perf_map_file"].is_null());  // the scalar kernels are not JIT code
  const std::string path = j["runs"][0]["perf_map_file"];
  EXPECT_EQ(path.rfind("/tmp/perf-", 0), 0u) << path;
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  // perf map lines: "<start hex> <size hex> <name>", oneDNN's JIT kernels named jit_...
  int jit = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream words(line);
    std::string start, size, name;
    words >> start >> size >> name;
    jit += name.find("jit") != std::string::npos;
  }
  EXPECT_GT(jit, 0);
  std::filesystem::remove(path);
}

// --perf-map asks for the perf maps as `profile` does: every generation's variable
// (profile::JitProfileEnvironment), seen by the program itself.
TEST(DispatchCliTest, PerfMapSetsTheEnvironmentProfileSets) {
  const auto r = RunDlcheck({"dispatch", "--isa", "sse41", "--perf-map", "--format", "json", "--",
                             "/bin/sh", "-c", "env | grep JIT_PROFILE= | sort"});
  using Variables = std::set<std::pair<std::string, std::string>>;
  Variables seen;
  std::istringstream lines(r.err);  // the program's stdout goes to dlcheck's stderr
  for (std::string line; std::getline(lines, line);) {
    const std::size_t eq = line.find('=');
    if (line.find("JIT_PROFILE=") != std::string::npos && eq != std::string::npos) {
      seen.emplace(line.substr(0, eq), line.substr(eq + 1));
    }
  }
  const auto& profiles = profile::JitProfileEnvironment();
  EXPECT_EQ(seen, Variables(profiles.begin(), profiles.end())) << r.err;
}

TEST(DispatchCliTest, ACapWithoutTheDataTypeFallsBackToTheScalarKernels) {
  // oneDNN 2.6 has no bf16 inner product below avx512_core: under sse41 the model cannot be
  // created, dlcheck's scalar kernels run it, and the sweep says so.
  const auto r =
      RunDlcheck(Args({"--isa", "sse41", "--dtype", "bf16", "--no-peak", "--format", "json"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["runs"][0]["isa_cap"], "sse41");
  EXPECT_EQ(j["runs"][0]["backend"], "scalar");
  bool finding = false;
  for (const auto& f : j["findings"]) finding |= f["code"] == "cap-model-fallback";
  EXPECT_TRUE(finding) << r.out;
  int under_sse41 = 0;
  for (const auto& row : j["primitives"]) {
    if (row["isa_cap"] != "sse41") continue;
    ++under_sse41;
    const std::string implementation = row["implementation"];
    EXPECT_TRUE(row["fallback"] == "scalar" || implementation.rfind("dlcheck", 0) == 0) << row;
  }
  EXPECT_GT(under_sse41, 0);
}

TEST(DispatchCliTest, UnknownCapIsAUsageError) {
  const auto r = RunDlcheck({"dispatch", "--isa", "avx3"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err,
            "dlcheck: --isa: 'avx3' is not a oneDNN ISA cap (sse41, avx, avx2, avx2_vnni, "
            "avx512_core, avx512_core_vnni, avx512_core_bf16, avx512_core_amx); did you mean "
            "'avx'?\n");
  EXPECT_TRUE(r.out.empty());
  EXPECT_NE(RunDlcheck({"dispatch", "--isa", "avx512_cor"}).err.find("did you mean 'avx512_core'?"),
            std::string::npos);
}

TEST(DispatchCliTest, BadThreadSetIsAUsageError) {
  const auto r = RunDlcheck({"dispatch", "--thread-sets", "1,half"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err,
            "dlcheck: --thread-sets: 'half' is not a thread set (1, socket, all or a number of "
            "cores)\n");
}

TEST(DispatchCliTest, AMissingDataDirectoryIsSaidOnceWithItsReason) {
  const auto r = RunDlcheck(Args({"--data", "/nonexistent/fashion", "--no-peak"}));
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(r.err,
            "dlcheck: no train-images-idx3-ubyte[.gz] in /nonexistent/fashion (--data needs an "
            "MNIST-format directory)\n");
  EXPECT_TRUE(r.out.empty());
}

// ---- dispatch -- CMD ------------------------------------------------------------------------

// Debian's interpreter, whose python3-torch the tests use (PATH may hold another one).
constexpr const char* kPython = "/usr/bin/python3";

std::size_t Occurrences(const std::string& text, const std::string& word) {
  std::size_t n = 0;
  for (auto at = text.find(word); at != std::string::npos; at = text.find(word, at + 1)) ++n;
  return n;
}

// Every row of a cap's configuration ran at an ISA no higher than the cap.
void ExpectNoRowAboveItsCap(const nlohmann::json& rows) {
  for (const auto& row : rows) {
    if (!row["isa_cap"].is_string() || !row["isa"].is_string()) continue;
    const std::string isa = IsaOfCell(row["isa"]);
    EXPECT_NE(onednn::Compare(isa, row["isa_cap"].get<std::string>()), onednn::IsaOrder::kAbove)
        << row;
  }
}

TEST(DispatchCliTest, PytorchScriptUnderCapsAndThreadSetsRepeated) {
  const auto r = RunDlcheck({"dispatch", "--isa", "sse41", "--thread-sets", "1,all", "--repeat",
                             "2", "--format", "json", "--", kPython,
                             testing::DataPath("torch/train_cnn.py"), "--steps", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The script's own output, intact, once per run: 3 configurations, 2 runs each.
  EXPECT_EQ(Occurrences(r.err, "train_cnn done steps=2"), 6u) << r.err;
  EXPECT_EQ(Occurrences(r.err, "step 1/2\rtrain_cnn step=1 loss="), 6u) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["run"]["repeat"], 2);
  EXPECT_EQ(j["run"]["runs"], 6);
  ASSERT_EQ(j["configs"].size(), 3u) << j["configs"];
  const std::vector<std::string> names = {"cap sse41", "threads 1", "threads all"};
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto& c = j["configs"][i];
    EXPECT_EQ(c["config"], names[i]);
    EXPECT_EQ(c["runs"], 2);
    EXPECT_EQ(c["exit_status"], "0,0");
    EXPECT_LE(c["wall_s_min"].get<double>(), c["wall_s"].get<double>());
    EXPECT_LE(c["wall_s"].get<double>(), c["wall_s_max"].get<double>());
  }
  EXPECT_EQ(j["configs"][1]["threads"], 1);
  // PyTorch 1.13 runs its convolutions through oneDNN: rows under every configuration and run.
  std::map<std::pair<std::string, int>, int> convolutions;
  for (const auto& row : j["primitives"]) {
    if (row["primitive"] == "convolution") {
      convolutions[{row["config"].get<std::string>(), row["run"].get<int>()}] +=
          row["execs"].get<int>();
    }
  }
  EXPECT_EQ(convolutions.size(), 6u);
  for (const auto& [key, execs] : convolutions) EXPECT_GT(execs, 0) << key.first;
  ExpectNoRowAboveItsCap(j["primitives"]);
  EXPECT_FALSE(j.contains("sweep"));  // the wide view is for people
}

TEST(DispatchCliTest, DlcheckWorkerUnderEveryCapStaysUnderIt) {
  const auto r = RunDlcheck({"dispatch", "--format", "json", "--", DLCHECK_BINARY, "worker",
                             "--model", "mlp", "--iters", "1", "--warmup", "0", "--traced", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  const std::vector<std::string> expected = ExpectedCaps();
  ASSERT_EQ(j["configs"].size(), expected.size()) << j["configs"];
  std::map<std::string, int> rows_per_cap;
  for (const auto& row : j["primitives"]) ++rows_per_cap[row["isa_cap"].get<std::string>()];
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(j["configs"][i]["isa_cap"], expected[i]);
    EXPECT_GT(rows_per_cap[expected[i]], 0) << expected[i];
  }
  ExpectNoRowAboveItsCap(j["primitives"]);
  // One run per configuration: no ranking, and the report says why.
  bool unranked = false;
  for (const auto& f : j["findings"]) {
    unranked |= f["code"] == "too-few-runs";
    EXPECT_NE(f["code"], "payoff") << f;
  }
  EXPECT_EQ(unranked, expected.size() >= 2) << j["findings"];
}

// One run per cap: the sweep table's `fastest` says "(1 run)" (the spread is unknown), not
// "(too close)".
TEST(DispatchCliTest, OneRunPerCapSaysOneRunNotTooClose) {
  const auto r =
      RunDlcheck({"dispatch", "--isa", "sse41,avx2", "--format", "table", "--", DLCHECK_BINARY,
                  "worker", "--model", "mlp", "--iters", "1", "--warmup", "0", "--traced", "1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(1 run)"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("(too close)"), std::string::npos) << r.out;
}

TEST(DispatchCliTest, ModelOptionWithACommandIsAUsageError) {
  const auto r = RunDlcheck({"dispatch", "--model", "cnn", "--", "true"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err, "dlcheck: --model: a model option; dispatch -- CMD runs CMD, not a model\n");
  const auto repeat = RunDlcheck({"dispatch", "--repeat", "3"});
  EXPECT_EQ(repeat.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(repeat.err, "dlcheck: --repeat: only with a command (dispatch -- CMD)\n");
}

TEST(DispatchCliTest, AMissingCommandEndsWith127) {
  const auto r = RunDlcheck({"dispatch", "--isa", "sse41", "--", "dlcheck-no-such-command"});
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_EQ(r.err, "dlcheck: cannot run 'dlcheck-no-such-command': command not found\n");
  EXPECT_EQ(r.out, "");
}

// --timeout limits each run of CMD when it is given (a worker always has one): the run is killed,
// the report says how it ended, and dispatch ends with the run's status, as `time` would.
TEST(DispatchCliTest, TimeoutLimitsEachRunOfACommandWhenGiven) {
  const auto started = std::chrono::steady_clock::now();
  const auto r = RunDlcheck(
      {"dispatch", "--isa", "sse41", "--timeout", "1", "--format", "json", "--", "sleep", "60"});
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_LT(wall_s, 30) << "the run was not killed at its timeout";
  EXPECT_EQ(r.exit_code, 128 + SIGKILL) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["configs"].size(), 1u);
  EXPECT_EQ(doc["configs"][0]["exit_status"], std::to_string(128 + SIGKILL));
  bool failed = false;
  for (const auto& f : doc["findings"]) {
    if (f["code"] == "program-failed") {
      failed = true;
      EXPECT_NE(f["message"].get<std::string>().find("timed out after 1 s"), std::string::npos)
          << f["message"];
    }
  }
  EXPECT_TRUE(failed) << r.out;
}

// `--` ends dlcheck's options whatever comes before it: `--isa sse41` (a list) no longer swallows
// it, so the program's own -c is the program's (issue 35: exit 2, "The following argument was not
// expected: -c").
TEST(DispatchCliTest, AProgramsOwnOptionsAfterDoubleDashAreItsOwn) {
  for (const std::vector<std::string>& isa :
       {std::vector<std::string>{"--isa", "sse41"}, std::vector<std::string>{"--isa=sse41"}}) {
    std::vector<std::string> args = {"dispatch", "--format", "json"};
    args.insert(args.end(), isa.begin(), isa.end());
    args.insert(args.end(), {"--", "sh", "-c", "echo hi"});
    const auto r = RunDlcheck(args);
    ASSERT_EQ(r.exit_code, 0) << isa.front() << ": " << r.err;
    const auto doc = nlohmann::json::parse(r.out);
    EXPECT_EQ(doc["run"]["command"], "sh -c 'echo hi'") << r.out;
    ASSERT_EQ(doc["configs"].size(), 1u);
    EXPECT_EQ(doc["configs"][0]["exit_status"], "0");
  }
}

std::vector<std::string> FindingCodes(const nlohmann::json& doc) {
  std::vector<std::string> codes;
  for (const auto& f : doc["findings"]) codes.push_back(f["code"]);
  return codes;
}

bool Has(const std::vector<std::string>& codes, const std::string& code) {
  return std::find(codes.begin(), codes.end(), code) != codes.end();
}

// The noise guard's findings stay in the report beside the sweep's (issue 35, a regression: the
// sweep's findings replaced them): a huge OMP_NUM_THREADS is capped and said, and a load average
// of 1 or more (a recorded one, through the DLCHECK_LOADAVG test hook) is a busy machine.
TEST(DispatchCliTest, WarnsOfACappedThreadCountAndABusyMachine) {
  const std::string loadavg = ::testing::TempDir() + "dlcheck_loadavg_" + std::to_string(getpid());
  std::ofstream(loadavg) << "3.70 2.50 1.20 4/321 12345\n";
  const auto r = RunDlcheck({"dispatch", "--isa", "sse41", "--format", "json", "--", "true"}, {},
                            {"OMP_NUM_THREADS=100000", "DLCHECK_LOADAVG=" + loadavg});
  std::filesystem::remove(loadavg);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const std::vector<std::string> codes = FindingCodes(doc);
  EXPECT_TRUE(Has(codes, "threads-capped")) << r.out;
  EXPECT_TRUE(Has(codes, "busy-machine")) << r.out;
  EXPECT_TRUE(Has(codes, "no-verbose")) << "the sweep's own findings stay too: " << r.out;
  EXPECT_DOUBLE_EQ(doc["run"]["load_start"].get<double>(), 3.7);
  // A quiet machine and a count it can run: neither.
  const std::string quiet = ::testing::TempDir() + "dlcheck_quiet_" + std::to_string(getpid());
  std::ofstream(quiet) << "0.00 0.00 0.00 1/100 1\n";
  const auto q = RunDlcheck({"dispatch", "--isa", "sse41", "--format", "json", "--", "true"}, {},
                            {"OMP_NUM_THREADS=1", "DLCHECK_LOADAVG=" + quiet});
  std::filesystem::remove(quiet);
  const std::vector<std::string> quiet_codes = FindingCodes(nlohmann::json::parse(q.out));
  EXPECT_FALSE(Has(quiet_codes, "threads-capped")) << q.out;
  EXPECT_FALSE(Has(quiet_codes, "busy-machine")) << q.out;
}

}  // namespace
}  // namespace dlcheck
