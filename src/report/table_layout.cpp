// SPDX-License-Identifier: Apache-2.0
#include "report/table_layout.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "report/safe_text.h"

namespace dlcheck::report {
namespace {

constexpr std::size_t kDefaultTerminalWidth = 80;

bool IsBreakAfter(std::string_view code_point) {
  return code_point.size() == 1 &&
         std::string_view(",:;/_+").find(code_point[0]) != std::string_view::npos;
}

void TrimTrailingSpaces(std::string& line) {
  while (!line.empty() && line.back() == ' ') line.pop_back();
}

// The text after a line's last break opportunity, and where it starts.
struct LineState {
  std::string text;
  std::size_t width = 0;
  std::size_t keep = std::string::npos;    // bytes kept when the line breaks at its last chance
  std::size_t resume = std::string::npos;  // where the carried-over rest starts
};

// Ends the full line at its last break opportunity (or here, inside a word) and starts the next.
void BreakLine(LineState& line, std::vector<std::string>& lines) {
  if (line.keep == std::string::npos) {
    lines.push_back(std::move(line.text));
    line = {};
    return;
  }
  std::string rest = line.text.substr(line.resume);
  line.text.resize(line.keep);
  lines.push_back(std::move(line.text));
  line = {};
  line.width = DisplayWidth(rest);
  line.text = std::move(rest);
}

// Bytes of the code point at text[i]: a byte that starts no valid sequence is one.
std::size_t CodePointBytes(std::string_view text, std::size_t i) {
  return std::max<std::size_t>(Utf8SequenceBytes(text, i), 1);
}

// The code point of a valid UTF-8 sequence (an invalid byte: itself).
char32_t Decode(std::string_view bytes) {
  const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
  switch (bytes.size()) {
    case 2:
      return (char32_t{byte(0)} & 0x1F) << 6 | (byte(1) & 0x3F);
    case 3:
      return (char32_t{byte(0)} & 0x0F) << 12 | (char32_t{byte(1)} & 0x3F) << 6 | (byte(2) & 0x3F);
    case 4:
      return (char32_t{byte(0)} & 0x07) << 18 | (char32_t{byte(1)} & 0x3F) << 12 |
             (char32_t{byte(2)} & 0x3F) << 6 | (byte(3) & 0x3F);
    default:
      return byte(0);
  }
}

struct Range {
  char32_t first;
  char32_t last;
};

// East Asian Wide and Fullwidth blocks and emoji: two terminal columns each.
constexpr Range kWide[] = {{0x1100, 0x115F},   {0x2E80, 0x303E},   {0x3041, 0x33FF},
                           {0x3400, 0x4DBF},   {0x4E00, 0x9FFF},   {0xA000, 0xA4CF},
                           {0xAC00, 0xD7A3},   {0xF900, 0xFAFF},   {0xFE30, 0xFE4F},
                           {0xFF00, 0xFF60},   {0xFFE0, 0xFFE6},   {0x1F300, 0x1F64F},
                           {0x1F900, 0x1F9FF}, {0x20000, 0x2FFFD}, {0x30000, 0x3FFFD}};
// Combining marks and zero-width characters: no column of their own.
constexpr Range kZeroWidth[] = {{0x0300, 0x036F}, {0x1AB0, 0x1AFF}, {0x1DC0, 0x1DFF},
                                {0x200B, 0x200F}, {0x20D0, 0x20FF}, {0xFE00, 0xFE0F},
                                {0xFE20, 0xFE2F}, {0xFEFF, 0xFEFF}};

bool InRanges(char32_t c, const Range* begin, const Range* end) {
  return std::any_of(begin, end, [c](const Range& r) { return c >= r.first && c <= r.last; });
}

// Terminal columns of one code point (as wcwidth(3) says for the common cases, without a locale).
std::size_t CodePointWidth(std::string_view code_point) {
  if (code_point.size() < 2) return 1;
  const char32_t c = Decode(code_point);
  if (InRanges(c, std::begin(kZeroWidth), std::end(kZeroWidth))) return 0;
  if (InRanges(c, std::begin(kWide), std::end(kWide))) return 2;
  return 1;
}

// Whether `word`, the text since the last break chance, is an ISA name that a `_` continues
// (`avx512_core_bf16`, `amx_int8`, `sse41`): one token, never cut after its `_`.
bool IsIsaStem(std::string_view word) {
  for (const std::string_view stem : {"avx", "amx", "sse", "AVX", "AMX", "SSE"}) {
    if (word.substr(0, stem.size()) == stem) return true;
  }
  return false;
}

// The break chances of `text` for a cut: the byte offsets where a kept head may end or a kept
// tail may start: after a space (the space itself dropped), `,` `;` `:` `/` `+`, or a `_` that
// does not continue an ISA name. Each is {end of the head, start of the tail}.
struct CutPoint {
  std::size_t head_end;
  std::size_t tail_start;
};
std::vector<CutPoint> CutPoints(std::string_view text) {
  std::vector<CutPoint> points;
  std::size_t word_start = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t bytes = CodePointBytes(text, i);
    const char c = bytes == 1 ? text[i] : '\0';
    i += bytes;
    if (c == ' ') {
      points.push_back({i - 1, i});
      word_start = i;
    } else if (c != '\0' && std::string_view(",;:/+").find(c) != std::string_view::npos) {
      points.push_back({i, i});
      word_start = i;
    } else if (c == '_' && !IsIsaStem(text.substr(word_start, i - word_start))) {
      points.push_back({i, i});
      word_start = i;
    }
  }
  return points;
}

}  // namespace

