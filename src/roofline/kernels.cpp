// SPDX-License-Identifier: Apache-2.0
#include "roofline/kernels.h"

#include <cstdint>

#if defined(__x86_64__)
#include <immintrin.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace dlcheck::roofline {
namespace {

bool Has(const detect::FeatureSet& usable, const char* feature) {
  const auto it = usable.find(feature);
  return it != usable.end() && it->second;
}

// Keeps the compiler from folding repeated passes over the same arrays into one.
inline void Clobber() {
  asm volatile("" ::: "memory");
}

#if defined(__x86_64__)

// Hides a register's value from the optimiser (no instruction): a loop-invariant product is
// then computed in every iteration, as the hardware is meant to be timed doing.
#define DLCHECK_OPAQUE(x) asm volatile("" : "+x"(x))

// ---- bandwidth: one macro per vector width, the loops alike -------------------------------

// 8 vectors per step: enough independent adds to keep two load ports busy.
#define DLCHECK_BANDWIDTH_KERNELS(SUFFIX, TARGET, VEC, WIDTH, LOAD, STORE, STREAM, ADD, SET1,      \
                                  ZERO, MULADD, FIRST)                                             \
  __attribute__((target(TARGET))) void Read##SUFFIX(float* a, float*, float*, std::size_t n,       \
                                                    long passes, float* sink) {                    \
    VEC s0 = ZERO(), s1 = ZERO(), s2 = ZERO(), s3 = ZERO(), s4 = ZERO(), s5 = ZERO(), s6 = ZERO(), \
        s7 = ZERO();                                                                               \
    for (long p = 0; p < passes; ++p) {                                                            \
      for (std::size_t i = 0; i < n; i += 8 * WIDTH) {                                             \
        s0 = ADD(s0, LOAD(a + i));                                                                 \
        s1 = ADD(s1, LOAD(a + i + WIDTH));                                                         \
        s2 = ADD(s2, LOAD(a + i + 2 * WIDTH));                                                     \
        s3 = ADD(s3, LOAD(a + i + 3 * WIDTH));                                                     \
        s4 = ADD(s4, LOAD(a + i + 4 * WIDTH));                                                     \
        s5 = ADD(s5, LOAD(a + i + 5 * WIDTH));                                                     \
        s6 = ADD(s6, LOAD(a + i + 6 * WIDTH));                                                     \
        s7 = ADD(s7, LOAD(a + i + 7 * WIDTH));                                                     \
      }                                                                                            \
      Clobber();                                                                                   \
    }                                                                                              \
    VEC s = ADD(ADD(ADD(s0, s1), ADD(s2, s3)), ADD(ADD(s4, s5), ADD(s6, s7)));                     \
    *sink += FIRST(s);                                                                             \
  }                                                                                                \
  __attribute__((target(TARGET))) void Copy##SUFFIX(float* a, float* b, float*, std::size_t n,     \
                                                    long passes, float*) {                         \
    for (long p = 0; p < passes; ++p) {                                                            \
      for (std::size_t i = 0; i < n; i += 4 * WIDTH) {                                             \
        STORE(b + i, LOAD(a + i));                                                                 \
        STORE(b + i + WIDTH, LOAD(a + i + WIDTH));                                                 \
        STORE(b + i + 2 * WIDTH, LOAD(a + i + 2 * WIDTH));                                         \
        STORE(b + i + 3 * WIDTH, LOAD(a + i + 3 * WIDTH));                                         \
      }                                                                                            \
      Clobber();                                                                                   \
    }                                                                                              \
  }                                                                                                \
  __attribute__((target(TARGET))) void Triad##SUFFIX(float* a, float* b, float* c, std::size_t n,  \
                                                     long passes, float*) {                        \
    const VEC s = SET1(0.5f);                                                                      \
    for (long p = 0; p < passes; ++p) {                                                            \
      for (std::size_t i = 0; i < n; i += 2 * WIDTH) {                                             \
        STORE(a + i, MULADD(s, LOAD(c + i), LOAD(b + i)));                                         \
        STORE(a + i + WIDTH, MULADD(s, LOAD(c + i + WIDTH), LOAD(b + i + WIDTH)));                 \
      }                                                                                            \
      Clobber();                                                                                   \
    }                                                                                              \
  }                                                                                                \
  __attribute__((target(TARGET))) void TriadNt##SUFFIX(float* a, float* b, float* c,               \
                                                       std::size_t n, long passes, float*) {       \
    const VEC s = SET1(0.5f);                                                                      \
    for (long p = 0; p < passes; ++p) {                                                            \
      for (std::size_t i = 0; i < n; i += 2 * WIDTH) {                                             \
        STREAM(a + i, MULADD(s, LOAD(c + i), LOAD(b + i)));                                        \
        STREAM(a + i + WIDTH, MULADD(s, LOAD(c + i + WIDTH), LOAD(b + i + WIDTH)));                \
      }                                                                                            \
      _mm_sfence();                                                                                \
      Clobber();                                                                                   \
    }                                                                                              \
  }

