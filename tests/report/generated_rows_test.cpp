// SPDX-License-Identifier: Apache-2.0
// Tables whose rows are made when printed (Table::generated): every printer prints exactly what
// the same rows stored print, and the JSON document is what nlohmann would dump of the whole.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "report/printer.h"
#include "report/report.h"

namespace dlcheck::report {
namespace {

using Rows = std::vector<std::vector<Value>>;

// A primitives-like table: a hidden text column (`layout`) that tells the two `conv` rows with
// the same shown text apart, a column with one value in every row (`engine`), text that wraps,
// a null, numbers, text that needs escaping (quotes, a comma, a control character, non-ASCII).
Report Sample() {
  Report r;
  r.command = "parse";
  r.AddSection({"input", "Input"}).Add({"files"}, 1).AddSection({"nested"}).Add({"empty"}, Value());
  r.AddSection({"none"});
  Table& t = r.AddView(
      "primitives",
      {"engine", "primitive", "implementation", "layout", "problem", "execs", "exec_ms", "gflops"},
      "Primitives");
  t.hidden_in_table = {"layout", "gflops"};
  t.leave_out_first = {"execs"};
  t.rows = {
      {"cpu", "conv", "brgemm:avx512_core", "aBcd16b", "mb2_ic16oc32_ih13oh13kh3", 10, Value(1.25),
       Value(2.5, 2)},
      {"cpu", "conv", "brgemm:avx512_core", "abcd", "mb2_ic16oc32_ih13oh13kh3", 4, Value(0.5),
       Value()},
      {"cpu", "matmul", "ref:any", "ab", "4x16x32 \"quoted\", \x1b[2J caf\xc3\xa9", 1, Value(12.0),
       Value(0.1, 2)},
  };
  r.AddView("diagnostics", {"kind", "count"}).rows = {{"skipped", 2}};
  r.AddFinding(Severity::kWarning, "fallback", "matmul ran ref:any, a scalar fallback");
  return r;
}

// `report` with every stored row of `name` moved into a generator that owns them.
Report Generated(Report report, const std::string& name = "primitives") {
  for (Table& t : report.tables) {
    if (t.name != name) continue;
    auto rows = std::make_shared<const Rows>(std::move(t.rows));
    t.rows.clear();
    t.generated = {.count = rows->size(), .make = [rows](std::size_t i) { return (*rows)[i]; }};
  }
  return report;
}

std::string Render(const Report& r, Format f, std::size_t width = 0) {
  std::ostringstream out;
  if (f == Format::kTable) {
    PrintTable(r, out, width);
  } else {
    Print(r, f, out);
  }
  return out.str();
}

Rows Collect(const Table& table) {
  Rows rows;
  ForEachRow(table, [&](const std::vector<Value>& row) { rows.push_back(row); });
  return rows;
}

TEST(GeneratedRowsTest, ReadInOrderAfterStoredOnes) {
  Table t{.name = "t", .columns = {"n"}};
  t.rows = {{1}};
  t.generated = {.count = 2, .make = [](std::size_t i) { return std::vector<Value>{int(i) + 2}; }};
  EXPECT_EQ(RowCount(t), 3u);
  EXPECT_EQ(Collect(t), (Rows{{1}, {2}, {3}}));
  const Table copy = t;  // a copy shares the generator
  EXPECT_EQ(Collect(copy), Collect(t));
}

TEST(GeneratedRowsTest, CsvIsTheSameAsStored) {
  const std::string stored = Render(Sample(), Format::kCsv);
  EXPECT_EQ(Render(Generated(Sample()), Format::kCsv), stored);
  EXPECT_NE(stored.find("ref:any"), std::string::npos);
}

TEST(GeneratedRowsTest, JsonIsTheSameAsStored) {
  EXPECT_EQ(Render(Generated(Sample()), Format::kJson), Render(Sample(), Format::kJson));
  // A keyed table is written whole: a repeated key replaces the earlier row, in its place.
  Report keyed = Sample();
  keyed.tables[0].keyed_by_first_column = true;
  EXPECT_EQ(Render(Generated(keyed), Format::kJson), Render(keyed, Format::kJson));
}

// The document is written piece by piece; it must be byte for byte what nlohmann's dump of the
// whole DOM is (the indentation, key order, escaping of the format's first version).
TEST(GeneratedRowsTest, JsonIsWhatTheWholeDocumentDumps) {
  for (const Report& r : {Sample(), Generated(Sample()), Report{}}) {
    const std::string text = Render(r, Format::kJson);
    const auto doc = nlohmann::ordered_json::parse(text);
    EXPECT_EQ(doc.dump(2, ' ', true) + "\n", text);
  }
  const auto doc = nlohmann::ordered_json::parse(Render(Generated(Sample()), Format::kJson));
  ASSERT_EQ(doc["primitives"].size(), 3u);
  EXPECT_EQ(doc["primitives"][1]["layout"], "abcd");
  EXPECT_TRUE(doc["none"].is_object() && doc["none"].empty());
}

// Width fitting: at no limit, at a terminal's 80 columns, and narrow enough that columns are
// left out (`engine` for holding one value, `execs` first, then the rightmost).
TEST(GeneratedRowsTest, TableIsTheSameAsStoredAtEveryWidth) {
  for (std::size_t width : {0, 120, 80, 60, 40, 20}) {
    const std::string stored = Render(Sample(), Format::kTable, width);
    EXPECT_EQ(Render(Generated(Sample()), Format::kTable, width), stored) << width;
  }
  const std::string narrow = Render(Generated(Sample()), Format::kTable, 60);
  EXPECT_NE(narrow.find("engine (cpu in every row)"), std::string::npos) << narrow;
}

// Two rows alike in every shown text column differ in the hidden `layout`: it is shown; with
// the rows told apart by `problem` it stays hidden.
TEST(GeneratedRowsTest, TableShowsAHiddenColumnThatTellsLookAlikeRowsApart) {
  const std::string text = Render(Generated(Sample()), Format::kTable);
  EXPECT_NE(text.find("aBcd16b"), std::string::npos) << text;
  EXPECT_EQ(text.find("gflops"), std::string::npos) << "a hidden number column stays hidden";
  Report distinct = Sample();
  distinct.tables[0].rows[1][4] = "mb4_ic16oc32_ih13oh13kh3";
  const std::string stored = Render(distinct, Format::kTable);
  EXPECT_EQ(Render(Generated(distinct), Format::kTable), stored);
  EXPECT_EQ(stored.find("aBcd16b"), std::string::npos) << stored;
}

TEST(GeneratedRowsTest, BenchdnnAndTraceReadGeneratedRows) {
  Report r = Sample();
  r.tables[0].columns[4] = "benchdnn";
  EXPECT_EQ(Render(Generated(r), Format::kBenchdnn), Render(r, Format::kBenchdnn));
  EXPECT_EQ(Render(r, Format::kBenchdnn).find("mb2_ic16oc32_ih13oh13kh3\n4x16x32"), 0u);
  Report trace;
  trace.AddView(std::string(kTraceTable), {"name", "ts_us", "dur_us"}).rows = {
      {"conv", Value(1.0), Value(2.0)}, {"matmul", Value(3.0), Value(0.5)}};
  EXPECT_EQ(Render(Generated(trace, std::string(kTraceTable)), Format::kTrace),
            Render(trace, Format::kTrace));
}

// libxlsxwriter stamps the workbook with the time: the stored report is written before and
// after the generated one, and the three are compared when both stored ones agree (the same
// second).
TEST(GeneratedRowsTest, XlsxIsTheSameAsStored) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    const std::string before = Render(Sample(), Format::kXlsx);
    const std::string generated = Render(Generated(Sample()), Format::kXlsx);
    const std::string after = Render(Sample(), Format::kXlsx);
    if (before != after) continue;
    EXPECT_EQ(generated, before);
    EXPECT_EQ(generated.substr(0, 2), "PK") << "a zip archive";
    return;
  }
  FAIL() << "the stored report's workbook differed from itself three times";
}

