// SPDX-License-Identifier: Apache-2.0
// The sweep's comparison, in-process on constructed runs: the fastest cap of a primitive (the
// model's by its time, a program's only apart from the others' spread), the speedups over the
// scalar kernels and the lowest cap, per configuration samples/s, a thread set's efficiency and
// a row's fraction of the cap's peak. No worker, no program, any host.
#include "dispatch/sweep_compare.h"

#include <gtest/gtest.h>

#include <csignal>

namespace dlcheck::dispatch {
namespace {

// A row of `ms` over one timed execution.
verbose::PrimitiveStats Row(std::string layer, std::string primitive, double ms,
                            std::string implementation = "brgemm:avx2") {
  verbose::PrimitiveStats row;
  row.engine = "cpu";
  if (!layer.empty()) row.layer = std::move(layer);
  row.primitive = std::move(primitive);
  row.implementation = std::move(implementation);
  row.prop_kind = "forward_training";
  row.problem = "mb64ic784oc128";
  row.execs = 1;
  row.timed_execs = 1;
  row.exec_ms_total = ms;
  return row;
}

os::Outcome Exited(int code) {
  return os::Outcome{.exited = true, .exit_code = code};
}

// A model run under `config`: its rows, samples/s and the cap's peaks.
ConfigRuns Model(RunConfig config, std::vector<verbose::PrimitiveStats> rows,
                 std::optional<double> sps = std::nullopt, int threads = 0) {
  dispatch::Run run;
  run.outcome = Exited(0);
  run.rows = std::move(rows);
  WorkerResults& results = run.model.emplace().results;
  results.samples_per_s = sps;
  return {.config = {.run = std::move(config), .threads = threads}, .runs = {std::move(run)}};
}

// A cap whose worker was killed before it printed a row.
ConfigRuns FailedModel(std::string cap) {
  ConfigRuns r = Model(CapConfig{std::move(cap)}, {});
  r.runs[0].outcome = os::Outcome{.signaled = true, .signal = SIGILL};
  return r;
}

// A program's runs under `config`, one row of `ms` per run.
ConfigRuns Program(RunConfig config, const std::vector<double>& ms) {
  ConfigRuns r{.config = {.run = std::move(config)}};
  for (const double m : ms) {
    dispatch::Run run;
    run.outcome = Exited(0);
    run.rows = {Row("", "matmul", m)};
    run.summary.exec_ms = m;
    r.runs.push_back(std::move(run));
  }
  return r;
}

PrimitiveKey KeyNamed(const std::string& layer, const std::string& primitive) {
  return KeyOf(Row(layer, primitive, 0));
}

// The cap name of a key's fastest configuration, "" when none is named.
std::string FastestCap(const SweepComparison& c, const PrimitiveKey& k) {
  const std::optional<std::size_t> fastest = c.by_key.at(k).fastest;
  return fastest ? c.configs[*fastest].config.cap()->isa : "";
}

// ---- per key --------------------------------------------------------------------------------

TEST(SweepCompareTest, TheModelsFastestCapIsTheLowestTimeWithItsSpeedups) {
  const std::vector<ConfigRuns> runs = {
      Model(CapConfig{"sse41"}, {Row("fc1", "inner_product", 8), Row("relu1", "eltwise", 2)}),
      Model(CapConfig{"avx2"}, {Row("fc1", "inner_product", 4), Row("relu1", "eltwise", 2)}),
      Model(CapConfig{"avx512_core"}, {Row("fc1", "inner_product", 2)}),
      Model(ScalarConfig{}, {Row("fc1", "inner_product", 32, "dlcheck:scalar"),
                             Row("relu1", "eltwise", 4, "dlcheck:scalar")})};
  const SweepComparison c = CompareSweep(runs, 2);
  EXPECT_TRUE(c.model);
  EXPECT_EQ(c.caps, (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(c.scalar, 3u);
  ASSERT_EQ(c.keys.size(), 2u);
  EXPECT_EQ(c.keys[0], KeyNamed("fc1", "inner_product")) << "first-seen order";

  const KeyComparison& fc1 = c.by_key.at(c.keys[0]);
  ASSERT_EQ(fc1.cells.size(), 4u);
  ASSERT_TRUE(fc1.cells[0]);
  EXPECT_DOUBLE_EQ(fc1.cells[0]->ms, 4) << "ms per step: 8 ms over 2 traced steps";
  EXPECT_EQ(fc1.cells[0]->cell.implementation, "brgemm:avx2");
  EXPECT_DOUBLE_EQ(fc1.cells[3]->ms, 16);
  EXPECT_DOUBLE_EQ(fc1.scalar_ms.value(), 16) << "the scalar kernels' column";
  EXPECT_EQ(FastestCap(c, c.keys[0]), "avx512_core");
  EXPECT_DOUBLE_EQ(fc1.speedup_vs_scalar.value(), 16);  // 32 / 2
  EXPECT_DOUBLE_EQ(fc1.speedup_vs_lowest.value(), 4);   // 8 / 2
  // Every cell carries its own speedups; the scalar run has none over the lowest cap.
  EXPECT_DOUBLE_EQ(fc1.cells[1]->speedup_vs_scalar.value(), 8);
  EXPECT_DOUBLE_EQ(fc1.cells[1]->speedup_vs_lowest.value(), 2);
  EXPECT_DOUBLE_EQ(fc1.cells[3]->speedup_vs_scalar.value(), 1);
  EXPECT_FALSE(fc1.cells[3]->speedup_vs_lowest);

  // sse41 and avx2 tie; avx512_core did not run the key: the model names the first of the two.
  const KeyComparison& relu = c.by_key.at(c.keys[1]);
  EXPECT_FALSE(relu.cells[2]);
  EXPECT_EQ(FastestCap(c, c.keys[1]), "sse41");
  EXPECT_DOUBLE_EQ(relu.speedup_vs_scalar.value(), 2);
  EXPECT_DOUBLE_EQ(relu.speedup_vs_lowest.value(), 1);
}

TEST(SweepCompareTest, ACapThatFailedIsNeverTheFastest) {
  const std::vector<ConfigRuns> runs = {
      Model(CapConfig{"sse41"}, {Row("fc1", "inner_product", 8)}), FailedModel("avx2"),
      Model(ScalarConfig{}, {Row("fc1", "inner_product", 16), Row("fc2", "inner_product", 3)})};
  const SweepComparison c = CompareSweep(runs);
  ASSERT_EQ(c.keys.size(), 2u);
  const KeyComparison& fc1 = c.by_key.at(c.keys[0]);
  EXPECT_FALSE(fc1.cells[1]) << "the failed cap has no rows";
  EXPECT_EQ(FastestCap(c, c.keys[0]), "sse41");
  EXPECT_DOUBLE_EQ(fc1.speedup_vs_scalar.value(), 2);
  // A key only the scalar kernels ran comes last, with no cap to be the fastest.
  EXPECT_EQ(c.keys[1], KeyNamed("fc2", "inner_product"));
  const KeyComparison& fc2 = c.by_key.at(c.keys[1]);
  EXPECT_FALSE(fc2.fastest);
  EXPECT_FALSE(fc2.speedup_vs_scalar);
  ASSERT_TRUE(fc2.cells[2]);
  EXPECT_DOUBLE_EQ(fc2.cells[2]->ms, 3);
  EXPECT_DOUBLE_EQ(fc2.scalar_ms.value(), 3);
  // Every cap failed: nothing is the fastest.
  const SweepComparison none = CompareSweep({FailedModel("sse41"), FailedModel("avx2"), runs[2]});
  for (const PrimitiveKey& k : none.keys) EXPECT_FALSE(none.by_key.at(k).fastest);
}

TEST(SweepCompareTest, AProgramsFastestCapStandsApartFromTheOthers) {
  const PrimitiveKey matmul = KeyNamed("", "matmul");
  const auto fastest = [&](const std::vector<ConfigRuns>& runs) {
    const SweepComparison c = CompareSweep(runs);
    EXPECT_FALSE(c.model);
    return FastestCap(c, matmul);
  };
  EXPECT_EQ(fastest({Program(CapConfig{"sse41"}, {2.0, 2.1, 2.2}),
                     Program(CapConfig{"avx2"}, {1.0, 1.1, 1.2})}),
            "avx2");
  EXPECT_EQ(fastest({Program(CapConfig{"sse41"}, {2.0, 2.1, 2.2}),
                     Program(CapConfig{"avx2"}, {1.0, 1.1, 2.05})}),
            "")
      << "the runs overlap";
  EXPECT_EQ(fastest({Program(CapConfig{"sse41"}, {1.0, 1.0, 1.0}),
                     Program(CapConfig{"avx2"}, {1.0, 1.0, 1.0})}),
            "")
      << "a tie";
  EXPECT_EQ(fastest({Program(CapConfig{"sse41"}, {2.0}), Program(CapConfig{"avx2"}, {1.0})}), "")
      << "one run each: no spread to separate by";
  // The median of the runs is the cell's time.
  const SweepComparison c = CompareSweep({Program(CapConfig{"avx2"}, {1.0, 3.0, 2.0})});
  EXPECT_DOUBLE_EQ(c.by_key.at(matmul).cells[0]->ms, 2.0);
  EXPECT_DOUBLE_EQ(c.configs[0].exec_ms, 2.0) << "the median of the runs' exec_ms";
  EXPECT_FALSE(c.configs[0].samples_per_s);
}

// A cap whose runs did not all exit 0 is never the fastest, even with the lowest times.
TEST(SweepCompareTest, AProgramsCapThatFailedIsNeverTheFastest) {
  const PrimitiveKey matmul = KeyNamed("", "matmul");
  std::vector<ConfigRuns> runs = {Program(CapConfig{"sse41"}, {2.0, 2.1, 2.2}),
                                  Program(CapConfig{"avx2"}, {1.0, 1.1, 1.2}),
                                  Program(CapConfig{"avx512_core"}, {1.5, 1.6, 1.7})};
  runs[1].runs[2].outcome = Exited(1);
  const SweepComparison c = CompareSweep(runs);
  EXPECT_FALSE(c.configs[1].succeeded);
  EXPECT_TRUE(c.configs[2].succeeded);
  EXPECT_EQ(FastestCap(c, matmul), "avx512_core");
  EXPECT_EQ(c.RankedCaps(), (std::vector<std::size_t>{0, 2}));
}

// The `fastest` column of a program sweep: named only when its runs stand apart from every
// other configuration's that ran the primitive.
TEST(SweepCompareTest, TheFastestIsNamedOnlyWhenItStandsApart) {
  const auto walls = [](double min, double median, double max) {
    return Spread{.runs = 3, .median = median, .min = min, .max = max};
  };
  const Spread slow = walls(2.0, 2.1, 2.2), fast = walls(1.0, 1.1, 1.2),
               near = walls(1.15, 1.3, 1.4);
  EXPECT_EQ(SeparatedFastest({slow, fast}), 1u);
  EXPECT_EQ(SeparatedFastest({slow, std::nullopt, fast}), 2u) << "a cap without the primitive";
  EXPECT_FALSE(SeparatedFastest({slow, fast, near})) << "fast and near overlap";
  EXPECT_FALSE(SeparatedFastest({std::nullopt, std::nullopt}));
  EXPECT_FALSE(SeparatedFastest({Spread{.runs = 1, .median = 1, .min = 1, .max = 1},
                                 Spread{.runs = 1, .median = 2, .min = 2, .max = 2}}))
      << "one run each: no spread to separate by";
}

// ---- per configuration ----------------------------------------------------------------------

TEST(SweepCompareTest, SamplesPerSecondAndItsSpeedupsPerConfiguration) {
  const std::vector<ConfigRuns> runs = {Model(CapConfig{"sse41"}, {}, 100),
                                        Model(CapConfig{"avx2"}, {}, 250),
                                        Model(ScalarConfig{}, {}, 10),
                                        Model(ThreadSetConfig{.name = "1"}, {}, 200, 1),
                                        Model(ThreadSetConfig{.name = "socket"}, {}, 600, 4),
                                        Model(ThreadSetConfig{.name = "inherited"}, {}, 400, 0)};
  const SweepComparison c = CompareSweep(runs);
  EXPECT_EQ(c.thread_sets, (std::vector<std::size_t>{3, 4, 5}));
  const ConfigComparison& avx2 = c.configs[1];
  EXPECT_DOUBLE_EQ(avx2.samples_per_s.value(), 250);
  EXPECT_DOUBLE_EQ(avx2.speedup_vs_scalar.value(), 25);
  EXPECT_DOUBLE_EQ(avx2.speedup_vs_lowest.value(), 2.5);
  EXPECT_DOUBLE_EQ(c.configs[0].speedup_vs_lowest.value(), 1);
  EXPECT_DOUBLE_EQ(c.configs[2].speedup_vs_scalar.value(), 1) << "the scalar run against itself";
  EXPECT_FALSE(c.configs[2].speedup_vs_lowest) << "the scalar run is no cap";
  EXPECT_FALSE(avx2.speedup_vs_first_set) << "a cap is no thread set";
  // Thread sets: over the first set, and per thread asked.
  const ConfigComparison& socket = c.configs[4];
  EXPECT_FALSE(socket.speedup_vs_scalar);
  EXPECT_FALSE(socket.speedup_vs_lowest);
  EXPECT_DOUBLE_EQ(c.configs[3].speedup_vs_first_set.value(), 1);
  EXPECT_DOUBLE_EQ(c.configs[3].efficiency.value(), 1);
  EXPECT_DOUBLE_EQ(socket.speedup_vs_first_set.value(), 3);
  EXPECT_DOUBLE_EQ(socket.efficiency.value(), 0.75);  // 3x on 4 threads where 1 ran at 1x
  EXPECT_DOUBLE_EQ(c.configs[5].speedup_vs_first_set.value(), 2);
  EXPECT_FALSE(c.configs[5].efficiency) << "no thread count asked";
}

TEST(SweepCompareTest, WithoutAMeasurementThereIsNoSpeedup) {
  const std::vector<ConfigRuns> runs = {Model(CapConfig{"sse41"}, {}), FailedModel("avx2"),
                                        Model(ScalarConfig{}, {}, 0)};
  const SweepComparison c = CompareSweep(runs);
  for (const ConfigComparison& config : c.configs) {
    EXPECT_FALSE(config.speedup_vs_scalar) << config.config.Name();
    EXPECT_FALSE(config.speedup_vs_lowest) << config.config.Name();
  }
}

TEST(SweepCompareTest, ARowsPeakFractionIsItsRateOverTheCapsPeakOnItsThreads) {
  verbose::PrimitiveStats fc1 = Row("fc1", "inner_product", 2);
  fc1.flops = 2e7;  // 2e7 flop in 2 ms: 10 GFLOP/s
  verbose::PrimitiveStats unexecuted = Row("fc9", "inner_product", 0);
  unexecuted.execs = 0;
  unexecuted.timed_execs = 0;
  std::vector<ConfigRuns> runs = {Model(CapConfig{"avx2"}, {fc1, unexecuted}, 100, 2),
                                  Model(ScalarConfig{}, {fc1}, 10, 2)};
  runs[0].runs[0].model->results.peak_gflops = {{"avx2", 4}, {"sse41", 2}};
  runs[0].runs[0].header.threads = 5;  // what oneDNN said it ran, over what was asked
  const SweepComparison c = CompareSweep(runs, 2);
  const ConfigComparison& avx2 = c.configs[0];
  EXPECT_DOUBLE_EQ(avx2.peak_gflops.value(), 4) << "avx2's peak, not sse41's";
  EXPECT_EQ(avx2.threads, 5);
  ASSERT_EQ(avx2.rows.size(), 2u) << "one per row of the first run";
  EXPECT_DOUBLE_EQ(avx2.rows[0].peak_fraction.value(), 0.5);  // 10 / (4 x 5)
  EXPECT_DOUBLE_EQ(avx2.rows[0].ms, 1) << "per step";
  EXPECT_DOUBLE_EQ(avx2.rows[0].speedup_vs_scalar.value(), 1);
  EXPECT_DOUBLE_EQ(avx2.rows[0].speedup_vs_lowest.value(), 1);
  EXPECT_FALSE(avx2.rows[1].peak_fraction) << "no work done";
  EXPECT_FALSE(avx2.rows[1].speedup_vs_scalar) << "not executed: not compared";
  const ConfigComparison& scalar = c.configs[1];
  EXPECT_FALSE(scalar.peak_gflops) << "no cap, no peak";
  EXPECT_FALSE(scalar.rows[0].peak_fraction);
  EXPECT_EQ(scalar.threads, 2) << "as asked, when oneDNN said nothing";
}

TEST(SweepCompareTest, SamplesSpreadOverTheTimedChunks) {
  ConfigRuns r = Model(CapConfig{"avx2"}, {}, 100);
  EXPECT_EQ(CompareSweep({r}).configs[0].samples.runs, 1u) << "no chunks: one measurement";
  WorkerResults& res = r.runs[0].model->results;
  res.samples_per_s_min = 90;
  res.samples_per_s_max = 120;
  res.timed_chunks = 4;
  const Spread s = CompareSweep({r}).configs[0].samples;
  EXPECT_EQ(s.runs, 4u);
  EXPECT_DOUBLE_EQ(s.median, 100);
  EXPECT_DOUBLE_EQ(s.min, 90);
  EXPECT_DOUBLE_EQ(s.max, 120);
  EXPECT_EQ(CompareSweep({Program(CapConfig{"avx2"}, {1.0})}).configs[0].samples.runs, 0u)
      << "a program measures no samples";
}

// Issue 35 row 3: caps that ran the same kernel tie, whichever was faster by a hair; a cap
// with another kernel stands alone.
TEST(SweepCompareTest, CapsThatRanTheSameKernelTie) {
  const auto named = [](verbose::PrimitiveStats row, std::string isa) {
    row.isa = std::move(isa);
    return row;
  };
  const std::vector<ConfigRuns> runs = {
      Model(CapConfig{"avx2"}, {named(Row("fc1", "inner_product", 4, "jit:avx2"), "avx2")}),
      Model(CapConfig{"avx512_core"},
            {named(Row("fc1", "inner_product", 2.02, "brgemm:avx512_core"), "avx512_core")}),
      Model(CapConfig{"avx512_core_vnni"},
            {named(Row("fc1", "inner_product", 2.0, "brgemm:avx512_core"), "avx512_core")}),
      Model(CapConfig{"avx512_core_bf16"},
            {named(Row("fc1", "inner_product", 2.01, "brgemm:avx512_core"), "avx512_core")})};
  const SweepComparison c = CompareSweep(runs);
  const KeyComparison& fc1 = c.by_key.at(c.keys[0]);
  EXPECT_EQ(FastestCap(c, c.keys[0]), "avx512_core_vnni");
  EXPECT_EQ(fc1.tied, (std::vector<std::size_t>{1, 3}));
  // Another kernel under each cap: the fastest stands alone.
  const SweepComparison apart = CompareSweep(
      {Model(CapConfig{"avx2"}, {named(Row("fc1", "inner_product", 4, "jit:avx2"), "avx2")}),
       Model(CapConfig{"avx512_core"},
             {named(Row("fc1", "inner_product", 2, "brgemm:avx512_core"), "avx512_core")})});
  EXPECT_TRUE(apart.by_key.at(apart.keys[0]).tied.empty());
  // jit:uni names no ISA (its ISA was inferred from the header): it picks its code under the
  // cap, so the same name is not the same kernel.
  auto uni = [](double ms) {
    verbose::PrimitiveStats row = Row("fc1", "reorder", ms, "jit:uni");
    row.isa = "avx2";
    row.isa_inferred = true;
    return row;
  };
  const SweepComparison inferred =
      CompareSweep({Model(CapConfig{"avx"}, {uni(2)}), Model(CapConfig{"avx2"}, {uni(1)})});
  EXPECT_TRUE(inferred.by_key.at(inferred.keys[0]).tied.empty());
}

}  // namespace
}  // namespace dlcheck::dispatch
