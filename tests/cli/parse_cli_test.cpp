// SPDX-License-Identifier: Apache-2.0
// dlcheck parse through the built binary: the CSV contract, formats, bad input, exit codes.
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include "common/exit_code.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"
#include "support/test_files.h"
#include "support/trace_rules.h"

namespace dlcheck {
namespace {

namespace fs = std::filesystem;
using testing::DataPath;
using testing::ReadFile;
using testing::RunDlcheck;

constexpr const char* kPrimitiveHeader =
    "engine,primitive,implementation,isa,isa_source,fallback,prop_kind,data_types,layouts,"
    "attributes,auxiliary,problem,creates,cache_hits,create_ms,nested_creates,nested_create_ms,"
    "execs,exec_ms_total,exec_ms_mean,exec_ms_min,exec_ms_max,time_pct,gflops,benchdnn,skipped,"
    "library";
constexpr const char* kEventHeader =
    "line,era,operation,cache,engine,primitive,implementation,isa,isa_source,fallback,prop_kind,"
    "memory_descriptors,attributes,auxiliary,problem,time_ms,timestamp,message,library";

const std::string kGood =
    "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
    "dst_f32::blocked:ba:f0,,,8x8,0.5";

using ParseCliTest = testing::ScratchDirTest;

std::vector<std::string> CsvLines(const std::string& out) {
  std::vector<std::string> lines;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

nlohmann::json Json(const std::string& out) {
  return nlohmann::json::parse(out);
}

// The lines of why_lines.txt under the `# source: <source>` line that starts with `source`.
std::string WhyGroupText(const std::string& source) {
  std::istringstream in(ReadFile(DataPath("verbose/why_lines.txt")));
  std::string text;
  bool in_group = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# source: ", 0) == 0) {
      in_group = line.rfind("# source: " + source, 0) == 0;
    } else if (in_group && line.rfind("#", 0) != 0) {
      text += line + "\n";
    }
  }
  return text;
}

// The findings of a report with `code`.
std::vector<nlohmann::json> FindingsWith(const nlohmann::json& doc, const std::string& code) {
  std::vector<nlohmann::json> found;
  for (const auto& f : doc["findings"]) {
    if (f["code"] == code) found.push_back(f);
  }
  return found;
}

// oneDNN#3868's f16 and bf16 matmuls, read with the CPU they are judged on replayed: Emerald
// Rapids (AMX-BF16, no AMX-FP16) gives the f16 row dtype-no-native-path; Granite Rapids (AMX-FP16)
// does not. Both AIDA64 reports as InstLatx64 published them (tests/data/cpuid/aida64).
TEST_F(ParseCliTest, DtypeWithoutANativePathOnTheReplayedCpu) {
  const std::string log = WhyGroupText("uxlfoundation/oneDNN#3868");
  ASSERT_FALSE(log.empty());
  const std::string emerald =
      DataPath("cpuid/aida64/GenuineIntel00C06F2_EmeraldRapids_03_CPUID.txt.xz");
  const std::string granite =
      DataPath("cpuid/aida64/GenuineIntel00A06D1_GraniteRapids_03_CPUID.txt.xz");
  const auto on_emerald = RunDlcheck({"parse", "--cpuid-dump", emerald, "--format", "json"}, log);
  ASSERT_EQ(on_emerald.exit_code, 0) << on_emerald.err;
  const nlohmann::json e = Json(on_emerald.out);
  const std::vector<nlohmann::json> found = FindingsWith(e, "dtype-no-native-path");
  ASSERT_EQ(found.size(), 1u) << e["findings"];
  const std::string message = found[0]["message"];
  EXPECT_EQ(message.rfind("f16 matmul brg_matmul:avx10_1_512 4x14336:14336x4096", 0), 0u)
      << message;
  EXPECT_NE(
      message.find(": the CPU of the CPUID dump " + emerald + " has AVX512-FP16 but no AMX-FP16"),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("bf16 would use AMX (AMX-BF16) there"), std::string::npos) << message;
  EXPECT_EQ(e["options"]["cpuid_dump"], emerald);
  const auto on_granite = RunDlcheck({"parse", "--cpuid-dump", granite, "--format", "json"}, log);
  ASSERT_EQ(on_granite.exit_code, 0) << on_granite.err;
  EXPECT_TRUE(FindingsWith(Json(on_granite.out), "dtype-no-native-path").empty()) << on_granite.out;
  // No dump and no ISA line: nothing to judge by.
  const auto alone = RunDlcheck({"parse", "--format", "json"}, log);
  EXPECT_TRUE(FindingsWith(Json(alone.out), "dtype-no-native-path").empty());
  // A dump that cannot be read fails before the log is read; an empty name is a usage error.
  const auto missing = RunDlcheck({"parse", "--cpuid-dump", "no-such.test"}, log);
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_EQ(RunDlcheck({"parse", "--cpuid-dump", ""}, log).exit_code, 2);
}

// A log with an ISA line is judged by that line (what oneDNN ran under: oneDNN#1992's Sapphire
// Rapids level, no AMX-FP16); a replayed dump of another CPU is what the last sentence speaks of.
// On AMD (Zen 4, Zen 5) nothing says AMX is there; on Emerald Rapids (the log's level) nothing is
// added.
TEST_F(ParseCliTest, TheLogIsJudgedByItsIsaLineAndTheNamedCpuSaidApart) {
  const std::string log =
      WhyGroupText("uxlfoundation/oneDNN#1992") + WhyGroupText("uxlfoundation/oneDNN#3868");
  const std::string zen4 = DataPath("cpuid/amd-epyc-9654-96-core-processor-dual.test.xz");
  const std::string zen5 = DataPath("cpuid/amd-epyc-9965-192-core-processor-dual.test.xz");
  const std::string emerald =
      DataPath("cpuid/aida64/GenuineIntel00C06F2_EmeraldRapids_03_CPUID.txt.xz");
  const std::string log_words =
      "f16 matmul brg_matmul:avx10_1_512 4x14336:14336x4096 (71.7% of exec time) ran at "
      "avx10_1_512: the log ran under avx512_core_amx: a cap, or a CPU with AVX512-FP16 but "
      "without AMX-FP16 (Granite Rapids and later have AMX-FP16); bf16 would use AMX (AMX-BF16) "
      "there, where its accuracy is enough.";
  for (const std::string& amd : {zen4, zen5}) {
    const auto r = RunDlcheck({"parse", "--cpuid-dump", amd, "--format", "json"}, log);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::vector<nlohmann::json> found = FindingsWith(Json(r.out), "dtype-no-native-path");
    ASSERT_EQ(found.size(), 1u) << r.out;
    const std::string message = found[0]["message"];
    EXPECT_EQ(message.rfind(log_words, 0), 0u) << message;
    EXPECT_NE(message.find(" The CPU of the CPUID dump " + amd +
                           " has no AVX512-FP16 and no AMX-FP16: f16 is converted to f32 on that "
                           "CPU; bf16 would use AVX512-BF16 on that CPU, where its accuracy is "
                           "enough."),
              std::string::npos)
        << message;
  }
  const auto on_emerald = RunDlcheck({"parse", "--cpuid-dump", emerald, "--format", "json"}, log);
  ASSERT_EQ(on_emerald.exit_code, 0) << on_emerald.err;
  const std::vector<nlohmann::json> found =
      FindingsWith(Json(on_emerald.out), "dtype-no-native-path");
  ASSERT_EQ(found.size(), 1u) << on_emerald.out;
  EXPECT_EQ(found[0]["message"], log_words);
}

TEST_F(ParseCliTest, CsvHeaderIsTheContract) {
  auto r = RunDlcheck({"parse", "--format", "csv", DataPath("verbose/generated_2.6.3.txt")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CsvLines(r.out).at(0), kPrimitiveHeader);
  r = RunDlcheck({"parse", "--events", "--format", "csv", DataPath("verbose/generated_2.6.3.txt")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CsvLines(r.out).at(0), kEventHeader);
}

TEST_F(ParseCliTest, TableCsvAndJsonAgreeOnRows) {
  const std::string log = DataPath("verbose/generated_2.6.3.txt");
  const auto csv = RunDlcheck({"parse", "--format", "csv", log});
  const auto json = RunDlcheck({"parse", "--format", "json", log});
  ASSERT_EQ(csv.exit_code, 0);
  ASSERT_EQ(json.exit_code, 0);
  const auto doc = Json(json.out);
  EXPECT_EQ(doc["command"], "parse");
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(CsvLines(csv.out).size() - 1, doc["primitives"].size());
  EXPECT_EQ(doc["summary"]["rows"], doc["primitives"].size());
  // Events: one CSV row per create/exec event of the fixture (105 creates + 108 execs).
  const auto events = RunDlcheck({"parse", "--events", "--format", "csv", log});
  EXPECT_EQ(CsvLines(events.out).size() - 1, 213u);
  const auto events_json = RunDlcheck({"parse", "--events", "--format", "json", log});
  ASSERT_EQ(events_json.exit_code, 0) << events_json.err;
  const auto edoc = Json(events_json.out);
  EXPECT_EQ(edoc["events"].size(), 213u);
  EXPECT_EQ(edoc["input"]["events"], 213);
}

// python3-torch 1.13 (oneDNN 2.6.3) running the CNN peer; expected counts come from
//   grep '^onednn_verbose,' torch_cnn_2.6.3.log |
//     awk -F, '$2!="info" {split($2,op,":"); print op[1], $4, $5}' | sort | uniq -c
// (see tests/data/verbose/README.md): create = exec = 65 convolution jit:avx512_core,
// 169 reorder jit:uni, 26 reorder simple:any; 242 of the creates are cache hits.
TEST_F(ParseCliTest, TorchLogCountsAgreeWithCountingByHand) {
  const auto r = RunDlcheck({"parse", "--format", "json", DataPath("verbose/torch_cnn_2.6.3.log")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = Json(r.out);
  std::map<std::string, std::pair<int, int>> counts;  // primitive impl -> creates, execs
  int hits = 0;
  for (const auto& row : doc["primitives"]) {
    auto& c = counts[row["primitive"].get<std::string>() + " " +
                     row["implementation"].get<std::string>()];
    c.first += row["creates"].get<int>();
    c.second += row["execs"].get<int>();
    hits += row["cache_hits"].get<int>();
  }
  const std::map<std::string, std::pair<int, int>> expected = {
      {"convolution jit:avx512_core", {65, 65}},
      {"reorder jit:uni", {169, 169}},
      {"reorder simple:any", {26, 26}}};
  EXPECT_EQ(counts, expected);
  EXPECT_EQ(hits, 242);
  EXPECT_EQ(doc["header"]["library_version"], "oneDNN v2.6.3 (commit N/A)");
  EXPECT_EQ(doc["header"]["threads"], 1);
  EXPECT_EQ(doc["input"]["skipped_by_reason"]["foreign"], 4);  // 3 provenance lines + 1 output
}

// Several logs: a row per (log, primitive) with a `file` column, and every log's own header.
TEST_F(ParseCliTest, SeveralLogsKeepTheirRowsAndHeadersApart) {
  const std::string generated = testing::DataPath("verbose/generated_2.6.3.txt");
  const std::string torch = testing::DataPath("verbose/torch_cnn_2.6.3.log");
  const auto both = RunDlcheck({"parse", generated, torch, "--format", "json"});
  const auto one = RunDlcheck({"parse", generated, "--format", "json"});
  const auto other = RunDlcheck({"parse", torch, "--format", "json"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  const nlohmann::json doc = Json(both.out);
  std::map<std::string, std::size_t> rows_per_file;
  for (const auto& row : doc["primitives"]) ++rows_per_file[row["file"].get<std::string>()];
  EXPECT_EQ(rows_per_file[generated], Json(one.out)["primitives"].size());
  EXPECT_EQ(rows_per_file[torch], Json(other.out)["primitives"].size());
  EXPECT_EQ(rows_per_file.size(), 2u);
  ASSERT_EQ(doc["headers"].size(), 2u);
  EXPECT_EQ(doc["headers"][0]["file"], generated);
  EXPECT_EQ(doc["headers"][1]["file"], torch);
  EXPECT_EQ(doc["headers"][1]["library_version"], Json(other.out)["header"]["library_version"]);
  // One log: no file column, no headers table (the header section is its header): null.
  EXPECT_FALSE(Json(one.out)["primitives"][0].contains("file"));
  EXPECT_TRUE(Json(one.out)["headers"].is_null());
}

TEST_F(ParseCliTest, StdinAndDashReadTheSameLog) {
  const auto a = RunDlcheck({"parse", "--format", "csv"}, kGood + "\n" + kGood + "\n");
  const auto b = RunDlcheck({"parse", "--format", "csv", "-"}, kGood + "\n");
  ASSERT_EQ(a.exit_code, 0);
  ASSERT_EQ(b.exit_code, 0);
  ASSERT_EQ(CsvLines(a.out).size(), 2u);
  EXPECT_EQ(CsvLines(a.out)[1],
            "cpu,reorder,jit:uni,,,jit,undef,src:f32 dst:f32,src:ab dst:ba,,,8x8,0,0,0.0000,0,"
            "0.0000,2,1.0000,0.5000,0.5000,0.5000,100.00,,"
            "benchdnn --reorder --mode=P --sdt=f32 --ddt=f32 --stag=ab --dtag=ba 8x8,,oneDNN");
  EXPECT_TRUE(a.err.empty()) << a.err;
}

// A log with timestamps gives a trace DevTools loads: one complete event per exec line, each at
// the line's own timestamp, in microseconds since the log's earliest one (a log names no process
// start), plus the 1 us that keeps an event off ts 0.
TEST_F(ParseCliTest, TraceOfATimestampedLogHoldsEveryExecAtItsTimestamp) {
  const std::string log = DataPath("verbose/generated_2.6.3.txt");
  const auto r = RunDlcheck({"parse", "--format", "trace", log});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  const std::vector<nlohmann::json> events = testing::ExpectDevToolsTrace(doc);
  const auto json = nlohmann::json::parse(RunDlcheck({"parse", "--format", "json", log}).out);
  EXPECT_EQ(events.size(), json["summary"]["execs"].get<std::size_t>());
  EXPECT_EQ(doc["traceEvents"][0]["args"]["name"], "dlcheck parse");
  // The stamps of the exec lines, read from the file itself.
  std::ifstream in(log);
  std::vector<double> stamps_us;
  const std::regex stamped_exec(R"(onednn_verbose,(\d+\.\d+),exec,.*)");
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, stamped_exec)) {
      stamps_us.push_back(std::stod(m[1].str()) * 1e3);
    }
  }
  ASSERT_FALSE(stamps_us.empty());
  const double earliest_us = *std::min_element(stamps_us.begin(), stamps_us.end());
  for (const double stamp : stamps_us) {
    const bool found = std::any_of(events.begin(), events.end(), [&](const nlohmann::json& e) {
      return std::abs(e["ts"].get<double>() - (stamp - earliest_us + 1.0)) < 1.0;
    });
    EXPECT_TRUE(found) << "no event at " << std::fixed << stamp;
  }
}

// The trace is one more format of the same report: the lines the log had that are not oneDNN's
// are said on stderr as for every other format (the recorded log has 8 foreign lines).
TEST_F(ParseCliTest, TraceNotesSkippedLinesAsEveryFormatDoes) {
  const std::string log = DataPath("verbose/generated_2.6.3.txt");
  const auto trace = RunDlcheck({"parse", "--format", "trace", log});
  ASSERT_EQ(trace.exit_code, 0) << trace.err;
  EXPECT_EQ(trace.err, "dlcheck: skipped 8 of 236 lines: foreign 8\n");
  EXPECT_EQ(trace.err, RunDlcheck({"parse", "--format", "json", log}).err);
}

// Without any timestamp there is no time line: a short usage error that says how to record one.
TEST_F(ParseCliTest, TraceOfALogWithoutTimestampsIsAUsageError) {
  auto r = RunDlcheck({"parse", "--format", "trace"}, kGood + "\n" + kGood + "\n");
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_NE(r.err.find("ONEDNN_VERBOSE_TIMESTAMP=1"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  r = RunDlcheck({"parse", "--events", "--format", "trace", DataPath("verbose/real_lines.txt")});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_NE(r.err.find("--events"), std::string::npos) << r.err;
}

TEST_F(ParseCliTest, TopAndSort) {
  const std::string log = DataPath("verbose/generated_2.6.3.txt");
  auto r = RunDlcheck({"parse", "--format", "csv", "--top", "3", log});
  ASSERT_EQ(r.exit_code, 0);
  ASSERT_EQ(CsvLines(r.out).size(), 4u);
  r = RunDlcheck({"parse", "--format", "json", "--sort", "name", log});
  const auto doc = Json(r.out);
  std::string previous;
  for (const auto& row : doc["primitives"]) {
    const std::string name = row["primitive"];
    EXPECT_LE(previous, name);
    previous = name;
  }
  r = RunDlcheck({"parse", "--sort", "size", log});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
}

TEST_F(ParseCliTest, SkippedLinesAreCountedByReasonOnStderrAndInJson) {
  const std::string log = Write(
      "mixed.log", kGood + "\nsome program output\n" +
                       "onednn_verbose,exec,cpu,reorder,jit:uni,undef,x,,,8x8,nan\n" +
                       "onednn_verbose,exec,cpu,reorder,jit:uni,undef,x,,,8x8,-1\n" + kGood + "\n");
  auto r = RunDlcheck({"parse", log});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "dlcheck: skipped 3 of 5 lines: foreign 1, bad_time 2\n");
  r = RunDlcheck({"parse", "--format", "json", log});
  const auto doc = Json(r.out);
  EXPECT_EQ(doc["input"]["skipped"], 3);
  EXPECT_EQ(doc["input"]["skipped_by_reason"]["bad_time"], 2);
  EXPECT_EQ(doc["input"]["events"], 2);
}

TEST_F(ParseCliTest, StrictStopsAtTheFirstBadMarkerLine) {
  const std::string log =
      Write("strict.log", "program output is fine\n" + kGood + "\n" +
                              "onednn_verbose,exec,cpu,reorder,jit:uni,undef,x,,,8x8,1,2,3\n" +
                              kGood + "\n");
  const auto r = RunDlcheck({"parse", "--strict", log});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kStrictParse));
  EXPECT_EQ(r.err, "dlcheck: " + log + ":3: more fields than the format or template line has\n");
  EXPECT_TRUE(r.out.empty());
}

TEST_F(ParseCliTest, V1LineNotMatchingItsTemplate) {
  const std::string log = Write(
      "v1.log",
      "onednn_verbose,v1,primitive,info,template:operation,engine,primitive,implementation,"
      "prop_kind,memory_descriptors,attributes,auxiliary,problem_desc,exec_time\n"
      "onednn_verbose,v1,primitive,exec,cpu,reorder,jit:uni,undef,src:f32::blocked:ab::f0,,,x,"
      "8x8,0.5\n"
      "onednn_verbose,v1,primitive,exec,cpu,reorder,jit:uni,undef,src:f32::blocked:ab::f0,,,8x8,"
      "0.5\n");
  const auto r = RunDlcheck({"parse", "--format", "json", log});
  ASSERT_EQ(r.exit_code, 0);
  const auto doc = Json(r.out);
  EXPECT_EQ(doc["input"]["skipped_by_reason"]["field_count"], 1);
  EXPECT_EQ(doc["summary"]["execs"], 1);
}

TEST_F(ParseCliTest, MissingFileAndDirectory) {
  auto r = RunDlcheck({"parse", "/nonexistent/dlcheck.log"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(r.err, "dlcheck: cannot open '/nonexistent/dlcheck.log': No such file or directory\n");
  EXPECT_TRUE(r.out.empty());
  r = RunDlcheck({"parse", dir_.string()});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(r.err, "dlcheck: cannot read '" + dir_.string() +
                       "': it is a directory (give a log file, or - for standard input)\n");
}

TEST_F(ParseCliTest, EmptyFileSaysNothingExecuted) {
  const auto r = RunDlcheck({"parse", "--format", "json", Write("empty.log", "")});
  ASSERT_EQ(r.exit_code, 0);
  const auto doc = Json(r.out);
  EXPECT_EQ(doc["primitives"].size(), 0u);
  ASSERT_EQ(doc["findings"].size(), 1u);
  EXPECT_EQ(doc["findings"][0]["message"],
            "no oneDNN primitive executed \u2014 is ONEDNN_VERBOSE set? for oneDNN before 2.5 the "
            "variable is DNNL_VERBOSE");
}

TEST_F(ParseCliTest, BinaryGarbageCrLfAndATenMegabyteLine) {
  std::string bytes;
  for (int i = 0; i < 20000; ++i) bytes.push_back(static_cast<char>((i * 37 + 11) & 0xff));
  bytes += "\n" + kGood + "\r\n";                                  // CRLF
  bytes += "onednn_verbose," + std::string(10 << 20, 'a') + "\n";  // 10 MB line
  bytes += kGood + "\r\n";
  bytes += "onednn_verbose,exec,cpu,reorder,jit:uni,undef,\xff\xfe garbage,,,8x8,0.5\n";
  bytes += kGood.substr(0, 40);  // truncated last line
  const auto r = RunDlcheck({"parse", "--format", "json", Write("bad.log", bytes)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = Json(r.out);  // valid UTF-8 although the input was not
  EXPECT_EQ(doc["input"]["skipped_by_reason"]["too_long"], 1);
  EXPECT_EQ(doc["input"]["skipped_by_reason"]["truncated"], 1);
  EXPECT_EQ(doc["summary"]["execs"], 3);
}

TEST_F(ParseCliTest, DecimalCommaAndHardWrappedLines) {
  const std::string log =
      Write("wrapped.log",
            "mkldnn_verbose,exec,reorder,jit:uni,undef,in:f32_nChw8c "
            "out:f32_nchw,num:1,48x192x16x16,1,432\n"
            "onednn_verbose,v1,primitive,exec,cpu,reorder,jit:uni,undef,src:f16::blocked:abcd::f0 "
            "dst:f16::blocked:acdb::f0,attr-scratchpa\n"
            "d:user,,16x256x512x512,127.159\n");
  const auto r = RunDlcheck({"parse", "--format", "json", "--sort", "name", log});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = Json(r.out);
  ASSERT_EQ(doc["primitives"].size(), 2u);
  EXPECT_DOUBLE_EQ(doc["primitives"][0]["exec_ms_total"].get<double>() +
                       doc["primitives"][1]["exec_ms_total"].get<double>(),
                   1.432 + 127.159);
  EXPECT_EQ(doc["input"]["skipped"], 0);
}

TEST_F(ParseCliTest, GzippedLogIsReadLikeThePlainOne) {
  const std::string s = ReadFile(DataPath("verbose/generated_2.6.3.txt"));
  const std::string gz_path = (dir_ / "log.gz").string();
  gzFile gz = gzopen(gz_path.c_str(), "wb");
  gzwrite(gz, s.data(), static_cast<unsigned>(s.size()));
  gzclose(gz);
  const auto plain =
      RunDlcheck({"parse", "--format", "csv", DataPath("verbose/generated_2.6.3.txt")});
  const auto zipped = RunDlcheck({"parse", "--format", "csv", gz_path});
  ASSERT_EQ(zipped.exit_code, 0) << zipped.err;
  EXPECT_EQ(plain.out, zipped.out);
}

// `data` compressed with libarchive's `filter` ("xz", "zstd", "bzip2") in its raw format.
std::string Compress(const std::string& data, const std::string& filter) {
  archive* writer = archive_write_new();
  if (filter == "xz") archive_write_add_filter_xz(writer);
  if (filter == "zstd") archive_write_add_filter_zstd(writer);
  if (filter == "bzip2") archive_write_add_filter_bzip2(writer);
  archive_write_set_format_raw(writer);
  std::vector<char> out(data.size() + 65536);
  std::size_t used = 0;
  archive_write_open_memory(writer, out.data(), out.size(), &used);
  archive_entry* entry = archive_entry_new();
  archive_entry_set_filetype(entry, AE_IFREG);
  archive_write_header(writer, entry);
  archive_write_data(writer, data.data(), data.size());
  archive_write_close(writer);
  archive_entry_free(entry);
  archive_write_free(writer);
  return std::string(out.data(), used);
}

// xz, zstd and bzip2 logs read like the plain one, told by their bytes whatever their names,
// from a file or a pipe.
TEST_F(ParseCliTest, XzZstdAndBzip2LogsAreReadLikeThePlainOne) {
  const std::string plain_path = DataPath("verbose/generated_2.6.3.txt");
  const auto plain = RunDlcheck({"parse", "--format", "csv", plain_path});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  for (const char* filter : {"xz", "zstd", "bzip2"}) {
    const std::string packed = Compress(ReadFile(plain_path), filter);
    ASSERT_GT(packed.size(), 16u) << filter;
    const std::string path = Write(std::string("log-without-suffix-") + filter, packed);
    const auto from_file = RunDlcheck({"parse", "--format", "csv", path});
    ASSERT_EQ(from_file.exit_code, 0) << filter << ": " << from_file.err;
    EXPECT_EQ(from_file.out, plain.out) << filter;
    const auto from_pipe = RunDlcheck({"parse", "--format", "csv"}, packed);
    ASSERT_EQ(from_pipe.exit_code, 0) << filter << ": " << from_pipe.err;
    EXPECT_EQ(from_pipe.out, plain.out) << filter;
  }
}

// Corrupt data (a flipped byte in the middle: the CRC catches it) and cut data are input errors
// (exit 3) that name the file and the format; so is a format dlcheck cannot read. A zstd frame
// is checked only when it carries its optional checksum (the zstd tool writes one, libarchive's
// writer here does not), so only its cut data is tested.
TEST_F(ParseCliTest, CorruptCutAndUnreadableCompressedLogsAreInputErrors) {
  const std::string text = ReadFile(DataPath("verbose/generated_2.6.3.txt"));
  for (const char* filter : {"xz", "zstd", "bzip2"}) {
    std::string packed = Compress(text, filter);
    if (std::string(filter) != "zstd") {
      std::string corrupt = packed;
      corrupt[corrupt.size() / 2] = static_cast<char>(corrupt[corrupt.size() / 2] ^ 0x55);
      const std::string bad = Write(std::string("corrupt.") + filter, corrupt);
      const auto r = RunDlcheck({"parse", "--format", "csv", bad});
      EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError)) << filter << ": " << r.err;
      EXPECT_NE(r.err.find("dlcheck: cannot read '" + bad + "': corrupt or cut " +
                           std::string(filter) + " data"),
                std::string::npos)
          << filter << ": " << r.err;
    }
    const std::string cut =
        Write(std::string("cut.") + filter, packed.substr(0, packed.size() / 2));
    const auto c = RunDlcheck({"parse", "--format", "csv", cut});
    EXPECT_EQ(c.exit_code, ToInt(ExitCode::kInputError)) << filter << ": " << c.err;
    EXPECT_NE(c.err.find("dlcheck: cannot read '" + cut + "': corrupt or cut " +
                         std::string(filter) + " data"),
              std::string::npos)
        << filter << ": " << c.err;
  }
  // lz4 frame magic (04 22 4d 18): a compressed format dlcheck does not read.
  const std::string lz4 = Write("log.lz4", std::string("\x04\x22\x4d\x18\x64\x40\xa7", 7));
  const auto r = RunDlcheck({"parse", lz4});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(r.err, "dlcheck: cannot read '" + lz4 +
                       "': it holds lz4 data; dlcheck reads plain, gzip, xz, zstd and bzip2 logs "
                       "(decompress it first and give the text, or - with the text on standard "
                       "input)\n");
}

TEST_F(ParseCliTest, ScalarFallbackFinding) {
  const auto r = RunDlcheck({"parse", "--format", "json", DataPath("verbose/generated_2.6.3.txt")});
  const auto doc = Json(r.out);
  bool found = false;
  for (const auto& f : doc["findings"]) {
    if (f["code"] == "scalar-fallback") {
      found = true;
      // Together 0.2% of the execution time: said, not warned of (issue 35).
      EXPECT_EQ(f["severity"], "info");
      EXPECT_EQ(
          f["message"].get<std::string>().rfind("5 primitives ran scalar reference code: ", 0), 0u)
          << f["message"];
    }
  }
  EXPECT_TRUE(found);
}

// Property through the binary: the aggregates (which take the repeated-line fast path) count the
// same execs and creates per (primitive, implementation) as the events (which parse every line).
TEST_F(ParseCliTest, AggregatesAgreeWithEventsOnARepeatedLog) {
  std::string log;
  for (const char* name :
       {"verbose/generated_2.6.3.txt", "verbose/torch_cnn_2.6.3.log", "verbose/real_lines.txt"}) {
    const std::string text = ReadFile(DataPath(name));
    for (int i = 0; i < 7; ++i) log += text;
  }
  const std::string path = Write("repeated.log", log);
  const auto agg = RunDlcheck({"parse", "--format", "json", path});
  const auto events = RunDlcheck({"parse", "--events", "--format", "json", path});
  ASSERT_EQ(agg.exit_code, 0);
  ASSERT_EQ(events.exit_code, 0);
  // primitive implementation -> creates, execs, nested creates
  std::map<std::string, std::tuple<int, int, int>> from_rows, from_events;
  const auto agg_doc = Json(agg.out);
  const auto events_doc = Json(events.out);
  for (const auto& row : agg_doc["primitives"]) {
    auto& c = from_rows[row["primitive"].get<std::string>() + " " + row["implementation"].dump()];
    std::get<0>(c) += row["creates"].get<int>();
    std::get<1>(c) += row["execs"].get<int>();
    std::get<2>(c) += row["nested_creates"].get<int>();
  }
  for (const auto& e : events_doc["events"]) {
    if (e["operation"] == "diagnostic") continue;
    auto& c = from_events[e["primitive"].get<std::string>() + " " + e["implementation"].dump()];
    (e["operation"] == "exec"            ? std::get<1>(c)
     : e["operation"] == "create_nested" ? std::get<2>(c)
                                         : std::get<0>(c)) += 1;
  }
  EXPECT_EQ(from_rows, from_events);
  EXPECT_FALSE(from_rows.empty());
}

// oneDNN Graph partitions are rows beside the primitives, their op names the layer column, in
// every format; pattern-matcher lines are one summary count and one finding, never rows.
TEST_F(ParseCliTest, GraphPartitionsAreRowsInEveryFormat) {
  std::string log;
  std::ifstream in(DataPath("verbose/graph_lines.txt"));
  std::uint64_t raw_exec_lines = 0, raw_pattern_lines = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("#")) continue;
    const bool exec = line.find("graph,exec,") != std::string::npos ||
                      line.find("graph_verbose,exec,") != std::string::npos;
    const int copies = exec ? 5 : 1;
    for (int k = 0; k < copies; ++k) log += line + "\n";
    if (exec) raw_exec_lines += copies;
    if (line.find("pattern_matcher") != std::string::npos) ++raw_pattern_lines;
  }
  const std::string path = Write("graph.log", log);
  const auto json = RunDlcheck({"parse", "--format", "json", path});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = Json(json.out);
  std::uint64_t partition_execs = 0;
  std::set<std::string> layers;
  for (const auto& row : doc["primitives"]) {
    if (!row["problem"].is_string()) continue;
    if (!row["problem"].get<std::string>().starts_with("partition:")) continue;
    partition_execs += row["execs"].get<std::uint64_t>();
    if (row["layer"].is_string()) layers.insert(row["layer"].get<std::string>());
  }
  EXPECT_EQ(partition_execs, raw_exec_lines);
  EXPECT_EQ(layers, (std::set<std::string>{"CONV_0;BINARY_1", "CONV_0;ELTWISE_1"}));
  EXPECT_EQ(doc["summary"]["graph_pattern_matcher_lines"].get<std::uint64_t>(), raw_pattern_lines);
  bool finding = false;
  for (const auto& f : doc["findings"]) finding = finding || f["code"] == "graph-pattern-matcher";
  EXPECT_TRUE(finding);
  const auto csv = RunDlcheck({"parse", "--format", "csv", path});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  EXPECT_TRUE(CsvLines(csv.out).at(0).ends_with(",gflops,benchdnn,skipped,library,layer"));
  EXPECT_EQ(CsvLines(csv.out).size() - 1, doc["primitives"].size());
  const auto table = RunDlcheck({"parse", path});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("convolution_post_ops"), std::string::npos);
  EXPECT_NE(table.out.find("CONV_0;ELTWISE_1"), std::string::npos);
  EXPECT_NE(table.out.find("pattern-matcher"), std::string::npos);
}

// create_nested (oneDNN 3.3+) has its own count and time in every format, apart from creates.
TEST_F(ParseCliTest, NestedCreationIsReportedApartInEveryFormat) {
  const std::string log = DataPath("verbose/formats_3.13.1.txt");
  const auto json = RunDlcheck({"parse", "--format", "json", log});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = Json(json.out);
  EXPECT_EQ(doc["summary"]["nested_creates"], 1);
  EXPECT_NEAR(doc["summary"]["nested_create_ms"].get<double>(), 0.3889, 0.00005);
  int nested_rows = 0;
  for (const auto& row : doc["primitives"]) {
    if (row["nested_creates"] == 1) {
      ++nested_rows;
      EXPECT_EQ(row["creates"], 0);
      EXPECT_EQ(row["create_ms"], 0);
    }
  }
  EXPECT_EQ(nested_rows, 1);
  const auto csv = RunDlcheck({"parse", "--format", "csv", "--sort", "creates", log});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  bool found = false;
  for (const std::string& line : CsvLines(csv.out)) {
    found = found || line.find(",0,0,0.0000,1,0.3889,") != std::string::npos;
  }
  EXPECT_TRUE(found) << csv.out;
  const auto table = RunDlcheck({"parse", log});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("nested_creates"), std::string::npos);
  EXPECT_NE(table.out.find("nested_create_ms"), std::string::npos);
}

}  // namespace
}  // namespace dlcheck

