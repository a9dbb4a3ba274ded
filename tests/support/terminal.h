// SPDX-License-Identifier: Apache-2.0
#pragma once
// The progress line under a real pseudo-terminal (util-linux's `script`), for the CLI tests of
// every command that draws one (run, verbose, dispatch, profile).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace dlcheck::testing {

/// What `dlcheck ARGS` writes (stdout and stderr together) when both are a terminal.
inline std::string UnderTerminal(const std::string& args) {
  const std::string command =
      "script -qec \"" + std::string(DLCHECK_BINARY) + " " + args + " 2>&1\" /dev/null </dev/null";
  std::string text;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return text;
  char buffer[4096];
  for (std::size_t got; (got = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    text.append(buffer, got);
  pclose(pipe);
  return text;
}

/// The progress line starting `line_start` was drawn (with the time elapsed), and the last one
/// was cleared (`\r ESC [K`) before the report starts at `report_start`.
inline void ExpectDrawnAndCleared(const std::string& text, const std::string& line_start,
                                  const std::string& report_start) {
  const auto drawn = text.find("\r\033[K" + line_start);
  ASSERT_NE(drawn, std::string::npos) << text;
  EXPECT_NE(text.find(" elapsed", drawn), std::string::npos) << text;
  const auto report = text.find(report_start, drawn);
  ASSERT_NE(report, std::string::npos) << text;
  const auto last_clear = text.rfind("\r\033[K", report);
  EXPECT_EQ(text.find("elapsed", last_clear), std::string::npos) << text;  // cleared, not drawn
}

}  // namespace dlcheck::testing
