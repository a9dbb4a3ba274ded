// SPDX-License-Identifier: Apache-2.0
#include "verbose/aggregate.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "verbose/diagnostic_words.h"
#include "verbose/fixture_lines.h"
#include "verbose/line_parser.h"
#include "verbose/log_session.h"

namespace dlcheck::verbose {
namespace {

// Counts the events a session reports, parsed in full or repeated by the memo.
struct EventCounts : EventListener {
  void OnEvent(const VerboseEvent& e, std::size_t) override {
    if (e.operation == Operation::kExec || e.operation == Operation::kCreate ||
        e.operation == Operation::kCreateNested) {
      Count(e.operation == Operation::kExec, e.IsCacheHit(),
            e.operation == Operation::kCreateNested);
    }
  }
  void OnRepeat(const LineMemo::Entry& repeat, double, std::optional<double>) override {
    Count(repeat.exec, repeat.cache_hit, repeat.nested);
  }
  void Count(bool exec, bool cache_hit, bool nested) {
    if (nested) {
      ++nested_events;  // counted apart: neither a create nor a cache hit
      return;
    }
    (exec ? exec_events : create_events) += 1;
    if (cache_hit) ++cache_hit_events;
  }
  std::uint64_t exec_events = 0;
  std::uint64_t create_events = 0;
  std::uint64_t nested_events = 0;
  std::uint64_t cache_hit_events = 0;
};

// A whole log read by the session `dlcheck parse` uses, memo on.
struct LogRun {
  LogSession session;
  EventCounts counts;
  const Aggregator& aggregator = session.aggregator();
  Summary Summarize() const { return session.Summarize(); }
};

void Feed(const std::vector<std::string>& lines, LogRun& run) {
  run.session.AddListener(&run.counts);
  std::uint64_t n = 0;
  for (const auto& line : lines) run.session.Feed(line, ++n);
  run.session.Finish();
}

TEST(AggregateTest, CreatesHitsAndExecTimesPerRow) {
  const std::string create =
      "onednn_verbose,create:cache_miss,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
      "dst_f32::blocked:ba:f0,,,8x8,0.5";
  const std::string hit =
      "onednn_verbose,create:cache_hit,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
      "dst_f32::blocked:ba:f0,,,8x8,0.25";
  const std::string exec =
      "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
      "dst_f32::blocked:ba:f0,,,8x8,";
  LogRun run;
  Feed({create, hit, exec + "1", exec + "3", exec + "2",
        "onednn_verbose,exec,cpu,matmul,brg:avx2,undef,src_f32::blocked:ab:f0 "
        "wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,64x64:64x64,4"},
       run);
  const auto& rows = run.aggregator.rows();
  ASSERT_EQ(rows.size(), 2u);
  const PrimitiveStats& r = rows[0];
  EXPECT_EQ(r.primitive, "reorder");
  EXPECT_EQ(r.creates, 2u);
  EXPECT_EQ(r.cache_hits, 1u);
  EXPECT_DOUBLE_EQ(r.create_ms, 0.75);
  EXPECT_EQ(r.execs, 3u);
  EXPECT_DOUBLE_EQ(r.exec_ms_total, 6);
  EXPECT_DOUBLE_EQ(*r.ExecMsMean(), 2);
  EXPECT_DOUBLE_EQ(r.exec_ms_min, 1);
  EXPECT_DOUBLE_EQ(r.exec_ms_max, 3);
  EXPECT_DOUBLE_EQ(r.first_exec_ms, 1);
  EXPECT_EQ(r.data_types, "src:f32 dst:f32");
  EXPECT_EQ(r.layouts, "src:ab dst:ba");
  EXPECT_FALSE(r.Gflops());
  EXPECT_DOUBLE_EQ(*rows[1].Gflops(), 2.0 * 64 * 64 * 64 / (4 * 1e6));
  const Summary s = run.Summarize();
  EXPECT_EQ(s.execs, 4u);
  EXPECT_DOUBLE_EQ(s.exec_ms, 10);
  EXPECT_DOUBLE_EQ(s.reorder_pct, 60);
  EXPECT_DOUBLE_EQ(*s.cache_hit_rate, 0.5);
  ASSERT_EQ(s.by_kind.size(), 2u);
  EXPECT_EQ(s.by_kind[0].name, "reorder");
  ASSERT_EQ(s.by_fallback.size(), 1u);
  EXPECT_EQ(s.by_fallback[0].name, "jit");
  ASSERT_FALSE(s.notes.empty());
  EXPECT_EQ(s.notes[0].code, "reorder-share");
  EXPECT_EQ(s.notes[0].message,
            "reorders took 60.0% of execution time: memory layouts change between primitives");
}

// ONNX Runtime: a node that another provider did not take ran on the CPU provider (a DirectML
// node of onnxruntime-genai#2031 beside a CPU one of onnxruntime#5617); a profile with only the CPU
// provider says that the graph went to no other.
TEST(AggregateTest, OnnxRuntimeProviderFindings) {
  const std::string dml =
      R"({"cat" : "Node","pid" :148092,"tid" :152600,"dur" :69,"ts" :2579165,"ph" : "X",)"
      R"("name" :"/model/attn_mask_reformat/attn_mask_subgraph/Shape_kernel_time","args" : )"
      R"({"parameter_size" : "0","provider" : "DmlExecutionProvider","op_name" : "Shape",)"
      R"("input_type_shape" : [{"int64":[1,200]}],"node_index" : "3","output_type_shape" : )"
      R"([{"int64":[2]}]}},)";
  const std::string cpu =
      R"({"cat" : "Node","pid" :8800,"tid" :10988,"dur" :42,"ts" :331014,"ph" : "X","name" :)"
      R"("Add_27_kernel_time","args" : {"op_name" : "Add","provider" : "CPUExecutionProvider",)"
      R"("graph_index" : "25","parameter_size" : "0"}},)";
  const auto codes = [](const Summary& s) {
    std::vector<std::string> found;
    for (const auto& n : s.notes) found.push_back(n.code);
    return found;
  };
  LogRun both;
  Feed({dml, cpu}, both);
  const Summary mixed = both.Summarize();
  const auto fallback = std::find_if(mixed.notes.begin(), mixed.notes.end(),
                                     [](const auto& n) { return n.code == "provider-fallback"; });
  ASSERT_NE(fallback, mixed.notes.end()) << ::testing::PrintToString(codes(mixed));
  EXPECT_EQ(fallback->severity, Severity::kWarning);  // 42 of 111 us: 37.8 %
  EXPECT_NE(fallback->message.find("1 ONNX Runtime node (37.8%"), std::string::npos)
      << fallback->message;
  EXPECT_NE(fallback->message.find("DmlExecutionProvider"), std::string::npos);
  LogRun only_cpu;
  Feed({cpu}, only_cpu);
  EXPECT_EQ(codes(only_cpu.Summarize()), std::vector<std::string>{"provider-cpu-only"});
  LogRun only_dml;
  Feed({dml}, only_dml);
  EXPECT_TRUE(codes(only_dml.Summarize()).empty());
}

TEST(AggregateTest, ScalarFallbackAndNoExecFindings) {
  LogRun run;
  Feed({"dnnl_verbose,exec,cpu,matmul,ref:any,undef,src_f32::blocked:ab:f0 wei_f32::blocked:ab:f0 "
        "dst_f32::blocked:ab:f0,,,15x41:41x19:15x19,1",
        "dnnl_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
        "dst_f32::blocked:ab:f0,,,41x19,3"},
       run);
  Summary s = run.Summarize();
  bool found = false;
  for (const Finding& n : s.notes) {
    if (n.code == "scalar-fallback") {
      found = true;
      EXPECT_EQ(n.message,
                "1 primitive ran scalar reference code: matmul ref:any (25.0% of exec time)");
    }
  }
  EXPECT_TRUE(found);
  Aggregator empty;
  s = empty.Summarize({});
  ASSERT_EQ(s.notes.size(), 1u);
  EXPECT_EQ(s.notes[0].message,
            "no oneDNN primitive executed \u2014 is ONEDNN_VERBOSE set? for oneDNN before 2.5 the "
            "variable is DNNL_VERBOSE");
}

std::vector<std::string> CodesOf(const Summary& s) {
  std::vector<std::string> codes;
  for (const Finding& n : s.notes) codes.push_back(n.code);
  return codes;
}

// The caller's context decides the notes as they are made: none is erased after the fact.
TEST(AggregateTest, TheRunContextDecidesTheNotesThatNeedAWholeRun) {
  LogRun created;
  Feed({"dnnl_verbose,create:cache_miss,cpu,matmul,jit:uni,undef,src_f32::blocked:ab:f0 "
        "wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,15x41:41x19:15x19,0.5"},
       created);
  EXPECT_EQ(CodesOf(created.session.Summarize()),
            (std::vector<std::string>{"no-exec", "create-dominates"}));
  EXPECT_EQ(CodesOf(created.session.Summarize({.whole_run = false})), std::vector<std::string>{});
  EXPECT_EQ(CodesOf(created.session.Summarize({.recorded_verbose_lines = 0})),
            std::vector<std::string>{"create-dominates"});

  LogRun stopped;
  Feed({"dnnl_verbose,exec,cpu,matmul,ref:any,undef,src_f32::blocked:ab:f0 wei_f32::blocked:ab:f0 "
        "dst_f32::blocked:ab:f0,,,15x41:41x19:15x19,1"},
       stopped);
  // A scalar fallback holds for the part of a run that was logged; the log has no create line.
  EXPECT_EQ(CodesOf(stopped.session.Summarize({.whole_run = false})),
            (std::vector<std::string>{"scalar-fallback", "partial-log"}));
}

const Finding* NoteOf(const Summary& s, std::string_view code) {
  for (const Finding& n : s.notes) {
    if (n.code == code) return &n;
  }
  return nullptr;
}

// Findings scaled to what they cost (issue 35): a scalar fallback under 1 % of the execution time
// is said as info, not warned of; from 1 % it is a warning.
TEST(AggregateTest, AScalarFallbackUnderOnePercentIsInfo) {
  const std::string reorder =
      "dnnl_verbose,exec,cpu,reorder,simple:any,undef,src_f32::blocked:ab:f0 "
      "dst_f32::blocked:ba:f0,,,8x8,";
  const std::string matmul =
      "dnnl_verbose,exec,cpu,matmul,brg:avx2,undef,src_f32::blocked:ab:f0 "
      "wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,64x64:64x64,10";
  LogRun cheap;
  Feed({reorder + "0.001", matmul}, cheap);
  const Summary s = cheap.Summarize();
  const Finding* f = NoteOf(s, "scalar-fallback");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_EQ(f->message,
            "1 primitive ran scalar reference code: reorder simple:any (0.0% of exec time)");
  LogRun costly;
  Feed({reorder + "0.5", matmul}, costly);
  const Summary costly_summary = costly.Summarize();
  const Finding* warned = NoteOf(costly_summary, "scalar-fallback");
  ASSERT_NE(warned, nullptr);
  EXPECT_EQ(warned->severity, Severity::kWarning) << warned->message;
}

// create-dominates weighs creation against the whole timed phase where the log traced only part
// of the run (the model's traced steps): 2.6 ms of creation against a 1 s timed phase is nothing.
TEST(AggregateTest, CreationIsWeighedAgainstTheWholeTimedPhase) {
  LogRun run;
  Feed({"dnnl_verbose,create:cache_miss,cpu,matmul,jit:uni,undef,src_f32::blocked:ab:f0 "
        "wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,15x41:41x19:15x19,2.6",
        "dnnl_verbose,exec,cpu,matmul,jit:uni,undef,src_f32::blocked:ab:f0 "
        "wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,15x41:41x19:15x19,0.1"},
       run);
  EXPECT_NE(NoteOf(run.session.Summarize(), "create-dominates"), nullptr) << "the log alone";
  EXPECT_EQ(NoteOf(run.session.Summarize({.timed_ms = 1000}), "create-dominates"), nullptr);
  const Summary short_phase = run.session.Summarize({.timed_ms = 1});
  const Finding* still = NoteOf(short_phase, "create-dominates");
  ASSERT_NE(still, nullptr);
  EXPECT_EQ(still->message,
            "creating primitives took longer than running them (2.600 ms vs 1.000 ms): short "
            "runs are dominated by JIT compilation");
}

TEST(AggregateTest, DiagnosticsAreCountedPerDistinctMessage) {
  LogRun run;
  const std::string line = testing::FixtureLine("real_lines.txt", "exec:check,primitive");
  Feed({line, line, testing::FixtureLine("real_lines.txt", "create:check,convolution")}, run);
  ASSERT_EQ(run.aggregator.diagnostics().size(), 2u);
  EXPECT_EQ(run.aggregator.diagnostics()[0].count, 2u);
  EXPECT_EQ(run.aggregator.diagnostics()[0].operation, "exec:check");
  EXPECT_TRUE(run.aggregator.rows().empty());
  EXPECT_EQ(run.Summarize().diagnostics, 3u);
}

TEST(LineMemoTest, RepeatsStatesForeignLinesAndBadTimes) {
  LineMemo memo;
  LineMemo::Entry entry;
  double ms = 0;
  const std::string a = "onednn_verbose,exec,cpu,reorder,jit:uni,undef,x,,,8x8,";
  const std::string b = "onednn_verbose,exec,cpu,matmul,brg:avx2,undef,y,,,8x8:8x8,";
  EXPECT_EQ(memo.Lookup(1, a + "0.5", entry, ms), LineMemo::Match::kMiss);
  memo.Remember(1, a + "0.5", {3, true, false}, 0.5);
  memo.Remember(1, b + "2", {4, true, false}, 2);
  memo.RememberForeign("[ OK ] some test (3 ms)");
  // Hash path, then the predicted order a, b, foreign, a.
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(memo.Lookup(1, a + "0.25\r", entry, ms), LineMemo::Match::kEvent);
    EXPECT_EQ(entry.row, 3u);
    EXPECT_DOUBLE_EQ(ms, 0.25);
    ASSERT_EQ(memo.Lookup(1, b + "1e-3", entry, ms), LineMemo::Match::kEvent);
    EXPECT_EQ(entry.row, 4u);
    EXPECT_DOUBLE_EQ(ms, 0.001);
    EXPECT_EQ(memo.Lookup(1, "[ OK ] some test (3 ms)", entry, ms), LineMemo::Match::kForeign);
  }
  // Another parser state (new template or header): not the same line.
  EXPECT_EQ(memo.Lookup(2, a + "0.5", entry, ms), LineMemo::Match::kMiss);
  // A time that is not a valid time is never a repeat: the parser must see it.
  for (const char* bad : {"nan", "-1", "", "1,5", "abc"}) {
    EXPECT_EQ(memo.Lookup(1, a + bad, entry, ms), LineMemo::Match::kMiss) << bad;
  }
  // A line whose last field does not read back as its time is not remembered (decimal comma).
  memo.Remember(1, "mkldnn_verbose,exec,reorder,jit:uni,undef,in,num:1,48x192,1,432",
                {5, true, false}, 1.432);
  EXPECT_EQ(
      memo.Lookup(1, "mkldnn_verbose,exec,reorder,jit:uni,undef,in,num:1,48x192,1,432", entry, ms),
      LineMemo::Match::kMiss);
  // Exact times: the fast reader equals from_chars.
  ASSERT_EQ(memo.Lookup(1, a + "0.00195312", entry, ms), LineMemo::Match::kEvent);
  EXPECT_EQ(ms, 0.00195312);
  ASSERT_EQ(memo.Lookup(1, a + "3277.87", entry, ms), LineMemo::Match::kEvent);
  EXPECT_EQ(ms, 3277.87);
  memo.Clear();
  EXPECT_EQ(memo.Lookup(1, a + "0.5", entry, ms), LineMemo::Match::kMiss);
}

// Property: for any log, the execs over all rows sum to the exec events, and the creates to the
// create events. Logs are random mixes (with repeats and foreign lines) of every fixture line.
// The lines of why_lines.txt under the `# source: <source>` line that starts with `source`.
std::vector<std::string> WhyGroup(const std::string& source) {
  std::vector<std::string> group;
  bool in = false;
  for (const std::string& line : testing::FixtureLines("why_lines.txt")) {
    if (line.rfind("# source: ", 0) == 0) {
      in = line.rfind("# source: " + source, 0) == 0;
    } else if (in && line.rfind("#", 0) != 0) {
      group.push_back(line);
    }
  }
  if (group.empty()) throw std::runtime_error("no group " + source);
  return group;
}

const Finding* FindNote(const Summary& s, std::string_view code) {
  for (const Finding& f : s.notes) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

TEST(WhyTest, ShortDispatchFormJoinsTheNextCreateOfItsKind) {
  // oneDNN#4462: the avx2 kernel was skipped for the eltwise post-op; jit:sse41 ran.
  std::vector<std::string> lines = WhyGroup("uxlfoundation/oneDNN#4462");
  for (const std::string& l : WhyGroup("generated_2.6.3.txt lines 150-151")) lines.push_back(l);
  LogRun run;
  Feed(lines, run);
  ASSERT_EQ(run.aggregator.rows().size(), 1u);
  const PrimitiveStats& row = run.aggregator.rows()[0];
  EXPECT_EQ(row.implementation, "jit:sse41");
  ASSERT_EQ(row.skipped.size(), 1u);
  EXPECT_EQ(row.skipped[0].implementation, "jit_avx2_conv_kernel_f32.cpp");
  EXPECT_EQ(row.skipped[0].isa, "avx2");
  EXPECT_EQ(SkippedText(row),
            "jit_avx2_conv_kernel_f32.cpp: unsupported feature for implementation: eltwise and "
            "binary post-ops not implemented on isa [attribute] x1");
  const Summary s = run.Summarize();
  const Finding* f = FindNote(s, "skipped-faster-kernel");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->message,
            "convolution jit:sse41 mb2_ic16oc32_ih13oh13kh3sh1dh0ph1_iw13ow13kw3sw1dw0pw1 "
            "(100.0% of exec time) ran at sse41 because oneDNN skipped the avx2 kernel "
            "jit_avx2_conv_kernel_f32.cpp: \"unsupported feature for implementation: eltwise and "
            "binary post-ops not implemented on isa\" (attribute). The fused post-op or "
            "attribute is what the faster kernel lacks: allow the ISA it needs "
            "(ONEDNN_MAX_CPU_ISA), or run that operation as its own primitive instead of fusing "
            "it.");
  // Created again: the memo repeats the create line, and the reason before it joins as well.
  std::vector<std::string> twice = lines;
  twice.insert(twice.end(), lines.begin(), lines.end());
  LogRun again;
  Feed(twice, again);
  ASSERT_EQ(again.aggregator.rows().size(), 1u);
  ASSERT_EQ(again.aggregator.rows()[0].skipped.size(), 1u);
  EXPECT_EQ(again.aggregator.rows()[0].skipped[0].count, 2u);
}

TEST(WhyTest, DispatchReasonsWaitForTheirKindAndProblem) {
  // oneDNN#1959's long form names an rnn problem; a convolution created next does not take it.
  std::vector<std::string> lines = WhyGroup("uxlfoundation/oneDNN#1959");
  for (const std::string& l : WhyGroup("generated_2.6.3.txt lines 150-151")) lines.push_back(l);
  LogRun run;
  Feed(lines, run);
  ASSERT_EQ(run.aggregator.rows().size(), 1u);
  EXPECT_TRUE(run.aggregator.rows()[0].skipped.empty());
  EXPECT_EQ(FindNote(run.Summarize(), "skipped-faster-kernel"), nullptr);
}

TEST(WhyTest, DtypeUnitsOfOneDnnIsaNames) {
  const std::optional<DtypeUnits> emr = DtypeUnitsOfIsa("avx512_core_amx");
  ASSERT_TRUE(emr);
  EXPECT_TRUE(emr->avx512_fp16 && emr->avx512_bf16 && emr->amx_bf16 && emr->amx_int8 && emr->vnni);
  EXPECT_FALSE(emr->amx_fp16);
  EXPECT_TRUE(DtypeUnitsOfIsa("avx10_1_512_amx_fp16")->amx_fp16);
  // AVX10.2 without AMX ranks above AMX-FP16 in oneDNN's order, but has no tiles.
  const std::optional<DtypeUnits> avx10_2 = DtypeUnitsOfIsa("avx10_2");
  EXPECT_TRUE(avx10_2->avx512_fp16 && avx10_2->avx512_bf16 && avx10_2->vnni);
  EXPECT_FALSE(avx10_2->amx_bf16 || avx10_2->amx_fp16 || avx10_2->amx_int8);
  const std::optional<DtypeUnits> avx2_vnni = DtypeUnitsOfIsa("avx2_vnni");
  EXPECT_TRUE(avx2_vnni->vnni);
  EXPECT_FALSE(avx2_vnni->avx512_bf16);
  EXPECT_FALSE(DtypeUnitsOfIsa("avx512_core")->vnni);
  EXPECT_FALSE(DtypeUnitsOfIsa("sve"));
  EXPECT_FALSE(DtypeUnitsOfIsa(""));
}

TEST(WhyTest, F16WithoutAmxFp16IsNamedWithTheTypeThatHasAmx) {
  // oneDNN#3868 on Emerald Rapids: f16 ran on AVX-512 at 2.5x bf16's time on AMX. The group has
  // no ISA line: the log is judged by the CPU the caller names.
  const std::vector<std::string> lines = WhyGroup("uxlfoundation/oneDNN#3868");
  LogRun run;
  Feed(lines, run);
  ASSERT_EQ(run.aggregator.rows().size(), 2u);
  EXPECT_EQ(ComputeDtypeOf(run.aggregator.rows()[0]), "f16");
  EXPECT_EQ(ComputeDtypeOf(run.aggregator.rows()[1]), "bf16");
  DtypeUnits emerald = *DtypeUnitsOfIsa("avx512_core_amx");
  emerald.isa_level.clear();
  emerald.subject = "the CPU of a test";
  const Summary s = run.session.Summarize({.cpu = emerald});
  std::vector<const Finding*> found;
  for (const Finding& f : s.notes) {
    if (f.code == "dtype-no-native-path") found.push_back(&f);
  }
  ASSERT_EQ(found.size(), 1u) << "the bf16 row runs on AMX already";
  EXPECT_EQ(found[0]->severity, Severity::kWarning);
  EXPECT_EQ(found[0]->message,
            "f16 matmul brg_matmul:avx10_1_512 4x14336:14336x4096 (71.7% of exec time) ran at "
            "avx10_1_512: the CPU of a test has AVX512-FP16 but no AMX-FP16 (Granite Rapids and "
            "later have AMX-FP16); bf16 would use AMX (AMX-BF16) there, where its accuracy is "
            "enough.");
  // With AMX-FP16 (Granite Rapids) f16 has its native path: nothing to say.
  DtypeUnits granite = *DtypeUnitsOfIsa("avx10_1_512_amx_fp16");
  EXPECT_EQ(FindNote(run.session.Summarize({.cpu = granite}), "dtype-no-native-path"), nullptr);
}

TEST(WhyTest, DtypeUnitsComeFromTheHeadersIsaLineByDefault) {
  // oneDNN#1992's header (3.2.0, AMX-BF16 and AMX-INT8, no AMX-FP16) before #3868's f16 line.
  std::vector<std::string> lines = WhyGroup("uxlfoundation/oneDNN#1992");
  lines.push_back(WhyGroup("uxlfoundation/oneDNN#3868").front());
  LogRun run;
  Feed(lines, run);
  const Summary summary = run.Summarize();
  const Finding* f = FindNote(summary, "dtype-no-native-path");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find(": the log ran under avx512_core_amx: a cap, or a CPU with "
                            "AVX512-FP16 but without AMX-FP16"),
            std::string::npos)
      << f->message;
  EXPECT_TRUE(
      f->message.ends_with("bf16 would use AMX (AMX-BF16) there, where its accuracy is "
                           "enough."))
      << f->message;
  // Under an AVX2 cap f16 has no native unit and nothing else has one either.
  const std::optional<Finding> capped =
      DtypePathFinding(run.aggregator.rows()[0], 100, *DtypeUnitsOfIsa("avx2"));
  ASSERT_TRUE(capped);
  EXPECT_NE(capped->message.find("the log ran under avx2: a cap, or a CPU without AVX512-FP16 "
                                 "and AMX-FP16, so oneDNN converts f16 and computes in f32"),
            std::string::npos)
      << capped->message;
  EXPECT_TRUE(capped->message.ends_with("; f32 would run at least as fast there."))
      << capped->message;
}

