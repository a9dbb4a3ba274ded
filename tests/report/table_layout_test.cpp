// SPDX-License-Identifier: Apache-2.0
#include "report/table_layout.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <sstream>

#include "common/propagation.h"
#include "report/printer.h"
#include "support/lines.h"

namespace dlcheck::report {
namespace {

using testing::Lines;

// The text with each run of spaces and line breaks as one space: wrapped prose, unwrapped.
std::string Joined(const std::string& text) {
  std::string out;
  for (const char c : text) {
    const bool space = c == ' ' || c == '\n';
    if (!(space && !out.empty() && out.back() == ' ')) out += space ? ' ' : c;
  }
  return out;
}

std::string RenderTable(const Report& r, std::size_t width) {
  std::ostringstream out;
  PrintTable(r, out, width);
  return out.str();
}

// A primitives-like table with long text cells, many numeric columns and a long finding.
Report WideReport() {
  Report r;
  r.command = "parse";
  r.AddSection({"header", "Log header"})
      .Add({"cpu_runtime"},
           "OpenMP (threads 16, affinity granularity=fine,compact,1,0 verbose from the runtime)");
  Table& t = r.AddView("primitives",
                       {"engine", "primitive", "implementation", "layouts", "problem", "execs",
                        "exec_ms_total", "exec_ms_mean", "time_pct", "gflops"},
                       "Primitives");
  t.hidden_in_table = {"layouts"};
  t.answer_columns = {"exec_ms_total", "time_pct"};
  t.leave_out_first = {"gflops", "exec_ms_mean"};
  t.rows.push_back({"cpu", "convolution", "brgemm:avx512_core_amx", "src_f32::blocked:acdb::f0",
                    "mb64_ic3oc64_ih224oh112kh7sh2dh0ph3_iw224ow112kw7sw2dw0pw3", 120,
                    Value(12345.678), Value(102.881), Value(55.5, 1), Value(1234.5, 1)});
  t.rows.push_back({"cpu", "inner_product", "gemm:jit", "src_f32::blocked:ab::f0",
                    "mb64ic2048oc1000", 120, Value(1.5), Value(0.0125), Value(0.1, 1), Value()});
  r.AddFinding(Severity::kWarning, "long",
               "these primitives ran scalar reference code, which is often ten to a hundred times "
               "slower than the JIT kernels: convolution, pooling, inner_product");
  return r;
}

TEST(WrapTextTest, BreaksAtSpacesAndPunctuationNotInsideWords) {
  EXPECT_EQ(WrapText("avx512 core brgemm", 10),
            (std::vector<std::string>{"avx512", "core", "brgemm"}));
  EXPECT_EQ(WrapText("brgemm:avx512_core", 10),
            (std::vector<std::string>{"brgemm:", "avx512_", "core"}));
  EXPECT_EQ(WrapText("one two three", 0), (std::vector<std::string>{"one two three"}));
  EXPECT_EQ(WrapText("", 5), (std::vector<std::string>{""}));
}

TEST(WrapTextTest, BreaksAWordWiderThanTheColumn) {
  EXPECT_EQ(WrapText("mb64ic3oc64", 4), (std::vector<std::string>{"mb64", "ic3o", "c64"}));
}

TEST(WrapTextTest, CountsCodePointsNotBytes) {
  // "é" is two bytes, one column: the five letters fit in 5.
  EXPECT_EQ(WrapText("caf\xc3\xa9s x", 5), (std::vector<std::string>{"caf\xc3\xa9s", "x"}));
  EXPECT_EQ(DisplayWidth("caf\xc3\xa9"), 4u);
}

TEST(FitColumnsTest, ShrinksTheWidestFirstAndKeepsMinimums) {
  EXPECT_EQ(FitColumns({24, 40, 8}, {8, 8, 8}, 2, 60), (std::vector<std::size_t>{24, 24, 8}));
  EXPECT_EQ(FitColumns({24, 40, 8}, {8, 8, 8}, 2, 44), (std::vector<std::size_t>{16, 16, 8}));
  // Minimums that do not fit are kept: the caller leaves columns out.
  EXPECT_EQ(FitColumns({10, 10}, {10, 10}, 2, 5), (std::vector<std::size_t>{10, 10}));
}

TEST(TableWidthTest, NoLineExceedsTheWidthAtAnyWidth) {
  for (std::size_t width : {40u, 60u, 80u, 100u, 132u}) {
    const std::string text = RenderTable(WideReport(), width);
    for (const std::string& line : Lines(text)) {
      EXPECT_LE(DisplayWidth(line), width) << "at width " << width << ": '" << line << "'";
    }
  }
}

TEST(TableWidthTest, UnlimitedWidthKeepsEveryRowOnOneLine) {
  const std::vector<std::string> lines = Lines(RenderTable(WideReport(), 0));
  const std::string problem = "mb64_ic3oc64_ih224oh112kh7sh2dh0ph3_iw224ow112kw7sw2dw0pw3";
  bool found = false;
  for (const std::string& line : lines) {
    if (line.find(problem) != std::string::npos) {
      found = true;
      EXPECT_NE(line.find("brgemm:avx512_core_amx"), std::string::npos);
      EXPECT_NE(line.find("12345.678"), std::string::npos);
    }
  }
  EXPECT_TRUE(found);
}

TEST(TableWidthTest, NumbersAreNeverSplitAndLeftOutColumnsAreNamed) {
  const std::string text = RenderTable(WideReport(), 60);
  // engine holds cpu in every row: it goes first, and the note says so.
  EXPECT_NE(Joined(text).find("engine (cpu in every row)"), std::string::npos) << text;
  EXPECT_NE(Joined(text).find("(not shown at 60 columns: "), std::string::npos) << text;
  EXPECT_NE(Joined(text).find("; choose with --columns NAME,...)"), std::string::npos) << text;
  for (const std::string& line : Lines(text)) {
    if (line.find("12345") != std::string::npos) {
      EXPECT_NE(line.find("12345.678"), std::string::npos) << line;
    }
  }
}

TEST(TableWidthTest, FindingsWrapAtWordBoundaries) {
  const std::vector<std::string> lines = Lines(RenderTable(WideReport(), 60));
  const auto at = std::find(lines.begin(), lines.end(), "Findings");
  ASSERT_NE(at, lines.end());
  EXPECT_EQ(*(at + 1), "  warning: these primitives ran scalar reference code, which");
  EXPECT_EQ(*(at + 2), "           is often ten to a hundred times slower than the");
  EXPECT_EQ(*(at + 3), "           JIT kernels: convolution, pooling, inner_product");
}

TEST(TableWidthTest, AHiddenColumnThatTellsRowsApartIsShown) {
  Report r;
  Table& t = r.AddView("primitives", {"primitive", "layouts", "execs"}, "Primitives");
  t.hidden_in_table = {"layouts"};
  t.rows.push_back({"reorder", "src:abcd dst:aBcd16b", 3});
  t.rows.push_back({"reorder", "src:aBcd16b dst:abcd", 3});
  EXPECT_NE(RenderTable(r, 0).find("src:abcd dst:aBcd16b"), std::string::npos);
  // Rows that differ in a shown text column keep the hidden one hidden; numbers measure rows,
  // they do not tell what they are.
  t.rows[1][2] = 4;
  EXPECT_NE(RenderTable(r, 0).find("src:abcd dst:aBcd16b"), std::string::npos);
  t.rows[1][0] = "sum";
  EXPECT_EQ(RenderTable(r, 0).find("src:abcd"), std::string::npos);
}

// A number declared to make a row unique (a rank: whatif's `hot`) names the row as text does: a
// hidden column is not brought back to tell apart rows that it already tells apart.
TEST(TableWidthTest, ANumberThatNamesRowsKeepsTheHiddenColumnsHidden) {
  Report r;
  Table& t = r.AddView("changes", {"hot", "primitive", "variant", "change"}, "Changes");
  t.hidden_in_table = {"change"};
  t.rows.push_back({1, "convolution", "layouts any", "conv #1 runs faster"});
  t.rows.push_back({2, "convolution", "layouts any", "conv #2 runs faster"});
  // A plain number measures rows: the hidden text tells them apart.
  EXPECT_NE(RenderTable(r, 0).find("conv #1 runs faster"), std::string::npos);
  EXPECT_NE(RenderTable(r, 80).find("conv #1 runs faster"), std::string::npos);
  t.identity_columns = {"hot"};
  for (const std::size_t width : {std::size_t{0}, std::size_t{80}, std::size_t{30}}) {
    const std::string text = RenderTable(r, width);
    EXPECT_EQ(text.find("runs faster"), std::string::npos) << text;
    EXPECT_NE(text.find("2 "), std::string::npos) << "the rank is shown: " << text;
  }
  // Rows the rank does not tell apart still show what does.
  t.rows[1][0] = 1;
  EXPECT_NE(RenderTable(r, 0).find("conv #2 runs faster"), std::string::npos);
}

// A section's field hidden in the table (what the headline already says) is still in JSON.
TEST(TableWidthTest, ASectionFieldHiddenInTheTableStaysInJson) {
  Report r;
  r.headline = "the verdict";
  Section& s = r.AddSection({"measurement", "Measurement"});
  s.Add({"verdict"}, "the verdict").Add({"threads"}, 2);
  s.hidden_in_table = {"verdict"};
  const std::string text = RenderTable(r, 0);
  EXPECT_EQ(text.find("the verdict"), text.rfind("the verdict")) << "said once: " << text;
  EXPECT_NE(text.find("threads"), std::string::npos);
  std::ostringstream json;
  Print(r, Format::kJson, json);
  EXPECT_NE(json.str().find("\"verdict\": \"the verdict\""), std::string::npos) << json.str();
}

TEST(TableWidthTest, ChosenColumnsInTheirOrderInEveryFormat) {
  Report r = WideReport();
  SetPrintSettings({.columns = {{"", {"execs", "primitive", "layouts"}}}});
  std::ostringstream csv;
  Print(r, Format::kCsv, csv);
  EXPECT_EQ(Lines(csv.str()).front(), "execs,primitive,layouts\r");
  std::ostringstream table;
  Print(r, Format::kTable, table);
  EXPECT_NE(table.str().find("src_f32::blocked:acdb::f0"), std::string::npos);
  SetPrintSettings({.columns = {{"", {"execs", "nope"}}}});
  std::ostringstream none;
  try {
    Print(r, Format::kJson, none);
    ADD_FAILURE() << "an unknown column was accepted";
  } catch (const ColumnChoiceError& e) {
    EXPECT_STREQ(e.what(),
                 "--columns: unknown column 'nope'; the primitives table has: engine,primitive,"
                 "implementation,layouts,problem,execs,exec_ms_total,exec_ms_mean,time_pct,"
                 "gflops");
  }
  EXPECT_EQ(none.str(), "");
  SetPrintSettings({.columns = {{"", {"exec_ms_totl"}}}});
  try {
    Print(r, Format::kJson, none);
    ADD_FAILURE() << "an unknown column was accepted";
  } catch (const ColumnChoiceError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("--columns: unknown column 'exec_ms_totl'; did you mean "
                                          "'exec_ms_total'?; the primitives table has: ",
                                          0),
              0u)
        << e.what();
  }
  SetPrintSettings({});
}

TEST(TableWidthTest, StreamedTableFitsTheWidth) {
  Report head;
  Table events{.name = "events", .columns = {"line", "primitive", "implementation", "problem"}};
  std::ostringstream out;
  auto stream = StartTableStream(out, head, events, 40);
  stream->Row({1, "convolution", "brgemm:avx512_core_amx",
               "mb64_ic3oc64_ih224oh112kh7sh2dh0ph3_iw224ow112kw7sw2dw0pw3"});
  stream->Finish(Report{});
  for (const std::string& line : Lines(out.str())) EXPECT_LE(DisplayWidth(line), 40u) << line;
  EXPECT_NE(out.str().find("brgemm:"), std::string::npos);
}

// The streamed table is fitted from its first rows as a whole table is: at 80 columns the
// kernel and its ISA (answers) are whole, a column of one value goes first, and the rows that
// differ print differently; a later row past the held ones keeps the layout.
TEST(TableWidthTest, StreamedTableKeepsTheAnswersWholeAndRowsApart) {
  Table events{
      .name = "events",
      .columns = {"line", "primitive", "implementation", "isa", "memory", "time_ms", "era"}};
  events.answer_columns = {"implementation", "isa", "time_ms"};
  events.identity_columns = {"line"};
  events.leave_out_first = {"memory"};
  std::ostringstream out;
  auto stream = StartTableStream(out, Report{}, events, 80);
  const std::vector<std::pair<std::string, std::string>> kernels = {
      {"brgemm_bwd_w:avx512_core", "avx512_core"},
      {"brgemm_bwd_d:avx512_core", "avx512_core"},
      {"jit:uni", "avx512_core_bf16"}};
  for (int line = 1; line <= 600; ++line) {
    const auto& [implementation, isa] = kernels[static_cast<std::size_t>(line) % kernels.size()];
    stream->Row({line, "convolution", implementation, isa,
                 "src_f32::blocked:aBcd16b:f0 wei_f32::blocked:ABcd16b16a:f0 dst_f32::blocked:"
                 "aBcd16b:f0",
                 line == 599 ? 123456.789 : 0.25, "onednn"});
  }
  stream->Row({601, "convolution", "ref:any", "-", "src_f32", 1.0, "ref"});
  stream->Finish(Report{});
  const std::vector<std::string> lines = Lines(out.str());
  std::set<std::string> rows;
  std::size_t rows_printed = 0;
  for (const std::string& line : lines) {
    EXPECT_LE(DisplayWidth(line), 80u) << line;
    const std::size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || !std::isdigit(static_cast<unsigned char>(line[start])))
      continue;
    ++rows_printed;
    EXPECT_TRUE(rows.insert(line).second) << "printed twice: " << line;
  }
  EXPECT_EQ(rows_printed, 601u) << out.str();
  const std::string text = out.str();
  for (const auto& [implementation, isa] : kernels) {
    EXPECT_NE(text.find(implementation), std::string::npos) << implementation;
    EXPECT_NE(text.find(isa), std::string::npos) << isa;
  }
  EXPECT_NE(text.find("123456.789"), std::string::npos) << "a later number is never cut";
  // era held `onednn` in the held rows, not in the last: the note does not say it was in every
  // row.
  EXPECT_EQ(text.find("onednn in every row"), std::string::npos) << text;
  const std::size_t note = text.find("(not shown at 80 columns");
  ASSERT_NE(note, std::string::npos) << text;
  EXPECT_TRUE(text.find(": era", note) != std::string::npos ||
              text.find(", era", note) != std::string::npos)
      << text;
}

