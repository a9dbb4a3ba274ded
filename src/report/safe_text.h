// SPDX-License-Identifier: Apache-2.0
#pragma once
// Text from inputs (log lines, brand strings, file names) made safe for each output: the one
// home of the rules for what is valid UTF-8 and what a terminal or a spreadsheet must not get
// raw.
//
//   VisibleText("Evil\x1b[2J\xff")               -> "Evil\x1b[2J\xff" spelled out as text
//   ValidUtf8Text("caf\xe9", "\xef\xbf\xbd")     -> "caf" U+FFFD

#include <cstddef>
#include <string>
#include <string_view>

namespace dlcheck::report {

/// Bytes of the valid UTF-8 sequence at text[i] (1 to 4), or 0 when none starts there: a stray
/// continuation byte, a lead byte without its continuation bytes, an overlong form, a surrogate,
/// or a code point beyond U+10FFFF.
std::size_t Utf8SequenceBytes(std::string_view text, std::size_t i);

/// Whether the code point of `bytes` bytes at text[i] is a control character: C0 (below 0x20),
/// DEL, C1 (U+0080 to U+009F, which some terminals obey as escape sequences), or a bidi control
/// (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069: text shown in another order than
/// it is read).
bool IsControl(std::string_view text, std::size_t i, std::size_t bytes);

/// Text a terminal or a spreadsheet shows as it is: each control character and each byte that
/// is not UTF-8 becomes `\xNN` (a C1 control: its two bytes). With `keep_line_breaks`, tab, CR
/// and LF stay (CSV quotes them).
std::string VisibleText(std::string_view text, bool keep_line_breaks = false);

/// `text` with each byte that is not UTF-8 replaced by `replacement`; with `controls`, each
/// control character but tab likewise.
std::string ValidUtf8Text(std::string_view text, std::string_view replacement,
                          bool controls = false);

/// `message` made safe for a terminal line by line: SafeText of each line, the line breaks
/// kept. Every `dlcheck: ...` message goes through it (cli's PrintError), so that a value it
/// echoes (a log line, a command name, an option value) reaches no terminal raw.
std::string SafeMessage(std::string_view message);

/// Text from a recorded file (a path, a brand string, an hwloc info) made safe for a terminal
/// and for JSON: valid UTF-8 is kept, while each byte of a control character (C0 with tab, DEL,
/// C1) and each byte that is not UTF-8 becomes '?'. At most `max_bytes` bytes are looked at.
std::string SafeText(std::string_view text, std::size_t max_bytes = std::string_view::npos);

/// A value from the command line or an input quoted back in a message: SafeText of at most
/// `max_bytes` bytes (cut at a character's start), "..." after it when it was longer, so that a
/// 100,000-character option value is not echoed whole.
std::string ShortInput(std::string_view text, std::size_t max_bytes = 64);

/// `text` with each run of more than `max_bytes` non-space bytes cut as ShortInput cuts it: a
/// message from a parser that quotes what it was given.
std::string ShortWords(std::string_view text, std::size_t max_bytes = 256);

/// One frame of a collapsed stack ("comm;frame;...;frame count"), as flamegraph.pl, inferno and
/// speedscope split it: SafeText, with each ';' (the frame separator) as ':' and each space (the
/// count's separator) as '_', so that a symbol named with `ESC ] 0;... BEL`, spaces or ';' stays
/// one frame and reaches no terminal raw.
std::string FoldedFrame(std::string_view text);

}  // namespace dlcheck::report
