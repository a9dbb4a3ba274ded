// SPDX-License-Identifier: Apache-2.0
// dlcheck roofline through the built binary: a quick measurement's invariants, true on any host
// (positive figures, the L1 plateau at least the DRAM one, two threads at least 0.8x one, no
// unit both measured and said unmeasurable, the profile stored whole and read back); a stored
// profile shown again; the errors; SIGINT; and `parse --roofline` placing rows under a profile
// without measuring again.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"
#include "support/test_files.h"

namespace dlcheck {
namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

class RooflineCli : public testing::ScratchDirTest {
 protected:
  std::string Cache() const { return (dir_ / "cache").string(); }
  std::vector<std::string> Env() const { return {"XDG_CACHE_HOME=" + Cache()}; }
  std::vector<std::filesystem::path> Stored() const {
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& entry :
         std::filesystem::directory_iterator(std::filesystem::path(Cache()) / "dlcheck", ec)) {
      files.push_back(entry.path());
    }
    return files;
  }
};

double Number(const Json& value) {
  return value.is_number() ? value.get<double>() : -1;
}

const Json* Row(const Json& table, const char* key, const std::string& value) {
  for (const Json& row : table) {
    if (row[key] == value) return &row;
  }
  return nullptr;
}

TEST_F(RooflineCli, AQuickMeasurementHoldsOnAnyHostAndIsStored) {
  const Clock::time_point start = Clock::now();
  const auto r = testing::RunDlcheck({"roofline", "--quick", "--format", "json"}, {}, Env());
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // A few seconds, as the page says (a busy 2-core machine included).
  EXPECT_LT(seconds, 20) << r.err;
  const Json doc = Json::parse(r.out);
  const Json& machine = doc["roofline"];
  EXPECT_EQ(machine["quick"], true);
  EXPECT_EQ(machine["stored"], true);
  EXPECT_TRUE(machine["interrupted_by"].is_null());
  EXPECT_TRUE(machine["load_start"].is_number());
  const int cpus = machine["usable_cpus"].get<int>();
  ASSERT_GE(cpus, 1);

  // DRAM at 1..N threads (every count up to 8), each figure positive.
  const Json& threads = doc["threads"];
  ASSERT_EQ(threads.size(), static_cast<std::size_t>(std::min(cpus, 8)));
  for (const Json& row : threads) {
    for (const char* kernel : {"read_gbps", "copy_gbps", "triad_gbps", "triad_nt_gbps"}) {
      EXPECT_GT(Number(row[kernel]), 0) << kernel << " at " << row["threads"];
    }
  }
  if (threads.size() >= 2) {
    // Two threads move at least 0.8x what one moves (the noise guard's allowance), or the
    // report says the machine was busy (another process took the second core: then no order
    // of the thread counts holds, and the report must say why its figures cannot be trusted).
    bool busy = false;
    for (const Json& f : doc["findings"]) busy = busy || f["code"] == "busy-machine";
    for (const char* kernel : {"read_gbps", "triad_gbps"}) {
      if (Number(threads[1][kernel]) < 0.8 * Number(threads[0][kernel])) {
        EXPECT_TRUE(busy) << kernel << ": 2 threads below 0.8x of 1 on a machine called quiet";
      }
    }
  }
  EXPECT_DOUBLE_EQ(Number(machine["memory_gbps"]), std::max(Number(threads.back()["read_gbps"]),
                                                            Number(threads.back()["triad_gbps"])));

  // The plateaus: DRAM last; a cache level (where hwloc gave one) at least as fast as DRAM.
  const Json& plateaus = doc["plateaus"];
  ASSERT_FALSE(plateaus.empty());
  const Json& dram = plateaus.back();
  EXPECT_EQ(dram["level"], "DRAM");
  // Caches too large for the sweep to leave (what the CPU reports) leave it null, and say so.
  const Json* out_of_reach = Row(doc["unmeasured"], "what", "the sweep's DRAM plateau");
  if (out_of_reach != nullptr) {
    EXPECT_TRUE(dram["read_gbps"].is_null()) << dram;
  } else {
    ASSERT_GT(Number(dram["read_gbps"]), 0) << doc["unmeasured"];
    // A DRAM plateau below a cache the CPU reports (where the bandwidth stopped falling) is
    // said, and one from beyond every cache is not.
    double largest_cache_kib = 0;
    for (const Json& level : plateaus) {
      if (level["cache_kib"].is_number()) {
        largest_cache_kib = std::max(largest_cache_kib, Number(level["cache_kib"]));
      }
    }
    bool said = false;
    for (const Json& f : doc["findings"]) said = said || f["code"] == "dram-below-reported-cache";
    EXPECT_EQ(said, Number(dram["from_kib"]) < largest_cache_kib) << plateaus << doc["findings"];
  }
  if (const Json* l1 = Row(plateaus, "level", "L1")) {
    EXPECT_GE(Number((*l1)["read_gbps"]), Number(dram["read_gbps"]));
    EXPECT_GE(Number((*l1)["triad_gbps"]), Number(dram["triad_gbps"]));
  }
  // The sweep's sizes grow; every point positive.
  const Json& sweep = doc["sweep"];
  ASSERT_GE(sweep.size(), 2u);
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    EXPECT_GT(Number(sweep[i]["read_gbps"]), 0);
    if (i > 0) {
      EXPECT_GT(sweep[i]["working_set_kib"], sweep[i - 1]["working_set_kib"]);
    }
  }

  // Peaks at 1 thread and at N; a unit measured is never also said unmeasurable.
  const Json& peaks = doc["peaks"];
  for (const Json& peak : peaks) {
    EXPECT_GT(Number(peak["gflops"]), 0) << peak;
    const std::string unit = peak["unit"];
    for (const Json& missing : doc["unmeasured"]) {
      EXPECT_EQ(missing["what"].get<std::string>().find(" on " + unit + " ("), std::string::npos)
          << unit;
    }
  }
