// SPDX-License-Identifier: Apache-2.0
// AArch64 oneDNN logs (tests/data/verbose/aarch64_lines.txt, lines pasted in public issues, each
// under its source): ACL's implementations are their own class, JIT rows take the ISA the
// header names, and a reference row is flagged as on x86.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "verbose/fixture_lines.h"
#include "verbose/isa.h"
#include "verbose/log_session.h"

namespace dlcheck::verbose {
namespace {

using testing::FixtureLines;

// The fixture's lines from the one starting with `first` up to the next source comment.
std::vector<std::string> Block(const std::string& first) {
  std::vector<std::string> block;
  for (const std::string& line : FixtureLines("aarch64_lines.txt")) {
    if (!block.empty() && line.rfind("# ", 0) == 0) break;
    if (!block.empty() || line.find(first) != std::string::npos) block.push_back(line);
  }
  return block;
}

Summary Parse(const std::vector<std::string>& lines, LogSession& session) {
  std::uint64_t n = 0;
  for (const std::string& line : lines) session.Feed(line, ++n);
  session.Finish();
  return session.Summarize();
}

const Finding* NoteOf(const Summary& s, std::string_view code) {
  for (const Finding& f : s.notes) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

// pytorch/pytorch#123143: oneDNN 3.3.2 without SVE; matmuls in ACL, reorders in JIT code.
TEST(Aarch64LogTest, AclMatmulsAreTheirOwnClassAndJitRowsTakeTheHeadersIsa) {
  LogSession session;
  const Summary s = Parse(Block("oneDNN v3.3.2"), session);
  const PrimitiveRows& rows = session.aggregator().rows();
  ASSERT_EQ(rows.size(), 4u);  // matmul 256x64:64x16, reorder 64x16, reorder 16x16, matmul 256x16
  int acl = 0;
  int jit = 0;
  for (const PrimitiveStats& row : rows) {
    if (row.primitive == "matmul") {
      ++acl;
      EXPECT_EQ(row.impl_class, ImplClass::kAcl);
      EXPECT_EQ(ImplClassName(row.impl_class), "acl");
      EXPECT_EQ(row.isa, "");  // ACL shows none
    } else {
      ++jit;
      EXPECT_EQ(row.impl_class, ImplClass::kJit);
      EXPECT_EQ(row.isa, "asimd");  // jit:uni: from "AArch64 (with Advanced SIMD ...)"
      EXPECT_TRUE(row.isa_inferred);
    }
  }
  EXPECT_EQ(acl, 2);
  EXPECT_EQ(jit, 2);
  ASSERT_FALSE(s.by_fallback.empty());
  EXPECT_EQ(s.by_fallback[0].name, "acl");  // 1.41 ms of 1.41 + 0.005
  EXPECT_EQ(NoteOf(s, "scalar-fallback"), nullptr);
}

// uxlfoundation/oneDNN#2210: an ACL kernel oneDNN timed (exec:external) and its matmul.
TEST(Aarch64LogTest, AclKernelLinesAreAclToo) {
  LogSession session;
  Parse(Block("exec:external"), session);
  const PrimitiveRows& rows = session.aggregator().rows();
  ASSERT_EQ(rows.size(), 2u);
  for (const PrimitiveStats& row : rows) {
    EXPECT_EQ(row.impl_class, ImplClass::kAcl) << row.primitive;
  }
}

// uxlfoundation/oneDNN#1758: TF 2.13 on AArch64, softmax on ref:any: flagged as on x86.
TEST(Aarch64LogTest, AReferenceRowIsFlaggedAsOnX86) {
  LogSession session;
  const Summary s = Parse(Block("oneDNN v2.7.3"), session);
  const Finding* scalar = NoteOf(s, "scalar-fallback");
  ASSERT_NE(scalar, nullptr);
  EXPECT_EQ(scalar->message,
            "1 primitive ran scalar reference code: softmax_v2 ref:any (100.0% of exec time)");
  EXPECT_EQ(scalar->severity, Severity::kWarning);
}

TEST(Aarch64LogTest, AArch64IsaNamesInImplementations) {
  EXPECT_EQ(IsaOf("jit:sve_256"), "sve_256");
  EXPECT_EQ(IsaOf("brg:sve_512"), "sve_512");
  EXPECT_EQ(IsaOf("jit:asimd"), "asimd");
  EXPECT_EQ(IsaOf("gemm:acl"), "");
  EXPECT_EQ(ClassifyImplementation("jit:sve_256").impl_class, ImplClass::kJit);
  EXPECT_EQ(ClassifyImplementation("gemm:acl").impl_class, ImplClass::kAcl);
  EXPECT_EQ(ClassifyImplementation("ref:any").impl_class, ImplClass::kScalar);
}

}  // namespace
}  // namespace dlcheck::verbose
