// SPDX-License-Identifier: Apache-2.0
// The rebuild of log rows with the linked oneDNN 2.6.3, from real lines of several eras
// (tests/data/verbose: Debian's 2.6.3 on a Zen 4, PyTorch 1.13 logs, lines pasted in public
// issues, 3.13.1's own format). Invariants that hold on any x86-64 host, at any ISA cap.
#include "whatif/rebuild.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/test_files.h"
#include "verbose/benchdnn.h"
#include "verbose/fixture_lines.h"
#include "verbose/flops.h"
#include "verbose/line_parser.h"
#include "verbose/log_session.h"
#include "verbose/shape_math.h"
#include "whatif/layout.h"
#include "whatif/measure.h"
#include "whatif/whatif.h"

namespace dlcheck::whatif {
namespace {

using dnnl::memory;
using verbose::testing::FixtureLines;

std::vector<verbose::PrimitiveStats> RowsOfLines(const std::vector<std::string>& lines) {
  verbose::LogSession session;
  std::uint64_t n = 0;
  for (const std::string& line : lines) session.Feed(line, ++n);
  session.Finish();
  return session.TakeRows();
}

// The rows of a log of tests/data/verbose.
std::vector<verbose::PrimitiveStats> RowsOf(const std::string& file) {
  return RowsOfLines(FixtureLines(file));
}

// The rows of a log of tests/data/whatif (benchdnn's lines of every kind).
std::vector<verbose::PrimitiveStats> WhatifRowsOf(const std::string& file) {
  std::istringstream text(dlcheck::testing::ReadFile(dlcheck::testing::DataPath("whatif/" + file)));
  std::vector<std::string> lines;
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  EXPECT_FALSE(lines.empty()) << "tests/data/whatif/" << file;
  return RowsOfLines(lines);
}

verbose::MemoryDesc Md(std::string tag, std::string type = "f32", std::string kind = "blocked") {
  return {.name = "src",
          .data_type = std::move(type),
          .format_kind = std::move(kind),
          .tag = std::move(tag),
          .flags = "f0"};
}

// Every tag is built from its letters; where oneDNN has a format_tag of that name, the two
// descriptors are the same descriptor.
// At least `min_runs` timed runs, or fewer where the variant's time limit (1 s at a 0 budget) ran
// out first, which a busy machine makes happen: then the measurement says so. A count of runs
// is no timing assertion.
void ExpectRunsOrLimitNoted(const Measurement& m, std::uint64_t min_runs, const std::string& what) {
  EXPECT_GE(m.runs, 1u) << what;
  if (m.runs < min_runs) {
    EXPECT_NE(m.note.find("took longer than the limit"), std::string::npos)
        << what << ": " << m.note;
  }
}

TEST(Layout, TagsAreOneDnnsOwn) {
  const std::vector<std::pair<std::string, memory::format_tag>> cases = {
      {"abcd", memory::format_tag::abcd},
      {"acdb", memory::format_tag::acdb},
      {"aBcd16b", memory::format_tag::aBcd16b},
      {"aBcd8b", memory::format_tag::aBcd8b},
      {"ABcd16b16a", memory::format_tag::ABcd16b16a},
      {"ABcd16a16b", memory::format_tag::ABcd16a16b},
      {"Acdb16a", memory::format_tag::Acdb16a},
      {"ABcd4b16a4b", memory::format_tag::ABcd4b16a4b},
      {"acdeb", memory::format_tag::acdeb}};
  const memory::dims dims4 = {20, 50, 5, 7};
  for (const auto& [tag, format] : cases) {
    const memory::dims dims =
        tag.size() == 5 && tag == "acdeb" ? memory::dims{2, 3, 4, 5, 6} : dims4;
    StatusOr<memory::desc> made = MakeMemoryDesc(dims, Md(tag));
    ASSERT_TRUE(made.ok()) << tag << ": " << made.status().message();
    EXPECT_EQ(*made, memory::desc(dims, memory::data_type::f32, format)) << tag;
    EXPECT_EQ(TagOf(*made), tag);
  }
  // A dimension of one element ties two strides: the tag still reads back as itself.
  StatusOr<memory::desc> ic1 = MakeMemoryDesc({20, 1, 5, 5}, Md("Acdb16a"));
  ASSERT_TRUE(ic1.ok());
  EXPECT_EQ(TagOf(*ic1), "Acdb16a");
  StatusOr<memory::desc> ab = MakeMemoryDesc({64, 800}, Md("AB16b64a", "bf16"));
  ASSERT_TRUE(ab.ok());
  EXPECT_EQ(*ab, memory::desc({64, 800}, memory::data_type::bf16, memory::format_tag::AB16b64a));
}

TEST(Layout, SaysWhatCannotBeBuilt) {
  EXPECT_EQ(MakeMemoryDesc({2, 3}, Md("abcd")).status().message(),
            "tag 'abcd' of src does not fit its 2 dimensions");
  EXPECT_EQ(MakeMemoryDesc({2, 3}, Md("", "f32", "wino")).status().message(),
            "layout 'wino' of src is internal to the kernel that made it and cannot be given to "
            "oneDNN");
  EXPECT_EQ(MakeMemoryDesc({2, 3}, Md("ab", "f8_e5m2")).status().message(),
            "data type 'f8_e5m2' of src has no oneDNN 2.6.3 equivalent");
  StatusOr<memory::desc> any = MakeMemoryDesc({2, 3}, Md("", "f32", "any"));
  ASSERT_TRUE(any.ok());
  EXPECT_EQ(TagOf(*any), "any");
}

TEST(Layout, ReadsCompensationFlags) {
  verbose::MemoryDesc md = Md("ABcd4b16a4b", "s8");
  md.flags = "f8:zpm1";
  StatusOr<memory::desc> made = MakeMemoryDesc({16, 16, 3, 3}, md);
  ASSERT_TRUE(made.ok());
  EXPECT_EQ(made->data.extra.flags, 8u);
  EXPECT_EQ(made->data.extra.asymm_compensation_mask, 1);
}

// The kinds the rebuild covers, in every direction: all that 2.6.3 prints.
bool Covered(const verbose::PrimitiveStats& row) {
  return !row.primitive.str().empty();
}

// Each row of 2.6.3's own lines (every kind it prints) is rebuilt, with the layouts the line
// printed, or says why not; the covered kinds are rebuilt.
TEST(Rebuild, EveryRowOfOneDnn263IsRebuiltOrSaysWhy) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  std::size_t rebuilt_rows = 0;
  for (const verbose::PrimitiveStats& row : RowsOf("generated_2.6.3.txt")) {
    StatusOr<Rebuilt> rebuilt = Rebuild(row, engine);
    if (!rebuilt.ok()) {
      EXPECT_FALSE(rebuilt.status().message().empty());
      EXPECT_FALSE(Covered(row)) << row.primitive.str() << " " << row.prop_kind.str() << ": "
                                 << rebuilt.status().message();
      continue;
    }
    ++rebuilt_rows;
    EXPECT_FALSE(rebuilt->implementation().empty());
    // As logged: the descriptor's tensors are the line's own layouts.
    for (const auto& [arg, logged] : rebuilt->logged) {
      const memory::desc chosen = rebuilt->is_reorder
                                      ? (arg == DNNL_ARG_FROM ? rebuilt->current().src_desc()
                                                              : rebuilt->current().dst_desc())
                                      : rebuilt->current().query_md(dnnl::query::exec_arg_md, arg);
      EXPECT_EQ(TagOf(chosen), TagOf(logged)) << row.primitive.str() << " arg " << arg;
    }
  }
  EXPECT_GE(rebuilt_rows, 25u);
}

// PyTorch 1.13 logs (f32 CNN at three ISA caps, bf16, int8 with zero points and scales): every
// row rebuilt.
TEST(Rebuild, TorchLogsAreRebuilt) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  for (const char* file :
       {"torch_cnn_2.6.3.log", "torch_cnn_avx2_2.6.3.log", "torch_cnn_sse41_2.6.3.log",
        "torch_bf16_2.6.3.log", "torch_int8_2.6.3.log"}) {
    for (const verbose::PrimitiveStats& row : RowsOf(file)) {
      StatusOr<Rebuilt> rebuilt = Rebuild(row, engine);
      // oneDNN 2.6.3 has bf16 kernels from AVX-512 (avx512_core) up: below it (an older host, or
      // ONEDNN_MAX_CPU_ISA=AVX2) a bf16 row is refused, and said so.
      if (!rebuilt.ok() && std::string_view(file) == "torch_bf16_2.6.3.log" &&
          dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core) {
        EXPECT_NE(rebuilt.status().message().find("on this CPU"), std::string::npos)
            << rebuilt.status().message();
        continue;
      }
      EXPECT_TRUE(rebuilt.ok()) << file << ": " << row.primitive.str() << " " << row.prop_kind.str()
                                << " " << row.attributes.str() << ": "
                                << rebuilt.status().message();
    }
  }
}

