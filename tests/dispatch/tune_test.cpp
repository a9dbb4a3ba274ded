// SPDX-License-Identifier: Apache-2.0
// tune's plan and judgement (dispatch/tune.h) on given hosts and constructed runs: which knobs
// apply where and why not, the verdicts against the baseline's range, the winners joined, the
// answer and the line to apply.
#include "dispatch/tune.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace dlcheck::dispatch {
namespace {

TuneHost Host(int cpus, int cores, std::map<std::string, std::string> env = {},
              std::vector<std::string> files = {}) {
  TuneHost host{.usable_cpus = cpus, .physical_cores = cores, .library_dir = "/lib/x"};
  host.exists = [files](const std::string& path) {
    return std::find(files.begin(), files.end(), path) != files.end();
  };
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(env));
  host.getenv = [shared](const char* name) -> const char* {
    const auto found = shared->find(name);
    return found == shared->end() ? nullptr : found->second.c_str();
  };
  return host;
}

const Knob& Named(const std::vector<Knob>& knobs, const std::string& name) {
  for (const Knob& k : knobs) {
    if (k.name == name) return k;
  }
  throw std::runtime_error("no knob " + name);
}

TEST(TunePlan, ThreadsOnTwoCoresWithoutSmt) {
  const std::vector<Knob> knobs = PlanKnobs(Host(2, 2), {"threads"}, {});
  ASSERT_EQ(knobs.size(), 3u);
  EXPECT_TRUE(Named(knobs, "threads=1").applies());
  EXPECT_EQ(Named(knobs, "threads=1").env, (EnvironmentChange{{"OMP_NUM_THREADS", "1"},
                                                              {"MKL_NUM_THREADS", "1"},
                                                              {"OPENBLAS_NUM_THREADS", "1"}}));
  EXPECT_EQ(Named(knobs, "threads=2 (physical cores)").not_applicable,
            "the 2 usable CPUs are 2 cores (no SMT sibling among them): the same as all CPUs");
  EXPECT_TRUE(Named(knobs, "threads=2 (all CPUs)").applies());
}

TEST(TunePlan, ThreadsWithSmtAndOnOneCpu) {
  const std::vector<Knob> smt = PlanKnobs(Host(8, 4), {"threads"}, {});
  EXPECT_TRUE(Named(smt, "threads=4 (physical cores)").applies());
  EXPECT_EQ(Named(smt, "threads=4 (physical cores)").env.front().second, "4");
  const std::vector<Knob> one = PlanKnobs(Host(1, 1), {"threads", "placement"}, {});
  EXPECT_EQ(Named(one, "threads=1").not_applicable,
            "1 usable CPU: OpenMP's default is 1 thread already");
  EXPECT_EQ(Named(one, "OMP_PROC_BIND=close OMP_PLACES=cores").not_applicable,
            "1 usable CPU: nothing to place");
}

TEST(TunePlan, AllocatorsWhereInstalledKeepingTheUsersPreload) {
  const std::vector<Knob> knobs = PlanKnobs(
      Host(2, 2, {{"LD_PRELOAD", "/opt/mine.so"}}, {"/lib/x/libjemalloc.so.2"}), {"allocator"}, {});
  ASSERT_EQ(knobs.size(), 2u);
  EXPECT_EQ(Named(knobs, "jemalloc").env,
            (EnvironmentChange{{"LD_PRELOAD", "/lib/x/libjemalloc.so.2 /opt/mine.so"}}));
  EXPECT_EQ(Named(knobs, "tcmalloc").not_applicable,
            "libtcmalloc_minimal.so.4 is not installed in /lib/x: install the Debian package "
            "libtcmalloc-minimal4");
}

