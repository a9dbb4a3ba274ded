// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one table of oneDNN ISA names, shared by detect (the level the features allow), verbose
// (ISA tokens in implementation names, the header's ISA line), dispatch (the sweep's caps) and
// check (`--expect-isa`). Header-only and constexpr, so every module may use it without a link.
//
//   onednn::IsaRank("avx512_core_vnni")  -> 10
//   onednn::IsaRank("avx10_1_512_amx")   -> 14   (oneDNN 3.5+ name of avx512_core_amx)
//   onednn::IsaRank("sve_256")           -> nullopt (AArch64: no place in the x86 order)
//   onednn::RankIn(IsaArch::kAarch64, "sve_256") -> 3 (asimd 1, sve_128 2, sve_256 3, sve_512 4)
//   onednn::IsaRank("no_such_isa")       -> nullopt (FindIsa says which of the two)
//   for (std::string_view cap : onednn::SweepCaps(arch)) ...   // x86: sse41 ... avx512_core_amx
//   onednn::Compare("avx2", "avx512_core")  -> IsaOrder::kBelow ("sve_256": kUnrankable)
//   onednn::Compare("asimd", "sve_256")     -> IsaOrder::kBelow (each architecture its own order)
//   onednn::IsaName("avx2")                 -> "avx2", checked against the table at compile time
//
// Sources: oneDNN's src/cpu/x64/cpu_isa_traits.{hpp,cpp} (cpu_isa_t, JIT_IMPL_NAME_HELPER,
// isa_info_t::get_name) from 0.x to 3.12, and the ISA suffixes of FORMATS.md §8; for AArch64,
// src/cpu/aarch64/cpu_isa_traits.hpp (cpu_isa_t, the ONEDNN_MAX_CPU_ISA values of
// cpu_isa_traits<>::user_option_env: ADVANCED_SIMD, SVE_128, SVE_256, SVE_512).

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
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
  /// Position in its architecture's dispatch order (x86: 1 sse41 ... 17 avx10_2_amx_2; AArch64:
  /// 1 asimd ... 4 sve_512); "none" is 0, below the levels of every architecture. Names for the
  /// same ISA (3.5+ renames, ymm hints) share a rank. nullopt: the name has no settled place in
  /// its architecture's order. Ranks of two architectures are never compared (RankIn, Compare).
  std::optional<int> rank;
  /// A value `dlcheck dispatch --isa` may pass as ONEDNN_MAX_CPU_ISA to the linked oneDNN 2.6
  /// on a machine of this row's architecture (SweepCaps).
  bool sweep_cap = false;
  /// What oneDNN's `info,cpu,isa:` header line says when this is the highest ISA it may use
  /// (newest spelling); empty when oneDNN never prints this name there.
  std::string_view header_text;
};

namespace internal {
using enum IsaArch;
constexpr std::optional<int> kNoRank = std::nullopt;
}  // namespace internal

/// Every oneDNN ISA name dlcheck knows, each architecture's rows in its dispatch order, x86
/// first. The x86 order is linear, as ONEDNN_MAX_CPU_ISA's documentation lists it; oneDNN itself
/// orders the ISAs only partially (avx2_vnni and avx512_core are not comparable), and dlcheck
/// places the 256-bit VNNI levels below every AVX-512 level. The AArch64 order is oneDNN's own
/// (asimd < sve_128 < sve_256 < sve_512: a cap at a vector length admits the shorter ones).
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
    // AArch64 in oneDNN's order; "sve" (a length oneDNN did not print) and "sme" have no place.
    Isa{"asimd",                     internal::kAarch64, 1,  true,  ""},
    Isa{"sve_128",                   internal::kAarch64, 2,  true,  ""},
    Isa{"sve_256",                   internal::kAarch64, 3,  true,  ""},
    Isa{"sve_512",                   internal::kAarch64, 4,  true,  ""},
    Isa{"sve",                       internal::kAarch64, internal::kNoRank, false, ""},
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

/// The architecture of `name`; kNone for "none" and for a name dlcheck does not know.
constexpr IsaArch ArchOf(std::string_view name) {
  const Isa* isa = FindIsa(name);
  return isa == nullptr ? IsaArch::kNone : isa->arch;
}

/// The rank of `name` in the dispatch order of `arch`; nullopt when the name is unknown, of
/// another architecture, or has no place in the order. "none" ranks 0 in every order.
constexpr std::optional<int> RankIn(IsaArch arch, std::string_view name) {
  const Isa* isa = FindIsa(name);
  if (isa == nullptr || (isa->arch != arch && isa->arch != IsaArch::kNone)) return std::nullopt;
  return isa->rank;
}

/// The rank of `name` in the x86 dispatch order; nullopt when the name is unknown or cannot be
/// ranked there (FindIsa tells the two apart; RankIn ranks another architecture's names).
constexpr std::optional<int> IsaRank(std::string_view name) {
  return RankIn(IsaArch::kX64, name);
}

