// SPDX-License-Identifier: Apache-2.0
#pragma once
// Collapsed stacks -> a flame graph in SVG, drawn by dlcheck itself (Debian packages none):
// one box per frame, its width the frame's share of the samples, callers below callees; a frame
// found by stack scanning ("_[s]", profile/stack_scan.h) is drawn hatched. The
// file stands alone in a browser: hovering a box shows its name and samples, the Search button
// (or Ctrl-F) highlights every frame that matches a regular expression and shows their share,
// clicking a box zooms to it, and Reset zoom (or a click on the root) goes back.
//
//   WriteFlameGraphSvg(profile.folded, {.title = "dlcheck profile --model mlp"}, std::cout);
//
// The printers of `--format folded` and `--format svg` (report::PrintFolded, PrintFlameGraph in
// printer.h) call these with a report's `stacks` table.

#include <cstdint>
#include <map>
#include <ostream>
#include <string>
#include <vector>

namespace dlcheck::report {

struct FlameGraphOptions {
  std::string title = "Flame graph";
  std::string subtitle;     ///< a second line (event, samples, command)
  int width = 1200;         ///< pixels
  int frame_height = 16;    ///< pixels per stack level
  double min_width_px = 2;  ///< narrower frames (and their callees) are left out: a box
                            ///< under 2 px shows neither a name nor a share
  /// The document fills its container (width and height 100 %, the `width` x height drawing
  /// scaled as a whole by its viewBox): a page's frame of that aspect ratio, at any width.
  bool fill_container = false;
};

/// Writes the flame graph of `folded` ("a;b;c" -> samples) as one SVG document.
void WriteFlameGraphSvg(const std::map<std::string, std::uint64_t>& folded,
                        const FlameGraphOptions& options, std::ostream& out);

/// A leaf frame of the stacks (where the samples were taken) and the frame that called it.
struct LeafCall {
  std::string leaf;
  std::string caller;  ///< "" for a stack of one frame
  std::uint64_t samples = 0;
};

/// The stacks bottom-up: one entry per (leaf, caller), the most samples first (ties by name).
std::vector<LeafCall> BottomUp(const std::map<std::string, std::uint64_t>& folded);

/// Writes `folded` as collapsed-stack text, one "a;b;c N" line per stack, in key order: what
/// flamegraph.pl, inferno and speedscope read. Each frame is written as FoldedFrame makes it
/// (no control character, no space), in the SVG too.
void WriteFolded(const std::map<std::string, std::uint64_t>& folded, std::ostream& out);

}  // namespace dlcheck::report