inline __m128 MulAddSse(__m128 s, __m128 c, __m128 b) {
  return _mm_add_ps(_mm_mul_ps(s, c), b);
}
__attribute__((target("avx2,fma"))) inline __m256 MulAddAvx2(__m256 s, __m256 c, __m256 b) {
  return _mm256_fmadd_ps(s, c, b);
}
__attribute__((target("avx512f"))) inline __m512 MulAddAvx512(__m512 s, __m512 c, __m512 b) {
  return _mm512_fmadd_ps(s, c, b);
}
__attribute__((target("avx"))) inline float FirstAvx(__m256 v) {
  return _mm256_cvtss_f32(v);
}
__attribute__((target("avx512f"))) inline float FirstAvx512(__m512 v) {
  return _mm512_cvtss_f32(v);
}

DLCHECK_BANDWIDTH_KERNELS(Sse, "sse2", __m128, 4, _mm_load_ps, _mm_store_ps, _mm_stream_ps,
                          _mm_add_ps, _mm_set1_ps, _mm_setzero_ps, MulAddSse, _mm_cvtss_f32)
DLCHECK_BANDWIDTH_KERNELS(Avx2, "avx2,fma", __m256, 8, _mm256_load_ps, _mm256_store_ps,
                          _mm256_stream_ps, _mm256_add_ps, _mm256_set1_ps, _mm256_setzero_ps,
                          MulAddAvx2, FirstAvx)
DLCHECK_BANDWIDTH_KERNELS(Avx512, "avx512f", __m512, 16, _mm512_load_ps, _mm512_store_ps,
                          _mm512_stream_ps, _mm512_add_ps, _mm512_set1_ps, _mm512_setzero_ps,
                          MulAddAvx512, FirstAvx512)

// ---- compute: independent chains of one instruction ---------------------------------------

// 12 chains cover latency x throughput of every unit timed here (FMA: 4 cycles x 2 ports).
constexpr int kChains = 12;
constexpr long kInner = 1024;

double Ops(double per_instruction, long rounds) {
  return per_instruction * kChains * kInner * static_cast<double>(rounds);
}

double RunSseMulAdd(long rounds) {
  __m128 acc[kChains];
  for (auto& x : acc) x = _mm_set1_ps(1.0f);
  const __m128 m = _mm_set1_ps(0.999999f), c = _mm_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInner; ++i) {
#pragma GCC unroll 12
      for (auto& x : acc) x = _mm_add_ps(_mm_mul_ps(x, m), c);
    }
  }
  __m128 sum = acc[0];
  for (int k = 1; k < kChains; ++k) sum = _mm_add_ps(sum, acc[k]);
  volatile float sink = _mm_cvtss_f32(sum);
  (void)sink;
  return Ops(2 * 4, rounds);
}

