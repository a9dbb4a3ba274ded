// SPDX-License-Identifier: Apache-2.0
#pragma once
// Small text helpers every module shares, each written once: joining a list, lower-casing an
// ASCII name, and a command line as a shell would read it back.
//
//   Join(std::vector<std::string>{"avx2", "fma"}, ", ")  ->  "avx2, fma"
//   Lower("AVX512_CORE")                                 ->  "avx512_core"
//   CommandText({"sh", "-c", "echo it's"})               ->  "sh -c 'echo it'\''s'"

#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck {

/// The items of `parts` (any range of strings) with `separator` between each two.
template <typename Strings>
std::string Join(const Strings& parts, std::string_view separator) {
  std::string text;
  bool first = true;
  for (const auto& part : parts) {
    if (!first) text += separator;
    text += part;
    first = false;
  }
  return text;
}

/// `text` with ASCII letters in lower case (names of ISAs, features, states).
inline std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

/// One argument as a POSIX shell reads it back: as it is when it holds nothing the shell would
/// interpret, else in single quotes, each single quote inside written '\''. Interpreted: blanks,
/// quotes, expansions, globs, operators, a comment's `#`, a home's `~`, and bash's brace
/// expansion and history (`{a,b}`, `!!`), so that a printed line pastes back into bash too.
inline std::string ShellQuote(std::string_view arg) {
  constexpr std::string_view kShellSpecial = " \t\r\n'\"\\$`*?[]{}#~!;&|<>()";
  if (!arg.empty() && arg.find_first_of(kShellSpecial) == std::string_view::npos) {
    return std::string(arg);
  }
  std::string quoted = "'";
  for (const char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

/// A command's argv as one line a shell would split back into the same argv.
inline std::string CommandText(const std::vector<std::string>& argv) {
  std::string text;
  for (const std::string& arg : argv) text += (text.empty() ? "" : " ") + ShellQuote(arg);
  return text;
}

}  // namespace dlcheck
