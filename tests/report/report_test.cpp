// SPDX-License-Identifier: Apache-2.0
#include "report/report.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "report/printer.h"
#include "support/trace_rules.h"

namespace dlcheck::report {
namespace {

Report Sample() {
  Report r;
  r.command = "sample";
  Section& cpu = r.AddSection({"cpu", "CPU"});
  cpu.Add({"vendor"}, "AuthenticAMD").Add({"family"}, 26).Add({"hypervisor"}, Value());
  cpu.AddSection({"cache", "Cache"}).Add({"l2_kib"}, 1024);
  Table& t = r.AddView("features", {"feature", "cpuid", "note", "ratio"}, "Features");
  t.keyed_by_first_column = true;
  t.rows.push_back({"avx512f", true, "plain", Value(0.123456, 2)});
  t.rows.push_back({"avx_vnni", Value(), "has, a comma and \"quotes\"", Value(NAN)});
  t.rows.push_back({"amx_tile", false, "line\nbreak", Value(2.0, 1)});
  r.AddFinding(Severity::kWarning, "w1", "something to look at");
  return r;
}

// Rows by field: the order is the column list's, a column not set is null, and a column the
// table lacks is refused (a misspelled field fails its command's every test, never prints).
TEST(RowSetterTest, FillsByFieldInColumnOrder) {
  Report r;
  Table& t = r.AddView("t", {"a", "b", "c"});
  t.AddRow().Set(Field{"c"}, 3).Set(Field{"a"}, "x");
  t.AddRow().Set("b", 2.5);
  ASSERT_EQ(t.rows.size(), 2u);
  EXPECT_EQ(t.rows[0], (std::vector<Value>{"x", Value(), 3}));
  EXPECT_EQ(t.rows[1], (std::vector<Value>{Value(), 2.5, Value()}));
  EXPECT_THROW(t.AddRow().Set(Field{"d"}, 1), std::logic_error);
}

// A view whose columns repeat a name (a cap called like a fixed column) fills them in order.
TEST(RowSetterTest, RepeatedNamesFillInOrder) {
  Report r;
  Table& t = r.AddView("t", {"scalar", "avx2", "scalar"});
  t.AddRow().Set("scalar", 1).Set("avx2", 2).Set("scalar", 3);
  EXPECT_EQ(t.rows[0], (std::vector<Value>{1, 2, 3}));
}

std::string Render(const Report& r, Format f) {
  std::ostringstream out;
  Print(r, f, out);
  return out.str();
}

TEST(CsvTest, QuotesFieldsAsRfc4180Says) {
  const std::string csv = Render(Sample(), Format::kCsv);
  EXPECT_EQ(csv,
            "feature,cpuid,note,ratio\r\n"
            "avx512f,true,plain,0.12\r\n"
            "avx_vnni,,\"has, a comma and \"\"quotes\"\"\",\r\n"
            "amx_tile,false,\"line\nbreak\",2.0\r\n");
}

TEST(CsvTest, WithoutADocumentPrintsTheFirstTable) {
  Report r = Sample();
  r.AddView("other", {"x"}).rows.push_back({1});
  EXPECT_EQ(r.Primary(), &r.tables.front());
}

TEST(CsvTest, PrintsTheMainTableItsDocumentDeclares) {
  // The declared main table wins over the first table: a command states its main table once,
  // in its document.
  static const contract::Document kDocument{"sample", "a sample", {}, "other"};
  Report r = Sample();
  r.document = &kDocument;
  r.AddView("other", {"x"}).rows.push_back({1});
  EXPECT_EQ(Render(r, Format::kCsv), "x\r\n1\r\n");
  EXPECT_EQ(r.Primary(), r.FindTable("other"));
}

TEST(JsonTest, KeyedTableSectionsAndRounding) {
  const auto doc = nlohmann::json::parse(Render(Sample(), Format::kJson));
  EXPECT_EQ(doc["schema_version"], Report::kSchemaVersion);
  EXPECT_EQ(doc["command"], "sample");
  EXPECT_TRUE(doc.contains("dlcheck_version"));
  EXPECT_EQ(doc["cpu"]["vendor"], "AuthenticAMD");
  EXPECT_EQ(doc["cpu"]["family"], 26);
  EXPECT_TRUE(doc["cpu"]["hypervisor"].is_null());
  EXPECT_EQ(doc["cpu"]["cache"]["l2_kib"], 1024);
  EXPECT_EQ(doc["features"]["avx512f"]["cpuid"], true);
  // JSON keeps the full value; the precision is for the text formats (0.12 in CSV).
  EXPECT_DOUBLE_EQ(doc["features"]["avx512f"]["ratio"].get<double>(), 0.123456);
  EXPECT_TRUE(doc["features"]["avx_vnni"]["ratio"].is_null()) << "NaN must print as null";
  EXPECT_EQ(doc["features"]["amx_tile"]["note"], "line\nbreak");
  ASSERT_EQ(doc["findings"].size(), 1u);
  EXPECT_EQ(doc["findings"][0]["severity"], "warning");
}

TEST(JsonTest, UnkeyedTableIsAnArrayOfObjects) {
  Report r = Sample();
  r.tables[0].keyed_by_first_column = false;
  const auto doc = nlohmann::json::parse(Render(r, Format::kJson));
  ASSERT_TRUE(doc["features"].is_array());
  EXPECT_EQ(doc["features"][1]["feature"], "avx_vnni");
}

TEST(TableTest, AlignsAndHidesColumns) {
  Report r = Sample();
  r.tables[0].hidden_in_table = {"note"};
  const std::string text = Render(r, Format::kTable);
  EXPECT_NE(text.find("CPU\n  vendor      AuthenticAMD\n  family      26\n  hypervisor  -\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  feature   cpuid  ratio\n  avx512f   yes    0.12\n"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("plain"), std::string::npos) << "hidden column printed";
  EXPECT_NE(text.find("Findings\n  warning: something to look at\n"), std::string::npos);
}

TEST(FormatsTest, AgreeOnRowCounts) {
  const Report r = Sample();
  const auto doc = nlohmann::json::parse(Render(r, Format::kJson));
  const std::string csv = Render(r, Format::kCsv);
  std::size_t records = 0;
  for (std::size_t p = 0; (p = csv.find("\r\n", p)) != std::string::npos; p += 2) ++records;
  EXPECT_EQ(records - 1, r.tables[0].rows.size());
  EXPECT_EQ(doc["features"].size(), r.tables[0].rows.size());
}

TEST(StreamTest, JsonStreamIsOneValidDocument) {
  Report head;
  head.command = "parse";
  head.AddSection({"run"}).Add({"files"}, 1);
  Table events{.name = "events", .columns = {"line", "time_ms"}};
  std::ostringstream out;
  auto stream = StartRowStream(Format::kJson, out, head, events);
  stream->Row({1, Value(0.5)});
  stream->Row({2, Value(1.25)});
  Report tail;
  tail.AddSection({"summary"}).Add({"events"}, 2);
  tail.AddFinding(Severity::kInfo, "i", "done");
  stream->Finish(tail);
  const auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["run"]["files"], 1);
  ASSERT_EQ(doc["events"].size(), 2u);
  EXPECT_EQ(doc["events"][1]["line"], 2);
  EXPECT_EQ(doc["summary"]["events"], 2);
  EXPECT_EQ(doc["findings"][0]["message"], "done");
}

TEST(StreamTest, EmptyJsonStreamIsValid) {
  Report head;
  Table events{.name = "events", .columns = {"line"}};
  std::ostringstream out;
  StartRowStream(Format::kJson, out, head, events)->Finish(Report{});
  const auto doc = nlohmann::json::parse(out.str());
  EXPECT_TRUE(doc["events"].is_array());
  EXPECT_TRUE(doc["events"].empty());
}

TEST(StreamTest, CsvStreamHasHeaderAndRows) {
  Table events{.name = "events", .columns = {"line", "text"}};
  std::ostringstream out;
  auto stream = StartRowStream(Format::kCsv, out, Report{}, events);
  stream->Row({1, "a,b"});
  stream->Finish(Report{});
  EXPECT_EQ(out.str(), "line,text\r\n1,\"a,b\"\r\n");
}

TEST(StreamTest, HtmlStreamKeepsTheFirstRowsAPageHoldsAndSaysTheRest) {
  Report head;
  head.command = "parse";
  head.AddSection({"run"}).Add({"files"}, 1);
  Table events{.name = "events", .columns = {"line"}};
  std::ostringstream out;
  auto stream = StartRowStream(Format::kHtml, out, head, events);
  EXPECT_TRUE(out.str().empty()) << "a page is printed whole, its findings first";
  const std::size_t sent = kMaxPageRows + 2;
  for (std::size_t i = 0; i < sent; ++i) stream->Row({i + 1});
  Report tail;
  tail.AddFinding(Severity::kWarning, "w", "said at the end");
  stream->Finish(tail);
  const std::string page = out.str();
  const std::size_t finding = page.find("<code>w</code>");
  const std::size_t table = page.find("data-name=\"events\"");
  ASSERT_NE(table, std::string::npos);
  EXPECT_LT(finding, table);
  EXPECT_NE(page.find(fmt::format("The first {} of {} rows", kMaxPageRows, sent)),
            std::string::npos);
  EXPECT_NE(page.find(fmt::format(">{}</td>", kMaxPageRows)), std::string::npos);
  EXPECT_EQ(page.find(fmt::format(">{}</td>", kMaxPageRows + 1)), std::string::npos);
}

TEST(TraceTest, OneCompleteEventPerTraceRow) {
  Report r;
  r.command = "verbose";
  Table& t = r.AddView(std::string(kTraceTable),
                       {"name", "category", "ts_us", "dur_us", "thread", "layer", "shape"});
  t.rows.push_back({"inner_product", "exec", Value(10.0), Value(2.5), 1, "fc1", Value()});
  t.rows.push_back({"eltwise", "exec", 13, Value(0.5), 1, "relu1", "mb100ic128"});
  std::ostringstream out;
  Print(r, Format::kTrace, out);
  const auto doc = nlohmann::json::parse(out.str());
  const std::vector<nlohmann::json> events = testing::ExpectDevToolsTrace(doc);
  ASSERT_EQ(events.size(), 2u);
  const auto& e = events[0];
  EXPECT_EQ(e["ph"], "X");
  EXPECT_EQ(e["name"], "inner_product");
  EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 2.5);
  EXPECT_EQ(e["args"]["layer"], "fc1");
  EXPECT_FALSE(e["args"].contains("shape")) << "null arguments are left out";
  EXPECT_EQ(events[1]["args"]["shape"], "mb100ic128");
  EXPECT_DOUBLE_EQ(events[1]["ts"].get<double>(), 13.0);
  // The names come first, at the earliest event's time: viewers show them, not "Process 1".
  EXPECT_EQ(doc["traceEvents"][0]["name"], "process_name");
  EXPECT_EQ(doc["traceEvents"][0]["args"]["name"], "dlcheck verbose");
  EXPECT_DOUBLE_EQ(doc["traceEvents"][0]["ts"].get<double>(), 10.0);
  EXPECT_EQ(doc["traceEvents"][1]["name"], "thread_name");
}

// Negative durations are out of DevTools' bounds: printed as 0.
TEST(TraceTest, NoNegativeDurationAndNamesForEveryThread) {
  Report r;
  r.command = "parse";
  Table& t = r.AddView(std::string(kTraceTable), {"name", "ts_us", "dur_us", "thread"});
  t.rows.push_back({"a", Value(20.0), Value(-1.0), 1});
  t.rows.push_back({"b", Value(5.0), Value(1.0), 2});
  std::ostringstream out;
  Print(r, Format::kTrace, out);
  const auto doc = nlohmann::json::parse(out.str());
  const std::vector<nlohmann::json> events = testing::ExpectDevToolsTrace(doc);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_DOUBLE_EQ(events[0]["dur"].get<double>(), 0.0);
  EXPECT_EQ(doc["traceEvents"].size(), 5u) << "a process name and two thread names";
}

TEST(TraceTest, FindsItsColumnsByName) {
  Report r;
  Table& t = r.AddView(std::string(kTraceTable),
                       {"layer", "thread", "dur_us", "name", "ts_us", "category"});
  t.rows.push_back({"fc1", 2, Value(2.5), "inner_product", Value(10.0), "exec"});
  std::ostringstream out;
  Print(r, Format::kTrace, out);
  const auto doc = nlohmann::json::parse(out.str());
  const std::vector<nlohmann::json> events = testing::ExpectDevToolsTrace(doc);
  ASSERT_EQ(events.size(), 1u);
  const auto& e = events[0];
  EXPECT_EQ(e["name"], "inner_product");
  EXPECT_EQ(e["cat"], "exec");
  EXPECT_EQ(e["tid"], 2);
  EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 2.5);
  EXPECT_EQ(e["args"], nlohmann::json({{"layer", "fc1"}})) << "trace columns are not arguments";
}

