// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one table of oneDNN primitive kinds, read by verbose (rules, FLOPs, benchdnn lines, the
// log's notes), profile (kernel names to kinds), whatif (which rebuild a row takes) and the model
// trainers (the names they announce). Header-only and constexpr, like common/onednn_isa.h, so
// every module may use it without a link.
//
//   onednn::KindOf("pooling_v2")              -> Kind::kPooling (oneDNN 2.x's second version)
//   onednn::KindOf("no_such_kind")            -> std::nullopt
//   onednn::IsComputeKind("deconvolution")    -> true (a layer's arithmetic: it has FLOPs)
//   onednn::IsDataMovementKind("concat")      -> true
//   onednn::BenchdnnDriver("inner_product")   -> "ip"
//   onednn::NameOf(Kind::kSoftmax)            -> "softmax" (the name of its first entry)
//   onednn::ImpliedAlgorithm("logsoftmax")    -> "softmax_log"
//
// Sources: oneDNN's include/oneapi/dnnl/dnnl_types.h (dnnl_primitive_kind_t) and
// src/common/verbose.cpp (the names verbose prints, 0.x to 3.x); benchdnn's drivers
// (tests/benchdnn/*/ and its README's list).

#include <array>
#include <cstddef>
#include <optional>
#include <string_view>