// A log capped below the host: the finding speaks of the log's level, and what the host has is a
// sentence of its own (issue: "this CPU has no AVX512-BF16" on a host that has it).
TEST(WhyTest, TheHostIsASentenceOfItsOwnWhereItDiffersFromTheLog) {
  std::vector<std::string> lines = WhyGroup("uxlfoundation/oneDNN#1992");
  lines.push_back(WhyGroup("uxlfoundation/oneDNN#3868").front());
  LogRun run;
  Feed(lines, run);
  const PrimitiveStats& f16_row = run.aggregator.rows()[0];
  const DtypeUnits capped = *DtypeUnitsOfIsa("avx512_core");
  // Zen 4 as its features say: AVX512-BF16 and VNNI, no AVX512-FP16, no AMX.
  DtypeUnits zen4 = DtypeUnitsOfFeatures(
      [](std::string_view f) { return f == "avx512_bf16" || f == "avx512_vnni"; }, "this host");
  zen4.here = true;
  const std::optional<Finding> on_zen4 = DtypePathFinding(f16_row, 50, capped, zen4);
  ASSERT_TRUE(on_zen4);
  EXPECT_NE(on_zen4->message.find("the log ran under avx512_core: a cap, or a CPU without "
                                  "AVX512-FP16 and AMX-FP16"),
            std::string::npos)
      << on_zen4->message;
  EXPECT_NE(on_zen4->message.find("; f32 would run at least as fast there. This host has no "
                                  "AVX512-FP16 and no AMX-FP16: f16 is converted to f32 here; "
                                  "bf16 would use AVX512-BF16 here, where its accuracy is "
                                  "enough."),
            std::string::npos)
      << on_zen4->message;
  EXPECT_EQ(on_zen4->message.find("AMX (AMX-BF16)"), std::string::npos)
      << "AMD has no AMX: " << on_zen4->message;
  // On an AMX host the sentence says so; where the host is the log's level, nothing is added.
  DtypeUnits emerald = *DtypeUnitsOfIsa("avx512_core_amx");
  emerald.isa_level.clear();
  emerald.subject = "this host";
  emerald.here = true;
  const std::optional<Finding> on_emerald = DtypePathFinding(f16_row, 50, capped, emerald);
  ASSERT_TRUE(on_emerald);
  EXPECT_TRUE(on_emerald->message.ends_with(
      " This host has AVX512-FP16: f16 runs natively here; bf16 would use AMX (AMX-BF16) here, "
      "where its accuracy is enough."))
      << on_emerald->message;
  DtypeUnits same = capped;
  same.isa_level.clear();
  same.subject = "this host";
  same.here = true;
  const std::optional<Finding> alike = DtypePathFinding(f16_row, 50, capped, same);
  ASSERT_TRUE(alike);
  EXPECT_EQ(alike->message.find("This host"), std::string::npos) << alike->message;
}

