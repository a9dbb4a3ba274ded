// SPDX-License-Identifier: Apache-2.0
#include "verbose/line_reader.h"

#include <archive.h>
#include <fcntl.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>

#include "common/input_rules.h"
#include "common/lazy_library.h"

namespace dlcheck::verbose {

struct LineReader::Inflater {
  z_stream stream{};
  std::vector<unsigned char> input;
  bool in_member = true;  // inside a gzip member (false after Z_STREAM_END until more data)
  ~Inflater() { inflateEnd(&stream); }
};

// xz through liblzma with a memory limit (libarchive's xz filter sets none): a header that asks
// for a dictionary larger than kMaxXzDecoderBytes is refused, not allocated.
struct LineReader::XzDecoder {
  lzma_stream stream = LZMA_STREAM_INIT;
  std::vector<unsigned char> input;
  bool input_ended = false;
  ~XzDecoder() { lzma_end(&stream); }
};

namespace {
// libarchive, loaded at the first zstd or bzip2 log, not linked: it brings libxml2 and ICU with
// it, and loading them cost every run of dlcheck about 2 ms of its 7 ms start, for a library
// most runs never call. library.error() says why it cannot be used.
struct ArchiveLibrary {
  LazyLibrary library{"libarchive.so.13"};
  DLCHECK_LAZY_FUNCTION(archive_read_new);
  DLCHECK_LAZY_FUNCTION(archive_read_free);
  DLCHECK_LAZY_FUNCTION(archive_read_support_filter_zstd);
  DLCHECK_LAZY_FUNCTION(archive_read_support_filter_bzip2);
  DLCHECK_LAZY_FUNCTION(archive_read_support_format_raw);
  DLCHECK_LAZY_FUNCTION(archive_read_open);
  DLCHECK_LAZY_FUNCTION(archive_read_next_header);
  DLCHECK_LAZY_FUNCTION(archive_filter_code);
  DLCHECK_LAZY_FUNCTION(archive_read_data);
  DLCHECK_LAZY_FUNCTION(archive_error_string);
};

const ArchiveLibrary& Archive() {
  static const ArchiveLibrary library;
  return library;
}
}  // namespace

// zstd and bzip2 through libarchive's raw format: one API for both codecs, each
// checked (CRC or checksum) as it streams. It reads from the file descriptor through Read, which
// first hands back the bytes Open peeked at. Made only once Archive() loaded.
struct LineReader::Unarchiver {
  archive* reader = Archive().archive_read_new();
  LineReader* owner = nullptr;
  std::vector<unsigned char> first;
  bool first_served = false;
  std::vector<char> chunk;
  ~Unarchiver() {
    if (reader != nullptr) Archive().archive_read_free(reader);
  }

