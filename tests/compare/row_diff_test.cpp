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

}  // namespace
}  // namespace dlcheck::compare