TEST(WhyTest, ExecutionArgumentsInWords) {
  EXPECT_EQ(ArgumentName(1), "the source");
  EXPECT_EQ(ArgumentName(80), "the scratchpad");
  EXPECT_EQ(ArgumentName(4097), "the scales of the source");
  EXPECT_EQ(ArgumentName(4113), "the scales of the destination");
  EXPECT_EQ(ArgumentName(4129), "the scales of the weights");
  EXPECT_EQ(ArgumentName(8193), "the zero points of the source");
  EXPECT_EQ(ArgumentName(32768 * 2 + 2), "the second input of post-op 1");
  EXPECT_EQ(ArgumentName(1024 + 3), "source 3");
  EXPECT_EQ(ArgumentName(7), "argument 7");
  EXPECT_EQ(ArgumentName(-1), "argument -1");
}

TEST(WhyTest, CheckLinesSayWhatTheCallerPassedWrong) {
  // oneDNN#1845: the convolution ran with three scales arguments it was not created with.
  LogRun run;
  Feed(WhyGroup("uxlfoundation/oneDNN#1845"), run);
  const std::vector<DiagnosticStats>& d = run.aggregator.diagnostics();
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].operation, "exec:check");
  EXPECT_EQ(PlainWords(d[0].operation, d[0].message),
            "the caller passed the scales of the destination (argument 4113) to execute(), and "
            "this primitive does not use it: the argument map holds a memory meant for another "
            "primitive, or scales or zero points the primitive was not created with (ignored; "
            "the creation and the execution disagree)");
  const Summary summary = run.Summarize();
  const Finding* f = FindNote(summary, "caller-checks");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_TRUE(
      f->message.starts_with("oneDNN's checks found 3 things the caller passed wrong: "
                             "primitive: the caller passed the scales of the "
                             "destination (argument 4113)"))
      << f->message;
  // unsloth#3292: the scratchpad; oneDNN's own documentation: a matmul of disagreeing shapes.
  LogRun more;
  std::vector<std::string> lines = WhyGroup("unslothai/unsloth#3292");
  for (const std::string& l : WhyGroup("oneDNN's doc/performance_considerations/verbose.md")) {
    lines.push_back(l);
  }
  Feed(lines, more);
  const std::vector<DiagnosticStats>& two = more.aggregator.diagnostics();
  ASSERT_EQ(two.size(), 2u);
  EXPECT_TRUE(PlainWords(two[0].operation, two[0].message)
                  .starts_with("the caller passed the scratchpad (argument 80) to execute()"));
  EXPECT_EQ(two[1].operation, "create:check");
  EXPECT_EQ(PlainWords(two[1].operation, two[1].message),
            "the caller's shapes disagree: dimension 1 of src does not match dimension 0 of "
            "weights (an operand transposed, or of the wrong shape)");
  // A dispatch reason is not the caller's mistake: it has its own column.
  EXPECT_EQ(PlainWords("create:dispatch", "unsupported datatype combination"), "");
  EXPECT_EQ(PlainWords("exec:check", "a message dlcheck has never seen"), "");
}