TEST(TableTest, VerdictThenFindingsThenSectionsAndControlCharactersVisible) {
  Report r;
  r.headline = "DLCHECK OK - fine | 'problems'=0;;;0";
  r.AddSection({"cpu", "CPU"}).Add({"brand"}, "Evil\x1b[2J CPU\r\n");
  r.AddFinding(Severity::kWarning, "w", "bell\a");
  const std::string text = Render(r, Format::kTable);
  EXPECT_EQ(text,
            "DLCHECK OK - fine | 'problems'=0;;;0\n"
            "\n"
            "Findings\n"
            "  warning: bell\\x07\n"
            "\n"
            "CPU\n"
            "  brand  Evil\\x1b[2J CPU\\x0d\\x0a\n");
}

TEST(TableTest, SetVerdictTalliesErrorsAndWarningsByCode) {
  Report r;
  r.AddFinding(Severity::kInfo, "note", "not counted");
  SetVerdict(r, "ran");
  EXPECT_EQ(r.headline, "ran; no warnings");
  r.AddFinding(Severity::kWarning, "scalar-fallback", "a");
  r.AddFinding(Severity::kWarning, "scalar-fallback", "b");
  r.AddFinding(Severity::kWarning, "busy-machine", "c");
  r.AddFinding(Severity::kError, "program-failed", "d");
  SetVerdict(r, "ran");
  EXPECT_EQ(r.headline, "ran; 1 error: program-failed; 3 warnings: scalar-fallback, busy-machine");
}

