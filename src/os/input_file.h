// SPDX-License-Identifier: Apache-2.0
#pragma once
// Reading a user's input file whole, safely: the size is checked before anything is allocated,
// so /dev/zero, a runaway pipe or a huge file ends in one clear error, never in the OOM killer.
//
//   StatusOr<std::string> text = ReadInputFile(path, {"CPUID dump", "", kMaxInputBytes});
//   if (!text.ok()) return text.status();

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dlcheck::os {

/// The most any recorded input (a CPUID dump text, decompressed `.xz` included, or an hwloc XML
/// file) may hold: the largest real recording (384 CPUs) is under 2 MiB.
inline constexpr std::size_t kMaxInputBytes = std::size_t{64} << 20;

/// How an input file is named in messages, and how much of it may be read.
struct InputFileKind {
  std::string_view what;  ///< "CPUID dump", "topology file"
  std::string_view hint;  ///< appended to open errors ("; give an hwloc XML file ..."), or empty
  std::size_t max_bytes = kMaxInputBytes;
  /// A regular file only: a FIFO is refused too, without waiting for a writer (a file that
  /// another program names, such as a perf map in /tmp, which may never be written or end).
  bool regular_only = false;
};

/// Reads a regular file or a pipe/FIFO (a regular file only with `kind.regular_only`) of at
/// most `kind.max_bytes`. Anything else (a directory,
/// a character device such as /dev/zero, a socket) is refused before reading; a file larger than
/// the cap is refused before allocating; a read error is reported with its errno text. Every
/// failure is an InputError naming the file.
StatusOr<std::string> ReadInputFile(const std::string& path, const InputFileKind& kind);

/// A kernel file of /proc or /sys (or of a recorded copy of /proc) read whole, never throwing:
/// nullopt when it is gone, unreadable or larger than `max_bytes`. A process's files vanish
/// under a reader when it ends: read(2) of /proc/PID/maps fails with ESRCH once the task is
/// reaped, which a C++ stream read through istreambuf_iterator turns into an exception.
std::optional<std::string> ReadProcFile(const std::string& path,
                                        std::size_t max_bytes = kMaxInputBytes);

/// How much structure a JSON document may have: its nesting (arrays and objects inside each
/// other) and its values. A parser's stack grows with the nesting and its memory with the values,
/// so both are bounded before any JSON library sees the text.
struct JsonBounds {
  std::size_t max_depth = 64;                ///< dlcheck's own reports nest fewer than 10 deep
  std::size_t max_values = std::size_t(-1);  ///< arrays, objects and scalars together
};

/// Ok when `text` nests at most `bounds.max_depth` deep and holds at most `bounds.max_values`
/// values; else an InputError naming `what` and `path`. Only the structure is scanned (strings
/// are skipped with their escapes); whether the text is valid JSON is left to the parser.
Status CheckJsonBounds(std::string_view text, std::string_view what, const std::string& path,
                       const JsonBounds& bounds);

/// The most SpoolInput copies by default: more than any verbose log a training run writes to a
/// pipe, less than the free space a temporary directory can be expected to have.
inline constexpr std::size_t kMaxSpoolBytes = std::size_t{16} << 30;

/// Copies what the descriptor `fd` holds, read to its end, into `path`, a new file only its owner
/// may read (written as OutputFile writes it: whole, or not at all): standard input or a pipe
/// kept for readers that need it more than once. The bytes are copied as they are (compressed
/// data stays compressed). Errors: an InputError naming `what` when it cannot be read or holds
/// more than `max_bytes` ("standard input holds more than 16384 MiB, ..."); the OutputFileError
/// of a write that failed ("cannot write 'PATH': No space left on device").
Status SpoolInput(int fd, std::string_view what, const std::string& path,
                  std::size_t max_bytes = kMaxSpoolBytes);

/// "64 MiB" for a byte count that is a whole number of MiB, else "N bytes".
std::string ByteCountText(std::size_t bytes);

}  // namespace dlcheck::os
