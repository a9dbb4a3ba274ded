// SPDX-License-Identifier: Apache-2.0
#include "os/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <streambuf>
#include <vector>

namespace dlcheck::os {
namespace {

Status WriteError(const std::string& path, int error) {
  return OutputFileError(fmt::format("cannot write '{}': {}", path, std::strerror(error)));
}

// The longest file name most file systems take (ext4, xfs, btrfs, tmpfs: NAME_MAX).
constexpr std::size_t kMaxNameBytes = 255;

// Opens a new, empty temporary file next to `base` in `dir`; its path goes to `temporary`. The
// name is ".BASE.PID.N.tmp", with BASE cut so that the name fits kMaxNameBytes: a target whose
// own name is near the limit still gets a temporary beside it.
int CreateTemporary(const std::string& dir, const std::string& base, mode_t mode,
                    std::string& temporary) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    const std::string suffix = fmt::format(".{}.{}.tmp", ::getpid(), attempt);
    const std::size_t room = kMaxNameBytes - 1 - suffix.size();
    temporary = fmt::format("{}/.{}{}", dir, std::string_view(base).substr(0, room), suffix);
    const int fd =
        ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// The names of the standard streams and of open descriptors: symlinks the kernel makes
// (/dev/stdout -> /proc/self/fd/1), followed to what they stand for, never replaced.
bool IsStreamName(const std::string& path) {
  return path.rfind("/dev/", 0) == 0 || path.rfind("/proc/", 0) == 0;
}

// How a target is written: replaced through a temporary file, written straight into, or
// refused (the reason in the message).
enum class Route { kReplace, kThrough, kThroughAppending };

StatusOr<Route> RouteFor(const std::string& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0) {
    if (errno == ENOENT) return Route::kReplace;
    return WriteError(path, errno);
  }
  struct stat target = link;
  if (S_ISLNK(link.st_mode)) {
    if (!IsStreamName(path)) return Route::kReplace;  // never followed: replaced
    if (::stat(path.c_str(), &target) != 0) return WriteError(path, errno);
    // /dev/stdout on a regular file: after what the shell's redirection already holds.
    if (S_ISREG(target.st_mode)) return Route::kThroughAppending;
  }
  if (S_ISREG(target.st_mode)) return Route::kReplace;
  if (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode)) return Route::kThrough;
  if (S_ISDIR(target.st_mode)) return WriteError(path, EISDIR);
  const char* kind = S_ISBLK(target.st_mode) ? "a block device" : "a socket";
  return OutputFileError(
      fmt::format("cannot write '{}': it is {}; dlcheck writes into regular "
                  "files, character devices and FIFOs only",
                  path, kind));
}

}  // namespace

// The stream's buffer over the descriptor: the first failed write is kept, and from then on
// nothing more is taken (the stream goes bad).
class OutputFile::Buffer : public std::streambuf {
 public:
  Buffer(int fd, const std::string& path) : fd_(fd), path_(path), data_(64 * 1024) {
    setp(data_.data(), data_.data() + data_.size());
  }
  const Status& error() const { return error_; }
  bool Flush() {
    if (!error_.ok()) return false;
    const std::string_view pending(pbase(), static_cast<std::size_t>(pptr() - pbase()));
    error_ = WriteAll(fd_, pending, path_);
    setp(data_.data(), data_.data() + data_.size());
    return error_.ok();
  }

 protected:
  int_type overflow(int_type c) override {
    if (!Flush()) return traits_type::eof();
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    *pptr() = traits_type::to_char_type(c);
    pbump(1);
    return c;
  }
  int sync() override { return Flush() ? 0 : -1; }

 private:
  int fd_;
  const std::string& path_;
  std::vector<char> data_;
  Status error_;
};

Status WriteAll(int fd, std::string_view content, const std::string& path) {
  while (!content.empty()) {
    const ssize_t wrote = ::write(fd, content.data(), content.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return WriteError(path, wrote < 0 ? errno : EIO);
    content.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return Status();
}

OutputFile::OutputFile() = default;

OutputFile::~OutputFile() {
  Discard();
}

void OutputFile::Discard() {
  stream_.reset();
  buffer_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temporary_.empty()) ::unlink(temporary_.c_str());
  temporary_.clear();
  temporary_guard_.Release();
}

Status OutputFile::Open(const std::string& path, Access access) {
  Discard();
  path_ = path;
  StatusOr<Route> route = RouteFor(path);
  if (!route.ok()) return route.status();
  through_ = *route != Route::kReplace;
  if (through_) {
    const int append = *route == Route::kThroughAppending ? O_APPEND : 0;
    fd_ = ::open(path.c_str(), O_WRONLY | O_NOCTTY | O_CLOEXEC | append);
    if (fd_ < 0) return WriteError(path, errno);
  } else {
    const std::filesystem::path target(path);
    const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
    const mode_t mode = access == Access::kPrivate ? 0600 : 0644;
    fd_ = CreateTemporary(dir, target.filename().string(), mode, temporary_);
    if (fd_ < 0) {
      const int error = errno;
      temporary_.clear();
      return WriteError(path, error);
    }
    temporary_guard_.Reset(temporary_);
  }
  buffer_ = std::make_unique<Buffer>(fd_, path_);
  stream_ = std::make_unique<std::ostream>(buffer_.get());
  return Status();
}

std::ostream& OutputFile::stream() {
  return *stream_;
}

Status OutputFile::Commit() {
  if (fd_ < 0) return OutputFileError(fmt::format("cannot write '{}': not open", path_));
  Status status = buffer_->Flush() ? Status() : buffer_->error();
  // A temporary file is synced before it replaces the target: a write the disk refuses late
  // (quota, NFS) is an error here, not a lost file after dlcheck said it was written.
  if (status.ok() && !through_ && ::fsync(fd_) != 0) status = WriteError(path_, errno);
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0 && status.ok() && errno != EINTR) status = WriteError(path_, errno);
  // rename() replaces a symlink at the target itself; it never writes through it.
  if (status.ok() && !temporary_.empty() && ::rename(temporary_.c_str(), path_.c_str()) != 0) {
    status = WriteError(path_, errno);
  }
  if (status.ok()) temporary_.clear();
  Discard();
  return status;
}

Status WriteFileReplacing(const std::string& path, std::string_view content) {
  OutputFile out;
  if (Status opened = out.Open(path); !opened.ok()) return opened;
  out.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  return out.Commit();
}

}  // namespace dlcheck::os