  static la_ssize_t Read(archive*, void* client, const void** buffer) {
    auto* self = static_cast<Unarchiver*>(client);
    if (!self->first_served) {
      self->first_served = true;
      *buffer = self->first.data();
      return static_cast<la_ssize_t>(self->first.size());
    }
    const long n = self->owner->ReadRaw(self->chunk.data(), self->chunk.size());
    *buffer = self->chunk.data();
    return n < 0 ? ARCHIVE_FATAL : static_cast<la_ssize_t>(n);
  }
};

namespace {
constexpr std::size_t kChunk = std::size_t{1} << 18;  // 256 KiB per read

struct Magic {
  std::string_view bytes;
  std::string_view name;
  bool readable;  // through zlib or libarchive; the others are refused by name
};

// Magic numbers of the compressed formats (and archives) a log might arrive in.
constexpr Magic kMagics[] = {
    {"\x1f\x8b", "gzip", true},
    {"\xfd"
     "7zXZ\x00",
     "xz", true},
    {"\x28\xb5\x2f\xfd", "zstd", true},
    {"BZh", "bzip2", true},
    {"\x04\x22\x4d\x18", "lz4", false},
    {"\x1f\x9d", "compress (.Z)", false},
    {"LZIP", "lzip", false},
    {"PK\x03\x04", "zip", false},
    {"7z\xbc\xaf\x27\x1c", "7z", false},
};

const Magic* FindMagic(const std::vector<unsigned char>& first) {
  for (const Magic& m : kMagics) {
    if (first.size() >= m.bytes.size() &&
        std::memcmp(first.data(), m.bytes.data(), m.bytes.size()) == 0) {
      return &m;
    }
  }
  return nullptr;
}

// The compression a file's name claims (".gz", ".bz2", ...), or "" for any other name.
std::string_view CompressionOfName(std::string_view path) {
  struct Suffix {
    std::string_view suffix;
    std::string_view name;
  };
  static constexpr Suffix kSuffixes[] = {
      {".gz", "gzip"}, {".xz", "xz"}, {".zst", "zstd"}, {".bz2", "bzip2"}};
  for (const Suffix& s : kSuffixes) {
    if (path.size() > s.suffix.size() && path.ends_with(s.suffix)) return s.name;
  }
  return {};
}

// libarchive's code for the filter that reads `name` data.
int FilterCode(std::string_view name) {
  if (name == "zstd") return ARCHIVE_FILTER_ZSTD;
  return ARCHIVE_FILTER_BZIP2;
}

// Makes libarchive read `name` data in its raw format; false when it cannot (a codec built
// without the library, ARCHIVE_WARN: it would run an external program).
bool SupportFilter(archive* reader, std::string_view name) {
  int rc = ARCHIVE_FATAL;
  if (name == "zstd") rc = Archive().archive_read_support_filter_zstd(reader);
  if (name == "bzip2") rc = Archive().archive_read_support_filter_bzip2(reader);
  return rc == ARCHIVE_OK && Archive().archive_read_support_format_raw(reader) == ARCHIVE_OK;
}
}  // namespace

LineReader::LineReader() = default;

LineReader::~LineReader() {
  if (owns_fd_ && fd_ >= 0) close(fd_);
}

Status LineReader::Open(const std::string& path, std::size_t line_cap) {
  path_ = path;
  line_cap_ = line_cap;
  const bool standard_input = path == "-";
  if (standard_input) {
    fd_ = STDIN_FILENO;
    owns_fd_ = false;
    path_ = "<stdin>";
  } else {
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd_ < 0) {
      return InputError("cannot open '" + path + "': " + std::strerror(errno));
    }
    owns_fd_ = true;
  }
  if (Status kind = CheckInputType(standard_input); !kind.ok()) return kind;
  buffer_.assign(line_cap_ + kChunk + 1, '\0');
  // Peek at the first bytes: gzip data starts with 1f 8b.
  std::vector<unsigned char> first(kChunk);
  long got = 0;
  while (got < 6) {
    const long n = ReadRaw(reinterpret_cast<char*>(first.data()) + got,
                           first.size() - static_cast<std::size_t>(got));
    if (n < 0) return status_;
    if (n == 0) break;
    got += n;
  }
  first.resize(static_cast<std::size_t>(got));
  if (FindMagic(first) != nullptr) return StartDecoder(std::move(first));
  if (const std::string_view named = CompressionOfName(path); !named.empty() && got > 0) {
    return InputError("cannot read '" + path + "': named like " + std::string(named) +
                      " data but it does not start as " + std::string(named) +
                      " data does (a damaged header?)");
  }
  std::memcpy(buffer_.data(), first.data(), first.size());
  end_ = first.size();
  if (got == 0) eof_ = true;
  return {};
}

// Refuses what is not a file or a pipe before reading it (common/input_rules.h): a directory, a
// device such as /dev/zero, or a standard input that was closed (main holds it by /dev/null).
Status LineReader::CheckInputType(bool standard_input) const {
  struct stat info {};
  if (fstat(fd_, &info) != 0) {
    return InputError("cannot read '" + path_ + "': " + std::strerror(errno));
  }
  const std::string_view refused = RefusedInputType(info, standard_input);
  if (refused.empty()) return {};
  if (standard_input) {
    const std::string_view held = S_ISCHR(info.st_mode) ? " (closed, or /dev/null?)" : "";
    return InputError("cannot read standard input: it is " + std::string(refused) +
                      std::string(held) + ", not a log; give a file, or pipe the log in");
  }
  const std::string_view not_file = S_ISDIR(info.st_mode) ? "" : ", not a regular file or a pipe";
  return InputError("cannot read '" + path_ + "': it is " + std::string(refused) +
                    std::string(not_file) + " (give a log file, or - for standard input)");
}