// Without a width (a pipe) no cell is cut: a later cell wider than the held rows' widens its line.
TEST(TableWidthTest, StreamedTableWithoutAWidthCutsNothing) {
  Table events{.name = "events", .columns = {"line", "implementation"}};
  std::ostringstream out;
  auto stream = StartTableStream(out, Report{}, events, 0);
  for (int line = 1; line <= 300; ++line) stream->Row({line, "jit:avx2"});
  stream->Row({301, "brgemm_convolution_bwd_weights:avx512_core_amx_fp16"});
  stream->Finish(Report{});
  EXPECT_NE(out.str().find("brgemm_convolution_bwd_weights:avx512_core_amx_fp16"),
            std::string::npos);
  EXPECT_EQ(out.str().find("\u2026"), std::string::npos) << out.str();
}

TEST(TruncateTest, CutsAtATokenBoundaryWithOneEllipsis) {
  EXPECT_EQ(Truncate("avx512_core avx512_vnni", 40), "avx512_core avx512_vnni");
  EXPECT_EQ(Truncate("avx512_core avx512_vnni", 16), "avx512_core\u2026");
  EXPECT_EQ(Truncate("brgemm:avx512_core_amx", 12), "brgemm:\u2026");
  // A problem's `_` is a token boundary; an ISA name's is not.
  EXPECT_EQ(Truncate("mb64_ic3oc64_ih224oh112", 8), "mb64_\u2026");
  EXPECT_EQ(Truncate("jit:avx512_core_bf16", 15), "jit:\u2026");
  EXPECT_EQ(Truncate("jit:avx512_core_bf16 x", 21), "jit:avx512_core_bf16\u2026");
  // A word alone wider than the column is cut inside, the ellipsis saying so.
  EXPECT_EQ(Truncate("ic3oc64ih224oh112", 8), "ic3oc64\u2026");
  EXPECT_EQ(DisplayWidth(Truncate("ic3oc64ih224oh112", 8)), 8u);
  EXPECT_EQ(Truncate("abc", 0), "");
}