std::size_t StdoutTableWidth() {
  if (isatty(STDOUT_FILENO) == 0) return 0;
  if (const char* columns = std::getenv("COLUMNS"); columns != nullptr) {
    char* end = nullptr;
    const long value = std::strtol(columns, &end, 10);
    if (end != columns && *end == '\0' && value > 0) return static_cast<std::size_t>(value);
  }
  winsize size{};
  if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) return size.ws_col;
  return kDefaultTerminalWidth;
}

std::size_t DisplayWidth(std::string_view text) {
  std::size_t width = 0;
  for (std::size_t i = 0; i < text.size(); i += CodePointBytes(text, i)) {
    width += CodePointWidth(text.substr(i, CodePointBytes(text, i)));
  }
  return width;
}

namespace {

// The first `room` display columns of `text`, cut at its last break chance inside them; inside a
// word only when none is (one token wider than the room).
std::string_view Head(std::string_view text, std::size_t room) {
  std::size_t used = 0;
  std::size_t end = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t bytes = CodePointBytes(text, i);
    const std::size_t w = CodePointWidth(text.substr(i, bytes));
    if (used + w > room) break;
    used += w;
    i += bytes;
    end = i;
  }
  std::size_t cut = 0;
  for (const CutPoint& p : CutPoints(text)) {
    if (p.head_end <= end && p.head_end > 0) cut = p.head_end;
  }
  return text.substr(0, cut > 0 ? cut : end);
}

// The last `room` display columns of `text`, starting at a break chance; empty when no tail
// that starts at one fits.
std::string_view Tail(std::string_view text, std::size_t room) {
  for (const CutPoint& p : CutPoints(text)) {
    const std::string_view tail = text.substr(p.tail_start);
    if (!tail.empty() && DisplayWidth(tail) <= room) return tail;
  }
  return {};
}

std::string Trimmed(std::string_view text) {
  std::string out(text);
  TrimTrailingSpaces(out);
  return out;
}

}  // namespace

std::string Truncate(std::string_view text, std::size_t width, Keep keep) {
  if (DisplayWidth(text) <= width) return std::string(text);
  if (width == 0) return {};
  const std::size_t room = width - std::min(width, DisplayWidth(kEllipsis));
  const std::string ellipsis(kEllipsis);
  if (keep == Keep::kEnd) {
    const std::string_view tail = Tail(text, room);
    if (!tail.empty()) return ellipsis + std::string(tail);
  } else if (keep == Keep::kBothEnds) {
    // The first token, then as much of the end as fits.
    const std::vector<CutPoint> points = CutPoints(text);
    if (!points.empty() && points.front().head_end > 0) {
      const std::string head = Trimmed(text.substr(0, points.front().head_end));
      const std::size_t head_width = DisplayWidth(head);
      if (head_width < room) {
        const std::string_view tail =
            Tail(text.substr(points.front().tail_start), room - head_width);
        if (!tail.empty()) return head + ellipsis + std::string(tail);
      }
    }
  }
  return Trimmed(Head(text, room)) + ellipsis;
}

std::size_t LongestWord(std::string_view text) {
  std::size_t longest = 0;
  std::size_t run = 0;
  for (std::size_t i = 0; i < text.size();) {
    const std::string_view code_point = text.substr(i, CodePointBytes(text, i));
    i += code_point.size();
    if (code_point == " ") {
      run = 0;
      continue;
    }
    run += CodePointWidth(code_point);
    longest = std::max(longest, run);
    if (IsBreakAfter(code_point)) run = 0;
  }
  return longest;
}

std::vector<std::size_t> FitColumns(std::vector<std::size_t> natural,
                                    const std::vector<std::size_t>& minimum, std::size_t gap,
                                    std::size_t budget) {
  if (natural.empty()) return natural;
  std::size_t total =
      std::accumulate(natural.begin(), natural.end(), std::size_t{0}) + gap * (natural.size() - 1);
  while (total > budget) {
    std::size_t widest = natural.size();
    for (std::size_t i = 0; i < natural.size(); ++i) {
      const std::size_t floor = std::max<std::size_t>(i < minimum.size() ? minimum[i] : 1, 1);
      if (natural[i] > floor && (widest == natural.size() || natural[i] > natural[widest])) {
        widest = i;
      }
    }
    if (widest == natural.size()) break;  // every column at its minimum
    --natural[widest];
    --total;
  }
  return natural;
}

std::vector<std::string> WrapText(std::string_view text, std::size_t width, WrapAt breaks) {
  if (width == 0) return {std::string(text)};
  std::vector<std::string> lines;
  LineState line;
  for (std::size_t i = 0; i < text.size();) {
    const std::string_view code_point = text.substr(i, CodePointBytes(text, i));
    i += code_point.size();
    const bool space = code_point == " ";
    if (line.width >= width) {
      if (space) {  // the line ends exactly here: the space is the break
        lines.push_back(std::move(line.text));
        line = {};
        continue;
      }
      BreakLine(line, lines);
    }
    if (space && line.text.empty() && !lines.empty()) continue;  // no leading space on a wrap
    line.text += code_point;
    line.width += CodePointWidth(code_point);
    if (space && line.text.size() > 1) {
      line.keep = line.text.size() - 1;
      line.resume = line.text.size();
    } else if (breaks == WrapAt::kSpacesAndPunctuation && IsBreakAfter(code_point)) {
      line.keep = line.resume = line.text.size();
    }
  }
  lines.push_back(std::move(line.text));
  for (std::string& l : lines) TrimTrailingSpaces(l);
  return lines;
}

}  // namespace dlcheck::report