// Lines of other eras (1.x, 2.x and 3.x pasted in public issues, 3.13.1's format): rebuilt or
// a reason, never an exception.
TEST(Rebuild, OtherErasAreRebuiltOrSayWhy) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  std::size_t rebuilt_rows = 0, rows = 0;
  for (const char* file : {"real_lines.txt", "formats_3.13.1.txt", "why_lines.txt"}) {
    for (const verbose::PrimitiveStats& row : RowsOf(file)) {
      ++rows;
      StatusOr<Rebuilt> rebuilt = Rebuild(row, engine);
      if (rebuilt.ok()) {
        ++rebuilt_rows;
      } else {
        EXPECT_FALSE(rebuilt.status().message().empty());
      }
    }
  }
  EXPECT_GT(rebuilt_rows, rows / 3);
}

// The attribute syntax of 1.x to 2.2 (pytorch/pytorch#45746, oneDNN#1074 in real_lines.txt):
// `scratchpad_mode:user;`, `post_ops:'eltwise_bounded_relu:6;';`.
TEST(Rebuild, ReadsTheAttributesOfOneDnn1x) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  std::size_t legacy = 0;
  for (const verbose::PrimitiveStats& row : RowsOf("real_lines.txt")) {
    const std::string attributes = row.attributes.str();
    if (attributes.find("scratchpad_mode:") == std::string::npos &&
        attributes.find("post_ops:'eltwise") == std::string::npos) {
      continue;
    }
    ++legacy;
    StatusOr<Rebuilt> rebuilt = Rebuild(row, engine);
    ASSERT_TRUE(rebuilt.ok()) << attributes << ": " << rebuilt.status().message();
    if (attributes.find("post_ops:") != std::string::npos) {
      EXPECT_EQ(rebuilt->current().get_primitive_attr().get_post_ops().len(), 1);
    }
  }
  EXPECT_EQ(legacy, 2u);
}

