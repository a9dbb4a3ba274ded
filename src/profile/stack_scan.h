// SPDX-License-Identifier: Apache-2.0
#pragma once
// The callers of oneDNN's JIT kernels, found by stack scanning as crash reporters do. JIT code
// has no unwind tables, so perf's DWARF unwinding stops at the kernel; but perf.data keeps each
// sample's user registers and a copy of its user stack. Scanning that copy upward from the
// stack pointer, a word is taken for a return address when it (a) falls in an executable file
// mapped into the process and (b) follows a call instruction in that file's bytes; it is named
// from the file's ELF symbol tables (.symtab, else .dynsym; demangled). Stale return addresses
// left in a frame's unused slots pass both tests too: scanned frames are a best effort, and the
// report says how many samples got them.
// What a scan keeps is bounded whatever the recording holds (ELF symbols of 4 KiB, demangled
// names of 16 KiB, 2^18 mappings, 512 files, 2^18 frames of distinct stacks, 64 MiB per perf
// map); past a bound the rest is left out and the bound is named (bounds_reached, a finding).
// Only regular files are read: a FIFO or a device named as a mapping or a perf map is not.
// (Dropping the frames found between a callee and a frame whose direct call goes to it was tried
// and undone: stale frames come in consistent chains, left by earlier calls, with live frames
// between them.)
//
//   StatusOr<ScannedStacks> scanned = ScanJitStacks("perf.data", "/tmp");
//   builder.UseScannedStacks(&*scanned);   // before the perf script records are added

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "profile/perf_data.h"
#include "profile/perf_map.h"
#include "profile/perf_script.h"

namespace dlcheck::profile {

/// A sample as both perf.data and `perf script --ns` name it: its thread and its time.
struct SampleKey {
  std::uint32_t tid = 0;
  std::uint64_t time_ns = 0;
  auto operator<=>(const SampleKey&) const = default;
};

/// The frames found above the JIT samples of a recording: each distinct caller stack kept once,
/// and per sample only its key and the stack's index, so that memory grows with the distinct
/// stacks and by 24 bytes per JIT sample, not with the frames of every sample.
class ScannedStacks {
 public:
  /// `callers` (leaf-nearest first, the JIT kernel itself not included) found for `sample`.
  void Add(SampleKey sample, const std::vector<Frame>& callers);
  /// The callers found for `sample`; nullptr when none were.
  const std::vector<Frame>* CallersOf(SampleKey sample) const;
  /// Samples with callers.
  std::size_t size() const { return samples_.size(); }
  /// Distinct caller stacks.
  std::size_t distinct() const { return stacks_.size(); }

  std::uint64_t jit_samples = 0;         ///< samples whose user IP lies in a perf map's code
  std::uint64_t jit_with_stack = 0;      ///< of these, those with user registers and stack copy
  std::uint64_t files_unreadable = 0;    ///< mapped files that could not be read as ELF
  bool stopped = false;                  ///< the caller's `stop` ended the scan early
  std::set<std::string> bounds_reached;  ///< each bound the scan reached, in words

 private:
  std::size_t stored_frames_ = 0;
  std::vector<std::vector<Frame>> stacks_;
  std::map<std::string, std::uint32_t> index_;  ///< a stack's frames, joined -> its index
  mutable std::vector<std::pair<SampleKey, std::uint32_t>> samples_;
  mutable bool sorted_ = true;
};

/// Return addresses in copies of threads' stacks, named: the executable file mappings of each
/// process (as perf.data's MMAP records give them) and those files' bytes and symbols.
class ReturnAddressScanner {
 public:
  /// `stop` (a signal) also stops the demangler's children (DemanglerBudget).
  explicit ReturnAddressScanner(std::function<bool()> stop = {});
  ~ReturnAddressScanner();
  ReturnAddressScanner(const ReturnAddressScanner&) = delete;
  ReturnAddressScanner& operator=(const ReturnAddressScanner&) = delete;

