// SPDX-License-Identifier: Apache-2.0
// Parsing, decoding and diagnosis on small hand-written inputs (no host CPU involved).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "common/onednn_isa.h"
#include "detect/cpu_features.h"
#include "detect/cpuid_dump.h"
#include "detect/cpuinfo.h"
#include "detect/libcpuid_layer.h"
#include "detect/platform.h"
#include "support/run_dlcheck.h"

namespace dlcheck::detect {
namespace {

// A recorded CPU plus an OS state, to test the os layer without the host.
class FakeSource : public CpuidSource {
 public:
  FakeSource(const LogicalCpuDump& cpu, std::optional<std::uint64_t> xcr0,
             std::optional<bool> amx = std::nullopt)
      : recorded_(cpu), xcr0_(xcr0), amx_(amx) {}
  CpuidRegs Query(std::uint32_t leaf, std::uint32_t subleaf) const override {
    return recorded_.Query(leaf, subleaf);
  }
  std::optional<std::uint64_t> Xcr0() const override { return xcr0_; }
  std::optional<bool> AmxPermission() const override { return amx_; }

 private:
  RecordedCpuidSource recorded_;
  std::optional<std::uint64_t> xcr0_;
  std::optional<bool> amx_;
};

CpuidDump Load(const std::string& file) {
  StatusOr<CpuidDump> dump = LoadCpuidDump(dlcheck::testing::DataPath(file));
  EXPECT_TRUE(dump.ok()) << dump.status().message();
  return dump.ok() ? *dump : CpuidDump{};
}

const FeatureLayers& Feature(const PlatformInfo& info, const std::string& name) {
  static const FeatureLayers kMissing;
  const FeatureLayers* f = info.FindFeature(name);
  if (f == nullptr) ADD_FAILURE() << "no feature " << name;
  return f ? *f : kMissing;
}

std::string FindingMessage(const PlatformInfo& info, const std::string& code) {
  const Finding* f = info.FindFinding(code);
  return f ? f->message : std::string();
}

TEST(ParseCpuidDumpTest, ReadsAidaLinesWithHexSubleavesAndStopsAtTheDashLine) {
  const std::string text =
      "------[ CPUID Registers / Logical CPU #3 ]------\r\n"
      "CPUID 00000000: 00000020-756E6547-6C65746E-49656E69 [GenuineIntel]\n"
      "CPUID 0000000D: 00000010-00000000-00000001-00000000 [SL 0B]\n"
      "CPUID 00000007: 00400810-00000000-00000000-00000000 [SL 01]\n" +
      std::string(80, '-') + "\nthis is libcpuid's expected part\n";
  const StatusOr<CpuidDump> dump = ParseCpuidDump(text, "t.test");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  ASSERT_EQ(dump->cpus.size(), 1u);
  EXPECT_EQ(dump->cpus[0].index, 3);
  EXPECT_EQ(dump->cpus[0].leaves.size(), 3u);
  EXPECT_EQ(dump->cpus[0].leaves.at({0xD, 0xB}).ecx, 1u);
  EXPECT_EQ(dump->cpus[0].leaves.at({7, 1}).eax, 0x00400810u);
  EXPECT_EQ(dump->cpus[0].leaves.at({0, 0}).ebx, 0x756E6547u);
}

TEST(ParseCpuidDumpTest, ReadsAffMaskHeadersAndLegacyLines) {
  const StatusOr<CpuidDump> aff = ParseCpuidDump(
      "CPU#000 AffMask: 0x0000000000000000:0000000000000001\n"
      "CPUID 00000000: 0000001B-756E6547-6C65746E-49656E69\n"
      "CPU#012 AffMask: 0x0000000000000000:0000000000001000\n"
      "CPUID 00000000: 0000001B-756E6547-6C65746E-49656E69\n",
      "a.test");
  ASSERT_TRUE(aff.ok()) << aff.status().message();
  ASSERT_EQ(aff->cpus.size(), 2u);
  EXPECT_EQ(aff->cpus[1].index, 12);

  const StatusOr<CpuidDump> legacy = ParseCpuidDump(
      "basic_cpuid[4]=1c004121 01c0003f 0000003f 00000000\n"
      "ext_cpuid[1]=00000000 00000000 00000001 28100800\n"
      "intel_fn4[1]=1c004122 01c0003f 0000003f 00000000\n",
      "l.test");
  ASSERT_TRUE(legacy.ok()) << legacy.status().message();
  ASSERT_EQ(legacy->cpus.size(), 1u);
  EXPECT_EQ(legacy->cpus[0].leaves.at({0x80000001u, 0}).edx, 0x28100800u);
  EXPECT_EQ(legacy->cpus[0].leaves.at({4, 1}).eax, 0x1c004122u);
}

TEST(ParseCpuidDumpTest, ErrorsNameTheFileAndLine) {
  const StatusOr<CpuidDump> bad =
      ParseCpuidDump("------[ Logical CPU #0 ]------\nCPUID 00000000: 1-2-3\n", "b.test");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ExitCode::kInputError);
  EXPECT_EQ(bad.status().message(),
            "b.test:2: CPUID line cut short (each of EAX EBX ECX EDX has 8 hex digits): "
            "'CPUID 00000000: 1-2-3'");

