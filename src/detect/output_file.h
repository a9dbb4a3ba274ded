#pragma once
// Writing dlcheck's evidence files (`--save-raw DIR`) safely: a file is written whole under a
// fresh name in its directory and then renamed over the target, so a symlink planted at the
// target is replaced, never followed, and a reader never sees half a file. Every write is
// checked: a full disk is an OutputError, not a silent success.
//
//   Status saved = WriteFileReplacing(dir + "/cpuid.test", text);
//   if (!saved.ok()) return saved;

#include <string>
#include <string_view>

#include "common/status.h"

namespace dlcheck::detect {

/// A failure to write an output file: exit code kOutputError.
Status OutputError(std::string message);

/// Writes all of `content` to the open descriptor `fd`, retrying short writes. An error (ENOSPC
/// on a full disk, EFBIG past a file size limit, EIO) is an OutputError naming `path`.
Status WriteAll(int fd, std::string_view content, const std::string& path);

/// Creates `path` with `content` (mode 0644 less the umask): writes a temporary file in the same
/// directory, opened with O_CREAT|O_EXCL|O_NOFOLLOW, then renames it over `path`. What was at
/// `path` (a file, or a symlink to anywhere) is replaced; the temporary file is removed on
/// failure. Every failure is an OutputError naming `path`.
Status WriteFileReplacing(const std::string& path, std::string_view content);

}  // namespace dlcheck::detect
