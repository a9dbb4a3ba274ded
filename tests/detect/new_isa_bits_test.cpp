// SPDX-License-Identifier: Apache-2.0
// The 2023-26 ISA bits and oneDNN 3.x's level, held against an independent decode of every
// recorded dump in tests/data/cpuid: this file reads the raw `CPUID LLLLLLLL: EAX-EBX-ECX-EDX
// [SL nn]` lines of the first logical CPU itself and applies the bit positions as the Intel ISE
// and LLVM's host detection give them (leaf 7 subleaf 1, leaf 1Eh subleaf 1, leaf 24h), and
// oneDNN 3.x's mayiuse() chain as src/cpu/x64/cpu_isa_traits.hpp writes it, without dlcheck's
// tables. A recording has no OS layer, so both sides judge the CPUID bits alone.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "detect/cpuid_dump.h"
#include "detect/platform.h"
#include "support/run_dlcheck.h"

namespace dlcheck::detect {
namespace {

using Regs = std::array<std::uint32_t, 4>;  // EAX, EBX, ECX, EDX
using Leaves = std::map<std::pair<std::uint32_t, std::uint32_t>, Regs>;
enum { kEax, kEbx, kEcx, kEdx };

// The dump's text (.xz decompressed by dlcheck's reader: the decoding below is this file's own).
std::string DumpText(const std::string& path) {
  const StatusOr<std::string> text = ReadDumpText(path);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : std::string();
}

// The leaves of the first logical CPU of an AIDA64-style dump; empty for another format.
Leaves FirstCpuLeaves(const std::string& text) {
  Leaves leaves;
  std::istringstream in(text);
  int cpus = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.find("Logical CPU") != std::string::npos || line.starts_with("CPU#")) {
      if (++cpus > 1) break;
      continue;
    }
    if (line.starts_with("--------------------")) break;  // the expected part
    unsigned leaf = 0, a = 0, b = 0, c = 0, d = 0, sub = 0;
    if (std::sscanf(line.c_str(), "CPUID %x: %x-%x-%x-%x", &leaf, &a, &b, &c, &d) != 5) continue;
    const std::size_t sl = line.find("[SL ");
    if (sl != std::string::npos) std::sscanf(line.c_str() + sl, "[SL %x]", &sub);
    leaves[{leaf, sub}] = {a, b, c, d};
  }
  return leaves;
}

bool Bit(const Leaves& leaves, std::uint32_t leaf, std::uint32_t sub, int reg, int bit) {
  const auto it = leaves.find({leaf, sub});
  return it != leaves.end() && ((it->second[static_cast<std::size_t>(reg)] >> bit) & 1u) != 0;
}

struct NewBit {
  const char* name;
  std::uint32_t leaf;
  std::uint32_t sub;
  int reg;
  int bit;
};

// Intel ISE "CPUID" (leaf 7.1 EAX/EDX, leaf 1Eh.1 EAX); LLVM Host.cpp getHostCPUFeatures agrees.
constexpr NewBit kNewBits[] = {
    {"avx_ifma", 7, 1, kEax, 23},     {"movrs", 7, 1, kEax, 31},
    {"avx_vnni_int8", 7, 1, kEdx, 4}, {"avx_ne_convert", 7, 1, kEdx, 5},
    {"amx_complex", 7, 1, kEdx, 8},   {"avx_vnni_int16", 7, 1, kEdx, 10},
    {"avx10", 7, 1, kEdx, 19},        {"apx_f", 7, 1, kEdx, 21},
    {"amx_fp8", 0x1E, 1, kEax, 4},    {"amx_transpose", 0x1E, 1, kEax, 5},
    {"amx_tf32", 0x1E, 1, kEax, 6},   {"amx_avx512", 0x1E, 1, kEax, 7},
    {"amx_movrs", 0x1E, 1, kEax, 8},
};

std::optional<int> Avx10Version(const Leaves& l) {
  if (!Bit(l, 7, 1, kEdx, 19)) return std::nullopt;
  const auto it = l.find({0x24, 0});
  return it == l.end() ? 0 : static_cast<int>(it->second[kEbx] & 0xFF);
}