// The argument a backward pass writes, by its propagation.
bool WritesAGradient(const Rebuilt& rebuilt) {
  return rebuilt.output_arg == DNNL_ARG_DIFF_SRC || rebuilt.output_arg == DNNL_ARG_DIFF_WEIGHTS;
}

TEST(Rebuild, SaysWhyForAGpuRowAndAnRnnOf3x) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  verbose::PrimitiveStats gpu = RowsOf("generated_2.6.3.txt").front();
  gpu.engine = verbose::InternedText("gpu");
  EXPECT_EQ(Rebuild(gpu, engine).status().message(),
            "a gpu primitive: dlcheck rebuilds CPU primitives only");
  // 3.x's rnn flag `O` (diff weights overwritten) has no 2.6.3 counterpart.
  verbose::PrimitiveStats rnn = WhatifRowsOf("benchdnn_rnn_3.10.2.log").front();
  ASSERT_EQ(rnn.primitive.str(), "rnn");
  std::string aux = rnn.auxiliary.str();
  aux.replace(aux.find("flags:"), 6, "flags:O");
  rnn.auxiliary = verbose::InternedText(aux);
  EXPECT_EQ(Rebuild(rnn, engine).status().message(),
            "rnn flags 'O' (oneDNN 3.x) have no 2.6.3 equivalent");
  rnn.auxiliary = verbose::InternedText("alg:vanilla_lstm direction:diagonal activation:undef");
  EXPECT_EQ(Rebuild(rnn, engine).status().message(),
            "rnn direction 'diagonal' is unknown to oneDNN 2.6.3");
}

// benchdnn's rnn lines (2.6.3 and 3.10.2, tests/data/whatif/benchdnn_rnn_*): every cell
// (vanilla rnn, lstm with and without peephole and projection, gru, lbr gru, augru, lbr augru),
// every direction and propagation, rebuilt with the layouts the line printed, created and timed;
// a backward pass with its forward hint and the workspace that hint writes. A bf16 row may have
// no kernel on this CPU (or under an ISA cap), and says so.
TEST(Rebuild, EveryRnnCellIsRebuiltAndRuns) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  std::set<std::string> cells;
  std::size_t backward_rows = 0;
  for (const char* file : {"benchdnn_rnn_2.6.3.log", "benchdnn_rnn_3.10.2.log"}) {
    for (const verbose::PrimitiveStats& row : WhatifRowsOf(file)) {
      const std::string what = std::string(file) + ": " + row.prop_kind.str() + " " +
                               row.auxiliary.str() + " " + row.problem.str();
      ASSERT_EQ(row.primitive.str(), "rnn") << what;
      StatusOr<Rebuilt> rebuilt = Rebuild(row, engine);
      if (!rebuilt.ok() && row.memory_descriptors.view().find("bf16") != std::string_view::npos) {
        EXPECT_NE(rebuilt.status().message().find("on this CPU"), std::string::npos)
            << what << ": " << rebuilt.status().message();
        continue;
      }
      ASSERT_TRUE(rebuilt.ok()) << what << ": " << rebuilt.status().message();
      for (const auto& [arg, logged] : rebuilt->logged) {
        EXPECT_EQ(TagOf(rebuilt->current().query_md(dnnl::query::exec_arg_md, arg)), TagOf(logged))
            << what << " arg " << arg;
      }
      StatusOr<Measurement> m = Measure(*rebuilt, engine, {.budget_s = 0.01, .min_runs = 5});
      ASSERT_TRUE(m.ok()) << what << ": " << m.status().message();
      ExpectRunsOrLimitNoted(*m, 5, what);
      EXPECT_LE(m->min_ms, m->avg_ms) << what;
      const std::string aux = row.auxiliary.str();
      cells.insert(aux.substr(0, aux.find(' ')));
      if (!row.prop_kind.view().starts_with("backward")) continue;
      ++backward_rows;
      EXPECT_TRUE(WritesAGradient(*rebuilt)) << what;
      EXPECT_TRUE(rebuilt->hint) << what;
      EXPECT_GT(
          rebuilt->current().query_md(dnnl::query::exec_arg_md, DNNL_ARG_WORKSPACE).get_size(), 0u)
          << what;
    }
  }
  for (const char* cell : {"alg:vanilla_rnn", "alg:vanilla_lstm", "alg:vanilla_gru", "alg:lbr_gru",
                           "alg:vanilla_augru", "alg:lbr_augru"}) {
    EXPECT_TRUE(cells.contains(cell)) << cell;
  }
  EXPECT_GE(backward_rows, 4u);
}

