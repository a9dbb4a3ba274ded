// SPDX-License-Identifier: Apache-2.0
// whatif's decisions, in process: which of the user's variables the measurement runs without and
// which of them would have changed its figures.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "whatif/environment.h"
#include "whatif/framework_advice.h"
#include "whatif/log_identity.h"
#include "whatif/whatif.h"

namespace dlcheck::whatif {
namespace {

TEST(WhatifEnvironment, OneDnnAndOpenMpVariablesAreFoundOthersKept) {
  const char* environment[] = {"PATH=/usr/bin",
                               "ONEDNN_VERBOSE=1",
                               "DNNL_MAX_CPU_ISA=AVX2",
                               "MKLDNN_JIT_DUMP=1",
                               "OMP_NUM_THREADS=4",
                               "KMP_AFFINITY=compact",
                               "GOMP_SPINCOUNT=0",
                               "OMPI_COMM_WORLD_SIZE=2",
                               "DLCHECK_LOADAVG=/x",
                               "NOEQUALS",
                               nullptr};
  const std::vector<EnvironmentVariable> found = MeasurementVariables(environment);
  const std::vector<EnvironmentVariable> expected = {
      {"ONEDNN_VERBOSE", "1"},  {"DNNL_MAX_CPU_ISA", "AVX2"}, {"MKLDNN_JIT_DUMP", "1"},
      {"OMP_NUM_THREADS", "4"}, {"KMP_AFFINITY", "compact"},  {"GOMP_SPINCOUNT", "0"}};
  EXPECT_EQ(found, expected);
}

TEST(WhatifEnvironment, ACapBelowTheHostChangesTheFiguresOneAtOrAboveDoesNot) {
  EXPECT_NE(EffectOf({"ONEDNN_MAX_CPU_ISA", "avx2"}, "avx512_core"), "");
  EXPECT_NE(EffectOf({"DNNL_MAX_CPU_ISA", "AVX2"}, "avx512_core"), "");  // oneDNN ignores case
  EXPECT_EQ(EffectOf({"ONEDNN_MAX_CPU_ISA", "AVX512_CORE"}, "avx512_core"), "");
  EXPECT_EQ(EffectOf({"ONEDNN_MAX_CPU_ISA", "avx512_core_amx"}, "avx2"), "");
  // A value dlcheck cannot rank is said, not judged harmless.
  EXPECT_NE(EffectOf({"ONEDNN_MAX_CPU_ISA", "bogus"}, "avx2"), "");
}

TEST(WhatifEnvironment, VerboseHintsAndPlacementChangeTheFiguresThreadCountDoesNot) {
  EXPECT_NE(EffectOf({"ONEDNN_VERBOSE", "1"}, "avx2"), "");
  EXPECT_NE(EffectOf({"MKLDNN_VERBOSE", "2"}, "avx2"), "");
  EXPECT_EQ(EffectOf({"ONEDNN_VERBOSE", "0"}, "avx2"), "");
  EXPECT_NE(EffectOf({"ONEDNN_CPU_ISA_HINTS", "prefer_ymm"}, "avx512_core"), "");
  EXPECT_NE(EffectOf({"OMP_PROC_BIND", "close"}, "avx2"), "");
  EXPECT_NE(EffectOf({"OMP_WAIT_POLICY", "passive"}, "avx2"), "");
  // whatif sets every measurement's thread count itself.
  EXPECT_EQ(EffectOf({"OMP_NUM_THREADS", "3"}, "avx2"), "");
  EXPECT_EQ(EffectOf({"ONEDNN_JIT_DUMP", "1"}, "avx2"), "");
}

TEST(WhatifEnvironment, TheFindingNamesWhatWouldHaveChangedTheResult) {
  EXPECT_FALSE(RemovedEnvironmentFinding({}, "avx512_core"));
  const std::optional<Finding> harmless =
      RemovedEnvironmentFinding({{"OMP_NUM_THREADS", "3"}}, "avx512_core");
  ASSERT_TRUE(harmless);
  EXPECT_EQ(harmless->severity, Severity::kInfo);
  EXPECT_NE(harmless->message.find("OMP_NUM_THREADS=3"), std::string::npos);
  const std::optional<Finding> f = RemovedEnvironmentFinding(
      {{"ONEDNN_VERBOSE", "1"}, {"OMP_NUM_THREADS", "3"}, {"ONEDNN_MAX_CPU_ISA", "avx2"}},
      "avx512_core");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->code, "environment-removed");
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("ONEDNN_MAX_CPU_ISA=avx2 would have capped"), std::string::npos)
      << f->message;
  EXPECT_NE(f->message.find("below this host's avx512_core"), std::string::npos) << f->message;
  EXPECT_NE(f->message.find("ONEDNN_VERBOSE=1 would have"), std::string::npos) << f->message;
  EXPECT_EQ(f->message.find("OMP_NUM_THREADS"), std::string::npos) << f->message;
}

