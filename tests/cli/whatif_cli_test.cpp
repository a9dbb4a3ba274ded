// `dlcheck whatif` run on real logs: invariants of its document that hold on any x86-64 host
// (every hot row rebuilt or noted, the figures consistent with each other), and, for a log this
// host makes itself, the baseline picking the log's implementation.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

namespace dlcheck {
namespace {

using Json = nlohmann::json;
using testing::RunDlcheck;

std::string Log(const std::string& name) {
  return testing::DataPath("verbose/" + name);
}

Json WhatifJson(std::vector<std::string> args) {
  args.insert(args.begin(), {"whatif", "--format", "json"});
  const testing::RunResult r = RunDlcheck(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return Json::parse(r.out);
}

// Every hot row has one `as logged` row, measured or saying why not; every measured variant's
// speed-up and step gain follow from its times and its row's share.
void CheckInvariants(const Json& doc) {
  const Json& variants = doc["variants"];
  const std::int64_t hot_rows = doc["measurement"]["hot_rows"].get<std::int64_t>();
  std::map<std::int64_t, double> baseline;
  std::set<std::int64_t> seen;
  for (const Json& row : variants) {
    const std::int64_t hot = row["hot"].get<std::int64_t>();
    seen.insert(hot);
    if (row["variant"] == "as logged") {
      EXPECT_EQ(baseline.count(hot), 0u) << "two baselines for hot row " << hot;
      if (row["min_ms"].is_number()) {
        baseline[hot] = row["min_ms"].get<double>();
        EXPECT_DOUBLE_EQ(row["speedup"].get<double>(), 1.0);
      } else {
        ASSERT_TRUE(row["note"].is_string());
        const std::string note = row["note"].get<std::string>();
        EXPECT_TRUE(note.rfind("not rebuilt: ", 0) == 0 || note.rfind("not measured: ", 0) == 0)
            << row.dump();
      }
    }
    if (!row["min_ms"].is_number()) {
      EXPECT_TRUE(row["note"].is_string()) << "a variant that did not run says why: " << row.dump();
      continue;
    }
    EXPECT_GE(row["runs"].get<std::int64_t>(), 1);
    EXPECT_LE(row["min_ms"].get<double>(), row["avg_ms"].get<double>() * 1.0001);
    EXPECT_FALSE(row["implementation"].get<std::string>().empty());
    if (row["benchdnn"].is_string()) {
      EXPECT_EQ(row["benchdnn"].get<std::string>().rfind("OMP_NUM_THREADS=", 0), 0u);
    }
    const double speedup = row["speedup"].get<double>();
    const double share = row["time_pct"].get<double>();
    EXPECT_NEAR(row["step_gain_pct"].get<double>(), share * (1 - 1 / speedup),
                0.06 + 0.01 * std::fabs(share / speedup));
  }
  EXPECT_EQ(static_cast<std::int64_t>(seen.size()), hot_rows);
  EXPECT_LE(static_cast<std::int64_t>(baseline.size()),
            doc["measurement"]["rebuilt"].get<std::int64_t>());
  double last = 1e300;
  for (const Json& change : doc["changes"]) {
    EXPECT_GT(change["speedup"].get<double>(), 1.0);
    EXPECT_LE(change["step_gain_pct"].get<double>(), last);
    last = change["step_gain_pct"].get<double>();
  }
}

TEST(WhatifCli, CnnLogEveryHotRowRebuiltOrNoted) {
  const Json doc = WhatifJson(
      {"--time", "0", "--variants", "layouts,impl,threads,dtype", Log("torch_cnn_2.6.3.log")});
  CheckInvariants(doc);
  EXPECT_EQ(doc["measurement"]["hot_rows"], doc["measurement"]["rebuilt"]);
  EXPECT_EQ(doc["measurement"]["threads_source"], "the log's nthr:1");
  // The convolutions' layouts variant names its reorders or says there are none.
  for (const Json& row : doc["variants"]) {
    if (row["variant"] == "layouts any" && row["min_ms"].is_number()) {
      const std::string note = row["note"].get<std::string>();
      EXPECT_TRUE(note.rfind("includes reorders", 0) == 0 || note.rfind("no reorder", 0) == 0)
          << note;
    }
  }
}

// Lines of every era: rows 2.6.3 cannot rebuild are there, with their reason.
TEST(WhatifCli, OtherErasAreNotedNotSkipped) {
  const Json doc = WhatifJson({"--time", "0", "--variants", "none", "--cover", "100", "--top",
                               "1000", Log("real_lines.txt")});
  CheckInvariants(doc);
  EXPECT_LT(doc["measurement"]["rebuilt"].get<std::int64_t>(),
            doc["measurement"]["hot_rows"].get<std::int64_t>());
}

// The verdict is the first line on a terminal and the measurement's `verdict` in JSON.
TEST(WhatifCli, VerdictComesFirst) {
  const testing::RunResult r = RunDlcheck(
      {"whatif", "--time", "0", "--top", "2", "--variants", "none", Log("torch_cnn_2.6.3.log")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json doc =
      WhatifJson({"--time", "0", "--top", "2", "--variants", "none", Log("torch_cnn_2.6.3.log")});
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), doc["measurement"]["verdict"].get<std::string>());
}

TEST(WhatifCli, UnknownVariantIsAUsageError) {
  const testing::RunResult r =
      RunDlcheck({"whatif", "--variants", "layout", Log("torch_cnn_2.6.3.log")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "dlcheck: --variants: 'layout' is not one of layouts, impl, threads, dtype, isa, none "
            "(see 'dlcheck whatif --help')\n");
}

class WhatifOwnLog : public testing::ScratchDirTest {};

// A log this host makes (dlcheck's own CNN through oneDNN 2.6.3): the baselines pick the log's
// implementation in at least 95 % of the rebuilt rows.
TEST_F(WhatifOwnLog, BaselineAgreesWithTheLog) {
  const std::string log = (dir_ / "cnn.log").string();
  const testing::RunResult made =
      RunDlcheck({"verbose", "--model", "cnn", "--iters", "2", "--warmup", "0", "--traced", "2",
                  "--batch", "16", "--threads", "1", "--raw-log", log});
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const Json doc =
      WhatifJson({"--time", "0", "--variants", "none", "--cover", "100", "--top", "30", log});
  CheckInvariants(doc);
  std::size_t rebuilt = 0, agree = 0;
  for (const Json& row : doc["variants"]) {
    if (row["variant"] != "as logged" || !row["min_ms"].is_number()) continue;
    ++rebuilt;
    if (row["implementation"] == row["logged_implementation"]) ++agree;
  }
  ASSERT_GT(rebuilt, 0u);
  EXPECT_GE(static_cast<double>(agree), 0.95 * static_cast<double>(rebuilt))
      << doc["measurement"]["implementation_agreement"];
}

}  // namespace
}  // namespace dlcheck
