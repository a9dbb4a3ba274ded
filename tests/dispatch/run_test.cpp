// What one run says (dispatch::RunFindings) and the noise guard (dispatch::NoiseFindings), on
// hand-built runs: the findings of `verbose` and `run`, decided beside the run record.
#include "dispatch/run.h"

#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <string>
#include <vector>

#include "dispatch/noise.h"

namespace dlcheck::dispatch {
namespace {

std::vector<std::string> Codes(const std::vector<Finding>& findings) {
  std::vector<std::string> codes;
  for (const Finding& f : findings) codes.push_back(f.code);
  return codes;
}

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
  const std::vector<Finding> findings = RunFindings(run, "train.py");
  ASSERT_EQ(Codes(findings),
            (std::vector<std::string>{"timeline-capped", "no-verbose", "program-signaled"}));
  EXPECT_EQ(findings[0].message,
            "the timeline keeps the first 3 executions; 7 later ones are in the totals but not "
            "in the timeline");
  EXPECT_EQ(findings[1].message.rfind("train.py printed no oneDNN verbose line", 0), 0u);
  EXPECT_EQ(findings[2].message,
            "train.py was killed by signal 11 (SIGSEGV); the report holds what it printed before");
  run.verbose_lines = 1;
  run.outcome = os::Outcome{.exited = true, .exit_code = 3};
  run.timeline_dropped = 0;
  EXPECT_TRUE(RunFindings(run, "train.py").empty()) << "its exit status is the command's own";
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

}  // namespace
}  // namespace dlcheck::dispatch