__attribute__((target("avx2,fma"))) double RunAvx2Fma(long rounds) {
  __m256 acc[kChains];
  for (auto& x : acc) x = _mm256_set1_ps(1.0f);
  const __m256 m = _mm256_set1_ps(0.999999f), c = _mm256_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInner; ++i) {
#pragma GCC unroll 12
      for (auto& x : acc) x = _mm256_fmadd_ps(x, m, c);
    }
  }
  __m256 sum = acc[0];
  for (int k = 1; k < kChains; ++k) sum = _mm256_add_ps(sum, acc[k]);
  volatile float sink = _mm256_cvtss_f32(sum);
  (void)sink;
  return Ops(2 * 8, rounds);
}

__attribute__((target("avx512f"))) double RunAvx512Fma(long rounds) {
  __m512 acc[kChains];
  for (auto& x : acc) x = _mm512_set1_ps(1.0f);
  const __m512 m = _mm512_set1_ps(0.999999f), c = _mm512_set1_ps(1e-7f);
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInner; ++i) {
#pragma GCC unroll 12
      for (auto& x : acc) x = _mm512_fmadd_ps(x, m, c);
    }
  }
  __m512 sum = acc[0];
  for (int k = 1; k < kChains; ++k) sum = _mm512_add_ps(sum, acc[k]);
  volatile float sink = _mm512_cvtss_f32(sum);
  (void)sink;
  return Ops(2 * 16, rounds);
}

// int8 on AVX2, without VNNI: u8 x s8 pairs summed to s16 (vpmaddubsw), two such products
// added in s16 (vpaddsw, a 16-bit accumulation that AVX2 int8 GEMMs may use), widened to
// s32 pairs (vpmaddwd with ones) and accumulated (vpaddd): 64 multiply-adds for three
// multiplies. Eight chains from two A and four B registers (15 ymm registers: none spilled).
// On the project's Zen 3 this gives 1.46x benchdnn 2.6.3's best u8s8s32 matmul (190 GFLOP/s,
// 1 thread); the naive one product per vpmaddwd gave 0.88x of it, below what oneDNN reaches.
__attribute__((target("avx2"))) double RunAvx2Int8(long rounds) {
  constexpr int kInt8Chains = 8;
  __m256i acc[kInt8Chains];
  for (auto& x : acc) x = _mm256_setzero_si256();
  __m256i a0 = _mm256_set1_epi8(3), a1 = _mm256_set1_epi8(5);
  const __m256i b0 = _mm256_set1_epi8(1), b1 = _mm256_set1_epi8(2);
  const __m256i b2 = _mm256_set1_epi8(4), b3 = _mm256_set1_epi8(7);
  const __m256i ones = _mm256_set1_epi16(1);
// One chain's step (a macro: a lambda would not inherit the function's target).
#define DLCHECK_INT8_STEP(sum, a, b, c) \
  sum = _mm256_add_epi32(               \
      sum, _mm256_madd_epi16(           \
               _mm256_adds_epi16(_mm256_maddubs_epi16(a, b), _mm256_maddubs_epi16(a, c)), ones))
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInner; ++i) {
      DLCHECK_OPAQUE(a0);
      DLCHECK_OPAQUE(a1);
      DLCHECK_INT8_STEP(acc[0], a0, b0, b1);
      DLCHECK_INT8_STEP(acc[1], a0, b2, b3);
      DLCHECK_INT8_STEP(acc[2], a1, b0, b1);
      DLCHECK_INT8_STEP(acc[3], a1, b2, b3);
      DLCHECK_INT8_STEP(acc[4], a0, b1, b2);
      DLCHECK_INT8_STEP(acc[5], a1, b3, b0);
      DLCHECK_INT8_STEP(acc[6], a0, b3, b0);
      DLCHECK_INT8_STEP(acc[7], a1, b1, b2);
    }
  }
  __m256i sum = acc[0];
  for (int k = 1; k < kInt8Chains; ++k) sum = _mm256_add_epi32(sum, acc[k]);
  volatile int sink = _mm256_cvtsi256_si32(sum);
  (void)sink;
  return 2.0 * 64 * kInt8Chains * kInner * static_cast<double>(rounds);
}
#undef DLCHECK_INT8_STEP

