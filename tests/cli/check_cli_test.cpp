// SPDX-License-Identifier: Apache-2.0
// `dlcheck check` end to end. Invariants of the live host: requiring what /proc/cpuinfo lists
// never fails a requirement; requiring what it lacks is CRITICAL; the first line carries no
// timings; a crashed worker is CRITICAL with its signal; bad usage is UNKNOWN.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "detect/cpu_features.h"
#include "fleet/node_outputs.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

namespace dlcheck {
namespace {

using testing::RunDlcheck;

// The reported features the kernel lists in /proc/cpuinfo (first CPU), and those it does not.
void KernelFeatures(std::vector<std::string>& listed, std::vector<std::string>& missing) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  std::set<std::string> flags;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      std::string w;
      while (words >> w) flags.insert(w);
      break;
    }
  }
  for (const auto& f : detect::ReportedFeatures()) {
    (flags.count(f) ? listed : missing).push_back(f);
  }
}

std::string Join(const std::vector<std::string>& names) {
  std::string s;
  for (const auto& n : names) s += (s.empty() ? "" : ",") + n;
  return s;
}

std::string FirstLine(const std::string& out) {
  return out.substr(0, out.find('\n'));
}

TEST(CheckCliTest, RequiringWhatTheKernelListsMeetsEveryRequirement) {
  std::vector<std::string> listed, missing;
  KernelFeatures(listed, missing);
  ASSERT_FALSE(listed.empty());
  const auto r = RunDlcheck({"check", "--require", Join(listed), "--format", "json"});
  const nlohmann::json j = nlohmann::json::parse(r.out);
  int requirements = 0;
  for (const auto& row : j["checks"]) {
    const std::string check = row["check"];
    if (check.rfind("require ", 0) == 0) {
      ++requirements;
      EXPECT_EQ(row["status"], "OK") << check << ": " << row["detail"];
    }
  }
  EXPECT_EQ(requirements, static_cast<int>(listed.size()));
  // The exit status is the worst check, and agrees with the JSON.
  EXPECT_EQ(r.exit_code, j["check"]["exit_status"]);
  EXPECT_LE(r.exit_code, 1) << r.out;
}

TEST(CheckCliTest, RequiringWhatTheKernelLacksIsCritical) {
  std::vector<std::string> listed, missing;
  KernelFeatures(listed, missing);
  ASSERT_FALSE(missing.empty()) << "no CPU has every feature from SSE4.1 to AMX and Xeon Phi's";
  const std::string feature = missing.front();
  const auto r = RunDlcheck({"check", "--require", feature});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(FirstLine(r.out).rfind("DLCHECK CRITICAL - required " + feature + " is missing", 0), 0u)
      << r.out;
}

TEST(CheckCliTest, FirstLineHoldsTheStatusAndNoTimings) {
  const auto a = RunDlcheck({"check"});
  const auto b = RunDlcheck({"check"});
  const std::string first = FirstLine(a.out);
  const std::string status = a.exit_code == 0   ? "OK"
                             : a.exit_code == 1 ? "WARNING"
                             : a.exit_code == 2 ? "CRITICAL"
                                                : "UNKNOWN";
  EXPECT_EQ(first.rfind("DLCHECK " + status + " - ", 0), 0u) << a.out;
  const auto bar = first.find(" | ");
  ASSERT_NE(bar, std::string::npos) << first;
  EXPECT_NE(first.find("'samples_per_s'=", bar), std::string::npos) << first;
  // Identical machines print identical summaries: the same machine twice does.
  const std::string second = FirstLine(b.out);
  EXPECT_EQ(first.substr(0, bar), second.substr(0, second.find(" | ")));
}

// The worker's numbers stay numbers on their way to JSON.
TEST(CheckCliTest, JsonNumbersAreNumbers) {
  const auto r = RunDlcheck({"check", "--format", "json"});
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(r.exit_code, j["check"]["exit_status"]);
  const auto& run = j["run"];
  ASSERT_TRUE(run["samples_per_s"].is_number()) << run.dump();
  EXPECT_GT(run["samples_per_s"].get<double>(), 0);
  ASSERT_TRUE(run["max_deviation"].is_number()) << run.dump();
  EXPECT_LE(run["max_deviation"].get<double>(), run["tolerance"].get<double>());
  ASSERT_TRUE(run["train_samples"].is_number_integer()) << run.dump();
  EXPECT_GE(run["train_samples"].get<int>(), run["batch"].get<int>());
  EXPECT_EQ(run["worker"], "ok");
}

