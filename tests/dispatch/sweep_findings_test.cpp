// SPDX-License-Identifier: Apache-2.0
// What a sweep concludes, in-process on constructed rows and spreads: the cap findings both
// sweeps make, the one primitive key, the ranking of a program sweep's configurations and its
// exit status, and the one scalar-finding filter. No worker, no program, any host.
#include "dispatch/sweep_findings.h"

#include <gtest/gtest.h>

#include <csignal>

#include "dispatch/sweep.h"
#include "support/finding_codes.h"
#include "verbose/rules.h"

namespace dlcheck::dispatch {
namespace {

verbose::PrimitiveStats Row(std::string primitive, std::string implementation, std::string isa,
                            verbose::ImplClass impl_class) {
  verbose::PrimitiveStats row;
  row.engine = "cpu";
  row.primitive = std::move(primitive);
  row.implementation = std::move(implementation);
  row.isa = std::move(isa);
  row.impl_class = impl_class;
  row.prop_kind = "forward_training";
  row.problem = "mb64ic784oc128";
  row.execs = 3;
  return row;
}

const Finding* Find(const std::vector<Finding>& findings, std::string_view code) {
  for (const auto& f : findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

TEST(SweepFindingsTest, NamesRowsAboveTheCapAndScalarWork) {
  verbose::PrimitiveStats above =
      Row("inner_product", "brgemm:avx512_core", "avx512_core", verbose::ImplClass::kJit);
  above.layer = "fc1";
  const verbose::PrimitiveStats scalar =
      Row("matmul", "ref:any", "", verbose::ImplClass::kScalar);  // a program's: no layer
  const std::vector<Finding> findings = CapFindings({above, scalar}, "avx2");
  ASSERT_EQ(findings.size(), 2u);
  const Finding* a = Find(findings, "isa-above-cap");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->severity, Severity::kWarning);
  EXPECT_EQ(a->message,
            "under the cap avx2 oneDNN still ran fc1 inner_product forward_training "
            "(brgemm:avx512_core)");
  const Finding* s = Find(findings, "cap-scalar-fallback");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->message,
            "under the cap avx2 these primitives ran scalar code: matmul forward_training "
            "(ref:any)");
}

TEST(SweepFindingsTest, ACapWithinItselfOnVectorCodeSaysNothing) {
  const verbose::PrimitiveStats row =
      Row("inner_product", "brgemm:avx2", "avx2", verbose::ImplClass::kJit);
  EXPECT_TRUE(CapFindings({row}, "avx2").empty());
  EXPECT_TRUE(CapFindings({row}, "avx512_core").empty());
}

TEST(SweepFindingsTest, TheScalarRunAndThreadSetsHaveNoCapToTest) {
  const verbose::PrimitiveStats row =
      Row("inner_product", "ref:any", "avx512_core", verbose::ImplClass::kScalar);
  EXPECT_TRUE(CapFindings({row}, kScalarCap).empty());
  EXPECT_TRUE(CapFindings({row}, "").empty());
}

// The cap's filter (ScalarScope::kExecutedWork): executed work, not data movement, and never
// dlcheck's own kernels (the model's fallback, said apart).
TEST(SweepFindingsTest, ScalarDataMovementUnexecutedRowsAndDlcheckKernelsAreNoCapFinding) {
  verbose::PrimitiveStats reorder = Row("reorder", "simple:any", "", verbose::ImplClass::kScalar);
  verbose::PrimitiveStats unexecuted = Row("matmul", "ref:any", "", verbose::ImplClass::kScalar);
  unexecuted.execs = 0;
  verbose::PrimitiveStats ours =
      Row("inner_product", "dlcheck:scalar", "", verbose::ImplClass::kScalar);
  EXPECT_TRUE(CapFindings({reorder, unexecuted, ours}, "sse41").empty());
  // The other scopes of the one filter see what theirs are about.
  EXPECT_TRUE(verbose::IsScalarFinding(reorder, verbose::ScalarScope::kEveryRow));
  EXPECT_FALSE(verbose::IsScalarFinding(reorder, verbose::ScalarScope::kCompute));
  EXPECT_TRUE(verbose::IsScalarFinding(unexecuted, verbose::ScalarScope::kCompute));
  EXPECT_FALSE(verbose::IsScalarFinding(ours, verbose::ScalarScope::kEveryRow));
  const verbose::PrimitiveStats eltwise =
      Row("eltwise", "ref:any", "", verbose::ImplClass::kScalar);
  EXPECT_TRUE(verbose::IsScalarFinding(eltwise, verbose::ScalarScope::kExecutedWork));
  EXPECT_FALSE(verbose::IsScalarFinding(eltwise, verbose::ScalarScope::kCompute));
}

TEST(SweepFindingsTest, AModelFallbackNamesItsLayersAndTheFirstReason) {
  dispatch::Run run;
  EXPECT_FALSE(CapModelFallbackFinding(run, "sse41")) << "a program's run";
  run.model.emplace();
  EXPECT_FALSE(CapModelFallbackFinding(run, "sse41"));
  run.model->fallbacks = {{"conv1", "no convolution for this ISA"}, {"fc1", "later reason"}};
  const auto f = CapModelFallbackFinding(run, "sse41");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "cap-model-fallback");
  EXPECT_EQ(f->message,
            "under the cap sse41 oneDNN could not run this model, so dlcheck's scalar kernels ran "
            "it (layers conv1, fc1): no convolution for this ISA");
}

// The one key: the same operation under two caps matches, whatever implementation ran it; two
// shapes of one primitive (a program's two matmuls) do not.
TEST(SweepFindingsTest, TheKeyIsTheOperationNotWhatTheCapMadeOfIt) {
  const verbose::PrimitiveStats avx2 =
      Row("matmul", "brgemm:avx2", "avx2", verbose::ImplClass::kJit);
  const verbose::PrimitiveStats sse41 =
      Row("matmul", "gemm:jit", "sse41", verbose::ImplClass::kGemm);
  EXPECT_EQ(KeyOf(avx2), KeyOf(sse41));
  verbose::PrimitiveStats other_shape = avx2;
  other_shape.problem = "mb64ic128oc10";
  EXPECT_NE(KeyOf(avx2), KeyOf(other_shape));
  verbose::PrimitiveStats other_layer = avx2;
  other_layer.layer = "fc2";
  EXPECT_NE(KeyOf(avx2), KeyOf(other_layer));
}

// The wall times of three runs.
Spread Walls(double min, double median, double max) {
  return Spread{.runs = 3, .median = median, .min = min, .max = max};
}

TEST(SweepFindingsTest, RanksOnlySeparatedConfigurations) {
  const Finding payoff = RankConfigs("ISA caps", {"cap avx2", 3, Walls(1.0, 1.0, 1.1)},
                                     {"cap sse41", 3, Walls(1.9, 2.0, 2.1)});
  EXPECT_EQ(payoff.code, "payoff");
  EXPECT_EQ(payoff.severity, Severity::kInfo);
  EXPECT_EQ(payoff.message,
            "ISA caps: the program runs 2.00x as fast under cap avx2 as under cap sse41 (median "
            "wall time of 3 and 3 runs; spread 10.0% and 10.0%)");
  // The order of the two does not decide the ranking.
  EXPECT_EQ(RankConfigs("ISA caps", {"cap sse41", 3, Walls(1.9, 2.0, 2.1)},
                        {"cap avx2", 3, Walls(1.0, 1.0, 1.1)})
                .message,
            payoff.message);
}

// Issue 35 row 3: a program sweep ranks oneDNN's exec time beside the wall time (which holds
// the program's own start, `import torch`), and says which moved.
TEST(SweepFindingsTest, ExecTimeIsRankedBesideWallTime) {
  // Both moved, oneDNN's time 3.4x, the wall 1.3x: most of the wall time is elsewhere.
  const Finding both =
      RankConfigs("ISA caps", {"cap sse41", 3, Walls(12.9, 13.0, 13.1), Walls(330, 340, 350)},
                  {"cap avx512_core", 3, Walls(9.9, 10.0, 10.1), Walls(95, 100, 105)});
  EXPECT_EQ(both.code, "payoff");
  EXPECT_EQ(both.message,
            "ISA caps: oneDNN's exec time is 3.40x as fast under cap avx512_core as under cap "
            "sse41, the program's wall time 1.30x (medians of 3 and 3 runs): oneDNN's time moved "
            "more; the rest of the wall time is outside oneDNN");
  // Only oneDNN's time moved beyond its spread.
  const Finding exec_only =
      RankConfigs("ISA caps", {"cap sse41", 3, Walls(9.0, 10.0, 11.0), Walls(330, 340, 350)},
                  {"cap avx512_core", 3, Walls(9.5, 10.0, 10.5), Walls(95, 100, 105)});
  EXPECT_EQ(exec_only.code, "payoff");
  EXPECT_EQ(exec_only.message,
            "ISA caps: oneDNN's exec time is 3.40x as fast under cap avx512_core as under cap "
            "sse41 (medians of 3 and 3 runs), but the program's wall time did not move beyond its "
            "spread (9.500-10.500 s and 9.000-11.000 s): the rest of the wall time is outside "
            "oneDNN");
  // Only the wall time moved: what changed is outside oneDNN.
  const Finding wall_only =
      RankConfigs("thread sets", {"threads 1", 3, Walls(19, 20, 21), Walls(95, 100, 105)},
                  {"threads all", 3, Walls(9, 10, 11), Walls(96, 99, 104)});
  EXPECT_EQ(wall_only.code, "payoff");
  EXPECT_NE(wall_only.message.find("the program's wall time is 2.00x as fast under threads all "
                                   "as under threads 1"),
            std::string::npos)
      << wall_only.message;
  EXPECT_NE(wall_only.message.find("what moved is outside oneDNN"), std::string::npos);
  // Neither: too noisy, both said.
  const Finding neither =
      RankConfigs("ISA caps", {"cap sse41", 3, Walls(9, 10, 11), Walls(95, 100, 105)},
                  {"cap avx2", 3, Walls(9.5, 10, 10.5), Walls(96, 99, 104)});
  EXPECT_EQ(neither.code, "too-noisy");
  EXPECT_NE(neither.message.find("and so do oneDNN's exec times"), std::string::npos);
}

TEST(SweepFindingsTest, OverlappingRunsAreTooNoisyToRank) {
  const Finding noisy = RankConfigs("thread sets", {"threads core", 3, Walls(1.0, 1.2, 1.5)},
                                    {"threads socket", 3, Walls(1.4, 1.6, 1.8)});
  EXPECT_EQ(noisy.code, "too-noisy");
  EXPECT_EQ(noisy.severity, Severity::kWarning);
}

TEST(SweepFindingsTest, OneRunEachHasNoSpreadToRankBy) {
  const Finding few = RankConfigs("ISA caps", {"cap avx2", 1, Spread{.runs = 1, .median = 1}},
                                  {"cap sse41", 3, Walls(5, 5, 5)});
  EXPECT_EQ(few.code, "too-few-runs");
  EXPECT_NE(few.message.find("cap avx2 and cap sse41 are not ranked"), std::string::npos)
      << few.message;
}

// A model run under `isa` measured at `sps` samples/s, its timed chunks from `min` to `max`.
ConfigRuns Measured(RunConfig config, double sps, double min, double max) {
  dispatch::Run run;
  run.outcome = os::Outcome{.exited = true, .exit_code = 0};
  WorkerResults& results = run.model.emplace().results;
  results.samples_per_s = sps;
  results.samples_per_s_min = min;
  results.samples_per_s_max = max;
  results.timed_chunks = 5;
  return {.config = {.run = std::move(config)}, .runs = {std::move(run)}};
}

TEST(SweepFindingsTest, TheModelPaysOffOnlyWhenTheChunksStandApart) {
  const std::vector<ConfigRuns> runs = {
      Measured(CapConfig{"sse41"}, 100, 95, 105), Measured(CapConfig{"avx2"}, 150, 140, 160),
      Measured(CapConfig{"avx512_core"}, 300, 290, 310), Measured(ScalarConfig{}, 10, 9, 11)};
  const auto payoff = ModelPayoff(CompareSweep(runs));
  ASSERT_TRUE(payoff);
  EXPECT_EQ(payoff->code, "payoff");
  EXPECT_EQ(payoff->message,
            "the model trains 3.00x as fast under the cap avx512_core as under sse41 (samples/s; "
            "the timed chunks of the two runs do not overlap)");
  const std::vector<ConfigRuns> noisy = {Measured(CapConfig{"sse41"}, 100, 80, 130),
                                         Measured(CapConfig{"avx2"}, 120, 100, 140)};
  const auto too_noisy = ModelPayoff(CompareSweep(noisy));
  ASSERT_TRUE(too_noisy);
  EXPECT_EQ(too_noisy->code, "too-noisy");
  // One measured cap (the scalar run and thread sets do not count): nothing to rank.
  EXPECT_FALSE(ModelPayoff(
      CompareSweep({runs[0], runs[3], Measured(ThreadSetConfig{.name = "core"}, 500, 490, 510)})));
}

// Issue 47: a sweep whose highest cap is not its fastest names the fastest ("1.85x under
// avx512_core_bf16" was said where avx2 gave 2.22x), and the highest's figure beside it.
TEST(SweepFindingsTest, TheModelPayoffNamesTheFastestCapNotTheHighest) {
  const std::vector<ConfigRuns> runs = {Measured(CapConfig{"sse41"}, 100, 95, 105),
                                        Measured(CapConfig{"avx2"}, 222, 215, 230),
                                        Measured(CapConfig{"avx512_core"}, 160, 155, 165),
                                        Measured(CapConfig{"avx512_core_bf16"}, 185, 180, 190)};
  const auto payoff = ModelPayoff(CompareSweep(runs));
  ASSERT_TRUE(payoff);
  EXPECT_EQ(payoff->code, "payoff");
  EXPECT_EQ(payoff->message,
            "the model trains 2.22x as fast under the cap avx2 as under sse41 (samples/s; the "
            "timed chunks of the two runs do not overlap); the highest cap, avx512_core_bf16: "
            "1.85x");
}

// Caps within the fastest's spread are a tie, said so with their own figures; the highest cap
// among them is not said twice.
TEST(SweepFindingsTest, CapsWithinTheFastestsSpreadAreATie) {
  const std::vector<ConfigRuns> runs = {Measured(CapConfig{"sse41"}, 100, 95, 105),
                                        Measured(CapConfig{"avx2"}, 222, 210, 235),
                                        Measured(CapConfig{"avx512_core"}, 160, 155, 165),
                                        Measured(CapConfig{"avx512_core_bf16"}, 215, 205, 225)};
  const auto payoff = ModelPayoff(CompareSweep(runs));
  ASSERT_TRUE(payoff);
  EXPECT_EQ(payoff->message,
            "the model trains 2.22x as fast under the cap avx2 as under sse41 (samples/s; the "
            "timed chunks of the two runs do not overlap); a tie within the spread with "
            "avx512_core_bf16 (2.15x): their timed chunks overlap avx2's");
}

// The lowest cap fastest: ranked against the highest.
TEST(SweepFindingsTest, ALowestCapThatIsFastestIsRankedAgainstTheHighest) {
  const std::vector<ConfigRuns> runs = {Measured(CapConfig{"avx2"}, 200, 195, 205),
                                        Measured(CapConfig{"avx512_core"}, 100, 95, 105)};
  const auto payoff = ModelPayoff(CompareSweep(runs));
  ASSERT_TRUE(payoff);
  EXPECT_EQ(payoff->message,
            "the model trains 2.00x as fast under the cap avx2 as under avx512_core (samples/s; "
            "the timed chunks of the two runs do not overlap)");
}

TEST(SweepFindingsTest, TheRaceNamesTheFastestItsBaselineAndItsTies) {
  // Times (lower is faster): cap 2 fastest, cap 1 within its range, cap 3 apart.
  const CapRace race = RaceOf(
      {Walls(3.0, 3.1, 3.2), Walls(1.4, 1.5, 1.6), Walls(1.3, 1.4, 1.5), Walls(2.0, 2.1, 2.2)},
      /*higher_is_faster=*/false);
  ASSERT_TRUE(race.fastest);
  EXPECT_EQ(*race.fastest, 2u);
  EXPECT_EQ(race.baseline, 0u);
  EXPECT_EQ(race.tied, std::vector<std::size_t>{1});
  // Equal medians: the lowest cap is the fastest (no cap is named for noise), against the last.
  const CapRace equal = RaceOf({Walls(1, 1, 1), Walls(1, 1, 1)}, false);
  EXPECT_EQ(*equal.fastest, 0u);
  EXPECT_EQ(equal.baseline, 1u);
  EXPECT_FALSE(RaceOf({Walls(1, 1, 1)}, false).fastest);
}

os::Outcome Exited(int code) {
  return os::Outcome{.exited = true, .exit_code = code};
}

TEST(SweepFindingsTest, AFailedRunIsNamedWithEveryRunsStatus) {
  EXPECT_FALSE(ProgramFailedFinding("cap avx2", {Exited(0), Exited(0)}));
  os::Outcome killed{.signaled = true, .signal = SIGSEGV};
  const auto f = ProgramFailedFinding("cap avx2", {Exited(0), killed, Exited(3)});
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "program-failed");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->message,
            "under cap avx2 the program was killed by signal 11 (SIGSEGV) (exit statuses of the "
            "runs: 0,139,3)");
}