// oneDNN 3.x's highest level, from the raw bits (cpu_isa_traits.hpp, mayiuse()).
std::string IndependentOneDnn3Level(const Leaves& l) {
  const bool sse41 = Bit(l, 1, 0, kEcx, 19), avx = Bit(l, 1, 0, kEcx, 28);
  const bool avx2 = Bit(l, 7, 0, kEbx, 5);
  const bool avx2_vnni = avx2 && Bit(l, 7, 1, kEax, 4);
  const bool avx2_vnni_2 = avx2_vnni && Bit(l, 7, 1, kEdx, 4) && Bit(l, 7, 1, kEdx, 5);
  const bool core = Bit(l, 7, 0, kEbx, 16) && Bit(l, 7, 0, kEbx, 30) && Bit(l, 7, 0, kEbx, 31) &&
                    Bit(l, 7, 0, kEbx, 17);
  const bool vnni = core && Bit(l, 7, 0, kEcx, 11);
  const bool bf16 = vnni && Bit(l, 7, 1, kEax, 5);
  const bool fp16 = bf16 && avx2_vnni && Bit(l, 7, 0, kEdx, 23);
  const bool amx =
      fp16 && Bit(l, 7, 0, kEdx, 24) && Bit(l, 7, 0, kEdx, 25) && Bit(l, 7, 0, kEdx, 22);
  const bool amx_fp16 = amx && Bit(l, 7, 1, kEax, 21);
  const bool avx10_2 = Avx10Version(l).value_or(0) >= 2 && Bit(l, 7, 0, kEbx, 16) && avx2_vnni_2 &&
                       Bit(l, 7, 1, kEdx, 21) && Bit(l, 7, 1, kEax, 31);
  const bool amx_2 = avx10_2 && Bit(l, 7, 0, kEdx, 24) && Bit(l, 0x1E, 1, kEax, 7) &&
                     Bit(l, 0x1E, 1, kEax, 8) && Bit(l, 0x1E, 1, kEax, 4);
  if (amx_2) return "avx10_2_amx_2";
  if (avx10_2) return "avx10_2";
  if (amx_fp16) return "avx512_core_amx_fp16";
  if (amx) return "avx512_core_amx";
  if (fp16) return "avx512_core_fp16";
  if (bf16) return "avx512_core_bf16";
  if (vnni) return "avx512_core_vnni";
  if (core) return "avx512_core";
  if (avx2_vnni_2) return "avx2_vnni_2";
  if (avx2_vnni) return "avx2_vnni";
  if (avx2) return "avx2";
  if (avx) return "avx";
  return sse41 ? "sse41" : "none";
}

TEST(NewIsaBitsTest, EveryRecordedDumpAgreesWithAnIndependentDecode) {
  int decoded = 0;
  std::map<std::string, int> seen;  // how many dumps have each new bit
  // The recordings (not cpuid/invalid, the hostile inputs).
  std::vector<std::string> paths;
  for (const char* dir : {"cpuid", "cpuid/aida64", "cpuid/edited"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dlcheck::testing::DataPath(dir))) {
      const std::string path = entry.path().string();
      if (path.ends_with(".test") || path.ends_with(".test.xz") || path.ends_with(".txt.xz")) {
        paths.push_back(path);
      }
    }
  }
  for (const std::string& path : paths) {
    const Leaves leaves = FirstCpuLeaves(DumpText(path));
    if (!leaves.contains({1, 0})) continue;  // a legacy dump: no AIDA64 leaf lines to read
    SCOPED_TRACE(path);
    const StatusOr<PlatformInfo> replay = DetectRecordedPlatform(path);
    ASSERT_TRUE(replay.ok()) << replay.status().message();
    for (const NewBit& b : kNewBits) {
      const FeatureLayers* f = replay->FindFeature(b.name);
      ASSERT_NE(f, nullptr) << b.name;
      const bool expected = Bit(leaves, b.leaf, b.sub, b.reg, b.bit);
      EXPECT_EQ(f->cpu, expected) << b.name;
      seen[b.name] += expected ? 1 : 0;
      EXPECT_FALSE(f->libcpuid.has_value()) << b.name << ": libcpuid 0.6.2 has no flag for it";
    }
    ASSERT_NE(replay->x86(), nullptr);
    EXPECT_EQ(replay->x86()->avx10_version, Avx10Version(leaves));
    EXPECT_EQ(replay->onednn3_max_isa.isa, IndependentOneDnn3Level(leaves));
    ++decoded;
  }
  EXPECT_GE(decoded, 40);
  // The recordings hold the client bits of Arrow and Lunar Lake: the test is not vacuous there.
  EXPECT_GE(seen["avx_vnni_int8"], 3);
  EXPECT_GE(seen["avx_ne_convert"], 3);
  EXPECT_GE(seen["avx_ifma"], 3);
}