namespace dlcheck {
namespace {

// `parse --jobs N` gives the report of one thread, byte for byte, in every format that prints the
// rows, their first lines, the skipped-line counts or the timeline: on every log of
// tests/data/verbose, twice over, cut into chunks of a few bytes (DLCHECK_PARSE_CHUNK, which
// also lowers the least size read in parallel from 64 MiB).
TEST_F(ParseCliTest, JobsGiveTheReportOfOneThread) {
  for (const auto& entry : fs::directory_iterator(DataPath("verbose"))) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".log" && ext != ".txt") continue;
    const std::string text = ReadFile(entry.path().string());
    const std::string log = Write(entry.path().filename().string(), text + text);
    for (const char* format : {"json", "csv", "trace"}) {
      const auto one = RunDlcheck({"parse", "--format", format, "--jobs", "1", log});
      for (const char* chunk : {"1", "1500"}) {
        const auto many = RunDlcheck({"parse", "--format", format, "-j", "3", log}, {},
                                     {std::string("DLCHECK_PARSE_CHUNK=") + chunk});
        const std::string what = log + " " + format + " in chunks of " + chunk;
        EXPECT_EQ(many.exit_code, one.exit_code) << what;
        EXPECT_EQ(many.out, one.out) << what;
        EXPECT_EQ(many.err, one.err) << what;
      }
    }
  }
}

TEST_F(ParseCliTest, JobsMustBeAPositiveCount) {
  const std::string log = DataPath("verbose/torch_cnn_2.6.3.log");
  for (const char* jobs : {"0", "-2", "many"}) {
    const auto r = RunDlcheck({"parse", "--jobs", jobs, log});
    EXPECT_EQ(r.exit_code, static_cast<int>(ExitCode::kUsage)) << jobs;
    EXPECT_NE(r.err.find("--jobs"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace dlcheck