TEST(TruncateTest, KeepsTheEndOrBothEndsAtTokenBoundaries) {
  EXPECT_EQ(Truncate("mb16_ic32oc64_ih16", 15, Keep::kEnd), "\u2026ic32oc64_ih16");
  EXPECT_EQ(Truncate("mb16_ic32oc64_ih16", 12, Keep::kBothEnds), "mb16_\u2026ih16");
  EXPECT_EQ(Truncate("src:aBcd16b:f0 dst:acdb:f0", 12, Keep::kEnd), "\u2026dst:acdb:f0");
  // No token of the end fits: the start is kept.
  EXPECT_EQ(Truncate("brgemm:avx512_core_amx", 12, Keep::kEnd), "brgemm:\u2026");
  for (const Keep keep : {Keep::kStart, Keep::kEnd, Keep::kBothEnds}) {
    EXPECT_LE(DisplayWidth(Truncate("mb16_ic32oc64_ih16oh16kh3sh1dh0ph1", 11, keep)), 11u);
  }
}

TEST(TruncateTest, CountsWideCharactersAsTwoColumns) {
  EXPECT_EQ(DisplayWidth("\u6df1\u5ea6"), 4u);  // two CJK ideographs
  EXPECT_EQ(DisplayWidth("e\u0301"), 1u);       // e and a combining acute accent
  const std::string cut = Truncate("\u6df1\u5ea6\u5b66\u4e60", 5);
  EXPECT_LE(DisplayWidth(cut), 5u);
  EXPECT_EQ(cut, "\u6df1\u5ea6\u2026");
}