  const StatusOr<CpuidDump> empty = ParseCpuidDump("\n\n", "e.test");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(),
            "e.test: no CPUID data found (expected libcpuid's raw dump format, e.g. from "
            "'dlcheck platform --save-raw DIR', or the output of 'cpuid -r')");
}

TEST(ParseCpuidDumpTest, FormatThenParseGivesTheSameDump) {
  const CpuidDump dump = Load("cpuid/intel-xeon-w9-3475x.test.xz");
  ASSERT_FALSE(dump.cpus.empty());
  const StatusOr<CpuidDump> again = ParseCpuidDump(FormatCpuidDump(dump), "round-trip");
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_EQ(again->cpus.size(), dump.cpus.size());
  for (std::size_t i = 0; i < dump.cpus.size(); ++i) {
    EXPECT_EQ(again->cpus[i].index, dump.cpus[i].index);
    EXPECT_EQ(again->cpus[i].leaves, dump.cpus[i].leaves) << "cpu " << i;
  }
}

TEST(ParseCpuidDumpTest, MangledDumpsNeverCrashAndFailWithOneLine) {
  const StatusOr<std::string> text =
      ReadDumpText(dlcheck::testing::DataPath("cpuid/intel-core-i7-1065g7-cpu.test"));
  ASSERT_TRUE(text.ok());
  // Whole lines only: a dump cut inside a register is an error of its own now.
  const std::string original = text->substr(0, text->rfind('\n', 4000) + 1);
  std::uint32_t state = 12345;  // a fixed LCG: the same mutations on every run
  auto next = [&state] { return state = state * 1664525u + 1013904223u; };
  int accepted = 0;
  for (int round = 0; round < 300; ++round) {
    std::string mangled = original;
    for (int edit = 0; edit < 4; ++edit) {
      const std::size_t at = next() % mangled.size();
      switch (next() % 3) {
        case 0:
          mangled[at] = static_cast<char>(next() % 128);
          break;
        case 1:
          mangled.erase(at, next() % 16);
          break;
        default:
          mangled.insert(at, std::string(next() % 4, "-[]#:x0 \n"[next() % 10]));
          break;
      }
    }
    const StatusOr<CpuidDump> dump = ParseCpuidDump(mangled, "m.test");
    if (dump.ok()) {
      ++accepted;
      EXPECT_FALSE(dump->cpus.empty());
      // Whatever was accepted decodes without touching anything it does not have.
      const PlatformInfo info = BuildPlatformInfo(RecordedCpuidSource(dump->cpus.front()),
                                                  LibcpuidLayer{}, std::nullopt, {}, 1);
      EXPECT_EQ(info.features.size(), ReportedFeatures().size());
    } else {
      EXPECT_EQ(dump.status().code(), ExitCode::kInputError);
      for (char c : dump.status().message()) {
        EXPECT_GE(static_cast<unsigned char>(c), 0x20) << dump.status().message();
      }
      EXPECT_EQ(dump.status().message().rfind("m.test", 0), 0u);
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_LT(accepted, 300);
}

TEST(ParseCpuidDumpTest, CorruptXzIsAnInputError) {
  const StatusOr<std::string> text =
      ReadDumpText(dlcheck::testing::DataPath("platform/truncated.test.xz"));
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().message(), "cannot decompress '" +
                                         dlcheck::testing::DataPath("platform/truncated.test.xz") +
                                         "': the .xz data is corrupt or truncated");
}

TEST(LibcpuidLayerTest, ReadsTheParsedLeaves) {
  CpuidDump dump = Load("cpuid/intel-core-i9-7900x-cpu.test");
  ASSERT_FALSE(dump.cpus.empty());
  const LibcpuidLayer recorded = LibcpuidFromDump(dump);
  ASSERT_TRUE(recorded.available) << recorded.note;
  EXPECT_TRUE(recorded.flags.at("avx512f"));
  dump.cpus[0].leaves[{7, 0}].ebx &= ~(1u << 16);  // leaf 7 EBX[16]: AVX512F
  const LibcpuidLayer edited = LibcpuidFromDump(dump);
  ASSERT_TRUE(edited.available) << edited.note;
  EXPECT_FALSE(edited.flags.at("avx512f"));
  EXPECT_TRUE(edited.flags.at("avx512bw"));
}

TEST(LibcpuidLayerTest, SubleavesBeyondItsArraysAreLeftOut) {
  CpuidDump dump = Load("cpuid/intel-core-i7-4770-cpu.test");
  ASSERT_FALSE(dump.cpus.empty());
  const LibcpuidLayer before = LibcpuidFromDump(dump);
  ASSERT_TRUE(before.available) << before.note;
  // libcpuid 0.6.2 holds 8 subleaves of leaf 4 and 4 of leaves 0Bh, 12h, 14h, 8000001Dh.
  dump.cpus[0].leaves[{4, 8}] = CpuidRegs{1, 2, 3, 4};
  dump.cpus[0].leaves[{0xB, 4}] = CpuidRegs{1, 2, 3, 4};
  dump.cpus[0].leaves[{0x8000001Du, 200}] = CpuidRegs{1, 2, 3, 4};
  const LibcpuidLayer after = LibcpuidFromDump(dump);
  ASSERT_TRUE(after.available) << after.note;
  EXPECT_EQ(after.flags, before.flags);
  EXPECT_EQ(after.codename, before.codename);
}

// A hybrid dump (Alder Lake: 16 performance, 8 efficiency logical CPUs) grouped by leaf 1Ah;
// one efficiency CPU edited to lose AVX2 marks its group, and only its group.
TEST(CoreTypesTest, ACpuWhoseBitsDifferMarksItsGroup) {
  CpuidDump dump = Load("cpuid/12th-gen-intel-core-i9-12900k.test");
  ASSERT_EQ(dump.cpus.size(), 24u);
  const FeatureSet first = DecodeFeatures(RecordedCpuidSource(dump.cpus.front()));
  std::vector<CpuidCoreType> types = CoreTypesOf(dump, first);
  ASSERT_EQ(types.size(), 2u);
  EXPECT_EQ(types[0].kind, "performance");
  EXPECT_EQ(types[0].logical_cpus, 16);
  EXPECT_EQ(types[1].kind, "efficiency");
  EXPECT_EQ(types[1].logical_cpus, 8);
  EXPECT_TRUE(types[0].same_features && types[1].same_features);

  const auto efficiency =
      std::find_if(dump.cpus.begin(), dump.cpus.end(), [](const LogicalCpuDump& cpu) {
        return DecodeCoreType(RecordedCpuidSource(cpu)) == "efficiency";
      });
  ASSERT_NE(efficiency, dump.cpus.end());
  efficiency->leaves[{7, 0}].ebx &= ~(1u << 5);  // leaf 7 EBX[5]: AVX2
  types = CoreTypesOf(dump, first);
  EXPECT_TRUE(types[0].same_features);
  EXPECT_FALSE(types[1].same_features);
  const PlatformInfo info = BuildPlatformInfo(RecordedCpuidSource(dump.cpus.front()),
                                              LibcpuidLayer{}, std::nullopt, types, 24);
  EXPECT_EQ(FindingMessage(info, "core-kinds-differ"),
            "the efficiency cores report different CPUID feature bits from the first CPU: code "
            "that moves between cores may meet instructions it cannot run");
}

// The brand string is ASCII by definition: other bytes of a bad dump become '?' (an escape
// sequence would reach the terminal, and bytes above 0x7F are not UTF-8 for JSON).
TEST(DecodeTest, BrandBytesOutsidePrintableAsciiBecomeQuestionMarks) {
  CpuidDump dump = Load("cpuid/intel-core-i7-4770-cpu.test");
  ASSERT_FALSE(dump.cpus.empty());
  dump.cpus[0].leaves[{0x80000002u, 0}] = {0xFFFEFDFCu, 0x1B5B3331u, 0x6D414141u, 0x41414141u};
  dump.cpus[0].leaves[{0x80000003u, 0}] = {};
  dump.cpus[0].leaves[{0x80000004u, 0}] = {};
  const CpuIdentity id = DecodeIdentity(RecordedCpuidSource(dump.cpus[0]));
  EXPECT_EQ(id.brand, "????13[?AAAmAAAA");
  EXPECT_EQ(id.vendor, "GenuineIntel");
}

TEST(CpuinfoTest, ReadsTheFirstFlagsLine) {
  const auto flags = ParseCpuinfoFlags(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu avx2 avx512f\n"
      "processor\t: 1\nflags\t\t: fpu\n");
  ASSERT_TRUE(flags.has_value());
  EXPECT_EQ(flags->size(), 3u);
  EXPECT_EQ(flags->count("avx512f"), 1u);
  EXPECT_FALSE(ParseCpuinfoFlags("processor : 0\n").has_value());
}

TEST(DecodeTest, MicroarchitectureIsUnknownRatherThanAGuess) {
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0x55, 4), "Skylake-SP");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0x55, 7), "Cascade Lake");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0x55, 9), "unknown");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0xFF, 1), "unknown");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x1A, 0x02, 1), "Zen 5");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x1A, 0xF0, 0), "unknown");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x15, 0x02, 0), "unknown");
  EXPECT_EQ(Microarchitecture("HygonGenuine", 0x18, 0x00, 1), "unknown");
}

