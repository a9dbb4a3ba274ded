/* SPDX-License-Identifier: Apache-2.0 */
/* The test program of profile's instruction mix (issue 44): three named functions, an AVX-512
 * loop, an AVX2 loop and a scalar loop, each run for a known share of the program's CPU time.
 *
 *   mix_program SECONDS AVX512_PCT AVX2_PCT SCALAR_PCT
 *
 * Time is thread CPU time, spent in slices of 50 ms, each slice split by the shares, so that a
 * loaded machine (preemption) shifts no share. Each function is built for its ISA by a target
 * attribute, so the program builds on any x86-64 host; the AVX-512 one runs only where the CPU
 * has AVX-512F (a positive AVX512_PCT elsewhere: exit 2). Exit 1: bad arguments. */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define LANES 1024
static float data[LANES] __attribute__((aligned(64)));
volatile float sink_f;
volatile uint64_t sink_u;

__attribute__((noinline, target("avx512f"))) void avx512_loop(int reps) {
  __m512 acc = _mm512_setzero_ps();
  const __m512 scale = _mm512_set1_ps(0.999f);
  for (int r = 0; r < reps; ++r) {
    for (int i = 0; i < LANES; i += 16) acc = _mm512_fmadd_ps(_mm512_load_ps(data + i), scale, acc);
  }
  sink_f = _mm512_reduce_add_ps(acc);
}

__attribute__((noinline, target("avx2,fma"))) void avx2_loop(int reps) {
  __m256 acc = _mm256_setzero_ps();
  const __m256 scale = _mm256_set1_ps(0.999f);
  for (int r = 0; r < reps; ++r) {
    for (int i = 0; i < LANES; i += 8) acc = _mm256_fmadd_ps(_mm256_load_ps(data + i), scale, acc);
  }
  float lanes[8];
  _mm256_storeu_ps(lanes, acc);
  sink_f = lanes[0] + lanes[7];
}

/* A dependent chain of integer multiply-adds: general registers only, nothing to vectorise. */
__attribute__((noinline)) void scalar_loop(int reps) {
  uint64_t x = sink_u;
  for (int r = 0; r < reps; ++r) {
    for (int i = 0; i < LANES; ++i) x = x * 6364136223846793005u + 1442695040888963407u;
  }
  sink_u = x;
}

static double ThreadSeconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Runs `loop` in chunks of about 0.1 ms until `seconds` of this thread's CPU time are spent. */
static void RunFor(void (*loop)(int), int reps, double seconds) {
  const double end = ThreadSeconds() + seconds;
  while (ThreadSeconds() < end) loop(reps);
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: mix_program SECONDS AVX512_PCT AVX2_PCT SCALAR_PCT\n");
    return 1;
  }
  const double seconds = atof(argv[1]);
  const double avx512 = atof(argv[2]) / 100, avx2 = atof(argv[3]) / 100,
               scalar = atof(argv[4]) / 100;
  if (seconds <= 0 || avx512 < 0 || avx2 < 0 || scalar < 0 || avx512 + avx2 + scalar <= 0) {
    fprintf(stderr, "mix_program: SECONDS and the shares must be positive\n");
    return 1;
  }
  __builtin_cpu_init();
  if (avx512 > 0 && !__builtin_cpu_supports("avx512f")) {
    fprintf(stderr, "mix_program: this CPU has no AVX-512F\n");
    return 2;
  }
  for (int i = 0; i < LANES; ++i) data[i] = (float)(i % 7);
  const double slice = 0.05, total = avx512 + avx2 + scalar;
  for (double spent = 0; spent < seconds; spent += slice) {
    if (avx512 > 0) RunFor(avx512_loop, 1200, slice * avx512 / total);
    if (avx2 > 0) RunFor(avx2_loop, 600, slice * avx2 / total);
    if (scalar > 0) RunFor(scalar_loop, 70, slice * scalar / total);
  }
  return 0;
}
