// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one table of verbose dialects: the marker that opens a line of each, and what may follow
// the marker before the operation, the library that prints it and where its time is. Read by
// the line parser (markers, prefix fields, eras), the output splitter (a marker cut between two
// reads), the memo's timestamp and time rules, `parse --dialect` and every row's `library`, so
// that each is spelled once. A new dialect is one row here, its eras (verbose_event.h's Era and
// kEras; line_parser.cpp's EraOf tells a family's several eras apart), and a field reader where
// its fields differ (FORMATS.md §0; the engines around oneDNN: tests/data/engines/README.md).
//
//   verbose::FindDialect("dnnl")->marker      -> "dnnl_verbose,"
//   verbose::DialectOf(Family::kMkldnn).timestamp  -> false (MKL-DNN printed none)
//   verbose::DialectOf(Family::kZendnnProfile).marker -> "[PROF   ][" (ZenDNN 5.1+'s profiler)
//   verbose::DialectOf(Family::kZendnn).library     -> Library::kZenDnn

#include <array>
#include <cstdint>
#include <string_view>

namespace dlcheck::verbose {

/// The families of verbose lines, one per marker.
enum class Family {
  kNone,
  kMkldnn,
  kDnnl,
  kOnednn,
  kGraph,
  kZendnn,           ///< `zendnn_verbose,`: ZenDNN's copy of oneDNN 2.x's lines (ZENDNN_VERBOSE)
  kZendnnPrimitive,  ///< `zendnn_primitive_execute,`: ZENDNN_PRIMITIVE_LOG_ENABLE (ZenDNN 4-5)
  kZendnnProfile,    ///< `[PROF   ][...]:... operator execute - `: ZenDNN 5.1+ (ZENDNNL_*)
  kOrtProfile,       ///< `{"cat" : "Node",...}`: ONNX Runtime's profile (enable_profiling)
};

/// The library that printed a line: the `library` column of every row (a log may hold both,
/// a program running oneDNN and ZenDNN; each is totalled apart).
enum class Library : std::uint8_t { kOneDnn, kZenDnn, kOnnxRuntime };

/// "oneDNN", "ZenDNN", "ONNX Runtime".
constexpr std::string_view LibraryName(Library library) {
  switch (library) {
    case Library::kZenDnn:
      return "ZenDNN";
    case Library::kOnnxRuntime:
      return "ONNX Runtime";
    case Library::kOneDnn:
      break;
  }
  return "oneDNN";
}

/// One verbose dialect: its marker, the optional fields between the marker and the operation,
/// the library that prints it and where its time is.
struct Dialect {
  Family family = Family::kNone;
  std::string_view word;    ///< the marker's word: `onednn` of `onednn_verbose,`
  std::string_view marker;  ///< the marker as it opens a line, its comma included
  bool version_field;       ///< a `vN` field may follow the marker (oneDNN 3.6+: `v1`)
  bool timestamp_field;     ///< a `<ms>.<fraction>` timestamp may follow (ONEDNN_VERBOSE_TIMESTAMP)
  /// The marker is `<word>_verbose,`, found by its tail (kMarkerTail); the others are found by
  /// their whole text, after the tail finds none.
  bool verbose_tail = true;
  Library library = Library::kOneDnn;
  /// The time is the line's last field, where the line memo (line_memo.h) reads it: not in
  /// ZenDNN's plug-in lines (`<ms>,ms`) nor its profiler's (`time:<ms>ms`).
  bool time_last_field = true;
};

/// Every marker's second half: the word before it names the dialect.
inline constexpr std::string_view kMarkerTail = "_verbose,";

/// The dialects dlcheck reads, the most frequent first (the parser tries them in this order).
inline constexpr std::array kDialects = {
    Dialect{Family::kOnednn, "onednn", "onednn_verbose,", true, true},
    Dialect{Family::kDnnl, "dnnl", "dnnl_verbose,", false, true},
    Dialect{Family::kMkldnn, "mkldnn", "mkldnn_verbose,", false, false},
    Dialect{Family::kGraph, "onednn_graph", "onednn_graph_verbose,", false, true},
    Dialect{Family::kZendnn, "zendnn", "zendnn_verbose,", false, true, true, Library::kZenDnn},
    // The plug-in's profiling lines (`zendnn_primitive_execute,` and `zendnn_primitive_create,`)
    // behind ZenDNN's log header `[PROF:I][<s>] `, and ZenDNN 5.1+'s profiler's header.
    Dialect{Family::kZendnnPrimitive, "zendnn_primitive", "zendnn_primitive_", false, false, false,
            Library::kZenDnn, false},
    Dialect{Family::kZendnnProfile, "zendnnl_profile", "[PROF   ][", false, false, false,
            Library::kZenDnn, false},
    // ONNX Runtime's profile (SessionOptions.enable_profiling): a JSON array of Chrome trace
    // events, one a line as ONNX Runtime writes it; a node's line opens with this.
    Dialect{Family::kOrtProfile, "onnxruntime_profile", R"({"cat" : "Node",)", false, false, false,
            Library::kOnnxRuntime, false},
};

/// What `parse --dialect` reads: every dialect (told by the content), or one library's or one
/// format's lines only (the others are then foreign, like program output).
enum class DialectChoice { kAuto, kOneDnn, kZendnn, kZendnnPrimitive, kZendnnProfile, kOrtProfile };

/// The dialect of a family (kNone: a dialect with no optional field and no marker).
constexpr Dialect DialectOf(Family family) {
  for (const Dialect& d : kDialects) {
    if (d.family == family) return d;
  }
  return Dialect{Family::kNone, {}, {}, false, false, false};
}

/// Whether a choice reads the lines of `family`: oneDNN's, every dialect of its library.
constexpr bool Admits(DialectChoice choice, Family family) {
  switch (choice) {
    case DialectChoice::kAuto:
      return true;
    case DialectChoice::kOneDnn:
      return family != Family::kNone && DialectOf(family).library == Library::kOneDnn;
    case DialectChoice::kZendnn:
      return family == Family::kZendnn;
    case DialectChoice::kZendnnPrimitive:
      return family == Family::kZendnnPrimitive;
    case DialectChoice::kZendnnProfile:
      return family == Family::kZendnnProfile;
    case DialectChoice::kOrtProfile:
      return family == Family::kOrtProfile;
  }
  return true;
}

/// The dialect whose marker word is `word` (`dnnl`); nullptr for none.
constexpr const Dialect* FindDialect(std::string_view word) {
  for (const Dialect& d : kDialects) {
    if (d.word == word) return &d;
  }
  return nullptr;
}

/// Each marker is its word and the tail (the table cannot disagree with the parser's search).
constexpr bool MarkersAreWordAndTail() {
  for (const Dialect& d : kDialects) {
    if (!d.verbose_tail) continue;
    if (d.marker.size() != d.word.size() + kMarkerTail.size() || !d.marker.starts_with(d.word) ||
        !d.marker.ends_with(kMarkerTail)) {
      return false;
    }
  }
  return true;
}
static_assert(MarkersAreWordAndTail());

}  // namespace dlcheck::verbose