// The names oneDNN 3.5+ prints in its verbose lines for the AVX10.1 levels, and the 3.x level of
// the recorded parts whose 2.6 and 3.x levels differ.
TEST(NewIsaBitsTest, OneDnn3LevelsOfRecordedParts) {
  const struct {
    const char* file;
    const char* microarchitecture;
    const char* onednn26;
    const char* onednn3;
    const char* verbose;
  } kParts[] = {
      {"intel-core-ultra-5-245k.test", "Arrow Lake", "avx2_vnni", "avx2_vnni_2", "avx2_vnni_2"},
      {"intel-core-ultra-9-288v.test", "Lunar Lake", "avx2_vnni", "avx2_vnni_2", "avx2_vnni_2"},
      // Redwood Cove (Meteor Lake) and Arrow Lake-U: AVX-VNNI without INT8/NE-CONVERT.
      {"intel-core-ultra-7-265u.test", "Arrow Lake-U", "avx2_vnni", "avx2_vnni", "avx2_vnni"},
      {"intel-xeon-gold-5520+.test.xz", "Emerald Rapids", "avx512_core_amx", "avx512_core_amx",
       "avx10_1_512_amx"},
      {"amd-ryzen-9-9950x-16-core-processor.test", "Zen 5", "avx512_core_bf16", "avx512_core_bf16",
       "avx512_core_bf16"},
  };
  for (const auto& part : kParts) {
    SCOPED_TRACE(part.file);
    const StatusOr<PlatformInfo> info =
        DetectRecordedPlatform(dlcheck::testing::DataPath(std::string("cpuid/") + part.file));
    ASSERT_TRUE(info.ok()) << info.status().message();
    EXPECT_EQ(info->cpu.microarchitecture, part.microarchitecture);
    EXPECT_EQ(info->onednn_max_isa, part.onednn26);
    EXPECT_EQ(info->onednn3_max_isa.isa, part.onednn3);
    EXPECT_EQ(info->onednn3_max_isa.verbose, part.verbose);
  }
}

