#pragma once
// Data type x hardware: whether a CPU has a native path for a low-precision data type, and the
// finding for a hot row whose data type has none (or only a slower one than another type has).
//
//   f16:  AVX512-FP16 (Sapphire Rapids+), AMX-FP16 (Granite Rapids+)
//   bf16: AVX512-BF16 (Cooper Lake+, Zen 4+), AMX-BF16 (Sapphire Rapids+)
//   int8: AVX512-VNNI or AVX-VNNI (Cascade Lake+, Alder Lake+, Zen 4+), AMX-INT8
//
//   DtypeUnits cpu = *DtypeUnitsOfIsa("avx512_core_amx");   // Emerald Rapids as oneDNN says it
//   DtypePathFinding(f16_matmul_row, 62.0, cpu)
//     -> dtype-no-native-path: "f16 matmul ... runs at avx10_1_512 (AVX-512) here: this CPU has
//        no AMX-FP16 ...; bf16 would use AMX (AMX-BF16) ..."

#include <optional>
#include <string>
#include <string_view>

#include "common/finding.h"
#include "verbose/primitive_stats.h"

namespace dlcheck::verbose {

/// The units a CPU has for each low-precision data type, and where that was read.
struct DtypeUnits {
  bool avx512_fp16 = false;
  bool amx_fp16 = false;
  bool avx512_bf16 = false;
  bool amx_bf16 = false;
  bool vnni = false;  ///< AVX512-VNNI or AVX-VNNI
  bool amx_int8 = false;
  /// Where they come from, for the finding: `the CPUID dump x.test`, `the log's ISA line
  /// (avx512_core_amx)`, `this CPU`.
  std::string basis;
};

/// What an x86 ISA name of oneDNN's (the header's `isa_short`, a cap) implies the CPU has; nullopt
/// for a name that is not an x86 level dlcheck knows (AArch64, empty).
std::optional<DtypeUnits> DtypeUnitsOfIsa(std::string_view isa);

/// The low-precision data type a row computes in: `f16`, `bf16`, `int8` (s8/u8), from its
/// weights' data type, else its source's; "" for f32 and anything else.
std::string_view ComputeDtypeOf(const PrimitiveStats& row);

/// How the CPU runs `dtype`: 2 on AMX, 1 on AVX-512 (AVX-VNNI for int8), 0 with no native unit
/// (oneDNN converts it, or refuses it).
int NativeTier(const DtypeUnits& cpu, std::string_view dtype);

/// `dtype-no-native-path` for a compute row that takes `share_pct` of exec time (the caller
/// passes hot rows only): its data type has no native unit here, or a slower one than another
/// low-precision type has (f16 without AMX-FP16 where bf16 has AMX-BF16); nullopt otherwise, and
/// for a row that already runs on AMX.
std::optional<Finding> DtypePathFinding(const PrimitiveStats& row, double share_pct,
                                        const DtypeUnits& cpu);

}  // namespace dlcheck::verbose