// benchdnn's own lines of every kind (2.6.3 and 3.10.2, tests/data/verbose/benchdnn_kinds_*):
// each row rebuilt, created and timed, a backward pass with its forward hint and,
// where it reads one, the workspace that hint writes. A kind oneDNN has no kernel for on this
// CPU (or under an ISA cap) says so.
TEST(Rebuild, EveryKindOfBenchdnnIsRebuiltAndRuns) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  std::set<std::string> measured_kinds;
  std::size_t backward_rows = 0, workspace_rows = 0;
  for (const char* file : {"benchdnn_kinds_2.6.3.log", "benchdnn_kinds_3.10.2.log"}) {
    for (const verbose::PrimitiveStats& row : WhatifRowsOf(file)) {
      const std::string what = std::string(file) + ": " + row.primitive.str() + " " +
                               row.prop_kind.str() + " " + row.problem.str();
      StatusOr<Rebuilt> rebuilt = Rebuild(row, engine);
      if (!Covered(row) || row.primitive.str() == "gemm_api") {
        EXPECT_FALSE(rebuilt.ok()) << what;
        continue;
      }
      if (!rebuilt.ok()) {
        // Int8 weights in a layout of 3.x's own kernels: 2.6.3 may have no kernel for them here.
        EXPECT_NE(rebuilt.status().message().find("on this CPU"), std::string::npos)
            << what << ": " << rebuilt.status().message();
        continue;
      }
      StatusOr<Measurement> m = Measure(*rebuilt, engine, {.budget_s = 0.01, .min_runs = 5});
      ASSERT_TRUE(m.ok()) << what << ": " << m.status().message();
      ExpectRunsOrLimitNoted(*m, 5, what);
      EXPECT_LE(m->min_ms, m->avg_ms) << what;
      EXPECT_FALSE(m->implementation.empty()) << what;
      measured_kinds.insert(row.primitive.str());
      if (!row.prop_kind.view().starts_with("backward")) continue;
      ++backward_rows;
      EXPECT_TRUE(WritesAGradient(*rebuilt)) << what;
      EXPECT_TRUE(rebuilt->hint) << what;
      const memory::desc ws =
          rebuilt->current().query_md(dnnl::query::exec_arg_md, DNNL_ARG_WORKSPACE);
      if (ws.get_size() > 0) ++workspace_rows;
    }
  }
  for (const char* kind : {"eltwise", "pooling_v2", "pooling", "softmax_v2", "softmax",
                           "batch_normalization", "layer_normalization", "deconvolution", "lrn",
                           "shuffle", "resampling", "prelu", "reduction", "sum", "concat"}) {
    EXPECT_TRUE(measured_kinds.contains(kind)) << kind;
  }
  EXPECT_GE(backward_rows, 20u);
  EXPECT_GE(workspace_rows, 2u);  // max pooling, at least
}

