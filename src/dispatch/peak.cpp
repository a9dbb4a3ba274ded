// SPDX-License-Identifier: Apache-2.0
#include "dispatch/peak.h"

#include <immintrin.h>

#include <chrono>

namespace dlcheck::dispatch {
namespace {

// Enough independent accumulators to cover FMA latency x throughput on current cores
// (4 cycles x 2 ports = 8 in flight; 12 leaves headroom). Each returns the flops it did.
constexpr int kAccumulators = 12;
constexpr long kInnerIterations = 4096;

__attribute__((target("sse4.1"))) double RunSse(long rounds) {
  __m128 acc[kAccumulators];
  for (auto& a : acc) a = _mm_set1_ps(1.0f);
  const __m128 m = _mm_set1_ps(0.999999f), c = _mm_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInnerIterations; ++i) {
#pragma GCC unroll 12
      for (auto& a : acc) a = _mm_add_ps(_mm_mul_ps(a, m), c);
    }
  }
  __m128 sum = acc[0];
  for (int k = 1; k < kAccumulators; ++k) sum = _mm_add_ps(sum, acc[k]);
  volatile float sink = _mm_cvtss_f32(sum);
  (void)sink;
  return 2.0 * 4 * kAccumulators * kInnerIterations * static_cast<double>(rounds);
}

__attribute__((target("avx2,fma"))) double RunAvx2(long rounds) {
  __m256 acc[kAccumulators];
  for (auto& a : acc) a = _mm256_set1_ps(1.0f);
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInnerIterations; ++i) {
#pragma GCC unroll 12
      for (auto& a : acc) a = _mm256_fmadd_ps(a, m, c);
    }
  }
  __m256 sum = acc[0];
  for (int k = 1; k < kAccumulators; ++k) sum = _mm256_add_ps(sum, acc[k]);
  volatile float sink = _mm256_cvtss_f32(sum);
  (void)sink;
  return 2.0 * 8 * kAccumulators * kInnerIterations * static_cast<double>(rounds);
}

__attribute__((target("avx512f"))) double RunAvx512(long rounds) {
  __m512 acc[kAccumulators];
  for (auto& a : acc) a = _mm512_set1_ps(1.0f);
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInnerIterations; ++i) {
#pragma GCC unroll 12
      for (auto& a : acc) a = _mm512_fmadd_ps(a, m, c);
    }
  }
  __m512 sum = acc[0];
  for (int k = 1; k < kAccumulators; ++k) sum = _mm512_add_ps(sum, acc[k]);
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  volatile float sink = lanes[0];
  (void)sink;
  return 2.0 * 16 * kAccumulators * kInnerIterations * static_cast<double>(rounds);
}

double Measure(double (*run)(long), double seconds) {
  using Clock = std::chrono::steady_clock;
  run(1);  // warm up: frequency and caches
  long rounds = 1;
  for (;;) {
    const auto start = Clock::now();
    const double flops = run(rounds);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (elapsed >= seconds || rounds > (1L << 30)) return flops / elapsed / 1e9;
    rounds *= 2;
  }
}

}  // namespace

std::vector<PeakResult> MeasurePeak(double seconds_per_isa) {
  __builtin_cpu_init();
  std::vector<PeakResult> results;
  if (__builtin_cpu_supports("sse4.1")) {
    results.push_back({"sse41", Measure(RunSse, seconds_per_isa)});
  }
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    results.push_back({"avx2", Measure(RunAvx2, seconds_per_isa)});
  }
  if (__builtin_cpu_supports("avx512f")) {
    results.push_back({"avx512_core", Measure(RunAvx512, seconds_per_isa)});
  }
  return results;
}

}  // namespace dlcheck::dispatch
