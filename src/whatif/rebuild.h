// SPDX-License-Identifier: Apache-2.0
#pragma once
// A primitive of a verbose log rebuilt with the oneDNN dlcheck links (2.6.3): the descriptor of
// its operation from the kind, propagation, memory descriptors, attributes, auxiliary fields and
// problem the line printed, ready to create and execute (measure.h).
//
//   onednn_verbose,exec,cpu,convolution,jit:avx512_core,forward_training,
//     src_f32::blocked:abcd:f0 wei_f32:p:blocked:Acdb16a:f0 bia_f32::blocked:a:f0
//     dst_f32:p:blocked:aBcd16b:f0,attr-scratchpad:user ,alg:convolution_direct,
//     mb64_ic1oc20_ih28oh24kh5sh1dh0ph0_iw28ow24kw5sw1dw0pw0
//   -> convolution_forward::desc(forward_training, convolution_direct, src 64x1x28x28 abcd,
//      weights 20x1x5x5 Acdb16a, bias 20, dst 64x20x24x24 aBcd16b, strides 1x1, pads 0x0)
//
// What cannot be rebuilt is a Status whose message says why (a kind not rebuilt yet, an
// attribute 2.6.3 cannot express, a run-time dimension, an internal layout), never a guess.

#include <dnnl.hpp>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "verbose/primitive_stats.h"

namespace dlcheck::whatif {

/// How the rebuild departs from the log.
struct RebuildSettings {
  /// Every tensor at format `any`: the layouts the implementation prefers.
  bool layouts_any = false;
  /// "" as logged; `bf16`, `f16` (every floating tensor but the bias) or `int8` (u8 source, s8
  /// weights, f32 bias and destination) for a compute primitive.
  std::string data_type;
};

/// A rebuilt primitive: its descriptor, positioned on the implementation oneDNN prefers, and
/// what an execution needs besides the descriptor's own arguments.
struct Rebuilt {
  /// The descriptor, iterable over implementations (next_impl); empty for a reorder.
  dnnl::primitive_desc pd;
  /// What the iterator of `pd` points into: its operation descriptor and its forward hint. A
  /// backward pass whose descriptor has a workspace gets it from one execution of the hint.
  std::shared_ptr<const void> op_storage;
  dnnl::primitive_desc hint;
  /// A reorder's descriptor (which has one implementation per pair of layouts).
  dnnl::reorder::primitive_desc reorder_pd;
  /// A sum's or a concat's descriptor: one implementation, no iterator (their C++ classes are
  /// not a dnnl::primitive_desc).
  dnnl::primitive_desc_base single_pd;
  /// Arguments the descriptor does not report (run-time scales, zero points, binary post-op
  /// sources, the sources of a sum or concat), with their descriptors.
  std::map<int, dnnl::memory::desc> extra_args;
  /// The tensors as the log laid them out, by execution argument: what `layouts any` reorders
  /// from and to.
  std::map<int, dnnl::memory::desc> logged;
  /// The argument the primitive writes its result to (DNNL_ARG_DST, DNNL_ARG_DIFF_SRC, ...).
  int output_arg = DNNL_ARG_DST;
  /// The primitive's kind in oneDNN's words, for notes.
  std::string kind;

  /// True for a reorder (reorder_pd holds it), false for the others (pd, or single_pd).
  bool is_reorder = false;
  /// The descriptor of the current implementation.
  const dnnl::primitive_desc_base& current() const {
    if (is_reorder) return reorder_pd;
    if (single_pd) return single_pd;
    return pd;
  }
  /// Its implementation name (`brgemm:avx512_core`).
  std::string implementation() const { return current().impl_info_str(); }
};

/// Rebuilds `row` on `engine` as `settings` say: convolution, deconvolution, inner product,
/// matmul, eltwise, pooling, softmax, batch and layer normalization, lrn, shuffle, resampling
/// prelu and rnn (every cell 2.6.3 has) in every direction; reorder, binary, reduction, sum and
/// concat. The error (an input error whose message is the reason) says why a row cannot be
/// rebuilt: "rnn flags 'O' (oneDNN 3.x) have no 2.6.3 equivalent", "attribute 'attr-fpmath:bf16'
/// has no oneDNN 2.6.3 equivalent here".
StatusOr<Rebuilt> Rebuild(const verbose::PrimitiveStats& row, const dnnl::engine& engine,
                          const RebuildSettings& settings = {});

/// The execution arguments every rebuilt primitive may have, for querying their descriptors.
const std::vector<int>& ExecutionArguments();

}  // namespace dlcheck::whatif
