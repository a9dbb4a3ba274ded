// The JSON contract (report/contract.h): the schema made from a declaration, and the JSON printer
// writing every declared member of a command's document, null where the report has nothing.
#include "report/contract.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

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

TEST(ContractTest, EveryCommandWithJsonHasADeclaredDocument) {
  std::set<std::string> names;
  for (const contract::Document& d : contract::All()) {
    EXPECT_TRUE(names.insert(d.command).second) << d.command << " declared twice";
    EXPECT_EQ(contract::Find(d.command), &d);
  }
  EXPECT_EQ(names, (std::set<std::string>{"platform", "parse", "verbose", "run", "dispatch",
                                          "check", "diff", "profile", "fleet"}));
  EXPECT_EQ(contract::Find("nonsense"), nullptr);
}

// The primitives table's columns are declared once (report/primitive_columns.h): every command's
// primitives rows carry them, by those names and types, in that order.
TEST(ContractTest, PrimitivesTablesCarryTheDeclaredColumns) {
  std::set<std::string> names;
  for (const primitive_column::Column& c : kPrimitiveColumns) {
    EXPECT_TRUE(names.insert(c.name).second) << c.name << " declared twice";
  }
  int tables = 0;
  for (const char* command : {"parse", "verbose", "run", "profile"}) {
    const contract::Document* document = contract::Find(command);
    ASSERT_NE(document, nullptr) << command;
    const contract::Member* rows = contract::FindMember(document->members, "primitives");
    if (rows == nullptr) continue;
    ++tables;
    ASSERT_GE(rows->members.size(), kPrimitiveColumns.size()) << command;
    for (std::size_t i = 0; i < kPrimitiveColumns.size(); ++i) {
      EXPECT_EQ(rows->members[i].name, kPrimitiveColumns[i].name) << command;
      EXPECT_EQ(rows->members[i].type, kPrimitiveColumns[i].type) << command;
    }
  }
  EXPECT_GE(tables, 3);
}

TEST(ContractTest, TheSchemaRequiresEveryDeclaredMemberAndLetsEachBeNull) {
  const Json schema = Json::parse(contract::SchemaText(*contract::Find("diff")));
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
}

TEST(ContractTest, MapsKeyedByDataHaveNoFixedKeys) {
  const Json schema = Json::parse(contract::SchemaText(*contract::Find("parse")));
  const Json& skipped = schema["properties"]["input"]["properties"]["skipped_by_reason"];
  EXPECT_FALSE(skipped.contains("required"));
  EXPECT_FALSE(skipped.contains("properties"));
  EXPECT_EQ(skipped["additionalProperties"]["type"], Json::array({"integer", "null"}));
  const Json platform = Json::parse(contract::SchemaText(*contract::Find("platform")));
  const Json& features = platform["properties"]["features"];
  EXPECT_FALSE(features.contains("properties"));
  EXPECT_EQ(features["additionalProperties"]["properties"]["usable"]["type"],
            Json::array({"boolean", "null"}));
}

TEST(ContractTest, ThePrinterWritesEveryDeclaredMemberNullWhenAbsent) {
  Report r;
  r.command = "diff";
  r.AddSection("summary", "Summary").Add("a", "before.log").Add("regressions", 2);
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
  Report r;
  r.command = "platform";
  r.AddSection("topology", "Topology").Add("source", Value());  // a replay without --topology
  Section& cpu = r.AddSection("cpu", "CPU");
  cpu.Add("vendor", "GenuineIntel");
  cpu.AddSection("amx_tiles").Add("tiles", 8);
  const Json doc = Document(r);
  for (const char* key : {"packages", "cores", "caches", "numa"}) {
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
  Table& t = r.AddTable("groups", {"group", "lacks"});
  t.rows.push_back({1, Value(TextList{"avx512f", "amx_int8"})});
  EXPECT_EQ(Document(r)["groups"][0]["lacks"], Json::array({"avx512f", "amx_int8"}));
  std::ostringstream csv;
  Print(r, Format::kCsv, csv);
  EXPECT_EQ(csv.str(), "group,lacks\r\n1,avx512f amx_int8\r\n");
}

TEST(ContractTest, RealsKeepTheirFullPrecisionInJson) {
  Report r;
  r.command = "diff";
  r.AddSection("summary").Add("exec_ms_a", Value(0.001234567, 4));
  EXPECT_DOUBLE_EQ(Document(r)["summary"]["exec_ms_a"].get<double>(), 0.001234567);
}

}  // namespace
}  // namespace dlcheck::report
