// SPDX-License-Identifier: Apache-2.0
#pragma once
// Data type x hardware: whether a CPU has a native path for a low-precision data type, and the
// finding for a hot row whose data type has none (or only a slower one than another type has).
//
//   f16:  AVX512-FP16 (Sapphire Rapids+), AMX-FP16 (Granite Rapids+)
//   bf16: AVX512-BF16 (Cooper Lake+, Zen 4+), AMX-BF16 (Sapphire Rapids+)
//   int8: AVX512-VNNI or AVX-VNNI (Cascade Lake+, Alder Lake+, Zen 4+), AMX-INT8
//
// A finding judges the log by the log's CPU (a replayed dump, else the log's ISA line, which is a
// cap or the recording CPU's level), and says what the host dlcheck runs on has in a sentence of
// its own where that differs:
//
//   DtypeUnits log_cpu = *DtypeUnitsOfIsa("avx512_core_amx");   // Emerald Rapids's level
//   DtypePathFinding(f16_matmul_row, 62.0, log_cpu, zen4_host)
//     -> dtype-no-native-path: "f16 matmul ... ran at avx10_1_512: the log ran under
//        avx512_core_amx (a cap, or a CPU with AVX512-FP16 but without AMX-FP16) ...; bf16 would
//        use AMX (AMX-BF16) there ... This host has no AVX512-FP16 and no AMX-FP16: ..."

#include <functional>
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
  /// The CPU they describe, as a finding names it: `the CPU of the CPUID dump x.test`, `this
  /// host`. Empty for units read off an ISA level (DtypeUnitsOfIsa), which `isa_level` names.
  std::string subject;
  /// The oneDNN ISA level they were read from (a log's ISA line: a cap, or the recording CPU's
  /// level); empty for units read off a CPU's features.
  std::string isa_level;
  /// The machine dlcheck runs on: its sentence says "here" rather than "on that CPU".
  bool here = false;
};

/// What an x86 ISA name of oneDNN's (the header's `isa_short`, a cap) implies the CPU has; nullopt
/// for a name that is not an x86 level dlcheck knows (AArch64, empty).
std::optional<DtypeUnits> DtypeUnitsOfIsa(std::string_view isa);

/// The units of a CPU whose usable features (`/proc/cpuinfo` names) `has` answers, named
/// `subject` in findings.
DtypeUnits DtypeUnitsOfFeatures(const std::function<bool(std::string_view)>& has,
                                std::string subject);

/// The low-precision data type a row computes in: `f16`, `bf16`, `int8` (s8/u8), from its
/// weights' data type, else its source's; "" for f32 and anything else.
std::string_view ComputeDtypeOf(const PrimitiveStats& row);

/// How the CPU runs `dtype`: 2 on AMX, 1 on AVX-512 (AVX-VNNI for int8), 0 with no native unit
/// (oneDNN converts it, or refuses it).
int NativeTier(const DtypeUnits& cpu, std::string_view dtype);

/// `dtype-no-native-path` for a compute row that takes `share_pct` of exec time (the caller
/// passes hot rows only): its data type has no native unit on the log's CPU (`log_cpu`), or a
/// slower one than another low-precision type has (f16 without AMX-FP16 where bf16 has
/// AMX-BF16); nullopt otherwise, and for a row that already runs on AMX. Where `host` (the
/// machine dlcheck runs on) has other units for the row's type, a last sentence says what.
std::optional<Finding> DtypePathFinding(const PrimitiveStats& row, double share_pct,
                                        const DtypeUnits& log_cpu,
                                        const std::optional<DtypeUnits>& host = std::nullopt);

}  // namespace dlcheck::verbose
