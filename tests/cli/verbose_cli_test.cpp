// SPDX-License-Identifier: Apache-2.0
// `dlcheck verbose` end to end: the real worker, real oneDNN, the real parser. Invariants only:
// which primitives each layer runs is fixed by the model; which implementation oneDNN picks is
// the host's business and is not asserted.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "common/exit_code.h"
#include "support/run_dlcheck.h"
#include "support/trace_rules.h"

namespace dlcheck {
namespace {

using Json = nlohmann::json;
using testing::RunDlcheck;

constexpr int kTraced = 2;

// A short run: what matters is the traced steps.
std::vector<std::string> Args(std::vector<std::string> extra) {
  std::vector<std::string> args = {
      "verbose",   "--iters", "1",        "--warmup", "0", "--traced", std::to_string(kTraced),
      "--threads", "1",       "--format", "json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

Json RunJson(const std::vector<std::string>& extra, int expected_exit = 0) {
  const auto r = RunDlcheck(Args(extra));
  EXPECT_EQ(r.exit_code, expected_exit) << r.err;
  return Json::parse(r.out);
}

using Key = std::tuple<std::string, std::string, std::string>;  // layer, primitive, prop_kind

// Layer -> the compute primitives one training step runs in it (reorders aside), each once.
// Trainable layers also run two SGD updates (weights, bias), as binary adds.
std::multiset<Key> Expected(const std::vector<std::tuple<std::string, std::string, bool>>& layers) {
  std::multiset<Key> keys;
  for (const auto& [layer, kind, first] : layers) {
    if (kind == "inner_product" || kind == "convolution") {
      keys.insert({layer, kind, "forward_training"});
      if (!first) keys.insert({layer, kind, "backward_data"});
      keys.insert({layer, kind, "backward_weights"});
      keys.insert({layer, "binary", "undef"});
      keys.insert({layer, "binary", "undef"});
    } else if (kind == "loss") {
      keys.insert({layer, "softmax_v2", "forward_training"});
      keys.insert({layer, "softmax_v2", "backward_data"});
    } else {
      keys.insert({layer, kind, "forward_training"});
      keys.insert({layer, kind, "backward_data"});
    }
  }
  return keys;
}

const std::multiset<Key> kMlp = Expected({{"fc1", "inner_product", true},
                                          {"relu1", "eltwise", false},
                                          {"fc2", "inner_product", false},
                                          {"relu2", "eltwise", false},
                                          {"fc3", "inner_product", false},
                                          {"loss", "loss", false}});
const std::multiset<Key> kCnn = Expected({{"conv1", "convolution", true},
                                          {"relu1", "eltwise", false},
                                          {"pool1", "pooling_v2", false},
                                          {"conv2", "convolution", false},
                                          {"relu2", "eltwise", false},
                                          {"pool2", "pooling_v2", false},
                                          {"fc1", "inner_product", false},
                                          {"relu3", "eltwise", false},
                                          {"fc2", "inner_product", false},
                                          {"loss", "loss", false}});

// Every compute primitive ran once per traced step; reorders a whole number of times per step.
void ExpectTracedStep(const Json& doc, const std::multiset<Key>& expected) {
  std::multiset<Key> compute;
  for (const auto& row : doc["primitives"]) {
    ASSERT_TRUE(row["layer"].is_string()) << row.dump();
    const Key key{row["layer"], row["primitive"], row["prop_kind"]};
    if (row["primitive"] == "reorder") {
      EXPECT_GT(row["execs"].get<int>(), 0) << row.dump();
      EXPECT_EQ(row["execs"].get<int>() % kTraced, 0) << row.dump();
      continue;
    }
    compute.insert(key);
    EXPECT_EQ(row["execs"], kTraced) << row.dump();
    EXPECT_GE(row["creates"].get<int>(), 1) << row.dump();
  }
  EXPECT_EQ(compute, expected);
}

TEST(VerboseCliTest, MlpTracedStepsHoldExactlyTheModelsPrimitives) {
  const Json doc = RunJson({"--model", "mlp", "--batch", "16"});
  EXPECT_EQ(doc["command"], "verbose");
  EXPECT_EQ(doc["run"]["model"], "mlp");
  EXPECT_EQ(doc["run"]["traced_iters"], kTraced);
  EXPECT_EQ(doc["run"]["worker"], "ok");
  ExpectTracedStep(doc, kMlp);
}

TEST(VerboseCliTest, CnnTracedStepsHoldExactlyTheModelsPrimitives) {
  const Json doc = RunJson({"--model", "cnn", "--batch", "4"});
  ExpectTracedStep(doc, kCnn);
}

TEST(VerboseCliTest, ScalarBackendReportsTheSameShapeAllScalar) {
  const Json doc = RunJson({"--model", "mlp", "--batch", "8", "--backend", "scalar"});
  EXPECT_EQ(doc["run"]["backend"], "scalar");
  ExpectTracedStep(doc, kMlp);
  for (const auto& row : doc["primitives"]) {
    EXPECT_EQ(row["implementation"], "dlcheck:scalar") << row.dump();
    EXPECT_EQ(row["fallback"], "scalar") << row.dump();
  }
}

TEST(VerboseCliTest, OneDnnAgreesWithTheScalarReferenceAndCountsAddUp) {
  const Json doc = RunJson({"--model", "mlp", "--batch", "32"});
  const Json& run = doc["run"];
  ASSERT_TRUE(run["max_deviation"].is_number()) << run.dump();
  EXPECT_LE(run["max_deviation"].get<double>(), run["tolerance"].get<double>());
  EXPECT_GT(run["samples_per_s"].get<double>(), 0);
  std::uint64_t execs = 0, creates = 0;
  for (const auto& row : doc["primitives"]) {
    execs += row["execs"].get<std::uint64_t>();
    creates += row["creates"].get<std::uint64_t>();
  }
  EXPECT_EQ(execs, doc["summary"]["execs"].get<std::uint64_t>());
  EXPECT_EQ(creates, doc["summary"]["creates"].get<std::uint64_t>());
  EXPECT_EQ(doc["summary"]["execs"].get<std::uint64_t>() % kTraced, 0u);
}

// The worker's lines go through the same log session as `parse`: the input section accounts for
// every one of them, and its events are the rows' creates and execs plus the diagnostics.
TEST(VerboseCliTest, InputSectionAccountsForTheWorkersVerboseLines) {
  const Json doc = RunJson({"--model", "mlp", "--batch", "8"});
  const Json& input = doc["input"];
  ASSERT_TRUE(input.is_object()) << doc.dump();
  EXPECT_FALSE(input.contains("files"));
  const auto events = input["events"].get<std::uint64_t>();
  EXPECT_GT(events, 0u);
  EXPECT_EQ(input["lines"].get<std::uint64_t>(), events + input["info_lines"].get<std::uint64_t>() +
                                                     input["skipped"].get<std::uint64_t>());
  std::uint64_t skipped = 0;
  for (const auto& [reason, count] : input["skipped_by_reason"].items()) {
    skipped += count.get<std::uint64_t>();
  }
  EXPECT_EQ(skipped, input["skipped"].get<std::uint64_t>());
  EXPECT_EQ(events, doc["summary"]["creates"].get<std::uint64_t>() +
                        doc["summary"]["execs"].get<std::uint64_t>() +
                        doc["summary"]["diagnostics"].get<std::uint64_t>());
}

// The trace loads in DevTools (names, bounds, no negative duration) and holds one event per
// traced execution, in the worker's process, a lane (thread) per layer named after it, at
// microseconds since the worker started (baseTimeNanoseconds, the JSON's started_unix_s): every
// event lies between that start and now, on the epoch clock.
TEST(VerboseCliTest, TraceHasOneEventPerTracedExecution) {
  const auto before = std::chrono::system_clock::now();
  const auto r = RunDlcheck({"verbose", "--iters", "1", "--warmup", "0", "--traced", "2", "--batch",
                             "8", "--format", "trace"});
  const auto after = std::chrono::system_clock::now();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json trace = Json::parse(r.out);
  const Json doc = RunJson({"--batch", "8"});
  const std::vector<Json> events = testing::ExpectDevToolsTrace(trace);
  EXPECT_EQ(events.size(), doc["summary"]["execs"].get<std::size_t>());
  ASSERT_TRUE(trace["baseTimeNanoseconds"].is_number_integer()) << trace.dump().substr(0, 400);
  const double base_us = trace["baseTimeNanoseconds"].get<double>() / 1e3;
  const auto epoch_us = [](std::chrono::system_clock::time_point t) {
    return std::chrono::duration<double, std::micro>(t.time_since_epoch()).count();
  };
  EXPECT_GE(base_us, epoch_us(before));
  double previous = -1;
  std::map<std::string, std::int64_t> lane_of_layer;
  for (const auto& e : events) {
    EXPECT_LE(base_us + e["ts"].get<double>(), epoch_us(after)) << e.dump();
    EXPECT_GE(e["ts"].get<double>(), previous) << "events are in execution order";
    previous = e["ts"].get<double>();
    ASSERT_TRUE(e["args"]["layer"].is_string()) << e.dump();
    EXPECT_NE(e["pid"], 1) << "the worker's own process id: " << e.dump();
    const auto [at, added] =
        lane_of_layer.emplace(e["args"]["layer"].get<std::string>(), e["tid"].get<std::int64_t>());
    EXPECT_EQ(at->second, e["tid"].get<std::int64_t>()) << "one lane per layer: " << e.dump();
  }
  std::set<std::int64_t> lanes;
  for (const auto& [layer, lane] : lane_of_layer) lanes.insert(lane);
  EXPECT_EQ(lanes.size(), lane_of_layer.size()) << "each layer its own lane";
  for (const auto& m : trace["traceEvents"]) {
    if (m["name"] != "thread_name") continue;
    EXPECT_EQ(m["args"]["name"].get<std::string>().rfind("layer ", 0), 0u) << m.dump();
  }
}

// The timeline is part of the report, not of one format: JSON carries it, one row per traced
// execution, as `--format trace` does.
TEST(VerboseCliTest, JsonCarriesTheTimeline) {
  const Json doc = RunJson({"--batch", "8"});
  ASSERT_TRUE(doc["trace"].is_array()) << doc.dump();
  EXPECT_EQ(doc["trace"].size(), doc["summary"]["execs"].get<std::size_t>());
  double previous = -1;
  for (const auto& row : doc["trace"]) {
    EXPECT_TRUE(row["name"].is_string()) << row.dump();
    EXPECT_TRUE(row["layer"].is_string()) << row.dump();
    EXPECT_GE(row["dur_us"].get<double>(), 0) << row.dump();
    EXPECT_GE(row["ts_us"].get<double>(), previous) << "rows are in execution order";
    previous = row["ts_us"].get<double>();
  }
}

TEST(VerboseCliTest, RawLogParsesToTheSameCounts) {
  const std::string path = ::testing::TempDir() + "/dlcheck_raw.log";
  const Json doc = RunJson({"--batch", "8", "--raw-log", path});
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::string line;
  std::size_t lines = 0;
  while (std::getline(in, line)) {
    ++lines;
    EXPECT_EQ(line.rfind("onednn_verbose,", 0), 0u) << line;
  }
  EXPECT_GT(lines, 0u);
  const auto parsed = RunDlcheck({"parse", "--format", "json", path});
  ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
  const Json p = Json::parse(parsed.out);
  EXPECT_EQ(p["summary"]["execs"], doc["summary"]["execs"]);
  EXPECT_EQ(p["summary"]["creates"], doc["summary"]["creates"]);
  std::remove(path.c_str());
}

TEST(VerboseCliTest, AKilledWorkerIsReportedWithItsSignal) {
  const auto r = RunDlcheck(Args({"--batch", "8"}), {}, {"DLCHECK_WORKER_FAULT=traced"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kWorkerFailed));
  EXPECT_NE(r.err.find("dlcheck: the model worker was killed by signal 4 (SIGILL)\n"),
            std::string::npos)
      << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["run"]["worker"], "was killed by signal 4 (SIGILL)");
  EXPECT_GT(doc["summary"]["creates"].get<int>(), 0) << "what it did before is kept";
  EXPECT_EQ(doc["summary"]["execs"], 0);
  EXPECT_TRUE(doc["run"]["samples_per_s"].is_number()) << "the timed phase had finished";
  bool found = false;
  for (const auto& f : doc["findings"]) {
    EXPECT_NE(f["code"], "no-exec") << "the parser's guess must give way to the known cause";
    if (f["code"] == "worker-failed") {
      found = true;
      EXPECT_EQ(f["message"],
                "the model worker was killed by signal 4 (SIGILL) in phase traced; the report "
                "holds what it did before");
    }
  }
  EXPECT_TRUE(found) << doc["findings"].dump();
}

TEST(VerboseCliTest, AHangingWorkerIsKilledAtTheTimeout) {
  // The worker hangs when it reaches the timed phase (after creating every primitive), so the
  // timeout always finds creation lines to keep, however slow the machine (ASan, load).
  const auto r =
      RunDlcheck({"verbose", "--batch", "8", "--warmup", "0", "--timeout", "3", "--format", "json"},
                 "", {"DLCHECK_WORKER_HANG=timed"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kWorkerFailed));
  EXPECT_NE(r.err.find("dlcheck: the model worker timed out after 3 s and was killed\n"),
            std::string::npos)
      << r.err;
  const Json doc = Json::parse(r.out);
  EXPECT_EQ(doc["run"]["worker"], "timed out after 3 s and was killed");
  EXPECT_GT(doc["summary"]["creates"].get<int>(), 0);
}

TEST(VerboseCliTest, Bf16RunsOnOneDnnOrSaysWhyNot) {
  const Json doc = RunJson({"--batch", "16", "--dtype", "bf16"});
  if (doc["run"]["backend"] == "onednn") {
    bool bf16 = false;
    for (const auto& row : doc["primitives"]) {
      bf16 = bf16 || row["data_types"].get<std::string>().find("bf16") != std::string::npos;
    }
    EXPECT_TRUE(bf16) << "a bf16 run on oneDNN must show bf16 tensors";
    EXPECT_LE(doc["run"]["max_deviation"].get<double>(), doc["run"]["tolerance"].get<double>());
  } else {
    bool said = false;
    for (const auto& f : doc["findings"]) said = said || f["code"] == "model-fallback";
    EXPECT_TRUE(said) << doc["findings"].dump();
  }
}

TEST(VerboseCliTest, AMissingDataDirectoryIsAnInputError) {
  const auto r = RunDlcheck({"verbose", "--data", "/nonexistent/fashion"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(r.err,
            "dlcheck: no train-images-idx3-ubyte[.gz] in /nonexistent/fashion (--data needs an "
            "MNIST-format directory)\n");
  EXPECT_TRUE(r.out.empty());
}

TEST(VerboseCliTest, ABadModelIsAUsageError) {
  const auto r = RunDlcheck({"verbose", "--layers", "128,64,9"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err, "dlcheck: --layers must end with 10, the number of classes\n");
}

TEST(VerboseCliTest, CsvHasTheContractColumnsThenLayer) {
  const auto r = RunDlcheck({"verbose", "--iters", "1", "--warmup", "0", "--traced", "1", "--batch",
                             "8", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "") << "progress goes to a terminal only";
  const std::string header = r.out.substr(0, r.out.find("\r\n"));
  EXPECT_EQ(header,
            "engine,primitive,implementation,isa,isa_source,fallback,prop_kind,data_types,"
            "layouts,attributes,auxiliary,problem,creates,cache_hits,create_ms,nested_creates,"
            "nested_create_ms,execs,exec_ms_total,exec_ms_mean,exec_ms_min,exec_ms_max,"
            "time_pct,gflops,benchdnn,skipped,library,layer");
}

}  // namespace
}  // namespace dlcheck

namespace dlcheck {
namespace {

// The one rule for durations (cli/model_options.h Seconds): 1e10 seconds overflowed std::chrono.
TEST(VerboseCliTest, ATimeoutThatIsNotAFiniteNumberAboveZeroIsAShortUsageError) {
  for (const std::string bad : {"nan", "inf", "0", "-5", "x", "1e10", "2592001"}) {
    for (const char* command : {"verbose", "dispatch"}) {
      const auto r = RunDlcheck({command, "--timeout", bad});
      EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage)) << command << " " << bad;
      EXPECT_EQ(r.err, "dlcheck: " + std::string(command) + ": --timeout: '" + bad +
                           "' is not a number of seconds above 0 and at most 2592000 (30 days) "
                           "(see 'dlcheck " +
                           command + " --help')\n")
          << command;
    }
  }
}

TEST(VerboseCliTest, AThreadCountBeyondTheMachineIsCappedWithAFinding) {
  const auto r = RunDlcheck({"verbose", "--model", "mlp", "--iters", "2", "--warmup", "0",
                             "--traced", "1", "--format", "json"},
                            {}, {"OMP_NUM_THREADS=100000"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["run"]["threads_from"], "OMP_NUM_THREADS");
  EXPECT_LT(j["run"]["threads"].get<int>(), 100000);
  EXPECT_GE(j["run"]["threads"].get<int>(), 1);
  bool capped = false;
  for (const auto& f : j["findings"]) capped |= f["code"] == "threads-capped";
  EXPECT_TRUE(capped) << j["findings"];
}

TEST(VerboseCliTest, TheNoiseGuardIsPartOfTheReport) {
  const auto r = RunDlcheck({"verbose", "--model", "mlp", "--iters", "10", "--warmup", "0",
                             "--traced", "1", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json run = nlohmann::json::parse(r.out)["run"];
  EXPECT_GE(run["load_start"].get<double>(), 0.0);  // Linux: /proc/loadavg is always there
  EXPECT_GE(run["load_end"].get<double>(), 0.0);
  const double low = run["samples_per_s_min"], high = run["samples_per_s_max"];
  EXPECT_LE(low, high);
  EXPECT_GT(low, 0.0);
  EXPECT_GE(run["spread_pct"].get<double>(), 0.0);
  EXPECT_FALSE(run["threads_from"].get<std::string>().empty());
}

}  // namespace
}  // namespace dlcheck
