// SPDX-License-Identifier: Apache-2.0
// Replays every recorded CPUID dump in tests/data/cpuid and checks what dlcheck decodes against
// the ground truth written down in tests/data/cpuid/INDEX.md (table 1: the expected part's
// AVX-512 flags, the "Other AVX-512" and "AMX" columns decoded by hand from raw leaf 7, and what
// libcpuid 0.6.2 reports). AVX-VNNI is leaf 7 subleaf 1 EAX[4], read by hand from each dump's
// `CPUID 00000007: ... [SL 01]` line. The oneDNN ISA and x86-64 level columns follow from those
// features by oneDNN 2.6's cpu_isa_traits.hpp and the psABI level definitions.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "detect/platform.h"
#include "support/run_dlcheck.h"

namespace dlcheck::detect {
namespace {

struct Expected {
  const char* file;
  const char* vendor;
  const char* microarchitecture;
  int logical_cpus;
  const char* kinds;     // "kind:count ..." (sorted by kind)
  const char* avx512;    // INDEX.md "AVX-512 (expected part)" + "Other AVX-512 (raw leaf 7)"
  const char* amx;       // INDEX.md "AMX (raw)"
  bool avx_vnni;         // raw leaf 7.1 EAX[4]
  const char* libcpuid;  // INDEX.md "0.6.2 reports"
  const char* onednn;    // highest oneDNN ISA the CPUID bits allow
  const char* x86_64;
};

const Expected kDumps[] = {
    {"11th-gen-intel-core-i7-1165g7.test", "GenuineIntel", "Tiger Lake", 8, "general:8",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ VP2INTERSECT", "", false,
     "F CD BW DQ VL VNNI VBMI VBMI2", "avx512_core_vnni", "x86-64-v4"},
    {"12th-gen-intel-core-i9-12900k.test", "GenuineIntel", "Alder Lake", 24,
     "efficiency:8 performance:16", "", "", true, "", "avx2_vnni", "x86-64-v3"},
    {"13th-gen-intel-core-i9-13900kf.test", "GenuineIntel", "Raptor Lake", 32,
     "efficiency:16 performance:16", "", "", true, "", "avx2_vnni", "x86-64-v3"},
    {"intel-core-i3-8121u-cpu.test", "GenuineIntel", "Cannon Lake", 4, "general:4",
     "F CD BW DQ VL VBMI IFMA", "", false, "F CD BW DQ VL VBMI", "avx512_core", "x86-64-v4"},
    {"intel-core-i7-1065g7-cpu.test", "GenuineIntel", "Ice Lake", 8, "general:8",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ", "", false,
     "F CD BW DQ VL VNNI VBMI VBMI2", "avx512_core_vnni", "x86-64-v4"},
    {"intel-core-i7-4770-cpu.test", "GenuineIntel", "Haswell", 8, "general:8", "", "", false, "",
     "avx2", "x86-64-v3"},
    {"intel-core-i7-cpu-920.test", "GenuineIntel", "Nehalem", 1, "general:1", "", "", false, "",
     "sse41", "x86-64-v2"},
    {"intel-core-i9-7900x-cpu.test", "GenuineIntel", "Skylake-SP", 20, "general:20",
     "F CD BW DQ VL", "", false, "F CD BW DQ VL", "avx512_core", "x86-64-v4"},
    {"intel-core-ultra-7-155h.test", "GenuineIntel", "Meteor Lake", 22,
     "efficiency:10 performance:12", "", "", true, "", "avx2_vnni", "x86-64-v3"},
    // Lion Cove / Skymont (2024-25): AVX-VNNI but no AVX-512 (their 2023-26 bits:
    // new_isa_bits_test.cpp).
    {"intel-core-ultra-5-245k.test", "GenuineIntel", "Arrow Lake", 14, "efficiency:8 performance:6",
     "", "", true, "", "avx2_vnni", "x86-64-v3"},
    {"intel-core-ultra-7-265u.test", "GenuineIntel", "Arrow Lake-U", 14,
     "efficiency:10 performance:4", "", "", true, "", "avx2_vnni", "x86-64-v3"},
    {"intel-core-ultra-9-285h.test", "GenuineIntel", "Arrow Lake-H", 16,
     "efficiency:10 performance:6", "", "", true, "", "avx2_vnni", "x86-64-v3"},
    {"intel-core-ultra-9-288v.test", "GenuineIntel", "Lunar Lake", 8, "efficiency:4 performance:4",
     "", "", true, "", "avx2_vnni", "x86-64-v3"},
    {"intel-xeon-cpu-e5-2697-v4-dual.test.xz", "GenuineIntel", "Broadwell", 72, "general:72", "",
     "", false, "", "avx2", "x86-64-v3"},
    {"intel-xeon-cpu-e7450-quad.test", "GenuineIntel", "Penryn", 24, "general:24", "", "", false,
     "", "sse41", "x86-64-v1"},
    // Recorded for this project (INDEX.md, "Recorded for this project"): a KVM guest, 16 vCPUs.
    {"intel-xeon-emerald-rapids-kvm16.test", "GenuineIntel", "Emerald Rapids", 16, "general:16",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ FP16 BF16", "TILE INT8 BF16", true,
     "F CD BW DQ VL VNNI VBMI VBMI2", "avx512_core_amx", "x86-64-v4"},
    // Recorded for this project: the CI host, a KVM guest whose hypervisor reports Rocket Lake's
    // model number (6, 167) for a server core with AMX; the features contradict it, so no
    // microarchitecture is named (model-contradicts-features).
    {"intel-xeon-kvm-model167.test", "GenuineIntel", "unknown", 2, "general:2",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ FP16 BF16", "TILE INT8 BF16", true,
     "F CD BW DQ VL VNNI VBMI VBMI2", "avx512_core_amx", "x86-64-v4"},
    {"intel-xeon-gold-5215-cpu.test.xz", "GenuineIntel", "Cascade Lake", 20, "general:20",
     "F CD BW DQ VL VNNI", "", false, "F CD BW DQ VL VNNI", "avx512_core_vnni", "x86-64-v4"},
    {"intel-xeon-gold-5520+.test.xz", "GenuineIntel", "Emerald Rapids", 112, "general:112",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ FP16 BF16", "TILE INT8 BF16", true,
     "F CD BW DQ VL VNNI VBMI VBMI2", "avx512_core_amx", "x86-64-v4"},
    {"intel-xeon-gold-6154-cpu-dual.test.xz", "GenuineIntel", "Skylake-SP", 72, "general:72",
     "F CD BW DQ VL", "", false, "F CD BW DQ VL", "avx512_core", "x86-64-v4"},
    {"intel-xeon-gold-6330-cpu.test.xz", "GenuineIntel", "Ice Lake-SP", 112, "general:112",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ", "", false,
     "F CD BW DQ VL VNNI VBMI VBMI2", "avx512_core_vnni", "x86-64-v4"},
    {"intel-xeon-phi-cpu-7210.from-hwloc.test.xz", "GenuineIntel", "Knights Landing", 256,
     "general:256", "F CD ER PF", "", false, "F CD ER PF", "avx512_mic", "x86-64-v3"},
    {"intel-xeon-platinum-8280-cpu.test.xz", "GenuineIntel", "Cascade Lake", 56, "general:56",
     "F CD BW DQ VL VNNI", "", false, "F CD BW DQ VL VNNI", "avx512_core_vnni", "x86-64-v4"},
    {"intel-xeon-platinum-8351n-cpu.test.xz", "GenuineIntel", "Ice Lake-SP", 72, "general:72",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ", "", false,
     "F CD BW DQ VL VNNI VBMI VBMI2", "avx512_core_vnni", "x86-64-v4"},
    {"intel-xeon-w9-3475x.test.xz", "GenuineIntel", "Sapphire Rapids", 72, "general:72",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ FP16 BF16", "TILE INT8 BF16", true,
     "F CD BW DQ VL VNNI VBMI VBMI2", "avx512_core_amx", "x86-64-v4"},
    {"amd-epyc-7742-64-core-processor-dual.test.xz", "AuthenticAMD", "Zen 2", 256, "general:256",
     "", "", false, "", "avx2", "x86-64-v3"},
    {"amd-epyc-7763-64-core-processor-dual.test.xz", "AuthenticAMD", "Zen 3", 256, "general:256",
     "", "", false, "", "avx2", "x86-64-v3"},
    {"amd-epyc-9654-96-core-processor-dual.test.xz", "AuthenticAMD", "Zen 4", 384, "general:384",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ BF16", "", false, "", "avx512_core_bf16",
     "x86-64-v4"},
    {"amd-epyc-9965-192-core-processor-dual.test.xz", "AuthenticAMD", "Zen 5", 384, "general:384",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ VP2INTERSECT BF16", "", true, "",
     "avx512_core_bf16", "x86-64-v4"},
    {"amd-ryzen-7-1800x-eight-core-processor.test", "AuthenticAMD", "Zen", 16, "general:16", "", "",
     false, "", "avx2", "x86-64-v3"},
    {"amd-ryzen-9-5900x-12-core-processor.test", "AuthenticAMD", "Zen 3", 24, "general:24", "", "",
     false, "", "avx2", "x86-64-v3"},
    {"amd-ryzen-9-7900x-12-core-processor.test", "AuthenticAMD", "Zen 4", 24, "general:24",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ BF16", "", false, "", "avx512_core_bf16",
     "x86-64-v4"},
    {"amd-ryzen-9-9950x-16-core-processor.test", "AuthenticAMD", "Zen 5", 32, "general:32",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ VP2INTERSECT BF16", "", true, "",
     "avx512_core_bf16", "x86-64-v4"},
    {"amd-ryzen-ai-9-hx-370-with-radeon-890m.test", "AuthenticAMD", "Zen 5", 24, "general:24",
     "F CD BW DQ VL VNNI VBMI VBMI2 IFMA BITALG VPOPCNTDQ VP2INTERSECT BF16", "", true, "",
     "avx512_core_bf16", "x86-64-v4"},
};

const std::map<std::string, std::string> kAvx512Names = {{"F", "avx512f"},
                                                         {"CD", "avx512cd"},
                                                         {"BW", "avx512bw"},
                                                         {"DQ", "avx512dq"},
                                                         {"VL", "avx512vl"},
                                                         {"IFMA", "avx512ifma"},
                                                         {"VBMI", "avx512vbmi"},
                                                         {"VBMI2", "avx512_vbmi2"},
                                                         {"VNNI", "avx512_vnni"},
                                                         {"BITALG", "avx512_bitalg"},
                                                         {"VPOPCNTDQ", "avx512_vpopcntdq"},
                                                         {"VP2INTERSECT", "avx512_vp2intersect"},
                                                         {"BF16", "avx512_bf16"},
                                                         {"FP16", "avx512_fp16"},
                                                         {"ER", "avx512er"},
                                                         {"PF", "avx512pf"}};
// The AVX-512 flags libcpuid 0.6.2 has at all.
const std::set<std::string> kLibcpuidKnows = {"F",    "CD",   "BW",    "DQ", "VL",
                                              "VNNI", "VBMI", "VBMI2", "ER", "PF"};

std::set<std::string> Words(const char* text) {
  std::istringstream in(text);
  std::set<std::string> out;
  for (std::string w; in >> w;) out.insert(w);
  return out;
}

const FeatureLayers& Feature(const PlatformInfo& info, const std::string& name) {
  static const FeatureLayers kMissing;
  const FeatureLayers* f = info.FindFeature(name);
  if (f == nullptr) ADD_FAILURE() << "no feature " << name;
  return f ? *f : kMissing;
}

bool HasFinding(const PlatformInfo& info, const std::string& code) {
  return info.FindFinding(code) != nullptr;
}

class CpuidFixtureTest : public ::testing::TestWithParam<Expected> {};

TEST_P(CpuidFixtureTest, ReplaysAsIndexSays) {
  const Expected& e = GetParam();
  const StatusOr<PlatformInfo> replay =
      DetectRecordedPlatform(dlcheck::testing::DataPath(std::string("cpuid/") + e.file));
  ASSERT_TRUE(replay.ok()) << replay.status().message();
  const PlatformInfo& info = *replay;

  EXPECT_EQ(info.cpu.vendor, e.vendor);
  EXPECT_EQ(info.cpu.microarchitecture, e.microarchitecture);
  EXPECT_EQ(info.logical_cpus, e.logical_cpus);
  std::map<std::string, int> kinds;
  for (const CpuidCoreType& k : info.core_types) {
    kinds[k.kind] += k.logical_cpus;
    EXPECT_TRUE(k.same_features) << k.kind;
  }
  std::string kinds_text;
  for (const auto& [kind, count] : kinds) {
    kinds_text += (kinds_text.empty() ? "" : " ") + kind + ":" + std::to_string(count);
  }
  EXPECT_EQ(kinds_text, e.kinds);

  const std::set<std::string> avx512 = Words(e.avx512);
  const std::set<std::string> libcpuid = Words(e.libcpuid);
  for (const auto& [short_name, name] : kAvx512Names) {
    const FeatureLayers& f = Feature(info, name);
    EXPECT_EQ(f.cpu, avx512.count(short_name) > 0) << name;
    if (kLibcpuidKnows.count(short_name) > 0) {
      ASSERT_TRUE(f.libcpuid.has_value()) << name << ": " << info.libcpuid_note;
      EXPECT_EQ(*f.libcpuid, libcpuid.count(short_name) > 0) << name;
    } else {
      EXPECT_FALSE(f.libcpuid.has_value()) << name << " (libcpuid 0.6.2 has no flag for it)";
    }
    // A recording cannot know the OS, the kernel, or usability.
    EXPECT_FALSE(f.os.has_value()) << name;
    EXPECT_FALSE(f.kernel.has_value()) << name;
    EXPECT_FALSE(f.usable.has_value()) << name;
  }
  const std::set<std::string> amx = Words(e.amx);
  EXPECT_EQ(Feature(info, "amx_tile").cpu, amx.count("TILE") > 0);
  EXPECT_EQ(Feature(info, "amx_int8").cpu, amx.count("INT8") > 0);
  EXPECT_EQ(Feature(info, "amx_bf16").cpu, amx.count("BF16") > 0);
  EXPECT_FALSE(Feature(info, "amx_fp16").cpu);
  EXPECT_EQ(Feature(info, "avx_vnni").cpu, e.avx_vnni);

  EXPECT_EQ(info.onednn_max_isa, e.onednn);
  // A CPUID recording is an x86 record: its registers in the x86 part, its answers generic.
  ASSERT_NE(info.x86(), nullptr);
  EXPECT_EQ(info.aarch64(), nullptr);
  EXPECT_EQ(info.Arch(), onednn::IsaArch::kX64);
  EXPECT_EQ(info.x86()->x86_64_level, e.x86_64);
  EXPECT_EQ(info.PsabiLevel(), e.x86_64);
  EXPECT_EQ(info.levels_basis, "cpuid");
  EXPECT_FALSE(info.onednn_effective_isa.has_value());
  EXPECT_FALSE(info.x86()->xcr0.has_value());
  EXPECT_FALSE(info.OsSavesState("amx_tile").has_value());  // no XCR0 in a recording
  EXPECT_FALSE(info.ProcessPermitted("amx_tile").has_value());
  EXPECT_TRUE(HasFinding(info, "recording"));
  // libcpuid 0.6.2 misses AVX-512 exactly when the CPU has it and libcpuid reports none.
  EXPECT_EQ(HasFinding(info, "libcpuid-no-avx512"), !avx512.empty() && libcpuid.empty());
  EXPECT_FALSE(HasFinding(info, "unknown-microarchitecture"));
  // Only the guest whose hypervisor reports another CPU's model number names no
  // microarchitecture: on the others the features never contradict the model's.
  EXPECT_EQ(HasFinding(info, "model-contradicts-features"),
            std::string_view(e.microarchitecture) == "unknown");
  // Every recorded CPU offers, in leaf 0Dh, the register state its leaf 7 features need.
  EXPECT_FALSE(HasFinding(info, "xsave-lacks-avx512-state"));
  EXPECT_FALSE(HasFinding(info, "xsave-lacks-amx-state"));
  // AMX CPUs describe their tiles in leaf 1Dh: palette 1 is 8 tiles of 16 rows x 64 bytes
  // (Intel SDM vol. 1, "Intel AMX"); CPUs without AMX have no palette.
  if (amx.empty()) {
    EXPECT_FALSE(info.x86()->amx_palette.has_value());
  } else {
    const std::optional<AmxPalette>& palette = info.x86()->amx_palette;
    ASSERT_TRUE(palette.has_value());
    EXPECT_EQ(palette->tiles, 8);
    EXPECT_EQ(palette->rows, 16);
    EXPECT_EQ(palette->bytes_per_row, 64);
  }
}

INSTANTIATE_TEST_SUITE_P(AllDumps, CpuidFixtureTest, ::testing::ValuesIn(kDumps),
                         [](const ::testing::TestParamInfo<Expected>& param) {
                           std::string name = param.param.file;
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

TEST(CpuidFixtureTest, EveryDumpInTheDirectoryIsInTheTable) {
  std::set<std::string> in_table;
  for (const Expected& e : kDumps) in_table.insert(e.file);
  std::set<std::string> on_disk;
  for (const auto& entry :
       std::filesystem::directory_iterator(dlcheck::testing::DataPath("cpuid"))) {
    const std::string name = entry.path().filename().string();
    if (name.ends_with(".test") || name.ends_with(".test.xz")) on_disk.insert(name);
  }
  EXPECT_EQ(on_disk, in_table);
  EXPECT_EQ(in_table.size(), 34u);
}

TEST(CpuidFixtureTest, AmdZen4FindingNamesTheSubsets) {
  const StatusOr<PlatformInfo> info = DetectRecordedPlatform(
      dlcheck::testing::DataPath("cpuid/amd-ryzen-9-7900x-12-core-processor.test"));
  ASSERT_TRUE(info.ok());
  std::string message;
  for (const Finding& f : info->findings) {
    if (f.code == "libcpuid-no-avx512") message = f.message;
  }
  EXPECT_EQ(message,
            "libcpuid 0.6.2 reports no AVX-512, but CPUID leaf 7 reports "
            "F/CD/BW/DQ/VL/IFMA/VBMI/VBMI2/VNNI/BITALG/VPOPCNTDQ/BF16: libcpuid predates AVX-512 "
            "on AMD; dlcheck trusts the CPUID leaves");
}

}  // namespace
}  // namespace dlcheck::detect
