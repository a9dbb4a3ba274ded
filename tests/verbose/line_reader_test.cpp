// SPDX-License-Identifier: Apache-2.0
#include "verbose/line_reader.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <thread>

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

TEST_F(LineReaderTest, ACrAloneEndsALineAsLfAndCrLfDo) {
  // A log whose lines end in CR alone (classic Mac OS, some Windows tools) was one line; each
  // ending is one now, across chunks (256 KiB), with an empty line between two CRs. (A CR inside
  // an LF-ended line, as a progress bar writes, stays on its line, as the CR of CRLF does.)
  std::string text;
  std::vector<std::string> expected;
  for (int i = 0; expected.size() < 30000; ++i) {
    const std::string line = "onednn_verbose,exec,cpu,line" + std::to_string(i);
    expected.push_back(line);
    text += line + "\r";
    if (i == 7) {
      text += "\r";  // an empty line
      expected.emplace_back();
    }
  }
  text += "last";
  expected.push_back("last");
  LineReader reader;
  ASSERT_TRUE(reader.Open(Write("cr.log", text)).ok());
  const Read r = ReadAll(reader);
  EXPECT_TRUE(r.too_long.empty());
  ASSERT_EQ(r.lines.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) ASSERT_EQ(r.lines[i], expected[i]) << i;
  EXPECT_EQ(reader.line_number(), expected.size());
  // A CR-only log far longer than the line cap is lines, not one line too long.
  std::string long_log;
  for (int i = 0; i < 100000; ++i) long_log += "onednn_verbose,exec,cpu,x\r";
  LineReader long_reader;
  ASSERT_TRUE(long_reader.Open(Write("long.log", long_log), 4096).ok());
  const Read long_read = ReadAll(long_reader);
  EXPECT_TRUE(long_read.too_long.empty());
  EXPECT_EQ(long_read.lines.size(), 100000u);
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

// --- inputs that are not files, bombs and damaged headers (issue 20) -----------------------------

// An .xz file of 108 bytes whose LZMA2 header asks for a 1 GiB dictionary (made with Python's
// lzma module: filters=[{"id": FILTER_LZMA2, "dict_size": 1 << 30, "preset": 0}] over ten
// "onednn_verbose,info,oneDNN v2.6.3" lines). liblzma would allocate the dictionary first.
const std::string kXzAskingForOneGiB(
    "\xfd\x37\x7a\x58\x5a\x00\x00\x04\xe6\xd6\xb4\x46\x02\x00\x21\x01\x24\x00\x00\x00\x5e\x1f"
    "\xc7\xf9\xe0\x01\x53\x00\x2b\x5d\x00\x37\x9b\x88\xd3\x4e\xbb\x71\x54\x7d\xe5\xde\xf6\xc3"
    "\xe3\xb2\x01\x4a\xc8\x81\x18\x4d\x60\x1f\x34\x26\xff\x73\xa1\xee\xaa\x61\x7d\x5b\x70\x27"
    "\x01\xc8\xe4\x5c\xf8\x24\x00\x00\x00\x00\xdb\xab\x24\x73\x45\x03\xef\x06\x00\x01\x47\xd4"
    "\x02\x00\x00\x00\x1b\xff\x74\x07\xb1\xc4\x67\xfb\x02\x00\x00\x00\x00\x04\x59\x5a",
    108);

TEST_F(LineReaderTest, AnXzHeaderAskingForMoreMemoryThanTheLimitIsRefused) {
  const std::string path = Write("bomb.xz", kXzAskingForOneGiB);
  LineReader reader;
  ASSERT_TRUE(reader.Open(path).ok());
  EXPECT_TRUE(ReadAll(reader).lines.empty());
  EXPECT_EQ(reader.status().code(), ExitCode::kInputError);
  EXPECT_EQ(reader.status().message(),
            "cannot read '" + path +
                "': its xz header asks for more than 65 MiB of memory to decompress, the most "
                "dlcheck gives");
}

TEST_F(LineReaderTest, DevicesAreRefusedBeforeReading) {
  for (const char* device : {"/dev/zero", "/dev/null"}) {
    if (!fs::exists(device)) continue;
    LineReader reader;
    const Status s = reader.Open(device);
    EXPECT_EQ(s.code(), ExitCode::kInputError);
    EXPECT_EQ(s.message(), "cannot read '" + std::string(device) +
                               "': it is a character device, not a regular file or a pipe "
                               "(give a log file, or - for standard input)");
  }
}

// Bytes that only start like bzip2 ("BZh" and a block size that is not one) are not decoded by
// any filter: libarchive would hand them back as they are, as if they were text.
TEST_F(LineReaderTest, DamagedCompressedHeadersAreInputErrors) {
  const std::string bz2 = Write("log", "BZh0not really bzip2\nonednn_verbose,exec\n");
  LineReader reader;
  Status s = reader.Open(bz2);
  EXPECT_EQ(s.code(), ExitCode::kInputError);
  EXPECT_EQ(s.message(), "cannot read '" + bz2 + "': corrupt bzip2 data (a damaged header)");
  // A name that says gzip on bytes that are not: the magic itself was damaged.
  const std::string gz = Write("log.gz", "\x1f\x8a\x08 garbage\n");
  LineReader named;
  s = named.Open(gz);
  EXPECT_EQ(s.code(), ExitCode::kInputError);
  EXPECT_EQ(s.message(), "cannot read '" + gz +
                             "': named like gzip data but it does not start as gzip data does (a "
                             "damaged header?)");
}

// One open, then the first byte is looked at and the rest read: nothing of a pipe is lost.
TEST_F(LineReaderTest, PeekAndReadRestKeepEveryByteOfAPipe) {
  const std::string fifo = (dir_ / "pipe").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string text = "  \n{";
  for (int i = 0; i < 20000; ++i) text += "\"k" + std::to_string(i) + "\": 1,\n";
  text += "\"end\": 0}\n";
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  LineReader reader;
  ASSERT_TRUE(reader.Open(fifo).ok());
  EXPECT_EQ(reader.PeekFirstNonBlank(), '{');
  std::string rest;
  EXPECT_TRUE(reader.ReadRest(rest, std::size_t{1} << 20).ok());
  writer.join();
  EXPECT_EQ(rest, text);
  LineReader small;
  ASSERT_TRUE(small.Open(Write("big", text)).ok());
  std::string cut;
  EXPECT_EQ(small.ReadRest(cut, 1000).code(), ExitCode::kInputError);
}

}  // namespace
}  // namespace dlcheck::verbose