TEST(WhatifEnvironment, EncodedVariablesReadBackWithAnyValue) {
  const std::vector<EnvironmentVariable> variables = {
      {"ONEDNN_VERBOSE", "1"}, {"OMP_PLACES", "{0:2},{2:2}"}, {"KMP_X", "a=b c\nd"}, {"OMP_E", ""}};
  EXPECT_EQ(DecodeEnvironment(EncodeEnvironment(variables)), variables);
  EXPECT_TRUE(DecodeEnvironment("").empty());
}

verbose::LogHeader HeaderAt(std::string isa) {
  verbose::LogHeader header;
  header.isa_short = std::move(isa);
  return header;
}

// A log recorded under a cap, or on an older CPU, is replayed under its ISA as a cap.
TEST(WhatifLogIsa, TheLogsIsaBelowTheHostsBecomesTheBaselinesCap) {
  EXPECT_EQ(LogIsaCap(HeaderAt("avx512_core"), "avx512_core_bf16"), "avx512_core");
  EXPECT_EQ(LogIsaCap(HeaderAt("sse41"), "avx2"), "sse41");
  EXPECT_EQ(LogIsaCap(HeaderAt("avx2"), "avx2"), std::nullopt);            // the host's own
  EXPECT_EQ(LogIsaCap(HeaderAt("avx512_core"), "avx2"), std::nullopt);     // a CPU below it
  EXPECT_EQ(LogIsaCap(HeaderAt(""), "avx512_core"), std::nullopt);         // no header
  EXPECT_EQ(LogIsaCap(HeaderAt("sve_256"), "avx512_core"), std::nullopt);  // not x86
  // On an AArch64 host, in AArch64's order; an x86 log has no cap there.
  EXPECT_EQ(LogIsaCap(HeaderAt("sve_128"), "sve_512"), "sve_128");
  EXPECT_EQ(LogIsaCap(HeaderAt("asimd"), "sve_256"), "asimd");
  EXPECT_EQ(LogIsaCap(HeaderAt("avx2"), "sve_256"), std::nullopt);
  // A 3.x level 2.6 cannot cap at: the highest 2.6 cap below it.
  EXPECT_EQ(LogIsaCap(HeaderAt("avx10_1_512"), "avx512_core_amx"), "avx512_core_bf16");
}

TEST(WhatifLogIsa, IsaVariantsAreEveryCapButTheBaselines) {
  const std::vector<std::string> caps = {"sse41", "avx", "avx2", "avx512_core"};
  // Uncapped: the host's own is the baseline.
  EXPECT_EQ(IsaVariantCaps(caps, ""), (std::vector<std::string>{"sse41", "avx", "avx2"}));
  // Capped at the log's avx2: the host's avx512_core is a variant, with its gain.
  EXPECT_EQ(IsaVariantCaps(caps, "avx2"),
            (std::vector<std::string>{"sse41", "avx", "avx512_core"}));
  EXPECT_TRUE(IsaVariantCaps({}, "").empty());
}

// A variant measured in rounds of these minima.
VariantResult Measured(std::string name, std::vector<double> rounds) {
  VariantResult v{.variant = std::move(name), .threads = 1};
  v.round_ms = rounds;
  v.min_ms = *std::min_element(rounds.begin(), rounds.end());
  v.round_max_ms = *std::max_element(rounds.begin(), rounds.end());
  return v;
}

