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
  for (std::size_t i = 0; i < text.size(); i += CodePointBytes(text, i)) ++width;
  return width;
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
    longest = std::max(longest, ++run);
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
    ++line.width;
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