// A backward max pooling reads the argmax its forward pass wrote: each gradient of diff_dst
// lands on one element of its window, at most one per window, and not always on the window's
// first element (where an unwritten, zero workspace would send every one).
TEST(Rebuild, BackwardMaxPoolingRoutesEachGradientOnce) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  for (const verbose::PrimitiveStats& row : WhatifRowsOf("benchdnn_kinds_2.6.3.log")) {
    if (row.primitive.str() != "pooling_v2" || row.prop_kind.str() != "backward_data" ||
        row.auxiliary.str() != "alg:pooling_max") {
      continue;
    }
    StatusOr<Rebuilt> rebuilt = Rebuild(row, engine);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
    StatusOr<Measurement> m =
        Measure(*rebuilt, engine, {.budget_s = 0, .min_runs = 1, .keep_output = true});
    ASSERT_TRUE(m.ok()) << m.status().message();
    // mb2ic16 8x8 in 2x2 windows, stride 2: 2 * 16 * 4 * 4 windows over 2 * 16 * 8 * 8 inputs.
    const std::span<const float> output = m->output.view();
    ASSERT_EQ(output.size(), 2u * 16 * 8 * 8);
    std::size_t set = 0, off_origin = 0;
    for (std::size_t i = 0; i < output.size(); ++i) {
      if (output[i] == 0) continue;
      ++set;
      const std::size_t h = i / 8 % 8, w = i % 8;
      if (h % 2 == 1 || w % 2 == 1) ++off_origin;
    }
    EXPECT_LE(set, 2u * 16 * 4 * 4);
    EXPECT_GT(set, 0u);
    EXPECT_GT(off_origin, 0u);
    return;
  }
  FAIL() << "no backward max pooling in benchdnn_kinds_2.6.3.log";
}

// 3.x's scales per argument and zero points (the values given at run time) fold into 2.6.3's
// run-time output scales and zero points: the row is rebuilt with the layouts oneDNN prefers.
TEST(Rebuild, ReadsScalesAndZeroPointsOf3x) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  std::size_t rows = 0;
  for (const verbose::PrimitiveStats& row : WhatifRowsOf("benchdnn_kinds_3.10.2.log")) {
    if (row.attributes.view().find("attr-scales") == std::string_view::npos) continue;
    ++rows;
    StatusOr<Rebuilt> any = Rebuild(row, engine, {.layouts_any = true});
    if (!any.ok()) {
      EXPECT_NE(any.status().message().find("on this CPU"), std::string::npos)
          << row.primitive.str() << ": " << any.status().message();
      continue;
    }
    EXPECT_TRUE(any->extra_args.contains(DNNL_ARG_ATTR_OUTPUT_SCALES)) << row.primitive.str();
    StatusOr<Measurement> m = Measure(*any, engine, {.budget_s = 0, .min_runs = 1});
    EXPECT_TRUE(m.ok()) << row.primitive.str() << ": " << m.status().message();
  }
  EXPECT_EQ(rows, 3u);
}

TEST(Rebuild, SaysWhichScalesCannotBeFolded) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  for (const verbose::PrimitiveStats& logged : WhatifRowsOf("benchdnn_kinds_3.10.2.log")) {
    if (logged.primitive.str() != "matmul") continue;
    verbose::PrimitiveStats row = logged;
    row.attributes = verbose::InternedText("attr-scales:src0:1:f32");
    EXPECT_EQ(Rebuild(row, engine).status().message(),
              "scales 'src0:1:f32' cannot be folded into oneDNN 2.6.3 output scales");
    row.attributes = verbose::InternedText("attr-zero-points:src0:2:s32");
    EXPECT_EQ(Rebuild(row, engine).status().message(),
              "zero points 'src0:2:s32' vary along a dimension: dlcheck rebuilds common zero "
              "points only");
    return;
  }
  FAIL() << "no matmul in benchdnn_kinds_3.10.2.log";
}

// The layouts oneDNN prefers: every tensor at `any` before creation, a concrete layout after.
TEST(Rebuild, LayoutsAnyLetsOneDnnChoose) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  for (const verbose::PrimitiveStats& row : RowsOf("torch_cnn_2.6.3.log")) {
    if (row.primitive.str() != "convolution") continue;
    StatusOr<Rebuilt> rebuilt = Rebuild(row, engine, {.layouts_any = true});
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
    const memory::desc src = rebuilt->current().query_md(dnnl::query::exec_arg_md, DNNL_ARG_SRC);
    if (src.data.ndims > 0) {
      EXPECT_NE(TagOf(src), "any");
    }
  }
}

// Measured as benchdnn --mode=P: at least 5 timed runs, min <= avg, an implementation.
TEST(Measure, TimesAtLeastFiveRuns) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const std::vector<verbose::PrimitiveStats> rows = RowsOf("generated_2.6.3.txt");
  std::size_t measured = 0;
  for (const verbose::PrimitiveStats& row : rows) {
    if (row.primitive.str() != "convolution" && row.primitive.str() != "reorder") continue;
    StatusOr<Rebuilt> rebuilt = Rebuild(row, engine);
    if (!rebuilt.ok()) continue;
    StatusOr<Measurement> m = Measure(*rebuilt, engine, {.budget_s = 0, .min_runs = 5});
    ASSERT_TRUE(m.ok()) << m.status().message();
    ExpectRunsOrLimitNoted(*m, 5, row.problem.str());
    EXPECT_GT(m->min_ms, 0);
    EXPECT_LE(m->min_ms, m->avg_ms);
    EXPECT_EQ(m->implementation, rebuilt->implementation());
    ++measured;
  }
  EXPECT_GE(measured, 4u);
}