TEST(SweepFindingsTest, AThreadCountTheProgramSetItselfIsNamed) {
  EXPECT_FALSE(ThreadsOverriddenFinding("threads core", 4, 4));
  EXPECT_FALSE(ThreadsOverriddenFinding("threads core", 0, 8)) << "nothing asked";
  EXPECT_FALSE(ThreadsOverriddenFinding("threads core", 4, 0)) << "no header seen";
  const auto f = ThreadsOverriddenFinding("threads core", 4, 8);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "threads-overridden");
  EXPECT_EQ(f->message,
            "under threads core dlcheck asked for 4 threads (OMP_NUM_THREADS) but oneDNN ran 8: "
            "the program sets its own thread count");
}

TEST(SweepFindingsTest, TheProgramSweepEndsWithASignalThenTheFirstFailure) {
  EXPECT_EQ(ProgramSweepStatus(0, {0, 0, 0}), 0);
  EXPECT_EQ(ProgramSweepStatus(0, {0, 3, 139}), 3);
  EXPECT_EQ(ProgramSweepStatus(SIGINT, {0, 3}), 128 + SIGINT);
  EXPECT_EQ(ProgramSweepStatus(0, {}), 0);
}

TEST(SweepFindingsTest, AnInterruptNamesTheSignal) {
  const Finding f = InterruptedFinding(SIGTERM);
  EXPECT_EQ(f.code, "interrupted");
  EXPECT_EQ(f.message, "interrupted by SIGTERM: the report holds the runs that were done");
}