HotPrimitive Row(std::size_t rank, double share_pct, std::vector<VariantResult> variants) {
  HotPrimitive hot{.rank = rank};
  hot.share_pct = share_pct;
  hot.variants = std::move(variants);
  CompareWithBaseline(hot);
  return hot;
}

TEST(WhatifNoise, AVariantWhoseRangeOverlapsItsBaselinesIsWithinNoise) {
  const HotPrimitive hot = Row(1, 50,
                               {Measured("as logged", {1.0, 1.2, 1.1}),
                                Measured("threads 2", {0.9, 1.05, 0.95}),     // overlaps 1.0-1.2
                                Measured("layouts any", {0.5, 0.55, 0.6})});  // below it
  EXPECT_FALSE(hot.variants[0].within_noise);
  EXPECT_TRUE(hot.variants[1].within_noise);
  EXPECT_EQ(hot.variants[1].note.rfind("within noise", 0), 0u) << hot.variants[1].note;
  EXPECT_FALSE(hot.variants[2].within_noise);
  ASSERT_TRUE(hot.variants[1].speedup);  // still measured and shown
  EXPECT_NEAR(*hot.variants[1].speedup, 1.0 / 0.9, 1e-9);
  EXPECT_NEAR(*hot.variants[2].step_gain_pct, 50 * (1 - 0.5), 1e-9);
}

TEST(WhatifNoise, OneRoundIsNotJudged) {
  const HotPrimitive hot =
      Row(1, 50, {Measured("as logged", {1.0}), Measured("threads 2", {0.99})});
  EXPECT_FALSE(hot.variants[1].within_noise);
}

TEST(WhatifNoise, ChangesAndTheVerdictHoldNoNoise) {
  WhatifResult result;
  // The biggest apparent gain is noise: it is never ranked, nor the verdict.
  result.hot.push_back(Row(
      1, 60, {Measured("as logged", {1.0, 2.0, 1.5}), Measured("impl gemm:jit", {0.4, 1.9, 1.0})}));
  result.hot.push_back(
      Row(2, 20,
          {Measured("as logged", {1.0, 1.05, 1.02}), Measured("layouts any", {0.5, 0.52, 0.51})}));
  const std::vector<Change> changes = RankedChanges(result);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].variant->variant, "layouts any");
  EXPECT_NE(Verdict(result, changes).find("layouts chosen by oneDNN"), std::string::npos);
  result.hot.pop_back();
  EXPECT_EQ(Verdict(result, RankedChanges(result)).rfind("no measured change", 0), 0u);
}

// isa and threads apply to the whole process: one row each over every hot row, the rows that
// cannot run under it named, and never a per-row change.
TEST(WhatifStepKnobs, AProcessWideKnobIsOneRowOverTheWholeStep) {
  WhatifResult result;
  VariantResult refused{.variant = "isa avx2", .note = "no implementation under this cap"};
  result.hot.push_back(
      Row(1, 50,
          {Measured("as logged", {1.0, 1.02, 1.01}), Measured("isa avx2", {0.5, 0.51, 0.52}),
           Measured("threads 2", {0.8, 0.81, 0.82})}));
  result.hot.push_back(Row(2, 30,
                           {Measured("as logged", {1.0, 1.01, 1.02}),
                            Measured("threads 2", {1.5, 1.52, 1.51}), refused}));
  result.hot.back().row.primitive = verbose::InternedText("matmul");
  const std::vector<StepKnob> knobs = StepKnobs(result);
  ASSERT_EQ(knobs.size(), 2u);
  const StepKnob& threads = knobs[0].variant == "threads 2" ? knobs[0] : knobs[1];
  const StepKnob& isa = knobs[0].variant == "isa avx2" ? knobs[0] : knobs[1];
  // threads 2: +10 % on row 1 (50 * (1 - 0.8)), -15 % on row 2 (30 * (1 - 1.5)).
  EXPECT_NEAR(threads.step_gain_pct, 50 * 0.2 + 30 * (1 - 1.5), 1e-9);
  EXPECT_EQ(threads.rows_measured, 2u);
  EXPECT_FALSE(threads.within_noise);
  EXPECT_EQ(threads.confirm, "dlcheck dispatch --threads 2 -- CMD");
  EXPECT_EQ(isa.cannot_run, (std::vector<std::string>{"#2 matmul"}));
  EXPECT_EQ(isa.confirm, "dlcheck dispatch --isa avx2 -- CMD");
  // Neither is a per-row change; the isa knob, whose row 2 cannot run, is not the verdict.
  EXPECT_TRUE(RankedChanges(result).empty());
  const std::string verdict = Verdict(result, RankedChanges(result), knobs);
  EXPECT_EQ(verdict.rfind("no measured change", 0), 0u) << verdict;
}

