// SPDX-License-Identifier: Apache-2.0
#pragma once
// Streams the lines of a log from a file, standard input (`-`) or compressed data: gzip (zlib),
// xz (liblzma, with a memory limit), zstd and bzip2 (libarchive's raw format), told by the magic
// bytes, so compressed files and compressed pipes both work, whatever their names. Other compressed
// formats (lz4, zip, 7z, ...) are refused with a clear error. Memory is one buffer of about the
// line cap, whatever the size of the log; a line longer than the cap is reported and skipped.
//
//   LineReader reader;
//   if (Status s = reader.Open(path); !s.ok()) return s;
//   std::string_view line;
//   while (true) {
//     LineReader::Next next = reader.Read(line);
//     if (next == LineReader::Next::kEnd) break;
//     ...
//   }
//   if (!reader.status().ok()) ...   // a read error or corrupt gzip data, after the good lines

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dlcheck::verbose {

class LineReader {
 public:
  static constexpr std::size_t kDefaultLineCap = std::size_t{1} << 20;  ///< 1 MiB

  enum class Next {
    kLine,     ///< `line` holds the next line, without its end: `\n`, or `\r` alone (the `\r`
               ///< of `\r\n` is left to the parser)
    kTooLong,  ///< a line longer than the cap was skipped; line_number() is its number
    kEnd,      ///< no more lines (see status() for a read error)
  };

  LineReader();
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// Opens `path` (`-` is standard input). Errors: InputError with one line for the user.
  Status Open(const std::string& path, std::size_t line_cap = kDefaultLineCap);
  Next Read(std::string_view& line);
  /// The bytes read ahead and not yet returned as lines (valid until the next Read): a caller
  /// that takes whole lines from their start in place (LogSession::FeedPredicted) says so by Skip.
  std::string_view Ahead() const { return {buffer_.data() + begin_, end_ - begin_}; }
  /// Consumes the first `bytes` of Ahead(): `lines` whole lines, each ending in '\n' and no longer
  /// than the cap, which Read would have returned.
  void Skip(std::size_t bytes, std::uint64_t lines) {
    begin_ += bytes;
    scan_ = std::max(scan_, begin_);
    line_number_ += lines;
  }
  /// The first byte that is not blank (space, tab, CR, LF) of what is left to read, decompressed,
  /// without consuming it; '\0' at the end of the input. Reads ahead until it finds one.
  char PeekFirstNonBlank();
  /// Appends everything left to read (decompressed) to `out`. InputError when that is more than
  /// `max_bytes`, or the reader's own error (read error, corrupt data).
  Status ReadRest(std::string& out, std::size_t max_bytes);
  /// 1-based number of the line last returned.
  std::uint64_t line_number() const { return line_number_; }
  /// Ok, or what stopped the reading early (read error, corrupt or cut gzip data).
  const Status& status() const { return status_; }
  bool gzipped() const { return inflater_ != nullptr; }
  /// The compression of the input: "gzip", "xz", "zstd", "bzip2", or "" for plain text.
  std::string_view compression() const { return compression_; }
  /// The size of a regular uncompressed file of which no line was read yet (its bytes can be
  /// mapped and read in chunks from fd()); 0 for anything else (a pipe, compressed data).
  std::uint64_t WholeFileSize() const;
  int fd() const { return fd_; }
  std::size_t line_cap() const { return line_cap_; }

 private:
  struct Inflater;
  struct Unarchiver;
  struct XzDecoder;
  Status CheckInputType(bool standard_input) const;
  Status StartDecoder(std::vector<unsigned char> first);
  bool Fill();  // appends bytes at end_; false at end of input or on error
  bool FillFromArchive(char* out, std::size_t room);
  bool FillFromXz(char* out, std::size_t room);
  long ReadRaw(char* out, std::size_t size);

  std::string path_;
  int fd_ = -1;
  bool owns_fd_ = false;
  bool eof_ = false;
  std::size_t line_cap_ = kDefaultLineCap;
  std::vector<char> buffer_;
  std::size_t begin_ = 0;  // first unread byte
  std::size_t end_ = 0;    // one past the last byte read
  std::size_t scan_ = 0;   // where to continue looking for '\n'
  std::size_t cr_at_ = 0;  // the next '\r' at or after begin_ (none before it), or end_
  std::unique_ptr<Inflater> inflater_;
  std::unique_ptr<Unarchiver> unarchiver_;
  std::unique_ptr<XzDecoder> xz_;
  std::string_view compression_;
  std::uint64_t line_number_ = 0;
  Status status_;
};

}  // namespace dlcheck::verbose
