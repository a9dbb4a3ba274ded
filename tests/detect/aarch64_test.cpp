// SPDX-License-Identifier: Apache-2.0
// AArch64 machines replayed from public /proc/cpuinfo and lscpu recordings (tests/data/aarch64,
// each file's first line names its source): the core, the parts built on it, the features, the
// SVE length and the oneDNN levels; the raw directory's registers; the text that is not one.
#include "detect/aarch64.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/finding_codes.h"
#include "detect/platform_report.h"
#include "support/test_files.h"

namespace dlcheck::detect {
namespace {

using dlcheck::testing::DataPath;

PlatformInfo Replay(const std::string& name) {
  StatusOr<PlatformInfo> info = DetectRecordedAarch64Platform(DataPath("aarch64/" + name));
  EXPECT_TRUE(info.ok()) << name << ": " << info.status().message();
  return info.ok() ? std::move(*info) : PlatformInfo{};
}

std::vector<std::string> Available(const PlatformInfo& info) {
  std::vector<std::string> names;
  for (const FeatureLayers& f : info.features) {
    if (f.Available()) names.push_back(f.name);
  }
  return names;
}

struct Expected {
  std::string file;
  std::string core;                   ///< the microarchitecture dlcheck names
  std::string parts;                  ///< the server parts built on it
  std::string part_number;            ///< the record's MIDR part
  std::vector<std::string> features;  ///< the reported features available, in report order
  std::optional<int> sve_bits;        ///< the length the levels rest on
  std::string onednn26;               ///< oneDNN 2.6.3's level
  std::string onednn3;                ///< oneDNN 3.x's level
};

// From each recording's Features line; the cores' SVE lengths from their manuals (Graviton 3's
// Neoverse V1: 256 bits; N2 and V2: 128 bits).
const std::vector<Expected>& Machines() {
  static const std::vector<Expected> kMachines = {
      {"graviton2.cpuinfo",
       "Neoverse N1",
       "AWS Graviton 2 or Ampere Altra",
       "0xd0c",
       {"asimd", "fphp", "asimdhp", "asimddp"},
       std::nullopt,
       "asimd",
       "asimd"},
      {"graviton3.cpuinfo",
       "Neoverse V1",
       "AWS Graviton 3",
       "0xd40",
       {"asimd", "fphp", "asimdhp", "asimddp", "sve", "bf16", "svebf16", "i8mm", "svei8mm"},
       256,
       "asimd",
       "sve_256"},
      {"graviton4.cpuinfo",
       "Neoverse V2",
       "AWS Graviton 4, Google Axion or NVIDIA Grace",
       "0xd4f",
       {"asimd", "fphp", "asimdhp", "asimddp", "sve", "sve2", "bf16", "svebf16", "i8mm", "svei8mm"},
       128,
       "asimd",
       "sve_128"},
      {"google-axion.cpuinfo",
       "Neoverse V2",
       "AWS Graviton 4, Google Axion or NVIDIA Grace",
       "0xd4f",
       {"asimd", "fphp", "asimdhp", "asimddp", "sve", "sve2", "bf16", "svebf16", "i8mm", "svei8mm"},
       128,
       "asimd",
       "sve_128"},
      {"nvidia-grace.cpuinfo",
       "Neoverse V2",
       "AWS Graviton 4, Google Axion or NVIDIA Grace",
       "0xd4f",
       {"asimd", "fphp", "asimdhp", "asimddp", "sve", "sve2", "bf16", "svebf16", "i8mm", "svei8mm"},
       128,
       "asimd",
       "sve_128"},
      {"nvidia-grace.lscpu",
       "Neoverse V2",
       "AWS Graviton 4, Google Axion or NVIDIA Grace",
       "0xd4f",
       {"asimd", "fphp", "asimdhp", "asimddp", "sve", "sve2", "bf16", "svebf16", "i8mm", "svei8mm"},
       128,
       "asimd",
       "sve_128"},
      {"microsoft-cobalt-100.cpuinfo",
       "Neoverse N2",
       "Microsoft Azure Cobalt 100",
       "0xd49",
       {"asimd", "fphp", "asimdhp", "asimddp", "sve", "sve2", "bf16", "svebf16", "i8mm", "svei8mm"},
       128,
       "asimd",
       "sve_128"},
      {"ampereone.cpuinfo",
       "AmpereOne",
       "Ampere AmpereOne",
       "0xac3",
       {"asimd", "fphp", "asimdhp", "asimddp", "bf16", "i8mm"},
       std::nullopt,
       "asimd",
       "asimd"},
  };
  return kMachines;
}

TEST(Aarch64RecordingTest, PublicRecordingsReplayWithTheirCorePartsFeaturesAndLevels) {
  for (const Expected& m : Machines()) {
    SCOPED_TRACE(m.file);
    const PlatformInfo info = Replay(m.file);
    ASSERT_NE(info.aarch64(), nullptr);
    EXPECT_EQ(info.x86(), nullptr);
    EXPECT_EQ(info.Arch(), onednn::IsaArch::kAarch64);
    EXPECT_EQ(info.cpu.microarchitecture, m.core);
    EXPECT_EQ(info.aarch64()->parts, m.parts);
    ASSERT_TRUE(info.aarch64()->part.has_value());
    EXPECT_EQ(fmt::format("{:#05x}", *info.aarch64()->part), m.part_number);
    EXPECT_EQ(Available(info), m.features);
    EXPECT_EQ(info.aarch64()->sve_vector_bits, m.sve_bits);
    EXPECT_EQ(info.onednn_max_isa, m.onednn26);
    EXPECT_EQ(info.onednn3_max_isa.isa, m.onednn3);
    EXPECT_EQ(info.onednn3_max_isa.verbose, m.onednn3);
    EXPECT_EQ(info.PsabiLevel(), "");
    EXPECT_FALSE(info.FeatureAvailable("avx512f"));  // not on AArch64: no such row
    EXPECT_NE(info.FindFinding(codes::kNotOnAarch64), nullptr);
    EXPECT_NE(info.FindFinding(codes::kRecording), nullptr);
    // A recording: the OS layer cannot be known.
    for (const FeatureLayers& f : info.features) EXPECT_FALSE(f.os.has_value()) << f.name;
  }
}

TEST(Aarch64RecordingTest, ACoreOfSeveralPartsNamesThemAllAndALengthFromTheCoreIsSaid) {
  const PlatformInfo grace = Replay("nvidia-grace.cpuinfo");
  const Finding* several = grace.FindFinding(codes::kCoreOfSeveralParts);
  ASSERT_NE(several, nullptr);
  EXPECT_NE(several->message.find("AWS Graviton 4, Google Axion or NVIDIA Grace"),
            std::string::npos);
  EXPECT_TRUE(grace.aarch64()->sve_vector_bits_from_core);
  EXPECT_NE(grace.FindFinding(codes::kSveLengthFromCore), nullptr);
  // One part per core: no such finding.
  EXPECT_EQ(Replay("graviton3.cpuinfo").FindFinding(codes::kCoreOfSeveralParts), nullptr);
  // No SVE: no length, from the core or otherwise.
  const PlatformInfo graviton2 = Replay("graviton2.cpuinfo");
  EXPECT_FALSE(graviton2.aarch64()->sve_vector_bits_from_core);
  EXPECT_EQ(graviton2.FindFinding(codes::kSveLengthFromCore), nullptr);
}

TEST(Aarch64RecordingTest, AnUnknownCoreStaysUnknownAndItsSveLengthUntold) {
  // QEMU's `max` CPU: implementer 0x00, part 0x051; SVE, SVE2, SME listed, SME2 not.
  const PlatformInfo qemu = Replay("qemu-max.cpuinfo");
  EXPECT_EQ(qemu.cpu.microarchitecture, "unknown");
  EXPECT_EQ(qemu.aarch64()->parts, "");
  EXPECT_TRUE(qemu.FeatureAvailable("sme"));
  EXPECT_FALSE(qemu.FeatureAvailable("sme2"));
  EXPECT_TRUE(qemu.FeatureAvailable("sve2"));
  EXPECT_EQ(qemu.aarch64()->sve_vector_bits, std::nullopt);
  EXPECT_EQ(qemu.onednn_max_isa, "");  // SVE of an unknown length: no level claimed
  EXPECT_EQ(qemu.onednn3_max_isa.isa, "");
  EXPECT_NE(qemu.FindFinding(codes::kSveLengthUnknown), nullptr);
  EXPECT_NE(qemu.FindFinding(codes::kUnknownMicroarchitecture), nullptr);
}

TEST(Aarch64RecordingTest, LscpuGivesTheTopologyItRecords) {
  const PlatformInfo grace = Replay("nvidia-grace.lscpu");
  EXPECT_EQ(grace.logical_cpus, 72);
  EXPECT_EQ(grace.aarch64()->packages, 1);
  EXPECT_EQ(grace.aarch64()->cores_per_package, 72);
  EXPECT_EQ(grace.aarch64()->threads_per_core, 1);
  EXPECT_EQ(grace.aarch64()->variant, 0u);
  EXPECT_EQ(grace.cpu.vendor, "ARM");
  // /proc/cpuinfo says none of it, only its processor blocks.
  const PlatformInfo graviton4 = Replay("graviton4.cpuinfo");
  EXPECT_EQ(graviton4.logical_cpus, 2);
  EXPECT_EQ(graviton4.aarch64()->packages, std::nullopt);
  ASSERT_EQ(graviton4.core_types.size(), 1u);
  EXPECT_EQ(graviton4.core_types[0].kind, "Neoverse V2");
  EXPECT_EQ(graviton4.core_types[0].logical_cpus, 2);
}

// oneDNN 2.6.3's mayiuse(sve_N) asks the length to equal N and its ISA list holds sve_512 and
// asimd only; 3.x asks `>=` and lists sve_512, sve_256, sve_128, asimd.
TEST(Aarch64LevelsTest, TheLevelsFollowEachReleasesRule) {
  const FeatureSet sve = {{"asimd", true}, {"sve", true}};
  const FeatureSet neon = {{"asimd", true}, {"sve", false}};
  EXPECT_EQ(OneDnn26Aarch64Isa(sve, 128), "asimd");
  EXPECT_EQ(OneDnn26Aarch64Isa(sve, 256), "asimd");
  EXPECT_EQ(OneDnn26Aarch64Isa(sve, 512), "sve_512");
  EXPECT_EQ(OneDnn26Aarch64Isa(sve, 1024), "asimd");
  EXPECT_EQ(OneDnn26Aarch64Isa(neon, std::nullopt), "asimd");
  EXPECT_EQ(OneDnn26Aarch64Isa({}, std::nullopt), "none");
  EXPECT_EQ(OneDnn3Aarch64Isa(sve, 128).isa, "sve_128");
  EXPECT_EQ(OneDnn3Aarch64Isa(sve, 256).isa, "sve_256");
  EXPECT_EQ(OneDnn3Aarch64Isa(sve, 384).isa, "sve_256");
  EXPECT_EQ(OneDnn3Aarch64Isa(sve, 512).isa, "sve_512");
  EXPECT_EQ(OneDnn3Aarch64Isa(sve, 2048).isa, "sve_512");
  EXPECT_EQ(OneDnn3Aarch64Isa(neon, std::nullopt).isa, "asimd");
}

TEST(Aarch64HwcapTest, TheBitsOfLinuxHwcapHeader) {
  // HWCAP_ASIMD 1<<1, HWCAP_SVE 1<<22; HWCAP2_SVE2 1<<1, HWCAP2_BF16 1<<14, HWCAP2_SME2 1<<37.
  const FeatureSet set =
      Aarch64FeaturesFromHwcap((1u << 1) | (1u << 22), (1ull << 1) | (1ull << 14) | (1ull << 37));
  EXPECT_TRUE(set.at("asimd"));
  EXPECT_TRUE(set.at("sve"));
  EXPECT_TRUE(set.at("sve2"));
  EXPECT_TRUE(set.at("bf16"));
  EXPECT_TRUE(set.at("sme2"));
  EXPECT_FALSE(set.at("sme"));
  EXPECT_FALSE(set.at("i8mm"));
  EXPECT_FALSE(set.at("asimddp"));
}

class RawDirectoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("dlcheck-aarch64-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
    std::filesystem::copy_file(DataPath("aarch64/graviton4.cpuinfo"), dir_ / "cpuinfo");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  void Write(const char* name, const std::string& text) { std::ofstream(dir_ / name) << text; }
  std::filesystem::path dir_;
};

// A directory as a native `--save-raw` would write it; the register values are written here by
// hand (the MIDR is the recording's own 0x41/0xd4f/r0p1), to test the reader.
TEST_F(RawDirectoryTest, RegistersAndTheRecordedLengthWinOverTheText) {
  Write("midr_el1", "0x00000000410fd4f1\n");
  Write("sve_vl", "256\n");  // a length the core does not have: the recorded one is used
  Write("hwcap", "0x2\n");   // ASIMD only: the HWCAP layer says no SVE
  StatusOr<PlatformInfo> info = DetectRecordedAarch64Platform(dir_.string());
  ASSERT_TRUE(info.ok()) << info.status().message();
  const Aarch64Part& part = *info->aarch64();
  EXPECT_EQ(part.midr, 0x410fd4f1u);
  EXPECT_EQ(part.part, 0xd4fu);
  EXPECT_EQ(part.revision, 1u);
  EXPECT_EQ(info->levels_basis, "hwcap");
  const FeatureLayers* sve = info->FindFeature("sve");
  ASSERT_NE(sve, nullptr);
  EXPECT_FALSE(sve->cpu);
  EXPECT_EQ(sve->kernel, true);                   // the Features line lists it
  EXPECT_EQ(part.sve_vector_bits, std::nullopt);  // no SVE in the HWCAP layer
  EXPECT_EQ(info->onednn3_max_isa.isa, "asimd");
}

TEST_F(RawDirectoryTest, ARecordedLengthSetsTheLevels) {
  Write("sve_vl", "512\n");
  StatusOr<PlatformInfo> info = DetectRecordedAarch64Platform(dir_.string());
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->aarch64()->sve_vector_bits, 512);
  EXPECT_FALSE(info->aarch64()->sve_vector_bits_from_core);
  EXPECT_EQ(info->onednn_max_isa, "sve_512");
  EXPECT_EQ(info->onednn3_max_isa.isa, "sve_512");
  EXPECT_EQ(info->FindFinding(codes::kSveLengthFromCore), nullptr);
}

TEST_F(RawDirectoryTest, BadFilesAreSaidWithWhatToDo) {
  Write("sve_vl", "300\n");
  StatusOr<PlatformInfo> info = DetectRecordedAarch64Platform(dir_.string());
  ASSERT_FALSE(info.ok());
  EXPECT_EQ(info.status().code(), ExitCode::kInputError);
  EXPECT_NE(info.status().message().find("is not an SVE vector length in bits"), std::string::npos);
  Write("sve_vl", "256\n");
  Write("hwcap", "lots\n");
  info = DetectRecordedAarch64Platform(dir_.string());
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("'lots' is not a number"), std::string::npos);
  std::filesystem::remove(dir_ / "cpuinfo");
  info = DetectRecordedAarch64Platform(dir_.string());
  ASSERT_FALSE(info.ok());
  EXPECT_NE(info.status().message().find("holds no 'cpuinfo' file"), std::string::npos);
}