#if defined(__x86_64__)
  EXPECT_NE(Row(peaks, "unit", "sse"), nullptr);  // every x86-64 CPU runs SSE
#endif
  EXPECT_FALSE(doc["unmeasured"].empty());

  // The profile stored whole under the CPU's key, and shown again as measured.
  const std::vector<std::filesystem::path> stored = Stored();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].string(), machine["profile"]);
  EXPECT_EQ(stored[0].filename().string(),
            "roofline-" + machine["cpu_key"].get<std::string>() + ".json");
  const auto again = testing::RunDlcheck({"roofline", "--from", stored[0], "--format", "json"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const Json shown = Json::parse(again.out);
  EXPECT_EQ(shown["threads"], threads);
  EXPECT_EQ(shown["peaks"], peaks);
  EXPECT_EQ(shown["roofline"]["stored"], false);

  // parse --roofline reads it without measuring again: a log in well under the quick run's time.
  const Clock::time_point parse_start = Clock::now();
  const auto parsed = testing::RunDlcheck(
      {"parse", "--roofline", "--format", "json", testing::DataPath("roofline/matmuls_2.6.3.log")},
      {}, Env());
  const double parse_seconds = std::chrono::duration<double>(Clock::now() - parse_start).count();
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  EXPECT_LT(parse_seconds, 2.0);
  const Json placed = Json::parse(parsed.out);
  ASSERT_EQ(placed["roofline"].size(), 3u);
  const Json* gemv = Row(placed["roofline"], "problem", "1x4096:4096x4096:1x4096");
  ASSERT_NE(gemv, nullptr);
  EXPECT_EQ((*gemv)["bytes_per_call"], (4096 + 4096 * 4096 + 4096) * 4);
}

// A profile with round roofs (tests/data/roofline/round_roofs.json: DRAM 20 GB/s, f32 100
// GFLOP/s) places the crafted log's rows exactly, on any host.
TEST_F(RooflineCli, ParsePlacesTheHotRowsUnderAGivenProfile) {
  const auto r = testing::RunDlcheck({"parse", "--machine-profile",
                                      testing::DataPath("roofline/round_roofs.json"), "--format",
                                      "json", testing::DataPath("roofline/matmuls_2.6.3.log")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc = Json::parse(r.out);
  const Json& rows = doc["roofline"];
  ASSERT_EQ(rows.size(), 3u);
  // The most time first.
  EXPECT_EQ(rows[0]["problem"], "1024x1024:1024x1024:1024x1024");
  const Json* gemv = Row(rows, "problem", "1x4096:4096x4096:1x4096");
  const Json* gemm = Row(rows, "problem", "1024x1024:1024x1024:1024x1024");
  const Json* slow = Row(rows, "problem", "512x512:512x512:512x512");
  ASSERT_TRUE(gemv && gemm && slow);
  EXPECT_EQ((*gemv)["bound"], "memory");
  EXPECT_EQ((*gemv)["dtype"], "f32");
  EXPECT_EQ((*gemv)["bytes_per_call"], 67141632);
  EXPECT_NEAR(Number((*gemv)["intensity"]), 33554432.0 / 67141632.0, 1e-9);
  EXPECT_NEAR(Number((*gemv)["memory_roof_gflops"]), 20 * 33554432.0 / 67141632.0, 1e-9);
  EXPECT_NEAR(Number((*gemv)["roof_fraction"]), 0.8389 / 0.9995, 1e-3);
  EXPECT_EQ((*gemm)["bound"], "compute");
  EXPECT_EQ((*gemm)["peak_gflops"], 100.0);
  EXPECT_NEAR(Number((*gemm)["gflops"]), 2147483648.0 / 0.030 / 1e9, 1e-6);
  EXPECT_NEAR(Number((*gemm)["roof_fraction"]), 0.7158, 1e-4);
  EXPECT_EQ((*slow)["bound"], "compute");
  EXPECT_NEAR(Number((*slow)["roof_fraction"]), 0.0895, 1e-4);
  std::vector<std::string> codes;
  for (const Json& f : doc["findings"]) codes.push_back(f["code"]);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), "memory-bound"), 1);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), "far-below-roof"), 1);
  EXPECT_EQ(std::count(codes.begin(), codes.end(), "roofline-roofs"), 1);
  for (const Json& f : doc["findings"]) {
    if (f["code"] == "far-below-roof") {
      EXPECT_NE(f["message"].get<std::string>().find("matmul 512x512:512x512:512x512"),
                std::string::npos);
    }
    if (f["code"] == "memory-bound") {
      EXPECT_EQ(f["message"],
                "1 of the hot rows is memory-bound (matmul 1x4096:4096x4096:1x4096 at 84% of its "
                "10.0 GFLOP/s memory roof): more threads, AMX or bf16 compute will not help it; "
                "fewer bytes will: int8/bf16 weights, a larger batch");
    }
  }
  // Without the option the table is not there.
  const auto plain = testing::RunDlcheck(
      {"parse", "--format", "json", testing::DataPath("roofline/matmuls_2.6.3.log")});
  ASSERT_EQ(plain.exit_code, 0);
  EXPECT_TRUE(Json::parse(plain.out)["roofline"].is_null());
}

