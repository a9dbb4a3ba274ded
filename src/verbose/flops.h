// SPDX-License-Identifier: Apache-2.0
#pragma once
// Floating-point work of one execution, from the problem descriptor, where the problem defines it:
// benchdnn's operation count, so that a GFLOP/s figure can be checked against benchdnn's.
//
//   FlopsOf("convolution", "g32mb1_ic32oc32_ih56oh56kh3sh1dh0ph1_iw56ow56kw3sw1dw0pw1")
//     -> 2 * mb * oc * (ic / g) * (the kernel taps, over all output positions, that land inside
//        the input: 54*3 + 2*2 = 166 per row of 56, 166 * 166 in 2D)
//   FlopsOf("matmul", "4x8x16:4x16x32")  -> 2 * 4 * 8 * 32 * 16
//   FlopsOf("reorder", "2x16x7x7")       -> nullopt (no arithmetic to speak of)

#include <optional>
#include <string_view>

namespace dlcheck::verbose {

/// Floating-point operations (a multiply-add counts 2) of one execution of a convolution or
/// deconvolution (groups, strides, dilation, padding, 1D/2D/3D; any direction: forward, backward
/// data and backward weights do the same work; only the kernel taps that land inside the input
/// count, as benchdnn counts them), an inner product or a matmul (with batch and broadcast).
/// An rnn needs its `auxiliary` field (the cell and direction) and propagation:
/// `l1t3mb2sic8slc8dhc8dic8` with `alg:vanilla_lstm direction:unidirectional_left2right` ->
/// 2 * l * dirs * t * mb * gates * dhc * (slc + sic), plus 2 * l * dirs * t * mb * dhc * dic for
/// an lstm's projection (dic != dhc); twice that for a backward pass, as benchdnn counts.
/// nullopt for other kinds and for problems with runtime (`*`) or unparsable dims, or a
/// dimension out of range (above 2^31 - 1, a shape of more than 2^48 elements: shape_math.h).
std::optional<double> FlopsOf(std::string_view primitive, std::string_view problem,
                              std::string_view auxiliary = {}, std::string_view prop_kind = {});

}  // namespace dlcheck::verbose
