// SPDX-License-Identifier: Apache-2.0
// The worker protocol, the FMA peak and the sweep's building blocks, in-process.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>

#include "dispatch/worker_protocol.h"

namespace dlcheck::dispatch {
namespace {

TEST(WorkerProtocolTest, RoundTripsEveryKind) {
  // The messages view the lines, so the lines must outlive them.
  const std::string layer_line = LayerLine("fc1", "forward");
  const auto layer = ParseWorkerLine(layer_line);
  ASSERT_TRUE(layer);
  EXPECT_EQ(layer->kind, WorkerMessage::Kind::kLayer);
  EXPECT_EQ(layer->name, "fc1");
  EXPECT_EQ(layer->value, "forward");

  const std::string phase_line = PhaseLine("traced");
  const auto phase = ParseWorkerLine(phase_line);
  ASSERT_TRUE(phase);
  EXPECT_EQ(phase->kind, WorkerMessage::Kind::kPhase);
  EXPECT_EQ(phase->name, "traced");

  const std::string fallback_line = FallbackLine("fc2", "no bf16, says oneDNN\n(unimplemented)");
  EXPECT_EQ(fallback_line, "dlcheck_worker,fallback,fc2,no bf16, says oneDNN (unimplemented)");
  const auto fallback = ParseWorkerLine(fallback_line);
  ASSERT_TRUE(fallback);
  EXPECT_EQ(fallback->kind, WorkerMessage::Kind::kFallback);
  EXPECT_EQ(fallback->value, "no bf16, says oneDNN (unimplemented)");

  const std::string result_line = ResultLine("samples_per_s", "1234.5");
  const auto result = ParseWorkerLine(result_line);
  ASSERT_TRUE(result);
  EXPECT_EQ(result->kind, WorkerMessage::Kind::kResult);
  EXPECT_EQ(result->name, "samples_per_s");
  EXPECT_EQ(result->value, "1234.5");
}

// A number leaves the worker as text and comes back as the very same double.
TEST(WorkerProtocolTest, NumbersRoundTripExactly) {
  WorkerResults results;
  for (const double value : {104233.53125, 0.1, 1.0 / 3.0, 6.02214076e23, 2.5e-9}) {
    const std::string line = ResultLine(result_key::kSamplesPerS, value);
    const auto msg = ParseWorkerLine(line);
    ASSERT_TRUE(msg) << line;
    ASSERT_TRUE(RecordResult(results, msg->name, msg->value)) << line;
    EXPECT_EQ(results.samples_per_s, value) << line;
  }
  // Shortest form: 0.1 is written as 0.1, not 0.100000 or 0.10000000000000001.
  EXPECT_EQ(ResultLine("loss_first", 0.1), "dlcheck_worker,result,loss_first,0.1");
  EXPECT_EQ(ResultLine("train_samples", std::int64_t{60000}),
            "dlcheck_worker,result,train_samples,60000");
}

TEST(WorkerProtocolTest, ResultsAreTyped) {
  WorkerResults r;
  EXPECT_TRUE(RecordResult(r, "backend", "onednn"));
  EXPECT_TRUE(RecordResult(r, "train_samples", "1000"));
  EXPECT_TRUE(RecordResult(r, "max_deviation", "3.5e-07"));
  EXPECT_TRUE(RecordResult(r, "deviation_tensor", "fc1.weight.grad"));
  EXPECT_TRUE(RecordResult(r, "peak_gflops_avx2", "118.25"));
  EXPECT_EQ(r.backend, "onednn");
  EXPECT_EQ(r.train_samples, 1000);
  EXPECT_EQ(r.max_deviation, 3.5e-07);
  EXPECT_EQ(r.deviation_tensor, "fc1.weight.grad");
  EXPECT_EQ(r.peak_gflops.at("avx2"), 118.25);
  EXPECT_FALSE(r.samples_per_s.has_value());
  EXPECT_EQ(NumericResult(r, "train_samples"), 1000.0);
  EXPECT_EQ(NumericResult(r, "peak_gflops_avx2"), 118.25);
  EXPECT_EQ(NumericResult(r, "peak_gflops_sse41"), std::nullopt);
  EXPECT_EQ(NumericResult(r, "backend"), std::nullopt);
  EXPECT_TRUE(r.malformed.empty());
}

TEST(WorkerProtocolTest, MalformedResultsAreKeptAsideNotGuessed) {
  WorkerResults r;
  EXPECT_FALSE(RecordResult(r, "samples_per_s", "12abc"));
  EXPECT_FALSE(RecordResult(r, "train_samples", "1.5"));
  EXPECT_FALSE(RecordResult(r, "no_such_key", "1"));
  EXPECT_FALSE(r.samples_per_s.has_value());
  EXPECT_FALSE(r.train_samples.has_value());
  EXPECT_EQ(r.malformed, (std::vector<std::string>{"samples_per_s,12abc", "train_samples,1.5",
                                                   "no_such_key,1"}));
}

TEST(WorkerProtocolTest, OtherLinesAreNotWorkerLines) {
  EXPECT_FALSE(ParseWorkerLine("onednn_verbose,exec,cpu,reorder,jit:uni,undef,,,,1x2,0.01"));
  EXPECT_FALSE(ParseWorkerLine("dlcheck_worker,"));
  EXPECT_FALSE(ParseWorkerLine("dlcheck_worker,unknown,x"));
  EXPECT_FALSE(ParseWorkerLine("dlcheck_worker,layer,"));
  EXPECT_FALSE(ParseWorkerLine("prefix dlcheck_worker,phase,init"));
}

}  // namespace
}  // namespace dlcheck::dispatch

