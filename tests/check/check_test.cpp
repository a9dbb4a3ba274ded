// SPDX-License-Identifier: Apache-2.0
// The provisioning check evaluated in-process on constructed evidence: recorded machines from
// tests/data/cpuid and model runs built by hand, so every state (OK, WARNING, CRITICAL, UNKNOWN)
// is reached on any host.
#include "check/check.h"

#include <gtest/gtest.h>

#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>

#include "check/check_report.h"
#include "report/printer.h"
#include "support/run_dlcheck.h"

namespace dlcheck::check {
namespace {

detect::PlatformInfo Recorded(const std::string& file) {
  StatusOr<detect::PlatformInfo> info =
      detect::DetectRecordedPlatform(dlcheck::testing::DataPath("cpuid/" + file));
  EXPECT_TRUE(info.ok()) << info.status().message();
  return info.ok() ? *info : detect::PlatformInfo{};
}

verbose::PrimitiveStats Compute(std::string layer, std::string isa, verbose::ImplClass impl_class) {
  verbose::PrimitiveStats row;
  row.engine = "cpu";
  row.primitive = "inner_product";
  row.implementation = "brgemm:" + isa;
  row.isa = std::move(isa);
  row.impl_class = impl_class;
  row.layer = std::move(layer);
  row.execs = 3;
  return row;
}

// A healthy run: to the end, within tolerance, compute at `isa`.
dispatch::Run HealthyRun(const std::string& isa) {
  dispatch::Run run;
  run.outcome.exited = true;
  dispatch::ModelResults& model = run.model.emplace();
  model.last_phase = "done";
  model.results.backend = "onednn";
  model.results.train_samples = 1000;
  model.results.max_deviation = 2.5e-7;
  model.results.tolerance = 1e-4;
  model.results.samples_per_s = 104233.53125;
  model.results.step_ms_timed = 0.96;
  run.rows = {Compute("fc1", isa, verbose::ImplClass::kJit),
              Compute("fc2", isa, verbose::ImplClass::kJit)};
  return run;
}

Evidence HaswellEvidence() {
  Evidence e{.platform = Recorded("intel-core-i7-4770-cpu.test")};
  e.topology = detect::Topology{.packages = 1, .cores = 4};
  e.run = HealthyRun("avx2");
  return e;
}

Requirements Parse(const std::vector<std::string>& require, int min_sockets = 0, int min_cores = 0,
                   std::string expect_isa = {}) {
  StatusOr<Requirements> r =
      ParseRequirements(require, min_sockets, min_cores, std::move(expect_isa), false);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? *r : Requirements{};
}

const Item* FindItem(const CheckResult& result, const std::string& check) {
  for (const auto& i : result.items) {
    if (i.check == check) return &i;
  }
  return nullptr;
}

TEST(CheckTest, AHealthyNodeIsOkWithItsSummaryAndPerfdata) {
  const Evidence e = HaswellEvidence();
  ASSERT_EQ(e.platform.onednn_max_isa, "avx2");
  const CheckResult r = Evaluate(Parse({"avx2", "FMA"}, 1, 4, "avx2"), e);
  EXPECT_EQ(r.state, State::kOk) << r.summary;
  EXPECT_EQ(r.summary, e.platform.cpu.brand +
                           ", 1 socket, 4 cores, oneDNN avx2, MLP matches the scalar reference, "
                           "5 requirements met");
  EXPECT_EQ(r.perfdata,
            "'samples_per_s'=104233.5;;;0 'threads'=1;;;0 'step_time'=0.000960s;;;0 "
            "'max_deviation'=0.00000025;;;0 'problems'=0;;;0");
  EXPECT_EQ(r.Headline(), "DLCHECK OK - " + r.summary + " | " + r.perfdata);
}

TEST(CheckTest, ThroughputInThePerfdataComesWithItsSpreadAndThreads) {
  Evidence e = HaswellEvidence();
  e.run->model->results.samples_per_s_min = 90000.25;
  e.run->model->results.samples_per_s_max = 120000;
  const CheckResult r = Evaluate(Parse({}), e);
  EXPECT_EQ(r.perfdata.substr(0, r.perfdata.find(" 'step_time'")),
            "'samples_per_s'=104233.5;;;0 'samples_per_s_min'=90000.2;;;0 "
            "'samples_per_s_max'=120000.0;;;0 'threads'=1;;;0");
}

TEST(CheckTest, AMissingFeatureAndAHigherIsaAreCritical) {
  const CheckResult r = Evaluate(Parse({"avx512f", "avx512_core"}), HaswellEvidence());
  EXPECT_EQ(r.state, State::kCritical);
  EXPECT_EQ(r.summary,
            "required avx512f is missing; oneDNN ISA avx2 below the required avx512_core");
  ASSERT_NE(FindItem(r, "require avx512f"), nullptr);
  EXPECT_EQ(FindItem(r, "require avx512f")->detail, "the CPU does not have it");
  EXPECT_NE(r.perfdata.find("'problems'=2;;;0"), std::string::npos) << r.perfdata;
}

// A guest whose hypervisor hides AMX from an Emerald Rapids part (tests/data/cpuid/edited): the
// requirement is still CRITICAL, and its words blame the hypervisor, not the CPU.
TEST(CheckTest, AFeatureTheHypervisorHidesIsNamedHiddenNotAbsent) {
  Evidence e{.platform = Recorded("edited/intel-xeon-emerald-rapids-kvm16-amx-hidden.test")};
  e.topology = detect::Topology{.packages = 1, .cores = 16};
  e.run = HealthyRun("avx512_core_bf16");
  const CheckResult r = Evaluate(Parse({"amx_bf16", "avx512f"}), e);
  EXPECT_EQ(r.state, State::kCritical);
  ASSERT_NE(FindItem(r, "require amx_bf16"), nullptr);
  EXPECT_EQ(FindItem(r, "require amx_bf16")->detail,
            "hidden by the hypervisor: every Emerald Rapids part has it, this guest's CPUID does "
            "not expose it");
  EXPECT_EQ(FindItem(r, "require avx512f")->state, State::kOk);
  // The unedited recording of the same guest exposes AMX: nothing is hidden there.
  const detect::PlatformInfo exposed = Recorded("intel-xeon-emerald-rapids-kvm16.test");
  EXPECT_EQ(exposed.FindFinding("hypervisor-hides"), nullptr);
  EXPECT_FALSE(exposed.FindFeature("amx_bf16")->hidden_by_hypervisor);
}

TEST(CheckTest, ComputeBelowTheExpectedIsaIsCritical) {
  Evidence e = HaswellEvidence();
  e.run->rows.push_back(Compute("fc3", "sse41", verbose::ImplClass::kJit));
  const CheckResult r = Evaluate(Parse({}, 0, 0, "avx2"), e);
  EXPECT_EQ(r.state, State::kCritical);
  EXPECT_EQ(r.summary, "compute dispatched sse41 below the expected avx2");
  EXPECT_EQ(FindItem(r, "expect-isa avx2")->detail, "below avx2: fc3 inner_product (brgemm:sse41)");
}

// An ISA the one ISA table cannot place in the x86 order (AArch64's SVE) is not "below": the
// check cannot tell, so it is UNKNOWN, not CRITICAL.
TEST(CheckTest, AnUnrankableIsaIsUnknownNotCritical) {
  Evidence e = HaswellEvidence();
  e.run->rows = {Compute("fc1", "sve_256", verbose::ImplClass::kJit)};
  const CheckResult r = Evaluate(Parse({}, 0, 0, "avx2"), e);
  EXPECT_EQ(r.state, State::kUnknown);
  EXPECT_EQ(r.summary, "cannot rank sve_256 against the expected avx2");
}

TEST(CheckTest, AScalarFallbackWarnsOrIsCriticalWhenForbidden) {
  Evidence e = HaswellEvidence();
  e.run->rows.push_back(Compute("fc3", "", verbose::ImplClass::kScalar));
  e.run->rows.back().implementation = "ref:any";
  EXPECT_EQ(Evaluate(Parse({}), e).state, State::kWarning);
  StatusOr<Requirements> strict = ParseRequirements({}, 0, 0, "", /*no_scalar_fallback=*/true);
  ASSERT_TRUE(strict.ok());
  const CheckResult r = Evaluate(*strict, e);
  EXPECT_EQ(r.state, State::kCritical);
  EXPECT_EQ(r.summary, "1 scalar fallback(s)");
  EXPECT_EQ(FindItem(r, "scalar fallback")->detail,
            "compute ran on scalar code: fc3 inner_product (ref:any)");
}

TEST(CheckTest, ADeviationBeyondToleranceIsCritical) {
  Evidence e = HaswellEvidence();
  e.run->model->results.max_deviation = 0.5;
  const CheckResult r = Evaluate(Parse({}), e);
  EXPECT_EQ(r.state, State::kCritical);
  EXPECT_EQ(r.summary, "oneDNN disagrees with the scalar reference");
}

TEST(CheckTest, ACrashedWorkerIsCriticalWithItsSignalAndPhase) {
  Evidence e = HaswellEvidence();
  e.run->outcome = {.signaled = true, .signal = SIGILL};
  e.run->model->last_phase = "timed";
  e.run->model->results = {};
  const CheckResult r = Evaluate(Parse({}), e);
  EXPECT_EQ(r.state, State::kCritical);
  EXPECT_EQ(r.summary, "model worker was killed by signal 4 (SIGILL) in phase timed");
  EXPECT_EQ(r.perfdata, "'problems'=1;;;0");
}

// A worker that ran out of memory (its exit status 7) met the machine's limit: UNKNOWN, as
// EXIT STATUS says, not the CRITICAL of a crash.
TEST(CheckTest, AWorkerOutOfMemoryIsUnknownWithItsPhase) {
  Evidence e = HaswellEvidence();
  e.run->outcome = {.exited = true, .exit_code = 7};
  e.run->model->last_phase = "init";
  e.run->model->results = {};
  const CheckResult r = Evaluate(Parse({}), e);
  EXPECT_EQ(r.state, State::kUnknown);
  EXPECT_EQ(r.summary, "model worker out of memory in phase init");
}

TEST(CheckTest, MissingEvidenceIsUnknownAndComesFirst) {
  Evidence e = HaswellEvidence();
  e.run.reset();
  e.run_error = "cannot start worker /nonexistent: No such file or directory";
  e.topology.reset();
  e.topology_error = "hwloc failed";
  const CheckResult r = Evaluate(Parse({"avx512f"}, 2), e);
  EXPECT_EQ(r.state, State::kUnknown);
  EXPECT_EQ(r.summary,
            "topology unknown; the model worker could not start; required avx512f is missing");
  EXPECT_EQ(FindItem(r, "model run")->detail, e.run_error);
}

TEST(CheckTest, LibcpuidGapsAreNotesNotWarnings) {
  // Debian's libcpuid 0.6.2 sees no AVX-512 on Zen 4; the finding carries its topic.
  Evidence e{.platform = Recorded("amd-ryzen-9-7900x-12-core-processor.test")};
  e.run = HealthyRun("avx512_core");
  const Finding* gap = e.platform.FindFinding("libcpuid-no-avx512");
  if (gap == nullptr) GTEST_SKIP() << "this libcpuid decodes AVX-512 on Zen 4";
  EXPECT_EQ(gap->topic, Topic::kLibcpuid);
  const CheckResult r = Evaluate(Parse({"avx512bw"}), e);
  const Item* note = FindItem(r, "platform libcpuid-no-avx512");
  ASSERT_NE(note, nullptr);
  EXPECT_EQ(note->state, State::kOk);
  EXPECT_EQ(FindItem(r, "require avx512bw")->state, State::kOk);
  EXPECT_EQ(r.state, State::kOk) << r.summary;
}

TEST(CheckTest, RequirementsAreFeaturesOrIsasInAnyCase) {
  const Requirements r = Parse({"AVX512BW", "", "avx512_core_bf16"}, 0, 0, "AVX2");
  ASSERT_EQ(r.require.size(), 2u);
  EXPECT_EQ(r.require[0].name, "avx512bw");
  EXPECT_FALSE(r.require[0].is_isa);
  EXPECT_EQ(r.require[1].name, "avx512_core_bf16");
  EXPECT_TRUE(r.require[1].is_isa);
  EXPECT_EQ(r.expect_isa, "avx2");
  EXPECT_EQ(r.Count(), 3u);

  const StatusOr<Requirements> bad = ParseRequirements({"avx512f", "sse9"}, 0, 0, "", false);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ExitCode::kUsage);
  EXPECT_EQ(bad.status().message(),
            "--require: 'sse9' is neither a feature (a /proc/cpuinfo name such as avx512bw) nor a "
            "oneDNN ISA (sse41, avx, avx2, avx2_vnni, avx512_core, avx512_core_vnni, "
            "avx512_core_bf16, avx512_core_amx; oneDNN 3.x: avx2_vnni_2, avx512_core_fp16, "
            "avx10_1_512, avx10_1_512_amx, avx512_core_amx_fp16, avx10_1_512_amx_fp16, avx10_2, "
            "avx10_2_512, avx10_2_amx_2, avx10_2_512_amx_2); did you mean 'sse41'?");
  EXPECT_FALSE(ParseRequirements({}, 0, 0, "avx9", false).ok());
}

// oneDNN 3.x's levels are a check's words too, held against the host's 3.x level: the guest
// that hides AMX from Emerald Rapids dispatches avx512_core_bf16 in 2.6 and avx512_core_fp16
// (avx10_1_512) in 3.x.
TEST(CheckTest, OneDnn3LevelsAreRequiredOfTheHostsOneDnn3Level) {
  const Requirements r =
      Parse({"AVX512_CORE_FP16", "avx10_1_512", "avx512_core_amx_fp16"}, 0, 0, "avx2_vnni_2");
  ASSERT_EQ(r.require.size(), 3u);
  EXPECT_TRUE(r.require[0].is_isa);
  Evidence e{.platform = Recorded("edited/intel-xeon-emerald-rapids-kvm16-amx-hidden.test")};
  e.topology = detect::Topology{.packages = 1, .cores = 16};
  e.run = HealthyRun("avx512_core_bf16");
  const CheckResult result = Evaluate(r, e);
  EXPECT_EQ(FindItem(result, "require avx512_core_fp16")->state, State::kOk);
  EXPECT_EQ(FindItem(result, "require avx512_core_fp16")->detail,
            "oneDNN 3.x dispatches up to avx512_core_fp16");
  EXPECT_EQ(FindItem(result, "require avx10_1_512")->state, State::kOk);
  EXPECT_EQ(FindItem(result, "require avx512_core_amx_fp16")->state, State::kCritical);
  EXPECT_EQ(FindItem(result, "require avx512_core_amx_fp16")->summary,
            "oneDNN 3.x ISA avx512_core_fp16 below the required avx512_core_amx_fp16");
  // The model ran on the linked 2.6.3, which has no avx2_vnni_2: its rows are held to the level
  // 2.6.3 dispatches here, and the host's 3.x level (avx512_core_fp16) is above avx2_vnni_2.
  const Item* expect = FindItem(result, "expect-isa avx2_vnni_2");
  ASSERT_NE(expect, nullptr);
  EXPECT_EQ(expect->state, State::kOk);
  EXPECT_EQ(expect->detail,
            "2 compute primitives at avx512_core_bf16 or above (lowest avx512_core_bf16) (the "
            "model ran on oneDNN 2.x, which has no avx2_vnni_2: held to avx512_core_bf16, its "
            "level on this CPU, whose oneDNN 3.x level is avx512_core_fp16)");
  EXPECT_EQ(result.state, State::kCritical);
}

// Haswell's oneDNN 3.x level is avx2: an expected avx2_vnni_2 is out of the host's reach.
TEST(CheckTest, AnExpectedOneDnn3LevelAboveTheHostIsCritical) {
  const CheckResult r = Evaluate(Parse({}, 0, 0, "avx2_vnni_2"), HaswellEvidence());
  EXPECT_EQ(r.state, State::kCritical);
  EXPECT_EQ(r.summary, "oneDNN 3.x ISA avx2 below the expected avx2_vnni_2");
}

// A 3.x log's ISA column (3.5+ names: avx10_1_512 is avx512_core_fp16) is compared as it is.
TEST(CheckTest, AOneDnn3LogIsComparedWithTheExpectedLevelItself) {
  Evidence e{.platform = Recorded("edited/intel-xeon-emerald-rapids-kvm16-amx-hidden.test")};
  e.topology = detect::Topology{.packages = 1, .cores = 16};
  e.run = HealthyRun("avx10_1_512");
  e.run->header.library_version = "oneDNN v3.7.1 (commit 8d263e693366ef8db40acc569cc7d8edf644556d)";
  EXPECT_EQ(
      FindItem(Evaluate(Parse({}, 0, 0, "avx512_core_fp16"), e), "expect-isa avx512_core_fp16")
          ->state,
      State::kOk);
  e.run->rows.push_back(Compute("fc3", "avx512_core_bf16", verbose::ImplClass::kJit));
  const CheckResult below = Evaluate(Parse({}, 0, 0, "avx512_core_fp16"), e);
  EXPECT_EQ(below.state, State::kCritical);
  EXPECT_EQ(FindItem(below, "expect-isa avx512_core_fp16")->summary,
            "compute dispatched avx512_core_bf16 below the expected avx512_core_fp16");
}

// The report: one model, every format; numbers stay numbers.
TEST(CheckReportTest, FormatsAgreeAndNumbersAreTyped) {
  const Evidence e = HaswellEvidence();
  const CheckResult result = Evaluate(Parse({"avx2"}), e);
  ModelPass ran;
  ran.source.run.model.batch = 64;
  ran.source.run.iters = 7;
  report::Report report;
  AddCheckReport(result, e, ran, report);

  std::ostringstream table, csv, json;
  report::Print(report, report::Format::kTable, table);
  report::Print(report, report::Format::kCsv, csv);
  report::Print(report, report::Format::kJson, json);
  EXPECT_EQ(table.str().substr(0, table.str().find('\n')), result.Headline());

  const auto doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["check"]["status"], "OK");
  EXPECT_EQ(doc["check"]["exit_status"], 0);
  EXPECT_EQ(doc["run"]["batch"], 64) << "the options that ran, not literals";
  EXPECT_EQ(doc["run"]["timed_iters"], 7);
  EXPECT_TRUE(doc["run"]["timed_s"].is_null()) << "--iters fixed the count: no time budget";
  EXPECT_TRUE(doc["run"]["samples_per_s"].is_number());
  EXPECT_NEAR(doc["run"]["samples_per_s"].get<double>(), 104233.5, 0.1);
  EXPECT_TRUE(doc["run"]["max_deviation"].is_number());
  EXPECT_EQ(doc["run"]["train_samples"], 1000);
  ASSERT_EQ(doc["checks"].size(), result.items.size());

