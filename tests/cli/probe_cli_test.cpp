// SPDX-License-Identifier: Apache-2.0
// `dlcheck platform --probe`: execution probes next to the CPUID claim. Invariants only: which
// features get probed follows from the CPUID layer; the fault path is forced with features
// CPUID denies and with the ud2 probe, which faults everywhere.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "common/exit_code.h"
#include "detect/probe.h"
#include "support/run_dlcheck.h"

namespace dlcheck {
namespace {

using testing::DataPath;
using testing::RunDlcheck;

bool HasProbe(const std::string& feature) {
  for (auto name : detect::ProbedFeatures()) {
    if (name == feature) return true;
  }
  return false;
}

TEST(ProbeCliTest, ProbesExactlyWhatCpuidClaims) {
  const auto r = RunDlcheck({"platform", "--probe", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  int probed = 0;
  for (const auto& [name, f] : j["features"].items()) {
    const bool should = f["cpuid"] == true && HasProbe(name);
    EXPECT_EQ(!f["probe"].is_null(), should) << name;
    // A feature the CPU claims, the OS enabled and the kernel lists must run; a false here is
    // the finding the probe exists for.
    if (should && f["usable"] == true && f["kernel"] == true) {
      EXPECT_EQ(f["probe"], true) << name;
    }
    probed += should;
  }
  EXPECT_EQ(j["probes"].size(), static_cast<std::size_t>(probed));
  EXPECT_GT(probed, 0);  // every x86-64 machine running oneDNN claims sse4_1
}

TEST(ProbeCliTest, WithoutProbeTheColumnIsNull) {
  const auto r = RunDlcheck({"platform", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  for (const auto& [name, f] : j["features"].items()) EXPECT_TRUE(f["probe"].is_null()) << name;
  EXPECT_TRUE(j["probes"].is_null());  // no probe table: every declared key is there, null
}

// The probed features CPUID denies and grants on this host, in probe order. A machine may have
// every feature dlcheck can probe (an Emerald Rapids Xeon has all of them but AMX-FP16, which
// dlcheck does not probe), so neither list may be assumed non-empty.
void SplitProbedFeaturesByCpuid(std::vector<std::string>& denied,
                                std::vector<std::string>& granted) {
  const auto all = RunDlcheck({"platform", "--format", "json"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  const nlohmann::json features = nlohmann::json::parse(all.out)["features"];
  for (auto name : detect::ProbedFeatures()) {
    (features[std::string(name)]["cpuid"] == true ? granted : denied).emplace_back(name);
  }
}

nlohmann::json ForcedProbe(const std::string& feature) {
  const auto r = RunDlcheck({"platform", "--probe", feature, "--format", "json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(ProbeCliTest, ForcedProbeOfADeniedFeatureFaultsCleanly) {
  std::vector<std::string> denied, granted;
  SplitProbedFeaturesByCpuid(denied, granted);
  // Every probed feature CPUID denies here faults cleanly, with the finding that says so (none
  // on a machine that has them all; the ud2 test below covers the fault path everywhere).
  for (const std::string& feature : denied) {
    const nlohmann::json j = ForcedProbe(feature);
    ASSERT_EQ(j["probes"].size(), 1u) << j;
    EXPECT_EQ(j["probes"][0]["feature"], feature);
    EXPECT_EQ(j["probes"][0]["cpuid"], false);
    EXPECT_EQ(j["probes"][0]["probe"], false);
    EXPECT_EQ(j["features"][feature]["probe"], false);
    const std::string detail = j["probes"][0]["detail"];
    bool finding = false;
    for (const auto& f : j["findings"]) {
      finding |= f["message"] == "the " + feature + " instruction does not run (" + detail +
                                     "), as CPUID says: this CPU does not have it";
    }
    EXPECT_TRUE(finding) << j;
  }
}

TEST(ProbeCliTest, ForcedProbeOfAGrantedFeatureIsReportedForThatFeatureOnly) {
  std::vector<std::string> denied, granted;
  SplitProbedFeaturesByCpuid(denied, granted);
  ASSERT_FALSE(granted.empty());  // oneDNN's minimum, SSE4.1, is a probed feature
  for (const std::string& feature : granted) {
    const nlohmann::json j = ForcedProbe(feature);
    ASSERT_EQ(j["probes"].size(), 1u) << j;
    EXPECT_EQ(j["probes"][0]["feature"], feature);
    EXPECT_EQ(j["probes"][0]["cpuid"], true);
    // A feature the CPU claims and the OS enables runs; one the OS leaves off may fault.
    if (j["features"][feature]["usable"] == true) {
      EXPECT_EQ(j["probes"][0]["probe"], true) << j;
    }
    EXPECT_EQ(j["features"][feature]["probe"], j["probes"][0]["probe"]);
  }
}

TEST(ProbeCliTest, Ud2ProbeFaultsEverywhere) {
  const auto r = RunDlcheck({"platform", "--probe", "ud2", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["probes"].size(), 1u) << r.out;
  EXPECT_EQ(j["probes"][0]["probe"], false);
  EXPECT_EQ(j["probes"][0]["detail"], "SIGILL");
  bool finding = false;
  for (const auto& f : j["findings"]) {
    finding |= f["message"] ==
               "the ud2 probe faults (SIGILL), as it always does: the fault path "
               "works";
  }
  EXPECT_TRUE(finding) << r.out;
}

TEST(ProbeCliTest, ProbeWithARecordingIsAUsageError) {
  const auto r =
      RunDlcheck({"platform", "--probe", "--cpuid-dump", DataPath("platform/unknown-cpu.test")});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err,
            "dlcheck: --probe runs instructions on this machine and cannot be combined with "
            "--cpuid-dump (the recorded machine is not this one)\n");
  EXPECT_TRUE(r.out.empty());
}

TEST(ProbeCliTest, UnknownProbeIsAUsageError) {
  const auto r = RunDlcheck({"platform", "--probe", "sse9"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err,
            "dlcheck: --probe: dlcheck has no probe for 'sse9' (it has: sse4_1,sse4_2,avx,avx2,fma,"
            "f16c,avx512f,avx512cd,avx512bw,avx512dq,avx512vl,avx512ifma,avx512vbmi,avx512_vbmi2,"
            "avx512_vnni,avx512_bitalg,avx512_vpopcntdq,avx512_bf16,avx512_fp16,avx_vnni,amx_tile,"
            "amx_bf16,amx_int8,ud2)\n");
}

}  // namespace
}  // namespace dlcheck
