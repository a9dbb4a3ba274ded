// SPDX-License-Identifier: Apache-2.0
#pragma once
// The rules that name what a PrimitiveStats row means, defined once and used by the aggregator's
// notes, `check` and `dispatch`.
//
//   IsComputePrimitive(row)  convolution, deconvolution, inner_product, matmul: the layers'
//                            arithmetic (common/primitive_kinds.h says which kinds)
//   IsDlcheckKernel(row)     `dlcheck:scalar`: dlcheck's own scalar kernels ran it
//   IsScalarFallback(row)    oneDNN ran it on reference or plain C++ code (`ref:any`, ...)
//   IsScalarFinding(row, s)  whether a finding about scope `s` names that fallback
//
// dlcheck's kernels are not a oneDNN fallback: when they run a model, the worker announces each
// layer as a model fallback, and that is reported once, from those announcements.

#include <string_view>

#include "verbose/primitive_stats.h"

namespace dlcheck::verbose {

/// True for the primitive kinds that carry a layer's arithmetic on weights: convolution,
/// deconvolution, inner_product, matmul (onednn::IsComputeKind).
bool IsComputePrimitive(std::string_view primitive);
/// IsComputePrimitive of the row's primitive kind.
bool IsComputePrimitive(const PrimitiveStats& row);

/// True for the primitive kinds that copy or combine tensors rather than compute a layer:
/// reorder, sum, concat, shuffle (onednn::IsDataMovementKind).
bool IsDataMovementPrimitive(std::string_view primitive);

/// True for a reorder (the kind whose rows copy one layout into another).
bool IsReorder(std::string_view primitive);

/// True when dlcheck's own scalar kernels ran the row (implementation `dlcheck:scalar`).
bool IsDlcheckKernel(const PrimitiveStats& row);

/// True when oneDNN ran the row on scalar code: reference or plain C++ implementations
/// (ImplClass scalar), and not dlcheck's own kernels.
bool IsScalarFallback(const PrimitiveStats& row);

/// Which scalar fallbacks a finding is about: the one filter of the aggregator's note, `check`'s
/// item and the sweeps' `cap-scalar-fallback`.
enum class ScalarScope {
  kEveryRow,      ///< the log's note: every scalar row, whatever it did
  kCompute,       ///< `check`: the layers' arithmetic (IsComputePrimitive) on scalar code
  kExecutedWork,  ///< a sweep's cap: executed rows that compute, not data movement
};
/// IsScalarFallback, restricted to the rows `scope` is about.
bool IsScalarFinding(const PrimitiveStats& row, ScalarScope scope);

}  // namespace dlcheck::verbose
