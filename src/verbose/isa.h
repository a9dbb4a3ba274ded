// SPDX-License-Identifier: Apache-2.0
#pragma once
// ISA and fallback class of a oneDNN implementation name.
//
//   IsaOf("jit:avx512_core")             -> "avx512_core"
//   IsaOf("x64:gemm_s8u8s32:jit:avx2")  -> "avx2"      (the ISA is not always the last token)
//   IsaOf("jit:uni")                    -> ""          (the caller infers it from the header)
//   ClassifyImplementation("ref:any")   -> {kScalar, "reference implementation: ..."}

#include <span>
#include <string_view>

#include "verbose/verbose_event.h"

namespace dlcheck::verbose {

/// The ISA token in an implementation name (`avx512_core_bf16`, `avx2`, `sve_256`, ...), or an
/// empty view when the name holds none. Composite names (`a:x+b:y`) give the ISA of the last part
/// that has one. The view points into `implementation`.
std::string_view IsaOf(std::string_view implementation);

/// How one implementation-name pattern is classified, and why.
struct ImplClassRule {
  enum class Match {
    kToken,        ///< one of the `:`-separated tokens equals `pattern`
    kFirstPrefix,  ///< the first token starts with `pattern`
    kFirstSuffix,  ///< the first token ends with `pattern`
    kGemmJit,      ///< the name (after `x64:`) starts with a `gemm*` token and holds a `jit` token
  };
  Match match;
  std::string_view pattern;
  ImplClass impl_class;
  std::string_view reason;
};

/// The whole classification table, first match wins (documented in man/dlcheck.1).
std::span<const ImplClassRule> ImplClassRules();

struct Classification {
  ImplClass impl_class = ImplClass::kUnknown;
  std::string_view reason;  ///< the rule's reason, static storage
};

/// Classifies the compute part of an implementation name (the last `+` part of a composite).
/// Names no rule matches are `jit` when they carry an ISA or a `jit`/`brg` token, else unknown.
Classification ClassifyImplementation(std::string_view implementation);

/// The ISA name that a header's long ISA text means (`Intel AVX-512 with Intel DL Boost and
/// bfloat16 support` -> `avx512_core_bf16`), or "" when it names none or is not recognised. The
/// ISA table's header_text column is searched first; older and other spellings after it.
std::string_view IsaFromHeaderText(std::string_view text);

}  // namespace dlcheck::verbose
