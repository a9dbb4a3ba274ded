#include "verbose/flops.h"

#include <gtest/gtest.h>

namespace dlcheck::verbose {
namespace {

TEST(WorkTest, Convolution2dWithGroupsStridesAndDilation) {
  // 2 * mb * oc * (ic/g) * oh * ow * kh * kw
  EXPECT_DOUBLE_EQ(
      *FlopsOf("convolution", "mb2_ic16oc32_ih13oh13kh3sh1dh0ph1_iw13ow13kw3sw1dw0pw1"),
      2.0 * 2 * 32 * 16 * 13 * 13 * 3 * 3);
  EXPECT_DOUBLE_EQ(
      *FlopsOf("convolution", "g32mb1_ic32oc32_ih56oh56kh3sh1dh0ph1_iw56ow56kw3sw1dw0pw1"),
      2.0 * 1 * 32 * 1 * 56 * 56 * 3 * 3);
  EXPECT_DOUBLE_EQ(*FlopsOf("convolution", "mb1_g4ic16oc16_ih7oh4kh3sh2dh1ph1_iw7ow4kw3sw2dw1pw1"),
                   2.0 * 1 * 16 * 4 * 4 * 4 * 3 * 3);
}

TEST(WorkTest, Convolution1dAnd3d) {
  EXPECT_DOUBLE_EQ(*FlopsOf("convolution", "mb2_ic4oc8_iw10ow8kw3sw1dw0pw0"),
                   2.0 * 2 * 8 * 4 * 8 * 3);
  EXPECT_DOUBLE_EQ(*FlopsOf("convolution",
                            "mb1_ic8oc8_id8od8kd3sd1dd0pd1_ih8oh8kh3sh1dh0ph1_iw8ow8kw3sw1dw0pw1"),
                   2.0 * 8 * 8 * 512 * 27);
}

TEST(WorkTest, DeconvolutionScattersEachInputPoint) {
  EXPECT_DOUBLE_EQ(*FlopsOf("deconvolution", "mb1_ic8oc8_ih7oh14kh3sh2dh0ph1_iw7ow14kw3sw2dw0pw1"),
                   2.0 * 1 * 8 * 8 * 7 * 7 * 3 * 3);
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
