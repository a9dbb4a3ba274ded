// SPDX-License-Identifier: Apache-2.0
#include "report/safe_text.h"

#include <fmt/format.h>

#include <algorithm>

namespace dlcheck::report {
namespace {

unsigned char Byte(std::string_view text, std::size_t i) {
  return static_cast<unsigned char>(text[i]);
}

// The length a lead byte announces (0: it leads nothing), and the range its second byte must
// fall in to be neither overlong, nor a surrogate, nor beyond U+10FFFF.
struct Lead {
  std::size_t bytes = 0;
  unsigned char second_min = 0x80;
  unsigned char second_max = 0xbf;
};

Lead LeadOf(unsigned char c) {
  if (c < 0x80) return {1};
  if (c >= 0xc2 && c <= 0xdf) return {2};
  if (c == 0xe0) return {3, 0xa0, 0xbf};
  if (c == 0xed) return {3, 0x80, 0x9f};
  if (c >= 0xe1 && c <= 0xef) return {3};
  if (c == 0xf0) return {4, 0x90, 0xbf};
  if (c == 0xf4) return {4, 0x80, 0x8f};
  if (c >= 0xf1 && c <= 0xf3) return {4};
  return {};
}

}  // namespace

std::size_t Utf8SequenceBytes(std::string_view text, std::size_t i) {
  const Lead lead = LeadOf(Byte(text, i));
  if (lead.bytes == 0 || i + lead.bytes > text.size()) return 0;
  if (lead.bytes == 1) return 1;
  const unsigned char second = Byte(text, i + 1);
  if (second < lead.second_min || second > lead.second_max) return 0;
  for (std::size_t k = 2; k < lead.bytes; ++k) {
    if ((Byte(text, i + k) & 0xc0) != 0x80) return 0;
  }
  return lead.bytes;
}

bool IsControl(std::string_view text, std::size_t i, std::size_t bytes) {
  const unsigned char c = Byte(text, i);
  if (bytes == 1) return c < 0x20 || c == 0x7f;
  if (bytes == 2) {
    return (c == 0xc2 && Byte(text, i + 1) < 0xa0) ||  // C1
           (c == 0xd8 && Byte(text, i + 1) == 0x9c);   // U+061C arabic letter mark
  }
  if (bytes != 3 || c != 0xe2) return false;
  const unsigned char second = Byte(text, i + 1), third = Byte(text, i + 2);
  // The bidi controls, which reorder what a terminal shows: U+200E, U+200F (marks), U+202A to
  // U+202E (embeddings and overrides), U+2066 to U+2069 (isolates).
  if (second == 0x80) return third == 0x8e || third == 0x8f || (third >= 0xaa && third <= 0xae);
  return second == 0x81 && third >= 0xa6 && third <= 0xa9;
}

std::string VisibleText(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t bytes = Utf8SequenceBytes(text, i);
    const char c = text[i];
    const bool line_break = c == '\t' || c == '\r' || c == '\n';
    if (bytes == 0 || (IsControl(text, i, bytes) && !(keep_line_breaks && line_break))) {
      for (std::size_t k = 0; k < std::max<std::size_t>(bytes, 1); ++k) {
        out += fmt::format("\\x{:02x}", Byte(text, i + k));
      }
    } else {
      out.append(text, i, bytes);
    }
    i += std::max<std::size_t>(bytes, 1);
  }
  return out;
}

std::string ValidUtf8Text(std::string_view text, std::string_view replacement, bool controls) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t bytes = Utf8SequenceBytes(text, i);
    if (bytes == 0 || (controls && text[i] != '\t' && IsControl(text, i, bytes))) {
      out += replacement;
      i += std::max<std::size_t>(bytes, 1);
    } else {
      out.append(text, i, bytes);
      i += bytes;
    }
  }
  return out;
}

std::string SafeMessage(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  while (true) {
    const std::size_t end = message.find('\n');
    out += SafeText(message.substr(0, end));
    if (end == std::string_view::npos) return out;
    out += '\n';
    message.remove_prefix(end + 1);
  }
}

std::string SafeText(std::string_view text, std::size_t max_bytes) {
  text = text.substr(0, max_bytes);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t bytes = Utf8SequenceBytes(text, i);
    const std::size_t step = std::max<std::size_t>(bytes, 1);
    if (bytes == 0 || IsControl(text, i, bytes)) {
      out.append(step, '?');
    } else {
      out.append(text, i, bytes);
    }
    i += step;
  }
  return out;
}

std::string ShortInput(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return SafeText(text);
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return SafeText(text.substr(0, cut)) + "...";
}

std::string ShortWords(std::string_view text, std::size_t max_bytes) {
  std::string out;
  while (!text.empty()) {
    const std::size_t space = std::min(text.find(' '), text.size());
    const std::string_view word = text.substr(0, space);
    out += word.size() > max_bytes ? ShortInput(word, max_bytes) : std::string(word);
    if (space < text.size()) out += ' ';
    text.remove_prefix(std::min(space + 1, text.size()));
  }
  return out;
}

std::string FoldedFrame(std::string_view text) {
  std::string frame = SafeText(text);
  for (char& c : frame) {
    if (c == ';') c = ':';
    if (c == ' ') c = '_';
  }
  return frame;
}

}  // namespace dlcheck::report