TEST(TunePlan, OneDnnHintsOnlyWithAvx512AndKnobsAlreadySetAreTheBaseline) {
  TuneHost host = Host(2, 2, {{"OMP_WAIT_POLICY", "PASSIVE"}});
  std::vector<Knob> knobs = PlanKnobs(host, {"onednn", "openmp"}, {});
  EXPECT_EQ(Named(knobs, "ONEDNN_CPU_ISA_HINTS=PREFER_YMM").not_applicable,
            "no AVX-512 on this host: PREFER_YMM changes only AVX-512 kernels");
  EXPECT_TRUE(Named(knobs, "ONEDNN_PRIMITIVE_CACHE_CAPACITY=4096").applies());
  EXPECT_TRUE(Named(knobs, "OMP_WAIT_POLICY=ACTIVE").applies());
  EXPECT_EQ(Named(knobs, "OMP_WAIT_POLICY=PASSIVE").not_applicable,
            "the environment already sets it: the baseline runs with it");
  host.avx512 = true;
  knobs = PlanKnobs(host, {"onednn"}, {});
  EXPECT_TRUE(Named(knobs, "ONEDNN_CPU_ISA_HINTS=PREFER_YMM").applies());
}

TEST(TunePlan, PyTorchKnobsAreReadByPyTorchAndNeedTheirHardware) {
  TuneHost host = Host(2, 2);
  host.transparent_hugepages = "never";
  std::vector<Knob> knobs = PlanKnobs(host, {"framework"}, {});
  ASSERT_EQ(knobs.size(), 2u);
  EXPECT_EQ(Named(knobs, "ATEN_CPU_CAPABILITY=avx512").not_applicable,
            "no AVX-512 on this host: no avx512 kernels to pick");
  EXPECT_EQ(Named(knobs, "THP_MEM_ALLOC_ENABLE=1").not_applicable,
            "transparent huge pages are off (never) on this host");
  host.avx512 = true;
  host.transparent_hugepages = "madvise";
  knobs = PlanKnobs(host, {"framework"}, {});
  for (const Knob& k : knobs) {
    EXPECT_TRUE(k.applies()) << k.name;
    EXPECT_EQ(k.read_by, (std::vector<std::string_view>{"PyTorch"})) << k.name;
  }
}

TEST(TunePlan, UserKnobsInOrderAndAllGroupsByDefault) {
  const std::vector<Knob> knobs = PlanKnobs(Host(2, 2), {}, {{"A", "1"}, {"B", "x y"}});
  ASSERT_GE(knobs.size(), 2u);
  EXPECT_EQ(knobs.front().group, "threads");
  EXPECT_EQ(knobs[knobs.size() - 2].name, "A=1");
  EXPECT_EQ(knobs.back().env, (EnvironmentChange{{"B", "x y"}}));
}

TEST(TunePlan, ParseKnob) {
  EXPECT_EQ(*ParseKnob("KMP_AFFINITY=granularity=fine,compact"),
            (std::pair<std::string, std::string>{"KMP_AFFINITY", "granularity=fine,compact"}));
  EXPECT_EQ(ParseKnob("A=").value().second, "");
  EXPECT_FALSE(ParseKnob("NOVALUE").ok());
  EXPECT_EQ(ParseKnob("1A=2").status().message(),
            "--knob '1A=2': '1A' is no environment variable name (letters, digits and _, not "
            "starting with a digit)");
  EXPECT_FALSE(ParseKnob("=2").ok());
  EXPECT_TRUE(CheckGroups({"threads", "user"}).ok());
  EXPECT_TRUE(CheckGroups({"blas"}).ok());
  EXPECT_FALSE(CheckGroups({"lapack"}).ok());
}

// The BLAS alternatives Debian installed, first on the library path; the one the system selects
// already, and none installed, are listed with why (and the package that would make it possible).
TEST(TunePlan, BlasAlternativesByLibraryPath) {
  TuneHost host = Host(2, 2, {{"LD_LIBRARY_PATH", "/opt/lib"}},
                       {"/lib/x/openblas-pthread/libblas.so.3", "/lib/x/blis-openmp/libblas.so.3",
                        "/lib/x/blas/libblas.so.3"});
  host.selected_blas = "/lib/x/blas/libblas.so.3.11.0";
  std::vector<Knob> knobs = PlanKnobs(host, {"blas"}, {});
  ASSERT_EQ(knobs.size(), 2u);
  EXPECT_EQ(knobs[0].name, "blas=openblas-pthread");
  EXPECT_EQ(knobs[0].env,
            (EnvironmentChange{{"LD_LIBRARY_PATH", "/lib/x/openblas-pthread:/opt/lib"}}));
  EXPECT_EQ(knobs[1].name, "blas=blis-openmp");
  EXPECT_TRUE(knobs[1].applies());

  host.selected_blas = "/lib/x/openblas-pthread/libblas.so.3";
  knobs = PlanKnobs(host, {"blas"}, {});
  EXPECT_EQ(Named(knobs, "blas=openblas-pthread").not_applicable,
            "libblas.so.3 is OpenBLAS already (the alternative this system selects)");

  knobs = PlanKnobs(Host(2, 2, {}, {"/lib/x/blas/libblas.so.3"}), {"blas"}, {});
  ASSERT_EQ(knobs.size(), 1u);
  EXPECT_EQ(knobs[0].not_applicable,
            "no optimised BLAS is installed in /lib/x: install the Debian package "
            "libopenblas0-pthread");
}