/// The architecture this dlcheck was built for: the one its live machine record describes.
#if defined(__x86_64__) || defined(_M_X64)
inline constexpr IsaArch kBuildArch = IsaArch::kX64;
#elif defined(__aarch64__)
inline constexpr IsaArch kBuildArch = IsaArch::kAarch64;
#elif defined(__riscv) && __riscv_xlen == 64
inline constexpr IsaArch kBuildArch = IsaArch::kRiscv64;
#else
inline constexpr IsaArch kBuildArch = IsaArch::kNone;
#endif

namespace internal {
constexpr std::size_t CountSweepCaps(IsaArch arch) {
  return static_cast<std::size_t>(std::count_if(kIsas.begin(), kIsas.end(), [arch](const Isa& isa) {
    return isa.sweep_cap && isa.arch == arch;
  }));
}

// The rows of `arch` marked `sweep_cap`, in table (dispatch) order.
template <IsaArch arch>
constexpr auto SweepCapsOf() {
  std::array<std::string_view, CountSweepCaps(arch)> caps{};
  std::size_t n = 0;
  for (const Isa& isa : kIsas) {
    if (isa.sweep_cap && isa.arch == arch) caps[n++] = isa.name;
  }
  return caps;
}

inline constexpr auto kX64SweepCaps = SweepCapsOf<IsaArch::kX64>();
inline constexpr auto kAarch64SweepCaps = SweepCapsOf<IsaArch::kAarch64>();
}  // namespace internal

/// The caps a sweep may use on a machine of `arch`, in dispatch order: its rows marked
/// `sweep_cap` (x86: sse41 ... avx512_core_amx; AArch64: asimd ... sve_512); none for another.
constexpr std::span<const std::string_view> SweepCaps(IsaArch arch) {
  switch (arch) {
    case IsaArch::kX64:
      return internal::kX64SweepCaps;
    case IsaArch::kAarch64:
      return internal::kAarch64SweepCaps;
    case IsaArch::kNone:
    case IsaArch::kRiscv64:
      break;
  }
  return {};
}

/// Whether `name` is a sweep cap of `arch`: an ISA `dispatch --isa` and `check --require` /
/// `--expect-isa` accept on a machine of that architecture.
constexpr bool IsSweepCap(std::string_view name, IsaArch arch) {
  const Isa* isa = FindIsa(name);
  return isa != nullptr && isa->sweep_cap && isa->arch == arch;
}

/// "sse41, avx, ..., avx512_core_amx": the sweep caps of `arch`, for messages.
inline std::string SweepCapsText(IsaArch arch) {
  return Join(SweepCaps(arch), ", ");
}

/// The ONEDNN_MAX_CPU_ISA value that caps oneDNN at the sweep cap `cap`: the name itself on x86
/// (oneDNN reads it in any case), the spelling of cpu_isa_traits<>::user_option_env on AArch64
/// (asimd is ADVANCED_SIMD there).
inline std::string MaxIsaValue(std::string_view cap) {
  if (ArchOf(cap) != IsaArch::kAarch64) return std::string(cap);
  if (cap == "asimd") return "ADVANCED_SIMD";
  std::string upper(cap);
  for (char& c : upper) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
  return upper;
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

/// The oneDNN 3.x levels of `arch` that 2.6 has no cap for (kOneDnn3Levels on x86; none on
/// another architecture yet).
constexpr std::span<const std::string_view> OneDnn3Levels(IsaArch arch) {
  if (arch == IsaArch::kX64) return kOneDnn3Levels;
  return {};
}

/// "sse41, ..., avx512_core_amx; oneDNN 3.x: avx2_vnni_2, ...": the ISA names a check accepts
/// on a machine of `arch`.
inline std::string CheckIsasText(IsaArch arch) {
  const std::span<const std::string_view> levels3 = OneDnn3Levels(arch);
  if (levels3.empty()) return SweepCapsText(arch);
  return SweepCapsText(arch) + "; oneDNN 3.x: " + Join(levels3, ", ");
}

/// How one ISA name stands against another in their architecture's dispatch order ("none"
/// below every level). kUnrankable when either cannot be ranked (unknown, no place in its
/// order) or the two are of different architectures: no caller picks a number for it.
enum class IsaOrder { kBelow, kSame, kAbove, kUnrankable };

constexpr IsaOrder Compare(std::string_view a, std::string_view b) {
  const IsaArch arch = ArchOf(a) == IsaArch::kNone ? ArchOf(b) : ArchOf(a);
  const std::optional<int> rank_a = RankIn(arch, a);
  const std::optional<int> rank_b = RankIn(arch, b);
  if (!rank_a || !rank_b) return IsaOrder::kUnrankable;
  if (*rank_a < *rank_b) return IsaOrder::kBelow;
  return *rank_a == *rank_b ? IsaOrder::kSame : IsaOrder::kAbove;
}

/// A key that sorts ISA names by their x86 rank, for a list that must place every name: a name
/// that cannot be ranked there sorts below every ranked one ("none" included).
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
