// SPDX-License-Identifier: Apache-2.0
// `perf script` text -> records, and records -> a Profile, on recordings of this project's VM.
#include "profile/perf_script.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <string>

#include "profile/classify.h"
#include "profile/profile.h"
#include "profile/profile_report.h"
#include "report/printer.h"
#include "support/test_files.h"

namespace dlcheck::profile {
namespace {

std::string DataPath(const std::string& name) {
  return dlcheck::testing::DataPath("profile/" + name);
}

// Every record of a recorded `perf script` output, and the profile built from them.
struct Parsed {
  std::vector<PerfRecord> records;
  Profile profile;
  std::uint64_t skipped = 0;
};

Parsed ParseFile(const std::string& name) {
  Parsed parsed;
  ProfileBuilder builder;
  PerfScriptParser parser([&](const PerfRecord& r) {
    parsed.records.push_back(r);
    builder.Add(r);
  });
  std::ifstream in(DataPath(name));
  EXPECT_TRUE(in.is_open()) << name;
  for (std::string line; std::getline(in, line);) parser.Feed(line);
  parser.Finish();
  parsed.profile = builder.profile();
  parsed.skipped = parser.skipped_lines();
  return parsed;
}

TEST(PerfScriptTest, ReadsASampleHeader) {
  PerfRecord r;
  ASSERT_TRUE(ParseRecordHeader("dlcheck  4411/4437  13315.541986:          cpu-clock: ", r));
  EXPECT_EQ(r.comm, "dlcheck");
  EXPECT_EQ(r.pid, 4411);
  EXPECT_EQ(r.tid, 4437);
  EXPECT_DOUBLE_EQ(r.time_s, 13315.541986);
  EXPECT_EQ(r.event, "cpu-clock");
  EXPECT_EQ(r.kind, PerfRecord::Kind::kSample);
}

TEST(PerfScriptTest, ReadsTheTimeExactlyInNanoseconds) {
  PerfRecord r;
  // `perf script --ns`: the same nanoseconds as PERF_SAMPLE_TIME in perf.data.
  ASSERT_TRUE(ParseRecordHeader("conv_loop 11626/11626 14430.547623890:   cpu-clock: ", r));
  EXPECT_EQ(r.time_ns, 14430547623890u);
  // Without --ns perf prints microseconds.
  ASSERT_TRUE(ParseRecordHeader("dlcheck  4411/4437  13315.541986:          cpu-clock: ", r));
  EXPECT_EQ(r.time_ns, 13315541986000u);
  ASSERT_TRUE(ParseRecordHeader("x 1/2 7: cycles: ", r));
  EXPECT_EQ(r.time_ns, 7000000000u);
}

TEST(PerfScriptTest, ReadsACommandNameWithSpacesAndSlashes) {
  PerfRecord r;
  ASSERT_TRUE(ParseRecordHeader("GC Thread/0 12 7/8 1.5: cycles: ", r));
  EXPECT_EQ(r.comm, "GC Thread/0 12");
  EXPECT_EQ(r.pid, 7);
  EXPECT_EQ(r.tid, 8);
}

TEST(PerfScriptTest, ReadsATracepointAndItsFields) {
  PerfRecord r;
  ASSERT_TRUE(ParseRecordHeader(
      "sleep 31086/31086 12674.016552: sched:sched_switch: prev_comm=sleep prev_pid=31086 "
      "prev_prio=120 prev_state=S ==> next_comm=bash next_pid=31092 next_prio=120",
      r));
  EXPECT_EQ(r.event, "sched:sched_switch");
  EXPECT_EQ(TraceField(r.trace, "prev_state"), "S");
  EXPECT_EQ(TraceField(r.trace, "next_pid"), "31092");
  EXPECT_EQ(TraceField(r.trace, "pid"), "");  // only whole names
}

TEST(PerfScriptTest, ReadsSwitchRecords) {
  PerfRecord r;
  ASSERT_TRUE(
      ParseRecordHeader("sleep 31339/31339 12690.237460: PERF_RECORD_SWITCH OUT preempt", r));
  EXPECT_EQ(r.kind, PerfRecord::Kind::kSwitchOut);
  ASSERT_TRUE(ParseRecordHeader("sleep 31339/31339 12690.269594: PERF_RECORD_SWITCH IN     ", r));
  EXPECT_EQ(r.kind, PerfRecord::Kind::kSwitchIn);
}

// perf's task events (--show-task-events), as perf 6.1 printed them on this project's VM for a
// profiled python3 (18526) that started a thread (18528): each names a process whose perf map
// is the run's, and none is a sample or moves the recording's time span (perf-exec's is at 0).
TEST(PerfScriptTest, ReadsTaskEventsAsProcessesNotSamples) {
  const std::vector<std::string> lines = {
      "perf-exec     0/0         0.000000000: PERF_RECORD_COMM: perf-exec:18526/18526",
      "python3 18526/18526 23411.627132461: PERF_RECORD_COMM exec: python3:18526/18526",
      "python3 18526/18526 23412.793184757: PERF_RECORD_FORK(18526:18528):(18526:18526)",
      "sh 18496/18496 23412.800000000: PERF_RECORD_FORK(18498:18498):(18496:18496)",
      "python3 18526/18528 23412.793307820: PERF_RECORD_EXIT(18526:18528):(18525:18525)",
      "python3 18526/18526 23413.559172215: cpu-clock: ",
      "python3 18526/18526 23413.569172215: PERF_RECORD_EXIT(18526:18526):(18525:18525)"};
  std::vector<PerfRecord> records;
  ProfileBuilder builder;
  PerfScriptParser parser([&](const PerfRecord& r) {
    records.push_back(r);
    builder.Add(r);
  });
  for (const std::string& line : lines) parser.Feed(line);
  parser.Finish();
  EXPECT_EQ(parser.skipped_lines(), 0u);
  ASSERT_EQ(records.size(), lines.size());
  EXPECT_EQ(records[0].kind, PerfRecord::Kind::kTask);
  EXPECT_EQ(records[3].kind, PerfRecord::Kind::kTask);
  EXPECT_EQ(records[3].forked_pid, 18498);
  EXPECT_EQ(records[5].kind, PerfRecord::Kind::kSample);
  const Profile profile = builder.profile();
  EXPECT_EQ(profile.recorded_pids, (std::set<int>{18496, 18498, 18526}));
  EXPECT_EQ(profile.pids, (std::set<int>{18526}));  // the sampled ones
  EXPECT_EQ(profile.samples, 1u);
  EXPECT_DOUBLE_EQ(profile.first_s, 23413.559172215);
  // A FORK whose new pid is not a positive number names no process.
  PerfRecord r;
  ASSERT_TRUE(ParseRecordHeader("sh 5/5 1.0: PERF_RECORD_FORK(-3:-3):(5:5)", r));
  EXPECT_EQ(r.forked_pid, 0);
}

TEST(PerfScriptTest, ReadsFramesWhoseSymbolsHoldParentheses) {
  Frame f;
  ASSERT_TRUE(
      ParseFrameLine("\t    7f12ab001040 foo(int, (anonymous namespace)::x) const "
                     "(/usr/lib/libdnnl.so.2.6)",
                     f));
  EXPECT_EQ(f.symbol, "foo(int, (anonymous namespace)::x) const");
  EXPECT_EQ(f.dso, "/usr/lib/libdnnl.so.2.6");
  EXPECT_FALSE(ParseFrameLine("dlcheck 1/1 2.0: cycles:", f));
  EXPECT_FALSE(ParseFrameLine("\tnot a frame", f));
}

TEST(PerfScriptTest, MlpRecordingHasEveryRecordAndNothingSkipped) {
  const Parsed p = ParseFile("mlp_excerpt.script");
  EXPECT_EQ(p.skipped, 0u);
  // Counted with grep in the recording: 166 cpu-clock samples, 17 sched_switch samples and
  // 108 PERF_RECORD_SWITCH records.
  EXPECT_EQ(p.profile.samples, 166u);
  EXPECT_EQ(p.profile.switch_samples, 17u);
  EXPECT_EQ(p.records.size(), 166u + 17u + 108u);
  EXPECT_EQ(p.profile.event, "cpu-clock");
}

TEST(PerfScriptTest, MlpRecordingNamesItsJitKernels) {
  const Parsed p = ParseFile("mlp_excerpt.script");
  // The leaf frames of the cpu-clock samples in the perf map, counted in the recording with
  // awk '/^[^ \t]/ {cpu = ($0 ~ /cpu-clock:/); first = 1; next}
  //      /^[ \t]/ {if (cpu && first && $0 ~ /perf-4411.map/) print $2; first = 0}' | uniq -c
  // (JIT frames deeper in a stack, under a page fault, are the kernel's time, not the JIT's).
  const std::map<std::string, std::uint64_t> expected = {{"jit_brgemm_kernel_t", 4},
                                                         {"jit_t", 4},
                                                         {"jit_uni_kernel", 1},
                                                         {"jit_uni_reorder_kernel_f32", 1}};
  EXPECT_EQ(p.profile.kernel_samples, expected);
  EXPECT_EQ(p.profile.class_samples[static_cast<std::size_t>(CpuClass::kJit)], 10u);
  EXPECT_GT(p.profile.class_samples[static_cast<std::size_t>(CpuClass::kOpenMp)], 0u);
}

TEST(PerfScriptTest, ClassesAndFoldedStacksAddUpToTheSamples) {
  const Parsed p = ParseFile("mlp_excerpt.script");
  const auto& classes = p.profile.class_samples;
  EXPECT_EQ(std::accumulate(classes.begin(), classes.end(), std::uint64_t{0}), p.profile.samples);
  std::uint64_t folded = 0;
  for (const auto& [stack, n] : p.profile.folded) {
    folded += n;
    EXPECT_TRUE(stack.starts_with("dlcheck;")) << stack;  // the command name is the root
  }
  EXPECT_EQ(folded, p.profile.samples);
}

TEST(PerfScriptTest, MlpRecordingHasNoFrameworkOperator) {
  // dlcheck's model worker calls oneDNN itself: every sample is under no operator.
  const Parsed p = ParseFile("mlp_excerpt.script");
  ASSERT_EQ(p.profile.operators.size(), 1u);
  EXPECT_EQ(p.profile.operators.begin()->first, kNoOperator);
  EXPECT_EQ(p.profile.operators.begin()->second.samples, p.profile.samples);
  EXPECT_EQ(OperatorAttributedPct(p.profile), 0.0);  // 10 JIT samples, none attributed
}

TEST(PerfScriptTest, TorchDwarfRecordingHasBlasAndOperators) {
  const Parsed p = ParseFile("torch_cnn_dwarf_excerpt.script");
  EXPECT_EQ(p.skipped, 0u);
  ASSERT_EQ(p.profile.samples, 6u);
  const auto cls = [&](CpuClass c) { return p.profile.class_samples[static_cast<std::size_t>(c)]; };
  EXPECT_EQ(cls(CpuClass::kBlas), 2u);  // the two sgemm_ leaves
  EXPECT_EQ(cls(CpuClass::kJit), 1u);
  const auto& ops = p.profile.operators;
  std::map<std::string, std::uint64_t> samples;
  std::uint64_t total = 0;
  for (const auto& [op, o] : ops) {
    samples[op] = o.samples;
    total += o.samples;
    EXPECT_EQ(std::accumulate(o.class_samples.begin(), o.class_samples.end(), std::uint64_t{0}),
              o.samples)
        << op;
  }
  EXPECT_EQ(total, p.profile.samples);
  // Read off the recording: the leaf-nearest at::_ops frame, else at::native (a stack cut short
  // by the 16 KiB copy); the JIT sample (DWARF cannot unwind JIT code) and Python's have none.
  const std::map<std::string, std::uint64_t> expected = {{"-", 2},
                                                         {"aten::addmm", 1},
                                                         {"aten::mm", 1},
                                                         {"aten::convolution_backward", 1},
                                                         {"at::native::mkldnn_to_dense", 1}};
  EXPECT_EQ(samples, expected);
  EXPECT_EQ(ops.at("aten::addmm").class_samples[static_cast<std::size_t>(CpuClass::kBlas)], 1u);
  // The work beneath each operator, by leaf: the BLAS call, and the JIT kernel by its name.
  EXPECT_EQ(ops.at("aten::addmm").beneath, (std::map<std::string, std::uint64_t>{{"sgemm_", 1}}));
  EXPECT_EQ(
      ops.at("-").beneath,
      (std::map<std::string, std::uint64_t>{{"_jit_avx512_common_conv_bwd_data_kernel_f32", 1}}));
  EXPECT_TRUE(ops.at("at::native::mkldnn_to_dense").beneath.empty());
  EXPECT_EQ(ops.at("-").class_samples[static_cast<std::size_t>(CpuClass::kJit)], 1u);
  ASSERT_TRUE(OperatorAttributedPct(p.profile).has_value());
  EXPECT_NEAR(*OperatorAttributedPct(p.profile), 200.0 / 3, 1e-9);  // 2 of 2 BLAS, 0 of 1 JIT
  // The folded stacks keep the deep stacks: the BLAS leaf under its operator.
  bool blas_under_addmm = false;
  for (const auto& [stack, n] : p.profile.folded) {
    if (stack.ends_with(";sgemm_") && stack.find(";at::_ops::addmm::call;") != std::string::npos)
      blas_under_addmm = true;
  }
  EXPECT_TRUE(blas_under_addmm);
}

TEST(PerfScriptTest, PythonFramesWithoutNamesAreSaid) {
  const auto codes = [](const std::string& file) {
    report::Report report;
    AddProfileTables(report, ParseFile(file).profile, {}, {});
    std::set<std::string> found;
    for (const auto& f : report.findings) found.insert(f.code);
    return found;
  };
  EXPECT_EQ(codes("torch_cnn_dwarf_excerpt.script").count("no-python-frames"), 1u);
  EXPECT_EQ(codes("mlp_excerpt.script").count("no-python-frames"), 0u);  // no Python at all
}

TEST(PerfScriptTest, SleepIsOffCpuInNanosleep) {
  const Parsed p = ParseFile("sleep_0.2.script");
  double sleeping = 0;
  std::string wait;
  for (const auto& [key, s] : p.profile.off_cpu) {
    if (key.first == "S" && s.seconds > sleeping) {
      sleeping = s.seconds;
      wait = s.wait;
    }
  }
  // sleep 0.2 blocked once: switched out at 12690.270501 (S), back in at 12690.497490 (a busy
  // machine: the CPU was not free at once).
  EXPECT_NEAR(sleeping, 12690.497490 - 12690.270501, 1e-6);
  EXPECT_NE(wait.find("nanosleep"), std::string::npos) << wait;
}

}  // namespace
}  // namespace dlcheck::profile

namespace dlcheck::profile {
namespace {

// The stacks table --format folded and svg print: every collapsed stack, in its order, and no
// other format's table.
TEST(StacksTableTest, HoldsEveryCollapsedStack) {
  const Parsed parsed = ParseFile("mlp_excerpt.script");
  report::Report report;
  AddStacksTable(report, parsed.profile, "title", "caption");
  const report::Table* stacks = report.FindTable(report::kStacksTable);
  ASSERT_NE(stacks, nullptr);
  EXPECT_TRUE(stacks->format_input);
  EXPECT_EQ(stacks->caption, "caption");
  ASSERT_EQ(stacks->rows.size(), parsed.profile.folded.size());
  std::size_t i = 0;
  for (const auto& [stack, samples] : parsed.profile.folded) {
    EXPECT_EQ(stacks->rows[i][0], report::Value(stack));
    EXPECT_EQ(stacks->rows[i][1], report::Value(samples));
    ++i;
  }
}

}  // namespace
}  // namespace dlcheck::profile
