// SPDX-License-Identifier: Apache-2.0
// `dlcheck diff`: two recorded runs of the same program under different ISA caps (Debian's
// oneDNN 2.6.3 on an AVX-512 machine, default and ONEDNN_MAX_CPU_ISA=AVX2: the sections of
// tests/data/verbose/generated_2.6.3.txt), compared through the binary (row_diff_test: in-process).
//
// What the recording shows, read by eye from the two sections: under the AVX2 cap the matmul
// and the three training inner products leave brgemm/brg (jit) for gemm:jit, the RNN leaves
// `brgemm` for `ref` (scalar), and every other kind keeps its class.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

#include "compare/diff_fixture.h"
#include "compare/row_diff.h"
#include "support/run_dlcheck.h"

namespace dlcheck::compare {
namespace {

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

// Numbers a report's table holds are read only as finite numbers >= 0: a wrong type is missing
// (its row left out, a finding says so), never 0 or NaN (`exec time -nanx`); and only the
// reports made from a log are compared (a `dispatch` report's table is no log's).
TEST_F(DiffTest, AReportsNumbersAreNumbersAndOnlyLogReportsAreRead) {
  const testing::RunResult json = testing::RunDlcheck({"parse", avx512_, "--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  nlohmann::json doc = nlohmann::json::parse(json.out);
  nlohmann::json& rows = doc["primitives"];
  ASSERT_GE(rows.size(), 4u);
  rows[0]["exec_ms_total"] = "fast";
  rows[1]["execs"] = -3;
  rows[2]["exec_ms_total"] = true;
  const std::string numbers = Write("numbers.json", doc.dump());
  for (const std::string& b : {numbers}) {
    const testing::RunResult diff = testing::RunDlcheck({"diff", avx512_, b, "--format", "json"});
    EXPECT_EQ(diff.exit_code, 0) << diff.err;
    EXPECT_EQ(diff.out.find("nan"), std::string::npos) << diff.out;
    const nlohmann::json out = nlohmann::json::parse(diff.out, nullptr, false);
    ASSERT_FALSE(out.is_discarded()) << diff.out;
    bool said = false;
    for (const auto& finding : out["findings"]) {
      if (finding["code"] == "diff-rows-without-numbers") {
        said = true;
        EXPECT_EQ(finding["message"],
                  b + ": 3 row(s) left out: their execs or exec_ms_total is no number >= 0 (a "
                      "string, a negative, beyond a double)");
      }
    }
    EXPECT_TRUE(said) << diff.out;
    const testing::RunResult table = testing::RunDlcheck({"diff", avx512_, b});
    EXPECT_EQ(table.out.find("nan"), std::string::npos) << table.out;
  }
  doc["command"] = "dispatch";
  const std::string dispatch = Write("dispatch.json", doc.dump());
  const testing::RunResult refused = testing::RunDlcheck({"diff", dispatch, avx512_});
  EXPECT_EQ(refused.exit_code, 3);
  EXPECT_EQ(refused.err, "dlcheck: " + dispatch +
                             ": a dlcheck dispatch report; diff reads verbose logs and the "
                             "--format json reports of 'dlcheck parse', 'verbose' and 'run'\n");
}

}  // namespace
}  // namespace dlcheck::compare
