// The rebuild of log rows with the linked oneDNN 2.6.3, from real lines of several eras
// (tests/data/verbose: Debian's 2.6.3 on a Zen 4, PyTorch 1.13 logs, lines pasted in public
// issues, 3.13.1's own format). Invariants that hold on any x86-64 host, at any ISA cap.
#include "whatif/rebuild.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "verbose/fixture_lines.h"
#include "verbose/line_parser.h"
#include "verbose/log_session.h"
#include "whatif/layout.h"
#include "whatif/measure.h"
#include "whatif/whatif.h"

namespace dlcheck::whatif {
namespace {

using dnnl::memory;
using verbose::testing::FixtureLines;

std::vector<verbose::PrimitiveStats> RowsOf(const std::string& file) {
  verbose::LogSession session;
  std::uint64_t n = 0;
  for (const std::string& line : FixtureLines(file)) session.Feed(line, ++n);
  session.Finish();
  return session.TakeRows();
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

// The kinds the rebuild covers, forward and (for the compute kinds) backward.
bool Covered(const verbose::PrimitiveStats& row) {
  const std::string kind = row.primitive.str();
  const std::string prop = row.prop_kind.str();
  if (kind == "convolution" || kind == "inner_product" || kind == "matmul" || kind == "reorder" ||
      kind == "binary") {
    return true;
  }
  if (kind == "deconvolution" || kind == "eltwise" || kind == "pooling_v2" ||
      kind == "softmax_v2" || kind == "batch_normalization" || kind == "layer_normalization") {
    return prop.starts_with("forward");
  }
  return false;
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

TEST(Rebuild, SaysWhyForAGpuRowAndBackwardPooling) {
  const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  bool saw_backward_pooling = false;
  for (const verbose::PrimitiveStats& row : RowsOf("generated_2.6.3.txt")) {
    if (row.primitive.str() == "pooling_v2" && row.prop_kind.str() == "backward_data") {
      EXPECT_EQ(Rebuild(row, engine).status().message(),
                "backward pooling_v2 is not rebuilt (it needs the forward pass's workspace)");
      saw_backward_pooling = true;
    }
  }
  EXPECT_TRUE(saw_backward_pooling);
  verbose::PrimitiveStats gpu = RowsOf("generated_2.6.3.txt").front();
  gpu.engine = verbose::InternedText("gpu");
  EXPECT_EQ(Rebuild(gpu, engine).status().message(),
            "a gpu primitive: dlcheck rebuilds CPU primitives only");
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
    EXPECT_GE(m->runs, 5u);
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
    ASSERT_EQ(a->output.size(), b->output.size());
    const Deviation d = DeviationOf(b->output, a->output);
    EXPECT_LT(d.max_rel, 0.1);  // bf16 keeps 8 bits: far below 10 %
    return;
  }
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

TEST(Whatif, EmulationIsSaid) {
  EXPECT_EQ(EmulationNote("bf16", {"avx512f", "avx512bw"}),
            "emulated: no avx512_bf16 or amx_bf16 on this CPU");
  EXPECT_EQ(EmulationNote("bf16", {"avx512_bf16"}), "");
  EXPECT_EQ(EmulationNote("bf16", {"amx_bf16"}), "");
}

}  // namespace
}  // namespace dlcheck::whatif
