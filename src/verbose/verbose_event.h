// SPDX-License-Identifier: Apache-2.0
#pragma once
// The records of a oneDNN verbose log: one VerboseEvent per marker line, the MemoryDesc of each
// tensor argument, and the LogHeader gathered from `info` lines. Plain structs, no I/O.
//
//   onednn_verbose,exec,cpu,convolution,jit:avx512_core,forward_training,src_f32::blocked:...
//   -> {operation=kExec, engine="cpu", primitive="convolution", implementation="jit:avx512_core",
//       isa="avx512_core", impl_class=kJit, ..., time_ms=0.048}

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "verbose/dialect.h"

namespace dlcheck::verbose {

/// The generation of the verbose format, told by the marker and the first fields (FORMATS.md §0).
enum class Era {
  kUnknown,
  kMkldnn0,          ///< A: `mkldnn_verbose`, MKL-DNN 0.x, no engine field, no attributes
  kMkldnn1,          ///< B: `mkldnn_verbose` with engine, MKL-DNN 1.0.x, no attributes
  kDnnl,             ///< C: `dnnl_verbose`, DNNL 1.1 - oneDNN 2.4
  kOnednn,           ///< D: `onednn_verbose`, oneDNN 2.5 - 3.2, no component field
  kOnednnComponent,  ///< E: `onednn_verbose,primitive,...` (a component field), oneDNN 3.3 - 3.5
  kOnednnV1,         ///< F: `onednn_verbose,v1,...`, oneDNN 3.6 and later
  kOnednnGraph,      ///< G: `onednn_graph_verbose`, oneDNN Graph 3.0 - 3.2
  kZendnn,           ///< `zendnn_verbose`: ZenDNN's oneDNN-2.x-shaped lines (ZENDNN_VERBOSE)
  kZendnnPrimitive,  ///< `zendnn_primitive_execute,`: ZENDNN_PRIMITIVE_LOG_ENABLE, ZenDNN 4.x-5.x
  kZendnnProfile,    ///< `[PROF   ]...operator execute - `: ZenDNN 5.1+'s profiler (ZENDNNL_*)
  kOrtProfile,       ///< `{"cat" : "Node",...}`: ONNX Runtime's profile, a node's run
};

/// One era: its short stable name and the dialect family whose version it is.
struct EraRow {
  Era era;
  std::string_view name;
  Family family;
};

/// The one table of eras (kUnknown is none of them).
inline constexpr std::array kEras = {
    EraRow{Era::kMkldnn0, "mkldnn0", Family::kMkldnn},
    EraRow{Era::kMkldnn1, "mkldnn1", Family::kMkldnn},
    EraRow{Era::kDnnl, "dnnl", Family::kDnnl},
    EraRow{Era::kOnednn, "onednn", Family::kOnednn},
    EraRow{Era::kOnednnComponent, "onednn_api", Family::kOnednn},
    EraRow{Era::kOnednnV1, "onednn_v1", Family::kOnednn},
    EraRow{Era::kOnednnGraph, "onednn_graph", Family::kGraph},
    EraRow{Era::kZendnn, "zendnn", Family::kZendnn},
    EraRow{Era::kZendnnPrimitive, "zendnn_primitive", Family::kZendnnPrimitive},
    EraRow{Era::kZendnnProfile, "zendnnl_profile", Family::kZendnnProfile},
    EraRow{Era::kOrtProfile, "onnxruntime_profile", Family::kOrtProfile},
};

/// Short stable name of an era: "mkldnn0", "onednn_api", ...; "unknown" for kUnknown.
constexpr std::string_view EraName(Era era) {
  for (const EraRow& row : kEras) {
    if (row.era == era) return row.name;
  }
  return "unknown";
}

/// The dialect family an era's lines belong to (the eras of a family are its versions).
constexpr Family FamilyOf(Era era) {
  for (const EraRow& row : kEras) {
    if (row.era == era) return row.family;
  }
  return Family::kNone;
}

/// The era of a family that has only one; kUnknown for a family of several (MKL-DNN's and
/// oneDNN's, told apart by their fields: line_parser.cpp's EraOf).
constexpr Era OnlyEraOf(Family family) {
  Era only = Era::kUnknown;
  int count = 0;
  for (const EraRow& row : kEras) {
    if (row.family != family) continue;
    only = row.era;
    ++count;
  }
  return count == 1 ? only : Era::kUnknown;
}
static_assert(OnlyEraOf(Family::kZendnnProfile) == Era::kZendnnProfile &&
              OnlyEraOf(Family::kOnednn) == Era::kUnknown);

/// The library of an era's lines (the dialect table's `library`).
constexpr Library LibraryOf(Era era) {
  return DialectOf(FamilyOf(era)).library;
}

/// Whether an era's time is its line's last field, where the line memo (line_memo.h) reads it
/// (the dialect table's `time_last_field`).
constexpr bool TimeIsLastField(Era era) {
  return DialectOf(FamilyOf(era)).time_last_field;
}

// Every era belongs to a family of the dialect table.
constexpr bool EveryEraHasADialect() {
  for (const EraRow& row : kEras) {
    if (DialectOf(row.family).family != row.family) return false;
  }
  return true;
}
static_assert(EveryEraHasADialect());

enum class Operation {
  kCreate,        ///< a primitive was created (or found in the cache: see cache)
  kCreateNested,  ///< `create_nested:*`, a primitive created inside another one (3.3+)
  kExec,          ///< a primitive ran
  kInfo,          ///< a header line (version, runtime, ISA, template)
  kDiagnostic     ///< create:check, create:dispatch, exec:check, error, warning, ...
};

/// "create", "create_nested", "exec", "info", "diagnostic".
std::string_view OperationName(Operation op);

/// The class of an implementation: how it relates to vector code (see isa.h for the table and
/// its reasons). Reports call it the `fallback` column, whose `scalar` value flags fallbacks.
enum class ImplClass {
  kUnknown,   ///< not a primitive line, or an empty implementation name
  kJit,       ///< hand-written vector code (JIT or intrinsics), ISA known or inferred
  kGemm,      ///< lowered to oneDNN's JIT GEMM (im2col and copies around a fast kernel)
  kScalar,    ///< reference and simple implementations: plain C++ loops
  kExternal,  ///< an external library (BLAS, cuDNN, ZenDNN, ...): ISA not visible
  /// The Arm Compute Library behind oneDNN on AArch64 (`acl`, `gemm:acl`, `lowp_gemm:acl`,
  /// `*_acl`): NEON/SVE kernels inside ACL, ISA not visible; its own class, since on AArch64 it
  /// is the path oneDNN means to take for matmuls and convolutions.
  kAcl,
};

/// "unknown", "jit", "gemm", "scalar", "external", "acl".
std::string_view ImplClassName(ImplClass impl_class);
/// The class ImplClassName calls `name`; kUnknown for any other text.
ImplClass ImplClassFromName(std::string_view name);

/// How far a class falls back from hand-written vector code, the one order of the classes:
/// jit 0, gemm 1, external and acl 2 (a library's vector kernels), scalar 3. nullopt for
/// kUnknown, which has no place in it.
constexpr std::optional<int> FallbackDepth(ImplClass impl_class) {
  switch (impl_class) {
    case ImplClass::kJit:
      return 0;
    case ImplClass::kGemm:
      return 1;
    case ImplClass::kExternal:
    case ImplClass::kAcl:
      return 2;
    case ImplClass::kScalar:
      return 3;
    case ImplClass::kUnknown:
      break;
  }
  return std::nullopt;
}

/// One tensor argument of a primitive: `src_f32::blocked:abcd:f0` (1.0-3.1),
/// `src_f32:a:blocked:aBcd16b::f0` (3.2-3.5), `src:f32::blocked:ab::f0` (3.6+), `fsrc:nchw` (0.x).
struct MemoryDesc {
  std::string name;         ///< src, wei, bia, dst, data, diff, ws, src_layer, ...
  std::string data_type;    ///< f32, bf16, s8, ...; empty when the era does not print it
  std::string properties;   ///< padding/flags letters: `p`, `a`, `ap`, ... (may be empty)
  std::string format_kind;  ///< blocked, any, undef, wino, opaque, ...
  std::string tag;          ///< abcd, aBcd16b, nChw8c (0.x), ...
  std::string strides;      ///< 3.2+ strides slot, empty when dense
  std::string flags;        ///< f0, f8:zpm1, f0_mask4, ...
};

/// One oneDNN verbose line. Strings are reused across lines by the parser; copy to keep.
struct VerboseEvent {
  std::uint64_t line = 0;  ///< 1-based physical line number in its input
  Era era = Era::kUnknown;
  int format_version = 0;  ///< the `vN` token (3.6+), 0 when absent
  Operation operation = Operation::kExec;
  /// For creates: the cache state after `create:` (`cache_miss`, `cache_hit`, ...), empty for a
  /// plain `create` (0.x - 1.4) and for every other operation.
  std::string cache_state;
  /// For diagnostics: the operation as printed (`create:dispatch`, `exec:check`, `error`, the
  /// `acl` of a legacy ACL line); empty for creates and execs.
  std::string operation_text;
  std::string component;  ///< the api field of 3.3+ (`primitive`, `graph`, ...), else empty
  std::string engine;     ///< cpu, gpu, cpu:0, cpu2gpu, ...
  std::string primitive;  ///< convolution, reorder, pooling_v2, ... (kept as printed)
  std::string implementation;
  std::string isa;            ///< from the implementation name, or the header's ISA if inferred
  bool isa_inferred = false;  ///< true when `isa` came from the log header, not the name
  ImplClass impl_class = ImplClass::kUnknown;
  std::string prop_kind;
  std::string memory_descriptors;  ///< the raw field, space separated
  std::string attributes;          ///< the raw field, trailing blanks removed
  std::string auxiliary;
  std::string problem;
  std::optional<double> time_ms;     ///< absent for diagnostics and time-less lines
  std::optional<double> timestamp;   ///< ms since the epoch (2.1+ with timestamps on)
  std::string message;               ///< diagnostics: the text (with `file:line` if printed)
  std::optional<std::string> layer;  ///< the dlcheck model layer that ran it (verbose command)