// A bf16 convolution against its f32 reference: the deviation is small but bf16's own.
TEST(Measure, DeviationOfBf16IsBf16s) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  for (const verbose::PrimitiveStats& row : RowsOf("torch_cnn_2.6.3.log")) {
    if (row.primitive.str() != "convolution" || row.prop_kind.str() != "forward_training") continue;
    StatusOr<Rebuilt> f32 = Rebuild(row, engine);
    StatusOr<Rebuilt> bf16 = Rebuild(row, engine, {.data_type = "bf16"});
    ASSERT_TRUE(f32.ok());
    if (!bf16.ok()) GTEST_SKIP() << "no bf16 convolution here: " << bf16.status().message();
    MeasureSettings once{.budget_s = 0, .min_runs = 1, .keep_output = true};
    StatusOr<Measurement> a = Measure(*f32, engine, once);
    StatusOr<Measurement> b = Measure(*bf16, engine, once);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->output.size, b->output.size);
    const std::optional<Deviation> d = DeviationOf(b->output.view(), a->output.view());
    ASSERT_TRUE(d.has_value());
    EXPECT_LT(d->relative_to_largest, 0.1);  // bf16 keeps 8 bits: far below 10 %
    return;
  }
}

// The inputs of a float tensor are not all exact in bf16 (a value whose low 16 bits are not
// all zero), so that a data-type variant rounds as the change would: a plain f32 reorder's
// output is its input.
TEST(Measure, FloatInputsAreNotExactInBf16) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  for (const verbose::PrimitiveStats& row : RowsOf("torch_cnn_2.6.3.log")) {
    if (row.primitive.str() != "reorder") continue;
    StatusOr<Rebuilt> rebuilt = Rebuild(row, engine);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status().message();
    StatusOr<Measurement> m =
        Measure(*rebuilt, engine, {.budget_s = 0, .min_runs = 1, .keep_output = true});
    ASSERT_TRUE(m.ok()) << m.status().message();
    std::size_t inexact = 0;
    for (const float value : m->output.view()) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &value, sizeof bits);
      inexact += (bits & 0xffffu) != 0;
      EXPECT_TRUE(std::isfinite(value) && std::fabs(value) <= 0.5f) << value;
    }
    EXPECT_GT(inexact, m->output.size / 2) << row.problem.str();
    return;
  }
  FAIL() << "no reorder in the log";
}

// A half-width tensor is filled and read back through its f32 twin (dlcheck converts; oneDNN
// 2.6.3 only moves elements): a reorder of bf16 or f16 between two layouts gives the f32
// reorder's values, rounded to the type's precision, and runs in its own implementation.
TEST(Measure, HalfWidthTensorsHoldTheFloatValuesRounded) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const memory::dims dims = {2, 19, 5, 7};
  const auto reorder_output = [&](memory::data_type type) {
    const memory::desc from(dims, type, memory::format_tag::abcd);
    const memory::desc to(dims, type, memory::format_tag::acdb);
    std::optional<Rebuilt> rebuilt = ReorderBetween(from, to, engine);
    EXPECT_TRUE(rebuilt.has_value());
    StatusOr<Measurement> m =
        Measure(*rebuilt, engine, {.budget_s = 0, .min_runs = 1, .keep_output = true});
    EXPECT_TRUE(m.ok()) << m.status().message();
    return m.ok() ? std::vector<float>(m->output.view().begin(), m->output.view().end())
                  : std::vector<float>();
  };
  const std::vector<float> f32 = reorder_output(memory::data_type::f32);
  ASSERT_EQ(f32.size(), 2u * 19 * 5 * 7);
  // f16 keeps 11 bits of the significand, bf16 8: half an ulp at most, relative to the value.
  for (const auto& [type, precision] : {std::pair{memory::data_type::f16, 1.0 / 2048},
                                        std::pair{memory::data_type::bf16, 1.0 / 256}}) {
    const std::vector<float> half = reorder_output(type);
    ASSERT_EQ(half.size(), f32.size());
    std::size_t rounded = 0;
    for (std::size_t i = 0; i < f32.size(); ++i) {
      EXPECT_LE(std::fabs(half[i] - f32[i]), precision * std::fabs(f32[i])) << i;
      rounded += half[i] != f32[i];
    }
    EXPECT_GT(rounded, 0u);  // the values are not all exact in the narrower type
  }
}