// AIDA64 reports as InstLatx64 publishes them (tests/data/cpuid/aida64): their other sections,
// `allcpu:` and cache lines are left out and said so; the CPUID blocks replay.
TEST(NewIsaBitsTest, PublishedAida64ReportsReplay) {
  const struct {
    const char* file;
    const char* microarchitecture;
    int logical_cpus;
    const char* onednn26;
    const char* onednn3;
    std::optional<int> avx10_version;
  } kReports[] = {
      {"GenuineIntel00A06D1_GraniteRapids_03_CPUID.txt.xz", "Granite Rapids", 48, "avx512_core_amx",
       "avx512_core_amx_fp16", 1},
      {"GenuineIntel00C06F2_EmeraldRapids_03_CPUID.txt.xz", "Emerald Rapids", 56, "avx512_core_amx",
       "avx512_core_amx", std::nullopt},
      {"GenuineIntel00C0662_ArrowLake_07_CPUID.txt.xz", "Arrow Lake", 14, "avx2_vnni",
       "avx2_vnni_2", std::nullopt},
      {"GenuineIntel00B06D1_LunarLake_04_CPUID.txt.xz", "Lunar Lake", 8, "avx2_vnni", "avx2_vnni_2",
       std::nullopt},
      {"GenuineIntel00C06C3_PantherLakeL_01_CPUID.txt.xz", "Panther Lake", 8, "avx2_vnni",
       "avx2_vnni_2", std::nullopt},
      {"GenuineIntel00D0651_WildcatLake_02_CPUID.txt.xz", "Wildcat Lake", 6, "avx2_vnni",
       "avx2_vnni_2", std::nullopt},
      {"GenuineIntel00D0670_BartlettLake_01_CPUID.txt.xz", "Bartlett Lake", 24, "avx2_vnni",
       "avx2_vnni", std::nullopt},
      {"AuthenticAMD0B00F21_K20_Turin_01_CPUID.txt.xz", "Zen 5", 64, "avx512_core_bf16",
       "avx512_core_bf16", std::nullopt},
      {"AuthenticAMD0B70F00_K20_StrixHalo_01_CPUID.txt.xz", "Zen 5", 32, "avx512_core_bf16",
       "avx512_core_bf16", std::nullopt},
  };
  std::size_t on_disk = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(dlcheck::testing::DataPath("cpuid/aida64"))) {
    on_disk += entry.path().string().ends_with(".txt.xz") ? 1 : 0;
  }
  EXPECT_EQ(on_disk, std::size(kReports));
  for (const auto& r : kReports) {
    SCOPED_TRACE(r.file);
    const StatusOr<PlatformInfo> info =
        DetectRecordedPlatform(dlcheck::testing::DataPath(std::string("cpuid/aida64/") + r.file));
    ASSERT_TRUE(info.ok()) << info.status().message();
    EXPECT_EQ(info->cpu.microarchitecture, r.microarchitecture);
    EXPECT_EQ(info->logical_cpus, r.logical_cpus);
    EXPECT_EQ(info->onednn_max_isa, r.onednn26);
    EXPECT_EQ(info->onednn3_max_isa.isa, r.onednn3);
    ASSERT_NE(info->x86(), nullptr);
    EXPECT_EQ(info->x86()->avx10_version, r.avx10_version);
    const Finding* left_out = info->FindFinding("report-parts-left-out");
    ASSERT_NE(left_out, nullptr);
    EXPECT_NE(left_out->message.find("allcpu lines"), std::string::npos) << left_out->message;
  }
}

// Each kind of line of an AIDA64 report, and what is still refused: a line inside a CPUID block
// that is neither CPUID data nor one of AIDA64's annotations, with its line number.
TEST(NewIsaBitsTest, ReportLinesByKind) {
  const std::string report =
      "------[ Versions ]------\n"
      "Program Version : AIDA64 Engineer v7.35.7030 Beta\n"
      "------[ CPUID Registers / Logical CPU #0 ]------\n"
      "allcpu: Package 0 / Core 0 / Thread 0: Valid, Intel Core\n"
      "CPUID 00000000: 00000024-756E6547-6C65746E-49656E69 [GenuineIntel]\n"
      "CPUID 00000001: 000A06D1-00800800-7FFEFBFF-BFEBFBFF\n"
      "L0+L1    Data Cache: 48+192 KB, 12-way Associative, 64-byte Line\n"
      "L2 Unified Cache:     2 MB, 16-way Associative, 64-byte Line\n"
      "------[ MSR Registers / Logical CPU #0 ]------\n"
      "MSR 00000049: < FAILED >\n"
      "------[ All CPUs ]------\n"
      "CPU   0: APICID    0 / Package 0 / Core   0 / Thread 0: Valid\n";
  const StatusOr<CpuidDump> dump = ParseCpuidDump(report, "r.txt");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  ASSERT_EQ(dump->cpus.size(), 1u);
  EXPECT_EQ(dump->cpus[0].leaves.size(), 2u);
  EXPECT_EQ(dump->left_out,
            "sections All CPUs, MSR Registers, Versions; 1 allcpu lines; 2 cache description "
            "lines");
  // A plain dump says nothing was left out.
  const StatusOr<CpuidDump> plain = ParseCpuidDump(
      "------[ Logical CPU #0 ]------\nCPUID 00000000: 0000000D-756E6547-6C65746E-49656E69\n",
      "p.test");
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->left_out.empty());
  // Still refused: other text inside a CPUID block, and a header that is not a section.
  const StatusOr<CpuidDump> stray = ParseCpuidDump(
      "------[ CPUID Registers / Logical CPU #0 ]------\nCPUID 00000000: "
      "0000000D-756E6547-6C65746E-49656E69\nhello world\n",
      "s.txt");
  ASSERT_FALSE(stray.ok());
  EXPECT_NE(stray.status().message().find("s.txt:3: not a CPUID dump line"), std::string::npos)
      << stray.status().message();
  const StatusOr<CpuidDump> header = ParseCpuidDump("------[ Versions\n", "h.txt");
  ASSERT_FALSE(header.ok());
  EXPECT_NE(header.status().message().find("h.txt:1: not a CPUID dump header"), std::string::npos)
      << header.status().message();
}