// `whatif` places the log's hot rows as parse does (issue 45: placement in whatif): the same
// rows, bounds and bytes under the round roofs, beside its measurements; without a stored
// profile, --roofline ends it with status 3 before anything is measured.
TEST_F(RooflineCli, WhatifPlacesTheLogsHotRowsAsParseDoes) {
  const std::string profile = testing::DataPath("roofline/round_roofs.json");
  const std::string log = testing::DataPath("roofline/matmuls_2.6.3.log");
  const auto whatif = testing::RunDlcheck({"whatif", "--machine-profile", profile, "--variants",
                                           "none", "--time", "0", "--format", "json", log});
  ASSERT_EQ(whatif.exit_code, 0) << whatif.err;
  const auto parse =
      testing::RunDlcheck({"parse", "--machine-profile", profile, "--format", "json", log});
  ASSERT_EQ(parse.exit_code, 0) << parse.err;
  const Json placed = Json::parse(whatif.out)["roofline"];
  const Json expected = Json::parse(parse.out)["roofline"];
  ASSERT_EQ(placed.size(), 3u) << placed;
  ASSERT_EQ(placed.size(), expected.size());
  for (std::size_t i = 0; i < placed.size(); ++i) {
    EXPECT_EQ(placed[i]["problem"], expected[i]["problem"]);
    EXPECT_EQ(placed[i]["bound"], expected[i]["bound"]);
    EXPECT_EQ(placed[i]["bytes_per_call"], expected[i]["bytes_per_call"]);
  }
  const auto none = testing::RunDlcheck(
      {"whatif", "--roofline", "--variants", "none", "--time", "0", log}, {}, Env());
  EXPECT_EQ(none.exit_code, 3) << none.err;
  EXPECT_NE(none.err.find("dlcheck roofline"), std::string::npos) << none.err;
}

