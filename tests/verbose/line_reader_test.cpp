#include "verbose/line_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "support/scratch_dir.h"

namespace dlcheck::verbose {
namespace {

namespace fs = std::filesystem;

class LineReaderTest : public testing::ScratchDirTest {
 protected:
  struct Read {
    std::vector<std::string> lines;
    std::vector<std::uint64_t> too_long;
  };
  static Read ReadAll(LineReader& reader) {
    Read r;
    std::string_view line;
    while (true) {
      const LineReader::Next next = reader.Read(line);
      if (next == LineReader::Next::kEnd) break;
      if (next == LineReader::Next::kTooLong) {
        r.too_long.push_back(reader.line_number());
      } else {
        r.lines.emplace_back(line);
      }
    }
    return r;
  }
};

TEST_F(LineReaderTest, CrLfAndATruncatedLastLine) {
  LineReader reader;
  ASSERT_TRUE(reader.Open(Write("log", "a,b\r\nc\r\nlast-without-newline")).ok());
  const Read r = ReadAll(reader);
  ASSERT_EQ(r.lines.size(), 3u);
  EXPECT_EQ(r.lines[0], "a,b\r");  // the parser strips the \r
  EXPECT_EQ(r.lines[2], "last-without-newline");
  EXPECT_EQ(reader.line_number(), 3u);
  EXPECT_TRUE(reader.status().ok());
}

TEST_F(LineReaderTest, EmptyFileHasNoLines) {
  LineReader reader;
  ASSERT_TRUE(reader.Open(Write("empty", "")).ok());
  EXPECT_TRUE(ReadAll(reader).lines.empty());
  EXPECT_TRUE(reader.status().ok());
}

TEST_F(LineReaderTest, TenMegabyteLineIsSkippedAndItsNeighboursKept) {
  std::string bytes = "before\n";
  bytes += std::string(10 << 20, 'x');
  bytes += "\nafter\n";
  LineReader reader;
  ASSERT_TRUE(reader.Open(Write("long", bytes)).ok());
  const Read r = ReadAll(reader);
  ASSERT_EQ(r.lines.size(), 2u);
  EXPECT_EQ(r.lines[0], "before");
  EXPECT_EQ(r.lines[1], "after");
  ASSERT_EQ(r.too_long.size(), 1u);
  EXPECT_EQ(r.too_long[0], 2u);
}

TEST_F(LineReaderTest, LongLineAtTheEndWithoutNewline) {
  LineReader reader;
  ASSERT_TRUE(reader.Open(Write("long", "ok\n" + std::string(3000, 'y')), 1024).ok());
  const Read r = ReadAll(reader);
  ASSERT_EQ(r.lines.size(), 1u);
  ASSERT_EQ(r.too_long.size(), 1u);
}

TEST_F(LineReaderTest, LinesAcrossManyBuffersKeepTheirBytes) {
  std::string bytes;
  for (int i = 0; i < 50000; ++i)
    bytes += "line " + std::to_string(i) + " " + std::string(i % 97, 'z') + "\n";
  LineReader reader;
  ASSERT_TRUE(reader.Open(Write("many", bytes)).ok());
  const Read r = ReadAll(reader);
  ASSERT_EQ(r.lines.size(), 50000u);
  EXPECT_EQ(r.lines[49999], "line 49999 " + std::string(49999 % 97, 'z'));
}

TEST_F(LineReaderTest, BinaryGarbageIsJustBytes) {
  std::string bytes;
  for (int i = 0; i < 4096; ++i) bytes.push_back(static_cast<char>((i * 131) & 0xff));
  LineReader reader;
  ASSERT_TRUE(reader.Open(Write("garbage", bytes)).ok());
  const Read r = ReadAll(reader);
  std::size_t total = 0;
  for (const auto& l : r.lines) total += l.size() + 1;
  EXPECT_GE(total, bytes.size());
  EXPECT_TRUE(reader.status().ok());
}

TEST_F(LineReaderTest, GzipIsDetectedByItsMagicBytes) {
  const std::string path = (dir_ / "log.gz").string();
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  std::string text;
  for (int i = 0; i < 20000; ++i)
    text += "onednn_verbose,exec,cpu,reorder," + std::to_string(i) + "\n";
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  LineReader reader;
  ASSERT_TRUE(reader.Open(path).ok());
  EXPECT_TRUE(reader.gzipped());
  const Read r = ReadAll(reader);
  ASSERT_EQ(r.lines.size(), 20000u);
  EXPECT_EQ(r.lines[19999], "onednn_verbose,exec,cpu,reorder,19999");
  EXPECT_TRUE(reader.status().ok());
}

TEST_F(LineReaderTest, CutGzipKeepsTheLinesAndReportsTheCut) {
  const std::string path = (dir_ / "cut.gz").string();
  gzFile gz = gzopen(path.c_str(), "wb");
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "line " + std::to_string(i * 7919) + "\n";
  gzwrite(gz, text.data(), static_cast<unsigned>(text.size()));
  gzclose(gz);
  fs::resize_file(path, fs::file_size(path) / 2);
  LineReader reader;
  ASSERT_TRUE(reader.Open(path).ok());
  const Read r = ReadAll(reader);
  EXPECT_GT(r.lines.size(), 100u);
  EXPECT_EQ(r.lines[0], "line 0");
  EXPECT_EQ(reader.status().message(),
            "cannot read '" + path + "': the gzip data ends early (the file is cut)");
}

TEST_F(LineReaderTest, MissingFileAndDirectoryAreInputErrors) {
  LineReader reader;
  const std::string missing = (dir_ / "missing.log").string();
  Status s = reader.Open(missing);
  EXPECT_EQ(s.code(), ExitCode::kInputError);
  EXPECT_EQ(s.message(), "cannot open '" + missing + "': No such file or directory");
  LineReader dir_reader;
  s = dir_reader.Open(dir_.string());
  EXPECT_EQ(s.code(), ExitCode::kInputError);
  EXPECT_EQ(s.message(), "cannot read '" + dir_.string() +
                             "': it is a directory (give a log file, or - for standard input)");
}

}  // namespace
}  // namespace dlcheck::verbose