TEST(WhyTest, IsaOfSourceFileAndKnobs) {
  EXPECT_EQ(IsaOfSourceFile("jit_avx2_conv_kernel_f32.cpp"), "avx2");
  EXPECT_EQ(IsaOfSourceFile("jit_avx512_core_bf16_1x1_conv_kernel.cpp"), "avx512_core_bf16");
  EXPECT_EQ(IsaOfSourceFile("jit_uni_ncsp_convolution.cpp"), "");
  EXPECT_EQ(IsaOfSourceFile("gemm_convolution_utils.cpp"), "");
  EXPECT_EQ(KnobOf("unsupported datatype").name, "data type");
  EXPECT_EQ(KnobOf("unsupported format tag").name, "layout");
  EXPECT_EQ(KnobOf("unsupported feature for padding: f,t,l padding not supported").name, "shape");
  EXPECT_EQ(KnobOf("scratchpad memory limit exceeded").name, "scratchpad");
}

TEST(WhyTest, WeightsReorderedEveryStepIsNamedWithItsInnerProduct) {
  // oneDNN#1393: each step re-ran the 24 ms weights reorder beside the 33 ms inner product.
  const std::vector<std::string> group = WhyGroup("uxlfoundation/oneDNN#1393");
  std::vector<std::string> lines(group.begin(), group.begin() + 5);  // the header
  for (int step = 0; step < 3; ++step) lines.insert(lines.end(), group.begin() + 5, group.end());
  LogRun run;
  Feed(lines, run);
  const Summary s = run.Summarize();
  const Finding* f = FindNote(s, "reorder-every-step");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->message,
            "reorder jit:uni ba->AB16b64a 512x15680 ran 3 times for 3 executions of "
            "inner_product brgemm:avx512_core mb200ic15680oc512: its weights are reordered on "
            "every call (42.2% of exec time, beside its 57.8%). Keep the weights in the layout "
            "the primitive wants: cache or prepack them (torch.jit.freeze, "
            "ipex.optimize(weights_prepack=True), TensorFlow's oneDNN weight caching), and "
            "create the primitive with format `any` so the layout propagates");
  // An exec-only log: its percentages cover execution only.
  const Finding* partial = FindNote(s, "partial-log");
  ASSERT_NE(partial, nullptr);
  EXPECT_EQ(partial->severity, Severity::kInfo);
}