#include "dispatch/peak.h"

namespace dlcheck::dispatch {
namespace {

// Invariants only: wider vectors never measure slower than half the narrower ones (they do the
// same work in fewer instructions), and every x86-64 machine dlcheck runs on has SSE4.1.
TEST(PeakTest, MeasuresEverySupportedIsaInOrder) {
  // The best of five 10 ms windows per ISA: one window can lose half its time to another process
  // on a busy machine, five rarely all do.
  std::vector<PeakResult> peaks = MeasurePeak(0.01);
  for (int round = 0; round < 4; ++round) {
    const std::vector<PeakResult> again = MeasurePeak(0.01);
    ASSERT_EQ(again.size(), peaks.size());
    for (std::size_t i = 0; i < peaks.size(); ++i) {
      ASSERT_EQ(again[i].isa, peaks[i].isa);
      peaks[i].gflops = std::max(peaks[i].gflops, again[i].gflops);
    }
  }
  ASSERT_FALSE(peaks.empty());
  EXPECT_EQ(peaks.front().isa, "sse41");
  for (std::size_t i = 0; i < peaks.size(); ++i) {
    EXPECT_GT(peaks[i].gflops, 0.1) << peaks[i].isa;
    if (i > 0) {
      EXPECT_GT(peaks[i].gflops, 0.5 * peaks[i - 1].gflops) << peaks[i].isa;
    }
  }
}

}  // namespace
}  // namespace dlcheck::dispatch

#include "dispatch/sweep.h"

namespace dlcheck::dispatch {
namespace {

detect::PlatformInfo MachineUpTo(const std::string& isa, bool avx_vnni) {
  detect::PlatformInfo info;
  info.arch = detect::X86Part{};  // an x86 machine: the sweep offers x86's caps
  info.onednn_max_isa = isa;
  detect::FeatureLayers vnni;
  vnni.name = "avx_vnni";
  vnni.cpu = avx_vnni;
  vnni.usable = avx_vnni;
  info.features.push_back(vnni);
  return info;
}

TEST(SweepTest, DefaultCapsGoUpToTheMachineAndSkipAvx2VnniWithoutAvxVnni) {
  auto caps = ChooseCaps({}, MachineUpTo("avx512_core", false));
  ASSERT_TRUE(caps.ok());
  EXPECT_EQ(*caps, (std::vector<std::string>{"sse41", "avx", "avx2", "avx512_core"}));
  caps = ChooseCaps({}, MachineUpTo("avx2_vnni", true));
  ASSERT_TRUE(caps.ok());
  EXPECT_EQ(*caps, (std::vector<std::string>{"sse41", "avx", "avx2", "avx2_vnni"}));
}

TEST(SweepTest, RequestedCapsAreCheckedDeduplicatedAndSorted) {
  const auto info = MachineUpTo("avx512_core_bf16", false);
  auto caps = ChooseCaps({"AVX2", "sse41", "avx2"}, info);
  ASSERT_TRUE(caps.ok());
  EXPECT_EQ(*caps, (std::vector<std::string>{"sse41", "avx2"}));

  caps = ChooseCaps({"avx3"}, info);
  ASSERT_FALSE(caps.ok());
  EXPECT_EQ(caps.status().code(), ExitCode::kUsage);
  EXPECT_EQ(caps.status().message(),
            "--isa: 'avx3' is not a oneDNN ISA cap (sse41, avx, avx2, avx2_vnni, avx512_core, "
            "avx512_core_vnni, avx512_core_bf16, avx512_core_amx); did you mean 'avx'?");

  caps = ChooseCaps({"avx512_core_amx"}, info);
  ASSERT_FALSE(caps.ok());
  EXPECT_EQ(caps.status().code(), ExitCode::kUnsupported);
  EXPECT_EQ(caps.status().message(),
            "--isa: this machine dispatches up to avx512_core_bf16, so a cap of avx512_core_amx "
            "would run the same kernels as avx512_core_bf16");
}

TEST(SweepTest, SpeedupsCompareTheSameKeyAcrossRuns) {
  dispatch::Run slow, fast;
  verbose::PrimitiveStats row;
  row.layer = "fc1";
  row.primitive = "inner_product";
  row.prop_kind = "forward_training";
  row.implementation = "ref:any";
  row.impl_class = verbose::ImplClass::kScalar;
  row.execs = 2;
  row.exec_ms_total = 8;
  slow.rows.push_back(row);
  row.implementation = "brgemm:avx512_core";
  row.impl_class = verbose::ImplClass::kJit;
  row.exec_ms_total = 2;
  fast.rows.push_back(row);
  const SweepCells a = CellsOf(slow), b = CellsOf(fast);
  const PrimitiveKey key{"fc1", "inner_product", "forward_training"};
  EXPECT_TRUE(a.at(key).scalar);
  EXPECT_FALSE(b.at(key).scalar);
  EXPECT_EQ(SpeedupOver(a, b, key), 4.0);
  EXPECT_EQ(SpeedupOver(a, b, PrimitiveKey{"fc2", "inner_product", "forward_training"}),
            std::nullopt);
  EXPECT_EQ(PeakIsaOf("avx512_core_bf16"), "avx512_core");
  EXPECT_EQ(PeakIsaOf("avx2_vnni"), "avx2");
  EXPECT_EQ(PeakIsaOf("avx"), "sse41");
}

}  // namespace
}  // namespace dlcheck::dispatch
