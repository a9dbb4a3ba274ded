// SPDX-License-Identifier: Apache-2.0
#include "verbose/flops.h"

#include <gtest/gtest.h>

#include <array>
#include <sstream>
#include <string>

#include "support/test_files.h"
#include "verbose/problem_keys.h"

namespace dlcheck::verbose {
namespace {

// benchdnn's count: 2 * mb * oc * (ic/g) * the kernel taps inside the input over all output
// positions. A 3-tap kernel padded by 1 on n positions reads n * 3 - 2 taps inside.
TEST(WorkTest, Convolution2dWithGroupsStridesAndDilation) {
  EXPECT_DOUBLE_EQ(
      *FlopsOf("convolution", "mb2_ic16oc32_ih13oh13kh3sh1dh0ph1_iw13ow13kw3sw1dw0pw1"),
      2.0 * 2 * 32 * 16 * (13 * 3 - 2) * (13 * 3 - 2));
  EXPECT_DOUBLE_EQ(
      *FlopsOf("convolution", "g32mb1_ic32oc32_ih56oh56kh3sh1dh0ph1_iw56ow56kw3sw1dw0pw1"),
      2.0 * 1 * 32 * 1 * (56 * 3 - 2) * (56 * 3 - 2));
  // Stride 2, dilation 1 (taps 2 apart), pad 1 on 7: outputs 0..3 read -1,1,3 | 1,3,5 | 3,5,7 |
  // 5,7,9 of 0..6: 2 + 3 + 2 + 1 = 8 taps per dimension.
  EXPECT_DOUBLE_EQ(*FlopsOf("convolution", "mb1_g4ic16oc16_ih7oh4kh3sh2dh1ph1_iw7ow4kw3sw2dw1pw1"),
                   2.0 * 1 * 16 * 4 * 8 * 8);
}

TEST(WorkTest, Convolution1dAnd3d) {
  // No padding: every tap inside, the product of the sizes.
  EXPECT_DOUBLE_EQ(*FlopsOf("convolution", "mb2_ic4oc8_iw10ow8kw3sw1dw0pw0"),
                   2.0 * 2 * 8 * 4 * 8 * 3);
  EXPECT_DOUBLE_EQ(*FlopsOf("convolution",
                            "mb1_ic8oc8_id8od8kd3sd1dd0pd1_ih8oh8kh3sh1dh0ph1_iw8ow8kw3sw1dw0pw1"),
                   2.0 * 8 * 8 * (8 * 3 - 2) * (8 * 3 - 2) * (8 * 3 - 2));
}

TEST(WorkTest, DeconvolutionCountsTheConvolutionItTransposes) {
  // Its 7 input positions read the 3 taps at 2i - 1 + k of its 14 outputs: 2 + 6 * 3 = 20.
  EXPECT_DOUBLE_EQ(*FlopsOf("deconvolution", "mb1_ic8oc8_ih7oh14kh3sh2dh0ph1_iw7ow14kw3sw2dw0pw1"),
                   2.0 * 1 * 8 * 8 * 20 * 20);
}

// The counts benchdnn 2.6.3 printed (%ops%, 6 significant digits) for padded, strided, dilated,
// grouped, 1D/2D/3D convolutions and deconvolutions (tests/data/flops: how they were made).
TEST(WorkTest, CountsWhatBenchdnnCounts) {
  std::istringstream in(testing::ReadFile(testing::DataPath("flops/benchdnn_ops_2.6.3.txt")));
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string driver, problem;
    double ops = 0;
    ASSERT_TRUE(fields >> driver >> problem >> ops) << line;
    const std::optional<double> ours =
        FlopsOf(driver == "deconv" ? "deconvolution" : "convolution", problem);
    ASSERT_TRUE(ours) << line;
    EXPECT_NEAR(*ours, ops, ops * 5e-6) << line;  // benchdnn printed 6 significant digits
    ++rows;
  }
  EXPECT_GE(rows, 10);  // the file was read
}

// The counts benchdnn 2.6.3 printed for rnn problems of every cell, direction and propagation
// (tests/data/flops/benchdnn_rnn_ops_2.6.3.txt: how they were made).
TEST(WorkTest, CountsWhatBenchdnnCountsForRnn) {
  std::istringstream in(testing::ReadFile(testing::DataPath("flops/benchdnn_rnn_ops_2.6.3.txt")));
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string alg, direction, prop, extra, problem;
    double ops = 0;
    ASSERT_TRUE(fields >> alg >> direction >> prop >> extra >> problem >> ops) << line;
    const std::optional<double> ours =
        FlopsOf("rnn", problem, "alg:" + alg + " direction:" + direction + " activation:undef",
                prop == "BWD_DW" ? "backward" : "forward_inference");
    ASSERT_TRUE(ours) << line;
    EXPECT_NEAR(*ours, ops, ops * 5e-6) << line;
    ++rows;
  }
  EXPECT_GE(rows, 8);                                       // the file was read
  EXPECT_FALSE(FlopsOf("rnn", "l1t3mb2sic8slc8dhc8dic8"));  // no cell: no count
}