// The worker-refusal policy, beside the run record it reads.
TEST(RunTest, SaysWhereTheWorkerEnded) {
  dispatch::Run run;
  EXPECT_EQ(run.Where(), "") << "a program has no phases";
  run.model.emplace();
  EXPECT_EQ(run.Where(), "in phase start-up");
  run.model->last_phase = "init";
  EXPECT_EQ(run.Where(), "in phase init");
  run.model->last_layer = "fc2";
  EXPECT_EQ(run.Where(), "in phase init, layer fc2");
}

TEST(RunTest, ARefusalEndsWithTheWorkersOwnLineAndStatus) {
  dispatch::Run run;
  run.outcome.exited = true;
  run.outcome.exit_code = 4;
  run.outcome.stderr_tail = "dlcheck: --data: no such directory\n\n";
  EXPECT_FALSE(run.Refused()) << "a program's exit status is its own";
  run.model.emplace();
  ASSERT_TRUE(run.Refused());
  const dispatch::Run::Refusal refusal = run.RefusalOf();
  EXPECT_TRUE(refusal.error.ok());
  EXPECT_EQ(refusal.exit_status, 4);
  EXPECT_EQ(refusal.worker_line, "dlcheck: --data: no such directory");
}

TEST(RunTest, ASilentRefusalIsAnErrorNamingHowTheWorkerEnded) {
  dispatch::Run run;
  run.model.emplace();
  run.outcome.exited = true;
  run.outcome.exit_code = 4;
  const dispatch::Run::Refusal refusal = run.RefusalOf();
  EXPECT_EQ(refusal.error.code(), ExitCode{4});
  EXPECT_EQ(refusal.error.message(), "the model worker exited with status 4");
}