TEST(TuneMetricTest, FirstCaptureGroupOrTheWholeMatch) {
  const std::regex group("([0-9.]+) samples/s");
  EXPECT_EQ(MetricOf(group, "epoch 3: 1234.5 samples/s"), 1234.5);
  EXPECT_EQ(MetricOf(group, "nothing here"), std::nullopt);
  EXPECT_EQ(MetricOf(std::regex("[0-9]+"), "took 42 ms"), 42);
  EXPECT_EQ(MetricOf(std::regex("x=(\\S+)"), "x=abc"), std::nullopt);  // no number
}

TuneRun Ran(double value) {
  TuneRun run;
  run.outcome.exited = true;
  run.value = value;
  return run;
}

Variant Measured(std::vector<Knob> knobs, std::vector<double> values) {
  Variant v{.knobs = std::move(knobs)};
  for (double x : values) v.runs.push_back(Ran(x));
  return v;
}

Knob K(const std::string& name, const std::string& var, const std::string& value) {
  return {.group = "user", .name = name, .env = {{var, value}}};
}

TEST(TuneJudge, RangesDecideAndTheBestIsNamed) {
  std::vector<Variant> v;
  v.push_back(Measured({}, {10, 10.5, 11}));
  v.push_back(Measured({K("A=1", "A", "1")}, {7, 7.2, 7.6}));    // beyond: faster
  v.push_back(Measured({K("B=1", "B", "1")}, {9.9, 10.6, 12}));  // overlaps
  v.push_back(Measured({K("C=1", "C", "1")}, {13, 14, 15}));     // beyond: slower
  v.push_back(Measured({K("D=1", "D", "1")}, {5, 5, 5}));        // faster still
  Variant failed = Measured({K("E=1", "E", "1")}, {});
  TuneRun bad;
  bad.outcome.exited = true;
  bad.outcome.exit_code = 3;
  bad.stderr_last_line = "boom";
  failed.runs.push_back(bad);
  v.push_back(failed);
  v.push_back({.knobs = {{.group = "allocator", .name = "jemalloc", .not_applicable = "no"}}});
  const TuneMetric wall;
  JudgeVariants(v, wall);
  EXPECT_EQ(v[0].verdict, Verdict::kBaseline);
  EXPECT_EQ(v[1].verdict, Verdict::kBetter);
  EXPECT_NEAR(*v[1].speedup, 10.5 / 7.2, 1e-9);
  EXPECT_EQ(v[2].verdict, Verdict::kWithinNoise);
  EXPECT_EQ(v[3].verdict, Verdict::kWorse);
  EXPECT_EQ(v[5].verdict, Verdict::kFailed);
  EXPECT_EQ(v[6].verdict, Verdict::kNotApplicable);
  EXPECT_EQ(BestVariant(v), &v[4]);
  // The winners, best first: what the combined variant joins.
  const std::vector<Knob> winners = WinningKnobs(v);
  ASSERT_EQ(winners.size(), 2u);
  EXPECT_EQ(winners[0].name, "D=1");
  EXPECT_EQ(winners[1].name, "A=1");
  EXPECT_EQ(TuneAnswer(v, wall), "D=1: 2.10x faster (wall 10.5 -> 5 s, 3 runs each, spread 10 %)");
  EXPECT_EQ(ApplyLine(&v[4], {"python3", "train.py", "--lr", "0.1 x"}),
            "env D=1 python3 train.py --lr '0.1 x'");
  EXPECT_EQ(ApplyLine(nullptr, {"./a", "b"}), "./a b");
  EXPECT_EQ(ApplyLine(&v[4], {"X=1"}), "env D=1 -- X=1");
}

