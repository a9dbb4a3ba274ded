// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one table of oneDNN's propagation kinds as verbose prints them, with benchdnn's `--dir`
// for each and the short name a narrow table shows (benchdnn's direction in lower case: the
// spelling oneDNN's own tools use for them). Header-only and constexpr, like the kinds table.
//
//   onednn::BenchdnnDirection("backward_weights")   -> "BWD_W"
//   onednn::ShortPropagation("backward_weights")    -> "bwd_w"
//   onednn::ShortPropagation("undef")               -> "undef" (not a propagation: as it is)
//
// Sources: oneDNN's include/oneapi/dnnl/dnnl_types.h (dnnl_prop_kind_t; forward_scoring is
// forward_inference's other name, forward is forward_training's) and src/common/verbose.cpp
// (the names it prints); benchdnn's doc/knobs_dir.md (FWD_D, FWD_I, BWD_D, BWD_W, BWD_DW; it has
// no direction for backward_bias).

#include <array>
#include <string_view>

namespace dlcheck::onednn {

struct Propagation {
  std::string_view name;       ///< as verbose prints it
  std::string_view direction;  ///< benchdnn's --dir without a bias (FWD_B and BWD_WB are FWD_D
                               ///< and BWD_W with one); empty: benchdnn has none
  std::string_view short_name;
};

inline constexpr std::array kPropagations = {
    Propagation{"forward_training", "FWD_D", "fwd_d"},
    Propagation{"forward", "FWD_D", "fwd_d"},
    Propagation{"forward_inference", "FWD_I", "fwd_i"},
    Propagation{"forward_scoring", "FWD_I", "fwd_i"},
    Propagation{"backward_data", "BWD_D", "bwd_d"},
    Propagation{"backward_weights", "BWD_W", "bwd_w"},
    Propagation{"backward_bias", "", "bwd_b"},
    Propagation{"backward", "BWD_DW", "bwd_dw"},
};

constexpr const Propagation* FindPropagation(std::string_view name) {
  for (const Propagation& p : kPropagations) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

/// benchdnn's `--dir=` for a propagation kind (no bias); empty for another text.
constexpr std::string_view BenchdnnDirection(std::string_view prop_kind) {
  const Propagation* p = FindPropagation(prop_kind);
  return p != nullptr ? p->direction : std::string_view();
}

/// The short name of a propagation kind; any other text as it is.
constexpr std::string_view ShortPropagation(std::string_view prop_kind) {
  const Propagation* p = FindPropagation(prop_kind);
  return p != nullptr ? p->short_name : prop_kind;
}

}  // namespace dlcheck::onednn