namespace dlcheck::onednn {

/// The primitive a verbose name stands for: versions and spellings of one primitive share one.
enum class Kind {
  kConvolution,
  kDeconvolution,
  kInnerProduct,
  kMatmul,
  kReorder,
  kEltwise,
  kSoftmax,
  kPooling,
  kBinary,
  kBatchNormalization,
  kLayerNormalization,
  kGroupNormalization,
  kLrn,
  kResampling,
  kReduction,
  kShuffle,
  kSum,
  kConcat,
  kPrelu,
  kRnn,
  kSdpa,      ///< scaled dot-product attention (3.x, GPU lines so far)
  kGemmApi,   ///< a call of oneDNN's BLAS functions (dnnl_sgemm, ...), logged like a primitive
  kExternal,  ///< `exec:external`: a kernel of another library (ACL) timed by oneDNN (3.2+)
  kUkernel,   ///< a micro-kernel call (3.6+ `ukernel` lines): brgemm, transform (pack_B)
};

/// What a kind's work is.
enum class KindRole {
  kCompute,       ///< a layer's arithmetic on weights: convolution, deconvolution, inner
                  ///< product, matmul
  kDataMovement,  ///< copies or combines tensors: reorder, sum, concat, shuffle
  kOther,         ///< element-wise, normalisation, pooling ...: memory-bound layer work
};

/// One name oneDNN's verbose prints for a primitive kind.
struct PrimitiveKind {
  std::string_view name;    ///< as verbose prints it (`pooling_v2`, `logsoftmax`)
  Kind kind;                ///< the primitive it is
  KindRole role;            ///< compute, data movement or other
  std::string_view driver;  ///< benchdnn's driver for it ("" where benchdnn has none)
  /// The algorithm the name itself implies (`logsoftmax` is softmax's `softmax_log`); "" where
  /// the line's `alg:` says it.
  std::string_view algorithm = {};
};

/// oneDNN 2.x's second versions of pooling and softmax, as its verbose names them (the model
/// trainers announce their layers so).
inline constexpr std::string_view kPoolingV2 = "pooling_v2";
inline constexpr std::string_view kSoftmaxV2 = "softmax_v2";

/// Every primitive kind name dlcheck knows. The first entry of each Kind is its name (NameOf).
inline constexpr std::array kPrimitiveKinds = {
    PrimitiveKind{"convolution", Kind::kConvolution, KindRole::kCompute, "conv"},
    PrimitiveKind{"deconvolution", Kind::kDeconvolution, KindRole::kCompute, "deconv"},
    PrimitiveKind{"inner_product", Kind::kInnerProduct, KindRole::kCompute, "ip"},
    PrimitiveKind{"matmul", Kind::kMatmul, KindRole::kCompute, "matmul"},
    PrimitiveKind{"reorder", Kind::kReorder, KindRole::kDataMovement, "reorder"},
    PrimitiveKind{"eltwise", Kind::kEltwise, KindRole::kOther, "eltwise"},
    PrimitiveKind{"softmax", Kind::kSoftmax, KindRole::kOther, "softmax"},
    PrimitiveKind{kSoftmaxV2, Kind::kSoftmax, KindRole::kOther, "softmax"},
    PrimitiveKind{"logsoftmax", Kind::kSoftmax, KindRole::kOther, "softmax", "softmax_log"},
    PrimitiveKind{"pooling", Kind::kPooling, KindRole::kOther, "pool"},
    PrimitiveKind{kPoolingV2, Kind::kPooling, KindRole::kOther, "pool"},
    PrimitiveKind{"binary", Kind::kBinary, KindRole::kOther, "binary"},
    PrimitiveKind{"batch_normalization", Kind::kBatchNormalization, KindRole::kOther, "bnorm"},
    PrimitiveKind{"layer_normalization", Kind::kLayerNormalization, KindRole::kOther, "lnorm"},
    PrimitiveKind{"group_normalization", Kind::kGroupNormalization, KindRole::kOther, "gnorm"},
    PrimitiveKind{"lrn", Kind::kLrn, KindRole::kOther, "lrn"},
    PrimitiveKind{"resampling", Kind::kResampling, KindRole::kOther, "resampling"},
    PrimitiveKind{"reduction", Kind::kReduction, KindRole::kOther, "reduction"},
    PrimitiveKind{"shuffle", Kind::kShuffle, KindRole::kDataMovement, "shuffle"},
    PrimitiveKind{"sum", Kind::kSum, KindRole::kDataMovement, "sum"},
    PrimitiveKind{"concat", Kind::kConcat, KindRole::kDataMovement, "concat"},
    PrimitiveKind{"prelu", Kind::kPrelu, KindRole::kOther, "prelu"},
    // Counted in FLOPs, but not a compute kind: its cells are kernels of their own, and the
    // compute rules (a hot kernel's ISA, weights in the layout `any` picks) are about the four.
    PrimitiveKind{"rnn", Kind::kRnn, KindRole::kOther, "rnn"},
    // Cell names some builds print instead of `rnn` (benchdnn runs them as rnn).
    PrimitiveKind{"lstm", Kind::kRnn, KindRole::kOther, "rnn"},
    PrimitiveKind{"gru", Kind::kRnn, KindRole::kOther, "rnn"},
    // Logged like primitives, reproduced by no benchdnn driver (benchdnn runs sdpa as a graph).
    PrimitiveKind{"sdpa", Kind::kSdpa, KindRole::kOther, ""},
    PrimitiveKind{"gemm_api", Kind::kGemmApi, KindRole::kOther, ""},
    PrimitiveKind{"external", Kind::kExternal, KindRole::kOther, ""},
    // oneDNN's micro-kernels (the `ukernel` api, 3.6+): called once per tile by the framework's
    // own loops (PyTorch's CPU flash attention, inductor's GEMM templates), not primitives.
    PrimitiveKind{"brgemm", Kind::kUkernel, KindRole::kOther, ""},
    PrimitiveKind{"transform", Kind::kUkernel, KindRole::kOther, ""},
    // ZenDNN 5.1+'s profiler names its operators so (`MatMul operator execute - ...`); its
    // other lines print oneDNN's names. No benchdnn driver: benchdnn runs oneDNN, not ZenDNN.
    PrimitiveKind{"MatMul", Kind::kMatmul, KindRole::kCompute, ""},
    PrimitiveKind{"Reorder", Kind::kReorder, KindRole::kDataMovement, ""},
    PrimitiveKind{"SDPA Encoder", Kind::kSdpa, KindRole::kOther, ""},
    // ONNX Runtime's operators (its profile's op_name; the ONNX operator names, and the
    // contrib ops its graph optimiser fuses them into, `FusedConv` or the NCHWc layout's
    // `ReorderInput`/`ReorderOutput`). Its own name stays the row's primitive.
    PrimitiveKind{"Conv", Kind::kConvolution, KindRole::kCompute, ""},
    PrimitiveKind{"FusedConv", Kind::kConvolution, KindRole::kCompute, ""},
    PrimitiveKind{"QLinearConv", Kind::kConvolution, KindRole::kCompute, ""},
    PrimitiveKind{"ConvTranspose", Kind::kDeconvolution, KindRole::kCompute, ""},
    PrimitiveKind{"Gemm", Kind::kMatmul, KindRole::kCompute, ""},
    PrimitiveKind{"FusedMatMul", Kind::kMatmul, KindRole::kCompute, ""},
    PrimitiveKind{"MatMulInteger", Kind::kMatmul, KindRole::kCompute, ""},
    PrimitiveKind{"QLinearMatMul", Kind::kMatmul, KindRole::kCompute, ""},
    PrimitiveKind{"MatMulNBits", Kind::kMatmul, KindRole::kCompute, ""},
    PrimitiveKind{"ReorderInput", Kind::kReorder, KindRole::kDataMovement, ""},
    PrimitiveKind{"ReorderOutput", Kind::kReorder, KindRole::kDataMovement, ""},
    PrimitiveKind{"Relu", Kind::kEltwise, KindRole::kOther, ""},
    PrimitiveKind{"Softmax", Kind::kSoftmax, KindRole::kOther, ""},
    PrimitiveKind{"MaxPool", Kind::kPooling, KindRole::kOther, ""},
    PrimitiveKind{"AveragePool", Kind::kPooling, KindRole::kOther, ""},
    PrimitiveKind{"GlobalAveragePool", Kind::kPooling, KindRole::kOther, ""},
    PrimitiveKind{"BatchNormalization", Kind::kBatchNormalization, KindRole::kOther, ""},
    PrimitiveKind{"LayerNormalization", Kind::kLayerNormalization, KindRole::kOther, ""},
    PrimitiveKind{"Concat", Kind::kConcat, KindRole::kDataMovement, ""},
};

/// The index of a verbose kind name's entry; kPrimitiveKinds.size() for a name the table lacks.
/// (An index, not a pointer: GCC's sanitizers make a pointer's comparison with nullptr no
/// constant expression, and the static_asserts below are evaluated in every build.)
constexpr std::size_t IndexOfKind(std::string_view name) {
  std::size_t i = 0;
  while (i < kPrimitiveKinds.size() && kPrimitiveKinds[i].name != name) ++i;
  return i;
}

/// The primitive a verbose kind name stands for; nullopt for a name the table lacks.
constexpr std::optional<Kind> KindOf(std::string_view name) {
  const std::size_t i = IndexOfKind(name);
  return i < kPrimitiveKinds.size() ? std::optional<Kind>(kPrimitiveKinds[i].kind) : std::nullopt;
}

/// Whether a verbose kind name stands for `kind` (`IsKind("pooling_v2", Kind::kPooling)`).
constexpr bool IsKind(std::string_view name, Kind kind) {
  return KindOf(name) == kind;
}

/// The name of a kind: its first entry's (`softmax`, never `softmax_v2`).
constexpr std::string_view NameOf(Kind kind) {
  for (const PrimitiveKind& k : kPrimitiveKinds) {
    if (k.kind == kind) return k.name;
  }
  return {};
}

/// A layer's arithmetic on weights (convolution, deconvolution, inner product, matmul): the
/// kinds whose kernel is the one that matters.
constexpr bool IsComputeKind(std::string_view name) {
  const std::size_t i = IndexOfKind(name);
  return i < kPrimitiveKinds.size() && kPrimitiveKinds[i].role == KindRole::kCompute;
}

/// Copies or combines tensors rather than computing a layer: reorder, sum, concat, shuffle.
constexpr bool IsDataMovementKind(std::string_view name) {
  const std::size_t i = IndexOfKind(name);
  return i < kPrimitiveKinds.size() && kPrimitiveKinds[i].role == KindRole::kDataMovement;
}

/// benchdnn's driver for a verbose kind name; "" where benchdnn has none.
constexpr std::string_view BenchdnnDriver(std::string_view name) {
  const std::size_t i = IndexOfKind(name);
  return i < kPrimitiveKinds.size() ? kPrimitiveKinds[i].driver : std::string_view{};
}

/// The algorithm a verbose kind name implies ("softmax_log" for `logsoftmax`); "" for most.
constexpr std::string_view ImpliedAlgorithm(std::string_view name) {
  const std::size_t i = IndexOfKind(name);
  return i < kPrimitiveKinds.size() ? kPrimitiveKinds[i].algorithm : std::string_view{};
}

static_assert(NameOf(Kind::kPooling) == "pooling" && IsKind("softmax_v2", Kind::kSoftmax));
static_assert(BenchdnnDriver("inner_product") == "ip" && !KindOf("nonsense").has_value());

}  // namespace dlcheck::onednn
