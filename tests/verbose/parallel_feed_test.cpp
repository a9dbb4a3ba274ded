// SPDX-License-Identifier: Apache-2.0
// FeedLog: a log read in chunks on several threads gives what one thread gives (rows and their
// order, counts, header, every listener call in order with its line, time and timestamp), on
// every log of tests/data/verbose cut every few bytes, and on a generated log of real lines.
#include "verbose/parallel_feed.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "verbose/fixture_lines.h"
#include "verbose/line_reader.h"
#include "verbose/log_session.h"
#include "verbose/timeline.h"

namespace dlcheck::verbose {
namespace {

// A double as text, every bit of it.
std::string Exact(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", value);
  return text;
}

// Every event a listener hears, in order: its row, time and timestamp (a line parsed in full
// by one reading may be a repeat for the other: the memo is cold at a chunk's start).
struct CallTrail : EventListener {
  void OnEvent(const VerboseEvent& e, std::size_t row) override {
    Add(row, e.time_ms.value_or(-1), e.timestamp);
  }
  void OnRepeat(const LineMemo::Entry& repeat, double ms, std::optional<double> ts) override {
    Add(repeat.row, ms, ts);
  }
  void Add(std::size_t row, double ms, std::optional<double> ts) {
    calls.push_back(std::to_string(row) + " " + Exact(ms) + " " + (ts ? Exact(*ts) : "-"));
  }
  std::vector<std::string> calls;
};

// What a session ends with: every row's fields, the diagnostics, counts and header.
std::vector<std::string> Outcome(const LogSession& session) {
  std::vector<std::string> out;
  for (const PrimitiveStats& r : session.aggregator().rows()) {
    out.push_back(r.primitive.str() + " " + r.implementation.str() + " " + r.problem.str() +
                  " first " + std::to_string(r.first_line) + " creates " +
                  std::to_string(r.creates) + " hits " + std::to_string(r.cache_hits) + " execs " +
                  std::to_string(r.execs) + " total " + Exact(r.exec_ms_total) + " min " +
                  Exact(r.exec_ms_min) + " max " + Exact(r.exec_ms_max) + " create " +
                  Exact(r.create_ms) + " skipped " + SkippedText(r));
  }
  for (const DiagnosticStats& d : session.aggregator().diagnostics()) {
    out.push_back(d.operation + " " + d.message + " x" + std::to_string(d.count) + " first " +
                  std::to_string(d.first_line));
  }
  const ParseStats& s = session.stats();
  out.push_back("lines " + std::to_string(s.lines) + " events " + std::to_string(s.events) +
                " info " + std::to_string(s.info_lines));
  for (const auto& [reason, count] : s.skipped) {
    out.push_back(std::string(SkipReasonName(reason)) + " " + std::to_string(count));
  }
  const LogHeader h = session.header();
  out.push_back(h.library_version + " | " + h.runtime + " | " + h.isa + " | " + h.isa_short);
  return out;
}

struct Reading {
  std::vector<std::string> outcome;
  std::vector<std::string> calls;
  std::vector<std::string> timeline;
  ParallelStats stats;
};

Reading Read(const std::string& path, const ParallelOptions& options,
             std::size_t line_cap = LineReader::kDefaultLineCap) {
  LogSession session;
  CallTrail trail;
  std::vector<ExecRecord> execs;
  Timeline timeline(session, execs, 1000);
  timeline.set_recording(true);
  session.AddListener(&trail);
  session.AddListener(&timeline);
  LineReader reader;
  EXPECT_TRUE(reader.Open(path, line_cap).ok()) << path;
  Reading r;
  EXPECT_TRUE(FeedLog(session, reader, "log", options, &r.stats).ok()) << path;
  r.outcome = Outcome(session);
  r.calls = std::move(trail.calls);
  for (const ExecRecord& e : execs) {
    r.timeline.push_back(e.primitive + " " + Exact(e.start_ms) + " " + Exact(e.time_ms));
  }
  return r;
}

void ExpectSame(const Reading& one, const Reading& many, const std::string& what) {
  EXPECT_EQ(one.outcome, many.outcome) << what;
  EXPECT_EQ(one.calls, many.calls) << what;
  EXPECT_EQ(one.timeline, many.timeline) << what;
}

class ParallelFeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("dlcheck_parallel_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  // `text` `times` times over, in a file of the scratch directory.
  std::string Repeated(const std::string& name, const std::string& text, int times) {
    const std::string path = (dir_ / name).string();
    std::ofstream out(path, std::ios::binary);
    for (int i = 0; i < times; ++i) out << text;
    return path;
  }
  std::filesystem::path dir_;
};

// Every log, three times over (so that chunks repeat lines), cut into chunks of 1, 97 and 2000
// bytes: a chunk of one line, chunks cut in the header, in wrapped lines, between a dispatch
// reason and its create.
TEST_F(ParallelFeedTest, EveryLogInChunksGivesWhatOneThreadGives) {
  for (const std::string& name : testing::EveryLog()) {
    const std::string path = Repeated(name, dlcheck::testing::ReadFile(testing::DataFile(name)), 3);
    const Reading one = Read(path, {.jobs = 1});
    EXPECT_EQ(one.stats.chunks, 0u) << name;
    for (const std::size_t chunk : {1, 97, 2000}) {
      const Reading many = Read(path, {.jobs = 3, .min_bytes = 1, .chunk_bytes = chunk});
      ExpectSame(one, many, name + " in chunks of " + std::to_string(chunk));
      EXPECT_GT(many.stats.chunks, 1u) << name;
    }
  }
}

// The threads do the work: on a long log of real lines (a recorded log's header, then its other
// lines 200 times over, as a long run prints them) the chunks are replayed, not parsed again.
TEST_F(ParallelFeedTest, ChunksOfARealLogAreReplayed) {
  for (const char* name :
       {"torch_cnn_2.6.3.log", "torch_cnn_ts_2.6.3.log", "benchdnn_ts_3.10.2.log"}) {
    std::string head, body;
    for (const std::string& line : testing::FixtureLines(name)) {
      const bool header = line.starts_with("#") || line.find(",info,") != std::string::npos;
      (header ? head : body) += line + "\n";
    }
    const std::string path = Repeated(name, head, 1);
    {
      std::ofstream out(path, std::ios::app | std::ios::binary);
      for (int i = 0; i < 200; ++i) out << body;
    }
    const Reading one = Read(path, {.jobs = 1});
    const Reading replayed =
        Read(path, {.jobs = 2, .min_bytes = 1, .chunk_bytes = 64 << 10, .caller_parses = false});
    ExpectSame(one, replayed, name);
    ASSERT_GT(replayed.stats.chunks, 4u) << name;
    EXPECT_GE(replayed.stats.replayed, replayed.stats.chunks - 2) << name;
    EXPECT_LE(replayed.stats.reparsed, 2u) << name;
    // The calling thread parsing the chunks no worker has claimed: the same, and no work lost.
    const Reading shared = Read(path, {.jobs = 3, .min_bytes = 1, .chunk_bytes = 64 << 10});
    ExpectSame(one, shared, name);
    EXPECT_LE(shared.stats.reparsed, 2u) << name;
  }
}

// At the least size and the chunk size dlcheck uses (no DLCHECK_PARSE_CHUNK): a log of 64 MiB is
// read in 4 MiB chunks, with the report of one thread.
TEST_F(ParallelFeedTest, ALogOfTheLeastSizeIsReadInChunks) {
  std::string body;
  for (const std::string& line : testing::FixtureLines("torch_cnn_2.6.3.log")) body += line + "\n";
  const int times = static_cast<int>(kParallelMinBytes / body.size()) + 1;
  const std::string path = Repeated("least.log", body, times);
  ASSERT_GE(std::filesystem::file_size(path), kParallelMinBytes);
  const Reading one = Read(path, {.jobs = 1});
  const Reading many = Read(path, {.jobs = 2});
  ExpectSame(one, many, "64 MiB");
  EXPECT_GE(many.stats.chunks, kParallelMinBytes / kParallelChunkBytes - 1);
}

// Below the least size, or compressed: one thread.
TEST_F(ParallelFeedTest, SmallFilesAndStreamsAreReadOnOneThread) {
  const std::string name = "torch_cnn_2.6.3.log";
  const std::string path = Repeated(name, dlcheck::testing::ReadFile(testing::DataFile(name)), 2);
  EXPECT_EQ(Read(path, {.jobs = 4}).stats.chunks, 0u);  // 64 MiB at least by default
  const std::string gz = (dir_ / "log.gz").string();
  ASSERT_EQ(std::system(("gzip -c " + path + " > " + gz).c_str()), 0);
  const Reading plain = Read(path, {.jobs = 1});
  const Reading zipped = Read(gz, {.jobs = 4, .min_bytes = 1, .chunk_bytes = 100});
  EXPECT_EQ(zipped.stats.chunks, 0u);
  EXPECT_EQ(plain.outcome, zipped.outcome);
}

// A CR that no LF follows ends a line where LineReader's buffer says: such a log is read on one
// thread, and gives what one thread gives.
TEST_F(ParallelFeedTest, ALogWithALoneCrIsReadOnOneThread) {
  const std::string line = testing::FixtureLines("torch_cnn_2.6.3.log")[10];
  const std::string path = Repeated("cr.log", line + "\n" + line + "\r" + line + "\n", 50);
  const Reading one = Read(path, {.jobs = 1});
  const Reading many = Read(path, {.jobs = 3, .min_bytes = 1, .chunk_bytes = 100});
  EXPECT_EQ(many.stats.chunks, 0u);
  ExpectSame(one, many, "lone CR");
}

// A lone CR found late (each thread looks in its chunk): the chunks before it stay fed and
// LineReader reads the rest from the line after them, so the report is still that of one thread.
TEST_F(ParallelFeedTest, ALoneCrLateInTheLogGivesWhatOneThreadGives) {
  const std::vector<std::string> lines = testing::FixtureLines("torch_cnn_2.6.3.log");
  std::string text;
  for (int i = 0; i < 5; ++i) {
    for (const std::string& line : lines) text += line + "\n";
  }
  text += lines[10] + "\r" + lines[11] + "\n";
  for (const std::string& line : lines) text += line + "\n";
  const std::string path = Repeated("late_cr.log", text, 1);
  const Reading one = Read(path, {.jobs = 1});
  for (const std::size_t chunk : {97, 2000}) {
    const Reading many = Read(path, {.jobs = 3, .min_bytes = 1, .chunk_bytes = chunk});
    ExpectSame(one, many, "late lone CR in chunks of " + std::to_string(chunk));
  }
}

// Lines longer than the line cap: one inside a chunk and longer than a thread's buffer (the cap
// and a block: dropped up to its LF, reported too long), one too long but within the buffer, and
// in small chunks, a too long line across a cut (no line end to cut at: the rest is read on one
// thread). Each way, the report of one thread.
TEST_F(ParallelFeedTest, LinesLongerThanTheCapGiveWhatOneThreadGives) {
  const std::vector<std::string> lines = testing::FixtureLines("torch_cnn_2.6.3.log");
  std::string text;
  for (int i = 0; i < 40; ++i) {
    for (const std::string& line : lines) text += line + "\n";
  }
  ASSERT_GT(text.size(), std::size_t{128} << 10);  // past the head
  text += lines[10] + std::string(300'000, 'x') + "\n" + lines[11] + std::string(5'000, 'y') + "\n";
  for (int i = 0; i < 3; ++i) {
    for (const std::string& line : lines) text += line + "\n";
  }
  const std::string path = Repeated("long.log", text, 1);
  constexpr std::size_t kCap = 4096;
  const Reading one = Read(path, {.jobs = 1}, kCap);
  const Reading chunked = Read(path, {.jobs = 2, .min_bytes = 1, .chunk_bytes = 1 << 20}, kCap);
  ExpectSame(one, chunked, "a long line inside a chunk");
  EXPECT_GT(chunked.stats.chunks, 1u);  // read by the chunks, not handed to LineReader
  const Reading cut = Read(path, {.jobs = 3, .min_bytes = 1, .chunk_bytes = 97}, kCap);
  ExpectSame(one, cut, "a long line across a cut");
  EXPECT_EQ(cut.stats.chunks, 0u);  // the rest read by LineReader
  EXPECT_NE(std::find(one.outcome.begin(), one.outcome.end(), "too_long 2"), one.outcome.end());
}

}  // namespace
}  // namespace dlcheck::verbose