// Each data row of the primitives table is one line at every width: its rows are the lines
// after the header that start with a primitive's name.
TEST(TableWidthTest, EveryRowIsOneLineAndTheAnswerColumnsStay) {
  for (std::size_t width : {40u, 60u, 80u, 100u, 132u, 200u}) {
    SCOPED_TRACE(width);
    const std::vector<std::string> lines = Lines(RenderTable(WideReport(), width));
    const auto title = std::find(lines.begin(), lines.end(), "Primitives");
    ASSERT_NE(title, lines.end());
    std::vector<std::string> block;
    for (auto it = title + 1; it != lines.end() && !it->empty(); ++it) block.push_back(*it);
    std::size_t first = 0;
    while (first < block.size() && block[first].find("convolution") == std::string::npos) {
      ++first;
    }
    ASSERT_LT(first + 1, block.size());
    EXPECT_NE(block[first + 1].find("inner_product"), std::string::npos) << block[first + 1];
    // The answer columns' values are on the rows, whole.
    EXPECT_NE(block[first].find("12345.678"), std::string::npos) << block[first];
    EXPECT_NE(block[first].find("55.5"), std::string::npos) << block[first];
    // time_pct's header, whole or wrapped after its `_`.
    std::string header;
    for (std::size_t i = 0; i < first; ++i) header += block[i] + "\n";
    EXPECT_TRUE(
        header.find("time_pct") != std::string::npos ||
        (header.find("time_") != std::string::npos && header.find(" pct\n") != std::string::npos))
        << header;
    // No identifier is broken: a cut cell ends in the ellipsis.
    EXPECT_EQ(block[first].find("avx512_ "), std::string::npos) << block[first];
  }
}

