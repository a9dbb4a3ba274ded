// SPDX-License-Identifier: Apache-2.0
// The instruction class of code (profile/instruction_mix.h): single instructions of each class
// (their bytes as GNU as 2.40 encodes them), the widest of several, bytes no instruction starts
// at, and the functions of the test program (tests/profile/mix_program.c) decoded statically
// from its ELF file, whatever this host's CPU can run; and what is `unknown`, and why.
#include "profile/instruction_mix.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "profile/elf_image.h"
#include "profile/profile.h"
#include "support/scratch_dir.h"

namespace mixtest {
// A C++ function of this binary, found by its demangled name as perf prints it.
__attribute__((noinline)) int Twice(int x) {
  return 2 * x;
}
}  // namespace mixtest

namespace dlcheck::profile {
namespace {

using Bytes = std::vector<std::uint8_t>;

CodeClass ClassOfBytes(const Bytes& bytes) {
  return DecodeCode(bytes).cls;
}

TEST(InstructionMixTest, EachInstructionGetsItsClass) {
  const struct {
    const char* instruction;
    Bytes bytes;
    CodeClass cls;
  } cases[] = {
      {"ret", {0xc3}, CodeClass::kScalar},
      {"andn %eax,%ebx,%ecx (BMI1: VEX, general registers)",
       {0xc4, 0xe2, 0x60, 0xf2, 0xc8},
       CodeClass::kScalar},
      {"prefetcht0 (%rax)", {0x0f, 0x18, 0x08}, CodeClass::kScalar},
      {"addps %xmm1,%xmm2", {0x0f, 0x58, 0xd1}, CodeClass::kSse},
      {"addsd %xmm1,%xmm2", {0xf2, 0x0f, 0x58, 0xd1}, CodeClass::kSse},
      {"vaddps %ymm1,%ymm2,%ymm3", {0xc5, 0xec, 0x58, 0xd9}, CodeClass::kAvx},
      {"{vex} vpdpbusd %ymm1,%ymm2,%ymm3", {0xc4, 0xe2, 0x6d, 0x50, 0xd9}, CodeClass::kAvxVnni},
      {"vaddps %zmm1,%zmm2,%zmm3", {0x62, 0xf1, 0x6c, 0x48, 0x58, 0xd9}, CodeClass::kAvx512},
      {"vaddps %ymm17,%ymm18,%ymm19 (EVEX)",
       {0x62, 0xa1, 0x6c, 0x20, 0x58, 0xd9},
       CodeClass::kAvx512},
      {"kmovw %k1,%eax", {0xc5, 0xf8, 0x93, 0xc1}, CodeClass::kAvx512},
      {"vpdpbusd %zmm1,%zmm2,%zmm3", {0x62, 0xf2, 0x6d, 0x48, 0x50, 0xd9}, CodeClass::kAvx512Vnni},
      {"vdpbf16ps %zmm1,%zmm2,%zmm3",
       {0x62, 0xf2, 0x6e, 0x48, 0x52, 0xd9},
       CodeClass::kAvx512Bf16Fp16},
      {"vfmadd231ph %zmm1,%zmm2,%zmm3",
       {0x62, 0xf6, 0x6d, 0x48, 0xb8, 0xd9},
       CodeClass::kAvx512Bf16Fp16},
      {"tdpbf16ps %tmm1,%tmm2,%tmm3", {0xc4, 0xe2, 0x72, 0x5c, 0xda}, CodeClass::kAmx},
      {"tileloadd (%rax,%rbx,1),%tmm0", {0xc4, 0xe2, 0x7b, 0x4b, 0x04, 0x18}, CodeClass::kAmx},
  };
  for (const auto& c : cases) {
    const DecodedCode decoded = DecodeCode(c.bytes);
    EXPECT_EQ(CodeClassName(decoded.cls), CodeClassName(c.cls)) << c.instruction;
    EXPECT_EQ(decoded.instructions, 1u) << c.instruction;
    EXPECT_EQ(decoded.undecoded_bytes, 0u) << c.instruction;
  }
}

TEST(InstructionMixTest, TheWidestInstructionClassesTheCode) {
  // ret; addps; vaddps ymm; ret
  EXPECT_EQ(ClassOfBytes({0xc3, 0x0f, 0x58, 0xd1, 0xc5, 0xec, 0x58, 0xd9, 0xc3}), CodeClass::kAvx);
  // vaddps zmm before addps: the order does not matter
  EXPECT_EQ(ClassOfBytes({0x62, 0xf1, 0x6c, 0x48, 0x58, 0xd9, 0x0f, 0x58, 0xd1}),
            CodeClass::kAvx512);
  // AVX-VNNI (ymm) is narrower than any AVX-512
  EXPECT_EQ(ClassOfBytes({0xc4, 0xe2, 0x6d, 0x50, 0xd9, 0xc5, 0xf8, 0x93, 0xc1}),
            CodeClass::kAvx512);
}

TEST(InstructionMixTest, BytesNoInstructionStartsAtArePassedOver) {
  // 0x06 (push es) is invalid in 64-bit mode; the ret after it is decoded.
  const DecodedCode decoded = DecodeCode(Bytes{0x06, 0xc3});
  EXPECT_EQ(decoded.undecoded_bytes, 1u);
  EXPECT_EQ(decoded.instructions, 1u);
  // An instruction cut short (vaddps zmm without its last byte) is not one.
  EXPECT_EQ(DecodeCode(Bytes{0x62, 0xf1, 0x6c, 0x48, 0x58}).cls, CodeClass::kScalar);
  EXPECT_EQ(DecodeCode(Bytes{}).instructions, 0u);
}

// The three loops of the test program, classed from its file: the AVX-512 one too, on a CPU
// that cannot run it.
TEST(InstructionMixTest, TheTestProgramsFunctionsGetTheirClasses) {
  CodeClassifier classifier;
  EXPECT_EQ(CodeClassName(classifier.ClassOf(DLCHECK_MIX_PROGRAM, "avx512_loop").cls), "avx512");
  EXPECT_EQ(CodeClassName(classifier.ClassOf(DLCHECK_MIX_PROGRAM, "avx2_loop").cls), "avx");
  EXPECT_EQ(CodeClassName(classifier.ClassOf(DLCHECK_MIX_PROGRAM, "scalar_loop").cls), "scalar");
  EXPECT_EQ(classifier.decoded(), 3u);
  // Decoded once per (file, symbol), however often asked.
  classifier.ClassOf(DLCHECK_MIX_PROGRAM, "avx2_loop");
  EXPECT_EQ(classifier.decoded(), 3u);
}

TEST(InstructionMixTest, ACppFunctionIsFoundByItsDemangledName) {
  EXPECT_EQ(mixtest::Twice(2), 4);
  CodeClassifier classifier;
  // With its parameters, and as perf 6.1 prints it: without them.
  for (const char* name : {"mixtest::Twice(int)", "mixtest::Twice"}) {
    const LeafCode& code = classifier.ClassOf("/proc/self/exe", name);
    EXPECT_NE(code.cls, CodeClass::kUnknown) << name << ": " << code.why_unknown;
  }
  EXPECT_EQ(classifier.ClassOf("/proc/self/exe", "mixtest::Thrice").why_unknown,
            "no symbol of that name in the file");
}

TEST(InstructionMixTest, PerfsCppNamesAreTheDemangledOnesWithoutParameters) {
  EXPECT_EQ(WithoutParameters("ns::Class::Run(int) const"), "ns::Class::Run");
  EXPECT_EQ(WithoutParameters("std::vector<void (*)(int)>::push_back(void (* const&)(int))"),
            "std::vector<void (*)(int)>::push_back");
  EXPECT_EQ(WithoutParameters("a::(anonymous namespace)::Train(float)"),
            "a::(anonymous namespace)::Train");
  EXPECT_EQ(WithoutParameters("Functor::operator()(int)"), "Functor::operator()");
  EXPECT_EQ(WithoutParameters("plain_c_name"), "plain_c_name");
  using Names = std::vector<std::string_view>;
  EXPECT_EQ(Identifiers("ns::Class<a::B>::Run"), (Names{"ns", "Class", "Run"}));
  EXPECT_EQ(Identifiers("sgemm_"), (Names{"sgemm_"}));
  EXPECT_EQ(Identifiers("Functor::operator()"), (Names{"Functor"}));
  EXPECT_EQ(Identifiers("ns::f(int)::{lambda(int)#1}::operator()"), (Names{"ns", "f"}));
  EXPECT_EQ(Identifiers("a::(anonymous namespace)::Train"), (Names{"a", "Train"}));
  EXPECT_EQ(Identifiers("operator new"), Names{});
}

using InstructionMixUnknownTest = testing::ScratchDirTest;

TEST_F(InstructionMixUnknownTest, WhatCannotBeDecodedIsUnknownWithItsReason) {
  CodeClassifier classifier;
  const auto why = [&](const std::string& dso, const std::string& symbol) {
    const LeafCode& code = classifier.ClassOf(dso, symbol);
    EXPECT_EQ(code.cls, CodeClass::kUnknown) << dso << " " << symbol;
    return code.why_unknown;
  };
  EXPECT_EQ(why(DLCHECK_MIX_PROGRAM, "[unknown]"), "no symbol (a stripped file)");
  EXPECT_EQ(why("[vdso]", "__vdso_clock_gettime"), "not a file on disk");
  EXPECT_EQ(why(DLCHECK_MIX_PROGRAM, "no_such_function"), "no symbol of that name in the file");
  EXPECT_EQ(why(Write("gone.so", "") + ".missing", "f"),
            "the file is gone or is no ELF file with code");
  EXPECT_EQ(why(Write("text.so", "not an ELF file\n"), "f"),
            "the file is gone or is no ELF file with code");
  EXPECT_EQ(why("/dev/zero", "f"), "the file is gone or is no ELF file with code");
}

TEST(InstructionMixTest, AFileChangedAfterTheRecordingIsUnknown) {
  CodeClassifier classifier(/*recorded_s=*/0);  // any file is newer
  const LeafCode& code = classifier.ClassOf(DLCHECK_MIX_PROGRAM, "avx2_loop");
  EXPECT_EQ(code.cls, CodeClass::kUnknown);
  EXPECT_EQ(code.why_unknown, "the file changed after the recording");
}

TEST(InstructionMixTest, ALeafInAFileIsCountedAndClassed) {
  ProfileBuilder builder;
  PerfRecord r;
  r.event = "cpu-clock";
  r.frames = {{.symbol = "avx2_loop", .dso = DLCHECK_MIX_PROGRAM}};
  builder.Add(r);
  builder.Add(r);
  r.frames = {{.symbol = "jit_kernel", .dso = "/tmp/perf-42.map"}};
  builder.Add(r);
  r.frames = {{.symbol = "do_syscall_64", .dso = "[kernel.kallsyms]"}};
  builder.Add(r);
  Profile p = builder.profile();
  ASSERT_EQ(p.file_leaf_samples.size(), 1u);
  EXPECT_EQ((p.file_leaf_samples[{DLCHECK_MIX_PROGRAM, "avx2_loop"}]), 2u);
  CodeClassifier classifier;
  ClassifyLeafCode(p, classifier);
  EXPECT_EQ((p.leaf_code[{DLCHECK_MIX_PROGRAM, "avx2_loop"}].cls), CodeClass::kAvx);
}

}  // namespace
}  // namespace dlcheck::profile
