// SPDX-License-Identifier: Apache-2.0
#pragma once
// dlcheck's scalar kernels: plain C++ loops (no intrinsics, no BLAS, no oneDNN) in canonical
// layouts (activations NCHW, weights OIHW / OI). The fallback when oneDNN cannot run a layer,
// and the reference its results are compared with. Accumulation is in f32.

#include <cstdint>
#include <span>

#include "mlp/model.h"

namespace dlcheck::mlp::scalar {

/// y[n][o] = b[o] + sum_i x[n][i] * w[o][i]; x is n x in, w is out x in.
void InnerProductForward(std::span<const float> x, std::span<const float> w,
                         std::span<const float> b, std::span<float> y, int n, int in, int out);
/// dx[n][i] = sum_o dy[n][o] * w[o][i].
void InnerProductBackwardData(std::span<const float> dy, std::span<const float> w,
                              std::span<float> dx, int n, int in, int out);
/// dw[o][i] = sum_n dy[n][o] * x[n][i]; db[o] = sum_n dy[n][o].
void InnerProductBackwardWeights(std::span<const float> x, std::span<const float> dy,
                                 std::span<float> dw, std::span<float> db, int n, int in, int out);

/// Direct convolution, stride 1, no padding: `in` -> `out` with a k x k kernel.
void ConvolutionForward(std::span<const float> x, std::span<const float> w,
                        std::span<const float> b, std::span<float> y, Shape in, Shape out, int k);
void ConvolutionBackwardData(std::span<const float> dy, std::span<const float> w,
                             std::span<float> dx, Shape in, Shape out, int k);
void ConvolutionBackwardWeights(std::span<const float> x, std::span<const float> dy,
                                std::span<float> dw, std::span<float> db, Shape in, Shape out,
                                int k);

/// y = max(x, 0); dx = dy where x > 0, else 0.
void ReluForward(std::span<const float> x, std::span<float> y);
void ReluBackward(std::span<const float> x, std::span<const float> dy, std::span<float> dx);

/// Max pooling with a k x k window and stride k; `argmax` (the workspace) keeps, per output,
/// the index of the first maximum within its window, for the backward pass.
void MaxPoolForward(std::span<const float> x, std::span<float> y, std::span<std::int32_t> argmax,
                    Shape in, Shape out, int k);
void MaxPoolBackward(std::span<const float> dy, std::span<const std::int32_t> argmax,
                     std::span<float> dx, Shape in, Shape out, int k);

/// Row-wise log-softmax of an n x c matrix, and its backward:
/// dx = dy - exp(y) * sum(dy) per row.
void LogSoftmaxForward(std::span<const float> x, std::span<float> y, int n, int c);
void LogSoftmaxBackward(std::span<const float> y, std::span<const float> dy, std::span<float> dx,
                        int n, int c);

/// w -= lr * dw.
void SgdUpdate(std::span<float> w, std::span<const float> dw, float lr);

/// Every element rounded to bf16 (kept as f32), in place.
void RoundToBf16(std::span<float> values);

}  // namespace dlcheck::mlp::scalar