__attribute__((target("avx2,avxvnni"))) double RunAvxVnni(long rounds) {
  __m256i acc[kChains];
  for (auto& x : acc) x = _mm256_setzero_si256();
  const __m256i a = _mm256_set1_epi8(3), b = _mm256_set1_epi8(5);
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInner; ++i) {
#pragma GCC unroll 12
      for (auto& x : acc) x = _mm256_dpbusd_avx_epi32(x, a, b);
    }
  }
  __m256i sum = acc[0];
  for (int k = 1; k < kChains; ++k) sum = _mm256_add_epi32(sum, acc[k]);
  volatile int sink = _mm256_cvtsi256_si32(sum);
  (void)sink;
  return Ops(2 * 32, rounds);
}

__attribute__((target("avx512f,avx512vnni"))) double RunAvx512Vnni(long rounds) {
  __m512i acc[kChains];
  for (auto& x : acc) x = _mm512_setzero_si512();
  const __m512i a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(5);
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInner; ++i) {
#pragma GCC unroll 12
      for (auto& x : acc) x = _mm512_dpbusd_epi32(x, a, b);
    }
  }
  __m512i sum = acc[0];
  for (int k = 1; k < kChains; ++k) sum = _mm512_add_epi32(sum, acc[k]);
  volatile int sink = _mm512_cvtsi512_si32(sum);
  (void)sink;
  return Ops(2 * 64, rounds);
}

__attribute__((target("avx512f,avx512bf16"))) double RunAvx512Bf16(long rounds) {
  __m512 acc[kChains];
  for (auto& x : acc) x = _mm512_setzero_ps();
  // bf16 0x3a83 is about 1e-3: the sums stay finite for any run length.
  const __m512bh a = (__m512bh)_mm512_set1_epi16(0x3a83);
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInner; ++i) {
#pragma GCC unroll 12
      for (auto& x : acc) x = _mm512_dpbf16_ps(x, a, a);
    }
  }
  __m512 sum = acc[0];
  for (int k = 1; k < kChains; ++k) sum = _mm512_add_ps(sum, acc[k]);
  volatile float sink = _mm512_cvtss_f32(sum);
  (void)sink;
  return Ops(2 * 32, rounds);
}

__attribute__((target("avx512f,avx512fp16"))) double RunAvx512Fp16(long rounds) {
  __m512h acc[kChains];
  for (auto& x : acc) x = _mm512_set1_ph(static_cast<_Float16>(1.0f));
  const __m512h m = _mm512_set1_ph(static_cast<_Float16>(0.999f));
  const __m512h c = _mm512_set1_ph(static_cast<_Float16>(0.001f));
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInner; ++i) {
#pragma GCC unroll 12
      for (auto& x : acc) x = _mm512_fmadd_ph(x, m, c);
    }
  }
  __m512h sum = acc[0];
  for (int k = 1; k < kChains; ++k) sum = _mm512_add_ph(sum, acc[k]);
  volatile float sink = static_cast<float>(_mm512_cvtsh_h(sum));
  (void)sink;
  return Ops(2 * 32, rounds);
}

// AMX: eight tiles of 16 rows x 64 bytes (palette 1); four accumulators C0..C3 fed by two A
// tiles (4, 5) and two B tiles (6, 7), so that consecutive products are independent.
struct alignas(64) TileConfig {
  std::uint8_t palette = 1;
  std::uint8_t start_row = 0;
  std::uint8_t reserved[14] = {};
  std::uint16_t colsb[16] = {};
  std::uint8_t rows[16] = {};
};

