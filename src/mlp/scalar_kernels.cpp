// SPDX-License-Identifier: Apache-2.0
#include "mlp/scalar_kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace dlcheck::mlp::scalar {

void InnerProductForward(std::span<const float> x, std::span<const float> w,
                         std::span<const float> b, std::span<float> y, int n, int in, int out) {
  for (int s = 0; s < n; ++s) {
    const float* xs = &x[static_cast<std::size_t>(s) * in];
    for (int o = 0; o < out; ++o) {
      const float* wo = &w[static_cast<std::size_t>(o) * in];
      float sum = 0;
      for (int i = 0; i < in; ++i) sum += xs[i] * wo[i];
      y[static_cast<std::size_t>(s) * out + o] = sum + b[o];
    }
  }
}

void InnerProductBackwardData(std::span<const float> dy, std::span<const float> w,
                              std::span<float> dx, int n, int in, int out) {
  for (int s = 0; s < n; ++s) {
    float* dxs = &dx[static_cast<std::size_t>(s) * in];
    std::fill(dxs, dxs + in, 0.0f);
    for (int o = 0; o < out; ++o) {
      const float d = dy[static_cast<std::size_t>(s) * out + o];
      const float* wo = &w[static_cast<std::size_t>(o) * in];
      for (int i = 0; i < in; ++i) dxs[i] += d * wo[i];
    }
  }
}

void InnerProductBackwardWeights(std::span<const float> x, std::span<const float> dy,
                                 std::span<float> dw, std::span<float> db, int n, int in, int out) {
  for (int o = 0; o < out; ++o) {
    float* dwo = &dw[static_cast<std::size_t>(o) * in];
    std::fill(dwo, dwo + in, 0.0f);
    float bias = 0;
    for (int s = 0; s < n; ++s) {
      const float d = dy[static_cast<std::size_t>(s) * out + o];
      const float* xs = &x[static_cast<std::size_t>(s) * in];
      for (int i = 0; i < in; ++i) dwo[i] += d * xs[i];
      bias += d;
    }
    db[o] = bias;
  }
}

void ConvolutionForward(std::span<const float> x, std::span<const float> w,
                        std::span<const float> b, std::span<float> y, Shape in, Shape out, int k) {
  const std::size_t in_plane = static_cast<std::size_t>(in.h) * in.w;
  const std::size_t out_plane = static_cast<std::size_t>(out.h) * out.w;
  for (int s = 0; s < out.n; ++s) {
    for (int oc = 0; oc < out.c; ++oc) {
      float* ys = &y[(static_cast<std::size_t>(s) * out.c + oc) * out_plane];
      std::fill(ys, ys + out_plane, b[oc]);
      for (int ic = 0; ic < in.c; ++ic) {
        const float* xs = &x[(static_cast<std::size_t>(s) * in.c + ic) * in_plane];
        for (int kh = 0; kh < k; ++kh) {
          for (int kw = 0; kw < k; ++kw) {
            const float wv = w[((static_cast<std::size_t>(oc) * in.c + ic) * k + kh) * k + kw];
            for (int oh = 0; oh < out.h; ++oh) {
              const float* row = xs + static_cast<std::size_t>(oh + kh) * in.w + kw;
              float* yrow = ys + static_cast<std::size_t>(oh) * out.w;
              for (int ow = 0; ow < out.w; ++ow) yrow[ow] += wv * row[ow];
            }
          }
        }
      }
    }
  }
}

void ConvolutionBackwardData(std::span<const float> dy, std::span<const float> w,
                             std::span<float> dx, Shape in, Shape out, int k) {
  const std::size_t in_plane = static_cast<std::size_t>(in.h) * in.w;
  const std::size_t out_plane = static_cast<std::size_t>(out.h) * out.w;
  std::fill(dx.begin(), dx.end(), 0.0f);
  for (int s = 0; s < out.n; ++s) {
    for (int oc = 0; oc < out.c; ++oc) {
      const float* dys = &dy[(static_cast<std::size_t>(s) * out.c + oc) * out_plane];
      for (int ic = 0; ic < in.c; ++ic) {
        float* dxs = &dx[(static_cast<std::size_t>(s) * in.c + ic) * in_plane];
        for (int kh = 0; kh < k; ++kh) {
          for (int kw = 0; kw < k; ++kw) {
            const float wv = w[((static_cast<std::size_t>(oc) * in.c + ic) * k + kh) * k + kw];
            for (int oh = 0; oh < out.h; ++oh) {
              float* row = dxs + static_cast<std::size_t>(oh + kh) * in.w + kw;
              const float* dyrow = dys + static_cast<std::size_t>(oh) * out.w;
              for (int ow = 0; ow < out.w; ++ow) row[ow] += wv * dyrow[ow];
            }
          }
        }
      }
    }
  }
}

