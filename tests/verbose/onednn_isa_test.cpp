// SPDX-License-Identifier: Apache-2.0
#include "common/onednn_isa.h"

#include <gtest/gtest.h>

#include <string>

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
    // x86 names rank unless the table says why not; other architectures never do.
    if (isa->arch != IsaArch::kX64) {
      EXPECT_FALSE(isa->rank.has_value()) << name;
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

TEST(OneDnnIsaTest, X86RowsAreInDispatchOrder) {
  int previous = -1;
  for (const Isa& isa : kIsas) {
    if (!isa.rank) continue;
    EXPECT_GE(*isa.rank, previous) << isa.name;
    previous = *isa.rank;
  }
}

TEST(OneDnnIsaTest, SweepCapsAreTheValuesOfOneDnn26InOrder) {
  const std::vector<std::string_view> caps(kSweepCaps.begin(), kSweepCaps.end());
  EXPECT_EQ(caps, (std::vector<std::string_view>{"sse41", "avx", "avx2", "avx2_vnni", "avx512_core",
                                                 "avx512_core_vnni", "avx512_core_bf16",
                                                 "avx512_core_amx"}));
  for (std::size_t i = 1; i < caps.size(); ++i) {
    EXPECT_LT(IsaRank(caps[i - 1]), IsaRank(caps[i])) << caps[i];
  }
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
  for (std::string_view other : {"sve_256", "avx10_2_ace", "no_such_isa", ""}) {
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
  for (const Isa& isa : kIsas) EXPECT_EQ(IsSweepCap(isa.name), isa.sweep_cap) << isa.name;
  EXPECT_FALSE(IsSweepCap("scalar"));
  EXPECT_EQ(SweepCapsText(),
            "sse41, avx, avx2, avx2_vnni, avx512_core, avx512_core_vnni, avx512_core_bf16, "
            "avx512_core_amx");
  static_assert(IsaName("avx2") == "avx2");  // IsaName("avx3") would not compile
}

}  // namespace
}  // namespace dlcheck::onednn