// Linux's arch_prctl request for the tile data state (asm/prctl.h; XFEATURE_XTILEDATA).
constexpr int kArchReqXcompPerm = 0x1023;
constexpr int kXfeatureXtileData = 18;

__attribute__((target("amx-tile"))) void AmxPrepare() {
  syscall(SYS_arch_prctl, kArchReqXcompPerm, kXfeatureXtileData);
  TileConfig config;
  for (int t = 0; t < 8; ++t) {
    config.colsb[t] = 64;
    config.rows[t] = 16;
  }
  // Not GCC 12's _tile_loadconfig: its asm names only the first 8 bytes of the configuration
  // as read, so the stores of the rows and widths were dropped (a #GP, SIGSEGV, on an AMX host).
  asm volatile("ldtilecfg %0" ::"m"(config));
  alignas(64) static std::uint8_t data[16 * 64];
  for (std::size_t i = 0; i < sizeof(data); ++i) data[i] = (i % 2 == 0) ? 0x83 : 0x3a;
  _tile_zero(0);
  _tile_zero(1);
  _tile_zero(2);
  _tile_zero(3);
  _tile_loadd(4, data, 64);
  _tile_loadd(5, data, 64);
  _tile_loadd(6, data, 64);
  _tile_loadd(7, data, 64);
}

__attribute__((target("amx-tile"))) void AmxFinish() {
  _tile_release();
}

constexpr double kAmxBf16Ops = 2.0 * 16 * 16 * 32;  // 16x16 results, 32 bf16 pairs each
constexpr double kAmxInt8Ops = 2.0 * 16 * 16 * 64;  // 16x16 results, 64 int8 pairs each

__attribute__((target("amx-tile,amx-bf16"))) double RunAmxBf16(long rounds) {
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInner; ++i) {
      _tile_dpbf16ps(0, 4, 6);
      _tile_dpbf16ps(1, 4, 7);
      _tile_dpbf16ps(2, 5, 6);
      _tile_dpbf16ps(3, 5, 7);
    }
  }
  return 4 * kAmxBf16Ops * kInner * static_cast<double>(rounds);
}

__attribute__((target("amx-tile,amx-int8"))) double RunAmxInt8(long rounds) {
  for (long r = 0; r < rounds; ++r) {
    for (long i = 0; i < kInner; ++i) {
      _tile_dpbssd(0, 4, 6);
      _tile_dpbssd(1, 4, 7);
      _tile_dpbssd(2, 5, 6);
      _tile_dpbssd(3, 5, 7);
    }
  }
  return 4 * kAmxInt8Ops * kInner * static_cast<double>(rounds);
}

#else  // not __x86_64__

// Portable loops, for a CPU without x86-64 vectors: what the compiler makes of them.
void ReadPortable(float* a, float*, float*, std::size_t n, long passes, float* sink) {
  float s[8] = {};
  for (long p = 0; p < passes; ++p) {
    for (std::size_t i = 0; i < n; i += 8) {
      for (int k = 0; k < 8; ++k) s[k] += a[i + k];
    }
    Clobber();
  }
  for (float x : s) *sink += x;
}
void CopyPortable(float* a, float* b, float*, std::size_t n, long passes, float*) {
  for (long p = 0; p < passes; ++p) {
    for (std::size_t i = 0; i < n; ++i) b[i] = a[i];
    Clobber();
  }
}
void TriadPortable(float* a, float* b, float* c, std::size_t n, long passes, float*) {
  for (long p = 0; p < passes; ++p) {
    for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + 0.5f * c[i];
    Clobber();
  }
}

#endif  // __x86_64__

// Each unit: what it needs (every feature), and its kernel.
struct UnitEntry {
  const char* dtype;
  const char* unit;
  const char* instruction;
  std::vector<const char*> needs;
  ComputeLoop run;
  void (*prepare)();
  void (*finish)();
};

