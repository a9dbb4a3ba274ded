// SPDX-License-Identifier: Apache-2.0
#include "os/input_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "common/input_rules.h"
#include "os/output_file.h"

namespace dlcheck::os {
namespace {

// Closes the descriptor when the read is over, whatever the outcome.
class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  ~FileDescriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

Status TooLarge(const std::string& path, const InputFileKind& kind) {
  return InputError(fmt::format("{} '{}' is larger than {}, the most dlcheck reads", kind.what,
                                path, ByteCountText(kind.max_bytes)));
}

// Reads until end of file, at most max_bytes + 1 bytes (one more tells "too large").
StatusOr<std::string> ReadAll(int fd, const std::string& path, const InputFileKind& kind,
                              std::size_t expected) {
  std::string bytes;
  bytes.reserve(expected + 1);
  char buffer[1 << 16];
  while (bytes.size() <= kind.max_bytes) {
    const ssize_t got = ::read(fd, buffer, sizeof(buffer));
    if (got == 0) return bytes;
    if (got < 0) {
      if (errno == EINTR) continue;
      return InputError(
          fmt::format("cannot read {} '{}': {}", kind.what, path, std::strerror(errno)));
    }
    bytes.append(buffer, static_cast<std::size_t>(got));
  }
  return TooLarge(path, kind);
}

}  // namespace

Status SpoolInput(int fd, std::string_view what, const std::string& path, std::size_t max_bytes) {
  OutputFile out;
  if (Status opened = out.Open(path, OutputFile::Access::kPrivate); !opened.ok()) return opened;
  std::vector<char> buffer(std::size_t{1} << 16);
  std::size_t copied = 0;
  while (true) {
    const ssize_t got = ::read(fd, buffer.data(), buffer.size());
    if (got == 0) break;
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return InputError(fmt::format("cannot read {}: {}", what, std::strerror(errno)));
    copied += static_cast<std::size_t>(got);
    if (copied > max_bytes) {
      return InputError(
          fmt::format("{} holds more than {}, the most dlcheck copies to read it again", what,
                      ByteCountText(max_bytes)));
    }
    // A failed write leaves the stream bad; Commit returns the first failure.
    if (!out.stream().write(buffer.data(), got)) break;
  }
  return out.Commit();
}

std::string ByteCountText(std::size_t bytes) {
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  if (bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  return fmt::format("{} bytes", bytes);
}

Status CheckJsonBounds(std::string_view text, std::string_view what, const std::string& path,
                       const JsonBounds& bounds) {
  std::size_t depth = 0;
  std::size_t values = 0;
  bool in_string = false;
  bool in_scalar = false;  // inside a number or a literal (true, false, null)
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    const bool starts_container = c == '[' || c == '{';
    const bool starts_scalar = !in_scalar && (c == '"' || c == '-' || c == 't' || c == 'f' ||
                                              c == 'n' || (c >= '0' && c <= '9'));
    in_scalar = c != '"' && (starts_scalar || (in_scalar && c != ',' && c != ']' && c != '}' &&
                                               c != ' ' && c != '\n' && c != '\t' && c != '\r'));
    if (starts_container || starts_scalar) ++values;
    if (values > bounds.max_values) {
      return InputError(
          fmt::format("{} '{}' holds more than {} JSON values, the most dlcheck reads", what, path,
                      bounds.max_values));
    }
    if (c == '"') in_string = true;
    if (starts_container && ++depth > bounds.max_depth) {
      return InputError(fmt::format("{} '{}' nests JSON more than {} deep, the most dlcheck reads",
                                    what, path, bounds.max_depth));
    }
    if ((c == ']' || c == '}') && depth > 0) --depth;
  }
  return {};
}

StatusOr<std::string> ReadInputFile(const std::string& path, const InputFileKind& kind) {
  // O_NONBLOCK: opening a FIFO returns at once (it is refused below when only a regular file
  // may be read); reads of a regular file never block anyway.
  const int nonblock = kind.regular_only ? O_NONBLOCK : 0;
  const FileDescriptor fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | nonblock));
  if (fd.get() < 0) {
    return InputError(
        fmt::format("cannot open {} '{}': {}{}", kind.what, path, std::strerror(errno), kind.hint));
  }
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) {
    return InputError(
        fmt::format("cannot read {} '{}': {}", kind.what, path, std::strerror(errno)));
  }
  std::string_view refused = RefusedInputType(info, false);
  if (kind.regular_only && S_ISFIFO(info.st_mode)) refused = "a FIFO";
  if (!refused.empty()) {
    if (S_ISDIR(info.st_mode)) {
      return InputError(
          fmt::format("cannot read {} '{}': it is a directory{}", kind.what, path, kind.hint));
    }
    return InputError(fmt::format("cannot read {} '{}': it is {}, not a regular file{}", kind.what,
                                  path, refused, kind.regular_only ? "" : " or a pipe"));
  }
  const std::size_t size = S_ISREG(info.st_mode) ? static_cast<std::size_t>(info.st_size) : 0;
  if (size > kind.max_bytes) return TooLarge(path, kind);
  return ReadAll(fd.get(), path, kind, size);
}

std::optional<std::string> ReadProcFile(const std::string& path, std::size_t max_bytes) {
  StatusOr<std::string> text = ReadInputFile(
      path, {.what = "/proc file", .hint = "", .max_bytes = max_bytes, .regular_only = true});
  if (!text.ok()) return std::nullopt;
  return std::move(*text);
}

}  // namespace dlcheck::os
