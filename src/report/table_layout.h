// SPDX-License-Identifier: Apache-2.0
#pragma once
// Fitting a human table into a terminal's width: column widths, word-boundary wrapping, and the
// width of the terminal standard output is. The table printer uses these; they do no output.
//
//   widths = FitColumns({24, 40, 8}, {8, 8, 8}, 2, 60)   ->  {17, 17, 8}: the widest shrink first
//   WrapText("avx512 core brgemm", 10)                     ->  {"avx512", "core", "brgemm"}
//
// Why not libsmartcols (what lscpu uses): Debian 12's libsmartcols 2.38 wraps a cell only at
// newlines or in fixed-size chunks chosen before the column's width is known, so it cannot wrap
// text at word boundaries inside a width it fits itself, and it buffers the whole table, which
// the streamed `--events` table must not do. The rules it follows are kept: the terminal's width
// on a terminal (COLUMNS first, as util-linux does), no limit when piped, the widest columns
// shrink first, and a cell wraps inside its column, never the whole row.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck::report {

/// The width for tables on standard output: when it is a terminal, COLUMNS if it holds a
/// positive number (as util-linux reads it), else the terminal's own width, else 80; when it is
/// not a terminal (a pipe, a file), 0: the full table.
std::size_t StdoutTableWidth();

/// Columns shown on a terminal line: one per code point of UTF-8 text, two for an East Asian
/// wide or fullwidth character or an emoji, none for a combining mark (a byte that starts no
/// valid sequence counts as one).
std::size_t DisplayWidth(std::string_view text);

/// The single character that marks cut text.
inline constexpr std::string_view kEllipsis = "\u2026";

/// Which part of a cut cell is kept: the start (what most cells are told by), the end (problems
/// that share their start: `…ic32oc64_ih16`), or the first token and the end
/// (`jit:…avx512_core_bf16`).
enum class Keep { kStart, kEnd, kBothEnds };

/// `text` cut to at most `width` display columns with kEllipsis where it was cut, always at a
/// token boundary when one fits: after a space, `,` `;` `:` `/` `+`, or a `_` that does not
/// continue an ISA name (`avx512_core_bf16` is one token, `mb16_ic32` two); inside a token only
/// when a token alone is too wide (then the start is kept).
///   Truncate("avx512_core avx512_vnni", 16)                  -> "avx512_core…"
///   Truncate("jit:avx512_core", 12)                          -> "jit:…"
///   Truncate("mb16_ic32oc64_ih16", 14, Keep::kEnd)           -> "…ic32oc64_ih16"
std::string Truncate(std::string_view text, std::size_t width, Keep keep = Keep::kStart);

/// The display width of the longest piece of `text` that WrapText keeps on one line when it can
/// (the text between two break chances, with its trailing `,` `:` ...).
std::size_t LongestWord(std::string_view text);

/// Shrinks column widths (widest first, never below `minimum[i]` or below 1) until
/// sum(widths) + gap * (n - 1) <= budget. Returns the widths; when even the minimums do not fit,
/// they are returned as they are (the caller leaves columns out).
std::vector<std::size_t> FitColumns(std::vector<std::size_t> natural,
                                    const std::vector<std::size_t>& minimum, std::size_t gap,
                                    std::size_t budget);

/// Splits `text` into lines of at most `width` display columns: after a space (dropped) or a
/// `,` `:` `;` `/` `_` `+` when it can, and inside a word only when the word alone is wider than
/// `width`; with WrapAt::kSpaces only after a space. `width` 0 means no limit (one line). Empty
/// text gives one empty line.
enum class WrapAt {
  kSpacesAndPunctuation,  ///< table cells: `brgemm:` / `avx512_core`, `mb64_` / `ic3oc64`
  kSpaces,                ///< prose (findings, notes): only between words
};
std::vector<std::string> WrapText(std::string_view text, std::size_t width,
                                  WrapAt breaks = WrapAt::kSpacesAndPunctuation);

}  // namespace dlcheck::report
