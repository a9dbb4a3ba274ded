// SPDX-License-Identifier: Apache-2.0
#include "verbose/native_paths.h"

#include <array>
#include <cctype>
#include <cstdio>

#include "common/finding_codes.h"
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
  units.isa_level = std::string(isa);
  return units;
}

DtypeUnits DtypeUnitsOfFeatures(const std::function<bool(std::string_view)>& has,
                                std::string subject) {
  return {.avx512_fp16 = has("avx512_fp16"),
          .amx_fp16 = has("amx_fp16"),
          .avx512_bf16 = has("avx512_bf16"),
          .amx_bf16 = has("amx_bf16"),
          .vnni = has("avx512_vnni") || has("avx_vnni"),
          .amx_int8 = has("amx_int8"),
          .subject = std::move(subject)};
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

// The type with a faster unit than `tier` on `cpu`, closest first; nullptr where none has one.
const DtypeNames* FasterType(const DtypeNames& names, int tier, const DtypeUnits& cpu) {
  for (std::string_view alternative : names.alternatives) {
    if (NativeTier(cpu, alternative) > tier) return NamesOf(alternative);
  }
  return nullptr;
}

// "bf16 would use AMX (AMX-BF16) there, where its accuracy is enough", or f32's words where no
// other type has a faster unit; `where` is "there" or "here".
std::string AlternativeWords(const DtypeNames* better, const DtypeUnits& cpu,
                             std::string_view where) {
  if (better == nullptr) return "f32 would run at least as fast " + std::string(where);
  const int tier = NativeTier(cpu, better->dtype);
  return std::string(better->dtype) + " would use " + (tier == 2 ? "AMX (" : "") +
         std::string(UnitOf(*better, tier)) + (tier == 2 ? ")" : "") + " " + std::string(where) +
         ", where its accuracy is enough";
}

// What the log's CPU lacks for `names`, at `tier`: "the CPU of the CPUID dump x has AVX512-FP16
// but no AMX-FP16", or for an ISA level "the log ran under avx512_core: a cap, or a CPU without
// AVX512-BF16 and AMX-BF16".
std::string LogCpuWords(const DtypeNames& names, int tier, const DtypeUnits& cpu) {
  const std::string vector(names.vector);
  const std::string amx(names.amx);
  const std::string unit(UnitOf(names, tier));
  std::string words;
  if (!cpu.isa_level.empty()) {
    words =
        "the log ran under " + cpu.isa_level + ": a cap, or a CPU " +
        (tier == 0 ? "without " + vector + " and " + amx : "with " + unit + " but without " + amx);
  } else {
    words = cpu.subject + (tier == 0 ? " has no " + vector + " and no " + amx
                                     : " has " + unit + " but no " + amx);
  }
  if (tier == 0) {
    words += ", so oneDNN converts " + std::string(names.dtype) +
             " and computes in f32 (often slower than f32 itself)";
  } else if (names.dtype == "f16") {
    words += " (Granite Rapids and later have AMX-FP16)";
  }
  return words;
}

// The sentence on the host where its units for the row's type differ from the log's CPU's:
// " This host has AVX512-BF16: bf16 runs natively here." Empty where they agree.
std::string HostWords(const DtypeNames& names, int log_tier, const DtypeNames* log_better,
                      const DtypeUnits& host) {
  const int tier = NativeTier(host, names.dtype);
  const DtypeNames* better = FasterType(names, tier, host);
  if (tier == log_tier && better == log_better) return {};
  const std::string dtype(names.dtype);
  const std::string where = host.here ? "here" : "on that CPU";
  std::string words = host.subject;
  if (!words.empty())
    words[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(words[0])));
  if (tier == 2) {
    return " " + words + " has " + std::string(names.amx) + ": " + dtype + " runs on AMX " + where +
           ".";
  }
  if (tier == 1) {
    words += " has " + std::string(UnitOf(names, 1)) + ": " + dtype + " runs natively " + where;
  } else {
    words += " has no " + std::string(names.vector) + " and no " + std::string(names.amx) + ": " +
             dtype + " is converted to f32 " + where;
  }
  if (better != nullptr || tier == 0) words += "; " + AlternativeWords(better, host, where);
  return " " + words + ".";
}

}  // namespace

std::optional<Finding> DtypePathFinding(const PrimitiveStats& row, double share_pct,
                                        const DtypeUnits& log_cpu,
                                        const std::optional<DtypeUnits>& host) {
  const std::string_view dtype = ComputeDtypeOf(row);
  const DtypeNames* names = NamesOf(dtype);
  if (names == nullptr || row.isa.view().find("amx") != std::string_view::npos) {
    return std::nullopt;
  }
  const int tier = NativeTier(log_cpu, dtype);
  if (tier == 2) return std::nullopt;
  // The closest type with a faster unit there; f32 where a type has no native unit at all.
  const DtypeNames* better = FasterType(*names, tier, log_cpu);
  if (better == nullptr && tier > 0) return std::nullopt;  // the best that CPU has for any type
  char share[32];
  std::snprintf(share, sizeof share, "%.1f%%", share_pct);
  std::string message = std::string(dtype) + " " + row.primitive + " " + row.implementation + " " +
                        row.problem + " (" + share + " of exec time) ran at " +
                        (row.isa.empty() ? std::string("?") : std::string(row.isa.view())) + ": " +
                        LogCpuWords(*names, tier, log_cpu) + "; " +
                        AlternativeWords(better, log_cpu, "there") + ".";
  if (host) message += HostWords(*names, tier, better, *host);
  return Finding{Severity::kWarning, codes::kDtypeNoNativePath, std::move(message)};
}

}  // namespace dlcheck::verbose