// A recorded Emerald Rapids guest edited as a hypervisor that hides AMX presents it
// (tests/data/cpuid/edited/INDEX.md): the AMX features are hidden, not absent, and one warning
// names them with the remedy; the same guest with AMX exposed says nothing of the kind.
TEST(NewIsaBitsTest, FeaturesAHypervisorHidesAreNamedAsHidden) {
  const StatusOr<PlatformInfo> hidden = DetectRecordedPlatform(
      dlcheck::testing::DataPath("cpuid/edited/intel-xeon-emerald-rapids-kvm16-amx-hidden.test"));
  ASSERT_TRUE(hidden.ok()) << hidden.status().message();
  for (const char* name : {"amx_tile", "amx_int8", "amx_bf16"}) {
    const FeatureLayers* f = hidden->FindFeature(name);
    ASSERT_NE(f, nullptr);
    EXPECT_FALSE(f->cpu) << name;
    EXPECT_TRUE(f->hidden_by_hypervisor) << name;
  }
  EXPECT_FALSE(hidden->FindFeature("amx_fp16")->hidden_by_hypervisor);  // not Emerald Rapids'
  EXPECT_FALSE(hidden->FindFeature("avx512f")->hidden_by_hypervisor);   // exposed
  const Finding* finding = hidden->FindFinding("hypervisor-hides");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::kWarning);
  EXPECT_NE(finding->message.find("amx_tile, amx_int8, amx_bf16"), std::string::npos)
      << finding->message;
  EXPECT_NE(finding->message.find("passes AMX through"), std::string::npos) << finding->message;
  EXPECT_EQ(hidden->onednn_max_isa, "avx512_core_bf16");
  // The same part outside a hypervisor would be a part without AMX (none exists), never
  // "hidden"; a client part whose AVX-512 is fused off has no silicon list at all.
  EXPECT_TRUE(SiliconFeatures("Alder Lake").empty());
  EXPECT_TRUE(SiliconFeatures("unknown").empty());
}

// Family and model numbers of the 2024-26 parts no dump here records (Linux's intel-family.h
// and amd.c): the table names them rather than "unknown".
TEST(NewIsaBitsTest, NamesPartsUpTo2026) {
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0xAD, 1), "Granite Rapids");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0xAE, 1), "Granite Rapids-D");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0xAF, 3), "Sierra Forest");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0xDD, 0), "Clearwater Forest");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 0x13, 0x01, 0), "Diamond Rapids");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0xCC, 0), "Panther Lake");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0xD5, 0), "Wildcat Lake");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0xD7, 0), "Bartlett Lake");
  EXPECT_EQ(Microarchitecture("GenuineIntel", 0x12, 0x01, 0), "Nova Lake");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x1A, 0x50, 0), "Zen 6");
  EXPECT_EQ(Microarchitecture("AuthenticAMD", 0x1A, 0x44, 0), "Zen 5");
  // A model no public source names stays unknown.
  EXPECT_EQ(Microarchitecture("GenuineIntel", 6, 0xFE, 0), "unknown");
}

}  // namespace
}  // namespace dlcheck::detect