  /// A mapping of process `m.pid`; kept when it is executable code from a file on disk.
  void AddMapping(const PerfDataMmap& m);
  /// A new process starts with its parent's mappings.
  void Fork(const PerfDataFork& f);
  /// The return addresses among the 8-byte words of `stack` (from the stack pointer upward),
  /// as frames, leaf-nearest first: a word that lies in one of `pid`'s file mappings and follows
  /// a call instruction there, named "[unknown]" when no symbol covers its call.
  std::vector<Frame> Scan(std::uint32_t pid, std::span<const std::uint8_t> stack);
  /// Files mapped as code that could not be read as ELF (removed since, or no permission).
  std::uint64_t files_unreadable() const;
  /// The bounds reached (mappings, files), in words.
  const std::set<std::string>& bounds_reached() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

/// Scans the JIT samples of the perf.data at `perf_data_path`; the JIT code's ranges come from
/// the perf maps in `perf_map_dir` (PerfMapPath). `stop`, asked before each record, ends the
/// scan early (ScannedStacks::stopped: a signal). Error (kInputError): not a regular file, or
/// ReadPerfData's.
StatusOr<ScannedStacks> ScanJitStacks(const std::string& perf_data_path,
                                      std::string_view perf_map_dir = kPerfMapDir,
                                      const std::function<bool()>& stop = {});

/// The demangler children of one scan, as a whole: one at a time, each bounded in memory, all
/// of them together in time. Once the time is spent, or a signal stopped one (`stop`), a name
/// that would need a child stays mangled without one: 64 demangling bombs cost a few seconds
/// and 64 MiB at most, never dlcheck's memory or a wait without end.
class DemanglerBudget {
 public:
  static constexpr double kSeconds = 4.0;       ///< all children together
  static constexpr double kChildSeconds = 2.0;  ///< one child
  static constexpr std::size_t kChildMemoryBytes = std::size_t{64} << 20;  ///< one child

  explicit DemanglerBudget(std::function<bool()> stop = {}, double seconds = kSeconds)
      : stop_(std::move(stop)), seconds_(seconds), left_s_(seconds) {}

  /// `mangled` demangled in a child under what is left; nullopt when it failed, ran out, or
  /// when nothing is left (counted in left_mangled()).
  std::optional<std::string> CallChild(const std::function<std::string()>& demangle,
                                       std::size_t max_output_bytes);
  /// Names left mangled because the budget was spent or stopped.
  int left_mangled() const { return left_mangled_; }
  /// The bound in words, empty when it was never reached.
  std::string BoundReached() const;

 private:
  std::function<bool()> stop_;
  double seconds_;
  double left_s_;
  bool stopped_ = false;
  int left_mangled_ = 0;
};

/// A symbol as perf prints it: demangled (a name that is not C++'s "_Z..." stays as it is),
/// without the suffix GCC gives the parts and copies it splits off (".part.0", ".isra.0",
/// ".constprop.0", ".cold"). A name whose back references could expand it exponentially is
/// demangled in a child bounded in memory and time (os::CallInChild) under `budget`; one over
/// 4 KiB, or whose demangling fails or passes 16 KiB, stays mangled.
std::string Demangle(std::string_view name, DemanglerBudget& budget);
/// The same with a budget of its own.
std::string Demangle(std::string_view name);

/// Whether the `before` bytes (those just before a return address, the last byte adjacent to
/// it) end in an x86-64 call: E8 rel32, or FF /2 (call r/m64) in any of its lengths.
bool EndsInCall(std::span<const std::uint8_t> before);

/// The code ranges [start, end) of a perf map's text ("7f12ab001000 1a0 jit_kernel_name" lines).
std::vector<std::pair<std::uint64_t, std::uint64_t>> ParsePerfMapRanges(std::string_view text);

}  // namespace dlcheck::profile