void ConvolutionBackwardWeights(std::span<const float> x, std::span<const float> dy,
                                std::span<float> dw, std::span<float> db, Shape in, Shape out,
                                int k) {
  const std::size_t in_plane = static_cast<std::size_t>(in.h) * in.w;
  const std::size_t out_plane = static_cast<std::size_t>(out.h) * out.w;
  std::fill(dw.begin(), dw.end(), 0.0f);
  std::fill(db.begin(), db.end(), 0.0f);
  for (int s = 0; s < out.n; ++s) {
    for (int oc = 0; oc < out.c; ++oc) {
      const float* dys = &dy[(static_cast<std::size_t>(s) * out.c + oc) * out_plane];
      float bias = 0;
      for (std::size_t i = 0; i < out_plane; ++i) bias += dys[i];
      db[oc] += bias;
      for (int ic = 0; ic < in.c; ++ic) {
        const float* xs = &x[(static_cast<std::size_t>(s) * in.c + ic) * in_plane];
        for (int kh = 0; kh < k; ++kh) {
          for (int kw = 0; kw < k; ++kw) {
            float sum = 0;
            for (int oh = 0; oh < out.h; ++oh) {
              const float* row = xs + static_cast<std::size_t>(oh + kh) * in.w + kw;
              const float* dyrow = dys + static_cast<std::size_t>(oh) * out.w;
              for (int ow = 0; ow < out.w; ++ow) sum += dyrow[ow] * row[ow];
            }
            dw[((static_cast<std::size_t>(oc) * in.c + ic) * k + kh) * k + kw] += sum;
          }
        }
      }
    }
  }
}

void ReluForward(std::span<const float> x, std::span<float> y) {
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = x[i] > 0 ? x[i] : 0.0f;
}

void ReluBackward(std::span<const float> x, std::span<const float> dy, std::span<float> dx) {
  for (std::size_t i = 0; i < x.size(); ++i) dx[i] = x[i] > 0 ? dy[i] : 0.0f;
}

void MaxPoolForward(std::span<const float> x, std::span<float> y, std::span<std::int32_t> argmax,
                    Shape in, Shape out, int k) {
  for (int plane = 0; plane < out.n * out.c; ++plane) {
    const float* xs = &x[static_cast<std::size_t>(plane) * in.h * in.w];
    for (int oh = 0; oh < out.h; ++oh) {
      for (int ow = 0; ow < out.w; ++ow) {
        float best = -std::numeric_limits<float>::infinity();
        std::int32_t where = 0;
        for (int kh = 0; kh < k; ++kh) {
          for (int kw = 0; kw < k; ++kw) {
            const std::int32_t at = (oh * k + kh) * in.w + ow * k + kw;
            if (xs[at] > best) {
              best = xs[at];
              where = at;
            }
          }
        }
        const std::size_t o = (static_cast<std::size_t>(plane) * out.h + oh) * out.w + ow;
        y[o] = best;
        argmax[o] = where;
      }
    }
  }
}

void MaxPoolBackward(std::span<const float> dy, std::span<const std::int32_t> argmax,
                     std::span<float> dx, Shape in, Shape out, int /*k*/) {
  std::fill(dx.begin(), dx.end(), 0.0f);
  const std::size_t out_plane = static_cast<std::size_t>(out.h) * out.w;
  for (int plane = 0; plane < out.n * out.c; ++plane) {
    float* dxs = &dx[static_cast<std::size_t>(plane) * in.h * in.w];
    for (std::size_t o = 0; o < out_plane; ++o) {
      const std::size_t at = plane * out_plane + o;
      dxs[argmax[at]] += dy[at];
    }
  }
}

void LogSoftmaxForward(std::span<const float> x, std::span<float> y, int n, int c) {
  for (int s = 0; s < n; ++s) {
    const float* xs = &x[static_cast<std::size_t>(s) * c];
    float* ys = &y[static_cast<std::size_t>(s) * c];
    const float max = *std::max_element(xs, xs + c);
    float sum = 0;
    for (int i = 0; i < c; ++i) sum += std::exp(xs[i] - max);
    const float log_sum = std::log(sum);
    for (int i = 0; i < c; ++i) ys[i] = xs[i] - max - log_sum;
  }
}

void LogSoftmaxBackward(std::span<const float> y, std::span<const float> dy, std::span<float> dx,
                        int n, int c) {
  for (int s = 0; s < n; ++s) {
    const std::size_t row = static_cast<std::size_t>(s) * c;
    float sum = 0;
    for (int i = 0; i < c; ++i) sum += dy[row + i];
    for (int i = 0; i < c; ++i) dx[row + i] = dy[row + i] - std::exp(y[row + i]) * sum;
  }
}

void SgdUpdate(std::span<float> w, std::span<const float> dw, float lr) {
  for (std::size_t i = 0; i < w.size(); ++i) w[i] -= lr * dw[i];
}

void RoundToBf16(std::span<float> values) {
  for (float& v : values) v = mlp::RoundToBf16(v);
}

}  // namespace dlcheck::mlp::scalar
