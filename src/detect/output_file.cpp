#include "detect/output_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace dlcheck::detect {
namespace {

Status WriteError(const std::string& path, int error) {
  return OutputError(fmt::format("cannot write '{}': {}", path, std::strerror(error)));
}

// Opens a new, empty temporary file next to `base` in `dir_fd`; its name goes to `name`.
int CreateTemporary(int dir_fd, const std::string& base, std::string& name) {
  for (int attempt = 0; attempt < 100; ++attempt) {
    name = fmt::format(".{}.{}.{}.tmp", base, ::getpid(), attempt);
    const int fd =
        ::openat(dir_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

}  // namespace

Status OutputError(std::string message) {
  return Status(ExitCode::kOutputError, std::move(message));
}

Status WriteAll(int fd, std::string_view content, const std::string& path) {
  while (!content.empty()) {
    const ssize_t wrote = ::write(fd, content.data(), content.size());
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) return WriteError(path, wrote < 0 ? errno : EIO);
    content.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return Status();
}

Status WriteFileReplacing(const std::string& path, std::string_view content) {
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  const std::string base = target.filename().string();
  const int dir_fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return WriteError(path, errno);
  std::string temporary;
  const int fd = CreateTemporary(dir_fd, base, temporary);
  if (fd < 0) {
    const int error = errno;
    ::close(dir_fd);
    return WriteError(path, error);
  }
  Status status = WriteAll(fd, content, path);
  if (::close(fd) != 0 && status.ok()) status = WriteError(path, errno);
  // rename() replaces a symlink at the target itself; it never writes through it.
  if (status.ok() && ::renameat(dir_fd, temporary.c_str(), dir_fd, base.c_str()) != 0) {
    status = WriteError(path, errno);
  }
  if (!status.ok()) ::unlinkat(dir_fd, temporary.c_str(), 0);
  ::close(dir_fd);
  return status;
}

}  // namespace dlcheck::detect
