// SPDX-License-Identifier: Apache-2.0
// One node's check in the words of Slurm, NFD and Prometheus, from recorded machines
// (tests/data/cpuid): every Slurm token is one slurmd accepts, every NFD label passes the
// Kubernetes label rules, and `promtool check metrics` (Debian's prometheus) accepts the textfile.
#include "fleet/node_outputs.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <sstream>

#include "detect/pmu.h"
#include "roofline/machine_profile.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

namespace dlcheck::fleet {
namespace {

check::Evidence Recorded(const std::string& file) {
  StatusOr<detect::PlatformInfo> info =
      detect::DetectRecordedPlatform(dlcheck::testing::DataPath("cpuid/" + file));
  EXPECT_TRUE(info.ok()) << info.status().message();
  check::Evidence e;
  if (info.ok()) e.platform = *info;
  return e;
}

check::CheckResult WithState(check::State state) {
  check::CheckResult r;
  r.state = state;
  r.summary = "constructed";
  return r;
}

bool Has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

const char* const kMachines[] = {"intel-xeon-w9-3475x.test.xz",
                                 "amd-ryzen-9-9950x-16-core-processor.test",
                                 "intel-core-i7-4770-cpu.test", "intel-xeon-cpu-e7450-quad.test"};

TEST(SlurmFeaturesTest, SapphireRapidsHasAmxAndItsOneDnnLevel) {
  const check::Evidence e = Recorded("intel-xeon-w9-3475x.test.xz");
  const auto features = SlurmFeatures(WithState(check::State::kOk), e);
  EXPECT_TRUE(Has(features, "amx_tile"));
  EXPECT_TRUE(Has(features, "avx512_bf16"));
  EXPECT_TRUE(Has(features, "onednn_" + e.platform.onednn_max_isa));
  EXPECT_TRUE(Has(features, "dlcheck_ok"));
  EXPECT_TRUE(std::is_sorted(features.begin(), features.end()));
}

using Levels = std::vector<std::string>;

TEST(OneDnnLevelsTest, AreCumulativeUpToTheNodesLevel) {
  EXPECT_EQ(OneDnnLevelsMet(Recorded("intel-xeon-w9-3475x.test.xz").platform),
            (Levels{"sse41", "avx", "avx2", "avx2_vnni", "avx512_core", "avx512_core_vnni",
                    "avx512_core_bf16", "avx512_core_amx"}));
  EXPECT_EQ(OneDnnLevelsMet(Recorded("intel-core-i7-4770-cpu.test").platform),
            (Levels{"sse41", "avx", "avx2"}));
  EXPECT_EQ(OneDnnLevelsMet(Recorded("intel-xeon-cpu-e7450-quad.test").platform),
            (Levels{"sse41"}));
}

TEST(OneDnnLevelsTest, Avx2VnniOnlyWhereAvxVnniIsUsable) {
  // Cascade Lake: AVX-512 VNNI, no AVX-VNNI (VEX): avx2_vnni is beside avx512_core, not below.
  EXPECT_EQ(OneDnnLevelsMet(Recorded("intel-xeon-platinum-8280-cpu.test.xz").platform),
            (Levels{"sse41", "avx", "avx2", "avx512_core", "avx512_core_vnni"}));
  // Zen 4 has no AVX-VNNI, Zen 5 has it: both are avx512_core_bf16 nodes.
  EXPECT_EQ(
      OneDnnLevelsMet(Recorded("amd-ryzen-9-7900x-12-core-processor.test").platform),
      (Levels{"sse41", "avx", "avx2", "avx512_core", "avx512_core_vnni", "avx512_core_bf16"}));
  EXPECT_EQ(OneDnnLevelsMet(Recorded("amd-ryzen-9-9950x-16-core-processor.test").platform),
            (Levels{"sse41", "avx", "avx2", "avx2_vnni", "avx512_core", "avx512_core_vnni",
                    "avx512_core_bf16"}));
  // Alder Lake (AVX-512 off): AVX-VNNI is its top level.
  EXPECT_EQ(OneDnnLevelsMet(Recorded("12th-gen-intel-core-i9-12900k.test").platform),
            (Levels{"sse41", "avx", "avx2", "avx2_vnni"}));
}

TEST(OneDnnLevelsTest, AnEffectiveCapLowersTheLevels) {
  detect::PlatformInfo p = Recorded("intel-xeon-w9-3475x.test.xz").platform;
  p.onednn_effective_isa = "avx2";
  EXPECT_EQ(OneDnnLevelsMet(p), (Levels{"sse41", "avx", "avx2"}));
  p.onednn_effective_isa = "none";
  EXPECT_TRUE(OneDnnLevelsMet(p).empty());
}

TEST(SlurmFeaturesTest, AnAmxNodeMeetsABf16Constraint) {
  // `srun -C onednn_avx512_core_bf16` must land on an AMX node, which is better than bf16.
  const auto features =
      SlurmFeatures(WithState(check::State::kOk), Recorded("intel-xeon-w9-3475x.test.xz"));
  for (const char* level : {"onednn_avx512_core", "onednn_avx512_core_bf16",
                            "onednn_avx512_core_amx", "onednn_avx2", "onednn_sse41"}) {
    EXPECT_TRUE(Has(features, level)) << level;
  }
  const auto haswell =
      SlurmFeatures(WithState(check::State::kOk), Recorded("intel-core-i7-4770-cpu.test"));
  EXPECT_TRUE(Has(haswell, "onednn_avx2"));
  EXPECT_FALSE(Has(haswell, "onednn_avx512_core"));
}

TEST(SlurmFeaturesTest, HaswellHasAvx2ButNoAvx512AndTheStateIsNamed) {
  const auto features =
      SlurmFeatures(WithState(check::State::kCritical), Recorded("intel-core-i7-4770-cpu.test"));
  EXPECT_TRUE(Has(features, "avx2"));
  EXPECT_FALSE(Has(features, "avx512f"));
  EXPECT_TRUE(Has(features, "dlcheck_critical"));
  EXPECT_FALSE(Has(features, "dlcheck_ok"));
}

TEST(SlurmFeaturesTest, EveryTokenIsOneSlurmAccepts) {
  for (const char* machine : kMachines) {
    for (const auto& f : SlurmFeatures(WithState(check::State::kWarning), Recorded(machine))) {
      EXPECT_TRUE(std::regex_match(f, std::regex("[a-z][a-z0-9_]*"))) << machine << ": " << f;
    }
  }
  EXPECT_FALSE(IsSlurmFeatureToken("a|b"));
  EXPECT_FALSE(IsSlurmFeatureToken("a,b"));
  EXPECT_FALSE(IsSlurmFeatureToken("1abc"));
  EXPECT_FALSE(IsSlurmFeatureToken(""));
}

TEST(SlurmNodeLineTest, IsSlurmdMinusCsShapeWithFeatures) {
  detect::Topology dual;  // two sockets of 56 cores, SMT 2
  dual.packages = 2;
  dual.cores = 112;
  dual.pus = 224;
  EXPECT_EQ(SlurmNodeLine("node[1-64]", NodeHardware(dual, 515703), {"avx2", "dlcheck_ok"}),
            "NodeName=node[1-64] CPUs=224 Boards=1 SocketsPerBoard=2 CoresPerSocket=56 "
            "ThreadsPerCore=2 RealMemory=515703 Features=avx2,dlcheck_ok");
}

TEST(SlurmNodeLineTest, WithoutATopologyOnlyNameAndFeatures) {
  EXPECT_FALSE(NodeHardware(detect::Topology{}, 1024));
  EXPECT_EQ(SlurmNodeLine("node7", std::nullopt, {"avx2", "dlcheck_ok"}),
            "NodeName=node7 Features=avx2,dlcheck_ok");
}

TEST(NfdTest, EveryLabelPassesTheKubernetesRules) {
  const std::regex line("dlcheck\\.feature\\.node\\.kubernetes\\.io/([^=]+)=(.*)");
  for (const char* machine : kMachines) {
    const std::string file =
        NfdFeatureFile(WithState(check::State::kOk), Recorded(machine), "2026-11-23T01:00:00Z");
    std::istringstream in(file);
    std::string text;
    int labels = 0;
    while (std::getline(in, text)) {
      if (text.rfind('#', 0) == 0) continue;
      std::smatch m;
      ASSERT_TRUE(std::regex_match(text, m, line)) << machine << ": " << text;
      EXPECT_TRUE(IsValidLabelName(m[1].str())) << text;
      EXPECT_TRUE(IsValidLabelValue(m[2].str())) << text;
      ++labels;
    }
    EXPECT_GE(labels, 3) << machine;
    EXPECT_NE(file.find("\n# +expiry-time=2026-11-23T01:00:00Z\n"), std::string::npos);
  }
}

TEST(NfdTest, LabelsAddWhatNfdLacksAndNotItsCpuidFlags) {
  const std::string file = NfdFeatureFile(WithState(check::State::kCritical),
                                          Recorded("intel-xeon-w9-3475x.test.xz"), "");
  EXPECT_NE(file.find("/check-status=critical\n"), std::string::npos) << file;
  EXPECT_NE(file.find("/onednn-max-isa=avx512_core_amx\n"), std::string::npos) << file;
  // Cumulative levels, as the Slurm tokens: a selector on bf16 takes this AMX node.
  EXPECT_NE(file.find("/onednn.avx512_core_bf16=true\n"), std::string::npos) << file;
  EXPECT_NE(file.find("/onednn.avx512_core_amx=true\n"), std::string::npos) << file;
  EXPECT_NE(file.find("/onednn.sse41=true\n"), std::string::npos) << file;
  EXPECT_EQ(file.find("avx512f"), std::string::npos) << "NFD's cpu source has it: " << file;
  EXPECT_EQ(file.find("expiry"), std::string::npos);
}

// The AMX labels and token come from the record's generic answers: the x86 part's XCR0 (the
// OS saves the tile state) and its arch_prctl grant, as a live Sapphire Rapids would hold them.
TEST(NfdTest, AmxStateAndGrantAreSaidFromTheMachineRecord) {
  check::Evidence e = Recorded("intel-xeon-w9-3475x.test.xz");
  ASSERT_NE(e.platform.x86(), nullptr);
  EXPECT_EQ(NfdFeatureFile(WithState(check::State::kOk), e, "").find("amx-"), std::string::npos)
      << "a recording knows neither XCR0 nor the grant";
  e.platform.x86()->xcr0 = 0x600E7;  // x87 ... ZMM and the tile state (bits 17-18)
  e.platform.x86()->amx_permission = false;
  const std::string denied = NfdFeatureFile(WithState(check::State::kOk), e, "");
  EXPECT_NE(denied.find("/amx-os-state=true\n"), std::string::npos) << denied;
  EXPECT_NE(denied.find("/amx-permission=false\n"), std::string::npos) << denied;
  EXPECT_FALSE(Has(SlurmFeatures(WithState(check::State::kOk), e), "amx_permission"));

  e.platform.x86()->xcr0 = 0xE7;  // no tile state
  e.platform.x86()->amx_permission = true;
  const std::string no_state = NfdFeatureFile(WithState(check::State::kOk), e, "");
  EXPECT_NE(no_state.find("/amx-os-state=false\n"), std::string::npos) << no_state;
  EXPECT_NE(no_state.find("/amx-permission=true\n"), std::string::npos) << no_state;
  EXPECT_TRUE(Has(SlurmFeatures(WithState(check::State::kOk), e), "amx_permission"));
}

// An AArch64 node's levels are the AArch64 caps below its level, in oneDNN's order.
TEST(OneDnnLevelsTest, Aarch64LevelsAreCumulativeInTheirOwnOrder) {
  EXPECT_EQ(OneDnnLevelsMet("sve_256", false), (Levels{"asimd", "sve_128", "sve_256"}));
  EXPECT_EQ(OneDnnLevelsMet("asimd", false), (Levels{"asimd"}));
  EXPECT_EQ(OneDnnLevelsMet("sve", false), Levels{});  // no length: no place in the order
}

TEST(NfdTest, LabelRulesAreKubernetes) {
  EXPECT_TRUE(IsValidLabelValue(""));
  EXPECT_TRUE(IsValidLabelValue("avx512_core_bf16"));
  EXPECT_FALSE(IsValidLabelValue("Zen 5"));
  EXPECT_FALSE(IsValidLabelValue("-x"));
  EXPECT_FALSE(IsValidLabelValue(std::string(64, 'a')));
  EXPECT_TRUE(IsValidLabelValue(std::string(63, 'a')));
  EXPECT_FALSE(IsValidLabelName(""));
}

class PrometheusTest : public dlcheck::testing::ScratchDirTest {
 protected:
  // promtool's exit status and messages for `text` on its stdin.
  int Promtool(const std::string& text, std::string& messages) {
    const std::string input = Write("metrics.prom", text);
    const std::string command = "promtool check metrics < '" + input + "' 2>&1";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr) return -1;
    char buffer[512];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) messages += buffer;
    const int status = ::pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

TEST_F(PrometheusTest, PromtoolAcceptsTheTextfileOfEveryMachine) {
  for (const char* machine : kMachines) {
    const std::string text =
        PrometheusTextfile(WithState(check::State::kWarning), Recorded(machine));
    std::string messages;
    EXPECT_EQ(Promtool(text, messages), 0) << machine << ":\n" << messages << text;
    EXPECT_EQ(messages, "") << machine;
    EXPECT_NE(text.find("\ndlcheck_check_status 1\n"), std::string::npos) << text;
    EXPECT_NE(text.find("dlcheck_info{dlcheck_version=\""), std::string::npos) << text;
  }
}

TEST_F(PrometheusTest, ThroughputComesWithItsThreadsAndSpread) {
  check::Evidence e = Recorded("intel-core-i7-4770-cpu.test");
  e.run.emplace().model.emplace();
  e.run->model->results.samples_per_s = 1000;
  e.run->model->results.samples_per_s_min = 800;
  e.run->model->results.samples_per_s_max = 1250;
  const std::string text = PrometheusTextfile(WithState(check::State::kOk), e);
  EXPECT_NE(text.find("\ndlcheck_model_samples_per_second 1000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ndlcheck_model_threads 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ndlcheck_model_samples_per_second_min 800\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ndlcheck_model_samples_per_second_max 1250\n"), std::string::npos) << text;
  std::string messages;
  EXPECT_EQ(Promtool(text, messages), 0) << messages << text;
  EXPECT_EQ(messages, "");
}

// The node's limits from a stored machine profile (tests/data/roofline/round_roofs.json: DRAM
// 20 GB/s, f32 100 and int8 200 GOP/s, measured 2026-12-07T00:00:00Z) and its hardware counters
// from recorded sysfs layouts: a KVM guest with none, a hybrid Intel with two CPU PMUs.
TEST_F(PrometheusTest, TheStoredLimitsAndTheCountersAreMetrics) {
  check::Evidence e = Recorded("intel-core-i7-4770-cpu.test");
  StatusOr<roofline::MachineProfile> profile =
      roofline::LoadProfile(dlcheck::testing::DataPath("roofline/round_roofs.json"));
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  e.machine_profile = *profile;
  e.pmu = detect::ReadPmu(dlcheck::testing::DataPath("pmu/kvm_amd"));
  std::string text = PrometheusTextfile(WithState(check::State::kOk), e);
  EXPECT_NE(text.find("\ndlcheck_hardware_counters 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\ndlcheck_memory_bandwidth_bytes_per_second 20000000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\ndlcheck_compute_peak_ops_per_second{dtype=\"f32\",unit=\"avx2_fma\"} "
                      "100000000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("{dtype=\"int8\",unit=\"avx2_int8\"} 200000000000\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("dtype=\"bf16\""), std::string::npos) << text;  // not measured: no line
  EXPECT_NE(text.find("\ndlcheck_machine_profile_timestamp_seconds 1796601600\n"),
            std::string::npos)
      << text;
  std::string messages;
  EXPECT_EQ(Promtool(text, messages), 0) << messages << text;
  EXPECT_EQ(messages, "");

  e.pmu = detect::ReadPmu(dlcheck::testing::DataPath("pmu/intel_hybrid"));
  e.machine_profile.reset();
  text = PrometheusTextfile(WithState(check::State::kOk), e);
  EXPECT_NE(text.find("\ndlcheck_hardware_counters 1\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("dlcheck_memory_bandwidth"), std::string::npos) << text;
  EXPECT_EQ(text.find("dlcheck_compute_peak"), std::string::npos) << text;
}

TEST_F(PrometheusTest, PromtoolRejectsABrokenTextSoTheTestCanFail) {
  std::string messages;
  EXPECT_NE(Promtool("dlcheck_step_ms 3\n", messages), 0);
  EXPECT_NE(messages, "");
}

TEST_F(PrometheusTest, LabelValuesAreEscaped) {
  check::Evidence e = Recorded("intel-core-i7-4770-cpu.test");
  e.platform.cpu.brand = "a \"quoted\" \\ brand\nwith a newline";
  const std::string text = PrometheusTextfile(WithState(check::State::kOk), e);
  EXPECT_NE(text.find("brand=\"a \\\"quoted\\\" \\\\ brand\\nwith a newline\""), std::string::npos)
      << text;
  std::string messages;
  EXPECT_EQ(Promtool(text, messages), 0) << messages;
}

}  // namespace
}  // namespace dlcheck::fleet