TEST(RunTest, OutOfMemoryIsTheMachinesLimitWithWhatToDo) {
  dispatch::Run run;
  run.outcome.exited = true;
  run.outcome.exit_code = ToInt(ExitCode::kUnsupported);
  EXPECT_FALSE(run.OutOfMemory()) << "a program's exit 7 is its own";
  run.model.emplace().last_phase = "init";
  ASSERT_TRUE(run.OutOfMemory());
  const dispatch::Run::Refusal refusal = run.RefusalOf();
  EXPECT_EQ(refusal.error.code(), ExitCode::kUnsupported);
  EXPECT_EQ(refusal.error.message().rfind("out of memory: the model worker did not fit in the "
                                          "memory it may use (in phase init); raise the limit",
                                          0),
            0u)
      << refusal.error.message();
}

TEST(RunTest, AWorkerThatEndedBadlyIsOneFindingSayingWhere) {
  dispatch::Run run;
  run.model.emplace();
  run.outcome.exited = true;
  EXPECT_FALSE(WorkerEndFinding(run, "the model worker", "")) << "it ended well";
  run.outcome = os::Outcome{.signaled = true, .signal = SIGILL};
  run.model->last_phase = "timed";
  run.model->last_layer = "fc2";
  auto failed = WorkerEndFinding(run, "the worker for avx2", "; the other runs went on");
  ASSERT_TRUE(failed);
  EXPECT_EQ(failed->code, "worker-failed");
  EXPECT_EQ(failed->message,
            "the worker for avx2 was killed by signal 4 (SIGILL) in phase timed, layer fc2; the "
            "other runs went on");
  run.outcome.interrupted = SIGINT;  // stopped on the user's word: no failure
  EXPECT_FALSE(WorkerEndFinding(run, "the model worker", ""));
  run.outcome = os::Outcome{.exited = true, .exit_code = ToInt(ExitCode::kUnsupported)};
  auto oom = WorkerEndFinding(run, "the model worker", "");
  ASSERT_TRUE(oom);
  EXPECT_EQ(oom->code, "out-of-memory");
  EXPECT_EQ(oom->message,
            "the model worker did not fit in the memory it may use (in phase timed, layer fc2)");
}

