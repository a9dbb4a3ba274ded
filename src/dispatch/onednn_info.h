// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <string>

namespace dlcheck::dispatch {

/// The linked oneDNN's version, e.g. "2.6.3" (with its git hash when known).
std::string OneDnnVersion();
/// The ISA oneDNN dispatches to in this process (`dnnl_get_effective_cpu_isa`), as its
/// ONEDNN_MAX_CPU_ISA name: "avx512_core_bf16", "avx2", ... or "unknown".
std::string OneDnnEffectiveIsa();

}  // namespace dlcheck::dispatch
