// SPDX-License-Identifier: Apache-2.0
// A whole parse in-process, over strings: the session `dlcheck parse`, the worker capture and the
// fuzz target drive (joining, the memo, --strict, header merge, layers, skip counts).
#include "verbose/log_session.h"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "verbose/fixture_lines.h"
#include "verbose/line_parser.h"
#include "verbose/line_reader.h"

namespace dlcheck::verbose {
namespace {

const std::string kExec =
    "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
    "dst_f32::blocked:ba:f0,,,8x8,";

void FeedAll(LogSession& session, const std::vector<std::string>& lines,
             const std::string& name = "<test>") {
  session.StartInput(name);
  std::uint64_t n = 0;
  for (const auto& line : lines) {
    if (!session.Feed(line, ++n)) break;
  }
  session.Finish();
}

// Everything a row adds up, in order.
std::vector<std::string> RowTexts(const Aggregator& aggregator) {
  std::vector<std::string> out;
  for (const PrimitiveStats& r : aggregator.rows()) {
    out.push_back(
        std::string(r.LayerOr("-")) + " " + r.primitive + " " + r.implementation + " " + r.problem +
        " creates=" + std::to_string(r.creates) + " hits=" + std::to_string(r.cache_hits) +
        " execs=" + std::to_string(r.execs) + " timed=" + std::to_string(r.timed_execs) +
        " total=" + std::to_string(r.exec_ms_total) + " min=" + std::to_string(r.exec_ms_min) +
        " max=" + std::to_string(r.exec_ms_max) + " create_ms=" + std::to_string(r.create_ms));
  }
  return out;
}

// Each event a listener sees, parsed or repeated: its row, time and timestamp.
struct EventTrail : EventListener {
  void OnEvent(const VerboseEvent& e, std::size_t row) override {
    Add(row, e.time_ms.value_or(-1), e.timestamp);
  }
  void OnRepeat(const LineMemo::Entry& repeat, double ms, std::optional<double> ts) override {
    Add(repeat.row, ms, ts);
  }
  void Add(std::size_t row, double ms, std::optional<double> ts) {
    seen.push_back(std::to_string(row) + "@" + std::to_string(ms) + "/" +
                   (ts ? std::to_string(*ts) : "-"));
  }
  std::vector<std::string> seen;
};

// The memo changes how fast, never what: every log of tests/data/verbose, three times over, gives
// the same rows, counts, header and listener calls with the memo as without it.
TEST(LogSessionTest, TheMemoGivesWhatFullParsingGives) {
  for (const std::string& file : testing::EveryLog()) {
    std::vector<std::string> log;
    for (int round = 0; round < 3; ++round) {
      for (auto& line : testing::FixtureLines(file)) log.push_back(std::move(line));
    }
    LogSession fast({.memo = true});
    LogSession full({.memo = false});
    EventTrail fast_seen, full_seen;
    fast.AddListener(&fast_seen);
    full.AddListener(&full_seen);
    FeedAll(fast, log);
    FeedAll(full, log);
    EXPECT_EQ(RowTexts(fast.aggregator()), RowTexts(full.aggregator())) << file;
    EXPECT_EQ(fast_seen.seen, full_seen.seen) << file;
    EXPECT_EQ(fast.header(), full.header()) << file;
    EXPECT_EQ(fast.stats().lines, log.size()) << file;
    EXPECT_EQ(fast.stats().events, full.stats().events) << file;
    EXPECT_EQ(fast.stats().info_lines, full.stats().info_lines) << file;
    EXPECT_EQ(fast.stats().skipped, full.stats().skipped) << file;
    EXPECT_GT(fast.stats().events, 0u) << file;
  }
}

// `<digits>.<digits>` after the marker (and its `v1`), replaced by `stamp`; other lines as
// they are.
std::string Restamp(const std::string& line, double stamp) {
  std::size_t begin = 0, end = 0;
  std::optional<double> old;
  if (!FindTimestampField(line, begin, end, old)) return line;
  return line.substr(0, begin) + std::to_string(stamp) + "," + line.substr(end);
}

// The memo keys timestamped lines without their timestamp, and gives every listener what full
// parsing gives: the same rows, and the same events with the same timestamps, in every era
// that has timestamps (2.x, 3.3+ with the api field, 3.6+ after `v1`).
TEST(LogSessionTest, TheMemoGivesWhatFullParsingGivesOnTimestampedLogs) {
  const std::vector<std::string> eras = {
      // 3.3-3.5: the timestamp before the api field (FORMATS.md, era E).
      "onednn_verbose,1795312886954.178955,primitive,exec,cpu,reorder,jit:uni,undef,"
      "src_f32::blocked:ab::f0 dst_f32::blocked:ba::f0,,,8x8,0.25"};
  std::vector<std::string> files = testing::EveryLog();
  files.push_back("");
  for (const std::string& file : files) {
    const std::vector<std::string> base = !file.empty() ? testing::FixtureLines(file) : eras;
    std::vector<std::string> log;
    double stamp = 1795000000000.0;
    for (int round = 0; round < 4; ++round) {
      for (const auto& line : base) log.push_back(Restamp(line, stamp += 0.125));
    }
    LogSession fast({.memo = true});
    LogSession full({.memo = false});
    EventTrail fast_seen, full_seen;
    fast.AddListener(&fast_seen);
    full.AddListener(&full_seen);
    FeedAll(fast, log);
    FeedAll(full, log);
    EXPECT_EQ(RowTexts(fast.aggregator()), RowTexts(full.aggregator())) << file;
    EXPECT_EQ(fast_seen.seen, full_seen.seen) << file;
    EXPECT_EQ(fast.stats().events, full.stats().events) << file;
    EXPECT_EQ(fast.stats().skipped, full.stats().skipped) << file;
    EXPECT_GT(fast.stats().events, 0u) << file;
  }
}

// Timestamped repeats take the fast path: listeners hear them through OnRepeat, each with its
// own timestamp.
TEST(LogSessionTest, TimestampedRepeatsAreMemoHitsWithTheirOwnTimestamps) {
  struct Seen : EventListener {
    void OnEvent(const VerboseEvent& e, std::size_t) override {
      parsed.push_back(e.timestamp.value_or(-1));
    }
    void OnRepeat(const LineMemo::Entry&, double, std::optional<double> ts) override {
      repeated.push_back(ts.value_or(-1));
    }
    std::vector<double> parsed, repeated;
  } seen;
  LogSession session;
  session.AddListener(&seen);
  const std::string head = "onednn_verbose,v1,";
  const std::string tail =
      ",primitive,exec,cpu,reorder,jit:uni,undef,src:f32::blocked:ab::f0 "
      "dst:f32::blocked:ba::f0,,,8x8,0.5";
  FeedAll(session, {head + "1000.5" + tail, head + "1001.25" + tail, head + "1002.75" + tail});
  EXPECT_EQ(seen.parsed, (std::vector<double>{1000.5}));
  EXPECT_EQ(seen.repeated, (std::vector<double>{1001.25, 1002.75}));
  ASSERT_EQ(session.aggregator().rows().size(), 1u);
  EXPECT_EQ(session.aggregator().rows()[0].execs, 3u);
}

TEST(LogSessionTest, CountsEveryLineByOutcome) {
  LogSession session;
  FeedAll(session, {"onednn_verbose,info,oneDNN v2.6.3 (commit N/A)", kExec + "1", "hello", "",
                    kExec + "2", "hello", "onednn_verbose,exec,cpu,reorder", kExec + "x"});
  session.StartInput("second");
  session.FeedTooLong(1);
  session.Finish();
  const ParseStats& s = session.stats();
  EXPECT_EQ(s.lines, 9u);
  EXPECT_EQ(s.events, 2u);
  EXPECT_EQ(s.info_lines, 1u);
  EXPECT_EQ(s.skipped, (std::map<SkipReason, std::uint64_t>{{SkipReason::kForeign, 2},
                                                            {SkipReason::kTruncated, 1},
                                                            {SkipReason::kBadTime, 1},
                                                            {SkipReason::kTooLong, 1}}));
  EXPECT_EQ(s.Skipped(), 5u);
  ASSERT_EQ(session.aggregator().rows().size(), 1u);
  EXPECT_DOUBLE_EQ(session.aggregator().rows()[0].exec_ms_total, 3);
}

TEST(LogSessionTest, RejoinsALineWrappedByTheTerminal) {
  const std::string line = testing::FixtureLine("generated_2.6.3.txt", "exec,cpu,convolution");
  LogSession session;
  FeedAll(session, {line.substr(0, 80), line.substr(80), line});
  EXPECT_EQ(session.stats().events, 2u);
  EXPECT_EQ(session.stats().Skipped(), 0u);
  ASSERT_EQ(session.aggregator().rows().size(), 1u);
  EXPECT_EQ(session.aggregator().rows()[0].execs, 2u);
  EXPECT_EQ(session.aggregator().rows()[0].first_line, 1u);
}

TEST(LogSessionTest, StrictStopsAtTheFirstBadMarkerLineWithItsPlace) {
  LogSession session({.strict = true});
  FeedAll(session, {"some program output", kExec + "1", kExec + "-1", kExec + "2"}, "run.log");
  EXPECT_TRUE(session.stopped());
  EXPECT_EQ(session.strict_error(),
            "run.log:3: " + std::string(SkipReasonText(SkipReason::kBadTime)));
  EXPECT_EQ(session.stats().lines, 3u);  // the fourth line was refused
  EXPECT_FALSE(session.Feed(kExec + "4", 5));
  EXPECT_EQ(session.aggregator().rows()[0].execs, 1u);
}

TEST(LogSessionTest, HeadersMergeOverInputsAndTheSummaryNamesTheIsa) {
  LogSession session;
  FeedAll(session, {"onednn_verbose,info,oneDNN v2.6.3 (commit N/A)"}, "a.log");
  FeedAll(
      session,
      {"onednn_verbose,info,oneDNN v3.0.0 (commit N/A)", "onednn_verbose,info,cpu,isa:Intel AVX2",
       "onednn_verbose,info,prim_template:operation,engine,primitive,implementation,"
       "prop_kind,memory_descriptors,attributes,auxiliary,problem_desc,exec_time",
       "onednn_verbose,exec,cpu,eltwise,jit:uni,forward_training,data_f32::blocked:ab:f0 "
       "diff_undef::undef:::f0,,alg:eltwise_relu alpha:0 beta:0,8x8,0.5"},
      "b.log");
  const LogHeader header = session.header();
  EXPECT_EQ(header.library_version, "oneDNN v2.6.3 (commit N/A)");  // the first input's
  EXPECT_EQ(header.isa_short, "avx2");                              // the second's
  bool named = false;
  for (const Finding& n : session.Summarize().notes) {
    if (n.code == "isa-inferred") {
      named = true;
      EXPECT_NE(n.message.find("(avx2)"), std::string::npos) << n.message;
    }
  }
  EXPECT_TRUE(named);
}

TEST(LogSessionTest, LayersSplitRowsAndTheMemoTellsThemApart) {
  LogSession session;
  session.StartInput("<worker>");
  std::uint64_t n = 0;
  for (int step = 0; step < 3; ++step) {
    session.SetLayer("fc1");
    session.Feed(kExec + "1", ++n);
    session.SetLayer("fc2");
    session.Feed(kExec + "2", ++n);
    session.SetLayer("");
    session.Feed(kExec + "4", ++n);
  }
  session.Finish();
  EXPECT_EQ(RowTexts(session.aggregator()),
            (std::vector<std::string>{
                "fc1 reorder jit:uni 8x8 creates=0 hits=0 execs=3 timed=3 total=3.000000 "
                "min=1.000000 max=1.000000 create_ms=0.000000",
                "fc2 reorder jit:uni 8x8 creates=0 hits=0 execs=3 timed=3 total=6.000000 "
                "min=2.000000 max=2.000000 create_ms=0.000000",
                "- reorder jit:uni 8x8 creates=0 hits=0 execs=3 timed=3 total=12.000000 "
                "min=4.000000 max=4.000000 create_ms=0.000000"}));
}

// A file through the reader: over-long lines are counted, the rest parsed, the header merged.
TEST(LogSessionTest, FeedAllReadsAFileThroughTheReader) {
  const std::string path = ::testing::TempDir() + "log_session_feed_all.log";
  {
    std::ofstream out(path, std::ios::binary);
    out << "onednn_verbose,info,cpu,isa:Intel AVX2\n"
        << kExec << "1\n"
        << std::string(300, 'x') << "\n"
        << kExec << "2\n";
  }
  LineReader reader;
  ASSERT_TRUE(reader.Open(path, 128).ok());
  LogSession session;
  EXPECT_TRUE(session.FeedAll(reader, "f.log").ok());
  EXPECT_EQ(session.stats().lines, 4u);
  EXPECT_EQ(session.stats().events, 2u);
  EXPECT_EQ(session.stats().skipped,
            (std::map<SkipReason, std::uint64_t>{{SkipReason::kTooLong, 1}}));
  EXPECT_EQ(session.header().isa_short, "avx2");
  std::remove(path.c_str());
}

// Every row with where it was first seen, and what it adds up, in order.
std::vector<std::string> RowsWithFirstLines(const Aggregator& aggregator) {
  std::vector<std::string> out = RowTexts(aggregator);
  for (std::size_t i = 0; i < out.size(); ++i) {
    out[i] += " first=" + std::to_string(aggregator.rows()[i].first_line);
  }
  return out;
}

// The time field of round `round`'s line `index` in one of the forms logs hold: oneDNN's own
// (`%g`), an integer, more digits than a double holds, an exponent, a point with no digits,
// followed by blanks or a CR (CRLF logs).
std::string VariedTime(const std::string& time, int round, std::size_t index) {
  static const std::vector<std::string> kForms = {"0.0119629",
                                                  "2.04199",
                                                  "7",
                                                  "0.00012345678901234567",
                                                  "1e-3",
                                                  "5.",
                                                  "12345678.5",
                                                  "0.000976562",
                                                  "123456789012345",
                                                  "1234567890123456",
                                                  "0.12345678901234"};
  if (round == 0) return time;
  const std::string& form = kForms[(index * 7 + static_cast<std::size_t>(round)) % kForms.size()];
  switch ((index + static_cast<std::size_t>(round)) % 5) {
    case 0:
      return form + " ";
    case 1:
      return form + "\r";
    case 2:
      return time;
    default:
      return form;
  }
}

// Lines taken in place from the reader's buffer (FeedPredicted: compared with the predicted line
// where they lie, their time read there) give what parsing every line gives: the same rows with
// the same first lines, the same listener calls, counts and skips, on every log of tests/data,
// timestamped afresh on every line, with repeated lines that differ only in their time and
// timestamp, times in every form, blanks and CRs at line ends, and lines over the reader's cap.
TEST(LogSessionTest, LinesTakenInPlaceGiveWhatFullParsingGives) {
  for (const std::string& file : testing::EveryLog()) {
    const std::vector<std::string> base = testing::FixtureLines(file);
    const std::string path = ::testing::TempDir() + "log_session_in_place.log";
    {
      std::ofstream out(path, std::ios::binary);
      double stamp = 1795000000000.0;
      for (int round = 0; round < 6; ++round) {
        for (std::size_t i = 0; i < base.size(); ++i) {
          std::string line = Restamp(base[i], stamp += 0.05);
          const std::size_t comma = line.rfind(',');
          if (comma != std::string::npos && comma + 1 < line.size() &&
              std::isdigit(static_cast<unsigned char>(line[comma + 1])) != 0) {
            line = line.substr(0, comma + 1) + VariedTime(line.substr(comma + 1), round, i);
          }
          out << line << "\n";
        }
      }
    }
    LogSession fast({.memo = true});
    LogSession full({.memo = false});
    EventTrail fast_seen, full_seen;
    fast.AddListener(&fast_seen);
    full.AddListener(&full_seen);
    for (LogSession* session : {&fast, &full}) {
      LineReader reader;
      ASSERT_TRUE(reader.Open(path, 400).ok());
      EXPECT_TRUE(session->FeedAll(reader, "log").ok());
    }
    EXPECT_EQ(RowsWithFirstLines(fast.aggregator()), RowsWithFirstLines(full.aggregator())) << file;
    EXPECT_EQ(fast_seen.seen, full_seen.seen) << file;
    EXPECT_EQ(fast.stats().lines, full.stats().lines) << file;
    EXPECT_EQ(fast.stats().events, full.stats().events) << file;
    EXPECT_EQ(fast.stats().skipped, full.stats().skipped) << file;
    EXPECT_GT(fast.stats().events, 0u) << file;
    std::remove(path.c_str());
  }
}

// FeedPredicted takes the lines the memo predicts, whole lines only, and stops at the first it
// does not: a new line, a line not yet ended, a time it does not read in place.
TEST(LogSessionTest, FeedPredictedTakesPredictedLinesUpToTheFirstOther) {
  struct Seen : EventListener {
    void OnEvent(const VerboseEvent&, std::size_t) override {}
    void OnRepeat(const LineMemo::Entry&, double ms, std::optional<double> ts) override {
      repeated.push_back(std::to_string(ms) + "/" + (ts ? std::to_string(*ts) : "-"));
    }
    std::vector<std::string> repeated;
  } seen;
  const std::string head = "onednn_verbose,v1,";
  const std::string a =
      ",primitive,exec,cpu,reorder,jit:uni,undef,src:f32::blocked:ab::f0 "
      "dst:f32::blocked:ba::f0,,,8x8,";
  const std::string b =
      ",primitive,exec,cpu,reorder,jit:uni,undef,src:f32::blocked:ab::f0 "
      "dst:f32::blocked:ba::f0,,,16x16,";
  LogSession session;
  session.AddListener(&seen);
  session.StartInput("log");
  std::uint64_t n = 0;
  for (const std::string& line : {head + "1000.5" + a + "0.5", head + "1001.5" + b + "0.25",
                                  head + "1002.5" + a + "0.5", head + "1003.5" + b + "0.25"}) {
    session.Feed(line, ++n);
  }
  const std::string taken =
      head + "1004.5" + a + "0.125\n" + head + "1005.25" + b + "2.5 \r\n" + head + "1006.5" + a;
  std::uint64_t lines = 0;
  const std::string text = taken + "1e-3\n" + head + "1007.5" + b + "1\n";
  EXPECT_EQ(session.FeedPredicted(text, 1024, lines), taken.size() - (head + "1006.5" + a).size());
  EXPECT_EQ(lines, 2u);
  EXPECT_EQ(session.FeedPredicted(head + "1006.5" + a + "0.5", 1024, lines), 0u);  // no '\n' yet
  EXPECT_EQ(lines, 0u);
  EXPECT_EQ(seen.repeated,
            (std::vector<std::string>{"0.500000/1002.500000", "0.250000/1003.500000",
                                      "0.125000/1004.500000", "2.500000/1005.250000"}));
  EXPECT_EQ(session.stats().lines, 6u);
  ASSERT_EQ(session.aggregator().rows().size(), 2u);
  EXPECT_EQ(session.aggregator().rows()[0].execs, 3u);
  EXPECT_EQ(session.aggregator().rows()[1].execs, 3u);
  session.Finish();
}

// Listeners see every event, parsed or repeated, with the row it went to.
TEST(LogSessionTest, ListenersSeeRepeatsToo) {
  struct Seen : EventListener {
    void OnEvent(const VerboseEvent& e, std::size_t row) override {
      parsed.push_back(std::to_string(e.line) + "->" + std::to_string(row));
    }
    void OnRepeat(const LineMemo::Entry& repeat, double ms, std::optional<double>) override {
      repeated.push_back(std::to_string(repeat.row) + "@" + std::to_string(ms));
    }
    std::vector<std::string> parsed, repeated;
  } seen;
  LogSession session;
  session.AddListener(&seen);
  FeedAll(session, {kExec + "1", kExec + "2", kExec + "3"});
  EXPECT_EQ(seen.parsed, (std::vector<std::string>{"1->0"}));
  EXPECT_EQ(seen.repeated, (std::vector<std::string>{"0@2.000000", "0@3.000000"}));
}

}  // namespace
}  // namespace dlcheck::verbose

