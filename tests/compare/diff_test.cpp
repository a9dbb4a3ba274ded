// `dlcheck diff`: two recorded runs of the same program under different ISA caps (Debian's
// oneDNN 2.6.3 on an AVX-512 machine, default and ONEDNN_MAX_CPU_ISA=AVX2: the sections of
// tests/data/verbose/generated_2.6.3.txt), compared in-process and through the binary.
//
// What the recording shows, read by eye from the two sections: under the AVX2 cap the matmul
// and the three training inner products leave brgemm/brg (jit) for gemm:jit, the RNN leaves
// `brgemm` for `ref` (scalar), and every other kind keeps its class.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "compare/row_diff.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

namespace dlcheck::compare {
namespace {

// The lines of the section of generated_2.6.3.txt whose `# source:` line contains `marker`.
std::string Section(const std::string& marker) {
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

TEST_F(DiffTest, ARunAgainstItselfHasNoRegressionAndExitsZero) {
  const testing::RunResult same = testing::RunDlcheck({"diff", avx512_, avx512_});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_NE(same.out.find("0 regression(s)"), std::string::npos) << same.out;
}

TEST_F(DiffTest, TheCappedRunRegressesAndExitsOne) {
  const testing::RunResult capped =
      testing::RunDlcheck({"diff", avx512_, avx2_, "--threshold", "1000"});
  EXPECT_EQ(capped.exit_code, 1) << capped.err;
  EXPECT_NE(capped.out.find("rnn"), std::string::npos);
  EXPECT_NE(capped.out.find("(5 to a worse class)"), std::string::npos) << capped.out;
}

TEST_F(DiffTest, AJsonReportComparesLikeItsLog) {
  const testing::RunResult json = testing::RunDlcheck({"parse", avx512_, "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const std::string report = Write("avx512.json", json.out);
  const StatusOr<RunRows> from_json = LoadRunRows(report);
  const StatusOr<RunRows> from_log = LoadRunRows(avx512_);
  ASSERT_TRUE(from_json.ok()) << from_json.status().message();
  ASSERT_TRUE(from_log.ok());
  ASSERT_EQ(from_json->rows.size(), from_log->rows.size());
  const RowDiff diff = CompareRuns(*from_log, *from_json, {});
  for (const DiffRow& row : diff.rows) {
    EXPECT_EQ(row.change, Change::kSame) << (row.a ? row.a->primitive : row.b->primitive);
  }
  EXPECT_EQ(diff.regressions, 0u);
}

TEST_F(DiffTest, InputsWithoutRowsAreInputErrors) {
  const std::string not_a_report = Write("other.json", "{\"command\": \"platform\"}\n");
  const testing::RunResult json = testing::RunDlcheck({"diff", not_a_report, avx512_});
  EXPECT_EQ(json.exit_code, 3);
  EXPECT_NE(json.err.find("no primitives table"), std::string::npos) << json.err;
  const std::string broken = Write("broken.json", "{\"primitives\": [");
  EXPECT_EQ(testing::RunDlcheck({"diff", broken, avx512_}).exit_code, 3);
  const std::string empty = Write("empty.log", "hello\n");
  const testing::RunResult no_rows = testing::RunDlcheck({"diff", empty, avx512_});
  EXPECT_EQ(no_rows.exit_code, 3);
  EXPECT_NE(no_rows.err.find("no primitive rows"), std::string::npos) << no_rows.err;
  EXPECT_EQ(testing::RunDlcheck({"diff", avx512_, (dir_ / "missing.log").string()}).exit_code, 3);
}

}  // namespace
}  // namespace dlcheck::compare
