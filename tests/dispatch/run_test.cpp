// SPDX-License-Identifier: Apache-2.0
// What one run says (dispatch::RunFindings) and the noise guard (dispatch::NoiseFindings), on
// hand-built runs: the findings of `verbose` and `run`, decided beside the run record.
#include "dispatch/run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <cstdlib>
#include <string>
#include <vector>

#include "detect/binding.h"
#include "dispatch/capture.h"
#include "dispatch/noise.h"
#include "support/finding_codes.h"

namespace dlcheck::dispatch {
namespace {

using testing::Codes;

dispatch::Run ModelRun() {
  dispatch::Run run;
  run.outcome = os::Outcome{.exited = true, .exit_code = 0};
  run.verbose_lines = 40;
  run.model.emplace().results.max_deviation = 1e-7;
  run.model->results.tolerance = 1e-4;
  return run;
}

TEST(RunFindingsTest, AHealthyModelRunSaysNothing) {
  EXPECT_TRUE(RunFindings(ModelRun(), "the model worker").empty());
}

TEST(RunFindingsTest, TheModelsFallbacksAndDeviationAreNamed) {
  dispatch::Run run = ModelRun();
  run.model->fallbacks = {{"fc1", "no bf16 here"}, {"fc2", "no bf16 here"}};
  run.model->results.max_deviation = 0.5;
  run.model->results.deviation_tensor = "fc2.weights";
  const std::vector<Finding> findings = RunFindings(run, "the model worker");
  ASSERT_EQ(Codes(findings), (std::vector<std::string>{"model-fallback", "deviation"}));
  EXPECT_EQ(findings[0].message,
            "oneDNN could not run this model here, so dlcheck's scalar kernels ran it (layers "
            "fc1, fc2): no bf16 here");
  EXPECT_EQ(findings[1].severity, Severity::kError);
  EXPECT_NE(findings[1].message.find("largest deviation 0.5 (in fc2.weights)"), std::string::npos)
      << findings[1].message;
}

TEST(RunFindingsTest, ANanDeviationDisagrees) {
  WorkerResults results{.max_deviation = std::nan(""), .tolerance = 1e-4};
  EXPECT_TRUE(Deviates(results));
  results.max_deviation = 1e-4;
  EXPECT_FALSE(Deviates(results)) << "at the tolerance: agrees";
  results.tolerance.reset();
  EXPECT_FALSE(Deviates(results)) << "no tolerance reported: nothing to judge";
}

TEST(RunFindingsTest, AStoppedWorkerIsInterruptedNotFailed) {
  dispatch::Run run = ModelRun();
  run.outcome = os::Outcome{.signaled = true, .signal = SIGINT, .interrupted = SIGINT};
  EXPECT_EQ(Codes(RunFindings(run, "the model worker")), std::vector<std::string>{"interrupted"});
  run.outcome.interrupted = 0;
  run.model->last_phase = "timed";
  const std::vector<Finding> crashed = RunFindings(run, "the model worker");
  ASSERT_EQ(Codes(crashed), std::vector<std::string>{"worker-failed"});
  EXPECT_EQ(crashed[0].message,
            "the model worker was killed by signal 2 (SIGINT) in phase timed; the report holds "
            "what it did before");
}

TEST(RunFindingsTest, AProgramIsNamedForItsSilenceItsSignalAndItsCappedTimeline) {
  dispatch::Run run;
  run.outcome = os::Outcome{.signaled = true, .signal = SIGSEGV};
  run.timeline_dropped = 7;
  run.execs.resize(3);
  std::vector<Finding> findings = RunFindings(run, "train.py");
  ASSERT_EQ(Codes(findings), (std::vector<std::string>{"timeline-capped", "program-ended-early"}));
  EXPECT_EQ(findings[0].message,
            "the timeline keeps the first 3 executions; 7 later ones are in the totals but not "
            "in the timeline");
  EXPECT_EQ(findings[1].message.rfind("train.py was killed by signal 11 (SIGSEGV) before oneDNN "
                                      "printed anything",
                                      0),
            0u);
  // Killed after oneDNN spoke: the signal is said as such.
  run.verbose_lines = 4;
  run.summary.execs = 1;
  findings = RunFindings(run, "train.py");
  ASSERT_EQ(Codes(findings), (std::vector<std::string>{"timeline-capped", "program-signaled"}));
  EXPECT_EQ(findings[1].message,
            "train.py was killed by signal 11 (SIGSEGV); the report holds what it printed before");
  // Ended well without a verbose line: oneDNN was never loaded, or never used.
  run = dispatch::Run{};
  run.outcome = os::Outcome{.exited = true};
  findings = RunFindings(run, "train.py");
  ASSERT_EQ(Codes(findings), std::vector<std::string>{"onednn-not-loaded"});
  EXPECT_EQ(findings[0].message.rfind("train.py ended well but printed no oneDNN verbose line", 0),
            0u);
  run.verbose_lines = 1;
  run.outcome = os::Outcome{.exited = true, .exit_code = 3};
  EXPECT_TRUE(RunFindings(run, "train.py").empty()) << "its exit status is the command's own";
}

TEST(RunFindingsTest, OnlyDiagnosticsMeanOneDnnRefusedWhatItWasAsked) {
  dispatch::Run run;
  run.outcome = os::Outcome{.exited = true, .exit_code = 1};
  run.verbose_lines = 2;
  run.diagnostics.push_back({.operation = "create:check",
                             .primitive = "matmul",
                             .message = "dimension src:1 is inconsistent with weights:0",
                             .count = 2});
  const std::vector<Finding> findings = RunFindings(run, "train.py");
  ASSERT_EQ(Codes(findings), std::vector<std::string>{"onednn-errors-only"});
  EXPECT_EQ(findings[0].severity, Severity::kError);
  EXPECT_EQ(findings[0].message,
            "train.py's oneDNN created no primitive and printed only diagnostics: it refused what "
            "it was asked (create:check matmul: dimension src:1 is inconsistent with weights:0 "
            "(x2)); then the program exited with status 1");
}

TEST(RunFindingsTest, TimeOutsideOneDnnBelowHalfOfWallTime) {
  dispatch::Run run;
  run.outcome = os::Outcome{.exited = true, .wall_s = 2.0};
  run.verbose_lines = 10;
  run.summary.execs = 5;
  run.summary.exec_ms = 900;  // 45 % of 2 s
  ASSERT_EQ(Codes(RunFindings(run, "train.py")), std::vector<std::string>{"time-outside-onednn"});
  EXPECT_EQ(RunFindings(run, "train.py")[0].message,
            "oneDNN's primitives ran 45.0% of train.py's 2.00 s wall time: the rest is outside "
            "them (start-up and imports, the framework, other libraries, waiting); run `dlcheck "
            "profile -- train.py ...` to see where");
  run.summary.exec_ms = 1000;  // half: enough
  EXPECT_TRUE(RunFindings(run, "train.py").empty());
  EXPECT_DOUBLE_EQ(*ExecPctOfWall(run), 50.0);
  run.outcome.wall_s = 0;
  EXPECT_FALSE(ExecPctOfWall(run));
}

// ZenDNN's three logs are switched on beside oneDNN's; a variable the user set is kept.
TEST(VerboseRequestTest, ZendnnLoggingIsAddedWhereTheUserSetNone) {
  const auto names = [](const std::vector<std::pair<std::string, std::string>>& env) {
    std::vector<std::string> found;
    for (const auto& [name, value] : env) found.push_back(name + "=" + value);
    return found;
  };
  EXPECT_EQ(names(EngineLogEnvironment([](const char*) { return nullptr; })),
            (std::vector<std::string>{"ZENDNN_VERBOSE=2", "ZENDNN_PRIMITIVE_LOG_ENABLE=1",
                                      "ZENDNNL_ENABLE_PROFILER=1", "ZENDNNL_PROFILE_LOG_LEVEL=4"}));
  EXPECT_EQ(names(EngineLogEnvironment([](const char* name) {
              return std::string_view(name) == "ZENDNNL_PROFILE_LOG_LEVEL" ? "1" : nullptr;
            })),
            (std::vector<std::string>{"ZENDNN_VERBOSE=2", "ZENDNN_PRIMITIVE_LOG_ENABLE=1",
                                      "ZENDNNL_ENABLE_PROFILER=1"}));
}

TEST(VerboseRequestTest, WhatEachOneDnnGenerationReads) {
  // dlcheck's request: 2.x and 3.0-3.1 read `2,dispatch` through atoi (2); 3.2+ splits it.
  const VerboseRequest ours = ChooseVerboseRequest([](const char*) { return nullptr; });
  EXPECT_FALSE(ours.from_user);
  EXPECT_EQ(ours.Text(), "ONEDNN_VERBOSE=2,dispatch DNNL_VERBOSE=2 MKLDNN_VERBOSE=2");
  EXPECT_EQ(ours.OneDnn2Level(), 2);
  EXPECT_TRUE(ours.OneDnn3().profile);
  EXPECT_TRUE(ours.OneDnn3().dispatch);
  // A user's value is kept, alone.
  const VerboseRequest all = ChooseVerboseRequest([](const char* name) {
    return std::string_view(name) == "ONEDNN_VERBOSE" ? "all" : nullptr;
  });
  EXPECT_TRUE(all.from_user);
  EXPECT_EQ(all.Text(), "ONEDNN_VERBOSE=all");
  EXPECT_EQ(all.OneDnn2Level(), 0) << "2.x: atoi(\"all\") is 0, verbose off";
  EXPECT_TRUE(all.OneDnn3().profile && all.OneDnn3().dispatch);
  // 12 characters or more: 2.x does not see ONEDNN_VERBOSE and reads DNNL_VERBOSE.
  const VerboseRequest longer{
      .variables = {{"ONEDNN_VERBOSE", "profile_exec,dispatch"}, {"DNNL_VERBOSE", "1"}},
      .from_user = true};
  EXPECT_EQ(longer.OneDnn2Level(), 1);
  EXPECT_TRUE(longer.OneDnn3().profile && longer.OneDnn3().dispatch);
  const VerboseRequest none{.variables = {{"ONEDNN_VERBOSE", "2,none"}}, .from_user = true};
  EXPECT_EQ(none.OneDnn2Level(), 2);
  EXPECT_FALSE(none.OneDnn3().profile) << "3.2+: `none` clears what came before it";
  // The findings: a kept value oneDNN reads as off is a warning.
  dispatch::Run run;
  run.outcome = os::Outcome{.exited = true};
  run.verbose_request = all;
  const std::vector<Finding> findings = RunFindings(run, "train.py");
  ASSERT_EQ(Codes(findings), std::vector<std::string>{"verbose-setting-kept"});
  EXPECT_EQ(findings[0].severity, Severity::kWarning);
  EXPECT_EQ(findings[0].message,
            "ONEDNN_VERBOSE=all was set before dlcheck ran and was kept (oneDNN 2.x and 3.0-3.1 "
            "read it as an integer (the first 11 characters, through atoi: `all` is 0) and print "
            "nothing; dlcheck asks for ONEDNN_VERBOSE=2,dispatch DNNL_VERBOSE=2 MKLDNN_VERBOSE=2 "
            "only when none of ONEDNN_VERBOSE, DNNL_VERBOSE, MKLDNN_VERBOSE is set: unset them to "
            "get every generation's lines and the dispatch reasons)");
}

TEST(NoiseFindingsTest, ACappedCountAndABusyMachineAreSaid) {
  EXPECT_TRUE(
      NoiseFindings({.threads = 4}, LoadAverage{.one = 0.5}, LoadAverage{.one = 0.9}).empty());
  const std::vector<Finding> findings =
      NoiseFindings({.threads = 2, .from = "--threads", .capped = "--threads 64"},
                    LoadAverage{.one = 0.2}, LoadAverage{.one = 1.5});
  ASSERT_EQ(Codes(findings), (std::vector<std::string>{"threads-capped", "busy-machine"}));
  EXPECT_EQ(findings[0].message.rfind("--threads 64 asked, but this process may use 2 CPUs", 0),
            0u);
  EXPECT_EQ(findings[1].message.rfind("the machine was busy (load average 0.20 at the start, "
                                      "1.50 at the end)",
                                      0),
            0u);
  EXPECT_TRUE(NoiseFindings({}, std::nullopt, std::nullopt).empty()) << "no load average: no word";
}

// A compute row of `ms` at `isa` (3.5+ names: avx10_1_512 is avx512_core_fp16).
verbose::PrimitiveStats ComputeAt(std::string isa, double ms) {
  verbose::PrimitiveStats row;
  row.engine = "cpu";
  row.primitive = "convolution";
  row.implementation = "brg_conv_fwd:" + isa;
  row.isa = std::move(isa);
  row.execs = 10;
  row.exec_ms_total = ms;
  return row;
}

// Issue 33: a oneDNN 3.x log's ISA column is held to the host's oneDNN 3.x level, not 2.6's.
TEST(BelowHostIsaTest, AOneDnn3LogBelowTheHostsOneDnn3LevelSaysSo) {
  dispatch::Run run;
  run.header.library_version = "oneDNN v3.7.1 (commit 8d263e693366ef8db40acc569cc7d8edf644556d)";
  run.rows = {ComputeAt("avx10_1_512", 30), ComputeAt("avx2", 10)};
  const std::optional<Finding> below = BelowHostIsaFinding(run, "avx512_core_fp16");
  ASSERT_TRUE(below);
  EXPECT_EQ(below->code, "below-host-isa");
  EXPECT_EQ(below->message,
            "1 compute primitive row(s) of this oneDNN 3.x log (25.0% of the compute time) ran "
            "below avx512_core_fp16, the level oneDNN 3.x dispatches on this CPU (lowest avx2): "
            "ONEDNN_MAX_CPU_ISA or the program capped it, or oneDNN has no kernel at that level "
            "for their data type or shape");
  // At the level (by its 3.5+ name too): nothing to say.
  run.rows = {ComputeAt("avx10_1_512", 30)};
  EXPECT_FALSE(BelowHostIsaFinding(run, "avx512_core_fp16"));
  // avx512_core_bf16 is the top of 2.6.3 on this host but below its 3.x level.
  run.rows = {ComputeAt("avx512_core_bf16", 30)};
  EXPECT_TRUE(BelowHostIsaFinding(run, "avx512_core_fp16"));
  // A 2.x log has no 3.x level to reach.
  run.header.library_version = "oneDNN v2.6.3 (commit N/A)";
  EXPECT_FALSE(BelowHostIsaFinding(run, "avx512_core_fp16"));
}

// verbose's, dispatch's and profile's default under a quota below the affinity mask: the idle
// cores held to the budget, and said so.
TEST(BudgetThreadsTest, TheDefaultCountIsHeldToABindingQuota) {
  const char* saved = std::getenv("OMP_NUM_THREADS");
  const std::string kept = saved != nullptr ? saved : "";
  unsetenv("OMP_NUM_THREADS");
  const os::CpuBudget half = os::BudgetOf(2, os::CpuQuota{0.5, "/sys/fs/cgroup/job/cpu.max"});
  const ThreadChoice held = ChooseThreads(0, 2, half, LoadAverage{0.0, 0.0, 0.0});
  EXPECT_EQ(held.threads, 1);
  EXPECT_EQ(held.from,
            "the CPU budget: 1 CPU (a cgroup CPU quota of 0.50 CPUs; 2 in the affinity mask)");
  EXPECT_TRUE(held.capped.empty());
  if (saved != nullptr) {
    setenv("OMP_NUM_THREADS", kept.c_str(), 1);
  } else {
    unsetenv("OMP_NUM_THREADS");
  }
}

TEST(Noise, LiveThreadsAreTheChoiceOverThisMachinesCoresAndBudget) {
  // Holds on any host: the live choice is ChooseThreads over detect's "all" set and this
  // process's CPU budget, whatever they are.
  StatusOr<std::vector<detect::ThreadSet>> all = detect::LiveThreadSets({"all"});
  ASSERT_TRUE(all.ok());
  const os::CpuBudget budget = os::ReadCpuBudget();
  const std::optional<LoadAverage> no_load;
  for (int asked : {1, 2, 1000}) {
    StatusOr<ThreadChoice> live = ChooseLiveThreads(asked, no_load);
    ASSERT_TRUE(live.ok());
    const ThreadChoice expected = ChooseThreads(asked, all->front().threads, budget, no_load);
    EXPECT_EQ(live->threads, expected.threads) << asked;
    EXPECT_EQ(live->from, expected.from);
    EXPECT_EQ(live->capped, expected.capped);
    EXPECT_LE(live->threads, budget.cpus);
  }
}

}  // namespace
}  // namespace dlcheck::dispatch
