// SPDX-License-Identifier: Apache-2.0
#pragma once
// The codes of a list of findings, in order: what a test compares with the codes it expects.
#include <string>
#include <vector>

#include "common/finding.h"

namespace dlcheck::testing {

inline std::vector<std::string> Codes(const std::vector<Finding>& findings) {
  std::vector<std::string> codes;
  for (const Finding& f : findings) codes.push_back(f.code);
  return codes;
}

}  // namespace dlcheck::testing
