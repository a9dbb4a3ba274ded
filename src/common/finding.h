// SPDX-License-Identifier: Apache-2.0
#pragma once
// A plain-language conclusion, drawn by any module (detection, the log parser, the commands) and
// printed by every report format: what the numbers mean and what to do.

#include <string>
#include <string_view>

namespace dlcheck {

enum class Severity { kInfo, kWarning, kError };

/// "info", "warning", "error".
constexpr std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "info";
}

/// What a finding is about, so that a consumer (`check`) can weigh it without reading its code.
enum class Topic {
  kGeneral,   ///< the machine or the run itself (the default)
  kLibcpuid,  ///< what libcpuid reports: a gap of that library, not of the machine
};

struct Finding {
  Severity severity = Severity::kInfo;
  std::string code;     ///< stable identifier, e.g. "libcpuid-no-avx512"
  std::string message;  ///< one or two sentences for a person
  Topic topic = Topic::kGeneral;
};

}  // namespace dlcheck