namespace dlcheck::verbose {
namespace {

// A log built from the real graph lines, each repeated (a model runs its partitions many
// times): every partition row counts what a count of its raw lines gives, pattern-matcher lines
// are counted once in the summary and never become rows or diagnostics.
TEST(LogSessionTest, GraphPartitionsAreRowsCountedLikeTheirRawLines) {
  std::vector<std::string> log;
  for (const std::string& line : testing::FixtureLines("graph_lines.txt")) {
    if (line.starts_with("#")) continue;
    const int copies = line.find(",exec,") != std::string::npos            ? 7
                       : line.find("pattern_matcher") != std::string::npos ? 250
                                                                           : 1;
    for (int k = 0; k < copies; ++k) log.push_back(line);
  }
  std::map<std::string, std::uint64_t> raw_execs;  // partition id -> exec lines
  std::map<std::string, std::uint64_t> raw_creates;
  std::uint64_t raw_pattern_lines = 0;
  for (const std::string& line : log) {
    if (line.find("pattern_matcher") != std::string::npos) ++raw_pattern_lines;
    if (line.find("graph") == std::string::npos) continue;
    for (const char* id : {",100006,", ",18446744073709551615,"}) {
      if (line.find(id) == std::string::npos) continue;
      if (line.find(",exec,") != std::string::npos) ++raw_execs[id];
      if (line.find(",compile:") != std::string::npos) ++raw_creates[id];
    }
  }
  for (const bool memo : {true, false}) {
    LogSession session({.memo = memo});
    FeedAll(session, log);
    std::map<std::string, std::uint64_t> execs;
    std::map<std::string, std::uint64_t> creates;
    for (const PrimitiveStats& row : session.aggregator().rows()) {
      if (!row.problem.starts_with("partition:")) continue;
      const std::string id = "," + std::string(row.problem.view().substr(10)) + ",";
      if (row.execs > 0) execs[id] += row.execs;
      if (row.creates > 0) creates[id] += row.creates;
    }
    EXPECT_EQ(execs, raw_execs) << "memo " << memo;
    EXPECT_EQ(creates, raw_creates) << "memo " << memo;
    const Summary summary = session.Summarize();
    EXPECT_EQ(summary.graph_dispatch, raw_pattern_lines);
    for (const DiagnosticStats& d : session.aggregator().diagnostics()) {
      EXPECT_NE(d.primitive, "pattern_matcher") << d.message;
    }
    bool finding = false;
    for (const Finding& f : summary.notes) finding = finding || f.code == "graph-pattern-matcher";
    EXPECT_TRUE(finding);
  }
}

}  // namespace
}  // namespace dlcheck::verbose

