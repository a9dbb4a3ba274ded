#include "verbose/line_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>

namespace dlcheck::verbose {

struct LineReader::Inflater {
  z_stream stream{};
  std::vector<unsigned char> input;
  bool in_member = true;  // inside a gzip member (false after Z_STREAM_END until more data)
  ~Inflater() { inflateEnd(&stream); }
};

namespace {
constexpr std::size_t kChunk = std::size_t{1} << 18;  // 256 KiB per read
}

LineReader::LineReader() = default;

LineReader::~LineReader() {
  if (owns_fd_ && fd_ >= 0) close(fd_);
}

Status LineReader::Open(const std::string& path, std::size_t line_cap) {
  path_ = path;
  line_cap_ = line_cap;
  if (path == "-") {
    fd_ = STDIN_FILENO;
    owns_fd_ = false;
    path_ = "<stdin>";
  } else {
    fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) {
      return InputError("cannot open '" + path + "': " + std::strerror(errno));
    }
    owns_fd_ = true;
    struct stat st {};
    if (fstat(fd_, &st) == 0 && S_ISDIR(st.st_mode)) {
      return InputError("cannot read '" + path +
                        "': it is a directory (give a log file, or - for standard input)");
    }
  }
  buffer_.assign(line_cap_ + kChunk + 1, '\0');
  // Peek at the first bytes: gzip data starts with 1f 8b.
  std::vector<unsigned char> first(kChunk);
  long got = 0;
  while (got < 2) {
    const long n = ReadRaw(reinterpret_cast<char*>(first.data()) + got,
                           first.size() - static_cast<std::size_t>(got));
    if (n < 0) return status_;
    if (n == 0) break;
    got += n;
  }
  first.resize(static_cast<std::size_t>(got));
  if (got >= 2 && first[0] == 0x1f && first[1] == 0x8b) {
    inflater_ = std::make_unique<Inflater>();
    if (inflateInit2(&inflater_->stream, 16 + MAX_WBITS) != Z_OK) {
      return InputError("cannot read '" + path + "': zlib could not start");
    }
    inflater_->input = std::move(first);
    inflater_->stream.next_in = inflater_->input.data();
    inflater_->stream.avail_in = static_cast<uInt>(inflater_->input.size());
  } else {
    std::memcpy(buffer_.data(), first.data(), first.size());
    end_ = first.size();
    if (got == 0) eof_ = true;
  }
  return {};
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
    if (hit != nullptr) {
      const std::size_t nl =
          static_cast<std::size_t>(static_cast<const char*>(hit) - buffer_.data());
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
      begin_ = scan_ = end_ = 0;
    } else if (begin_ > 0 && buffer_.size() - 1 - end_ < kChunk) {
      std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      scan_ = end_;
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
