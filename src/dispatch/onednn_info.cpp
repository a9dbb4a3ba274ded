// SPDX-License-Identifier: Apache-2.0
#include "dispatch/onednn_info.h"

#include <fmt/format.h>

#include <oneapi/dnnl/dnnl.hpp>

namespace dlcheck::dispatch {

std::string OneDnnVersion() {
  const dnnl_version_t* v = dnnl_version();
  return fmt::format("{}.{}.{}", v->major, v->minor, v->patch);
}

std::string OneDnnEffectiveIsa() {
  // Names as oneDNN's ONEDNN_MAX_CPU_ISA accepts them (dnnl_cpu_isa_t in oneDNN 2.6).
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::all:
      return "all";
    case dnnl::cpu_isa::sse41:
      return "sse41";
    case dnnl::cpu_isa::avx:
      return "avx";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic:
      return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops:
      return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "unknown";
  }
}

}  // namespace dlcheck::dispatch