// The table's edges: a model's stepping ranges, Zen+ rows inside Zen's range, range ends.
TEST(DecodeTest, MicroarchitectureTableEdges) {
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0x55, 0), "Skylake-SP");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0x55, 5), "Cascade Lake");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0x55, 8), "unknown");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0x55, 10), "Cooper Lake");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0x55, 12), "unknown");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0xCF, 2), "Emerald Rapids");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0x8F, 8), "Sapphire Rapids");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 15, 0x8F, 8), "unknown");  // family 15: no
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 6, 0x8F, 8), "unknown");   // Intel's numbers
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x17, 0x08, 2), "Zen+");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x17, 0x18, 1), "Zen+");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x17, 0x01, 1), "Zen");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x17, 0x2F, 0), "Zen");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x17, 0x31, 0), "Zen 2");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x17, 0x50, 0), "unknown");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x19, 0x0F, 0), "Zen 3");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x19, 0x11, 1), "Zen 4");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x19, 0xAF, 0), "Zen 4");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x19, 0xB0, 0), "unknown");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x1A, 0x7F, 0), "Zen 5");
}

TEST(DecodeTest, OneDnnLevelsFollowCpuIsaTraits) {
  FeatureSet bits = {{"sse4_1", true}, {"avx", true}, {"avx2", true}};
  EXPECT_EQ(MaxOneDnnIsa(bits), "avx2");
  bits["avx512f"] = bits["avx512bw"] = bits["avx512vl"] = true;
  EXPECT_EQ(MaxOneDnnIsa(bits), "avx2");  // no DQ yet
  bits["avx512dq"] = true;
  EXPECT_EQ(MaxOneDnnIsa(bits), "avx512_core");  // oneDNN 2.6 does not ask for CD
  bits["avx512_bf16"] = true;
  EXPECT_EQ(MaxOneDnnIsa(bits), "avx512_core");  // bf16 needs vnni first
  bits["avx512_vnni"] = true;
  EXPECT_EQ(MaxOneDnnIsa(bits), "avx512_core_bf16");
  bits["amx_tile"] = bits["amx_int8"] = true;
  EXPECT_EQ(MaxOneDnnIsa(bits), "avx512_core_bf16");  // amx_bf16 missing
  bits["amx_bf16"] = true;
  EXPECT_EQ(MaxOneDnnIsa(bits), "avx512_core_amx");
  EXPECT_EQ(onednn::Compare("avx2_vnni", "avx512_core"), onednn::IsaOrder::kBelow);
  EXPECT_EQ(onednn::Compare("no_such_isa", "none"), onednn::IsaOrder::kUnrankable);
}