// `run` and `verbose` place their hot rows as parse does (issue 45: every report with rows on
// it): the model's inner products and a program's (dlcheck's own worker, run as a program) under
// the recorded round roofs; each placed row is one of the report's primitives, with its bound and
// a positive fraction. Without a stored profile, nothing runs: status 3 before the program.
TEST_F(RooflineCli, RunAndVerbosePlaceTheirHotRows) {
  const std::string profile = testing::DataPath("roofline/round_roofs.json");
  const std::vector<std::string> model = {"--model", "mlp",      "--iters", "2",       "--warmup",
                                          "0",       "--traced", "1",       "--batch", "16"};
  std::vector<std::string> verbose = {"verbose", "--machine-profile", profile, "-f", "json"};
  verbose.insert(verbose.end(), model.begin(), model.end());
  std::vector<std::string> run = {"run", "--machine-profile", profile, "-f", "json",
                                  "--",  DLCHECK_BINARY,      "worker"};
  run.insert(run.end(), model.begin(), model.end());
  for (const auto& args : {verbose, run}) {
    SCOPED_TRACE(args.front());
    const auto r = testing::RunDlcheck(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json doc = Json::parse(r.out);
    const Json& rows = doc["roofline"];
    ASSERT_FALSE(rows.empty()) << r.out;  // the MLP's inner products
    for (const Json& row : rows) {
      EXPECT_TRUE(Row(doc["primitives"], "problem", row["problem"].get<std::string>()) != nullptr)
          << row;
      EXPECT_TRUE(row["bound"] == "memory" || row["bound"] == "compute") << row;
      EXPECT_GT(Number(row["roof_fraction"]), 0) << row;
      EXPECT_GT(row["bytes_per_call"].get<std::int64_t>(), 0) << row;
    }
    bool roofs = false;
    for (const Json& f : doc["findings"]) roofs = roofs || f["code"] == "roofline-roofs";
    EXPECT_TRUE(roofs);
  }
  const std::filesystem::path ran = dir_ / "ran";
  const auto none = testing::RunDlcheck(
      {"run", "--roofline", "--", "/bin/sh", "-c", "touch " + ran.string()}, {}, Env());
  EXPECT_EQ(none.exit_code, 3) << none.err;
  EXPECT_FALSE(std::filesystem::exists(ran));  // refused before the program ran
}

TEST_F(RooflineCli, ErrorsSayWhatToDo) {
  const auto none = testing::RunDlcheck(
      {"parse", "--roofline", testing::DataPath("roofline/matmuls_2.6.3.log")}, {}, Env());
  EXPECT_EQ(none.exit_code, 3);
  EXPECT_EQ(none.err, "dlcheck: no machine profile of this CPU in " + Cache() +
                          "/dlcheck: run 'dlcheck roofline' once to measure it, or give one: "
                          "--machine-profile FILE\n");
  const auto events = testing::RunDlcheck({"parse", "--events", "--machine-profile",
                                           testing::DataPath("roofline/round_roofs.json"),
                                           testing::DataPath("roofline/matmuls_2.6.3.log")});
  EXPECT_EQ(events.exit_code, 2);
  const auto missing = testing::RunDlcheck({"roofline", "--from", (dir_ / "none.json").string()});
  EXPECT_EQ(missing.exit_code, 3);
  EXPECT_EQ(missing.err.rfind("dlcheck: ", 0), 0u) << missing.err;
  const auto broken = testing::RunDlcheck({"roofline", "--from", Write("b.json", "[1, 2]")});
  EXPECT_EQ(broken.exit_code, 3);
  EXPECT_EQ(broken.err, "dlcheck: '" + (dir_ / "b.json").string() +
                            "' is not a machine profile (not a JSON object): run 'dlcheck "
                            "roofline' to measure this machine again\n");
  const auto both = testing::RunDlcheck(
      {"roofline", "--quick", "--from", testing::DataPath("roofline/round_roofs.json")});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_EQ(both.err,
            "dlcheck: --from shows a stored profile and measures nothing: leave out --quick and "
            "--no-store\n");
}

TEST_F(RooflineCli, SigintEndsTheMeasurementsWithAPartialReportAndStoresNothing) {
  setenv("XDG_CACHE_HOME", Cache().c_str(), 1);
  const std::string out = (dir_ / "out.json").string();
  const std::string err = (dir_ / "err.txt").string();
  const pid_t dlcheck = testing::StartDlcheck({"roofline", "--format", "json"}, out, err);
  unsetenv("XDG_CACHE_HOME");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const Clock::time_point signalled = Clock::now();
  kill(dlcheck, SIGINT);
  int status = 0;
  waitpid(dlcheck, &status, 0);
  const double seconds = std::chrono::duration<double>(Clock::now() - signalled).count();
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGINT) << testing::ReadFile(err);
  // One measurement at most finishes: under a second and a half even for the DRAM set.
  EXPECT_LT(seconds, 1.5);
  const Json doc = Json::parse(testing::ReadFile(out));
  EXPECT_EQ(doc["roofline"]["interrupted_by"], "SIGINT");
  EXPECT_EQ(doc["roofline"]["stored"], false);
  EXPECT_TRUE(Stored().empty());
}

}  // namespace
}  // namespace dlcheck