TEST(JsonTest, InvalidUtf8IsReplacedNotFatal) {
  Report r;
  r.headline = "left out of JSON";
  r.AddSection({"cpu"}).Add({"brand"}, "caf\xc3\xa9 \xff\xfe CPU");
  const std::string text = Render(r, Format::kJson);
  const auto doc = nlohmann::json::parse(text);
  EXPECT_EQ(doc["cpu"]["brand"], "caf\xc3\xa9 \xef\xbf\xbd\xef\xbf\xbd CPU");
  EXPECT_EQ(text.find("left out"), std::string::npos);
}

TEST(FormatsTest, NamesAreListedOnceAndReadBack) {
  for (const FormatChoice& choice : kFormatChoices) {
    EXPECT_EQ(ParseFormat(choice.name), choice.format) << choice.name;
  }
  for (Format f : {Format::kTable, Format::kCsv, Format::kJson, Format::kTrace}) {
    EXPECT_EQ(ParseFormat(FormatName(f)), f);
  }
  EXPECT_EQ(ParseFormat("JSON"), Format::kJson);
  EXPECT_EQ(ParseFormat("text"), Format::kTable);
  EXPECT_EQ(FormatName(Format::kTable), "table");
  EXPECT_EQ(ParseFormat("xml"), std::nullopt);
}

}  // namespace
}  // namespace dlcheck::report