TEST(Aarch64ParseTest, TextThatIsNotAnAarch64RecordingIsRefused) {
  StatusOr<Aarch64Recording> x86 = ParseAarch64Cpuinfo(
      "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu sse2 avx\n", "x86.txt");
  ASSERT_FALSE(x86.ok());
  EXPECT_EQ(x86.status().message(),
            "x86.txt is an x86 /proc/cpuinfo: replay an x86 machine from its raw CPUID dump "
            "with --cpuid-dump (record one with 'dlcheck platform --save-raw DIR')");
  StatusOr<Aarch64Recording> prose = ParseAarch64Cpuinfo("hello: world\n", "notes.txt");
  ASSERT_FALSE(prose.ok());
  EXPECT_NE(prose.status().message().find("neither an AArch64 /proc/cpuinfo nor lscpu output"),
            std::string::npos);
  StatusOr<Aarch64Recording> bad =
      ParseAarch64Cpuinfo("processor : 0\nFeatures : fp asimd\nCPU part : 0xzz\n", "cut.txt");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "cut.txt line 3: '0xzz' is not a number (CPU part: cpuinfo writes it as 0x41 or 8)");
}

const report::Section* SectionOf(const report::Report& report, std::string_view name) {
  for (const report::Section& s : report.sections) {
    if (s.name == name) return &s;
  }
  return nullptr;
}

