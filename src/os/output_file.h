// SPDX-License-Identifier: Apache-2.0
#pragma once
// Every file dlcheck writes on the user's word (`-o/--output`, `--raw-log`, `--save-raw`,
// `--folded`, `--svg`) goes through here, so one rule holds for all of them:
// - a regular file, a new path, or a symlink (outside /dev and /proc) is written whole under a
//   fresh name in its directory, synced and renamed over the target: a reader never sees half a
//   file, a planted symlink is replaced and never followed, and a failed write leaves what was
//   there before;
// - a character device or a FIFO (/dev/null, a named pipe) is written straight into, as `cp`
//   does: it is never replaced by a regular file; so are the standard streams' names
//   (/dev/stdout, /dev/fd/N, /proc/self/fd/N), whatever they lead to;
// - a directory, a block device or a socket is refused.
// Every write, the sync, the close and the rename are checked: a full disk or /dev/full is an
// OutputFileError (exit 8), never a silent success.
//
//   OutputFile out;
//   if (Status opened = out.Open(path); !opened.ok()) return opened;   // before the work
//   out.stream() << ...;
//   if (Status written = out.Commit(); !written.ok()) return written;  // one dlcheck: line

#include <memory>
#include <ostream>
#include <string>
#include <string_view>

#include "common/status.h"
#include "os/removed_on_signal.h"

namespace dlcheck::os {

/// Writes all of `content` to the open descriptor `fd`, retrying short writes. An error (ENOSPC
/// on a full disk, EFBIG past a file size limit, EIO) is an OutputFileError naming `path`.
Status WriteAll(int fd, std::string_view content, const std::string& path);

/// One output file being written (see the file comment for what it does with each kind of
/// target). Not committed when it is destroyed: the temporary file is removed and the target is
/// left as it was (a device or FIFO keeps what was written into it).
class OutputFile {
 public:
  OutputFile();
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  /// Who may read a file it makes: everyone (0644, less the umask), or its owner alone (0600: a
  /// user's log spooled or captured into a scratch directory).
  enum class Access { kShared, kPrivate };
  /// Opens `path` for writing: creates the temporary file, or opens the device or FIFO (which
  /// waits for a FIFO's reader, as `cp` does). Errors (OutputFileError): a directory, a block
  /// device or socket, a directory that cannot be written into.
  Status Open(const std::string& path, Access access = Access::kShared);
  bool is_open() const { return fd_ >= 0; }
  /// Whether the target is written straight into (a device, a FIFO, a standard stream).
  bool writes_through() const { return through_; }
  const std::string& path() const { return path_; }
  /// The stream to write to (buffered); after the first failed write it takes nothing more.
  std::ostream& stream();
  /// Writes out what is buffered; for a temporary file also syncs, closes and renames it over
  /// the target. The first failure on the way (a write, the sync, the close, the rename) is the
  /// OutputFileError returned: "cannot write 'PATH': No space left on device".
  Status Commit();

 private:
  class Buffer;
  void Discard();

  std::string path_;
  std::string temporary_;  ///< the fresh name beside the target; empty when writing through
  RemovedOnSignal temporary_guard_;
  int fd_ = -1;
  bool through_ = false;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<std::ostream> stream_;
};

/// Writes `content` to `path` with OutputFile: whole, or an OutputFileError naming `path`.
Status WriteFileReplacing(const std::string& path, std::string_view content);

}  // namespace dlcheck::os
