// SPDX-License-Identifier: Apache-2.0
#include "verbose/isa.h"

#include <array>

#include "common/onednn_isa.h"

namespace dlcheck::verbose {
namespace {

// An ISA suffix oneDNN has printed in an implementation name (FORMATS.md §8), x64, AArch64 and
// RISC-V: any row of the shared table but dlcheck's own "none". `any`, `uni`, `undef` and `blk`
// are deliberately absent: they name no ISA.
bool IsIsaName(std::string_view token) {
  const onednn::Isa* isa = onednn::FindIsa(token);
  return isa != nullptr && isa->arch != onednn::IsaArch::kNone;
}

// The ISA inside one `:`-token: the token itself, or a `jit_xf16_<isa>` style suffix.
std::string_view IsaInToken(std::string_view token) {
  if (IsIsaName(token)) return token;
  for (std::size_t pos = token.find('_'); pos != std::string_view::npos;
       pos = token.find('_', pos + 1)) {
    std::string_view tail = token.substr(pos + 1);
    if (IsIsaName(tail)) return tail;
  }
  return {};
}

std::string_view IsaInPart(std::string_view part) {
  std::string_view found;
  while (!part.empty()) {
    const std::size_t colon = part.find(':');
    std::string_view token = part.substr(0, colon);
    if (std::string_view isa = IsaInToken(token); !isa.empty()) found = isa;
    if (colon == std::string_view::npos) break;
    part.remove_prefix(colon + 1);
  }
  return found;
}

bool HasToken(std::string_view name, std::string_view token) {
  while (true) {
    const std::size_t colon = name.find(':');
    if (name.substr(0, colon) == token) return true;
    if (colon == std::string_view::npos) return false;
    name.remove_prefix(colon + 1);
  }
}

std::string_view FirstToken(std::string_view name) {
  return name.substr(0, name.find(':'));
}

constexpr std::string_view kRefReason =
    "reference implementation: plain C++ loops without hand-written vector code";
constexpr std::string_view kSimpleReason =
    "generic C++ implementation: portable loops, vectorised by the compiler at best";

using M = ImplClassRule::Match;
constexpr std::array<ImplClassRule, 27> kRules = {{
    // dlcheck's own scalar kernels (the `verbose` command's reference and fallback backend).
    {M::kFirstPrefix, "dlcheck", ImplClass::kScalar,
     "dlcheck's scalar kernels: plain C++ loops, the numerical reference"},
    {M::kToken, "ref", ImplClass::kScalar, kRefReason},  // ref:any, gemm:ref, ocl:ref:any, jit:ref
    {M::kFirstPrefix, "ref_", ImplClass::kScalar, kRefReason},  // ref_int8:any, ref_grouped:any
    {M::kFirstSuffix, "_ref", ImplClass::kScalar, kRefReason},  // bnorm_ref, lrn_ref, prelu_ref
    {M::kToken, "blas", ImplClass::kExternal,
     "vendor BLAS (Intel MKL or OpenBLAS cblas): vectorised inside the library, ISA not shown"},
    {M::kToken, "acl", ImplClass::kAcl,
     "Arm Compute Library: NEON/SVE kernels inside the library, ISA not shown"},
    {M::kFirstSuffix, "_acl", ImplClass::kAcl, "Arm Compute Library kernel"},
    {M::kToken, "cudnn", ImplClass::kExternal, "NVIDIA cuDNN"},
    {M::kToken, "cublaslt", ImplClass::kExternal, "NVIDIA cuBLASLt"},
    {M::kToken, "miopen", ImplClass::kExternal, "AMD MIOpen"},
    {M::kFirstPrefix, "zen", ImplClass::kExternal, "AMD ZenDNN"},
    // ZenDNN 5.1+'s kernels (its profiler's `kernel:` field): AOCL's, oneDNN's, or its own
    // reference loops.
    {M::kFirstPrefix, "aocl", ImplClass::kExternal,
     "AMD AOCL (BLIS/DLP) kernels called by ZenDNN: ISA not shown"},
    {M::kFirstPrefix, "onednn", ImplClass::kExternal, "oneDNN kernels called by ZenDNN"},
    {M::kFirstPrefix, "reference", ImplClass::kScalar, kRefReason},
    // ONNX Runtime's profile names the execution provider that ran a node
    // (`CPUExecutionProvider`: its MLAS kernels; `DnnlExecutionProvider`: oneDNN's).
    {M::kFirstSuffix, "ExecutionProvider", ImplClass::kExternal,
     "an ONNX Runtime execution provider: vectorised inside it, ISA not shown"},
    {M::kGemmJit, "gemm", ImplClass::kGemm,
     "lowered to oneDNN's JIT GEMM: fast kernel, but im2col and extra copies around it"},
    {M::kFirstPrefix, "simple", ImplClass::kScalar, kSimpleReason},  // simple:any, simple_nchw
    {M::kFirstPrefix, "nchw_pooling", ImplClass::kScalar, kSimpleReason},  // 0.x pooling
    {M::kFirstPrefix, "nhwc_pooling", ImplClass::kScalar, kSimpleReason},
    {M::kFirstPrefix, "ncsp_", ImplClass::kScalar, kSimpleReason},  // ncsp_bnorm, ncsp_gnorm
    {M::kFirstPrefix, "nspc_", ImplClass::kScalar, kSimpleReason},  // nspc_bnorm
    {M::kFirstPrefix, "lnorm_simple", ImplClass::kScalar, kSimpleReason},
    {M::kFirstPrefix, "rnn_data_reorder", ImplClass::kScalar, kSimpleReason},
    {M::kFirstPrefix, "rnn_weights_reorder", ImplClass::kScalar, kSimpleReason},
    {M::kFirstPrefix, "reorder-based", ImplClass::kScalar, kSimpleReason},
    {M::kFirstPrefix, "multi", ImplClass::kScalar, kSimpleReason},
    {M::kFirstPrefix, "wino_reorder", ImplClass::kScalar, kSimpleReason},
}};

bool Matches(const ImplClassRule& rule, std::string_view name) {
  const std::string_view first = FirstToken(name);
  switch (rule.match) {
    case M::kToken:
      return HasToken(name, rule.pattern);
    case M::kFirstPrefix:
      return first.starts_with(rule.pattern);
    case M::kFirstSuffix:
      return first.ends_with(rule.pattern);
    case M::kGemmJit: {
      std::string_view rest = name;
      if (rest.starts_with("x64:")) rest.remove_prefix(4);
      return FirstToken(rest).starts_with("gemm") && HasToken(rest, "jit");
    }
  }
  return false;
}

bool Contains(std::string_view text, std::string_view what) {
  return text.find(what) != std::string_view::npos;
}

}  // namespace

std::string_view IsaOf(std::string_view implementation) {
  std::string_view found;
  while (!implementation.empty()) {
    const std::size_t plus = implementation.find('+');
    if (std::string_view isa = IsaInPart(implementation.substr(0, plus)); !isa.empty()) {
      found = isa;
    }
    if (plus == std::string_view::npos) break;
    implementation.remove_prefix(plus + 1);
  }
  return found;
}

std::span<const ImplClassRule> ImplClassRules() {
  return kRules;
}

Classification ClassifyImplementation(std::string_view implementation) {
  std::string_view part = implementation;
  if (const std::size_t plus = part.rfind('+'); plus != std::string_view::npos) {
    part = part.substr(plus + 1);
  }
  if (part.empty()) return {};
  for (const ImplClassRule& rule : kRules) {
    if (Matches(rule, part)) return {rule.impl_class, rule.reason};
  }
  const std::string_view first = FirstToken(part);
  if (!IsaInPart(part).empty() || first.starts_with("jit") || first.starts_with("brg") ||
      first.starts_with("brd") || first.starts_with("bnorm_") || first.starts_with("lrn_") ||
      first == "ocl" || first == "ngen" || first == "sycl" || first == "gpu") {
    return {ImplClass::kJit, "hand-written vector code (JIT or intrinsics)"};
  }
  return {};
}

namespace {

// Header texts the ISA table does not hold word for word: older releases' spellings ("Intel(R)
// Advanced Vector Extensions 2"), AVX10.1's, and other architectures'. Order matters: the most
// specific descriptions first.
std::string_view IsaFromOtherHeaderText(std::string_view text) {
  if (Contains(text, "AVX10.2") || Contains(text, "AVX 10.2")) {
    return Contains(text, "AMX") ? "avx10_2_amx_2" : "avx10_2";
  }
  const bool amx_fp16 = Contains(text, "AMX with bfloat16, float16");
  if (Contains(text, "AVX10.1") || Contains(text, "AVX 10.1")) {
    if (amx_fp16) return "avx10_1_512_amx_fp16";
    return Contains(text, "AMX") ? "avx10_1_512_amx" : "avx10_1_512";
  }
  if (Contains(text, "AMX")) return amx_fp16 ? "avx512_core_amx_fp16" : "avx512_core_amx";
  const bool avx512 = Contains(text, "AVX-512") || Contains(text, "AVX512");
  if (avx512) {
    if (Contains(text, "4FMAPS")) return "avx512_mic_4ops";
    if (Contains(text, "AVX512ER")) return "avx512_mic";
    if (Contains(text, "with float16")) return "avx512_core_fp16";
    if (Contains(text, "bfloat16")) return "avx512_core_bf16";
    if (Contains(text, "DL Boost")) return "avx512_core_vnni";
    if (Contains(text, "AVX512BW")) return "avx512_core";
    return "avx512_common";
  }
  if (Contains(text, "AVX2") || Contains(text, "Advanced Vector Extensions 2")) {
    if (Contains(text, "bfloat16")) return "avx2_vnni_2";
    if (Contains(text, "DL Boost")) return "avx2_vnni";
    return "avx2";
  }
  if (Contains(text, "AVX") || Contains(text, "Advanced Vector Extensions")) return "avx";
  if (Contains(text, "SSE4") || Contains(text, "Streaming SIMD Extensions 4")) return "sse41";
  if (Contains(text, "SVE (512")) return "sve_512";
  if (Contains(text, "SVE (256")) return "sve_256";
  if (Contains(text, "SVE (128")) return "sve_128";
  if (Contains(text, "Advanced SIMD")) return "asimd";
  return {};
}

}  // namespace

std::string_view IsaFromHeaderText(std::string_view text) {
  if (const std::string_view isa = onednn::IsaOfHeaderText(text); !isa.empty()) return isa;
  return IsaFromOtherHeaderText(text);
}

}  // namespace dlcheck::verbose