std::uint64_t LineReader::WholeFileSize() const {
  struct stat info {};
  if (fd_ < 0 || !compression_.empty() || line_number_ != 0 || begin_ != 0 ||
      fstat(fd_, &info) != 0 || !S_ISREG(info.st_mode) ||
      lseek(fd_, 0, SEEK_CUR) != static_cast<off_t>(end_)) {
    return 0;
  }
  return static_cast<std::uint64_t>(info.st_size);
}

char LineReader::PeekFirstNonBlank() {
  while (true) {
    for (std::size_t i = begin_; i < end_; ++i) {
      const char c = buffer_[i];
      if (c != ' ' && c != '\t' && c != '\r' && c != '\n') return c;
    }
    if (!Fill()) return '\0';
  }
}

Status LineReader::ReadRest(std::string& out, std::size_t max_bytes) {
  while (true) {
    out.append(buffer_.data() + begin_, end_ - begin_);
    begin_ = scan_ = end_ = cr_at_ = 0;
    if (out.size() > max_bytes) {
      const std::size_t mib = std::size_t{1} << 20;
      return InputError("'" + path_ + "' is larger than " +
                        (max_bytes % mib == 0 ? std::to_string(max_bytes / mib) + " MiB"
                                              : std::to_string(max_bytes) + " bytes") +
                        ", the most dlcheck reads");
    }
    if (!Fill()) return status_;
  }
}

// Starts reading compressed data whose first bytes are `first` (a known magic number).
Status LineReader::StartDecoder(std::vector<unsigned char> first) {
  const Magic& magic = *FindMagic(first);
  const std::string what = "cannot read '" + path_ + "': ";
  if (!magic.readable) {
    return InputError(what + "it holds " + std::string(magic.name) +
                      " data; dlcheck reads plain, gzip, xz, zstd and bzip2 logs (decompress it "
                      "first and give the text, or - with the text on standard input)");
  }
  compression_ = magic.name;
  if (magic.name == "gzip") {
    inflater_ = std::make_unique<Inflater>();
    if (inflateInit2(&inflater_->stream, 16 + MAX_WBITS) != Z_OK) {
      return InputError(what + "zlib could not start");
    }
    inflater_->input = std::move(first);
    inflater_->stream.next_in = inflater_->input.data();
    inflater_->stream.avail_in = static_cast<uInt>(inflater_->input.size());
    return {};
  }
  if (magic.name == "xz") {
    xz_ = std::make_unique<XzDecoder>();
    if (lzma_stream_decoder(&xz_->stream, kMaxXzDecoderBytes, LZMA_CONCATENATED) != LZMA_OK) {
      return InputError(what + "liblzma could not start");
    }
    xz_->input = std::move(first);
    xz_->stream.next_in = xz_->input.data();
    xz_->stream.avail_in = xz_->input.size();
    return {};
  }
  if (!Archive().library.error().empty()) {
    return InputError(what + "reading " + std::string(magic.name) +
                      " data needs libarchive (Debian: libarchive13), which could not be loaded: " +
                      Archive().library.error() + " (install it, or decompress the log first)");
  }
  unarchiver_ = std::make_unique<Unarchiver>();
  Unarchiver& u = *unarchiver_;
  u.owner = this;
  u.first = std::move(first);
  u.chunk.resize(kChunk);
  if (u.reader == nullptr || !SupportFilter(u.reader, magic.name)) {
    return InputError(what + "this build of libarchive cannot read " + std::string(magic.name) +
                      " data (decompress it first)");
  }
  archive_entry* entry = nullptr;
  if (Archive().archive_read_open(u.reader, &u, nullptr, &Unarchiver::Read, nullptr) !=
          ARCHIVE_OK ||
      Archive().archive_read_next_header(u.reader, &entry) != ARCHIVE_OK) {
    return status_.ok() ? InputError(what + "corrupt or cut " + std::string(magic.name) +
                                     " data (" + Archive().archive_error_string(u.reader) + ")")
                        : status_;
  }
  // Data that only looks like `name` at its first bytes (a damaged header) is not decoded by any
  // filter: libarchive would hand it back as it is, and binary would be read as text.
  if (Archive().archive_filter_code(u.reader, 0) != FilterCode(magic.name)) {
    return InputError(what + "corrupt " + std::string(magic.name) + " data (a damaged header)");
  }
  return {};
}

