#include "verbose/native_paths.h"

#include <array>
#include <cstdio>

#include "common/onednn_isa.h"

namespace dlcheck::verbose {

std::optional<DtypeUnits> DtypeUnitsOfIsa(std::string_view isa) {
  const onednn::Isa* found = onednn::FindIsa(isa);
  if (found == nullptr || found->arch != onednn::IsaArch::kX64 || !found->rank) {
    return std::nullopt;
  }
  const int rank = *found->rank;
  // AVX10.2 without AMX ranks above AMX-FP16 in oneDNN's order but has no tiles.
  const bool avx10_2_only = rank == onednn::IsaRank("avx10_2");
  DtypeUnits units;
  units.vnni =
      rank >= *onednn::IsaRank("avx512_core_vnni") || isa == "avx2_vnni" || isa == "avx2_vnni_2";
  units.avx512_bf16 = rank >= *onednn::IsaRank("avx512_core_bf16");
  units.avx512_fp16 = rank >= *onednn::IsaRank("avx512_core_fp16");
  units.amx_bf16 = rank >= *onednn::IsaRank("avx512_core_amx_bf16") && !avx10_2_only;
  units.amx_int8 = units.amx_bf16;
  units.amx_fp16 = rank >= *onednn::IsaRank("avx512_core_amx_fp16") && !avx10_2_only;
  return units;
}

std::string_view ComputeDtypeOf(const PrimitiveStats& row) {
  std::string_view dtype;
  for (std::string_view tensor : {"src:", "wei:"}) {
    const std::string_view types = row.data_types.view();
    for (std::size_t at = types.find(tensor); at != std::string_view::npos;
         at = types.find(tensor, at + 1)) {
      if (at != 0 && types[at - 1] != ' ') continue;
      std::string_view type = types.substr(at + tensor.size());
      type = type.substr(0, type.find(' '));
      dtype = type;
      break;
    }
  }
  if (dtype == "f16" || dtype == "bf16") return dtype;
  if (dtype == "s8" || dtype == "u8") return "int8";
  return {};
}

int NativeTier(const DtypeUnits& cpu, std::string_view dtype) {
  if (dtype == "f16") return cpu.amx_fp16 ? 2 : cpu.avx512_fp16 ? 1 : 0;
  if (dtype == "bf16") return cpu.amx_bf16 ? 2 : cpu.avx512_bf16 ? 1 : 0;
  if (dtype == "int8") return cpu.amx_int8 ? 2 : cpu.vnni ? 1 : 0;
  return 0;
}

namespace {

struct DtypeNames {
  std::string_view dtype;
  std::string_view amx;                          ///< the AMX extension that runs it
  std::string_view vector;                       ///< the vector extension that runs it natively
  std::array<std::string_view, 2> alternatives;  ///< the types to suggest, closest first
};
constexpr std::array kDtypes = {
    DtypeNames{"f16", "AMX-FP16", "AVX512-FP16", {"bf16", "int8"}},
    DtypeNames{"bf16", "AMX-BF16", "AVX512-BF16", {"f16", "int8"}},
    DtypeNames{"int8", "AMX-INT8", "AVX512-VNNI or AVX-VNNI", {"bf16", "f16"}},
};

const DtypeNames* NamesOf(std::string_view dtype) {
  for (const DtypeNames& n : kDtypes) {
    if (n.dtype == dtype) return &n;
  }
  return nullptr;
}

std::string_view UnitOf(const DtypeNames& n, int tier) {
  return tier == 2 ? n.amx : n.vector;
}

}  // namespace

std::optional<Finding> DtypePathFinding(const PrimitiveStats& row, double share_pct,
                                        const DtypeUnits& cpu) {
  const std::string_view dtype = ComputeDtypeOf(row);
  const DtypeNames* names = NamesOf(dtype);
  if (names == nullptr || row.isa.view().find("amx") != std::string_view::npos) {
    return std::nullopt;
  }
  const int tier = NativeTier(cpu, dtype);
  if (tier == 2) return std::nullopt;
  // The closest type with a faster unit here; f32 where a type has no native unit at all.
  const DtypeNames* better = nullptr;
  for (std::string_view alternative : names->alternatives) {
    if (NativeTier(cpu, alternative) > tier) {
      better = NamesOf(alternative);
      break;
    }
  }
  if (better == nullptr && tier > 0) return std::nullopt;  // the best this CPU has for any type
  char share[32];
  std::snprintf(share, sizeof share, "%.1f%%", share_pct);
  std::string message = std::string(dtype) + " " + row.primitive + " " + row.implementation + " " +
                        row.problem + " (" + share + " of exec time) runs at " +
                        (row.isa.empty() ? std::string("?") : std::string(row.isa.view())) +
                        " here: ";
  if (tier == 0) {
    message += "this CPU has no " + std::string(names->vector) + " and no " +
               std::string(names->amx) + ", so oneDNN converts " + std::string(dtype) +
               " and computes in f32 (often slower than f32 itself)";
  } else {
    message +=
        "this CPU has " + std::string(UnitOf(*names, tier)) + " but no " + std::string(names->amx);
    if (dtype == "f16") message += " (Granite Rapids and later have it)";
  }
  message += "; ";
  if (better != nullptr) {
    const int better_tier = NativeTier(cpu, better->dtype);
    message += std::string(better->dtype) + " would use " + (better_tier == 2 ? "AMX (" : "") +
               std::string(UnitOf(*better, better_tier)) + (better_tier == 2 ? ")" : "") +
               " here, where its accuracy is enough";
  } else {
    message += "f32 would run at least as fast here";
  }
  message += " (CPU units from " + cpu.basis + ")";
  return Finding{Severity::kWarning, "dtype-no-native-path", std::move(message)};
}

}  // namespace dlcheck::verbose