TEST(TableWidthTest, AWideTerminalShowsEverythingWhole) {
  const std::string text = RenderTable(WideReport(), 200);
  EXPECT_EQ(text.find("\u2026"), std::string::npos) << text;
  EXPECT_EQ(text.find("not shown"), std::string::npos) << text;
}

TEST(TableWidthTest, ConstantColumnsGoBeforeTheLowestRankedOnes) {
  const std::string text = Joined(RenderTable(WideReport(), 100));
  const auto note = text.find("(not shown at 100 columns: ");
  ASSERT_NE(note, std::string::npos) << text;
  EXPECT_NE(text.find("engine (cpu in every row)", note), std::string::npos) << text;
  EXPECT_EQ(text.find("exec_ms_total", note), std::string::npos) << text;
}

TEST(TableWidthTest, ColumnsOfANamedTable) {
  Report r = WideReport();
  Table& sweep = r.AddView("sweep", {"layer", "avx2", "fastest"}, "Sweep");
  sweep.rows.push_back({"fc1", "gemm:jit 0.1234", "avx2"});
  SetPrintSettings({.width = 30, .columns = {ParseColumnChoice("sweep:fastest,layer")}});
  std::ostringstream table;
  Print(r, Format::kTable, table);
  const std::string text = table.str();
  const auto at = text.find("Sweep\n");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_EQ(text.substr(at, 40).find("  fastest  layer\n  avx2     fc1\n"), 6u) << text;
  SetPrintSettings({.columns = {ParseColumnChoice("swep:layer")}});
  try {
    std::ostringstream none;
    Print(r, Format::kTable, none);
    ADD_FAILURE() << "an unknown table was accepted";
  } catch (const ColumnChoiceError& e) {
    EXPECT_STREQ(e.what(),
                 "--columns: no table 'swep' in this report; did you mean 'sweep'?; its tables: "
                 "primitives,sweep");
  }
  SetPrintSettings({});
}

