// SPDX-License-Identifier: Apache-2.0
#include "common/primitive_kinds.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "support/test_files.h"
#include "verbose/dialect.h"
#include "verbose/line_parser.h"
#include "verbose/rules.h"

namespace dlcheck::onednn {
namespace {

// Every primitive kind the recorded logs name (real PyTorch, benchdnn and pasted lines from
// issues, from MKL-DNN 0.x to oneDNN 3.13) is in the table: a kind the table lacks would get no
// benchdnn line, no FLOPs and no rebuild.
TEST(PrimitiveKindsTest, EveryKindOfTheRecordedLogsIsKnown) {
  std::set<std::string> seen;
  for (const char* log : {"torch_cnn_2.6.3.log", "torch_bf16_2.6.3.log", "torch_int8_2.6.3.log",
                          "benchdnn_ts_3.10.2.log", "formats_3.13.1.txt", "generated_2.6.3.txt",
                          "real_lines.txt", "why_lines.txt"}) {
    std::ifstream in(testing::DataPath(std::string("verbose/") + log));
    ASSERT_TRUE(in) << log;
    verbose::LineParser parser;
    verbose::VerboseEvent e;
    for (std::string line; std::getline(in, line);) {
      const verbose::ParseResult r = parser.Parse(line, e);
      if (r.kind != verbose::LineKind::kEvent || e.era == verbose::Era::kOnednnGraph ||
          e.component == "graph" || e.operation == verbose::Operation::kDiagnostic ||
          e.primitive.empty()) {
        continue;
      }
      seen.insert(e.primitive);
    }
  }
  EXPECT_GE(seen.size(), 10u);  // the logs hold convolutions, matmuls, reorders, rnn, ...
  for (const std::string& kind : seen) {
    EXPECT_TRUE(KindOf(kind).has_value()) << kind;
    // benchdnn reproduces every kind but those logged like primitives that are none.
    const bool primitive = !IsKind(kind, Kind::kGemmApi) && !IsKind(kind, Kind::kExternal) &&
                           !IsKind(kind, Kind::kSdpa);
    EXPECT_EQ(BenchdnnDriver(kind).empty(), !primitive) << kind;
  }
}

// One answer to "compute primitive": the rules the findings use and whatif's are the table's.
TEST(PrimitiveKindsTest, ComputeIsOneRule) {
  for (const PrimitiveKind& k : kPrimitiveKinds) {
    EXPECT_EQ(verbose::IsComputePrimitive(k.name), k.role == KindRole::kCompute) << k.name;
    EXPECT_EQ(verbose::IsDataMovementPrimitive(k.name), k.role == KindRole::kDataMovement)
        << k.name;
    EXPECT_EQ(NameOf(k.kind).empty(), false) << k.name;
    EXPECT_EQ(KindOf(NameOf(k.kind)), k.kind) << k.name;  // a kind's name stands for it
  }
  EXPECT_TRUE(verbose::IsComputePrimitive("deconvolution"));
  EXPECT_FALSE(verbose::IsComputePrimitive("reorder"));
  EXPECT_EQ(NameOf(Kind::kSoftmax), "softmax");
  EXPECT_TRUE(IsKind(kPoolingV2, Kind::kPooling));
}

// Each dialect's marker opens a line the parser reads, and a line with any other word before
// `_verbose,` is not oneDNN's.
TEST(DialectTest, EveryMarkerIsFoundAndNoOther) {
  for (const verbose::Dialect& d : verbose::kDialects) {
    const std::string line = std::string(d.marker) + "info,oneDNN v2.6.3";
    EXPECT_EQ(verbose::FindMarker(line), 0u) << d.marker;
    EXPECT_EQ(verbose::FindMarker("prefix: " + line), 8u) << d.marker;
    EXPECT_EQ(verbose::FindDialect(d.word), &d);
  }
  EXPECT_EQ(verbose::FindMarker("mydnn_verbose,exec,cpu,conv"), std::string::npos);
  // ZenDNN's plug-in line behind its log header: the marker, not the header, opens the line.
  EXPECT_EQ(verbose::FindMarker("[PROF:I][0.1] zendnn_primitive_execute,cpu"), 14u);
  EXPECT_TRUE(verbose::Admits(verbose::DialectChoice::kOneDnn, verbose::Family::kGraph));
  EXPECT_FALSE(verbose::Admits(verbose::DialectChoice::kOneDnn, verbose::Family::kZendnn));
  EXPECT_FALSE(
      verbose::Admits(verbose::DialectChoice::kZendnnProfile, verbose::Family::kZendnnPrimitive));
  EXPECT_EQ(verbose::FindMarker("my_onednn_verbose,exec"), std::string::npos);
}

}  // namespace
}  // namespace dlcheck::onednn
