// SPDX-License-Identifier: Apache-2.0
#pragma once
// Two runs of one recording (tests/data/verbose/generated_2.6.3.txt): oneDNN at its default ISA
// and capped at AVX2, written to a scratch directory for `diff` and its library to compare.

#include <fstream>
#include <string>

#include "support/scratch_dir.h"
#include "support/test_files.h"

namespace dlcheck::compare {

// The lines of the section of generated_2.6.3.txt whose `# source:` line contains `marker`.
inline std::string Section(const std::string& marker) {
  std::ifstream in(testing::DataPath("verbose/generated_2.6.3.txt"));
  std::string line;
  std::string text;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind("# source:", 0) == 0) inside = line.find(marker) != std::string::npos;
    if (inside) text += line + "\n";
  }
  return text;
}

class DiffTest : public testing::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    avx512_ = Write("avx512.log", Section("(default max ISA)"));
    avx2_ = Write("avx2.log", Section("ONEDNN_MAX_CPU_ISA=AVX2"));
  }
  std::string avx512_, avx2_;
};

}  // namespace dlcheck::compare