// ---- one findings list and one exit status for both sources ----

// A program's run under a configuration: how it ended, its wall time, what oneDNN said.
dispatch::Run ProgramRun(os::Outcome ended, double wall_s,
                         std::vector<verbose::PrimitiveStats> rows = {}) {
  dispatch::Run run;
  run.outcome = ended;
  run.outcome.wall_s = wall_s;
  run.verbose_lines = rows.size();
  run.rows = std::move(rows);
  return run;
}

ConfigRuns Config(RunConfig config, std::vector<dispatch::Run> runs, int threads = 0) {
  ConfigRuns r{.config = {.run = std::move(config), .threads = threads}, .runs = std::move(runs)};
  std::vector<double> walls;
  for (const dispatch::Run& run : r.runs) walls.push_back(run.outcome.wall_s);
  r.wall = SpreadOf(walls);
  return r;
}

// The findings of a sweep, from its runs and their comparison.
std::vector<Finding> FindingsOf(const std::vector<ConfigRuns>& sweep, int interrupted_by) {
  return SweepFindings(sweep, CompareSweep(sweep), interrupted_by);
}

using testing::Codes;

TEST(SweepFindingsTest, AProgramSweepIsRankedByWallTimeAndItsFailuresNamed) {
  const verbose::PrimitiveStats jit =
      Row("convolution", "brgemm:avx512_core", "avx512_core", verbose::ImplClass::kJit);
  const std::vector<ConfigRuns> sweep = {
      Config(CapConfig{"sse41"}, {ProgramRun(Exited(0), 2.0, {jit}), ProgramRun(Exited(0), 2.1)}),
      Config(CapConfig{"avx2"}, {ProgramRun(Exited(0), 1.0), ProgramRun(Exited(0), 1.1)}, 4)};
  const std::vector<Finding> findings = FindingsOf(sweep, 0);
  // sse41's run executed an avx512_core kernel; the caps rank.
  EXPECT_EQ(Codes(findings), (std::vector<std::string>{"isa-above-cap", "payoff"}));
  EXPECT_EQ(findings.back().message,
            "ISA caps: the program runs 1.95x as fast under cap avx2 as under cap sse41 (median "
            "wall time of 2 and 2 runs; spread 9.5% and 4.9%)");
  // avx2's second run exited 3: named, and avx2 is no longer ranked.
  std::vector<ConfigRuns> failed = sweep;
  failed[1] = Config(CapConfig{"avx2"}, {ProgramRun(Exited(0), 1.0), ProgramRun(Exited(3), 1.1)});
  EXPECT_EQ(Codes(FindingsOf(failed, 0)),
            (std::vector<std::string>{"isa-above-cap", "program-failed"}));
  EXPECT_EQ(SweepExitStatus(failed, 0).value(), 3) << "the first run that did not exit 0";
  EXPECT_EQ(SweepExitStatus(sweep, SIGTERM).value(), 128 + SIGTERM);
  EXPECT_EQ(Codes(FindingsOf(sweep, SIGTERM)).back(), "interrupted");
}