// The relative deviation is against the reference's largest magnitude: an element whose sum
// cancels to 0 does not make a small error look infinite.
TEST(Measure, DeviationIsRelativeToTheLargestReference) {
  const std::vector<float> reference = {2.0f, 0.0f, -1.0f};
  const std::vector<float> got = {2.0f, 0.001f, -1.002f};
  const std::optional<Deviation> d = DeviationOf(got, reference);
  ASSERT_TRUE(d.has_value());
  EXPECT_NEAR(d->max_abs, 0.002, 1e-6);
  EXPECT_NEAR(d->relative_to_largest, 0.001, 1e-6);
  int asked = 0;
  EXPECT_FALSE(DeviationOf(got, reference, [&] { return ++asked > 0; }).has_value());
  EXPECT_EQ(asked, 1);
}

TEST(Whatif, HotRowsCoverTheShareAsked) {
  std::vector<verbose::PrimitiveStats> rows(5);
  const double ms[] = {50, 30, 10, 5, 5};
  for (std::size_t i = 0; i < 5; ++i) rows[i].exec_ms_total = ms[(i + 2) % 5];
  // 50 + 30 = 80 %: two rows.
  const std::vector<std::size_t> hot = HotRows(rows, 100, 80, 10);
  ASSERT_EQ(hot.size(), 2u);
  EXPECT_EQ(rows[hot[0]].exec_ms_total, 50);
  EXPECT_EQ(rows[hot[1]].exec_ms_total, 30);
  EXPECT_EQ(HotRows(rows, 100, 95, 10).size(), 4u);
  EXPECT_EQ(HotRows(rows, 100, 95, 3).size(), 3u);
  EXPECT_TRUE(HotRows(rows, 0, 80, 10).empty());
}

// whatif on benchdnn's rnn lines: every hot rnn row rebuilt (a bf16 one without a kernel on this
// CPU says so), its baseline measured, with a GFLOP/s figure from benchdnn's rnn count and a
// benchdnn --rnn line; its layouts any and impl variants measured or said why not.
TEST(Whatif, RnnRowsGetABaselineAndTheirVariants) {
  const std::vector<verbose::PrimitiveStats> rows = WhatifRowsOf("benchdnn_rnn_2.6.3.log");
  double total_ms = 0;
  for (const verbose::PrimitiveStats& row : rows) total_ms += row.exec_ms_total;
  WhatifPlan plan;
  plan.cover_pct = 100;
  plan.top = rows.size();
  plan.time_s = 0.005;
  plan.threads = 1;
  plan.variants = {"layouts", "impl"};
  const WhatifResult result = RunWhatif(rows, total_ms, verbose::LogHeader(), plan);
  ASSERT_EQ(result.hot.size(), rows.size());
  std::size_t measured = 0;
  for (const HotPrimitive& hot : result.hot) {
    const std::string what = hot.row.prop_kind.str() + " " + hot.row.auxiliary.str();
    if (!hot.not_rebuilt.empty()) {
      EXPECT_NE(hot.row.memory_descriptors.view().find("bf16"), std::string_view::npos) << what;
      EXPECT_NE(hot.not_rebuilt.find("on this CPU"), std::string::npos) << hot.not_rebuilt;
      continue;
    }
    ASSERT_FALSE(hot.variants.empty()) << what;
    const VariantResult& baseline = hot.variants.front();
    EXPECT_EQ(baseline.variant, "as logged") << what;
    ASSERT_TRUE(baseline.min_ms) << what << ": " << baseline.note;
    ASSERT_TRUE(baseline.gflops) << what;
    EXPECT_GT(*baseline.gflops, 0) << what;
    EXPECT_NE(baseline.benchdnn.find("--rnn"), std::string::npos) << baseline.benchdnn;
    for (const VariantResult& variant : hot.variants) {
      EXPECT_TRUE(variant.min_ms || !variant.note.empty()) << what << " " << variant.variant;
    }
    ++measured;
  }
  EXPECT_GE(measured, rows.size() - 1);  // the bf16 row at most without a kernel
}

TEST(Whatif, EmulationIsSaid) {
  EXPECT_EQ(EmulationNote("bf16", {"avx512f", "avx512bw"}),
            "emulated: no avx512_bf16 or amx_bf16 on this CPU");
  EXPECT_EQ(EmulationNote("bf16", {"avx512_bf16"}), "");
  EXPECT_EQ(EmulationNote("bf16", {"amx_bf16"}), "");
}

}  // namespace
}  // namespace dlcheck::whatif