// Decompresses into `out` through libarchive; a codec error (bad CRC, cut data) ends the input
// with an error in status_.
bool LineReader::FillFromArchive(char* out, std::size_t room) {
  const la_ssize_t n = Archive().archive_read_data(unarchiver_->reader, out, room);
  if (n > 0) {
    end_ += static_cast<std::size_t>(n);
    return true;
  }
  eof_ = true;
  if (n < 0 && status_.ok()) {
    const char* reason = Archive().archive_error_string(unarchiver_->reader);
    status_ =
        InputError("cannot read '" + path_ + "': corrupt or cut " + std::string(compression_) +
                   " data (" + (reason != nullptr ? reason : "decompression failed") + ")");
  }
  return false;
}

namespace {
// Why liblzma stopped, for the user.
std::string XzErrorText(lzma_ret rc) {
  if (rc == LZMA_MEMLIMIT_ERROR) {
    return "its xz header asks for more than " + std::to_string(kMaxXzDecoderBytes >> 20) +
           " MiB of memory to decompress, the most dlcheck gives";
  }
  if (rc == LZMA_BUF_ERROR) return "corrupt or cut xz data (it ends early)";
  if (rc == LZMA_MEM_ERROR) return "out of memory to decompress xz data";
  return "corrupt or cut xz data (a check or header is wrong)";
}
}  // namespace

// Decompresses into `out` through liblzma; corrupt or cut data, or a header that asks for more
// memory than kMaxXzDecoderBytes, ends the input with an error in status_.
bool LineReader::FillFromXz(char* out, std::size_t room) {
  XzDecoder& x = *xz_;
  x.stream.next_out = reinterpret_cast<std::uint8_t*>(out);
  x.stream.avail_out = room;
  lzma_ret rc = LZMA_OK;
  while (rc == LZMA_OK && x.stream.avail_out == room) {
    if (x.stream.avail_in == 0 && !x.input_ended) {
      x.input.resize(kChunk);
      const long n = ReadRaw(reinterpret_cast<char*>(x.input.data()), x.input.size());
      if (n < 0) {
        rc = LZMA_PROG_ERROR;  // status_ says why
        break;
      }
      x.stream.next_in = x.input.data();
      x.stream.avail_in = static_cast<std::size_t>(n);
      x.input_ended = n == 0;
    }
    rc = lzma_code(&x.stream, x.input_ended ? LZMA_FINISH : LZMA_RUN);
  }
  const std::size_t produced = room - x.stream.avail_out;
  end_ += produced;
  if (rc == LZMA_OK) return true;
  eof_ = true;
  if (rc != LZMA_STREAM_END && status_.ok()) {
    status_ = InputError("cannot read '" + path_ + "': " + XzErrorText(rc));
  }
  return produced > 0;
}

long LineReader::ReadRaw(char* out, std::size_t size) {
  while (true) {
    const ssize_t n = read(fd_, out, size);
    if (n >= 0) return static_cast<long>(n);
    if (errno == EINTR) continue;
    status_ = InputError("cannot read '" + path_ + "': " + std::strerror(errno));
    return -1;
  }
}

