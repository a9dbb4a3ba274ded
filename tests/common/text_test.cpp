// SPDX-License-Identifier: Apache-2.0
// The shared text helpers (src/common/text.h): each written once, for every module.
#include "common/text.h"

#include <gtest/gtest.h>
#include <stdio.h>

#include <array>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck {
namespace {

TEST(JoinTest, PutsTheSeparatorBetweenEachTwoItemsOfAnyRange) {
  EXPECT_EQ(Join(std::vector<std::string>{"avx2", "fma", "f16c"}, ", "), "avx2, fma, f16c");
  EXPECT_EQ(Join(std::set<std::string>{"jit", "brgemm"}, "+"), "brgemm+jit");
  EXPECT_EQ(Join(std::array<std::string_view, 1>{"sse41"}, ", "), "sse41");
  EXPECT_EQ(Join(std::vector<std::string>{}, ", "), "");
  // An empty item still gets its separators: the count of items can be read back.
  EXPECT_EQ(Join(std::vector<std::string>{"", "b", ""}, "/"), "/b/");
}

TEST(LowerTest, LowersAsciiLettersOnly) {
  EXPECT_EQ(Lower("AVX512_Core_AMX"), "avx512_core_amx");
  EXPECT_EQ(Lower("caf\xc3\x89"), "caf\xc3\x89");  // bytes above ASCII are left as they are
}

TEST(ShellQuoteTest, QuotesOnlyWhatTheShellWouldInterpret) {
  EXPECT_EQ(ShellQuote("python3"), "python3");
  EXPECT_EQ(ShellQuote("--steps=200"), "--steps=200");
  EXPECT_EQ(ShellQuote("two words"), "'two words'");
  EXPECT_EQ(ShellQuote("$HOME"), "'$HOME'");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  // What bash alone reads differently, typed at its prompt: brace expansion and history.
  EXPECT_EQ(ShellQuote("{a,b}"), "'{a,b}'");
  EXPECT_EQ(ShellQuote("!!"), "'!!'");
}

// What /bin/sh makes of `text`: its words, one a line (printf '%s\n').
std::vector<std::string> ShellWords(const std::string& text) {
  const std::string command = "printf '%s\\n' " + text;
  FILE* pipe = ::popen(command.c_str(), "r");
  std::vector<std::string> words;
  if (pipe == nullptr) return words;
  std::string word;
  for (int c = std::fgetc(pipe); c != EOF; c = std::fgetc(pipe)) {
    if (c == '\n') {
      words.push_back(word);
      word.clear();
    } else {
      word += static_cast<char>(c);
    }
  }
  ::pclose(pipe);
  return words;
}

TEST(CommandTextTest, TheShellSplitsItBackIntoTheSameArgv) {
  const std::vector<std::string> argv = {
      "sh",        "-c",          "echo it's $HOME; true", "",      "a*b",
      "tab\there", "back\\slash", "#not-a-comment",        "~root", "x[ab]"};
  EXPECT_EQ(CommandText(argv),
            "sh -c 'echo it'\\''s $HOME; true' '' 'a*b' 'tab\there' 'back\\slash' "
            "'#not-a-comment' '~root' 'x[ab]'");
  EXPECT_EQ(ShellWords(CommandText(argv)), argv);
}

}  // namespace
}  // namespace dlcheck