namespace dlcheck::verbose {
namespace {

// create_nested lines (3.3+) are counted apart: their own count and time per row and in the
// summary, never in creates or create_ms (the parent's create time already holds them).
TEST(LogSessionTest, NestedCreationIsCountedApart) {
  // source: oneDNN v3.13.1 [gen 3.13.1] (formats_3.13.1.txt) and uxlfoundation/oneDNN#5089
  const std::string nested =
      testing::FixtureLine("formats_3.13.1.txt", "create_nested:cache_miss,cpu,matmul");
  const std::string nested_5089 =
      testing::FixtureLine("real_lines.txt", "create_nested:cache_miss,cpu,matmul");
  const std::string create =
      testing::FixtureLine("formats_3.13.1.txt", "create:cache_miss,cpu,matmul,gemm:jit:f32");
  std::vector<std::string> log;
  for (int k = 0; k < 3; ++k) log.insert(log.end(), {nested, nested_5089, create});
  for (const bool memo : {true, false}) {
    LogSession session({.memo = memo});
    FeedAll(session, log);
    const auto& rows = session.aggregator().rows();
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(rows[0].nested_creates, 3u);
    EXPECT_EQ(rows[0].creates, 0u);
    EXPECT_DOUBLE_EQ(rows[0].nested_create_ms, 3 * 0.388916);
    EXPECT_DOUBLE_EQ(rows[0].create_ms, 0);
    EXPECT_EQ(rows[1].nested_creates, 3u);
    EXPECT_DOUBLE_EQ(rows[1].nested_create_ms, 3 * 0.526123);
    EXPECT_EQ(rows[2].creates, 3u);
    EXPECT_EQ(rows[2].nested_creates, 0u);
    EXPECT_DOUBLE_EQ(rows[2].create_ms, 3 * 0.0148926);
    const Summary s = session.Summarize();
    EXPECT_EQ(s.creates, 3u);
    EXPECT_EQ(s.nested_creates, 6u);
    EXPECT_DOUBLE_EQ(s.create_ms, 3 * 0.0148926);
    EXPECT_NEAR(s.nested_create_ms, 3 * (0.388916 + 0.526123), 1e-9);
  }
}

}  // namespace
}  // namespace dlcheck::verbose

