// SPDX-License-Identifier: Apache-2.0
#include "detect/probe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace dlcheck::detect {
namespace {

std::set<std::string> KernelFlags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    }
  }
  return {};
}

TEST(ProbeTest, TheFaultingProbeFaultsWithSigill) {
  const ProbeResult r = RunProbe(kFaultingProbe);
  EXPECT_EQ(r.state, ProbeState::kFaulted);
  EXPECT_EQ(r.detail, "SIGILL");
}

TEST(ProbeTest, UnknownFeatureHasNoProbe) {
  EXPECT_EQ(RunProbe("avx1024").state, ProbeState::kNoProbe);
}

// Invariant on the live host: whatever the kernel lists (it lists only what CPUID has and the OS
// enabled) executes.
TEST(ProbeTest, EveryFeatureTheKernelListsExecutes) {
  const auto flags = KernelFlags();
  ASSERT_FALSE(flags.empty()) << "no flags line in /proc/cpuinfo";
  int probed = 0;
  for (std::string_view feature : ProbedFeatures()) {
    if (!flags.count(std::string(feature))) continue;
    const ProbeResult r = RunProbe(feature);
    EXPECT_EQ(r.state, ProbeState::kPassed) << feature << ": " << r.detail;
    ++probed;
  }
  EXPECT_GT(probed, 0) << "every x86-64 Linux machine dlcheck supports lists sse4_1";
}

// --- which features to probe, and what a result means (pure: no instruction runs) -----------

PlatformInfo Claims(std::initializer_list<std::string> claimed) {
  PlatformInfo info;
  for (const std::string& name : ReportedFeatures()) {
    FeatureLayers f;
    f.name = name;
    f.cpu = std::find(claimed.begin(), claimed.end(), name) != claimed.end();
    info.features.push_back(f);
  }
  return info;
}

TEST(ProbesToRunTest, ClaimedFeaturesInReportOrderThenForcedExtras) {
  const PlatformInfo info = Claims({"avx512f", "sse4_1", "avx2"});
  EXPECT_EQ(ProbesToRun(info, true, {}), (std::vector<std::string>{"sse4_1", "avx2", "avx512f"}));
  EXPECT_EQ(ProbesToRun(info, false, {"ud2", "amx_tile", "avx2"}),
            (std::vector<std::string>{"avx2", "amx_tile", "ud2"}));
  EXPECT_TRUE(ProbesToRun(info, false, {}).empty());
}

TEST(ProbesToRunTest, ClaimedFeaturesWithoutAProbeAreLeftOut) {
  // Knights Landing's ER and PF: dlcheck has no probe for them.
  EXPECT_TRUE(ProbesToRun(Claims({"avx512er", "avx512pf"}), true, {}).empty());
}

TEST(CheckProbeNameTest, NamesWhatDlcheckCanProbe) {
  EXPECT_FALSE(CheckProbeName("avx512f").has_value());
  EXPECT_FALSE(CheckProbeName(std::string(kFaultingProbe)).has_value());
  const std::optional<std::string> error = CheckProbeName("avx1024");
  ASSERT_TRUE(error.has_value());
  EXPECT_EQ(error->rfind("--probe: dlcheck has no probe for 'avx1024' (it has: sse4_1,", 0), 0u)
      << *error;
  EXPECT_TRUE(error->ends_with(",ud2)")) << *error;
}

TEST(ProbeFindingsTest, EachResultAgainstTheClaim) {
  PlatformInfo info = Claims({"avx512f", "amx_tile"});
  for (FeatureLayers& f : info.features) {
    if (f.name == "amx_tile") f.usable = false;  // the OS did not enable the tile state
  }
  const std::vector<ProbeResult> probes = {
      {"avx512f", ProbeState::kFaulted, "SIGILL"}, {"amx_tile", ProbeState::kFaulted, "SIGILL"},
      {"avx2", ProbeState::kPassed, ""},           {"avx512bw", ProbeState::kFaulted, "SIGILL"},
      {"ud2", ProbeState::kFaulted, "SIGILL"},     {"sse4_1", ProbeState::kError, "fork failed"},
  };
  const std::vector<Finding> findings = ProbeFindings(info, probes);
  ASSERT_EQ(findings.size(), 6u);
  EXPECT_EQ(findings[0].code, "probe-faults");
  EXPECT_EQ(findings[0].severity, Severity::kWarning);
  EXPECT_EQ(findings[0].message,
            "CPUID claims avx512f but the instruction faults (SIGILL): the hypervisor or kernel "
            "hides it");
  EXPECT_EQ(findings[1].code, "probe-faults-os-disabled");
  EXPECT_EQ(findings[1].severity, Severity::kInfo);
  EXPECT_EQ(findings[2].code, "probe-runs-unclaimed");
  EXPECT_EQ(findings[2].message, "CPUID denies avx2 but its instruction runs");
  EXPECT_EQ(findings[3].code, "probe-faults-as-expected");
  EXPECT_EQ(findings[3].message,
            "the avx512bw instruction does not run (SIGILL), as CPUID says: this CPU does not "
            "have it");
  EXPECT_EQ(findings[4].message,
            "the ud2 probe faults (SIGILL), as it always does: the fault path works");
  EXPECT_EQ(findings[5].code, "probe-error");
  EXPECT_EQ(findings[5].message, "the probe of sse4_1 could not run: fork failed");
}

TEST(ProbeFindingsTest, AProbeThatConfirmsTheClaimSaysNothing) {
  const PlatformInfo info = Claims({"avx2"});
  EXPECT_TRUE(ProbeFindings(info, {{"avx2", ProbeState::kPassed, ""}}).empty());
  EXPECT_EQ(FindProbe({{"avx2", ProbeState::kPassed, ""}}, "avx2")->state, ProbeState::kPassed);
  EXPECT_EQ(FindProbe({}, "avx2"), nullptr);
}

}  // namespace
}  // namespace dlcheck::detect
