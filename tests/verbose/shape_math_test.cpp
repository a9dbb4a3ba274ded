// SPDX-License-Identifier: Apache-2.0
// The one home of the arithmetic on a log's dimensions (verbose/shape_math.h): overflow of
// 64 bits, zero, negative and oversized dimensions, element counts that wrap, and the problems
// of each form (keyed, shapes) checked whole; flops of such problems are none.
#include "verbose/shape_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>

#include "verbose/flops.h"
#include "verbose/primitive_stats.h"

namespace dlcheck::verbose {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

TEST(ShapeMath, CheckedArithmeticSaysWhenSixtyFourBitsOverflow) {
  EXPECT_EQ(CheckedMultiply(std::int64_t{1} << 31, std::int64_t{1} << 31), std::int64_t{1} << 62);
  EXPECT_FALSE(CheckedMultiply(std::int64_t{1} << 62, 4));
  EXPECT_FALSE(CheckedMultiply(-kMax - 1, -1));
  EXPECT_EQ(CheckedAdd(kMax - 1, 1), kMax);
  EXPECT_FALSE(CheckedAdd(kMax, 1));
  EXPECT_FALSE(CheckedSubtract(-kMax - 1, 1));
  EXPECT_EQ(CheckedSubtract(5, 7), -2);
}

TEST(ShapeMath, ProductOfAShapeThatWrapsIsNone) {
  EXPECT_EQ(CheckedProduct({2, 3, 4}), 24);
  EXPECT_EQ(CheckedProduct({}), 1);
  EXPECT_EQ(CheckedProduct({0, 4}), 0);
  // 65536^4 = 2^64: 0 in wrapping arithmetic.
  EXPECT_FALSE(CheckedProduct({65536, 65536, 65536, 65536}));
  EXPECT_FALSE(CheckedProduct({4, -1}));
}

TEST(ShapeMath, ShapeProblemNamesTheFirstRuleBroken) {
  EXPECT_EQ(ShapeProblem({64, 3, 224, 224}), "");
  EXPECT_EQ(ShapeProblem({kMaxDimension}), "");
  EXPECT_EQ(ShapeProblem({0, 4}), "a dimension of 0 (an empty tensor: no work to measure)");
  EXPECT_EQ(ShapeProblem({4, -2}), "dimension -2 is negative");
  EXPECT_EQ(ShapeProblem({std::int64_t{1} << 32, 1}),
            "dimension 4294967296 is above 2147483647, the largest dimension oneDNN's kernels "
            "index");
  // 2^64 + 2^32 elements: 2^32 after wrapping, a size that looks measurable.
  EXPECT_EQ(ShapeProblem({65536, 65536, 641, 6700417}),
            "the shape has more than 2^48 elements (281474976710656)");
  EXPECT_EQ(ShapeProblem({65536, 65536, 65536}), "");  // 2^48 is the bound: 2^48 passes
  EXPECT_NE(ShapeProblem({65536, 65536, 65536, 2}), "");
}

TEST(ShapeMath, ProblemsOfEitherFormAreCheckedWhole) {
  EXPECT_EQ(ProblemOutOfRange("mb64_ic1oc20_ih28oh24kh5sh1dh0ph0_iw28ow24kw5sw1dw0pw0"), "");
  EXPECT_EQ(ProblemOutOfRange("4x8x16:4x16x32"), "");
  EXPECT_EQ(ProblemOutOfRange("0x4:4x8"), "");  // a framework's empty tensor: a row to count
  EXPECT_EQ(ProblemOutOfRange("mb2ic16ih7iw7ls5beta0.75"), "");
  EXPECT_EQ(ProblemOutOfRange("mb2_ic4294967296oc16_ih7oh7kh3"),
            "ic 4294967296 is above 2147483647, the largest dimension oneDNN's kernels index");
  EXPECT_NE(ProblemOutOfRange("4611686018427387904x8x16:4611686018427387904x16x32"), "");
  EXPECT_NE(ProblemOutOfRange("131072x65536x65536:131072x65536x65536"), "");
  EXPECT_NE(ProblemOutOfRange("l1t3mb2sic4294967296slc8dhc8dic8"), "");
  // Run-time dimensions and other text: their readers give their own reasons.
  EXPECT_EQ(ProblemOutOfRange("*x16:16x*"), "");
  EXPECT_EQ(ProblemOutOfRange(""), "");
}

// Out-of-range problems count no work; in-range ones near the bounds count a finite one.
TEST(ShapeMath, FlopsOfProblemsOutOfRangeAreNone) {
  EXPECT_FALSE(
      FlopsOf("convolution", "mb2_ic4294967296oc16_ih7oh7kh3sh1dh0ph1_iw7ow7kw3sw1dw0pw1"));
  EXPECT_FALSE(FlopsOf("convolution", "mb2_ic16oc16_ih7oh7kh4294967296sh1dh0ph1_iw7ow7kw3sw1"));
  EXPECT_FALSE(FlopsOf("convolution", "g0mb2_ic16oc16_ih7oh7kh3sh1dh0ph1_iw7ow7kw3sw1dw0pw1"));
  EXPECT_FALSE(FlopsOf("matmul", "4611686018427387904x8x16:4611686018427387904x16x32"));
  EXPECT_FALSE(FlopsOf("inner_product", "mb2ic4294967296oc16"));
  EXPECT_FALSE(FlopsOf("rnn", "l1t3mb2sic4294967296slc8dhc8dic8",
                       "alg:vanilla_lstm direction:unidirectional_left2right"));
  // Strides and dilations at the bound: the taps loop neither overflows nor runs for ever.
  const std::optional<double> wide =
      FlopsOf("convolution",
              "mb1_ic1oc1_ih2147483647oh2147483647kh2147483647sh2147483647dh2147483647ph2147483647_"
              "iw1ow1kw1sw1dw0pw0");
  EXPECT_FALSE(wide);  // both loops longer than 2^24: no count
  const std::optional<double> big = FlopsOf("matmul", "65536x65536:65536x65536");
  ASSERT_TRUE(big);
  EXPECT_TRUE(std::isfinite(*big));
  EXPECT_EQ(FlopsOf("matmul", "0x4:4x8"), 0.0);
}

// parse's GFLOP/s: a count over a mean so small that the quotient is not finite is no figure.
TEST(ShapeMath, GflopsThatAreNotFiniteAreNone) {
  PrimitiveStats row;
  row.flops = 1e12;
  row.timed_execs = 1;
  row.exec_ms_total = 1e-320;  // a denormal mean: 1e12 / 1e-314 is infinite
  EXPECT_FALSE(row.Gflops());
  row.exec_ms_total = 2;
  ASSERT_TRUE(row.Gflops());
  EXPECT_DOUBLE_EQ(*row.Gflops(), 5e5);  // 1e12 flops in 2 ms
}

}  // namespace
}  // namespace dlcheck::verbose
