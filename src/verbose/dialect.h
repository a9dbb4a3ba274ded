// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one table of verbose dialects: the marker that opens a line of each, and what may follow
// the marker before the operation. Read by the line parser (markers, prefix fields, eras), the
// output splitter (a marker cut between two reads) and the memo's timestamp rule, so that a
// marker is spelled once. A new dialect is one row here, its Family's era in line_parser.cpp's
// EraOf, and a field reader where its fields differ (FORMATS.md §0).
//
//   verbose::FindDialect("dnnl")->marker      -> "dnnl_verbose,"
//   verbose::DialectOf(Family::kMkldnn).timestamp  -> false (MKL-DNN printed none)

#include <array>
#include <string_view>

namespace dlcheck::verbose {

/// The families of verbose lines, one per marker.
enum class Family { kNone, kMkldnn, kDnnl, kOnednn, kGraph };

/// One verbose dialect: its marker and the optional fields between the marker and the operation.
struct Dialect {
  Family family = Family::kNone;
  std::string_view word;    ///< the marker's word: `onednn` of `onednn_verbose,`
  std::string_view marker;  ///< the marker as it opens a line, its comma included
  bool version_field;       ///< a `vN` field may follow the marker (oneDNN 3.6+: `v1`)
  bool timestamp_field;     ///< a `<ms>.<fraction>` timestamp may follow (ONEDNN_VERBOSE_TIMESTAMP)
};

/// Every marker's second half: the word before it names the dialect.
inline constexpr std::string_view kMarkerTail = "_verbose,";

/// The dialects dlcheck reads, the most frequent first (the parser tries them in this order).
inline constexpr std::array kDialects = {
    Dialect{Family::kOnednn, "onednn", "onednn_verbose,", true, true},
    Dialect{Family::kDnnl, "dnnl", "dnnl_verbose,", false, true},
    Dialect{Family::kMkldnn, "mkldnn", "mkldnn_verbose,", false, false},
    Dialect{Family::kGraph, "onednn_graph", "onednn_graph_verbose,", false, true},
};

/// The dialect whose marker word is `word` (`dnnl`); nullptr for none.
constexpr const Dialect* FindDialect(std::string_view word) {
  for (const Dialect& d : kDialects) {
    if (d.word == word) return &d;
  }
  return nullptr;
}

/// The dialect of a family (kNone: a dialect with no optional field and no marker).
constexpr Dialect DialectOf(Family family) {
  for (const Dialect& d : kDialects) {
    if (d.family == family) return d;
  }
  return Dialect{Family::kNone, {}, {}, false, false};
}

/// Each marker is its word and the tail (the table cannot disagree with the parser's search).
constexpr bool MarkersAreWordAndTail() {
  for (const Dialect& d : kDialects) {
    if (d.marker.size() != d.word.size() + kMarkerTail.size() || !d.marker.starts_with(d.word) ||
        !d.marker.ends_with(kMarkerTail)) {
      return false;
    }
  }
  return true;
}
static_assert(MarkersAreWordAndTail());

}  // namespace dlcheck::verbose
