// SPDX-License-Identifier: Apache-2.0
#pragma once
// perf.data read as a stream, without perf: the file header, the event attributes and the data
// section's records, of which dlcheck needs the samples' user registers and user stack copy
// (what `--call-graph dwarf` records) and the processes' executable mappings. The layout is
// the kernel's (linux/perf_event.h) and perf's
// (tools/perf/Documentation/perf.data-file-format.txt).
//
//   std::ifstream in(path, std::ios::binary);
//   PerfDataVisitor v{.on_sample = [&](const PerfDataSample& s) { ... },
//                     .on_mmap = [&](const PerfDataMmap& m) { ... }};
//   Status read = ReadPerfData(in, v);

#include <cstdint>
#include <functional>
#include <istream>
#include <span>
#include <string>

#include "common/status.h"

namespace dlcheck::profile {

/// One PERF_RECORD_SAMPLE: who, when, where, and, when the event recorded them, the stack
/// pointer and the copy of the user stack from it upward.
struct PerfDataSample {
  std::uint32_t pid = 0;
  std::uint32_t tid = 0;
  std::uint64_t time_ns = 0;  ///< perf's clock, what `perf script --ns` prints
  std::uint64_t ip = 0;
  bool has_user_regs = false;  ///< sp is the user stack pointer (PERF_SAMPLE_REGS_USER)
  std::uint64_t sp = 0;
  /// Where user space was: `ip` for a sample in user space, the instruction that entered the
  /// kernel (a page fault, a system call) for one in the kernel; 0 without user registers.
  std::uint64_t user_ip = 0;
  std::span<const std::uint8_t> stack;  ///< the valid bytes of the stack copy, from sp upward
};

/// One PERF_RECORD_MMAP or MMAP2: a file (or "//anon", "[vdso]", ...) mapped into a process.
struct PerfDataMmap {
  std::uint32_t pid = 0;
  std::uint64_t start = 0;
  std::uint64_t length = 0;
  std::uint64_t file_offset = 0;  ///< pgoff: the file offset mapped at `start`
  bool executable = false;
  std::string filename;
};

/// PERF_RECORD_FORK: a new process (pid != ppid) starts with a copy of its parent's mappings.
struct PerfDataFork {
  std::uint32_t pid = 0;
  std::uint32_t ppid = 0;
};

/// What to do with each record; a callback left empty passes that kind over.
struct PerfDataVisitor {
  std::function<void(const PerfDataSample&)> on_sample;
  std::function<void(const PerfDataMmap&)> on_mmap;
  std::function<void(const PerfDataFork&)> on_fork;
  /// Asked before each record; true ends the read there (a signal: the caller's word), with
  /// PerfDataCounts::stopped set.
  std::function<bool()> stop;
};

/// The most event ids a perf.data may name, all events together: one per CPU and event, so a
/// recording of 64 events on 4,096 CPUs; more is refused before they are stored.
inline constexpr std::uint64_t kMaxPerfDataIds = std::uint64_t{1} << 18;

/// What a read saw.
struct PerfDataCounts {
  std::uint64_t records = 0;
  std::uint64_t samples = 0;
  std::uint64_t samples_with_stack = 0;  ///< samples that carry user registers and a stack copy
  bool stopped = false;                  ///< the visitor's `stop` ended the read early
};

/// Reads the perf.data in `in` (a file written by `perf record`, not a pipe) and hands each
/// sample, mapping and fork to `visitor` in file order. Error (kInputError): not perf.data,
/// cut short, more than 4,096 events or kMaxPerfDataIds ids, or events that cannot be told
/// apart (several with different sample layouts and no PERF_SAMPLE_IDENTIFIER).
StatusOr<PerfDataCounts> ReadPerfData(std::istream& in, const PerfDataVisitor& visitor);

}  // namespace dlcheck::profile
