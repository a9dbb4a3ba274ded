// SPDX-License-Identifier: Apache-2.0
// `dlcheck profile` of the instruction mix's test program (tests/profile/mix_program.c) on this
// machine's real perf (software clock samples are enough): each loop gets its class, and the
// program's class shares are within 5 points of the shares it ran. The AVX-512 loop runs only
// where the CPU has AVX-512F; elsewhere its class is held by the static test (profile_test).
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "support/run_dlcheck.h"

namespace dlcheck {
namespace {

using Json = nlohmann::json;

const Json* RowWhere(const Json& table, const std::string& key, const std::string& value) {
  for (const auto& row : table) {
    if (row[key].is_string() && row[key].get<std::string>() == value) return &row;
  }
  return nullptr;
}

TEST(InstructionMixCliTest, TheTestProgramsLoopsGetTheirClassesAndShares) {
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  // Percent of the program's CPU time: AVX-512, AVX2, scalar.
  const double shares[3] = {avx512 ? 40.0 : 0.0, avx512 ? 35.0 : 60.0, avx512 ? 25.0 : 40.0};
  const testing::RunResult r = testing::RunDlcheck(
      {"profile", "--format", "json", "--", DLCHECK_MIX_PROGRAM, "5", std::to_string(shares[0]),
       std::to_string(shares[1]), std::to_string(shares[2])});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json report = Json::parse(r.out);
  const Json* program = RowWhere(report["instruction_mix"], "library", DLCHECK_MIX_PROGRAM);
  ASSERT_NE(program, nullptr) << report["instruction_mix"].dump(1);
  EXPECT_NEAR((*program)["avx512_pct"].get<double>(), shares[0], 5.0) << program->dump();
  EXPECT_NEAR((*program)["avx_pct"].get<double>(), shares[1], 5.0) << program->dump();
  EXPECT_NEAR((*program)["scalar_pct"].get<double>(), shares[2], 5.0) << program->dump();
  EXPECT_EQ((*program)["widest"], avx512 ? "avx512" : "avx") << program->dump();

  const Json& functions = report["instruction_mix_functions"];
  const std::pair<const char*, const char*> expected[] = {
      {"avx512_loop", "avx512"}, {"avx2_loop", "avx"}, {"scalar_loop", "scalar"}};
  for (const auto& [function, cls] : expected) {
    const Json* row = RowWhere(functions, "function", function);
    if (!avx512 && std::string(function) == "avx512_loop") {
      EXPECT_EQ(row, nullptr) << "the AVX-512 loop cannot have run here";
      continue;
    }
    ASSERT_NE(row, nullptr) << function << functions.dump(1);
    EXPECT_EQ((*row)["instruction_class"], cls) << row->dump();
    EXPECT_TRUE((*row)["why_unknown"].is_null()) << row->dump();
  }
  const std::string verdict = report["profile"]["instruction_mix"].get<std::string>();
  EXPECT_NE(verdict.find("dlcheck_mix_program ran " + std::string(avx512 ? "AVX-512" : "AVX/AVX2") +
                         " at most"),
            std::string::npos)
      << verdict;
  if (!avx512) {
    EXPECT_TRUE(verdict.starts_with("0 % of CPU time in AVX-512 code")) << verdict;
  }
}

}  // namespace
}  // namespace dlcheck