// A configuration whose runs did not all exit 0 is never ranked: the ranking compares the highest
// and lowest caps that succeeded (issue 35: a bf16 program that exited 1 under avx2 "ran 1.14x as
// fast" there).
TEST(SweepFindingsTest, AConfigurationThatFailedIsNeverRanked) {
  const std::vector<ConfigRuns> sweep = {
      Config(CapConfig{"avx2"}, {ProgramRun(Exited(1), 0.9), ProgramRun(Exited(1), 0.91)}),
      Config(CapConfig{"avx512_core"}, {ProgramRun(Exited(0), 1.0), ProgramRun(Exited(0), 1.01)}),
      Config(CapConfig{"avx512_core_bf16"},
             {ProgramRun(Exited(0), 2.0), ProgramRun(Exited(0), 2.02)})};
  const std::vector<Finding> findings = FindingsOf(sweep, 0);
  EXPECT_EQ(Codes(findings), (std::vector<std::string>{"program-failed", "no-verbose", "payoff"}));
  EXPECT_EQ(findings.back().message,
            "ISA caps: the program runs 2.00x as fast under cap avx512_core as under cap "
            "avx512_core_bf16 (median wall time of 2 and 2 runs; spread 1.0% and 1.0%)");
  for (const Finding& f : findings) {
    EXPECT_EQ(f.message.find("under cap avx2 as"), std::string::npos) << f.message;
  }
  // Two caps, one failed: nothing to rank.
  const std::vector<ConfigRuns> two = {sweep[0], sweep[2]};
  EXPECT_EQ(Codes(FindingsOf(two, 0)), (std::vector<std::string>{"program-failed", "no-verbose"}));
  // Thread sets alike.
  const std::vector<ConfigRuns> sets = {
      Config(ThreadSetConfig{.name = "1"}, {ProgramRun(Exited(0), 2), ProgramRun(Exited(0), 2)}),
      Config(ThreadSetConfig{.name = "all"}, {ProgramRun(Exited(0), 1), ProgramRun(Exited(2), 1)})};
  EXPECT_EQ(Codes(FindingsOf(sets, 0)), (std::vector<std::string>{"program-failed", "no-verbose"}));
}

// The version and header come from any run that printed them: a run that failed before oneDNN
// started prints none.
TEST(SweepFindingsTest, TheVersionAndHeaderComeFromAnyRunThatPrintedThem) {
  dispatch::Run silent = ProgramRun(Exited(1), 1);
  dispatch::Run printed = ProgramRun(Exited(0), 1);
  printed.header.library_version = "oneDNN v2.6.3 (commit N/A)";
  printed.header.isa_short = "avx512_core";
  const std::vector<ConfigRuns> sweep = {Config(CapConfig{"avx2"}, {silent, silent}),
                                         Config(CapConfig{"avx512_core"}, {silent, printed})};
  EXPECT_EQ(LibraryVersionOf(sweep), "oneDNN v2.6.3 (commit N/A)");
  EXPECT_EQ(sweep[1].header().isa_short, "avx512_core");
  EXPECT_EQ(sweep[0].header().isa_short, "");
  EXPECT_FALSE(sweep[0].Succeeded());
  EXPECT_FALSE(sweep[1].Succeeded());
  EXPECT_EQ(LibraryVersionOf({sweep[0]}), "");
}

// A fallback seen under several caps is one finding naming them all (issue 35: one line per
// cap), and scalar work under 1 % of a cap's execution time is info.
TEST(SweepFindingsTest, AFallbackUnderSeveralCapsIsOneFindingScaledToItsCost) {
  const auto rows = [](double scalar_ms) {
    verbose::PrimitiveStats scalar = Row("matmul", "ref:any", "", verbose::ImplClass::kScalar);
    scalar.exec_ms_total = scalar_ms;
    verbose::PrimitiveStats jit =
        Row("convolution", "brgemm:sse41", "sse41", verbose::ImplClass::kJit);
    jit.exec_ms_total = 100;
    return std::vector<verbose::PrimitiveStats>{scalar, jit};
  };
  const std::vector<ConfigRuns> sweep = {
      Config(CapConfig{"sse41"}, {ProgramRun(Exited(0), 1, rows(20))}),
      Config(CapConfig{"avx2"}, {ProgramRun(Exited(0), 1, rows(0.01))}),
      Config(CapConfig{"avx512_core"}, {ProgramRun(Exited(0), 1, rows(0.01))})};
  std::vector<Finding> fallbacks;
  for (const Finding& f : FindingsOf(sweep, 0)) {
    if (f.code == "cap-scalar-fallback") fallbacks.push_back(f);
  }
  ASSERT_EQ(fallbacks.size(), 1u);
  EXPECT_EQ(fallbacks[0].severity, Severity::kWarning) << "sse41 paid 17% for it";
  EXPECT_EQ(fallbacks[0].message,
            "under the caps sse41, avx2, avx512_core these primitives ran scalar code: matmul "
            "forward_training (ref:any)");
  // Cheap under every cap: info, still once.
  const std::vector<Finding> cheap = CapScalarFindings({sweep[1], sweep[2]});
  ASSERT_EQ(cheap.size(), 1u);
  EXPECT_EQ(cheap[0].severity, Severity::kInfo);
  EXPECT_EQ(cheap[0].message,
            "under the caps avx2, avx512_core these primitives ran scalar code: matmul "
            "forward_training (ref:any) (under 1% of the execution time)");
  EXPECT_EQ(CapFindings(rows(0.01), "avx2").at(0).severity, Severity::kInfo);
}

