#include "report/table_layout.h"

#include <gtest/gtest.h>

#include <sstream>

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
  r.AddSection("header", "Log header")
      .Add("cpu_runtime",
           "OpenMP (threads 16, affinity granularity=fine,compact,1,0 verbose from the runtime)");
  Table& t = r.AddTable("primitives",
                        {"engine", "primitive", "implementation", "layouts", "problem", "execs",
                         "exec_ms_total", "exec_ms_mean", "time_pct", "gflops"},
                        "Primitives");
  t.hidden_in_table = {"layouts"};
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
  EXPECT_NE(Joined(text).find("; choose with --columns)"), std::string::npos) << text;
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
  Table& t = r.AddTable("primitives", {"primitive", "layouts", "execs"}, "Primitives");
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

TEST(TableWidthTest, ChosenColumnsInTheirOrderInEveryFormat) {
  Report r = WideReport();
  SetPrintSettings({.columns = {"execs", "primitive", "layouts"}});
  std::ostringstream csv;
  Print(r, Format::kCsv, csv);
  EXPECT_EQ(Lines(csv.str()).front(), "execs,primitive,layouts\r");
  std::ostringstream table;
  Print(r, Format::kTable, table);
  EXPECT_NE(table.str().find("src_f32::blocked:acdb::f0"), std::string::npos);
  SetPrintSettings({.columns = {"execs", "nope"}});
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

}  // namespace
}  // namespace dlcheck::report
