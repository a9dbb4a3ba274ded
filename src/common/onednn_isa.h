// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one table of oneDNN ISA names, shared by detect (the level the features allow), verbose
// (ISA tokens in implementation names, the header's ISA line), dispatch (the sweep's caps) and
// check (`--expect-isa`). Header-only and constexpr, so every module may use it without a link.
//
//   onednn::IsaRank("avx512_core_vnni")  -> 10
//   onednn::IsaRank("avx10_1_512_amx")   -> 14   (oneDNN 3.5+ name of avx512_core_amx)
//   onednn::IsaRank("sve_256")           -> nullopt (AArch64: no place in the x86 order)
//   onednn::IsaRank("no_such_isa")       -> nullopt (FindIsa says which of the two)
//   for (std::string_view cap : onednn::kSweepCaps) ...   // sse41 ... avx512_core_amx
//   onednn::Compare("avx2", "avx512_core")  -> IsaOrder::kBelow ("sve_256": kUnrankable)
//   onednn::IsaName("avx2")                 -> "avx2", checked against the table at compile time
//
// Sources: oneDNN's src/cpu/x64/cpu_isa_traits.{hpp,cpp} (cpu_isa_t, JIT_IMPL_NAME_HELPER,
// isa_info_t::get_name) from 0.x to 3.12, and the ISA suffixes of FORMATS.md §8.

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/text.h"

