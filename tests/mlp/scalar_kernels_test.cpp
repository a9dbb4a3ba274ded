// SPDX-License-Identifier: Apache-2.0
#include "mlp/scalar_kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace dlcheck::mlp::scalar {
namespace {

TEST(ScalarKernelsTest, InnerProductForwardAndBackwardByHand) {
  // x: 2 samples x 3 inputs, w: 2 outputs x 3 inputs.
  const std::vector<float> x{1, 2, 3, -1, 0, 1};
  const std::vector<float> w{1, 0, -1, 2, 1, 0};
  const std::vector<float> b{0.5f, -1};
  std::vector<float> y(4);
  InnerProductForward(x, w, b, y, 2, 3, 2);
  EXPECT_EQ(y, (std::vector<float>{1 - 3 + 0.5f, 2 + 2 - 1, -1 - 1 + 0.5f, -2 - 1}));
  const std::vector<float> dy{1, 2, 0, -1};
  std::vector<float> dx(6);
  InnerProductBackwardData(dy, w, dx, 2, 3, 2);
  EXPECT_EQ(dx, (std::vector<float>{1 + 4, 2, -1, -2, -1, 0}));
  std::vector<float> dw(6), db(2);
  InnerProductBackwardWeights(x, dy, dw, db, 2, 3, 2);
  EXPECT_EQ(dw, (std::vector<float>{1, 2, 3, 2 + 1, 4, 6 - 1}));
  EXPECT_EQ(db, (std::vector<float>{1, 1}));
}

TEST(ScalarKernelsTest, ConvolutionByHand) {
  // One 3x3 input, one 2x2 kernel: a 2x2 output.
  const Shape in{1, 1, 3, 3};
  const Shape out{1, 1, 2, 2};
  const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9};
  const std::vector<float> w{1, 0, 0, -1};  // x[i][j] - x[i+1][j+1]
  const std::vector<float> b{10};
  std::vector<float> y(4);
  ConvolutionForward(x, w, b, y, in, out, 2);
  EXPECT_EQ(y, (std::vector<float>{6, 6, 6, 6}));
  const std::vector<float> dy{1, 0, 0, 2};
  std::vector<float> dx(9);
  ConvolutionBackwardData(dy, w, dx, in, out, 2);
  EXPECT_EQ(dx, (std::vector<float>{1, 0, 0, 0, -1 + 2, 0, 0, 0, -2}));
  std::vector<float> dw(4), db(1);
  ConvolutionBackwardWeights(x, dy, dw, db, in, out, 2);
  EXPECT_EQ(dw, (std::vector<float>{1 + 10, 2 + 12, 4 + 16, 5 + 18}));
  EXPECT_EQ(db, (std::vector<float>{3}));
}

TEST(ScalarKernelsTest, ReluAndMaxPoolRouteGradients) {
  const std::vector<float> x{-1, 0, 2, 3};
  std::vector<float> y(4), dx(4);
  ReluForward(x, y);
  EXPECT_EQ(y, (std::vector<float>{0, 0, 2, 3}));
  ReluBackward(x, std::vector<float>{5, 5, 5, 5}, dx);
  EXPECT_EQ(dx, (std::vector<float>{0, 0, 5, 5}));  // no gradient at 0, as oneDNN

  const Shape in{1, 1, 2, 4};
  const Shape out{1, 1, 1, 2};
  const std::vector<float> p{1, 7, 3, 3, 2, 0, 3, 1};  // second window ties: first max wins
  std::vector<float> py(2);
  std::vector<std::int32_t> argmax(2);
  MaxPoolForward(p, py, argmax, in, out, 2);
  EXPECT_EQ(py, (std::vector<float>{7, 3}));
  EXPECT_EQ(argmax, (std::vector<std::int32_t>{1, 2}));
  std::vector<float> pdx(8);
  MaxPoolBackward(std::vector<float>{1, 2}, argmax, pdx, in, out, 2);
  EXPECT_EQ(pdx, (std::vector<float>{0, 1, 2, 0, 0, 0, 0, 0}));
}

TEST(ScalarKernelsTest, LogSoftmaxIsNormalisedAndItsGradientIsSoftmaxMinusTarget) {
  const std::vector<float> x{1, 2, 3, 1000, 1000, 1000};
  std::vector<float> y(6);
  LogSoftmaxForward(x, y, 2, 3);
  for (int row = 0; row < 2; ++row) {
    double sum = 0;
    for (int i = 0; i < 3; ++i) sum += std::exp(y[row * 3 + i]);
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
  EXPECT_NEAR(y[3], -std::log(3.0f), 1e-6);  // large logits do not overflow
  std::vector<float> dx(6);
  LogSoftmaxBackward(y, std::vector<float>{0, 0, -1, -1, 0, 0}, dx, 2, 3);
  EXPECT_NEAR(dx[2], std::exp(y[2]) - 1, 1e-6);
  EXPECT_NEAR(dx[0], std::exp(y[0]), 1e-6);
  EXPECT_NEAR(dx[3], 1.0f / 3 - 1, 1e-6);
}

TEST(ScalarKernelsTest, SgdAndBf16Rounding) {
  std::vector<float> w{1, 2};
  SgdUpdate(w, std::vector<float>{10, -10}, 0.1f);
  EXPECT_EQ(w, (std::vector<float>{0, 3}));
  std::vector<float> v{
      1.0f, 1.0f + 1.0f / 256, 1.0f + 3.0f / 256, 1.0f + 1.0f / 512, 1.0f + 3.0f / 512, -2.5f};
  RoundToBf16(v);
  // bf16 keeps 8 significant bits: 1 + 1/128 is the next value after 1; ties go to even.
  EXPECT_EQ(v, (std::vector<float>{1.0f, 1.0f, 1.0f + 4.0f / 256, 1.0f, 1.0f + 1.0f / 128, -2.5f}));
}

}  // namespace
}  // namespace dlcheck::mlp::scalar