TEST(OsLayerTest, Xcr0WithoutAvx512StateMakesAvx512Unusable) {
  const CpuidDump dump = Load("cpuid/intel-xeon-gold-5215-cpu.test.xz");
  ASSERT_FALSE(dump.cpus.empty());
  const FakeSource source(dump.cpus[0], 0x7);  // x87, SSE, AVX; no opmask/ZMM
  const PlatformInfo info =
      BuildPlatformInfo(source, LibcpuidLayer{}, std::nullopt, {{"general", 1, true}}, 1);
  EXPECT_TRUE(Feature(info, "avx512f").cpu);
  EXPECT_EQ(Feature(info, "avx512f").os, false);
  EXPECT_EQ(Feature(info, "avx512f").usable, false);
  EXPECT_EQ(Feature(info, "avx2").usable, true);
  EXPECT_EQ(info.levels_basis, "usable");
  EXPECT_EQ(info.PsabiLevel(), "x86-64-v3");
  EXPECT_EQ(info.onednn_max_isa, "avx2");
  EXPECT_EQ(FindingMessage(info, "os-avx512-disabled"),
            "CPUID reports AVX-512 but XCR0 bits 5-7 are clear (XCR0 = 0x7): the OS or "
            "hypervisor has not enabled AVX-512 state; nothing can use it here");
}