TEST(SweepFindingsTest, AProgramWithoutVerboseLinesIsSaidOnce) {
  const std::vector<ConfigRuns> silent = {Config(CapConfig{"avx2"}, {ProgramRun(Exited(0), 1)})};
  EXPECT_EQ(Codes(FindingsOf(silent, 0)), std::vector<std::string>{"no-verbose"});
  EXPECT_TRUE(FindingsOf({}, 0).empty()) << "no run: nothing to say";
}

TEST(SweepFindingsTest, AModelSweepEndsWithItsWorkersFailureOrItsMemory) {
  std::vector<ConfigRuns> sweep = {Measured(CapConfig{"sse41"}, 100, 95, 105),
                                   Measured(CapConfig{"avx2"}, 300, 290, 310),
                                   Measured(ScalarConfig{}, 10, 9, 11)};
  EXPECT_EQ(SweepExitStatus(sweep, 0).value(), 0);
  EXPECT_EQ(Codes(FindingsOf(sweep, 0)), std::vector<std::string>{"payoff"});
  sweep[2].runs[0].outcome = os::Outcome{.signaled = true, .signal = SIGSEGV};
  const StatusOr<int> failed = SweepExitStatus(sweep, 0);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().code(), ExitCode::kWorkerFailed);
  EXPECT_EQ(Codes(FindingsOf(sweep, 0)), (std::vector<std::string>{"worker-failed", "payoff"}));
  EXPECT_EQ(FindingsOf(sweep, 0).front().message,
            "the worker for scalar was killed by signal 11 (SIGSEGV) in phase start-up; the "
            "other runs went on");
  sweep[0].runs[0].outcome = Exited(ToInt(ExitCode::kUnsupported));
  EXPECT_EQ(SweepExitStatus(sweep, 0).status().code(), ExitCode::kUnsupported)
      << "out of memory is the machine's limit: said before a failure";
}

}  // namespace
}  // namespace dlcheck::dispatch

namespace dlcheck::dispatch {
namespace {

detect::PlatformInfo RecordedPlatform(const std::string& file) {
  StatusOr<detect::PlatformInfo> info =
      detect::DetectRecordedPlatform(std::string(DLCHECK_TEST_DATA) + "/cpuid/" + file);
  EXPECT_TRUE(info.ok()) << info.status().message();
  return info.ok() ? *info : detect::PlatformInfo{};
}

// A sweep on a guest whose hypervisor hides AMX from an Emerald Rapids part (the edited
// recording) stops at avx512_core_bf16 and says why: the AMX cap was not tried because the guest
// hides it, not because the CPU lacks it.
TEST(HiddenCapsFinding, ASweepBelowHiddenAmxSaysTheGuestHidesIt) {
  const detect::PlatformInfo guest =
      RecordedPlatform("edited/intel-xeon-emerald-rapids-kvm16-amx-hidden.test");
  StatusOr<std::vector<std::string>> caps = ChooseCaps({}, guest);
  ASSERT_TRUE(caps.ok());
  ASSERT_EQ(caps->back(), "avx512_core_bf16");
  const std::optional<Finding> f = HiddenCapsFinding(guest, *caps);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "cap-hidden");
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->message,
            "the sweep stops at avx512_core_bf16: avx512_core_amx was not tried because this "
            "guest's hypervisor hides amx_tile, amx_bf16, amx_int8 (every Emerald Rapids part "
            "has them), not because the CPU lacks them; ask for an instance type or hypervisor "
            "setting that passes them through");
  // --isa that stops lower: the sweep did not reach the guest's level, nothing to say.
  EXPECT_FALSE(HiddenCapsFinding(guest, {"avx2"}));
  // The same guest with AMX exposed, and a bare-metal Haswell: nothing hidden.
  const detect::PlatformInfo exposed = RecordedPlatform("intel-xeon-emerald-rapids-kvm16.test");
  EXPECT_FALSE(HiddenCapsFinding(exposed, *ChooseCaps({}, exposed)));
  const detect::PlatformInfo haswell = RecordedPlatform("intel-core-i7-4770-cpu.test");
  EXPECT_FALSE(HiddenCapsFinding(haswell, *ChooseCaps({}, haswell)));
}