namespace dlcheck::verbose {
namespace {

// Beyond kMaxRows distinct primitives, events go to one `other` row with a finding: the rows
// stop growing, and no event is lost (the execs over the rows equal the exec lines).
TEST(LogSessionTest, DistinctRowsAreBoundedWithAnOtherRow) {
  const std::size_t extra = 25;
  const std::size_t distinct = kMaxRows + extra;
  LogSession session;
  session.StartInput("<shapes>");
  std::uint64_t number = 0;
  for (int pass = 0; pass < 2; ++pass) {  // the second pass repeats every line (the memo)
    for (std::size_t shape = 0; shape < distinct; ++shape) {
      session.Feed(kExec.substr(0, kExec.find(",8x8,")) + "," + std::to_string(shape) + "x8,0.5",
                   ++number);
    }
  }
  session.Finish();
  const auto& rows = session.aggregator().rows();
  ASSERT_EQ(rows.size(), kMaxRows + 1);
  EXPECT_EQ(rows.back().primitive, "other");
  EXPECT_EQ(rows.back().execs, 2 * extra);
  std::uint64_t execs = 0;
  for (const PrimitiveStats& row : rows) execs += row.execs;
  EXPECT_EQ(execs, 2 * distinct);
  const Summary s = session.Summarize();
  EXPECT_EQ(s.other_events, 2 * extra);
  bool finding = false;
  for (const Finding& f : s.notes) finding = finding || f.code == "row-limit";
  EXPECT_TRUE(finding);
}

// Rows of long texts (a line may be 1 MiB) stop at the rows' text budget, before kMaxRows: the
// pool takes at most the budget and one row more, and the later primitives go to `other`.
TEST(LogSessionTest, DistinctRowsOfLongTextsAreBoundedByTheirBytes) {
  const std::string long_text(256 << 10, 'z');
  const std::size_t lines = 2 * (kMaxRowTextBytes / long_text.size());
  const std::size_t pool_before = InternedText::PoolBytes();
  LogSession session;
  std::uint64_t number = 0;
  for (std::size_t i = 0; i < lines; ++i) {
    session.Feed(
        "onednn_verbose,exec,cpu,eltwise,jit:avx2,forward_training,data_f32::blocked:a:f0,"
        "attr-post-ops:" +
            std::to_string(i) + long_text + ",alg:eltwise_relu,8,0.5",
        ++number);
  }
  session.Finish();
  const auto& rows = session.aggregator().rows();
  ASSERT_LT(rows.size(), lines);
  EXPECT_EQ(rows.back().primitive, "other");
  EXPECT_LE(InternedText::PoolBytes() - pool_before, kMaxRowTextBytes + 2 * long_text.size());
  std::uint64_t execs = 0;
  for (const PrimitiveStats& row : rows) execs += row.execs;
  EXPECT_EQ(execs, lines);
  EXPECT_EQ(session.Summarize().other_events, lines - (rows.size() - 1));
}

// A diagnostic keeps its first kMaxDiagnosticText bytes: messages that differ only after them
// are one row, counted twice.
TEST(LogSessionTest, LongDiagnosticsAreCut) {
  const std::string head = "onednn_verbose,v1,primitive,create:dispatch,convolution,cpu,x64:gemm,";
  const std::string message(3 * kMaxDiagnosticText, 'm');
  LogSession session;
  session.Feed(head + message + "1", 1);
  session.Feed(head + message + "2", 2);
  session.Finish();
  const auto& diagnostics = session.aggregator().diagnostics();
  ASSERT_EQ(diagnostics.size(), 1u);
  EXPECT_EQ(diagnostics[0].count, 2u);
  EXPECT_EQ(diagnostics[0].message.size(), kMaxDiagnosticText + 3);
  EXPECT_TRUE(diagnostics[0].message.ends_with("mmm...")) << diagnostics[0].message.substr(0, 40);
}

}  // namespace
}  // namespace dlcheck::verbose
