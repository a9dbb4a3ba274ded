// SPDX-License-Identifier: Apache-2.0
#include "detect/libcpuid_layer.h"

#include <fmt/format.h>
#include <libcpuid/libcpuid.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>

namespace dlcheck::detect {
namespace {

void IgnoreWarning(const char* /*message*/) {}

void Silence() {
  // libcpuid prints "not understood" and topology warnings on stderr; dlcheck reports instead.
  cpuid_set_warn_function(&IgnoreWarning);
}

struct FlagName {
  cpu_feature_t flag;
  const char* name;
};

// Every flag libcpuid 0.6.2 has for a feature dlcheck reports; the rest get no opinion.
constexpr FlagName kFlags[] = {
    {CPU_FEATURE_SSE4_1, "sse4_1"},
    {CPU_FEATURE_SSE4_2, "sse4_2"},
    {CPU_FEATURE_AVX, "avx"},
    {CPU_FEATURE_AVX2, "avx2"},
    {CPU_FEATURE_FMA3, "fma"},
    {CPU_FEATURE_F16C, "f16c"},
    {CPU_FEATURE_AVX512F, "avx512f"},
    {CPU_FEATURE_AVX512CD, "avx512cd"},
    {CPU_FEATURE_AVX512BW, "avx512bw"},
    {CPU_FEATURE_AVX512DQ, "avx512dq"},
    {CPU_FEATURE_AVX512VL, "avx512vl"},
    {CPU_FEATURE_AVX512PF, "avx512pf"},
    {CPU_FEATURE_AVX512ER, "avx512er"},
    {CPU_FEATURE_AVX512VNNI, "avx512_vnni"},
    {CPU_FEATURE_AVX512VBMI, "avx512vbmi"},
    {CPU_FEATURE_AVX512VBMI2, "avx512_vbmi2"},
};

LibcpuidLayer FromId(const cpu_id_t& id) {
  LibcpuidLayer layer;
  layer.available = true;
  for (const FlagName& f : kFlags) layer.flags[f.name] = id.flags[f.flag] != 0;
  layer.codename = id.cpu_codename;
  return layer;
}

LibcpuidLayer Unavailable(std::string note) {
  LibcpuidLayer layer;
  layer.note = std::move(note);
  return layer;
}

// libcpuid 0.6.2 decodes leaf 4 into tables of one entry per cache type (L1I, L1D, L2, L3, L4)
// on cpu_identify's stack, indexed by subleaf: a dump with a sixth cache subleaf smashes that
// stack. So libcpuid is given at most this many leaf-4 rows (a real CPU has at most five caches).
constexpr std::size_t kMaxLeaf4Rows = 5;

// libcpuid's fixed array for an indexed leaf's subleaves, cut to the rows it can take safely;
// empty for the leaves it keeps none of.
std::span<std::uint32_t[NUM_REGS]> SubleafRows(cpu_raw_data_t& raw, std::uint32_t leaf) {
  switch (leaf) {
    case 0x4:
      return std::span(raw.intel_fn4)
          .first(std::min<std::size_t>(MAX_INTELFN4_LEVEL, kMaxLeaf4Rows));
    case 0xB:
      return raw.intel_fn11;
    case 0x12:
      return raw.intel_fn12h;
    case 0x14:
      return raw.intel_fn14h;
    case 0x8000001Du:
      return raw.amd_fn8000001dh;
    default:
      return {};
  }
}

void Store(std::uint32_t (&row)[NUM_REGS], const CpuidRegs& regs) {
  row[EAX] = regs.eax;
  row[EBX] = regs.ebx;
  row[ECX] = regs.ecx;
  row[EDX] = regs.edx;
}

// One logical CPU's leaves in libcpuid's raw struct, as cpuid_get_raw_data would have read them:
// subleaf 0 of leaves 0-1Fh and 80000000h-8000001Fh, and the subleaves of the indexed leaves it
// keeps, each table bounded (SubleafRows). Returns what was left out: the leaves whose subleaves
// with data did not fit, e.g. "leaf 4 subleaves 5 to 7", or "" when everything fit.
std::string FillRawData(const LogicalCpuDump& cpu, cpu_raw_data_t& raw) {
  std::memset(&raw, 0, sizeof(raw));
  std::map<std::uint32_t, std::pair<std::uint32_t, std::uint32_t>> left_out;  // leaf -> subleaves
  for (const auto& [key, regs] : cpu.leaves) {
    const auto [leaf, subleaf] = key;
    if (subleaf == 0 && leaf < MAX_CPUID_LEVEL) Store(raw.basic_cpuid[leaf], regs);
    const std::uint32_t ext = leaf - 0x80000000u;  // wraps above the basic range
    if (subleaf == 0 && ext < MAX_EXT_CPUID_LEVEL) Store(raw.ext_cpuid[ext], regs);
    const std::span<std::uint32_t[NUM_REGS]> rows = SubleafRows(raw, leaf);
    if (subleaf < rows.size()) {
      Store(rows[subleaf], regs);
    } else if (!rows.empty() && regs != CpuidRegs{}) {
      const auto [it, first] = left_out.try_emplace(leaf, subleaf, subleaf);
      if (!first) it->second.second = subleaf;
    }
  }
  std::string text;
  for (const auto& [leaf, range] : left_out) {
    text +=
        range.second == range.first
            ? fmt::format("{}leaf {:X}h subleaf {}", text.empty() ? "" : ", ", leaf, range.first)
            : fmt::format("{}leaf {:X}h subleaves {} to {}", text.empty() ? "" : ", ", leaf,
                          range.first, range.second);
  }
  return text;
}

// Identifies the first logical CPU of the dump at `path`; error text when libcpuid cannot.
std::string IdentifyFile(const std::string& path, cpu_id_t& id) {
  cpu_raw_data_array_t array;
  if (cpuid_deserialize_all_raw_data(&array, path.c_str()) == 0 && array.num_raw > 0) {
    const int ret = cpu_identify(&array.raw[0], &id);
    cpuid_free_raw_data_array(&array);
    if (ret == 0) return {};
    return fmt::format("libcpuid could not identify the CPU: {}", cpuid_error());
  }
  cpuid_free_raw_data_array(&array);
  // A legacy single-CPU dump (basic_cpuid[N]=...) is read by the single-CPU call.
  cpu_raw_data_t raw;
  if (cpuid_deserialize_raw_data(&raw, path.c_str()) != 0) {
    return fmt::format("libcpuid could not read the dump: {}", cpuid_error());
  }
  if (cpu_identify(&raw, &id) != 0) {
    return fmt::format("libcpuid could not identify the CPU: {}", cpuid_error());
  }
  return {};
}

}  // namespace

LibcpuidLayer LibcpuidLive() {
  Silence();
  if (!cpuid_present()) return Unavailable("libcpuid: the CPUID instruction is not available");
  cpu_id_t id;
  if (cpu_identify(nullptr, &id) != 0) {
    return Unavailable(fmt::format("libcpuid could not identify the CPU: {}", cpuid_error()));
  }
  return FromId(id);
}

LibcpuidLayer LibcpuidFromDump(const CpuidDump& dump) {
  Silence();
  if (dump.cpus.empty()) return Unavailable("libcpuid not run: the dump has no logical CPU");
  cpu_raw_data_t raw;
  const std::string left_out = FillRawData(dump.cpus.front(), raw);
  cpu_id_t id;
  if (cpu_identify(&raw, &id) != 0) {
    return Unavailable(fmt::format("libcpuid could not identify the CPU: {}", cpuid_error()));
  }
  LibcpuidLayer layer = FromId(id);
  if (!left_out.empty()) {
    layer.left_out = fmt::format(
        "libcpuid was not given {} of the dump (more subleaves than its fixed tables hold); "
        "dlcheck's own decoding read them",
        left_out);
  }
  return layer;
}

std::string LibcpuidCanRead(const std::string& path) {
  Silence();
  cpu_id_t id;
  return IdentifyFile(path, id);
}

}  // namespace dlcheck::detect
