// SPDX-License-Identifier: Apache-2.0
// The JSON contract (report/contract.h): the schema made from a declaration, and the JSON printer
// writing every declared member of a command's document, null where the report has nothing.
#include "report/contract.h"

#include <gtest/gtest.h>

#include <array>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "report/contract_check.h"
#include "report/primitive_columns.h"
#include "report/printer.h"
#include "report/report.h"

namespace dlcheck::report {
namespace {

using Json = nlohmann::ordered_json;

Json Document(const Report& r) {
  std::ostringstream out;
  Print(r, Format::kJson, out);
  return Json::parse(out.str());
}

// A document declared here as a builder declares its own: fields, sections, tables, a keyed
// table, a map and a list.
namespace test_field {
constexpr Field kA{"a"};
constexpr Field kB{"b"};
constexpr Field kRegressions{"regressions", Type::kInteger};
constexpr Field kExecTimeRatio{"exec_time_ratio", Type::kNumber};
constexpr Field kRatio{"ratio", Type::kNumber};
constexpr Field kRegressed{"regressed", Type::kBoolean};
constexpr Field kSkippedByReason{"skipped_by_reason", Type::kInteger, Arity::kMap};
constexpr Field kLacks{"lacks", Type::kText, Arity::kList};
constexpr Field kUsable{"usable", Type::kBoolean};
constexpr Field kFeature{"feature"};
}  // namespace test_field
constexpr Part kSummary{"summary", "Summary"};
constexpr Part kRows{"primitives", "Rows"};
constexpr Part kFeatures{"features", "Features"};

const contract::Document& TestDocument() {
  using namespace test_field;
  static const contract::Document kDocument{
      "diff",
      "a document declared for the test",
      {contract::Object(kSummary, {kA, kB, kRegressions, kExecTimeRatio, kSkippedByReason}),
       contract::Rows(kRows, {kA, kRegressed, kRatio, kLacks}),
       contract::KeyedRows(kFeatures, {kUsable})}};
  return kDocument;
}

TEST(ContractTest, TheSchemaRequiresEveryDeclaredMemberAndLetsEachBeNull) {
  const Json schema = Json::parse(contract::SchemaText(TestDocument()));
  EXPECT_EQ(schema["properties"]["command"]["const"], "diff");
  const Json& required = schema["required"];
  for (const char* key :
       {"schema_version", "command", "dlcheck_version", "summary", "primitives", "findings"}) {
    EXPECT_NE(std::find(required.begin(), required.end(), key), required.end()) << key;
  }
  const Json& summary = schema["properties"]["summary"];
  EXPECT_EQ(summary["type"], Json::array({"object", "null"}));
  EXPECT_FALSE(summary["properties"].contains("ratio"));  // a column, not a summary member
  EXPECT_EQ(summary["properties"]["exec_time_ratio"]["type"], Json::array({"number", "null"}));
  // Rows: every column typed, none required (--columns may choose some).
  const Json& row = schema["properties"]["primitives"]["items"];
  EXPECT_EQ(row["properties"]["regressed"]["type"], Json::array({"boolean", "null"}));
  EXPECT_FALSE(row.contains("required"));
  EXPECT_EQ(row["properties"]["lacks"]["type"], Json::array({"array", "null"}));
}

TEST(ContractTest, MapsKeyedByDataHaveNoFixedKeys) {
  const Json schema = Json::parse(contract::SchemaText(TestDocument()));
  const Json& skipped = schema["properties"]["summary"]["properties"]["skipped_by_reason"];
  EXPECT_FALSE(skipped.contains("required"));
  EXPECT_FALSE(skipped.contains("properties"));
  EXPECT_EQ(skipped["additionalProperties"]["type"], Json::array({"integer", "null"}));
  const Json& features = schema["properties"]["features"];
  EXPECT_FALSE(features.contains("properties"));
  EXPECT_EQ(features["additionalProperties"]["properties"]["usable"]["type"],
            Json::array({"boolean", "null"}));
}

// The check both ways (contract_check.h): what a report writes against what it declares.
TEST(ContractTest, AWrittenMemberThatIsNotDeclaredOrOfAnotherTypeIsNamed) {
  using namespace test_field;
  Report r(TestDocument());
  Section& summary = r.AddSection(kSummary);
  summary.Add(kA, "before.log").Add(kRegressions, "two").Add({"typo"}, 1);
  summary.AddSection({kSkippedByReason.name}).AddEntry("not an event", 3);
  Table& rows = r.AddTable(kRows, std::array{kA, kRegressed, kRatio});
  rows.rows.push_back({"x", Value(), 2});  // an integer where a number is declared: fine
  rows.rows.push_back({"y", 1, 0.5});      // an integer where a boolean is declared
  r.AddView("stray", {"c"});
  const std::vector<std::string> problems = contract::Undeclared(r);
  const std::set<std::string> got(problems.begin(), problems.end());
  EXPECT_EQ(got, (std::set<std::string>{"summary.regressions: string where integer is declared",
                                        "summary.typo: written, not declared",
                                        "primitives.regressed: integer where boolean is declared",
                                        "stray: a table written, not declared"}));
}

TEST(ContractTest, WrittenAndDeclaredPathsAreSpelledAlike) {
  using namespace test_field;
  Report r(TestDocument());
  r.AddSection(kSummary).Add(kA, "a.log");
  Table& features = r.AddTable(kFeatures, std::array{kFeature, kUsable});
  features.keyed_by_first_column = true;
  EXPECT_TRUE(contract::Undeclared(r).empty());
  std::set<std::string> written;
  contract::AddWrittenPaths(r, written);
  EXPECT_EQ(written,
            (std::set<std::string>{"summary", "summary.a", "features", "features.usable"}));
  const std::set<std::string> declared = contract::DeclaredPaths(TestDocument());
  for (const std::string& path : written) EXPECT_TRUE(declared.count(path)) << path;
  // Declared, written by nothing above: what the json_schemas test reports for a whole suite.
  EXPECT_TRUE(declared.count("summary.b"));
  EXPECT_TRUE(declared.count("primitives.ratio"));
}

TEST(ContractTest, ThePrinterWritesEveryDeclaredMemberNullWhenAbsent) {
  Report r(TestDocument());
  r.AddSection(kSummary).Add(test_field::kA, "before.log").Add(test_field::kRegressions, 2);
  const Json doc = Document(r);
  ASSERT_TRUE(doc.contains("summary"));
  EXPECT_EQ(doc["summary"]["a"], "before.log");
  EXPECT_EQ(doc["summary"]["regressions"], 2);
  EXPECT_TRUE(doc["summary"].contains("exec_time_ratio"));
  EXPECT_TRUE(doc["summary"]["exec_time_ratio"].is_null());
  EXPECT_TRUE(doc.contains("primitives"));
  EXPECT_TRUE(doc["primitives"].is_null());
  // findings stay last, after the members added as null.
  EXPECT_EQ(std::prev(doc.end()).key(), "findings");
}

TEST(ContractTest, NestedObjectsAreCompletedToo) {
  constexpr Field kSource{"source"};
  constexpr Field kPackages{"packages", Type::kInteger};
  constexpr Field kVendor{"vendor"};
  constexpr Field kBrand{"brand"};
  constexpr Field kTiles{"tiles", Type::kInteger};
  constexpr Field kRowsField{"rows", Type::kInteger};
  constexpr Part kTopology{"topology", "Topology"};
  constexpr Part kCpu{"cpu", "CPU"};
  constexpr Part kAmxTiles{"amx_tiles", "AMX tiles"};
  constexpr Part kCaches{"caches", "Caches"};
  static const contract::Document kNested{
      "platform",
      "nested",
      {contract::Object(kTopology, {kSource, kPackages, contract::Rows(kCaches, {kPackages})}),
       contract::Object(kCpu,
                        {kVendor, kBrand, contract::Object(kAmxTiles, {kTiles, kRowsField})})}};
  Report r(kNested);
  r.AddSection(kTopology).Add(kSource, Value());  // a replay without --topology
  Section& cpu = r.AddSection(kCpu);
  cpu.Add(kVendor, "GenuineIntel");
  cpu.AddSection(kAmxTiles).Add(kTiles, 8);
  const Json doc = Document(r);
  for (const char* key : {"packages", "caches"}) {
    ASSERT_TRUE(doc["topology"].contains(key)) << key;
    EXPECT_TRUE(doc["topology"][key].is_null()) << key;
  }
  EXPECT_EQ(doc["cpu"]["amx_tiles"]["tiles"], 8);
  EXPECT_TRUE(doc["cpu"]["amx_tiles"]["rows"].is_null());
  EXPECT_TRUE(doc["cpu"]["brand"].is_null());
}

TEST(ContractTest, ListsAreArraysInJsonAndWordsInText) {
  Report r;
  r.command = "fleet";
  Table& t = r.AddView("groups", {"group", "lacks"});
  t.rows.push_back({1, Value(TextList{"avx512f", "amx_int8"})});
  EXPECT_EQ(Document(r)["groups"][0]["lacks"], Json::array({"avx512f", "amx_int8"}));
  std::ostringstream csv;
  Print(r, Format::kCsv, csv);
  EXPECT_EQ(csv.str(), "group,lacks\r\n1,avx512f amx_int8\r\n");
}

TEST(ContractTest, RealsKeepTheirFullPrecisionInJson) {
  Report r(TestDocument());
  r.AddSection(kSummary).Add(test_field::kExecTimeRatio, Value(0.001234567, 4));
  EXPECT_DOUBLE_EQ(Document(r)["summary"]["exec_time_ratio"].get<double>(), 0.001234567);
}

}  // namespace
}  // namespace dlcheck::report