// The sweep asks the ISA table for the caps of the record's architecture: an x86 record's are
// x86's, an AArch64 record's (its part, its oneDNN level) AArch64's, each up to the machine's.
TEST(ChooseCapsTest, TheCapsAreThoseOfTheRecordsArchitecture) {
  const detect::PlatformInfo haswell = RecordedPlatform("intel-core-i7-4770-cpu.test");
  EXPECT_EQ(haswell.Arch(), onednn::IsaArch::kX64);
  EXPECT_EQ(*ChooseCaps({}, haswell), (std::vector<std::string>{"sse41", "avx", "avx2"}));

  detect::PlatformInfo graviton;  // as issue 49's reader will fill it
  graviton.arch = detect::Aarch64Part{.sve_vector_bits = 256};
  graviton.onednn_max_isa = "sve_256";
  EXPECT_EQ(*ChooseCaps({}, graviton), (std::vector<std::string>{"asimd", "sve_128", "sve_256"}));
  EXPECT_EQ(*ChooseCaps({"SVE_128", "asimd"}, graviton),
            (std::vector<std::string>{"asimd", "sve_128"}));
  const StatusOr<std::vector<std::string>> x86_cap = ChooseCaps({"avx2"}, graviton);
  ASSERT_FALSE(x86_cap.ok());
  EXPECT_EQ(x86_cap.status().message(),
            "--isa: 'avx2' is not a oneDNN ISA cap (asimd, sve_128, sve_256, sve_512)");
  const StatusOr<std::vector<std::string>> above = ChooseCaps({"sve_512"}, graviton);
  ASSERT_FALSE(above.ok());
  EXPECT_EQ(above.status().code(), ExitCode::kUnsupported);
  const StatusOr<std::vector<std::string>> arm_cap = ChooseCaps({"sve_256"}, haswell);
  ASSERT_FALSE(arm_cap.ok());
  EXPECT_NE(arm_cap.status().message().find("(sse41, avx, avx2, avx2_vnni"), std::string::npos)
      << arm_cap.status().message();
  // A machine below its architecture's lowest cap has nothing to sweep, in its words.
  graviton.onednn_max_isa = "none";
  const StatusOr<std::vector<std::string>> none = ChooseCaps({}, graviton);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(),
            "oneDNN dispatches to 'none' here, below asimd: nothing to sweep");
}

// The cap reaches oneDNN in the spelling ONEDNN_MAX_CPU_ISA takes on the cap's architecture.
TEST(ChooseCapsTest, TheEnvironmentSpellsTheCapAsOneDnnReadsIt) {
  EXPECT_EQ(MaxIsaEnvironment("avx2").front(),
            (std::pair<std::string, std::string>{"ONEDNN_MAX_CPU_ISA", "avx2"}));
  EXPECT_EQ(MaxIsaEnvironment("asimd").front(),
            (std::pair<std::string, std::string>{"ONEDNN_MAX_CPU_ISA", "ADVANCED_SIMD"}));
}

// A program sweep ranks its fastest cap against the lowest, by oneDNN's exec time where every run
// printed it.
TEST(SweepFindingsTest, AProgramSweepRanksItsFastestCap) {
  const std::vector<ConfigRuns> sweep = {
      Config(CapConfig{"sse41"}, {ProgramRun(Exited(0), 2.0), ProgramRun(Exited(0), 2.1)}),
      Config(CapConfig{"avx2"}, {ProgramRun(Exited(0), 1.0), ProgramRun(Exited(0), 1.1)}),
      Config(CapConfig{"avx512_core"}, {ProgramRun(Exited(0), 1.5), ProgramRun(Exited(0), 1.6)})};
  const std::vector<Finding> findings = FindingsOf(sweep, 0);
  ASSERT_FALSE(findings.empty());
  EXPECT_EQ(findings.back().code, "payoff");
  EXPECT_EQ(findings.back().message,
            "ISA caps: the program runs 1.95x as fast under cap avx2 as under cap sse41 (median "
            "wall time of 2 and 2 runs; spread 9.5% and 4.9%); the highest cap, cap "
            "avx512_core: 1.32x");
}

// A model run that measured `peak` GFLOP/s a core under its cap.
ConfigRuns WithPeak(ConfigRuns r, double peak) {
  const CapConfig* cap = r.config.cap();
  r.runs.front().model->results.peak_gflops[PeakIsaOf(cap->isa)] = peak;
  return r;
}

// Issue 47: Zen 4 measured the AVX2 FMA peak at 117 GFLOP/s and AVX-512's at 115: a wider cap
// below a narrower one's peak is flagged, not printed as if fine.
TEST(SweepFindingsTest, APeakBelowANarrowerCapsPeakIsFlagged) {
  const std::vector<ConfigRuns> runs = {
      WithPeak(Measured(CapConfig{"sse41"}, 100, 95, 105), 60),
      WithPeak(Measured(CapConfig{"avx2"}, 150, 140, 160), 117),
      WithPeak(Measured(CapConfig{"avx512_core"}, 160, 150, 170), 115)};
  const std::vector<Finding> peaks = PeakFindings(CompareSweep(runs));
  ASSERT_EQ(peaks.size(), 1u);
  EXPECT_EQ(peaks[0].code, "peak-below-narrower");
  EXPECT_EQ(peaks[0].severity, Severity::kWarning);
  EXPECT_EQ(peaks[0].message.rfind("the FMA peak probe measured 115.0 GFLOP/s a core under the "
                                   "cap avx512_core, below the 117.0 under the narrower cap avx2",
                                   0),
            0u)
      << peaks[0].message;
  EXPECT_NE(Find(FindingsOf(runs, 0), "peak-below-narrower"), nullptr);
  // Rising peaks say nothing.
  const std::vector<ConfigRuns> rising = {WithPeak(runs[1], 117), WithPeak(runs[2], 230)};
  EXPECT_TRUE(PeakFindings(CompareSweep(rising)).empty());
}

}  // namespace
}  // namespace dlcheck::dispatch