TEST(OsLayerTest, AmxNeedsXcr0BitsAndThePermission) {
  const CpuidDump dump = Load("cpuid/intel-xeon-w9-3475x.test.xz");
  ASSERT_FALSE(dump.cpus.empty());
  const PlatformInfo granted = BuildPlatformInfo(FakeSource(dump.cpus[0], 0x600E7, true),
                                                 LibcpuidLayer{}, std::nullopt, {}, 1);
  EXPECT_EQ(Feature(granted, "amx_tile").usable, true);
  EXPECT_EQ(granted.onednn_max_isa, "avx512_core_amx");

  const PlatformInfo no_state = BuildPlatformInfo(FakeSource(dump.cpus[0], 0xE7, std::nullopt),
                                                  LibcpuidLayer{}, std::nullopt, {}, 1);
  EXPECT_EQ(Feature(no_state, "amx_int8").usable, false);
  EXPECT_EQ(no_state.onednn_max_isa, "avx512_core_bf16");
  EXPECT_FALSE(FindingMessage(no_state, "os-amx-disabled").empty());

  const PlatformInfo denied = BuildPlatformInfo(FakeSource(dump.cpus[0], 0x600E7, false),
                                                LibcpuidLayer{}, std::nullopt, {}, 1);
  EXPECT_EQ(Feature(denied, "amx_tile").usable, false);
  EXPECT_FALSE(FindingMessage(denied, "amx-permission-denied").empty());
}