bool LineReader::Fill() {
  if (eof_) return false;
  char* out = buffer_.data() + end_;
  const std::size_t room = buffer_.size() - 1 - end_;
  if (room == 0) return false;
  if (unarchiver_) return FillFromArchive(out, room);
  if (xz_) return FillFromXz(out, room);
  if (!inflater_) {
    const long n = ReadRaw(out, room);
    if (n <= 0) {
      eof_ = true;
      return false;
    }
    end_ += static_cast<std::size_t>(n);
    return true;
  }
  Inflater& z = *inflater_;
  while (true) {
    if (z.stream.avail_in == 0) {
      z.input.resize(kChunk);
      const long n = ReadRaw(reinterpret_cast<char*>(z.input.data()), z.input.size());
      if (n <= 0) {
        eof_ = true;
        if (n == 0 && z.in_member) {
          status_ =
              InputError("cannot read '" + path_ + "': the gzip data ends early (the file is cut)");
        }
        return false;
      }
      z.stream.next_in = z.input.data();
      z.stream.avail_in = static_cast<uInt>(n);
    }
    if (!z.in_member) {  // another gzip member follows (concatenated .gz)
      inflateReset(&z.stream);
      z.in_member = true;
    }
    z.stream.next_out = reinterpret_cast<unsigned char*>(out);
    z.stream.avail_out = static_cast<uInt>(room);
    const int rc = inflate(&z.stream, Z_NO_FLUSH);
    const std::size_t produced = room - z.stream.avail_out;
    end_ += produced;
    if (rc == Z_STREAM_END) {
      z.in_member = false;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      eof_ = true;
      status_ = InputError("cannot read '" + path_ + "': corrupt gzip data (" +
                           (z.stream.msg ? z.stream.msg : "inflate failed") + ")");
      return produced > 0;
    }
    if (produced > 0) return true;
  }
}

LineReader::Next LineReader::Read(std::string_view& line) {
  bool discarding = false;
  while (true) {
    const void* hit =
        scan_ < end_ ? std::memchr(buffer_.data() + scan_, '\n', end_ - scan_) : nullptr;
    // [begin_, lf) holds no '\n'.
    const std::size_t lf =
        hit != nullptr ? static_cast<std::size_t>(static_cast<const char*>(hit) - buffer_.data())
                       : end_;
    // A CR alone ends a line too (classic Mac OS files, some Windows tools' logs) where no LF
    // is left in the buffer: a CR not followed by LF. Looked for only there, so an LF log pays
    // nothing per line (one search of its last partial line per chunk); a CR inside an
    // LF-ended line (a progress bar's) and the CR of CRLF stay on the line, left to the parser.
    // [begin_, cr_at_) holds no CR; a mark before `lf` is a CR, or stale (passed, or a chunk
    // read since).
    if (hit == nullptr && cr_at_ < lf) {
      if (cr_at_ < begin_ || buffer_[cr_at_] != '\r') {
        const std::size_t from = std::max(cr_at_, begin_);
        const void* cr = std::memchr(buffer_.data() + from, '\r', end_ - from);
        cr_at_ = cr != nullptr
                     ? static_cast<std::size_t>(static_cast<const char*>(cr) - buffer_.data())
                     : end_;
      }
      if (cr_at_ + 1 < lf) {
        const std::size_t start = begin_;
        const std::size_t at = cr_at_;
        begin_ = at + 1;
        scan_ = lf;  // [scan_, lf) holds no '\n': not searched again
        ++line_number_;
        if (discarding || at - start > line_cap_) return Next::kTooLong;
        line = std::string_view(buffer_.data() + start, at - start);
        return Next::kLine;
      }
    }
    if (hit != nullptr) {
      const std::size_t nl = lf;
      const std::size_t start = begin_;
      begin_ = scan_ = nl + 1;
      ++line_number_;
      if (discarding || nl - start > line_cap_) return Next::kTooLong;
      line = std::string_view(buffer_.data() + start, nl - start);
      return Next::kLine;
    }
    scan_ = end_;
    if (end_ - begin_ > line_cap_) {
      // Longer than the cap: forget what we have, keep reading to the end of this line.
      discarding = true;
      begin_ = scan_ = end_ = cr_at_ = 0;
    } else if (begin_ > 0 && buffer_.size() - 1 - end_ < kChunk) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      scan_ = end_;
      cr_at_ = cr_at_ > begin_ ? cr_at_ - begin_ : 0;
      begin_ = 0;
    }
    if (!Fill()) {
      if (end_ > begin_ || discarding) {  // the last line has no '\n'
        const std::size_t start = begin_;
        const std::size_t stop = end_;
        begin_ = scan_ = end_;
        ++line_number_;
        if (discarding || stop - start > line_cap_) return Next::kTooLong;
        line = std::string_view(buffer_.data() + start, stop - start);
        return Next::kLine;
      }
      return Next::kEnd;
    }
  }
}

}  // namespace dlcheck::verbose