TEST(GeneratedRowsTest, SelectColumnsProjectsGeneratedRows) {
  const std::vector<std::string> names = {"execs", "primitive"};
  const Table stored = SelectColumns(Sample().tables[0], names);
  const Table generated = SelectColumns(Generated(Sample()).tables[0], names);
  EXPECT_TRUE(generated.rows.empty()) << "the projection is made lazily too";
  EXPECT_EQ(generated.columns, names);
  EXPECT_EQ(Collect(generated), Collect(stored));
  EXPECT_EQ(Collect(generated).front(), (std::vector<Value>{10, "conv"}));
  EXPECT_THROW(SelectColumns(Generated(Sample()).tables[0], {"nope"}), ColumnChoiceError);
  // --columns goes through the same projection in every printer.
  SetPrintSettings({.columns = {{"", names}}});
  const std::string csv = Render(Generated(Sample()), Format::kCsv);
  const std::string json = Render(Generated(Sample()), Format::kJson);
  EXPECT_EQ(csv, Render(Sample(), Format::kCsv));
  EXPECT_EQ(json, Render(Sample(), Format::kJson));
  SetPrintSettings({});
  EXPECT_EQ(csv, "execs,primitive\r\n10,conv\r\n4,conv\r\n1,matmul\r\n");
}

TEST(GeneratedRowsTest, EmptyGeneratedTable) {
  Report stored = Sample();
  stored.tables[0].rows.clear();
  Report generated = Generated(stored);
  generated.tables[0].generated.make = [](std::size_t) -> std::vector<Value> {
    ADD_FAILURE() << "no row to make";
    return {};
  };
  EXPECT_EQ(RowCount(generated.tables[0]), 0u);
  for (Format f : {Format::kCsv, Format::kJson, Format::kBenchdnn}) {
    EXPECT_EQ(Render(generated, f), Render(stored, f)) << FormatName(f);
  }
  for (std::size_t width : {0, 40}) {
    EXPECT_EQ(Render(generated, Format::kTable, width), Render(stored, Format::kTable, width));
  }
  EXPECT_NE(Render(generated, Format::kTable).find("(none)"), std::string::npos);
  EXPECT_NE(Render(generated, Format::kJson).find("\"primitives\": []"), std::string::npos);
}

}  // namespace
}  // namespace dlcheck::report
