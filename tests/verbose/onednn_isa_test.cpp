// SPDX-License-Identifier: Apache-2.0
#include "common/onednn_isa.h"

#include <gtest/gtest.h>

#include <span>
#include <string>
#include <vector>

#include "verbose/isa.h"

namespace dlcheck::onednn {
namespace {

// The ISA suffixes the verbose parser recognised before the table was shared (isa.cpp's
// kIsaNames), plus dlcheck's "none": each must still be known, and still be found in a name.
constexpr std::string_view kParserNames[] = {
    "sse41",
    "sse42",
    "avx",
    "avx2",
    "avx2_vnni",
    "avx2_vnni_2",
    "avx512_common",
    "avx512_core",
    "avx512_mic",
    "avx512_mic_4ops",
    "avx512_core_vnni",
    "avx512_core_bf16",
    "avx512_core_fp16",
    "avx512_core_amx",
    "avx512_core_amx_fp16",
    "avx512_core_amx_int8",
    "avx512_core_amx_bf16",
    "avx512_core_bf16_amx_int8",
    "avx512_core_bf16_amx_bf16",
    "avx10_1_512",
    "avx10_1_512_amx",
    "avx10_1_512_amx_fp16",
    "avx10_2_512",
    "avx10_2_512_amx_2",
    "avx10_2",
    "avx10_2_amx_2",
    "avx10_2_ace",
    "asimd",
    "sve",
    "sve_128",
    "sve_256",
    "sve_512",
    "sme",
    "rvv",
    "avx512_core_bf16_ymm",
    "avx512_core_vnni_amx",
    "avx2_vnni_2_amx",
    "sse4_1",
};

TEST(OneDnnIsaTest, EveryNameTheParserRecognisesHasAnAnswer) {
  for (std::string_view name : kParserNames) {
    const Isa* isa = FindIsa(name);
    ASSERT_NE(isa, nullptr) << name;
    EXPECT_EQ(verbose::IsaOf("jit:" + std::string(name)), name);
    // x86 names rank unless the table says why not; another architecture's names never rank
    // in the x86 order (AArch64's rank in their own, RISC-V's nowhere yet).
    if (isa->arch != IsaArch::kX64) {
      EXPECT_FALSE(IsaRank(name).has_value()) << name;
      if (isa->arch == IsaArch::kRiscv64) {
        EXPECT_FALSE(isa->rank.has_value()) << name;
      }
    }
  }
  EXPECT_EQ(kIsas.size(), std::size(kParserNames) + 1);  // and "none"
  EXPECT_EQ(verbose::IsaOf("jit:none"), "");             // dlcheck's word, never oneDNN's
}

TEST(OneDnnIsaTest, AvxCommonAndAvx10NamesRankSensibly) {
  // avx512_common (AVX512F+CD, oneDNN <= 2.5): above the 256-bit levels, below avx512_core.
  EXPECT_GT(IsaRank("avx512_common"), IsaRank("avx2_vnni_2"));
  EXPECT_LT(IsaRank("avx512_common"), IsaRank("avx512_core"));
  // oneDNN 3.5+ prints avx10_1_512_amx where 3.0-3.4 printed avx512_core_amx (Sapphire and
  // Emerald Rapids): the same level, above every AVX-512 level without AMX.
  EXPECT_EQ(IsaRank("avx10_1_512_amx"), IsaRank("avx512_core_amx"));
  EXPECT_EQ(IsaRank("avx10_1_512"), IsaRank("avx512_core_fp16"));
  EXPECT_EQ(IsaRank("avx10_1_512_amx_fp16"), IsaRank("avx512_core_amx_fp16"));
  EXPECT_EQ(IsaRank("avx10_2_512"), IsaRank("avx10_2"));
  EXPECT_GT(IsaRank("avx10_1_512_amx"), IsaRank("avx512_core_fp16"));
  EXPECT_GT(IsaRank("avx10_1_512_amx"), IsaRank("avx512_core_bf16_amx_int8"));
  EXPECT_EQ(IsaRank("avx512_core_bf16_ymm"), IsaRank("avx512_core_bf16"));
  EXPECT_EQ(IsaRank("sse42"), IsaRank("sse41"));
  EXPECT_EQ(IsaRank("none"), 0);
}

TEST(OneDnnIsaTest, CannotRankIsExplicit) {
  ASSERT_NE(FindIsa("sve_256"), nullptr);
  EXPECT_EQ(IsaRank("sve_256"), std::nullopt);
  ASSERT_NE(FindIsa("avx10_2_ace"), nullptr);
  EXPECT_EQ(IsaRank("avx10_2_ace"), std::nullopt);
  EXPECT_EQ(FindIsa("no_such_isa"), nullptr);
  EXPECT_EQ(IsaRank("no_such_isa"), std::nullopt);
  EXPECT_EQ(FindIsa("AVX2"), nullptr);  // exact, lower case
}

TEST(OneDnnIsaTest, EachArchitecturesRowsAreInItsDispatchOrder) {
  for (IsaArch arch : {IsaArch::kX64, IsaArch::kAarch64}) {
    int previous = 0;  // "none"
    int rows = 0;
    for (const Isa& isa : kIsas) {
      if (isa.arch != arch || !isa.rank) continue;
      EXPECT_GE(*isa.rank, previous) << isa.name;
      previous = *isa.rank;
      ++rows;
    }
    EXPECT_GE(rows, 4);
  }
}

TEST(OneDnnIsaTest, SweepCapsAreTheValuesOfOneDnn26InOrder) {
  const std::span<const std::string_view> x86 = SweepCaps(IsaArch::kX64);
  EXPECT_EQ(
      std::vector<std::string_view>(x86.begin(), x86.end()),
      (std::vector<std::string_view>{"sse41", "avx", "avx2", "avx2_vnni", "avx512_core",
                                     "avx512_core_vnni", "avx512_core_bf16", "avx512_core_amx"}));
  for (std::size_t i = 1; i < x86.size(); ++i) {
    EXPECT_LT(IsaRank(x86[i - 1]), IsaRank(x86[i])) << x86[i];
  }
}

// oneDNN's AArch64 order (src/cpu/aarch64/cpu_isa_traits.hpp): a vector length caps the
// shorter ones; the ranks are AArch64's own, never held against x86's.
TEST(OneDnnIsaTest, Aarch64LevelsRankInTheirOwnOrder) {
  EXPECT_EQ(RankIn(IsaArch::kAarch64, "asimd"), 1);
  EXPECT_EQ(RankIn(IsaArch::kAarch64, "sve_128"), 2);
  EXPECT_EQ(RankIn(IsaArch::kAarch64, "sve_256"), 3);
  EXPECT_EQ(RankIn(IsaArch::kAarch64, "sve_512"), 4);
  EXPECT_EQ(RankIn(IsaArch::kAarch64, "none"), 0);
  EXPECT_EQ(RankIn(IsaArch::kAarch64, "avx2"), std::nullopt);
  EXPECT_EQ(RankIn(IsaArch::kX64, "sve_256"), std::nullopt);
  EXPECT_EQ(RankIn(IsaArch::kAarch64, "sve"), std::nullopt);  // no length: no place
  EXPECT_EQ(Compare("asimd", "sve_256"), IsaOrder::kBelow);
  EXPECT_EQ(Compare("sve_512", "sve_128"), IsaOrder::kAbove);
  EXPECT_EQ(Compare("none", "asimd"), IsaOrder::kBelow);
  EXPECT_EQ(Compare("sve_256", "avx2"), IsaOrder::kUnrankable);  // same rank number, two orders
  EXPECT_EQ(Compare("avx2", "sve_256"), IsaOrder::kUnrankable);
  EXPECT_TRUE(AtOrBelow("sve_128", "sve_256"));
  EXPECT_EQ(ArchOf("sve_256"), IsaArch::kAarch64);
  EXPECT_EQ(ArchOf("avx2"), IsaArch::kX64);
  EXPECT_EQ(ArchOf("no_such_isa"), IsaArch::kNone);
}

TEST(OneDnnIsaTest, SweepCapsArePerArchitecture) {
  const std::span<const std::string_view> arm = SweepCaps(IsaArch::kAarch64);
  EXPECT_EQ(std::vector<std::string_view>(arm.begin(), arm.end()),
            (std::vector<std::string_view>{"asimd", "sve_128", "sve_256", "sve_512"}));
  EXPECT_TRUE(SweepCaps(IsaArch::kRiscv64).empty());
  EXPECT_TRUE(SweepCaps(IsaArch::kNone).empty());
  EXPECT_TRUE(IsSweepCap("sve_256", IsaArch::kAarch64));
  EXPECT_FALSE(IsSweepCap("sve_256", IsaArch::kX64));
  EXPECT_FALSE(IsSweepCap("avx2", IsaArch::kAarch64));
  EXPECT_EQ(SweepCapsText(IsaArch::kAarch64), "asimd, sve_128, sve_256, sve_512");
  // What ONEDNN_MAX_CPU_ISA takes (cpu_isa_traits<>::user_option_env on AArch64).
  EXPECT_EQ(MaxIsaValue("asimd"), "ADVANCED_SIMD");
  EXPECT_EQ(MaxIsaValue("sve_256"), "SVE_256");
  EXPECT_EQ(MaxIsaValue("avx512_core"), "avx512_core");  // as dlcheck has always passed it
  // A check on AArch64 accepts its caps alone: no oneDNN 3.x level list there yet.
  EXPECT_EQ(CheckIsasText(IsaArch::kAarch64), "asimd, sve_128, sve_256, sve_512");
  EXPECT_EQ(CheckIsasText(IsaArch::kX64).rfind(SweepCapsText(IsaArch::kX64) + "; oneDNN 3.x: ", 0),
            0u);
}

TEST(OneDnnIsaTest, HeaderTextsReadBackAsTheirLevel) {
  int texts = 0;
  for (const Isa& isa : kIsas) {
    if (isa.header_text.empty()) continue;
    ++texts;
    const std::string_view read = verbose::IsaFromHeaderText(isa.header_text);
    EXPECT_EQ(IsaRank(read), isa.rank) << isa.name << ": " << isa.header_text << " -> " << read;
  }
  EXPECT_GE(texts, 14);
  // Every name the header reader can return is in the table.
  for (std::string_view text :
       {"Intel AVX10.1/512 with float16, Intel DL Boost and bfloat16 support",
        "Intel AVX10.1/512 with Intel AMX with bfloat16 and 8-bit integer support",
        "Intel AVX10.1/512 and Intel AMX with bfloat16, float16 and 8-bit integer support",
        "AArch64 SVE (512 bits)", "AArch64 SVE (128 bits)"}) {
    EXPECT_NE(FindIsa(verbose::IsaFromHeaderText(text)), nullptr) << text;
  }
  EXPECT_EQ(verbose::IsaFromHeaderText(
                "Intel AVX10.1/512 and Intel AMX with bfloat16, float16 and 8-bit integer support"),
            "avx10_1_512_amx_fp16");
}

// The header reader searches the table: each row's header text reads back as that very row.
TEST(OneDnnIsaTest, EveryHeaderTextMapsBackToItsOwnIsa) {
  for (const Isa& isa : kIsas) {
    if (isa.header_text.empty()) continue;
    EXPECT_EQ(IsaOfHeaderText(isa.header_text), isa.name) << isa.header_text;
    EXPECT_EQ(verbose::IsaFromHeaderText(isa.header_text), isa.name) << isa.header_text;
  }
  EXPECT_EQ(IsaOfHeaderText(""), "");
  EXPECT_EQ(IsaOfHeaderText("Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2)"), "");
}

TEST(OneDnnIsaTest, CompareSaysWhenANameCannotBeRanked) {
  EXPECT_EQ(Compare("avx2", "avx512_core"), IsaOrder::kBelow);
  EXPECT_EQ(Compare("avx512_core_amx", "avx10_1_512_amx"), IsaOrder::kSame);  // a 3.5+ rename
  EXPECT_EQ(Compare("avx512_core_bf16", "avx2_vnni"), IsaOrder::kAbove);
  EXPECT_EQ(Compare("none", "sse41"), IsaOrder::kBelow);
  for (std::string_view other : {"sve", "avx10_2_ace", "no_such_isa", ""}) {
    EXPECT_EQ(Compare(other, "sse41"), IsaOrder::kUnrankable) << other;
    EXPECT_EQ(Compare("sse41", other), IsaOrder::kUnrankable) << other;
    EXPECT_FALSE(AtOrBelow(other, "avx512_core_amx")) << other;
    EXPECT_FALSE(AtOrAbove(other, "none")) << other;
    EXPECT_LT(SortRank(other), SortRank("none")) << other;
  }
  EXPECT_TRUE(AtOrBelow("avx2", "avx2"));
  EXPECT_TRUE(AtOrAbove("avx512_core_vnni", "avx2"));
}

TEST(OneDnnIsaTest, SweepCapsAreTheRowsMarkedSo) {
  for (const Isa& isa : kIsas) {
    EXPECT_EQ(IsSweepCap(isa.name, isa.arch), isa.sweep_cap) << isa.name;
  }
  EXPECT_FALSE(IsSweepCap("scalar", IsaArch::kX64));
  EXPECT_EQ(SweepCapsText(IsaArch::kX64),
            "sse41, avx, avx2, avx2_vnni, avx512_core, avx512_core_vnni, avx512_core_bf16, "
            "avx512_core_amx");
  static_assert(IsaName("avx2") == "avx2");  // IsaName("avx3") would not compile
}

}  // namespace
}  // namespace dlcheck::onednn
