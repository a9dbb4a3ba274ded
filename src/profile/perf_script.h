// SPDX-License-Identifier: Apache-2.0
#pragma once
// `perf script` text -> records, one at a time, as the text streams in. dlcheck asks perf for
//
//   perf script -F comm,pid,tid,time,event,trace,ip,sym,dso --show-switch-events --no-inline --ns
//
// which prints a header line per record and, for samples with a call graph, one frame per line
// (leaf first), then a blank line:
//
//   python3 4242/4243 12673.963922:          cpu-clock:
//   	    7f12ab001040 jit_avx2_gemm_f32_kern ([jit] or /tmp/perf-4242.map)
//   	    7f12cd0a2b10 gomp_thread_start (/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0)
//
//   sleep 31086/31086 12674.016552: sched:sched_switch: prev_comm=sleep prev_pid=31086 ...
//   sleep 31339/31339 12690.497490: PERF_RECORD_SWITCH IN
//
// Lines it cannot read are counted, never fatal.

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck::profile {

/// One frame of a call graph: the symbol perf resolved ("[unknown]" when none) and the object
/// it is in ("[kernel.kallsyms]", "/usr/lib/.../libgomp.so.1", "/tmp/perf-4242.map").
struct Frame {
  std::string symbol;
  std::string dso;
  /// Found by stack scanning (stack_scan.h), not unwound: a best effort, marked as such in
  /// stacks ("_[s]") and flame graphs (hatched).
  bool scanned = false;
};

/// One record of `perf script`.
struct PerfRecord {
  /// kTask: a process or thread began (COMM exec, FORK) or ended (EXIT): perf's task events.
  enum class Kind { kSample, kSwitchIn, kSwitchOut, kTask };
  Kind kind = Kind::kSample;
  std::string comm;
  int pid = 0;
  int tid = 0;
  double time_s = 0;          ///< perf's clock, seconds
  std::uint64_t time_ns = 0;  ///< the same, nanoseconds: exact with `perf script --ns`
  std::string event;          ///< "cpu-clock", "cycles", "sched:sched_switch"; empty for switches
  std::string trace;          ///< a tracepoint's fields ("prev_comm=... prev_state=S ==> ...")
  std::vector<Frame> frames;  ///< leaf first; empty without a call graph
  int forked_pid = 0;         ///< a FORK's new process (or the forking one, for a thread)
};

/// Reads `perf script` line by line; calls `on_record` for every complete record.
class PerfScriptParser {
 public:
  explicit PerfScriptParser(std::function<void(const PerfRecord&)> on_record)
      : on_record_(std::move(on_record)) {}

  /// One line, without its line end.
  void Feed(std::string_view line);
  /// Hands on the last record (the text need not end in a blank line).
  void Finish();

  std::uint64_t records() const { return records_; }
  /// Lines that were neither a record header, a frame nor blank.
  std::uint64_t skipped_lines() const { return skipped_; }

 private:
  void Flush();

  std::function<void(const PerfRecord&)> on_record_;
  PerfRecord current_;
  bool open_ = false;
  std::uint64_t records_ = 0;
  std::uint64_t skipped_ = 0;
};

/// The header line of a record, or false when `line` is not one.
bool ParseRecordHeader(std::string_view line, PerfRecord& record);
/// A frame line ("\t    7f12ab001040 symbol (dso)"), or false when `line` is not one.
bool ParseFrameLine(std::string_view line, Frame& frame);
/// A field of a tracepoint's text: TraceField("prev_state=S ==> next_pid=3", "prev_state") is
/// "S"; empty when absent.
std::string_view TraceField(std::string_view trace, std::string_view name);

}  // namespace dlcheck::profile
