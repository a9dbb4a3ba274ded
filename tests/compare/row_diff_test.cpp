// SPDX-License-Identifier: Apache-2.0
// `dlcheck diff`: two recorded runs of the same program under different ISA caps (Debian's
// oneDNN 2.6.3 on an AVX-512 machine, default and ONEDNN_MAX_CPU_ISA=AVX2: the sections of
// tests/data/verbose/generated_2.6.3.txt), compared in-process by the compare library.
//
// What the recording shows, read by eye from the two sections: under the AVX2 cap the matmul
// and the three training inner products leave brgemm/brg (jit) for gemm:jit, the RNN leaves
// `brgemm` for `ref` (scalar), and every other kind keeps its class.
#include "compare/row_diff.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "compare/diff_fixture.h"

namespace dlcheck::compare {
namespace {

TEST_F(DiffTest, TheAvx2CapNamesThePrimitivesThatLeftJit) {
  const StatusOr<RunRows> a = LoadRunRows(avx512_);
  const StatusOr<RunRows> b = LoadRunRows(avx2_);
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  // Time is not judged here (an unreachable threshold): only the classes. (The recording's
  // single executions include first-run costs: the matmul's AVX2 run took 1193x as long.)
  const RowDiff diff = CompareRuns(*a, *b, {.threshold_pct = 1e9, .min_share_pct = 1});
  std::multiset<std::string> worse;
  for (const DiffRow& row : diff.rows) {
    if (row.worse_class) worse.insert(row.a->primitive + " " + row.b->fallback);
  }
  const std::multiset<std::string> expected = {"matmul gemm", "inner_product gemm",
                                               "inner_product gemm", "inner_product gemm",
                                               "rnn scalar"};
  EXPECT_EQ(worse, expected);
  EXPECT_EQ(diff.regressions, expected.size());
  // Regressions are listed first.
  for (std::size_t i = 0; i < expected.size(); ++i) EXPECT_TRUE(diff.rows[i].Regressed());
}

TEST_F(DiffTest, EveryRowOfOneRunIsMatchedNewOrVanished) {
  const StatusOr<RunRows> a = LoadRunRows(avx512_);
  const StatusOr<RunRows> b = LoadRunRows(avx2_);
  ASSERT_TRUE(a.ok() && b.ok());
  const RowDiff diff = CompareRuns(*a, *b, {});
  std::size_t from_a = 0;
  std::size_t from_b = 0;
  for (const DiffRow& row : diff.rows) {
    from_a += row.a ? 1 : 0;
    from_b += row.b ? 1 : 0;
    EXPECT_EQ(row.change == Change::kNew, !row.a);
    EXPECT_EQ(row.change == Change::kVanished, !row.b);
  }
  EXPECT_EQ(from_a, a->rows.size());
  EXPECT_EQ(from_b, b->rows.size());
}

// The same inner product executed four times, at these times (ms): a line of the recording
// (generated_2.6.3.txt, default max ISA) with its time replaced.
std::string Executions(const std::vector<std::string>& times_ms) {
  std::string log = "onednn_verbose,info,oneDNN v2.6.3 (commit N/A)\n";
  for (const std::string& ms : times_ms) {
    log +=
        "onednn_verbose,exec,cpu,inner_product,brgemm:avx512_core,forward_training,"
        "src_f32::blocked:ab:f0 wei_f32:p:blocked:AB16b16a:f0 bia_f32::blocked:a:f0 "
        "dst_f32::blocked:ab:f0,,,mb8ic64oc10," +
        ms + "\n";
  }
  return log;
}

// Issue 35 row 8: 1.24x slower on the mean, but each execution of b falls inside a's range:
// within noise, not a regression. Beyond a's slowest execution it is one.
TEST_F(DiffTest, ASlowerMeanWithinTheExecutionsSpreadIsNoise) {
  const StatusOr<RunRows> a = LoadRunRows(Write("a.log", Executions({"1.0", "1.1", "1.5", "0.9"})));
  const StatusOr<RunRows> noisy =
      LoadRunRows(Write("noisy.log", Executions({"1.3", "1.45", "1.4", "1.42"})));
  const StatusOr<RunRows> slower =
      LoadRunRows(Write("slower.log", Executions({"1.6", "1.7", "1.65", "1.62"})));
  ASSERT_TRUE(a.ok() && noisy.ok() && slower.ok());
  const RowDiff within = CompareRuns(*a, *noisy, {});
  ASSERT_EQ(within.rows.size(), 1u);
  EXPECT_NEAR(*within.rows[0].ratio, 1.24, 0.005);
  EXPECT_TRUE(within.rows[0].within_noise);
  EXPECT_FALSE(within.rows[0].Regressed());
  EXPECT_EQ(within.regressions, 0u);
  const report::Report report = DiffReport(within);
  EXPECT_NE(report.headline.find("0 regression(s)"), std::string::npos) << report.headline;
  EXPECT_NE(report.headline.find("; 1 within noise"), std::string::npos) << report.headline;
  bool said = false;
  for (const Finding& f : report.findings) said = said || f.code == "diff-within-noise";
  EXPECT_TRUE(said);

  const RowDiff beyond = CompareRuns(*a, *slower, {});
  EXPECT_FALSE(beyond.rows[0].within_noise);
  EXPECT_TRUE(beyond.rows[0].slower);
  EXPECT_EQ(beyond.regressions, 1u);
}

// Two `run` reports: the program's wall time and oneDNN's share of it beside the rows; a report
// without the min/max columns has no range, and its slower rows are judged on the mean.
TEST_F(DiffTest, RunReportsShowWallTimeAndOneDnnsShare) {
  const auto report = [](double wall_s, double pct, double exec_ms) {
    return "{\"command\": \"run\", \"run\": {\"wall_s\": " + std::to_string(wall_s) +
           ", \"exec_pct_of_wall\": " + std::to_string(pct) +
           "}, \"primitives\": [{\"engine\": \"cpu\", \"primitive\": \"convolution\", "
           "\"implementation\": \"brgemm:avx512_core\", \"execs\": 10, \"exec_ms_total\": " +
           std::to_string(exec_ms) + "}]}\n";
  };
  const StatusOr<RunRows> a = LoadRunRows(Write("a.json", report(12.4, 12.6, 100)));
  const StatusOr<RunRows> b = LoadRunRows(Write("b.json", report(11.9, 13.1, 130)));
  ASSERT_TRUE(a.ok()) << a.status().message();
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_DOUBLE_EQ(*a->wall_s, 12.4);
  EXPECT_DOUBLE_EQ(*b->exec_pct_of_wall, 13.1);
  EXPECT_FALSE(a->rows[0].exec_ms_min);
  const RowDiff diff = CompareRuns(*a, *b, {});
  EXPECT_EQ(diff.regressions, 1u);
  const report::Report r = DiffReport(diff);
  EXPECT_NE(r.headline.find("; wall 12.40 s -> 11.90 s (0.96x), oneDNN 12.6 % -> 13.1 % of it"),
            std::string::npos)
      << r.headline;
  // A log has no wall time: nothing said of it.
  const StatusOr<RunRows> log = LoadRunRows(avx512_);
  EXPECT_FALSE(log->wall_s);
  EXPECT_EQ(DiffReport(CompareRuns(*log, *log, {})).headline.find("wall"), std::string::npos);
}

}  // namespace
}  // namespace dlcheck::compare