TEST(WhyTest, OneReorderBeforeOneRunIsNotPerStep) {
  const std::vector<std::string> lines = WhyGroup("uxlfoundation/oneDNN#1393");
  LogRun run;
  Feed(lines, run);
  EXPECT_EQ(FindNote(run.Summarize(), "reorder-every-step"), nullptr);
}

TEST(WhyTest, APrimitiveMissedTwiceIsCacheThrash) {
  const std::vector<std::string> group = WhyGroup("uxlfoundation/oneDNN#832");
  std::vector<std::string> lines = group;
  lines.insert(lines.end(), group.begin(), group.end());  // evicted, created again
  LogRun run;
  Feed(lines, run);
  ASSERT_EQ(run.aggregator.rows().size(), 1u);
  EXPECT_EQ(run.aggregator.rows()[0].CacheMisses(), 2u);
  const Summary s = run.Summarize();
  const Finding* f = FindNote(s, "cache-thrash");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->message,
            "1 primitive was created again after a cache miss (convolution jit:avx512_common "
            "mb1_ic3oc64_ih224oh112kh7sh2dh0ph3_iw224ow112kw7sw2dw0pw3, 2 creations; 1 extra "
            "creations, about 0.574 ms of the 1.148 ms of creation time): the primitive cache "
            "evicts them, or shapes "
            "change from call to call. Raise ONEDNN_PRIMITIVE_CACHE_CAPACITY above the number "
            "of distinct primitives, and keep shapes stable (a fixed batch size, padded or "
            "bucketed sequence lengths)");
  // Missed once: no thrash.
  LogRun once;
  Feed(group, once);
  EXPECT_EQ(FindNote(once.Summarize(), "cache-thrash"), nullptr);
}

