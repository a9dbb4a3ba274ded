// SPDX-License-Identifier: Apache-2.0
// `dlcheck whatif` run on real logs: invariants of its document that hold on any x86-64 host
// (every hot row rebuilt or noted, the figures consistent with each other), and, for a log this
// host makes itself, the baseline picking the log's implementation. The runs whatif captures
// itself (--model, -- CMD), standard input read like a file (its ISA variants too), and the
// private scratch file that holds such a log, gone at the end and after Ctrl-C.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/onednn_isa.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"
#include "support/test_files.h"

namespace dlcheck {
namespace {

using Json = nlohmann::json;
using testing::RunDlcheck;

std::string Log(const std::string& name) {
  return testing::DataPath("verbose/" + name);
}

// A load average file (the DLCHECK_LOADAVG test hook) in the test's temporary directory, removed
// when the test program ends (QuietLoad's was left behind in /tmp by every run).
std::string LoadFile(const std::string& name, const std::string& text) {
  struct RemovedAtExit {
    std::set<std::string> paths;
    ~RemovedAtExit() {
      std::error_code ignored;
      for (const std::string& p : paths) std::filesystem::remove(p, ignored);
    }
  };
  static RemovedAtExit files;
  const std::string path =
      ::testing::TempDir() + "dlcheck_whatif_" + name + "_" + std::to_string(getpid());
  std::ofstream(path) << text;
  files.paths.insert(path);
  return path;
}

// A quiet machine and no ISA cap of the caller's, for the tests that count findings (a busy test
// machine adds busy-machine; a cap CI exports, ONEDNN_MAX_CPU_ISA=AVX2, adds environment-removed
// on a host above it).
std::vector<std::string> QuietLoad() {
  return {"DLCHECK_LOADAVG=" + LoadFile("quiet", "0.00 0.00 0.00 1/100 1\n"), "ONEDNN_MAX_CPU_ISA",
          "DNNL_MAX_CPU_ISA"};
}

Json WhatifJson(std::vector<std::string> args, const std::vector<std::string>& env = {}) {
  args.insert(args.begin(), {"whatif", "--format", "json"});
  const testing::RunResult r = RunDlcheck(args, {}, env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return Json::parse(r.out);
}

// Every hot row has one `as logged` row, measured or saying why not; every measured variant's
// speed-up and step gain follow from its times and its row's share.
void CheckInvariants(const Json& doc) {
  const Json& variants = doc["variants"];
  const std::int64_t hot_rows = doc["measurement"]["hot_rows"].get<std::int64_t>();
  std::map<std::int64_t, double> baseline;
  std::set<std::int64_t> seen;
  for (const Json& row : variants) {
    const std::int64_t hot = row["hot"].get<std::int64_t>();
    seen.insert(hot);
    if (row["variant"] == "as logged") {
      EXPECT_EQ(baseline.count(hot), 0u) << "two baselines for hot row " << hot;
      if (row["min_ms"].is_number()) {
        baseline[hot] = row["min_ms"].get<double>();
        EXPECT_DOUBLE_EQ(row["speedup"].get<double>(), 1.0);
      } else {
        ASSERT_TRUE(row["note"].is_string());
        const std::string note = row["note"].get<std::string>();
        EXPECT_TRUE(note.rfind("not rebuilt: ", 0) == 0 || note.rfind("not measured: ", 0) == 0)
            << row.dump();
      }
    }
    if (!row["min_ms"].is_number()) {
      EXPECT_TRUE(row["note"].is_string()) << "a variant that did not run says why: " << row.dump();
      continue;
    }
    EXPECT_GE(row["runs"].get<std::int64_t>(), 1);
    EXPECT_LE(row["min_ms"].get<double>(), row["avg_ms"].get<double>() * 1.0001);
    EXPECT_FALSE(row["implementation"].get<std::string>().empty());
    if (row["benchdnn"].is_string()) {
      EXPECT_EQ(row["benchdnn"].get<std::string>().rfind("OMP_NUM_THREADS=", 0), 0u);
    }
    const double speedup = row["speedup"].get<double>();
    const double share = row["time_pct"].get<double>();
    EXPECT_NEAR(row["step_gain_pct"].get<double>(), share * (1 - 1 / speedup),
                0.06 + 0.01 * std::fabs(share / speedup));
  }
  EXPECT_EQ(static_cast<std::int64_t>(seen.size()), hot_rows);
  EXPECT_LE(static_cast<std::int64_t>(baseline.size()),
            doc["measurement"]["rebuilt"].get<std::int64_t>());
  double last = 1e300;
  for (const Json& change : doc["changes"]) {
    EXPECT_GT(change["speedup"].get<double>(), 1.0);
    EXPECT_LE(change["step_gain_pct"].get<double>(), last);
    last = change["step_gain_pct"].get<double>();
  }
}

TEST(WhatifCli, CnnLogEveryHotRowRebuiltOrNoted) {
  const Json doc = WhatifJson(
      {"--time", "0", "--variants", "layouts,impl,threads,dtype", Log("torch_cnn_2.6.3.log")});
  CheckInvariants(doc);
  EXPECT_EQ(doc["measurement"]["hot_rows"], doc["measurement"]["rebuilt"]);
  EXPECT_EQ(doc["measurement"]["threads_source"], "the log's nthr:1");
  // The convolutions' layouts variant names its reorders or says there are none.
  for (const Json& row : doc["variants"]) {
    if (row["variant"] == "layouts any" && row["min_ms"].is_number()) {
      const std::string note = row["note"].get<std::string>();
      EXPECT_TRUE(note.find("includes reorders") != std::string::npos ||
                  note.find("no reorder") != std::string::npos)
          << note;
    }
  }
}

// Lines of every era: rows 2.6.3 cannot rebuild are there, with their reason.
TEST(WhatifCli, OtherErasAreNotedNotSkipped) {
  const Json doc = WhatifJson({"--time", "0", "--variants", "none", "--cover", "100", "--top",
                               "1000", Log("real_lines.txt")});
  CheckInvariants(doc);
  EXPECT_LT(doc["measurement"]["rebuilt"].get<std::int64_t>(),
            doc["measurement"]["hot_rows"].get<std::int64_t>());
}

// The verdict is the first line on a terminal (with the tally of the findings), said once there,
// and the measurement's `verdict` in JSON.
TEST(WhatifCli, VerdictComesFirstAndOnce) {
  const std::vector<std::string> args = {
      "--time", "0", "--top", "2", "--variants", "none", Log("torch_cnn_2.6.3.log")};
  std::vector<std::string> table = {"whatif"};
  table.insert(table.end(), args.begin(), args.end());
  const testing::RunResult r = RunDlcheck(table, {}, QuietLoad());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = WhatifJson(args, QuietLoad());
  const std::string verdict = doc["measurement"]["verdict"].get<std::string>();
  // The log's findings are tallied after it: this log spends a quarter of its time in reorders.
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), verdict + "; 1 warning: reorder-share");
  EXPECT_EQ(r.out.find("verdict"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(verdict), r.out.rfind(verdict)) << r.out;
}

// The changes' sentences (`change`, in JSON) stay out of the table, whose rank column tells the
// changes apart: the best one's sentence is said once, as the verdict.
TEST(WhatifCli, ChangeSentencesAreNotInTheTable) {
  const testing::RunResult r = RunDlcheck({"whatif", "--time", "0", "--top", "3", "--variants",
                                           "layouts,threads", Log("torch_cnn_2.6.3.log")},
                                          {}, QuietLoad());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::size_t at = r.out.find("Changes, by projected step gain\n");
  if (at == std::string::npos) GTEST_SKIP() << "no variant ran faster than its baseline here";
  const std::size_t header_start = at + std::string("Changes, by projected step gain\n").size();
  const std::string header =
      r.out.substr(header_start, r.out.find('\n', header_start) - header_start);
  EXPECT_NE(header.find("variant"), std::string::npos) << header;
  EXPECT_EQ(header.find(" change"), std::string::npos) << header;
  const std::string headline = r.out.substr(0, r.out.find("; 1 warning: reorder-share\n"));
  EXPECT_EQ(r.out.find(headline), r.out.rfind(headline)) << r.out;
}

TEST(WhatifCli, UnknownVariantIsAUsageError) {
  const testing::RunResult r =
      RunDlcheck({"whatif", "--variants", "layout", Log("torch_cnn_2.6.3.log")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "dlcheck: --variants: 'layout' is not one of layouts, impl, threads, dtype, isa, none "
            "(see 'dlcheck whatif --help')\n");
}

// The baselines' implementations, by hot row.
std::map<std::int64_t, std::string> BaselineImplementations(const Json& doc) {
  std::map<std::int64_t, std::string> implementations;
  for (const Json& row : doc["variants"]) {
    if (row["variant"] == "as logged" && row["implementation"].is_string()) {
      implementations[row["hot"].get<std::int64_t>()] = row["implementation"].get<std::string>();
    }
  }
  return implementations;
}

const Json* FindingOf(const Json& doc, const std::string& code) {
  for (const Json& f : doc["findings"]) {
    if (f["code"] == code) return &f;
  }
  return nullptr;
}

// The user's oneDNN variables stay out of the measurement: with verbose on and a cap exported,
// the document is still JSON, its baselines run what they run without them, and the report names
// what it removed and which would have changed the result.
TEST(WhatifCli, TheUsersOneDnnVariablesAreRemovedAndNamed) {
  const std::vector<std::string> args = {
      "whatif", "--format", "json",       "--time", "0",
      "--top",  "3",        "--variants", "none",   Log("torch_cnn_2.6.3.log")};
  const testing::RunResult clean = RunDlcheck(args, {}, {"ONEDNN_VERBOSE", "ONEDNN_MAX_CPU_ISA"});
  ASSERT_EQ(clean.exit_code, 0) << clean.err;
  const testing::RunResult exported =
      RunDlcheck(args, {}, {"ONEDNN_VERBOSE=1", "ONEDNN_MAX_CPU_ISA=avx2"});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const Json doc = Json::parse(exported.out);  // throws on a verbose line before the document
  EXPECT_EQ(BaselineImplementations(doc), BaselineImplementations(Json::parse(clean.out)));
  const Json& removed = doc["measurement"]["environment_removed"];
  const std::set<std::string> names(removed.begin(), removed.end());
  EXPECT_EQ(names, (std::set<std::string>{"ONEDNN_VERBOSE=1", "ONEDNN_MAX_CPU_ISA=avx2"}));
  EXPECT_TRUE(Json::parse(clean.out)["measurement"]["environment_removed"].empty());
  const Json* finding = FindingOf(doc, "environment-removed");
  ASSERT_NE(finding, nullptr) << exported.out;
  EXPECT_NE(finding->dump().find("ONEDNN_VERBOSE=1 would have"), std::string::npos)
      << finding->dump();
}

// The ISA workers keep their own cap, and get none of the user's variables.
TEST(WhatifCli, IsaWorkersRunUnderTheirCapNotTheUsers) {
  const testing::RunResult r = RunDlcheck({"whatif", "--format", "json", "--time", "0", "--top",
                                           "1", "--variants", "isa", Log("torch_cnn_2.6.3.log")},
                                          {}, {"ONEDNN_VERBOSE=1", "ONEDNN_MAX_CPU_ISA=sse41"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  std::size_t judged = 0;
  for (const Json& row : doc["variants"]) {
    const std::string variant = row["variant"].get<std::string>();
    if (variant.rfind("isa ", 0) != 0 || !row["implementation"].is_string()) continue;
    // A worker that dropped its cap would dispatch above it.
    const std::string implementation = row["implementation"].get<std::string>();
    const std::optional<int> ran =
        onednn::IsaRank(implementation.substr(implementation.rfind(':') + 1));
    if (!ran) continue;  // gemm:jit, ref:any
    ++judged;
    EXPECT_LE(*ran, *onednn::IsaRank(variant.substr(4))) << row.dump();
  }
  if (judged == 0) std::cout << "no isa variant named an ISA on this host\n";
}

// oneDNN's level on this host, as `platform` reports it.
std::string HostIsa() {
  const testing::RunResult r = RunDlcheck({"platform", "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return Json::parse(r.out)["levels"]["onednn_max_isa"].get<std::string>();
}

// A log recorded under ONEDNN_MAX_CPU_ISA=SSE41 (on an AVX-512 machine) is replayed under its ISA
// as a cap on any host above it: the baselines run the log's kernels, and the host's own ISA is a
// variant of its own.
TEST(WhatifCli, ACappedLogIsReplayedUnderItsIsa) {
  const std::string host = HostIsa();
  const Json doc = WhatifJson({"--time", "0", "--top", "4", "--variants", "isa", "--cover", "100",
                               Log("torch_cnn_sse41_2.6.3.log")});
  CheckInvariants(doc);
  const auto [measured, agree] = [&] {
    std::size_t m = 0, a = 0;
    for (const Json& row : doc["variants"]) {
      if (row["variant"] != "as logged" || !row["min_ms"].is_number()) continue;
      ++m;
      if (row["implementation"] == row["logged_implementation"]) ++a;
    }
    return std::pair(m, a);
  }();
  ASSERT_GT(measured, 0u);
  EXPECT_GE(static_cast<double>(agree), 0.95 * static_cast<double>(measured))
      << doc["measurement"]["implementation_agreement"];
  if (host == "sse41") {
    EXPECT_TRUE(doc["measurement"]["baseline_isa"].is_null());
    return;
  }
  EXPECT_EQ(doc["measurement"]["baseline_isa"], "sse41");
  const Json& caps = doc["measurement"]["isa_caps"];
  EXPECT_NE(std::find(caps.begin(), caps.end(), host), caps.end()) << caps.dump();
  EXPECT_EQ(std::find(caps.begin(), caps.end(), "sse41"), caps.end()) << caps.dump();
}

// The noise guard: the load at the start and end, a busy machine said; each variant measured in
// rounds, its range reported, and a variant within its baseline's range never a change.
TEST(WhatifCli, ABusyMachineIsSaidAndNoiseIsNeverAChange) {
  const std::string busy = LoadFile("busy", "3.70 2.50 1.20 4/321 12345\n");
  // Recorded under an AVX2 cap: its baselines run (not reference code) on any host from AVX2 up.
  const Json doc = WhatifJson({"--time", "0", "--top", "2", "--variants", "threads,layouts",
                               Log("torch_cnn_avx2_2.6.3.log")},
                              {"DLCHECK_LOADAVG=" + busy});
  CheckInvariants(doc);
  EXPECT_DOUBLE_EQ(doc["measurement"]["load_start"].get<double>(), 3.7);
  EXPECT_DOUBLE_EQ(doc["measurement"]["load_end"].get<double>(), 3.7);
  EXPECT_NE(FindingOf(doc, "busy-machine"), nullptr) << doc["findings"].dump();
  EXPECT_TRUE(doc["measurement"]["onednn_wall_pct"].is_null()) << "a log's wall time is unknown";
  std::map<std::int64_t, std::pair<double, double>> baseline;
  for (const Json& row : doc["variants"]) {
    if (!row["min_ms"].is_number()) continue;
    EXPECT_EQ(row["rounds"], 3) << row.dump();
    EXPECT_LE(row["min_ms"].get<double>(), row["round_max_ms"].get<double>()) << row.dump();
    if (row["variant"] == "as logged") {
      baseline[row["hot"].get<std::int64_t>()] = {row["min_ms"].get<double>(),
                                                  row["round_max_ms"].get<double>()};
    }
  }
  for (const Json& row : doc["variants"]) {
    if (!row["min_ms"].is_number() || row["variant"] == "as logged") continue;
    const auto [low, high] = baseline.at(row["hot"].get<std::int64_t>());
    const bool overlaps =
        row["min_ms"].get<double>() <= high && low <= row["round_max_ms"].get<double>();
    EXPECT_EQ(row["within_noise"].get<bool>(), overlaps) << row.dump();
  }
  // threads is process-wide: one row over the whole step, never a per-row change.
  std::set<std::string> threads_variants;
  for (const Json& row : doc["variants"]) {
    const std::string variant = row["variant"].get<std::string>();
    if (variant.rfind("threads ", 0) == 0) threads_variants.insert(variant);
  }
  std::set<std::string> knobs;
  for (const Json& knob : doc["step_knobs"]) {
    EXPECT_TRUE(knobs.insert(knob["variant"].get<std::string>()).second) << knob.dump();
  }
  EXPECT_EQ(knobs, threads_variants);
  for (const Json& change : doc["changes"]) {
    EXPECT_NE(change["variant"].get<std::string>().rfind("threads ", 0), 0u) << change.dump();
    for (const Json& row : doc["variants"]) {
      if (row["hot"] == change["hot"] && row["variant"] == change["variant"]) {
        EXPECT_FALSE(row["within_noise"].get<bool>()) << row.dump();
      }
    }
  }
  std::filesystem::remove(busy);
}

// More threads than the CPUs this process may use (its affinity mask, here one CPU) are said.
TEST(WhatifCli, MoreThreadsThanUsableCpusAreSaid) {
  cpu_set_t saved, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &saved)) {
      CPU_SET(cpu, &one);
      break;
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  const std::vector<std::string> args = {
      "--time", "0", "--top", "1", "--variants", "none", Log("torch_cnn_avx2_2.6.3.log")};
  std::vector<std::string> two = args, one_thread = args;
  two.insert(two.begin(), {"--threads", "2"});
  one_thread.insert(one_thread.begin(), {"--threads", "1"});
  const Json over = WhatifJson(two);
  const Json within = WhatifJson(one_thread);
  sched_setaffinity(0, sizeof saved, &saved);
  const Json* f = FindingOf(over, "threads-above-cpus");
  ASSERT_NE(f, nullptr) << over["findings"].dump();
  EXPECT_NE((*f)["message"].get<std::string>().find("--threads 2 asked"), std::string::npos);
  EXPECT_EQ(FindingOf(within, "threads-above-cpus"), nullptr);
}

// issue 51 class 8: an ISA worker reads the log again and names its rows by rank; given a log
// that is not the one its parent read (the identity dlcheck hands it), it refuses with exit 3.
TEST(WhatifCli, AnIsaWorkerRefusesALogThatChanged) {
  const std::string log =
      ::testing::TempDir() + "dlcheck_whatif_growing_" + std::to_string(getpid());
  std::filesystem::copy_file(Log("torch_cnn_avx2_2.6.3.log"), log,
                             std::filesystem::copy_options::overwrite_existing);
  const std::string size = std::to_string(std::filesystem::file_size(log) - 10);
  const testing::RunResult r = RunDlcheck(
      {"whatif", "--variants", "none", "--baseline-layouts-any", "--format", "json", log}, {},
      {"DLCHECK_WHATIF_LOG_IDENTITIES=" + size + ":0"});
  std::filesystem::remove(log);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(
      r.err.find("dlcheck: the log changed since whatif read it: '" + log + "' grew from " + size),
      std::string::npos)
      << r.err;
}

// Issue 51: `--cover nan`, `--cover -nan` and `--time nan` ran. Each floating option refuses
// what is not a finite number in its range, in one line, with the usage exit code.
TEST(WhatifCli, NanAndOutOfRangeNumbersAreUsageErrors) {
  for (const auto& [option, value] :
       std::vector<std::pair<std::string, std::string>>{{"--cover", "nan"},
                                                        {"--cover", "-nan"},
                                                        {"--cover", "inf"},
                                                        {"--cover", "0.5"},
                                                        {"--time", "nan"},
                                                        {"--time", "1e999"},
                                                        {"--time", "-1"}}) {
    const testing::RunResult r =
        RunDlcheck({"whatif", option + "=" + value, Log("torch_cnn_2.6.3.log")});
    EXPECT_EQ(r.exit_code, 2) << option << " " << value;
    EXPECT_EQ(
        r.err.rfind("dlcheck: whatif: " + option + ": '" + value + "' is not a number from ", 0),
        0u)
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
}

// Issue 51: lines no primitive can have (tests/data/whatif/hostile_shapes.log: groups 0, a
// dimension 0 or 2^32, a matmul batch of 2^62, element counts that wrap 64 bits, an rnn of 0
// layers) killed whatif with SIGFPE. Every row is refused with its reason, like the other refused
// rows, and whatif ends as a command that measured nothing ends.
TEST(WhatifCli, HostileShapesAreRefusedRowsNotSignals) {
  const testing::RunResult r =
      RunDlcheck({"whatif", "--format", "json", "--time", "0", "--variants", "none", "--cover",
                  "100", "--top", "1000", testing::DataPath("whatif/hostile_shapes.log")});
  ASSERT_LT(r.exit_code, 128) << r.err;
  ASSERT_FALSE(r.out.empty()) << r.exit_code << " " << r.err;
  const Json doc = Json::parse(r.out);
  CheckInvariants(doc);
  EXPECT_EQ(doc["measurement"]["rebuilt"], 0);
  int refused = 0;
  for (const Json& row : doc["variants"]) {
    ASSERT_TRUE(row["note"].is_string()) << row.dump();
    EXPECT_EQ(row["note"].get<std::string>().rfind("not rebuilt: ", 0), 0u) << row.dump();
    ++refused;
  }
  EXPECT_EQ(refused, doc["measurement"]["hot_rows"].get<int>());
  EXPECT_EQ(refused, 19);
}

class WhatifOwnLog : public testing::ScratchDirTest {};

// A log this host makes (dlcheck's own CNN through oneDNN 2.6.3): the baselines pick the log's
// implementation in at least 95 % of the rebuilt rows.
TEST_F(WhatifOwnLog, BaselineAgreesWithTheLog) {
  const std::string log = (dir_ / "cnn.log").string();
  const testing::RunResult made =
      RunDlcheck({"verbose", "--model", "cnn", "--iters", "2", "--warmup", "0", "--traced", "2",
                  "--batch", "16", "--threads", "1", "--raw-log", log});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const Json doc =
      WhatifJson({"--time", "0", "--variants", "none", "--cover", "100", "--top", "30", log});
  CheckInvariants(doc);
  std::size_t rebuilt = 0, agree = 0;
  for (const Json& row : doc["variants"]) {
    if (row["variant"] != "as logged" || !row["min_ms"].is_number()) continue;
    ++rebuilt;
    if (row["implementation"] == row["logged_implementation"]) ++agree;
  }
  ASSERT_GT(rebuilt, 0u);
  EXPECT_GE(static_cast<double>(agree), 0.95 * static_cast<double>(rebuilt))
      << doc["measurement"]["implementation_agreement"];
}

// ---- what whatif captures itself, and standard input ---------------------------------------

// Debian's interpreter, whose python3-torch the tests use (PATH may hold another one).
constexpr const char* kPython = "/usr/bin/python3";

// Without the user's own verbose variables (putenv of a bare name unsets it).
const std::vector<std::string> kNoUserVerbose = {"ONEDNN_VERBOSE", "DNNL_VERBOSE",
                                                 "MKLDNN_VERBOSE"};

// The short measurements of these tests: the baselines of two hot rows.
const std::vector<std::string> kQuick = {"--format", "json", "--time",     "0.01",
                                         "--top",    "2",    "--variants", "none"};

std::vector<std::string> Args(std::vector<std::string> head, const std::vector<std::string>& tail) {
  head.insert(head.begin(), "whatif");
  head.insert(head.begin() + 1, kQuick.begin(), kQuick.end());
  head.insert(head.end(), tail.begin(), tail.end());
  return head;
}

std::string Text(const Json& value) {
  return value.is_string() ? value.get<std::string>() : std::string();
}

// The rows whose baseline ran, and those of them on the log's own implementation.
std::pair<std::size_t, std::size_t> Agreement(const Json& doc) {
  std::size_t measured = 0, agree = 0;
  for (const Json& row : doc["variants"]) {
    if (row["variant"] != "as logged" || !row["min_ms"].is_number()) continue;
    ++measured;
    if (row["implementation"] == row["logged_implementation"]) ++agree;
  }
  return {measured, agree};
}

// A TMPDIR of the test's own, so that whatif's scratch directory can be seen and its removal
// checked.
class WhatifCaptureTest : public testing::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    tmp_ = dir_ / "tmp";
    std::filesystem::create_directories(tmp_);
  }
  std::vector<std::string> Env(std::vector<std::string> more = {}) const {
    more.push_back("TMPDIR=" + tmp_.string());
    return more;
  }
  bool TmpIsEmpty() const { return std::filesystem::is_empty(tmp_); }
  std::filesystem::path tmp_;
};

// --model: the worker's traced steps captured as `verbose` captures them, its hot rows rebuilt,
// the baselines on the captured log's implementations; the scratch file gone at the end.
TEST_F(WhatifCaptureTest, TheModelIsCapturedAndItsHotRowsRebuilt) {
  const testing::RunResult r = RunDlcheck(
      Args({"--model", "mlp", "--batch", "16", "--warmup", "0", "--traced", "2", "--threads", "1"},
           {}),
      "", Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  CheckInvariants(doc);
  EXPECT_EQ(doc["options"]["model"], "mlp");
  EXPECT_TRUE(doc["options"]["command"].is_null());
  EXPECT_TRUE(doc["input"]["files"].is_null());
  EXPECT_EQ(doc["measurement"]["threads"], 1);
  EXPECT_EQ(doc["measurement"]["exit_status"], 0);
  const std::int64_t hot = doc["measurement"]["hot_rows"].get<std::int64_t>();
  EXPECT_GE(hot, 1);
  EXPECT_EQ(doc["measurement"]["rebuilt"], hot);
  const auto [measured, agree] = Agreement(doc);
  ASSERT_GT(measured, 0u);
  EXPECT_GE(static_cast<double>(agree), 0.95 * static_cast<double>(measured))
      << doc["measurement"]["implementation_agreement"];
  // whatif keeps no timeline: none is said to be cut (issue 47: "keeps the first 0 executions").
  EXPECT_EQ(FindingOf(doc, "timeline-capped"), nullptr) << doc["findings"].dump();
  EXPECT_TRUE(TmpIsEmpty());
}

// -- CMD: a real PyTorch training script, captured as `run` captures it (its own output on
// stderr), its convolutions measured.
// Every row (--cover 100): which rows are the two hottest of 2 steps depends on the host (a
// fresh Debian root on an AMX host once put no convolution among them).
// Issue 46 item 5: a captured PyTorch program (its audit saw libtorch_cpu) gets each
// process-wide knob in PyTorch's words beside its figure; a log names no framework.
TEST_F(WhatifCaptureTest, APyTorchProgramGetsItsChangesInPyTorchsWords) {
  const testing::RunResult r = RunDlcheck(
      {"whatif", "--format", "json", "--time", "0.01", "--top", "1", "--variants", "threads", "--",
       kPython, testing::DataPath("torch/train_cnn.py"), "--steps", "2"},
      "", Env(kNoUserVerbose));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json doc = Json::parse(r.out);  // not const: a missing key is null, not an assertion
  EXPECT_EQ(doc["measurement"]["framework"], "PyTorch") << doc["measurement"];
  for (const Json& knob : doc["step_knobs"]) {
    const std::string variant = knob["variant"];
    ASSERT_EQ(variant.rfind("threads ", 0), 0u) << knob;
    EXPECT_EQ(knob["in_framework"], "torch.set_num_threads(" + variant.substr(8) + ")") << knob;
  }
  const testing::RunResult log =
      RunDlcheck({"whatif", "--format", "json", "--time", "0", "--variants", "threads", "--top",
                  "1", Log("torch_cnn_2.6.3.log")});
  ASSERT_EQ(log.exit_code, 0) << log.err;
  Json from_log = Json::parse(log.out);
  EXPECT_TRUE(from_log["measurement"]["framework"].is_null());
  for (const Json& knob : from_log["step_knobs"]) EXPECT_TRUE(knob["in_framework"].is_null());
  EXPECT_TRUE(TmpIsEmpty());
}

TEST_F(WhatifCaptureTest, AProgramIsCapturedAsRunCapturesIt) {
  const testing::RunResult r =
      RunDlcheck({"whatif", "--format", "json", "--time", "0.01", "--top", "100", "--cover", "100",
                  "--variants", "none", "--", kPython, testing::DataPath("torch/train_cnn.py"),
                  "--steps", "2"},
                 "", Env(kNoUserVerbose));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("train_cnn done steps=2"), std::string::npos) << r.err;
  const Json doc = Json::parse(r.out);
  CheckInvariants(doc);
  EXPECT_EQ(Text(doc["options"]["command"]).rfind(kPython, 0), 0u);
  EXPECT_EQ(doc["measurement"]["ended"], "exited with status 0");
  bool convolution = false;
  for (const Json& row : doc["variants"]) convolution |= row["primitive"] == "convolution";
  EXPECT_TRUE(convolution) << "PyTorch 1.13 runs its convolutions through oneDNN";
  for (const Json& f : doc["findings"]) EXPECT_NE(f["severity"], "error") << f;
  // The program's wall time is known: oneDNN's share of it, and each gain on it.
  const double wall_pct = doc["measurement"]["onednn_wall_pct"].get<double>();
  EXPECT_GT(wall_pct, 0);
  EXPECT_LE(wall_pct, 100);
  for (const Json& change : doc["changes"]) {
    // The document rounds the step gain and oneDNN's share to 0.1 and the program gain to 0.01:
    // their product from the rounded figures is off by at most what the roundings allow.
    const double step = change["step_gain_pct"].get<double>();
    const double rounding = (0.05 * wall_pct + 0.05 * std::fabs(step) + 0.0025) / 100 + 0.005;
    EXPECT_NEAR(change["program_gain_pct"].get<double>(), step * wall_pct / 100, rounding + 1e-9)
        << change.dump();
  }
  EXPECT_TRUE(TmpIsEmpty());
}

// A program that fails after its primitives ran: measured, then whatif ends with its status, as
// `run` does.
TEST_F(WhatifCaptureTest, AProgramThatFailsAfterItsPrimitivesEndsWithItsStatus) {
  const testing::RunResult r =
      RunDlcheck(Args({}, {"--", "sh", "-c", "cat \"$0\"; exit 4", Log("torch_cnn_2.6.3.log")}), "",
                 Env(kNoUserVerbose));
  EXPECT_EQ(r.exit_code, 4) << r.err;
  const Json doc = Json::parse(r.out);
  CheckInvariants(doc);
  EXPECT_EQ(doc["measurement"]["exit_status"], 4);
  EXPECT_EQ(doc["measurement"]["ended"], "exited with status 4");
  EXPECT_GE(doc["measurement"]["hot_rows"].get<std::int64_t>(), 1);
  EXPECT_TRUE(TmpIsEmpty());
}

// A run that executed no primitive has nothing to measure: exit 3, with `run`'s reason.
TEST_F(WhatifCaptureTest, NothingToMeasureIsExit3WithRunsReason) {
  testing::RunResult r =
      RunDlcheck(Args({}, {"--", "sh", "-c", "echo no torch; exit 3"}), "", Env(kNoUserVerbose));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "no torch\n"
            "dlcheck: nothing to measure: sh exited with status 3 before oneDNN printed anything: "
            "it failed before it created a oneDNN primitive (an import, its arguments, its data: "
            "see its own output above), so this report is empty; fix that first\n");
  r = RunDlcheck(Args({}, {"--", "true"}), "", Env(kNoUserVerbose));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err.rfind("dlcheck: nothing to measure: true ended well but printed no oneDNN "
                        "verbose line although dlcheck switched verbose on",
                        0),
            0u)
      << r.err;
  r = RunDlcheck(Args({}, {"--", "no-such-program-dlcheck"}), "", Env());
  EXPECT_EQ(r.exit_code, 127) << r.err;
  EXPECT_TRUE(TmpIsEmpty());
}

TEST_F(WhatifCaptureTest, InputsThatDoNotGoTogetherAreUsageErrors) {
  const std::string log = Log("torch_cnn_2.6.3.log");
  struct Case {
    std::vector<std::string> args;
    std::string err;
  };
  const std::vector<Case> cases = {
      {{"whatif", "--batch", "8", log},
       "dlcheck: --batch: a model option; give --model mlp or --model cnn to measure dlcheck's "
       "model\n"},
      {{"whatif", "--model", "cnn", log},
       "dlcheck: --model: measures dlcheck's model; give it without a log file\n"},
      {{"whatif", "--model", "cnn", "--", "true"},
       "dlcheck: --model: measures dlcheck's model; give it without -- CMD\n"},
      {{"whatif", "--timeout", "5", log},
       "dlcheck: --timeout: only with --model or -- CMD, which whatif runs\n"},
  };
  for (const Case& c : cases) {
    const testing::RunResult r = RunDlcheck(c.args, "", Env());
    EXPECT_EQ(r.exit_code, 2) << c.args[1];
    EXPECT_EQ(r.err, c.err);
  }
  const testing::RunResult both = RunDlcheck({"whatif", log, "--", "true"}, "", Env());
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("a log file and -- CMD: give one or the other"), std::string::npos)
      << both.err;
  EXPECT_TRUE(TmpIsEmpty());
}

// Standard input is read like a file: the ISA workers read the scratch copy, so it gets the same
// ISA caps (those below this host's ISA, whatever the host) and the same rows as the file.
TEST_F(WhatifCaptureTest, StandardInputGetsTheIsaVariantsOfAFile) {
  const std::string log = Log("torch_cnn_sse41_2.6.3.log");
  const std::vector<std::string> isa = {"whatif", "--format", "json",       "--time", "0",
                                        "--top",  "1",        "--variants", "isa"};
  std::vector<std::string> file = isa, piped = isa;
  file.push_back(log);
  piped.push_back("-");
  const testing::RunResult a = RunDlcheck(file, "", Env());
  const testing::RunResult b = RunDlcheck(piped, testing::ReadFile(log), Env());
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const Json from_file = Json::parse(a.out), from_stdin = Json::parse(b.out);
  EXPECT_EQ(from_stdin["measurement"]["isa_caps"], from_file["measurement"]["isa_caps"]);
  EXPECT_EQ(from_stdin["measurement"]["isa_note"], from_file["measurement"]["isa_note"]);
  EXPECT_EQ(from_stdin["input"]["files"], Json::array({"-"}));
  std::vector<std::string> file_variants, stdin_variants;
  for (const Json& row : from_file["variants"]) file_variants.push_back(Text(row["variant"]));
  for (const Json& row : from_stdin["variants"]) stdin_variants.push_back(Text(row["variant"]));
  EXPECT_EQ(stdin_variants, file_variants);
  // One row per cap below the host's ISA under the rebuilt hot row, measured or saying why not.
  std::size_t isa_rows = 0;
  for (const Json& row : from_stdin["variants"]) {
    if (Text(row["variant"]).rfind("isa ", 0) != 0) continue;
    ++isa_rows;
    EXPECT_TRUE(row["min_ms"].is_number() || row["note"].is_string()) << row;
  }
  if (from_stdin["measurement"]["rebuilt"] == 1) {
    EXPECT_EQ(isa_rows, from_stdin["measurement"]["isa_caps"].size());
  }
  CheckInvariants(from_stdin);
  EXPECT_TRUE(TmpIsEmpty());
}

using Clock = std::chrono::steady_clock;

// The one directory whatif made under `tmp` and the files in it, once it holds one (up to 20 s).
std::vector<std::filesystem::path> WaitForScratchFiles(const std::filesystem::path& tmp) {
  const auto end = Clock::now() + std::chrono::seconds(20);
  while (Clock::now() < end) {
    for (const auto& dir : std::filesystem::directory_iterator(tmp)) {
      std::vector<std::filesystem::path> files;
      std::error_code gone;
      for (const auto& f : std::filesystem::directory_iterator(dir.path(), gone)) {
        files.push_back(f.path());
      }
      if (!files.empty()) return files;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return {};
}

int WaitExit(pid_t pid) {
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// Sets TMPDIR for the children started while it lives.
class TmpdirForChildren {
 public:
  explicit TmpdirForChildren(const std::string& dir) { setenv("TMPDIR", dir.c_str(), 1); }
  ~TmpdirForChildren() { unsetenv("TMPDIR"); }
};

// The scratch file is private (0600 in a 0700 directory) and gone after Ctrl-C: here while the
// program runs (the signal is passed on, the run ends, nothing was executed: 128 + 2).
TEST_F(WhatifCaptureTest, SigintWhileTheProgramRunsLeavesNoScratchFile) {
  const std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
  pid_t dlcheck = 0;
  {
    const TmpdirForChildren tmpdir(tmp_.string());
    dlcheck = testing::StartDlcheck({"whatif", "--time", "0.01", "--", "sleep", "30"}, out, err);
  }
  const std::vector<std::filesystem::path> files = WaitForScratchFiles(tmp_);
  ASSERT_EQ(files.size(), 1u);
  struct stat info {};
  ASSERT_EQ(stat(files[0].c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u) << files[0];
  ASSERT_EQ(stat(files[0].parent_path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // sleep is running by now
  kill(dlcheck, SIGINT);
  EXPECT_EQ(WaitExit(dlcheck), 128 + SIGINT) << testing::ReadFile(err);
  EXPECT_TRUE(TmpIsEmpty());
}

// ... and while a pipe is being copied (dlcheck waits in a read: the signal ends it, and the
// partial copy goes with it).
TEST_F(WhatifCaptureTest, SigintWhileAPipeIsCopiedLeavesNoScratchFile) {
  const std::string fifo = (dir_ / "log.fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string out = (dir_ / "out").string(), err = (dir_ / "err").string();
  pid_t dlcheck = 0;
  {
    const TmpdirForChildren tmpdir(tmp_.string());
    dlcheck = testing::StartDlcheck({"whatif", "--time", "0.01", fifo}, out, err);
  }
  const int writer = open(fifo.c_str(), O_WRONLY | O_CLOEXEC);  // waits for dlcheck's open
  ASSERT_GE(writer, 0);
  const std::string lines = testing::ReadFile(Log("torch_cnn_2.6.3.log")).substr(0, 4096);
  ASSERT_EQ(write(writer, lines.data(), lines.size()), static_cast<ssize_t>(lines.size()));
  const std::vector<std::filesystem::path> files = WaitForScratchFiles(tmp_);
  ASSERT_EQ(files.size(), 1u);
  struct stat info {};
  ASSERT_EQ(stat(files[0].c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u) << files[0];
  kill(dlcheck, SIGINT);
  EXPECT_EQ(WaitExit(dlcheck), 128 + SIGINT) << testing::ReadFile(err);
  close(writer);
  EXPECT_TRUE(TmpIsEmpty());
}

}  // namespace
}  // namespace dlcheck
