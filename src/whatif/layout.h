// SPDX-License-Identifier: Apache-2.0
#pragma once
// oneDNN memory descriptors from the texts a verbose line prints: a data type (`f32`, `bf16`,
// `s8`, ...), a format kind (`blocked`, `any`), a tag in oneDNN's letters (`abcd`, `acdb`,
// `aBcd16b`, `ABcd16b16a`, `AB16b64a`, `ABcd4b16a4b`, `debcA16a`) and the extra flags
// (`f0`, `f8:zpm1`, `f1:s8m2`). Any tag is built from its letters, not looked up in a table, so a
// blocked layout oneDNN prints is rebuilt even when the C++ API has no format_tag for it.
//
//   MakeMemoryDesc({64, 20, 24, 24}, {.data_type = "f32", .format_kind = "blocked",
//                                     .tag = "aBcd16b", .flags = "f0"})
//     -> dims 64x20x24x24, padded 64x32x24x24, strides 18432,9216,384,16, inner 16b

#include <dnnl.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "verbose/verbose_event.h"

namespace dlcheck::whatif {

/// The oneDNN data type named `name` as verbose lines print it (`f32`, `bf16`, `f16`, `s8`,
/// `u8`, `s32`); nullopt for any other.
std::optional<dnnl::memory::data_type> DataTypeNamed(std::string_view name);

/// The algorithm named `name` as verbose lines print it (`eltwise_relu`, `pooling_max`,
/// `binary_add`, `convolution_direct`, ...); nullopt for a name 2.6.3 does not know.
std::optional<dnnl::algorithm> AlgorithmNamed(std::string_view name);

/// The descriptor of a tensor of `dims` laid out as `md` says; `data_type` replaces the line's
/// type when not empty. Format kind `any` gives format_tag::any. An error names what cannot be
/// rebuilt (a format kind such as `wino` or `opaque`, a tag whose letters do not match `dims`,
/// an unknown data type, a shape out of verbose/shape_math.h's bounds: a dimension of 0 or above
/// 2^31 - 1, more than 2^48 elements, padded or not).
StatusOr<dnnl::memory::desc> MakeMemoryDesc(const dnnl::memory::dims& dims,
                                            const verbose::MemoryDesc& md,
                                            std::string_view data_type = {});

/// The descriptor of a dense tensor of `dims` in its plain layout (`abcd`), of `type`. `dims` are
/// a checked tensor's (verbose::ShapeProblem ""), or a part of one: its strides do not overflow.
dnnl::memory::desc PlainDesc(const dnnl::memory::dims& dims, dnnl::memory::data_type type);

/// The tag oneDNN would print for `desc` (`aBcd16b`, `abcd`), `any`, or "" for a layout that is
/// not blocked (wino, rnn_packed).
std::string TagOf(const dnnl::memory::desc& desc);

/// The data type name (`f32`).
std::string DataTypeName(dnnl::memory::data_type type);

}  // namespace dlcheck::whatif
