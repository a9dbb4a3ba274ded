// SPDX-License-Identifier: Apache-2.0
#include "verbose/isa.h"

#include <gtest/gtest.h>

namespace dlcheck::verbose {
namespace {

TEST(IsaTest, IsaTokenAnywhereInTheName) {
  EXPECT_EQ(IsaOf("jit:avx512_core"), "avx512_core");
  EXPECT_EQ(IsaOf("brgemm:avx512_core_amx"), "avx512_core_amx");
  EXPECT_EQ(IsaOf("brg:avx2"), "avx2");
  EXPECT_EQ(IsaOf("jit_bf16:avx512_core_bf16"), "avx512_core_bf16");
  EXPECT_EQ(IsaOf("x64:gemm_s8u8s32:jit:avx512_core_vnni"), "avx512_core_vnni");
  EXPECT_EQ(IsaOf("jit_xf16_avx10_1_512"), "avx10_1_512");
  EXPECT_EQ(IsaOf("brg_deconv:avx2+brgconv_strided:avx512_core"), "avx512_core");
  EXPECT_EQ(IsaOf("brgconv:sve_256"), "sve_256");
  EXPECT_EQ(IsaOf("x64:gemm:jit"), "");
  EXPECT_EQ(IsaOf("jit:uni"), "");
  EXPECT_EQ(IsaOf("gemm:jit"), "");
  EXPECT_EQ(IsaOf("brgemm:"), "");
  EXPECT_EQ(IsaOf(""), "");
}

TEST(IsaTest, FallbackClasses) {
  struct Case {
    const char* name;
    ImplClass expected;
  };
  const Case cases[] = {
      {"ref:any", ImplClass::kScalar},
      {"ref_int8:any", ImplClass::kScalar},
      {"simple:any", ImplClass::kScalar},
      {"simple_nchw:any", ImplClass::kScalar},
      {"gemm:ref", ImplClass::kScalar},
      {"bnorm_ref:any", ImplClass::kScalar},
      {"ocl:ref:any", ImplClass::kScalar},
      {"nchw_pooling:any", ImplClass::kScalar},
      {"ncsp_gnorm:any", ImplClass::kScalar},
      {"jit:avx2", ImplClass::kJit},
      {"jit:uni", ImplClass::kJit},
      {"jit:blk", ImplClass::kJit},
      {"brgemm:avx512_core", ImplClass::kJit},
      {"bnorm_jit:avx2", ImplClass::kJit},
      {"jit:gemm:any", ImplClass::kJit},
      {"gemm:jit", ImplClass::kGemm},
      {"x64:gemm:jit", ImplClass::kGemm},
      {"gemm:jit:f32", ImplClass::kGemm},
      {"x64:gemm_s8u8s32:jit", ImplClass::kGemm},
      {"conv:any+x64:gemm:jit", ImplClass::kGemm},
      {"gemm:blas", ImplClass::kExternal},
      {"gemm:acl", ImplClass::kAcl},
      {"lowp_gemm:acl", ImplClass::kAcl},
      {"acl", ImplClass::kAcl},
      {"brg:sve_256", ImplClass::kJit},
      {"jit:asimd", ImplClass::kJit},
      {"cuda:cudnn:any", ImplClass::kExternal},
      {"", ImplClass::kUnknown},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ClassifyImplementation(c.name).impl_class, c.expected) << c.name;
  }
  EXPECT_EQ(ClassifyImplementation("ref:any").reason,
            "reference implementation: plain C++ loops without hand-written vector code");
}

TEST(IsaTest, EveryRuleHasAReason) {
  for (const ImplClassRule& rule : ImplClassRules()) {
    EXPECT_FALSE(rule.reason.empty()) << rule.pattern;
    EXPECT_NE(rule.impl_class, ImplClass::kUnknown) << rule.pattern;
  }
}

// The classes' one order, beside their enum: what `diff` calls a worse class.
TEST(IsaTest, ImplClassesFallBackInOneOrderAndReadBackByName) {
  EXPECT_LT(FallbackDepth(ImplClass::kJit), FallbackDepth(ImplClass::kGemm));
  EXPECT_LT(FallbackDepth(ImplClass::kGemm), FallbackDepth(ImplClass::kExternal));
  EXPECT_LT(FallbackDepth(ImplClass::kExternal), FallbackDepth(ImplClass::kScalar));
  EXPECT_EQ(FallbackDepth(ImplClass::kUnknown), std::nullopt);
  for (const ImplClass c : {ImplClass::kUnknown, ImplClass::kJit, ImplClass::kGemm,
                            ImplClass::kScalar, ImplClass::kExternal}) {
    EXPECT_EQ(ImplClassFromName(ImplClassName(c)), c) << ImplClassName(c);
  }
  EXPECT_EQ(ImplClassFromName("JIT"), ImplClass::kUnknown);
}

TEST(IsaTest, HeaderIsaText) {
  EXPECT_EQ(IsaFromHeaderText("Intel AVX-512 with Intel DL Boost and bfloat16 support"),
            "avx512_core_bf16");
  EXPECT_EQ(IsaFromHeaderText("Intel AVX-512 with AVX512BW, AVX512VL, and AVX512DQ extensions"),
            "avx512_core");
  EXPECT_EQ(IsaFromHeaderText("Intel AVX-512 with Intel DL Boost"), "avx512_core_vnni");
  EXPECT_EQ(IsaFromHeaderText("Intel AVX-512 with float16, Intel DL Boost and bfloat16 support "
                              "and Intel AMX with bfloat16 and 8-bit integer support"),
            "avx512_core_amx");
  EXPECT_EQ(IsaFromHeaderText("Intel AVX2"), "avx2");
  EXPECT_EQ(IsaFromHeaderText("Intel AVX2 with Intel DL Boost"), "avx2_vnni");
  EXPECT_EQ(IsaFromHeaderText("Intel(R) Advanced Vector Extensions 2 (Intel(R) AVX2)"), "avx2");
  EXPECT_EQ(IsaFromHeaderText("Intel SSE4.1"), "sse41");
  EXPECT_EQ(IsaFromHeaderText("AArch64 SVE (256 bits)"), "sve_256");
  EXPECT_EQ(IsaFromHeaderText("AArch64 (with Advanced SIMD & floating-point)"), "asimd");
  EXPECT_EQ(IsaFromHeaderText("Intel 64"), "");
}

}  // namespace
}  // namespace dlcheck::verbose