// The rnn problem of a verbose line, with the defaults benchdnn 2.6.3's driver_rnn.md states for
// the keys left out; the auxiliary field's pairs.
// l, t, mb, sic, slc, dhc, dic of a problem.
std::array<std::int64_t, 7> Dimensions(const RnnProblem& p) {
  return {p.l, p.t, p.mb, p.sic, p.slc, p.dhc, p.dic};
}

TEST(ProblemKeysTest, ReadsRnnProblemsAndAuxiliaryPairs) {
  const std::optional<RnnProblem> full = ReadRnnProblem("l2t10mb32sic512slc256dhc128dic64");
  ASSERT_TRUE(full);
  EXPECT_EQ(Dimensions(*full), (std::array<std::int64_t, 7>{2, 10, 32, 512, 256, 128, 64}));
  const std::optional<RnnProblem> shortest = ReadRnnProblem("sic8");
  ASSERT_TRUE(shortest);
  EXPECT_EQ(Dimensions(*shortest), (std::array<std::int64_t, 7>{1, 1, 2, 8, 8, 8, 8}));
  EXPECT_EQ(ReadRnnProblem("sic8dhc4")->dic, 4);
  EXPECT_FALSE(ReadRnnProblem("l1t3mb2slc8"));  // no sic
  EXPECT_FALSE(ReadRnnProblem("l1t*mb2sic8"));  // a run-time dimension
  const std::string_view aux =
      "alg:vanilla_lstm direction:bidirectional_sum activation:undef flags:";
  EXPECT_EQ(AuxiliaryValue(aux, "alg"), "vanilla_lstm");
  EXPECT_EQ(AuxiliaryValue(aux, "direction"), "bidirectional_sum");
  EXPECT_EQ(AuxiliaryValue(aux, "flags"), "");
  EXPECT_EQ(AuxiliaryValue(aux, "dir"), "");
  EXPECT_EQ(AuxiliaryValue("", "alg"), "");
}

TEST(WorkTest, ImpossibleSizesHaveNoCount) {
  // Sizes no convolution has: refused at once, never a loop over them.
  EXPECT_FALSE(FlopsOf("convolution", "mb1_ic1oc1_ih9999999999oh9999999999kh9999999999sh1dh0ph0"));
  EXPECT_FALSE(FlopsOf("convolution", "mb1_ic1oc1_ih9oh9kh3sh0dh0ph1"));  // stride 0
  EXPECT_FALSE(FlopsOf("convolution", "mb1_ic1oc1_ih1000000000000000000000oh9kh3sh1dh0ph1"));
}

TEST(WorkTest, InnerProduct) {
  EXPECT_DOUBLE_EQ(*FlopsOf("inner_product", "mb8ic64oc10"), 2.0 * 8 * 64 * 10);
  EXPECT_DOUBLE_EQ(*FlopsOf("inner_product", "mb2ic16ih7iw7oc10"), 2.0 * 2 * 16 * 49 * 10);
}

TEST(WorkTest, MatmulWithBatchAndBroadcast) {
  EXPECT_DOUBLE_EQ(*FlopsOf("matmul", "4x8x16:4x16x32:4x8x32"), 2.0 * 4 * 8 * 32 * 16);
  EXPECT_DOUBLE_EQ(*FlopsOf("matmul", "4x8x16:1x16x32"), 2.0 * 4 * 8 * 32 * 16);
  EXPECT_DOUBLE_EQ(*FlopsOf("matmul", "1x5120:5120x5120"), 2.0 * 5120 * 5120);
  EXPECT_DOUBLE_EQ(*FlopsOf("matmul", "b4m8n32k16"), 2.0 * 4 * 8 * 32 * 16);
}

TEST(WorkTest, NoWorkWithoutADefinedProblem) {
  EXPECT_FALSE(FlopsOf("reorder", "2x16x7x7"));
  EXPECT_FALSE(FlopsOf("matmul", "*x64:64x32"));
  EXPECT_FALSE(
      FlopsOf("matmul", "m-9223372036854775808n-9223372036854775808k-9223372036854775808"));
  EXPECT_FALSE(FlopsOf("matmul", "8x64:32x10"));  // k mismatch
  EXPECT_FALSE(FlopsOf("convolution", ""));
  EXPECT_FALSE(FlopsOf("inner_product", "mb*ic64oc10"));
}

}  // namespace
}  // namespace dlcheck::verbose