// The record's generic questions answer from its x86 part as the registers say: the OS state
// from XCR0 alone, the grant from arch_prctl, availability from the feature's layers.
TEST(MachineRecordTest, GenericAnswersComeFromTheX86Part) {
  const CpuidDump dump = Load("cpuid/intel-xeon-w9-3475x.test.xz");
  ASSERT_FALSE(dump.cpus.empty());
  const PlatformInfo denied = BuildPlatformInfo(FakeSource(dump.cpus[0], 0x600E7, false),
                                                LibcpuidLayer{}, std::nullopt, {}, 1);
  ASSERT_NE(denied.x86(), nullptr);
  EXPECT_EQ(denied.Arch(), onednn::IsaArch::kX64);
  EXPECT_EQ(denied.x86()->xcr0, 0x600E7u);
  EXPECT_EQ(denied.x86()->amx_permission, false);
  EXPECT_EQ(denied.OsSavesState("amx_tile"), true);  // XCR0 bits 17-18, the grant aside
  EXPECT_EQ(denied.ProcessPermitted("amx_tile"), false);
  EXPECT_EQ(denied.ProcessPermitted("avx512f"), std::nullopt);  // no grant is asked for it
  EXPECT_EQ(denied.OsSavesState("avx512f"), true);
  EXPECT_FALSE(denied.FeatureAvailable("amx_tile"));
  EXPECT_TRUE(denied.FeatureAvailable("avx512f"));
  EXPECT_FALSE(denied.FeatureAvailable("no_such_feature"));

  const PlatformInfo no_state = BuildPlatformInfo(FakeSource(dump.cpus[0], 0xE7, std::nullopt),
                                                  LibcpuidLayer{}, std::nullopt, {}, 1);
  EXPECT_EQ(no_state.OsSavesState("amx_tile"), false);
  EXPECT_EQ(no_state.ProcessPermitted("amx_tile"), std::nullopt);
  const PlatformInfo avx_only =
      BuildPlatformInfo(FakeSource(dump.cpus[0], 0x7, true), LibcpuidLayer{}, std::nullopt, {}, 1);
  EXPECT_EQ(avx_only.OsSavesState("avx2"), true);
  EXPECT_EQ(avx_only.OsSavesState("avx512f"), false);
  EXPECT_EQ(avx_only.PsabiLevel(), avx_only.x86()->x86_64_level);
  EXPECT_EQ(avx_only.PsabiLevel(), "x86-64-v3");
}

// A record without an architecture part answers nothing it would need registers for.
TEST(MachineRecordTest, ARecordWithoutAPartKnowsNoRegisters) {
  PlatformInfo info;
  info.features.push_back({.name = "asimd", .cpu = true});
  EXPECT_EQ(info.Arch(), onednn::IsaArch::kNone);
  EXPECT_EQ(info.x86(), nullptr);
  EXPECT_EQ(info.OsSavesState("asimd"), std::nullopt);
  EXPECT_EQ(info.ProcessPermitted("amx_tile"), std::nullopt);
  EXPECT_EQ(info.PsabiLevel(), "");
  EXPECT_TRUE(info.FeatureAvailable("asimd"));  // in the CPU, OS layer unknown

  info.arch = Aarch64Part{.sve_vector_bits = 256};
  EXPECT_EQ(info.Arch(), onednn::IsaArch::kAarch64);
  ASSERT_NE(info.aarch64(), nullptr);
  EXPECT_EQ(info.aarch64()->sve_vector_bits, 256);
  EXPECT_EQ(info.OsSavesState("amx_tile"), std::nullopt);
}

