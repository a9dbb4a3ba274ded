// SPDX-License-Identifier: Apache-2.0
#pragma once
// The rules every reader of a user's input follows, whatever the module.
//
// What is read: a regular file or a pipe (FIFO), which both
// end. A directory, a device (/dev/zero never ends; /dev/null, which a closed standard input is
// held by, says nothing) and a socket are refused before reading. Standard input may also be a
// terminal or a socket (a pipe by another name).
//
//   struct stat info {};
//   if (fstat(fd, &info) == 0) {
//     if (const std::string_view refused = RefusedInputType(info, false); !refused.empty()) ...
//   }

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string_view>

namespace dlcheck {

/// The most memory an .xz decoder may take (liblzma's memlimit): what `xz -9` data needs (a
/// 64 MiB dictionary and its tables). A header that asks for more, e.g. a 1 GiB dictionary from a
/// file of a few hundred bytes, is refused before anything is allocated.
inline constexpr std::uint64_t kMaxXzDecoderBytes = std::uint64_t{65} << 20;

/// What the file is, when dlcheck does not read such a file ("a directory", "a character
/// device", ...); empty when it may be read. `standard_input` also allows a terminal and a socket.
inline std::string_view RefusedInputType(const struct stat& info, bool standard_input) {
  const mode_t mode = info.st_mode;
  if (S_ISREG(mode) || S_ISFIFO(mode)) return {};
  if (standard_input && (S_ISSOCK(mode) || (S_ISCHR(mode) && ::isatty(STDIN_FILENO) == 1))) {
    return {};
  }
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

}  // namespace dlcheck