TEST(TableWidthTest, ANoteNamesTheTableToChooseFrom) {
  Report r = WideReport();
  Table& sweep = r.AddView("sweep", {"layer", "avx2", "avx512_core", "fastest"}, "Sweep");
  sweep.answer_columns = {"fastest"};
  sweep.rows.push_back({"fc1", "gemm:jit 0.1234", "brgemm:avx512_core 0.0456", "avx512_core"});
  sweep.rows.push_back({"fc2", "gemm:jit 0.2234", "brgemm:avx512_core 0.0556", "avx512_core"});
  const std::string text = Joined(RenderTable(r, 40));
  EXPECT_NE(text.find("choose with --columns sweep:NAME,...)"), std::string::npos) << text;
}

TEST(ParseColumnChoiceTest, ATableNameBeforeAColon) {
  const ColumnChoice named = ParseColumnChoice("sweep:layer,fastest");
  EXPECT_EQ(named.table, "sweep");
  EXPECT_EQ(named.names, (std::vector<std::string>{"layer", "fastest"}));
  const ColumnChoice main = ParseColumnChoice("primitive,exec_ms_total");
  EXPECT_EQ(main.table, "");
  EXPECT_EQ(main.names, (std::vector<std::string>{"primitive", "exec_ms_total"}));
}

}  // namespace
}  // namespace dlcheck::report