TEST(TuneJudge, OneKnobPerVariableInTheCombinationAndHigherIsBetter) {
  std::vector<Variant> v;
  v.push_back(Measured({}, {100, 101}));
  v.push_back(Measured({K("threads=1", "OMP_NUM_THREADS", "1")}, {150, 151}));
  v.push_back(Measured({K("threads=2", "OMP_NUM_THREADS", "2")}, {120, 121}));
  v.push_back(Measured({K("B=1", "B", "1")}, {110, 111}));
  JudgeVariants(v, {.pattern = "(\\d+)", .higher_is_better = true});
  EXPECT_EQ(v[1].verdict, Verdict::kBetter);
  EXPECT_NEAR(*v[1].speedup, 150.5 / 100.5, 1e-9);
  const std::vector<Knob> winners = WinningKnobs(v);
  ASSERT_EQ(winners.size(), 2u);
  EXPECT_EQ(winners[0].name, "threads=1");
  EXPECT_EQ(winners[1].name, "B=1");
}

// ONEDNN_DEFAULT_FPMATH_MODE=BF16 makes the program's numbers change: it runs only with bf16
// kernels to use, and only for a program that maps oneDNN; when it wins it is named with what it
// changes, and it is never joined into the combined variant (whose results stay the program's).
TEST(TuneJudge, AKnobThatChangesTheResultsIsNamedSoAndNeverCombined) {
  TuneHost host = Host(2, 2);
  EXPECT_EQ(
      Named(PlanKnobs(host, {"onednn"}, {}), "ONEDNN_DEFAULT_FPMATH_MODE=BF16").not_applicable,
      "no AVX512-BF16 or AMX-BF16 on this host: no bf16 kernel to use");
  host.bf16 = true;
  const Knob fpmath = Named(PlanKnobs(host, {"onednn"}, {}), "ONEDNN_DEFAULT_FPMATH_MODE=BF16");
  EXPECT_TRUE(fpmath.applies());
  EXPECT_EQ(fpmath.read_by, (std::vector<std::string_view>{"oneDNN"}));
  ASSERT_FALSE(fpmath.changes_results.empty());

  std::vector<Variant> v;
  v.push_back(Measured({}, {10, 10.5, 11}));
  v.push_back(Measured({fpmath}, {5, 5.1, 5.2}));
  v.push_back(Measured({K("A=1", "A", "1")}, {8, 8.1, 8.2}));
  v.push_back(Measured({K("B=1", "B", "1")}, {9, 9.1, 9.2}));
  JudgeVariants(v, {});
  EXPECT_EQ(v[1].verdict, Verdict::kBetter);
  const std::vector<Knob> winners = WinningKnobs(v);
  ASSERT_EQ(winners.size(), 2u);
  EXPECT_EQ(winners[0].name, "A=1");
  EXPECT_EQ(winners[1].name, "B=1");
  EXPECT_EQ(TuneAnswer(v, {}),
            "ONEDNN_DEFAULT_FPMATH_MODE=BF16: 2.06x faster (wall 10.5 -> 5.1 s, 3 runs each, "
            "spread 10 %); it changes the results: " +
                std::string(fpmath.changes_results));
}

TEST(TuneJudge, NothingRankedWithOneRunOrAFailedBaseline) {
  std::vector<Variant> v;
  v.push_back(Measured({}, {10}));
  v.push_back(Measured({K("A=1", "A", "1")}, {1}));
  JudgeVariants(v, {});
  EXPECT_EQ(v[1].verdict, Verdict::kWithinNoise);
  EXPECT_EQ(BestVariant(v), nullptr);
  EXPECT_EQ(TuneAnswer(v, {}),
            "no knob beat the baseline beyond the spread of the runs (1 variant run against a "
            "median wall of 10 s): keep the command as it is");
}

}  // namespace
}  // namespace dlcheck::dispatch