  const std::string text = csv.str();
  EXPECT_EQ(text.substr(0, text.find("\r\n")), "check,status,detail");
  std::size_t records = 0;
  for (std::size_t p = 0; (p = text.find("\r\n", p)) != std::string::npos; p += 2) ++records;
  EXPECT_EQ(records, result.items.size() + 1);
}

// Nagios perfdata values are fixed-point ([-0-9.] in the plugin guidelines), whatever the size.
TEST(CheckTest, PerfdataNumbersAreFixedPointWithTheirSignificantDigits) {
  EXPECT_EQ(PerfdataNumber(3.81e-06, 3), "0.00000381");
  EXPECT_EQ(PerfdataNumber(0.5, 3), "0.5");
  EXPECT_EQ(PerfdataNumber(123456.0, 3), "123456");
  EXPECT_EQ(PerfdataNumber(-2.5e-3, 2), "-0.0025");
  EXPECT_EQ(PerfdataNumber(0.0, 3), "0");
  EXPECT_EQ(PerfdataNumber(1e-30, 3), "0");
  for (double v : {1e-12, 7.77e-9, 4.2e-4, 9.99, 1e9}) {
    const std::string text = PerfdataNumber(v, 3);
    EXPECT_EQ(text.find_first_not_of("-0123456789."), std::string::npos) << text;
    EXPECT_NEAR(std::stod(text), v, v * 1e-2) << text;
  }
}

}  // namespace
}  // namespace dlcheck::check
