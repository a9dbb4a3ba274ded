// SPDX-License-Identifier: Apache-2.0
#pragma once
// oneDNN's check, error and warning lines in plain words: what the caller passed wrong.
//
//   onednn_verbose,primitive,exec:check,primitive,unused primitive execution argument (4113),...
//     -> "the caller passed the scales of the destination (argument 4113) to execute(), and this
//        primitive does not use it: ..."
//   onednn_verbose,v0,primitive,create:check,matmul,dimension src:1 is inconsistent with
//     weights:0,...  -> "the caller's shapes disagree: dimension 1 of src does not match ..."
//
// The messages are oneDNN's (src/common/verbose_msg.hpp, 3.x); a message dlcheck does not know
// has no plain words ("").

#include <string>
#include <string_view>

namespace dlcheck::verbose {

/// An execution argument's number (DNNL_ARG_*, oneapi/dnnl/dnnl_types.h) in words: 1 -> "the
/// source", 80 -> "the scratchpad", 4113 -> "the scales of the destination", 32770 -> "the
/// second input of post-op 0"; "argument N" for a number it does not know.
std::string ArgumentName(long arg);

/// What a diagnostic line of `operation` (`create:check`, `exec:check`, `error`, `warning`,
/// `warn`) says, in plain words, from its message (without its `file:line`); "" for another
/// operation (dispatch reasons have their own column) or a message dlcheck does not know.
std::string PlainWords(std::string_view operation, std::string_view message);

}  // namespace dlcheck::verbose