const std::vector<UnitEntry>& Units() {
#if defined(__x86_64__)
  static const std::vector<UnitEntry> kUnits = {
      {"f32", "sse", "mulps + addps xmm", {}, RunSseMulAdd, nullptr, nullptr},
      {"f32", "avx2_fma", "vfmadd231ps ymm", {"avx2", "fma"}, RunAvx2Fma, nullptr, nullptr},
      {"f32", "avx512_fma", "vfmadd231ps zmm", {"avx512f"}, RunAvx512Fma, nullptr, nullptr},
      {"int8",
       "avx2_int8",
       "vpmaddubsw x2 + vpaddsw + vpmaddwd + vpaddd ymm",
       {"avx2"},
       RunAvx2Int8,
       nullptr,
       nullptr},
      {"int8",
       "avx_vnni",
       "vpdpbusd ymm (VEX)",
       {"avx2", "avx_vnni"},
       RunAvxVnni,
       nullptr,
       nullptr},
      {"int8",
       "avx512_vnni",
       "vpdpbusd zmm",
       {"avx512f", "avx512_vnni"},
       RunAvx512Vnni,
       nullptr,
       nullptr},
      {"bf16",
       "avx512_bf16",
       "vdpbf16ps zmm",
       {"avx512f", "avx512_bf16"},
       RunAvx512Bf16,
       nullptr,
       nullptr},
      {"f16",
       "avx512_fp16",
       "vfmadd231ph zmm",
       {"avx512f", "avx512_fp16"},
       RunAvx512Fp16,
       nullptr,
       nullptr},
      {"bf16",
       "amx_bf16",
       "tdpbf16ps",
       {"amx_tile", "amx_bf16"},
       RunAmxBf16,
       AmxPrepare,
       AmxFinish},
      {"int8", "amx_int8", "tdpbssd", {"amx_tile", "amx_int8"}, RunAmxInt8, AmxPrepare, AmxFinish},
  };
#else
  static const std::vector<UnitEntry> kUnits;
#endif
  return kUnits;
}

}  // namespace

BandwidthKernels BandwidthKernelsFor(const detect::FeatureSet& usable) {
#if defined(__x86_64__)
  if (Has(usable, "avx512f")) return {"zmm", ReadAvx512, CopyAvx512, TriadAvx512, TriadNtAvx512};
  if (Has(usable, "avx2") && Has(usable, "fma")) {
    return {"ymm", ReadAvx2, CopyAvx2, TriadAvx2, TriadNtAvx2};
  }
  return {"xmm", ReadSse, CopySse, TriadSse, TriadNtSse};
#else
  (void)usable;
  return {"scalar", ReadPortable, CopyPortable, TriadPortable, TriadPortable};
#endif
}

std::vector<ComputeKernel> ComputeKernelsFor(const detect::FeatureSet& usable) {
  std::vector<ComputeKernel> kernels;
  for (const UnitEntry& entry : Units()) {
    bool runs = true;
    for (const char* feature : entry.needs) runs = runs && Has(usable, feature);
    if (runs) {
      kernels.push_back(
          {entry.dtype, entry.unit, entry.instruction, entry.run, entry.prepare, entry.finish});
    }
  }
  return kernels;
}

std::vector<MissingUnit> MissingUnitsFor(const detect::FeatureSet& usable) {
  std::vector<MissingUnit> missing;
#if !defined(__x86_64__)
  missing.push_back({"compute peaks", "dlcheck times x86-64 instructions only"});
#endif
  for (const UnitEntry& entry : Units()) {
    std::string lacks;
    for (const char* feature : entry.needs) {
      if (!Has(usable, feature)) lacks += (lacks.empty() ? "" : ", ") + std::string(feature);
    }
    if (lacks.empty()) continue;
    missing.push_back(
        {std::string(entry.dtype) + " on " + entry.unit + " (" + entry.instruction + ")",
         "not usable here: " + lacks +
             " (CPUID does not report it, or the OS or hypervisor did not enable "
             "its state); see 'dlcheck platform'"});
  }
  return missing;
}

}  // namespace dlcheck::roofline