TEST(XsaveTest, Avx512BitsWithoutTheirStateAreFlagged) {
  CpuidDump dump = Load("cpuid/intel-xeon-gold-5215-cpu.test.xz");
  ASSERT_FALSE(dump.cpus.empty());
  dump.cpus[0].leaves[{0xD, 0}].eax &= ~0xE0u;  // a hypervisor hiding the ZMM state
  const PlatformInfo info =
      BuildPlatformInfo(RecordedCpuidSource(dump.cpus[0]), LibcpuidLayer{}, std::nullopt, {}, 1);
  ASSERT_NE(info.x86(), nullptr);
  EXPECT_EQ(info.x86()->xsave_supported, 0x21Fu);  // 0x2FF as recorded, minus bits 5-7
  EXPECT_EQ(FindingMessage(info, "xsave-lacks-avx512-state"),
            "CPUID leaf 7 reports AVX-512 but leaf 0Dh offers no AVX-512 register state "
            "(supported XCR0 bits 0x21f): no OS can enable it; a hypervisor is probably passing an "
            "inconsistent CPU model");
}

TEST(KernelLayerTest, DisagreementsBecomeFindings) {
  const CpuidDump dump = Load("cpuid/intel-core-i9-7900x-cpu.test");
  ASSERT_FALSE(dump.cpus.empty());
  std::set<std::string, std::less<>> flags = {"sse4_1",   "sse4_2",   "avx",     "avx2",
                                              "fma",      "f16c",     "avx512f", "avx512cd",
                                              "avx512bw", "avx512dq", "avx_vnni"};
  const PlatformInfo info =
      BuildPlatformInfo(FakeSource(dump.cpus[0], 0xE7), LibcpuidLayer{}, flags, {}, 1);
  EXPECT_EQ(Feature(info, "avx512vl").kernel, false);
  EXPECT_EQ(Feature(info, "avx512vl").cpu, true);
  EXPECT_EQ(FindingMessage(info, "kernel-hides-features"),
            "CPUID reports avx512vl but /proc/cpuinfo does not list it: the kernel disabled it "
            "(or is too old to name it); software that asks the kernel will not use it");
  EXPECT_EQ(FindingMessage(info, "kernel-lists-absent-features"),
            "/proc/cpuinfo lists avx_vnni but CPUID on this CPU does not report it: the CPUs "
            "differ, or the kernel and the hypervisor disagree");
}

TEST(OneDnnTest, EffectiveIsaIsComparedWithTheDerivedOne) {
  PlatformInfo info;
  info.onednn_max_isa = "avx512_core_bf16";
  SetOneDnnEffectiveIsa(info, "avx512_core_bf16", "");
  EXPECT_TRUE(info.findings.empty());
  SetOneDnnEffectiveIsa(info, "avx2", "AVX2");
  EXPECT_EQ(FindingMessage(info, "onednn-isa-capped"),
            "oneDNN dispatches to avx2, below the avx512_core_bf16 the usable features allow, "
            "because ONEDNN_MAX_CPU_ISA=AVX2 caps it");
  SetOneDnnEffectiveIsa(info, "avx512_core_amx", "");
  EXPECT_FALSE(FindingMessage(info, "onednn-isa-above-derived").empty());
}