namespace dlcheck::report {
namespace {

// Issue 47: a narrow table shows propagation kinds in benchdnn's short directions where their
// whole names would be cut to `backward_…` (both backward passes alike) or left out; every
// cell of the column then reads short, and a wide table keeps the whole names.
TEST(TableWidthTest, PropagationKindsReadShortWhereTheirWholeNamesWouldBeCut) {
  static constexpr std::array kColumns = {IdentityColumn("primitive"), PropagationColumn(),
                                          IdentityColumn("problem"),
                                          Field{"exec_ms_total", Type::kNumber}};
  Report r;
  Table& t = r.AddTable({"primitives", "Primitives"}, kColumns);
  t.answer_columns = {"exec_ms_total"};
  for (const char* prop : {"backward_data", "backward_weights", "forward_training"}) {
    for (const char* problem : {"mb64_ic20oc50_ih12oh8kh5sh1dh0ph0_iw12ow8kw5sw1dw0pw0",
                                "mb64_ic1oc20_ih28oh24kh5sh1dh0ph0_iw28ow24kw5sw1dw0pw0"}) {
      t.AddRow()
          .Set(kColumns[0], "convolution")
          .Set(kColumns[1], prop)
          .Set(kColumns[2], problem)
          .Set(kColumns[3], 31.4);
    }
  }
  const std::string wide = RenderTable(r, 0);
  EXPECT_NE(wide.find("backward_weights"), std::string::npos) << wide;
  EXPECT_EQ(wide.find("bwd_w"), std::string::npos) << wide;
  const std::string narrow = RenderTable(r, 80);
  for (const char* short_name : {"bwd_d ", "bwd_w ", "fwd_d "}) {
    EXPECT_NE(narrow.find(short_name), std::string::npos) << short_name << "\n" << narrow;
  }
  EXPECT_EQ(narrow.find("backward"), std::string::npos) << narrow;
  // Two rows each: whole words, never `bwd_…`.
  for (const char* short_name : {"  bwd_d  ", "  bwd_w  ", "  fwd_d  "}) {
    std::size_t rows = 0;
    for (const std::string& line : Lines(narrow))
      rows += line.find(short_name) != std::string::npos;
    EXPECT_EQ(rows, 2u) << short_name << "\n" << narrow;
  }
}

// Rows that differ only far from both ends of a long cell (deep stacks that share their root
// and their scheduler end) cannot be told apart at a narrow width: a note under the table says
// so and where they are whole, instead of rows that silently look the same.
TEST(TableWidthTest, RowsThatStillPrintAlikeAreSaidToDoSo) {
  Report r;
  Table& t = r.AddView("off_cpu", {"state", "seconds", "stack"}, "Off-CPU time by stack");
  const std::string root = "python3;_start;__libc_start_main;Py_RunMain;PyEval_EvalCode;";
  const std::string tail = ";do_syscall_64_[k];__x64_sys_futex_[k];futex_wait_[k];schedule_[k]";
  t.rows.push_back({"S", 0.5, root + "thread_one_waits_here" + tail});
  t.rows.push_back({"S", 0.25, root + "thread_two_waits_there" + tail});
  const std::string narrow = RenderTable(r, 60);
  std::string words;  // the note's lines joined, as one reads them
  for (const std::string& line : Lines(narrow)) {
    words += " " + line.substr(std::min(line.find_first_not_of(' '), line.size()));
  }
  EXPECT_NE(words.find("(some rows that differ print alike at 60 columns: they differ in stack "
                       "where it is cut; fewer columns (--columns NAME,...)"),
            std::string::npos)
      << narrow;
  const std::string wide = RenderTable(r, 0);
  EXPECT_EQ(wide.find("print alike"), std::string::npos) << wide;
  EXPECT_NE(wide.find("thread_two_waits_there"), std::string::npos) << wide;
}

// The short directions are benchdnn's, one to one with the names verbose prints.
TEST(PropagationTest, ShortNamesAreBenchdnnsDirectionsAndOneToOne) {
  EXPECT_EQ(onednn::BenchdnnDirection("backward_weights"), "BWD_W");
  EXPECT_EQ(onednn::BenchdnnDirection("forward_scoring"), "FWD_I");
  EXPECT_EQ(onednn::BenchdnnDirection("backward_bias"), "");
  EXPECT_EQ(onednn::ShortPropagation("undef"), "undef");
  std::set<std::pair<std::string_view, std::string_view>> pairs;
  std::set<std::string_view> shorts;
  for (const onednn::Propagation& p : onednn::kPropagations) {
    pairs.emplace(p.short_name, p.direction);
    shorts.insert(p.short_name);
    // Aliases (forward, forward_scoring) share their kind's short name and direction alone.
    if (!p.direction.empty()) {
      std::string lower(p.direction);
      std::transform(lower.begin(), lower.end(), lower.begin(), ::tolower);
      EXPECT_EQ(lower, p.short_name) << p.name;
    }
  }
  EXPECT_EQ(pairs.size(), shorts.size());
}

}  // namespace
}  // namespace dlcheck::report