namespace dlcheck::whatif {
namespace {

// Lines no primitive can have (tests/data/whatif/hostile_shapes.log: groups 0, a dimension 0 or
// 2^32, a matmul batch of 2^62, element counts that wrap 64 bits, 40 dimensions, an rnn of 0
// layers, tags whose blocks overflow, a shuffle group of 0): each is refused with its reason,
// before any arithmetic on its dimensions (no SIGFPE, no overflow under UBSan); none has a flops
// figure that is not finite, and none out of range gets a benchdnn line.
TEST(Rebuild, HostileShapesAreRefusedWithTheirReason) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  const std::map<std::string, std::string> reason_of_problem = {
      {"g0mb2_ic16oc16_ih7oh7kh3sh1dh0ph1_iw7ow7kw3sw1dw0pw1", "groups g0: a "},
      {"mb2_ic16oc16_ih0oh7kh3sh1dh0ph1_iw7ow7kw3sw1dw0pw1", "a dimension of 0"},
      {"mb2_ic4294967296oc16_ih7oh7kh3sh1dh0ph1_iw7ow7kw3sw1dw0pw1", "ic 4294967296 is above"},
      {"mb2_ic16oc16_ih7oh7kh4294967296sh1dh0ph1_iw7ow7kw3sw1dw0pw1", "kh 4294967296 is above"},
      {"mb1_ic1oc1_ih2147483647oh2147483647kh2147483647sh2147483647dh2147483647ph0_iw1ow1kw1sw1dw0"
       "pw0",
       // Every number at the bound: the padding's products stay inside 64 bits (checked), and
       // oneDNN refuses the window.
       "cannot be described in oneDNN 2.6.3"},
      {"mb2ic4294967296oc16", "ic 4294967296 is above"},
      {"4611686018427387904x8x16:4611686018427387904x16x32", "dimension 4611686018427387904"},
      {"131072x65536x65536:131072x65536x65536", "more than 2^48 elements"},
      {"0x4:4x8", "a dimension of 0"},
      {"l1t3mb2sic4294967296slc8dhc8dic8", "sic 4294967296 is above"},
      {"l0t3mb2sic8slc8dhc8dic8", "an rnn with l 0 has nothing to run"},
      {"0x4", "a dimension of 0"},
      {"65536x65536x641x6700417", "more than 2^48 elements"},
      {"16", "pads the tensor beyond 2^48 elements"},
      {"16x16", "pads the tensor beyond 2^48 elements"},
      {"2x16x7x7", "does not fit the shape"}};
  const std::vector<verbose::PrimitiveStats> rows = WhatifRowsOf("hostile_shapes.log");
  ASSERT_EQ(rows.size(), 19u);
  int refused = 0;
  for (const verbose::PrimitiveStats& row : rows) {
    const std::string problem = row.problem.str();
    SCOPED_TRACE(row.primitive.str() + " " + problem.substr(0, 80));
    StatusOr<Rebuilt> rebuilt = Rebuild(row, engine);
    ASSERT_FALSE(rebuilt.ok());
    ++refused;
    const std::string why = rebuilt.status().message();
    if (problem.find("x1x1x1x1x1x1x1x1x1x1") != std::string::npos) {
      EXPECT_EQ(why, "a shape of 40 dimensions: oneDNN has at most 12");
    } else {
      ASSERT_TRUE(reason_of_problem.contains(problem));
      EXPECT_NE(why.find(reason_of_problem.at(problem)), std::string::npos) << why;
    }
    const std::optional<double> flops =
        verbose::FlopsOf(row.primitive.view(), problem, row.auxiliary.view(), row.prop_kind.view());
    if (flops) {
      EXPECT_TRUE(std::isfinite(*flops));
    }
    if (!verbose::ProblemOutOfRange(problem).empty()) {
      EXPECT_NE(verbose::BenchdnnMissingReason(row).find("above 2^31 - 1"), std::string::npos);
      EXPECT_FALSE(verbose::MakeBenchdnnReproducer(row, {}));
    }
  }
  EXPECT_EQ(refused, 19);
}

// The layouts a tag describes are built in checked arithmetic: blocks and padded strides that
// leave 2^48 elements are refused, never wrapped.
TEST(Layout, BlocksThatOverflowAreRefused) {
  EXPECT_FALSE(MakeMemoryDesc({16}, Md("A4294967296a4294967296a")).ok());
  EXPECT_FALSE(MakeMemoryDesc({16, 16}, Md("AB65536a65536b65536a65536b")).ok());
  EXPECT_FALSE(MakeMemoryDesc({0, 4}, Md("ab")).ok());
  EXPECT_FALSE(MakeMemoryDesc({std::int64_t{1} << 40, 4}, Md("ab")).ok());
  StatusOr<memory::desc> padded = MakeMemoryDesc({3, 5}, Md("AB16a16b"));
  ASSERT_TRUE(padded.ok()) << padded.status().message();
  EXPECT_EQ(padded->get_size(), 16u * 16u * sizeof(float));
}

}  // namespace
}  // namespace dlcheck::whatif