TEST(RecordedPlatformTest, UnknownCpuStillReportsItsFeatureBits) {
  const StatusOr<PlatformInfo> info =
      DetectRecordedPlatform(dlcheck::testing::DataPath("platform/unknown-cpu.test"));
  ASSERT_TRUE(info.ok()) << info.status().message();
  EXPECT_EQ(info->cpu.microarchitecture, "unknown");
  EXPECT_EQ(info->cpu.family, 6);
  EXPECT_EQ(info->cpu.model, 0xFF);
  EXPECT_TRUE(Feature(*info, "avx512f").cpu);
  EXPECT_TRUE(Feature(*info, "avx512vl").cpu);
  EXPECT_FALSE(Feature(*info, "avx512ifma").cpu);
  EXPECT_EQ(FindingMessage(*info, "unknown-microarchitecture"),
            "dlcheck's table does not know GenuineIntel family 6 model 255 stepping 1; the "
            "feature bits are still decoded from CPUID");
}

// A real guest (this project's CI host) whose hypervisor reports family 6 model 167, Rocket
// Lake's number, for a core with AMX and AVX512-FP16: no microarchitecture is named, one
// finding says why (information in a guest; a warning on bare metal, where it would mean a
// wrong table), and nothing that follows from the name (the hypervisor-hides list) is said.
TEST(RecordedPlatformTest, AModelNumberTheFeaturesContradictNamesNoMicroarchitecture) {
  const StatusOr<PlatformInfo> guest =
      DetectRecordedPlatform(dlcheck::testing::DataPath("cpuid/intel-xeon-kvm-model167.test"));
  ASSERT_TRUE(guest.ok()) << guest.status().message();
  EXPECT_EQ(guest->cpu.model, 167);
  EXPECT_EQ(guest->cpu.microarchitecture, "unknown");
  EXPECT_EQ(guest->cpu.model_microarchitecture, "Rocket Lake");  // DecodeIdentity: roofline too
  EXPECT_TRUE(Feature(*guest, "amx_tile").cpu);
  EXPECT_EQ(FindingMessage(*guest, "model-contradicts-features"),
            "CPUID's model number (family 6 model 167) is Rocket Lake's, but this CPU reports "
            "avx512_bf16, avx512_fp16, amx_tile, which no Rocket Lake has: the hypervisor (KVM) "
            "reports another CPU's model; dlcheck names no microarchitecture here and decodes "
            "the features from CPUID as they are");
  EXPECT_TRUE(FindingMessage(*guest, "unknown-microarchitecture").empty());
  EXPECT_TRUE(FindingMessage(*guest, "hypervisor-hides").empty());
  const auto severity_of = [](const PlatformInfo& info) {
    for (const Finding& f : info.findings) {
      if (f.code == "model-contradicts-features") return std::optional(f.severity);
    }
    return std::optional<Severity>();
  };
  EXPECT_EQ(severity_of(*guest), Severity::kInfo);
  const StatusOr<PlatformInfo> bare = DetectRecordedPlatform(
      dlcheck::testing::DataPath("cpuid/edited/intel-xeon-kvm-model167-no-hypervisor-bit.test"));
  ASSERT_TRUE(bare.ok()) << bare.status().message();
  EXPECT_EQ(bare->cpu.microarchitecture, "unknown");
  EXPECT_EQ(severity_of(*bare), Severity::kWarning);
  EXPECT_NE(FindingMessage(*bare, "model-contradicts-features").find("dlcheck's table is wrong"),
            std::string::npos);
}

// The two silicon tables agree: no microarchitecture has in every part a feature that none of
// its parts has.
TEST(DecodeTest, SiliconTablesNeverContradictEachOther) {
  for (std::string_view name :
       {"Skylake-SP", "Cascade Lake", "Cooper Lake", "Ice Lake-SP", "Sapphire Rapids",
        "Emerald Rapids", "Granite Rapids", "Granite Rapids-D", "Zen 4", "Zen 5", "Rocket Lake"}) {
    for (std::string_view every : SiliconFeatures(name)) {
      for (std::string_view none : FeaturesNoPartHas(name)) EXPECT_NE(every, none) << name;
    }
  }
}

}  // namespace
}  // namespace dlcheck::detect