// CSV is the checks table: one header line, then one record per check with its status.
TEST(CheckCliTest, CsvIsTheChecksTable) {
  const auto r = RunDlcheck({"check", "--format", "csv"});
  EXPECT_LE(r.exit_code, 1) << r.out << r.err;
  std::istringstream lines(r.out);
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(line, "check,status,detail\r");
  int records = 0;
  bool model_run = false;
  const std::set<std::string> states = {"OK", "WARNING", "CRITICAL", "UNKNOWN"};
  while (std::getline(lines, line)) {
    ++records;
    ASSERT_FALSE(line.empty()) << r.out;
    EXPECT_EQ(line.back(), '\r') << "CRLF line ends";
    const auto first = line.find(',');
    const auto second = line.find(',', first + 1);
    ASSERT_NE(second, std::string::npos) << line;
    EXPECT_TRUE(states.count(line.substr(first + 1, second - first - 1))) << line;
    model_run |= line.rfind("model run,OK,", 0) == 0;
  }
  EXPECT_GE(records, 3) << r.out;  // probes, model run, reference at least
  EXPECT_TRUE(model_run) << r.out;
  EXPECT_EQ(r.out.find("DLCHECK"), std::string::npos) << "the status line is the table's";
}

TEST(CheckCliTest, CrashedWorkerIsCriticalWithItsSignal) {
  const auto r = RunDlcheck({"check"}, "", {"DLCHECK_WORKER_FAULT=timed"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(FirstLine(r.out).find("model worker was killed by signal 4 (SIGILL) in phase timed"),
            std::string::npos)
      << r.out;
}

TEST(CheckCliTest, UnknownRequirementIsUnknown) {
  const auto r = RunDlcheck({"check", "--require", "avx512f,sse9"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "dlcheck: --require: 'sse9' is neither a feature (a /proc/cpuinfo name such as "
            "avx512bw) nor a oneDNN ISA (sse41, avx, avx2, avx2_vnni, avx512_core, "
            "avx512_core_vnni, avx512_core_bf16, avx512_core_amx; oneDNN 3.x: avx2_vnni_2, "
            "avx512_core_fp16, avx10_1_512, avx10_1_512_amx, avx512_core_amx_fp16, "
            "avx10_1_512_amx_fp16, avx10_2, avx10_2_512, avx10_2_amx_2, avx10_2_512_amx_2); did "
            "you mean 'sse41'?\n");
  EXPECT_TRUE(r.out.empty());
  const auto typo = RunDlcheck({"check", "--require", "avx512bww"});
  EXPECT_EQ(typo.exit_code, 3);
  EXPECT_NE(typo.err.find("; did you mean 'avx512bw'?\n"), std::string::npos) << typo.err;
}

TEST(CheckCliTest, BadCommandLineIsUnknown) {
  const auto r = RunDlcheck({"check", "--min-sockets", "zero"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "dlcheck: check: --min-sockets: 'zero' is not a number: it must be from 1 to 4096 "
            "(see 'dlcheck check --help')\n");
}

TEST(CheckCliTest, ComputeBelowTheExpectedIsaIsCritical) {
  // Capped at sse41 (the lowest oneDNN level), no compute primitive can reach avx.
  const auto r = RunDlcheck({"check", "--expect-isa", "avx"}, "", {"ONEDNN_MAX_CPU_ISA=sse41"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_EQ(FirstLine(r.out).rfind(
                "DLCHECK CRITICAL - compute dispatched sse41 below the expected avx | ", 0),
            0u)
      << r.out;
}

TEST(CheckCliTest, WholeModelFallbackCountsEachLayerOnce) {
  // oneDNN (as the worker is told to pretend) creates nothing: dlcheck's scalar kernels run every
  // layer. Each layer is one scalar fallback, announced by the worker; the dlcheck:scalar rows of
  // the same layers are not counted again.
  const auto r = RunDlcheck({"check", "--format", "json"}, "", {"DLCHECK_WORKER_FAULT=no-onednn"});
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(r.exit_code, j["check"]["exit_status"]);
  const nlohmann::json* item = nullptr;
  for (const auto& row : j["checks"]) {
    if (row["check"] == "scalar fallback") item = &row;
  }
  ASSERT_NE(item, nullptr) << r.out;
  EXPECT_EQ((*item)["status"], "WARNING");
  EXPECT_EQ((*item)["detail"],
            "compute ran on scalar code: fc1 (dlcheck scalar kernels), relu1 (dlcheck scalar "
            "kernels), fc2 (dlcheck scalar kernels), relu2 (dlcheck scalar kernels), fc3 (dlcheck "
            "scalar kernels), loss (dlcheck scalar kernels)")
      << r.out;
  const std::string summary = j["check"]["summary"];
  EXPECT_NE(summary.find("; 6 scalar fallback(s)"), std::string::npos) << summary;
}

TEST(CheckCliTest, UnknownExpectedIsaIsUnknown) {
  const auto r = RunDlcheck({"check", "--expect-isa", "avx9"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err,
            "dlcheck: --expect-isa: 'avx9' is not a oneDNN ISA (sse41, avx, avx2, avx2_vnni, "
            "avx512_core, avx512_core_vnni, avx512_core_bf16, avx512_core_amx; oneDNN 3.x: "
            "avx2_vnni_2, avx512_core_fp16, avx10_1_512, avx10_1_512_amx, avx512_core_amx_fp16, "
            "avx10_1_512_amx_fp16, avx10_2, avx10_2_512, avx10_2_amx_2, avx10_2_512_amx_2); did "
            "you mean 'avx'?\n");
}

// oneDNN 3.x's words are a check's words too (issue 33): accepted, and held against the CPU's
// oneDNN 3.x level, whatever this host has.
TEST(CheckCliTest, OneDnn3LevelsAreAccepted) {
  const auto r = RunDlcheck({"check", "--require", "avx2_vnni_2", "--format", "json"});
  ASSERT_NE(r.exit_code, 3) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& item : j["checks"]) {
    if (item["check"] != "require avx2_vnni_2") continue;
    found = true;
    EXPECT_EQ(item["detail"].get<std::string>().rfind("oneDNN 3.x dispatches up to ", 0), 0u)
        << item;
  }
  EXPECT_TRUE(found) << j["checks"];
}

TEST(CheckCliTest, TooFewCoresIsCritical) {
  const auto r = RunDlcheck({"check", "--min-cores", "1048576", "--format", "json"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["check"]["status"], "CRITICAL");
  bool found = false;
  for (const auto& row : j["checks"]) {
    found |= row["check"] == "min-cores 1048576" && row["status"] == "CRITICAL";
  }
  EXPECT_TRUE(found) << r.out;
}

// --stable: the same machine twice prints byte for byte the same output in every format, with
// nothing measured in it, and the exit status still carries the state.
TEST(CheckCliTest, StableOutputIsIdenticalAndHoldsNoMeasurements) {
  for (const char* format : {"table", "json", "csv"}) {
    const auto a = RunDlcheck({"check", "--stable", "-f", format});
    const auto b = RunDlcheck({"check", "--stable", "-f", format});
    EXPECT_EQ(a.out, b.out) << format;
    EXPECT_EQ(a.exit_code, b.exit_code) << format;
    EXPECT_EQ(a.out.find("largest deviation"), std::string::npos) << format << ": " << a.out;
    if (std::string(format) == "json") continue;  // the keys are there, null: below
    EXPECT_EQ(a.out.find("samples_per_s"), std::string::npos) << format << ": " << a.out;
    EXPECT_EQ(a.out.find("step_ms"), std::string::npos) << format << ": " << a.out;
  }
  // JSON has every declared key; what --stable leaves out is null.
  const nlohmann::json doc =
      nlohmann::json::parse(RunDlcheck({"check", "--stable", "-f", "json"}).out);
  for (const char* key : {"samples_per_s", "step_ms", "step_ms_traced", "timed_iters",
                          "max_deviation", "loss_first", "loss_last"}) {
    EXPECT_TRUE(doc["run"][key].is_null()) << key << ": " << doc["run"];
  }
  EXPECT_TRUE(doc["check"]["perfdata"].is_null()) << doc["check"];
  const auto t = RunDlcheck({"check", "--stable"});
  const std::string first = FirstLine(t.out);
  EXPECT_EQ(first.find(" | "), std::string::npos) << first;
  const char* names[] = {"OK", "WARNING", "CRITICAL", "UNKNOWN"};
  ASSERT_LE(t.exit_code, 3);
  EXPECT_EQ(first.rfind(std::string("DLCHECK ") + names[t.exit_code] + " - ", 0), 0u) << first;
  const auto critical = RunDlcheck({"check", "--stable", "--min-cores", "1048576"});
  EXPECT_EQ(critical.exit_code, 2);
}

// `dlcheck fleet` reads the host from check.host; --stable leaves it out, or identical nodes
// differ.
TEST(CheckCliTest, JsonNamesTheHostExceptWhenStable) {
  const auto r = RunDlcheck({"check", "-f", "json", "--node-name", "node7"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["check"]["host"], "node7") << r.out;
  const auto stable = RunDlcheck({"check", "-f", "json", "--stable", "--node-name", "node7"});
  EXPECT_TRUE(nlohmann::json::parse(stable.out)["check"]["host"].is_null()) << stable.out;
}

TEST(CheckCliTest, TheModelPassRunsOnOneThreadWhateverOmpNumThreadsSays) {
  const auto r = RunDlcheck({"check", "-f", "json"}, "", {"OMP_NUM_THREADS=2"});
  ASSERT_LE(r.exit_code, 2) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  const auto& run = doc["run"];
  EXPECT_EQ(run["threads"], 1) << run;
  if (!run["samples_per_s"].is_null()) {  // a host whose worker failed has no figures
    EXPECT_GT(run["samples_per_s_min"].get<double>(), 0) << run;
    EXPECT_LE(run["samples_per_s_min"].get<double>(), run["samples_per_s_max"].get<double>());
    const std::string perfdata = doc["check"]["perfdata"];
    EXPECT_NE(perfdata.find("'threads'=1;;;0"), std::string::npos) << perfdata;
    EXPECT_NE(perfdata.find("'samples_per_s_min'="), std::string::npos) << perfdata;
    EXPECT_NE(perfdata.find("'samples_per_s_max'="), std::string::npos) << perfdata;
  }
}

TEST(CheckCliTest, SlurmFeaturesAreTokensWithTheOneDnnLevelAndTheStatus) {
  const auto r = RunDlcheck({"check", "--emit", "slurm-features"});
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.back(), '\n');
  std::istringstream list(r.out.substr(0, r.out.size() - 1));
  std::string token;
  int onednn = 0, status = 0;
  while (std::getline(list, token, ',')) {
    EXPECT_TRUE(fleet::IsSlurmFeatureToken(token)) << token;
    onednn += token.rfind("onednn_", 0) == 0;
    status += token.rfind("dlcheck_", 0) == 0;
  }
  // Cumulative: every x86-64 host dlcheck runs on meets oneDNN's lowest level, sse41.
  EXPECT_GE(onednn, 1) << r.out;
  EXPECT_NE(("," + r.out).find(",onednn_sse41,"), std::string::npos) << r.out;
  EXPECT_EQ(status, 1) << r.out;
  const auto conf = RunDlcheck({"check", "--emit", "slurm-conf", "--node-name", "node7"});
  EXPECT_TRUE(std::regex_match(conf.out, std::regex("NodeName=node7 CPUs=[1-9][0-9]* Boards=1 "
                                                    "SocketsPerBoard=[1-9][0-9]* "
                                                    "CoresPerSocket=[1-9][0-9]* "
                                                    "ThreadsPerCore=[1-9][0-9]* "
                                                    "RealMemory=[1-9][0-9]* Features=.*\n")))
      << conf.out;
  EXPECT_EQ(conf.out.substr(conf.out.find(" Features=") + 10), r.out);
  const auto slurmd = RunDlcheck({"check", "--emit", "slurm-conf"}, "", {"SLURMD_NODENAME=n42"});
  EXPECT_EQ(slurmd.out.rfind("NodeName=n42 CPUs=", 0), 0u) << slurmd.out;
}

class CheckFileTest : public dlcheck::testing::ScratchDirTest {};

TEST_F(CheckFileTest, OutputIsWrittenWholeUnderItsNameAndNothingElseIsLeft) {
  const std::string target = (dir_ / "dlcheck.prom").string();
  const auto r = RunDlcheck({"check", "--emit", "prometheus", "-o", target});
  EXPECT_LE(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.out, "");
  const std::string text = testing::ReadFile(target);
  EXPECT_NE(text.find("\ndlcheck_check_status " + std::to_string(r.exit_code) + "\n"),
            std::string::npos)
      << text;
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    ++files;
    EXPECT_EQ(entry.path().filename(), "dlcheck.prom");
  }
  EXPECT_EQ(files, 1);
}

TEST_F(CheckFileTest, NfdFileCarriesTheExpiryAndValidLabels) {
  const std::string target = (dir_ / "dlcheck").string();
  const auto r = RunDlcheck({"check", "--emit", "nfd", "--nfd-expiry", "600", "-o", target});
  EXPECT_LE(r.exit_code, 1) << r.err;
  std::ifstream in(target);
  std::string line;
  int labels = 0, expiry = 0;
  while (std::getline(in, line)) {
    if (line.rfind("# +expiry-time=", 0) == 0) {
      ++expiry;
      EXPECT_EQ(line.size(), std::string("# +expiry-time=2026-11-23T01:02:03Z").size()) << line;
      continue;
    }
    if (line.rfind('#', 0) == 0) continue;
    ++labels;
    const auto slash = line.find('/');
    const auto eq = line.find('=');
    ASSERT_NE(eq, std::string::npos) << line;
    EXPECT_EQ(line.substr(0, slash), fleet::kNfdPrefix);
    EXPECT_TRUE(fleet::IsValidLabelName(line.substr(slash + 1, eq - slash - 1))) << line;
    EXPECT_TRUE(fleet::IsValidLabelValue(line.substr(eq + 1))) << line;
  }
  EXPECT_EQ(expiry, 1);
  EXPECT_GE(labels, 3);
}

TEST(CheckCliTest, NfdExpiryWithoutNfdIsAUsageError) {
  const auto r = RunDlcheck({"check", "--nfd-expiry", "60"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "dlcheck: --nfd-expiry goes with --emit nfd (the NFD feature file's expiry)\n");
  EXPECT_EQ(r.out, "");
}

TEST_F(CheckFileTest, ConfigFileGivesTheOptionsAndTheCommandLineWins) {
  const std::string config =
      Write("health.conf", "# requirements\nmin-cores = 1048576\nstable = true\n");
  const auto r = RunDlcheck({"check", "--config", config});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(FirstLine(r.out).find(" | "), std::string::npos) << "stable = true applied";
  const auto wins = RunDlcheck({"check", "--config", config, "--min-cores", "1"});
  EXPECT_LE(wins.exit_code, 1) << wins.out;
}

TEST_F(CheckFileTest, ABadConfigFileIsUnknownAndSaysWhy) {
  const std::string config = Write("bad.conf", "min-cores = 1\nno-such-option = 1\n");
  const auto r = RunDlcheck({"check", "--config", config});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "dlcheck: --config " + config +
                       ": 'no-such-option' is not an option of dlcheck check\n");
  const std::string typo = Write("typo.conf", "min-core = 1\n");
  EXPECT_EQ(RunDlcheck({"check", "--config", typo}).err,
            "dlcheck: --config " + typo +
                ": 'min-core' is not an option of dlcheck check; did you mean 'min-cores'?\n");
  const auto missing = RunDlcheck({"check", "--config", (dir_ / "absent.conf").string()});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_EQ(missing.err, "dlcheck: cannot open --config file '" + (dir_ / "absent.conf").string() +
                             "': No such file or directory\n");
}

TEST_F(CheckFileTest, HealthCheckWithoutScontrolIsUnknownAndSaysWhatToDo) {
  const auto r = RunDlcheck({"check", "--stable", "--slurm-health-check", "--scontrol",
                             (dir_ / "no-scontrol").string(), "--node-name", "node1"});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_NE(r.err.find("give its path with --scontrol"), std::string::npos) << r.err;
}

// A timeout that is not a finite positive number is a bad command line: UNKNOWN, before any run.
TEST(CheckCliTest, ATimeoutThatIsNotAFinitePositiveNumberIsUnknown) {
  for (const char* value : {"nan", "inf", "0", "-5"}) {
    const auto r = RunDlcheck({"check", "--timeout", value});
    EXPECT_EQ(r.exit_code, 3) << value;
    EXPECT_NE(r.err.find("--timeout"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << value;
  }
}

}  // namespace
}  // namespace dlcheck