TEST(WhatifStepKnobs, AKnobWhoseRangeHoldsZeroIsWithinNoise) {
  WhatifResult result;
  result.hot.push_back(
      Row(1, 80, {Measured("as logged", {1.0, 1.5, 1.2}), Measured("threads 2", {0.9, 1.4, 1.1})}));
  const std::vector<StepKnob> knobs = StepKnobs(result);
  ASSERT_EQ(knobs.size(), 1u);
  EXPECT_TRUE(knobs[0].within_noise);
  EXPECT_LT(knobs[0].step_gain_low_pct, 0);
  EXPECT_GT(knobs[0].step_gain_high_pct, 0);
  EXPECT_EQ(Verdict(result, RankedChanges(result), knobs).rfind("no measured change", 0), 0u);
}

TEST(WhatifStepKnobs, AKnobBeyondTheNoiseOnEveryRowIsTheVerdict) {
  WhatifResult result;
  result.hot.push_back(Row(
      1, 80, {Measured("as logged", {1.0, 1.02, 1.01}), Measured("threads 2", {0.5, 0.52, 0.51})}));
  const std::vector<StepKnob> knobs = StepKnobs(result);
  const std::string verdict = Verdict(result, RankedChanges(result), knobs);
  EXPECT_EQ(verdict.rfind("threads 2 over the whole step: about 40 % of the step", 0), 0u)
      << verdict;
  EXPECT_NE(verdict.find("dlcheck dispatch --threads 2 -- CMD"), std::string::npos);
}

// With -- CMD the program's wall time is known: a gain is said on it too.
TEST(WhatifProgramGain, AStepGainIsScaledByOneDnnsShareOfTheWallTime) {
  EXPECT_NEAR(ProgramGainPct(14, 5.7), 0.798, 1e-9);
  WhatifResult result;
  result.hot.push_back(
      Row(1, 40,
          {Measured("as logged", {1.0, 1.01, 1.02}), Measured("layouts any", {0.5, 0.51, 0.52})}));
  const HotPrimitive& hot = result.hot.front();
  const std::string on_log = ChangeSentence(hot, hot.variants[1]);
  EXPECT_EQ(on_log.find("program"), std::string::npos) << on_log;
  const std::string on_program = ChangeSentence(hot, hot.variants[1], 5.0);
  EXPECT_NE(on_program.find("about 20 % of the step"), std::string::npos) << on_program;
  EXPECT_NE(on_program.find("about 1.0 % of the program's wall time, where oneDNN took 5.0 %"),
            std::string::npos)
      << on_program;
  result.onednn_wall_pct = 5.0;
  EXPECT_EQ(Verdict(result, RankedChanges(result)), on_program);
}

// issue 47: an interrupted whatif's verdict says it is partial.
TEST(WhatifVerdict, AnInterruptedRunsVerdictSaysPartial) {
  WhatifResult result;
  result.hot.push_back(
      Row(1, 40,
          {Measured("as logged", {1.0, 1.01, 1.02}), Measured("layouts any", {0.5, 0.51, 0.52})}));
  result.hot_planned = 4;
  const std::string whole = Verdict(result, RankedChanges(result));
  EXPECT_EQ(whole.find("partial"), std::string::npos) << whole;
  result.interrupted = true;
  const std::string partial = Verdict(result, RankedChanges(result));
  EXPECT_EQ(partial.rfind("partial, interrupted after 1 of 4 hot rows", 0), 0u) << partial;
  EXPECT_NE(partial.find(whole), std::string::npos) << partial;
}