TEST(WhyTest, AHeaderWithoutPrimitiveLinesIsAPartialLog) {
  LogRun run;
  Feed(WhyGroup("uxlfoundation/oneDNN#2734"), run);
  const Summary s = run.Summarize();
  const Finding* f = FindNote(s, "partial-log");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->message,
            "the log holds oneDNN's header but no primitive line: verbose output was off or at "
            "the error level (ONEDNN_VERBOSE=error is oneDNN 3.x's default); set "
            "ONEDNN_VERBOSE=2 (DNNL_VERBOSE=2 before 2.5)");
}

TEST(WhyTest, AVerboseFilterMakesEveryTotalPartial) {
  // The info line as oneDNN's source prints it (FORMATS.md, marked [src]): no pasted one found.
  std::vector<std::string> lines = WhyGroup("uxlfoundation/oneDNN#832");
  lines.insert(lines.begin(),
               "onednn_verbose,v1,common,info,filter format is enabled, hit components: primitive");
  LogRun run;
  Feed(lines, run);
  const Summary s = run.Summarize();
  const Finding* f = FindNote(s, "partial-log");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(f->message.find("every total and percentage covers those lines only"),
            std::string::npos);
}

TEST(AggregateTest, PropertySumsOfRowsEqualEventCounts) {
  std::vector<std::string> pool;
  for (const char* file :
       {"real_lines.txt", "generated_2.6.3.txt", "formats_3.13.1.txt", "torch_cnn_2.6.3.log"}) {
    for (auto& line : testing::FixtureLines(file)) pool.push_back(std::move(line));
  }
  std::mt19937 rng(12345);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::string> log;
    const std::size_t n = 1 + rng() % 400;
    for (std::size_t i = 0; i < n; ++i) {
      std::string line = pool[rng() % pool.size()];
      if (rng() % 17 == 0) line = line.substr(0, rng() % (line.size() + 1));  // cut
      if (rng() % 23 == 0) line += "\r";
      log.push_back(std::move(line));
    }
    LogRun run;
    Feed(log, run);
    std::uint64_t execs = 0, creates = 0, hits = 0, nested = 0;
    for (const PrimitiveStats& row : run.aggregator.rows()) {
      execs += row.execs;
      creates += row.creates;
      hits += row.cache_hits;
      nested += row.nested_creates;
    }
    EXPECT_EQ(nested, run.counts.nested_events) << "trial " << trial;
    EXPECT_EQ(execs, run.counts.exec_events) << "trial " << trial;
    EXPECT_EQ(creates, run.counts.create_events) << "trial " << trial;
    EXPECT_EQ(hits, run.counts.cache_hit_events) << "trial " << trial;
    const Summary s = run.Summarize();
    double pct = 0;
    for (const TimeShare& share : s.by_kind) pct += share.pct;
    if (s.exec_ms > 0) {
      EXPECT_NEAR(pct, 100.0, 1e-6) << "trial " << trial;
    }
  }
}

}  // namespace
}  // namespace dlcheck::verbose