report::Value FieldOf(const report::Section& section, std::string_view key) {
  const report::Value* value = section.Find(key);
  return value != nullptr ? *value : report::Value("(missing)");
}

TEST(Aarch64ReportTest, X86OnlyFieldsSayNotOnAarch64) {
  const report::Report report = PlatformReport(Replay("graviton3.cpuinfo"));
  const report::Section* cpu = SectionOf(report, "cpu");
  ASSERT_NE(cpu, nullptr);
  EXPECT_EQ(FieldOf(*cpu, "xcr0"), report::Value("not on AArch64"));
  EXPECT_EQ(FieldOf(*cpu, "libcpuid_version"), report::Value("not on AArch64"));
  const report::Section* levels = SectionOf(report, "levels");
  ASSERT_NE(levels, nullptr);
  EXPECT_EQ(FieldOf(*levels, "x86_64"), report::Value("not on AArch64"));
  EXPECT_EQ(FieldOf(*levels, "onednn3_max_isa"), report::Value("sve_256"));
  const report::Section* arm = SectionOf(report, "aarch64");
  ASSERT_NE(arm, nullptr);
  EXPECT_EQ(FieldOf(*arm, "core"), report::Value("Neoverse V1"));
  EXPECT_EQ(FieldOf(*arm, "part"), report::Value("0xd40"));
  EXPECT_EQ(FieldOf(*arm, "sve_vector_bits"), report::Value(256));
  EXPECT_EQ(FieldOf(*arm, "sve_vector_bits_basis"), report::Value("core"));
}

}  // namespace
}  // namespace dlcheck::detect