TEST(WhatifVerdict, MoreThreadsThanUsableCpusAreAWarning) {
  EXPECT_FALSE(ThreadsAboveCpusFinding(0, 2, "2 CPUs"));  // no --threads
  EXPECT_FALSE(ThreadsAboveCpusFinding(2, 2, "2 CPUs"));
  const std::optional<Finding> f = ThreadsAboveCpusFinding(4, 2, "2 CPUs");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->code, "threads-above-cpus");
  EXPECT_NE(f->message.find("--threads 4 asked, but this process may use 2 CPUs"),
            std::string::npos)
      << f->message;
}

// issue 51 class 8: an ISA worker refuses a log that changed since its parent read it.
TEST(WhatifLogIdentity, ALogThatGrewOrWasRewrittenIsSaidToHaveChanged) {
  const std::string path = ::testing::TempDir() + "dlcheck_identity_" + std::to_string(getpid());
  std::ofstream(path) << "onednn_verbose,exec,cpu,convolution\n";
  const StatusOr<LogIdentity> read = IdentityOf(path);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(ChangedSince(path, *read), "");
  std::ofstream(path, std::ios::app) << "onednn_verbose,exec,cpu,matmul\n";
  EXPECT_NE(ChangedSince(path, *read).find("grew from 36 to"), std::string::npos)
      << ChangedSince(path, *read);
  LogIdentity older = *IdentityOf(path);
  older.mtime_ns -= 1;
  EXPECT_NE(ChangedSince(path, older).find("was modified"), std::string::npos);
  std::filesystem::remove(path);
  EXPECT_NE(ChangedSince(path, older), "");  // gone
  EXPECT_FALSE(IdentityOf(path).ok());
}

TEST(WhatifLogIdentity, IdentitiesReadBack) {
  const std::vector<LogIdentity> ids = {{100, 1700000000123456789}, {0, 0}};
  EXPECT_EQ(DecodeIdentities(EncodeIdentities(ids)), ids);
  EXPECT_EQ(DecodeIdentities(""), std::vector<LogIdentity>{});
  EXPECT_FALSE(DecodeIdentities("12"));
  EXPECT_FALSE(DecodeIdentities("12:x"));
  EXPECT_FALSE(DecodeIdentities("1:2,3"));
}

// Issue 46 item 5: the change in the framework's words, only where it has some; never for a
// framework dlcheck does not know. PyTorch's int8 advice says its default quantized engine is
// FBGEMM, not oneDNN.
TEST(FrameworkAdviceTest, EachChangeInItsFrameworksWords) {
  EXPECT_EQ(FrameworkAdvice("PyTorch", "layouts any", "convolution"),
            "model = model.to(memory_format=torch.channels_last), and the inputs likewise");
  EXPECT_EQ(FrameworkAdvice("PyTorch", "layouts any", "matmul"), "");
  EXPECT_EQ(FrameworkAdvice("PyTorch", "dtype bf16", "convolution"),
            "with torch.autocast(\"cpu\", dtype=torch.bfloat16): ...");
  EXPECT_NE(FrameworkAdvice("PyTorch", "dtype int8", "matmul").find("FBGEMM, not oneDNN"),
            std::string::npos);
  EXPECT_EQ(FrameworkAdvice("PyTorch", "threads 4", ""), "torch.set_num_threads(4)");
  EXPECT_EQ(FrameworkAdvice("TensorFlow", "threads 4", ""),
            "tf.config.threading.set_intra_op_parallelism_threads(4)");
  EXPECT_EQ(FrameworkAdvice("TensorFlow", "layouts any", "convolution"), "");
  EXPECT_EQ(FrameworkAdvice("PyTorch", "isa avx512_core", ""),
            "ONEDNN_MAX_CPU_ISA=AVX512_CORE in the program's environment");
  EXPECT_EQ(FrameworkAdvice("PyTorch", "impl gemm:jit", "matmul"), "");
  EXPECT_EQ(FrameworkAdvice("", "threads 4", ""), "");
  EXPECT_EQ(FrameworkAdvice("MXNet", "threads 4", ""), "");
}

}  // namespace
}  // namespace dlcheck::whatif