  /// True for a create that found its primitive in the cache (`create:cache_hit`, and the
  /// `cache_hit` state of nested and 3.x creates).
  bool IsCacheHit() const {
    return (operation == Operation::kCreate || operation == Operation::kCreateNested) &&
           cache_state.find("hit") != std::string::npos;
  }
};

/// What the `info` lines said about the library and the machine.
struct LogHeader {
  std::string library_version;     ///< "oneDNN v2.6.3 (commit N/A)"
  std::string runtime;             ///< "OpenMP"
  std::optional<int> threads;      ///< nthr
  std::string isa;                 ///< the long ISA text: "Intel AVX-512 with Intel DL Boost ..."
  std::string isa_short;           ///< the ISA name it maps to: "avx512_core_bf16", "" if unknown
  std::vector<std::string> other;  ///< the other info lines (gpu runtime, engines, ...)
  /// ZenDNN's version line (`ZENDNN v5.0.0 (commit ...)`), apart from oneDNN's: a log may hold
  /// both libraries' headers.
  std::string zendnn_version;
  /// The major version in `library_version` (`oneDNN v3.10.2 (commit ...)`, `DNNL v1.6.0`); 0
  /// when it names none.
  int MajorVersion() const { return MajorOfLibraryVersion(library_version); }
  static int MajorOfLibraryVersion(std::string_view text) {
    const std::size_t v = text.find(" v");
    if (v == std::string_view::npos || v + 2 >= text.size()) return 0;
    const char digit = text[v + 2];
    return digit >= '0' && digit <= '9' ? digit - '0' : 0;
  }
  bool operator==(const LogHeader&) const = default;
};

}  // namespace dlcheck::verbose
