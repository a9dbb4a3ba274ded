// SPDX-License-Identifier: Apache-2.0
// The join of samples with oneDNN's timed executions: the timeline's lookup, the builder's
// counts per operator, and the operators table's `primitives` column.
#include "profile/exec_join.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "profile/profile_report.h"
#include "report/report.h"
#include "verbose/timeline.h"

namespace dlcheck::profile {
namespace {

constexpr std::string_view kTorch = "/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13";

TEST(ExecJoinTest, LabelNamesKindPropagationImplementationAndShape) {
  EXPECT_EQ(ExecLabel("convolution", "forward_training", "jit:avx512_core",
                      "mb32_ic3oc64_ih32oh32kh3sh1ph1"),
            "convolution forward_training jit:avx512_core mb32_ic3oc64_ih32oh32kh3sh1ph1");
  // A reorder's propagation kind is `undef`: left out, as are empty fields.
  EXPECT_EQ(ExecLabel("reorder", "undef", "jit:uni", "128x784"), "reorder jit:uni 128x784");
  EXPECT_EQ(ExecLabel("eltwise", "", "jit:avx2", ""), "eltwise jit:avx2");
}

// The capture's timeline records (stamped on the wall clock, in ms) as spans on perf's clock, in
// seconds: moved back by the clocks' difference, labelled, the unstamped left out.
TEST(ExecJoinTest, TimelineRecordsBecomeSpansOnPerfsClock) {
  const std::vector<verbose::ExecRecord> execs = {
      {.primitive = "convolution",
       .implementation = "jit:avx2",
       .prop_kind = "forward_training",
       .problem = "mb1_ic3oc8_ih8oh8kh3ph1",
       .time_ms = 2.5,
       .stamp_ms = 1700000000250.0},
      {.primitive = "reorder", .implementation = "jit:uni", .time_ms = 1},  // no timestamp
      {.primitive = "eltwise",
       .implementation = "jit:avx2",
       .prop_kind = "forward_inference",
       .time_ms = 0.5,
       .stamp_ms = 1700000000260.0}};
  const std::vector<ExecSpan> spans = ExecSpans(execs, 1699999000.0);
  ASSERT_EQ(spans.size(), 2u);
  EXPECT_NEAR(spans[0].start_s, 1000.25, 1e-6);
  EXPECT_NEAR(spans[0].end_s, 1000.2525, 1e-6);
  EXPECT_EQ(spans[0].label, "convolution forward_training jit:avx2 mb1_ic3oc8_ih8oh8kh3ph1");
  EXPECT_NEAR(spans[1].start_s, 1000.26, 1e-6);
  EXPECT_NEAR(spans[1].end_s, 1000.2605, 1e-6);
  EXPECT_EQ(spans[1].label, "eltwise forward_inference jit:avx2");
  EXPECT_TRUE(ExecSpans(std::vector<verbose::ExecRecord>{}, 0).empty());
}

TEST(ExecJoinTest, TimelineFindsTheExecutionRunningAtATime) {
  // Given out of order; the reversed span (ends before it starts) is dropped.
  const ExecTimeline timeline({{.start_s = 10.5, .end_s = 10.6, .label = "b"},
                               {.start_s = 10.0, .end_s = 10.2, .label = "a"},
                               {.start_s = 11.0, .end_s = 10.9, .label = "reversed"}});
  EXPECT_EQ(timeline.size(), 2u);
  EXPECT_EQ(timeline.At(9.99), nullptr);  // before the first
  ASSERT_NE(timeline.At(10.0), nullptr);  // the start is inside
  EXPECT_EQ(timeline.At(10.0)->label, "a");
  EXPECT_EQ(timeline.At(10.1)->label, "a");
  EXPECT_EQ(timeline.At(10.2), nullptr);  // the end is not
  EXPECT_EQ(timeline.At(10.3), nullptr);  // between executions
  ASSERT_NE(timeline.At(10.55), nullptr);
  EXPECT_EQ(timeline.At(10.55)->label, "b");
  EXPECT_EQ(timeline.At(10.95), nullptr);  // the reversed span's time
  EXPECT_EQ(ExecTimeline().At(10.1), nullptr);
}

PerfRecord Sample(double time_s, std::vector<Frame> frames) {
  PerfRecord r;
  r.comm = "python3";
  r.pid = 7;
  r.tid = 7;
  r.time_s = time_s;
  r.time_ns = static_cast<std::uint64_t>(time_s * 1e9);
  r.event = "cycles";
  r.frames = std::move(frames);
  return r;
}

// Two addmm samples and one convolution sample inside executions, one addmm sample between
// them, one sample under no operator inside an execution (a C++ program using oneDNN).
Profile JoinedProfile() {
  const ExecTimeline timeline(
      {{.start_s = 100.0, .end_s = 100.010, .label = "inner_product forward_training gemm:jit"},
       {.start_s = 100.020, .end_s = 100.030, .label = "convolution forward_training jit:avx2"}});
  ProfileBuilder builder;
  builder.UseExecTimeline(&timeline);
  const std::vector<Frame> addmm = {{"jit_avx_gemm_f32_xbyak_gemm_[j]", "/tmp/perf-7.map"},
                                    {"dnnl_sgemm", "/usr/lib/libdnnl.so.2.6"},
                                    {"at::_ops::addmm::call", std::string(kTorch)}};
  const std::vector<Frame> conv = {{"jit_avx2_conv_fwd_kernel_f32_[j]", "/tmp/perf-7.map"},
                                   {"at::_ops::convolution::call", std::string(kTorch)}};
  builder.Add(Sample(100.001, addmm));
  builder.Add(Sample(100.009, addmm));
  builder.Add(Sample(100.015, addmm));  // between the executions: not joined
  builder.Add(Sample(100.025, conv));
  builder.Add(Sample(100.026, {{"jit_avx2_conv_fwd_kernel_f32_[j]", "/tmp/perf-7.map"},
                               {"main", "/usr/bin/conv"}}));
  return builder.profile();
}

TEST(ExecJoinTest, BuilderCountsEachOperatorsSamplesByExecution) {
  const Profile p = JoinedProfile();
  EXPECT_EQ(p.samples, 5u);
  EXPECT_EQ(p.exec_spans, 2u);
  EXPECT_EQ(p.exec_joined_samples, 4u);
  ASSERT_EQ(p.operators.count("aten::addmm"), 1u);
  const OperatorSamples& addmm = p.operators.at("aten::addmm");
  EXPECT_EQ(addmm.samples, 3u);
  ASSERT_EQ(addmm.executions.size(), 1u);
  EXPECT_EQ(addmm.executions.at("inner_product forward_training gemm:jit"), 2u);
  const OperatorSamples& conv = p.operators.at("aten::convolution");
  ASSERT_EQ(conv.executions.size(), 1u);
  EXPECT_EQ(conv.executions.at("convolution forward_training jit:avx2"), 1u);
  const OperatorSamples& none = p.operators.at(std::string(kNoOperator));
  EXPECT_EQ(none.executions.at("convolution forward_training jit:avx2"), 1u);
}

TEST(ExecJoinTest, WithoutATimelineNothingIsJoined) {
  ProfileBuilder builder;
  builder.Add(Sample(100.001, {{"jit_avx2_conv_fwd_kernel_f32_[j]", "/tmp/perf-7.map"},
                               {"at::_ops::convolution::call", std::string(kTorch)}}));
  EXPECT_EQ(builder.profile().exec_spans, 0u);
  EXPECT_EQ(builder.profile().exec_joined_samples, 0u);
  EXPECT_TRUE(builder.profile().operators.at("aten::convolution").executions.empty());
}

std::string Cell(const report::Table& t, std::string_view op, std::string_view column) {
  const auto col = std::find(t.columns.begin(), t.columns.end(), column) - t.columns.begin();
  for (const auto& row : t.rows) {
    if (std::get<std::string>(row[0].data) == op) return std::get<std::string>(row[col].data);
  }
  return "(no row)";
}

TEST(ExecJoinTest, OperatorsTableNamesTheExecutionsMostSampledFirst) {
  Profile p = JoinedProfile();
  OperatorSamples& addmm = p.operators.at("aten::addmm");
  addmm.executions = {{"a", 1}, {"b", 5}, {"c", 3}, {"d", 3}, {"e", 2}};
  report::Report report;
  AddProfileTables(report, p, {}, {});
  const report::Table* t = report.FindTable("operators");
  ASSERT_NE(t, nullptr);
  // The first kOperatorPrimitives (3), ties by label, then how many more.
  EXPECT_EQ(Cell(*t, "aten::addmm", "primitives"), "b 5, c 3, d 3, 2 more");
  EXPECT_EQ(Cell(*t, "aten::convolution", "primitives"), "convolution forward_training jit:avx2 1");
  bool no_join = false;
  for (const auto& f : report.findings) no_join = no_join || f.code == "no-exec-join";
  EXPECT_FALSE(no_join);
}

TEST(ExecJoinTest, AFindingSaysWhyNothingWasJoined) {
  ProfileBuilder builder;
  builder.Add(Sample(100.001, {{"jit_avx2_conv_fwd_kernel_f32_[j]", "/tmp/perf-7.map"},
                               {"at::_ops::convolution::call", std::string(kTorch)}}));
  report::Report report;
  AddProfileTables(report, builder.profile(), {}, {});
  std::string text;
  for (const auto& f : report.findings) {
    if (f.code == "no-exec-join") text = f.message;
  }
  EXPECT_NE(text.find("no execution with a timestamp"), std::string::npos) << text;
}

}  // namespace
}  // namespace dlcheck::profile