namespace dlcheck::onednn {

/// The instruction set family an ISA name belongs to.
enum class IsaArch {
  kNone,     ///< dlcheck's "none": below oneDNN's lowest x86 level (sse41)
  kX64,      ///< Intel 64 / AMD64
  kAarch64,  ///< Arm 64-bit (Advanced SIMD, SVE, SME)
  kRiscv64,  ///< RISC-V vector extension
};

/// One oneDNN ISA name.
struct Isa {
  std::string_view name;  ///< as oneDNN prints it in implementation names and ONEDNN_MAX_CPU_ISA
  IsaArch arch = IsaArch::kX64;
  /// Position in the x86 dispatch order (0 "none", 1 sse41 ... 17 avx10_2_amx_2). Names for the
  /// same ISA (3.5+ renames, ymm hints) share a rank. nullopt: the name cannot be ranked
  /// against the x86 levels (another architecture, or a name with no settled place).
  std::optional<int> rank;
  /// A value `dlcheck dispatch --isa` may pass as ONEDNN_MAX_CPU_ISA to the linked oneDNN 2.6.
  bool sweep_cap = false;
  /// What oneDNN's `info,cpu,isa:` header line says when this is the highest ISA it may use
  /// (newest spelling); empty when oneDNN never prints this name there.
  std::string_view header_text;
};

namespace internal {
using enum IsaArch;
constexpr std::optional<int> kNoRank = std::nullopt;
}  // namespace internal

/// Every oneDNN ISA name dlcheck knows, x86 in dispatch order first. The order is linear, as
/// ONEDNN_MAX_CPU_ISA's documentation lists it; oneDNN itself orders the ISAs only partially
/// (avx2_vnni and avx512_core are not comparable), and dlcheck places the 256-bit VNNI levels
/// below every AVX-512 level.
inline constexpr std::array kIsas = {
    // clang-format off
    Isa{"none",                      internal::kNone,    0,  false, ""},
    Isa{"sse41",                     internal::kX64,     1,  true,  "Intel SSE4.1"},
    Isa{"sse4_1",                    internal::kX64,     1,  false, ""},
    Isa{"sse42",                     internal::kX64,     1,  false, ""},  // MKL-DNN 0.x's lowest
    Isa{"avx",                       internal::kX64,     2,  true,  "Intel AVX"},
    Isa{"avx2",                      internal::kX64,     3,  true,  "Intel AVX2"},
    Isa{"avx2_vnni",                 internal::kX64,     4,  true,  "Intel AVX2 with Intel DL Boost"},
    Isa{"avx2_vnni_2",               internal::kX64,     5,  false,
        "Intel AVX2 with Intel DL Boost, float16 and bfloat16 support"},
    // AVX512F+CD, the subset Xeon Phi and Xeon share (oneDNN <= 2.5).
    Isa{"avx512_common",             internal::kX64,     6,  false, "Intel AVX-512"},
    Isa{"avx512_mic",                internal::kX64,     7,  false,
        "Intel AVX-512 with AVX512CD, AVX512ER, and AVX512PF extensions"},
    Isa{"avx512_mic_4ops",           internal::kX64,     8,  false,
        "Intel AVX-512 with AVX512_4FMAPS and AVX512_4VNNIW extensions"},
    Isa{"avx512_core",               internal::kX64,     9,  true,
        "Intel AVX-512 with AVX512BW, AVX512VL, and AVX512DQ extensions"},
    Isa{"avx512_core_vnni",          internal::kX64,     10, true, "Intel AVX-512 with Intel DL Boost"},
    Isa{"avx512_core_bf16",          internal::kX64,     11, true,
        "Intel AVX-512 with Intel DL Boost and bfloat16 support"},
    Isa{"avx512_core_bf16_ymm",      internal::kX64,     11, false, ""},  // a ymm hint, same ISA
    Isa{"avx512_core_fp16",          internal::kX64,     12, false,
        "Intel AVX-512 with float16, Intel DL Boost and bfloat16 support"},
    Isa{"avx10_1_512",               internal::kX64,     12, false, ""},  // 3.5+ avx512_core_fp16
    // AMX with one data type (1.8 - 2.x kernels): below AMX with both.
    Isa{"avx512_core_amx_int8",      internal::kX64,     13, false, ""},
    Isa{"avx512_core_amx_bf16",      internal::kX64,     13, false, ""},
    Isa{"avx512_core_bf16_amx_int8", internal::kX64,     13, false, ""},
    Isa{"avx512_core_bf16_amx_bf16", internal::kX64,     13, false, ""},
    Isa{"avx512_core_amx",           internal::kX64,     14, true,
        "Intel AVX-512 with float16, Intel DL Boost and bfloat16 support and Intel AMX with "
        "bfloat16 and 8-bit integer support"},
    Isa{"avx10_1_512_amx",           internal::kX64,     14, false, ""},  // 3.5+ avx512_core_amx
    Isa{"avx512_core_amx_fp16",      internal::kX64,     15, false,
        "Intel AVX-512 with float16, Intel DL Boost and bfloat16 support and Intel AMX with "
        "bfloat16, float16 and 8-bit integer support"},
    Isa{"avx10_1_512_amx_fp16",      internal::kX64,     15, false, ""},  // 3.5+ amx_fp16
    Isa{"avx10_2",                   internal::kX64,     16, false, "Intel AVX10.2"},
    Isa{"avx10_2_512",               internal::kX64,     16, false, ""},  // 3.9 - 3.11 avx10_2
    Isa{"avx10_2_amx_2",             internal::kX64,     17, false,
        "Intel AVX10.2 with float16, Intel DL Boost and Intel AMX with bfloat16, float16, "
        "float8 and 8-bit integer support"},
    Isa{"avx10_2_512_amx_2",         internal::kX64,     17, false, ""},  // 3.9 - 3.11 name
    // Names the parser recognises that no oneDNN release dlcheck knows places in the order.
    Isa{"avx10_2_ace",               internal::kX64,     internal::kNoRank, false, ""},  // main
    Isa{"avx512_core_vnni_amx",      internal::kX64,     internal::kNoRank, false, ""},
    Isa{"avx2_vnni_2_amx",           internal::kX64,     internal::kNoRank, false, ""},
    Isa{"asimd",                     internal::kAarch64, internal::kNoRank, false, ""},
    Isa{"sve",                       internal::kAarch64, internal::kNoRank, false, ""},
    Isa{"sve_128",                   internal::kAarch64, internal::kNoRank, false, ""},
    Isa{"sve_256",                   internal::kAarch64, internal::kNoRank, false, ""},
    Isa{"sve_512",                   internal::kAarch64, internal::kNoRank, false, ""},
    Isa{"sme",                       internal::kAarch64, internal::kNoRank, false, ""},
    Isa{"rvv",                       internal::kRiscv64, internal::kNoRank, false, ""},
    // clang-format on
};

/// The row named `name` (exact, lower case), or nullptr for a name dlcheck does not know.
constexpr const Isa* FindIsa(std::string_view name) {
  for (const Isa& isa : kIsas) {
    if (isa.name == name) return &isa;
  }
  return nullptr;
}

/// The rank of `name` in the x86 dispatch order; nullopt when the name is unknown or cannot be
/// ranked (FindIsa tells the two apart).
constexpr std::optional<int> IsaRank(std::string_view name) {
  const Isa* isa = FindIsa(name);
  return isa == nullptr ? std::nullopt : isa->rank;
}

namespace internal {
constexpr std::size_t CountSweepCaps() {
  return static_cast<std::size_t>(
      std::count_if(kIsas.begin(), kIsas.end(), [](const Isa& isa) { return isa.sweep_cap; }));
}
}  // namespace internal

/// The caps a sweep may use, in dispatch order: the rows marked `sweep_cap`.
inline constexpr auto kSweepCaps = [] {
  std::array<std::string_view, internal::CountSweepCaps()> caps{};
  std::size_t n = 0;
  for (const Isa& isa : kIsas) {
    if (isa.sweep_cap) caps[n++] = isa.name;
  }
  return caps;
}();

/// Whether `name` is a row marked `sweep_cap`: an ISA `dispatch --isa` and `check --require`
/// / `--expect-isa` accept.
constexpr bool IsSweepCap(std::string_view name) {
  const Isa* isa = FindIsa(name);
  return isa != nullptr && isa->sweep_cap;
}

/// "sse41, avx, ..., avx512_core_amx": the sweep caps, for messages.
inline std::string SweepCapsText() {
  return Join(kSweepCaps, ", ");
}

/// The x86 levels of oneDNN 3.x that 2.6 has no cap for, by their cpu_isa_t names
/// (ONEDNN_MAX_CPU_ISA's) and the names 3.5+ prints in verbose lines (avx10_1_512 ...), from
/// cpu_isa_traits.hpp of 3.5 - 3.13: what `check --require` and `--expect-isa` accept beside the
/// sweep caps, compared with the host's oneDNN 3.x level (detect::MaxOneDnn3Isa).
inline constexpr std::array<std::string_view, 10> kOneDnn3Levels = {
    "avx2_vnni_2",          "avx512_core_fp16",     "avx10_1_512", "avx10_1_512_amx",
    "avx512_core_amx_fp16", "avx10_1_512_amx_fp16", "avx10_2",     "avx10_2_512",
    "avx10_2_amx_2",        "avx10_2_512_amx_2"};

static_assert(std::all_of(kOneDnn3Levels.begin(), kOneDnn3Levels.end(),
                          [](std::string_view name) {
                            return std::any_of(kIsas.begin(), kIsas.end(), [name](const Isa& isa) {
                              return isa.name == name && isa.rank.has_value() && !isa.sweep_cap;
                            });
                          }),
              "every oneDNN 3.x level is a ranked row of kIsas that 2.6 cannot cap at");

/// Whether `name` is one of kOneDnn3Levels.
constexpr bool IsOneDnn3Level(std::string_view name) {
  return std::find(kOneDnn3Levels.begin(), kOneDnn3Levels.end(), name) != kOneDnn3Levels.end();
}

/// "sse41, ..., avx512_core_amx; oneDNN 3.x: avx2_vnni_2, ...": the ISA names a check accepts.
inline std::string CheckIsasText() {
  return SweepCapsText() + "; oneDNN 3.x: " + Join(kOneDnn3Levels, ", ");
}

/// How one ISA name stands against another in the x86 dispatch order. kUnrankable when either
/// cannot be ranked (unknown, or another architecture): no caller picks a number for it.
enum class IsaOrder { kBelow, kSame, kAbove, kUnrankable };

constexpr IsaOrder Compare(std::string_view a, std::string_view b) {
  const std::optional<int> rank_a = IsaRank(a);
  const std::optional<int> rank_b = IsaRank(b);
  if (!rank_a || !rank_b) return IsaOrder::kUnrankable;
  if (*rank_a < *rank_b) return IsaOrder::kBelow;
  return *rank_a == *rank_b ? IsaOrder::kSame : IsaOrder::kAbove;
}

/// A key that sorts ISA names by rank, for a list that must place every name: a name that
/// cannot be ranked sorts below every ranked one ("none" included).
constexpr int SortRank(std::string_view name) {
  return IsaRank(name).value_or(-1);
}

/// Whether `a` ranks at or below `b` (false when either cannot be ranked).
constexpr bool AtOrBelow(std::string_view a, std::string_view b) {
  const IsaOrder order = Compare(a, b);
  return order == IsaOrder::kBelow || order == IsaOrder::kSame;
}

/// Whether `a` ranks at or above `b` (false when either cannot be ranked).
constexpr bool AtOrAbove(std::string_view a, std::string_view b) {
  const IsaOrder order = Compare(a, b);
  return order == IsaOrder::kAbove || order == IsaOrder::kSame;
}

namespace internal {
// Not a constant expression: a name passed to IsaName that is not in the table.
inline void NotInTheIsaTable() {}
}  // namespace internal

/// `name`, checked at compile time to be a row of kIsas: code that names an ISA spells it
/// through here, so a typo or a name the table lacks does not compile.
// (A yes/no search, not FindIsa: GCC 12 cannot compare a pointer into kIsas with null in a
// constant expression when UBSan instruments the access, so the sanitized build would not compile.)
consteval std::string_view IsaName(std::string_view name) {
  if (!std::any_of(kIsas.begin(), kIsas.end(), [name](const Isa& isa) { return isa.name == name; }))
    internal::NotInTheIsaTable();
  return name;
}

/// The ISA whose header text (what oneDNN's `info,cpu,isa:` line says, newest spelling) is
/// exactly `text`; empty when no row holds it.
constexpr std::string_view IsaOfHeaderText(std::string_view text) {
  for (const Isa& isa : kIsas) {
    if (!isa.header_text.empty() && isa.header_text == text) return isa.name;
  }
  return {};
}

}  // namespace dlcheck::onednn
