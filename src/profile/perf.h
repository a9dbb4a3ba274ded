// SPDX-License-Identifier: Apache-2.0
#pragma once
// Linux perf at the edge: finding it, checking what this machine lets it record, the
// `perf record` command line that wraps a program, and `perf script` read back as a stream.
//
//   StatusOr<std::string> perf = FindPerf(getenv("PATH"));
//   PerfSettings s{.perf = *perf, .data_path = dir + "/perf.data"};
//   StatusOr<PerfProbe> probe = ProbePerf(s, dir);      // permission, off-CPU allowed?
//   argv = RecordCommand(s, probe->off_cpu) + {"python3", "train.py"};
//   ... run argv ...
//   ReadPerfScript(s, [&](std::string_view line) { parser.Feed(line); });

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dlcheck::profile {

/// The call-graph modes `--call-graph` takes: frame pointers, DWARF unwinding of a copy of each
/// sample's user stack, the CPU's last branch records (Intel, not in virtual machines).
inline constexpr std::string_view kCallGraphModes[] = {"fp", "dwarf", "lbr"};
/// The user stack bytes copied per sample in dwarf mode: perf's own default (8192) loses the
/// root of PyTorch's deep stacks, 65528 (its maximum) makes recordings eight times larger.
inline constexpr int kDwarfStackBytes = 16384;
/// The default mode: DWARF, because Debian builds Python, libtorch and oneDNN without frame
/// pointers, so frame pointers stop one frame above the leaf (README: "Call graphs").
inline constexpr std::string_view kDefaultCallGraph = "dwarf";

/// The clock perf record stamps samples with, so that samples join oneDNN's executions by time
/// (exec_join.h): CLOCK_MONOTONIC, which the verbose timestamps (the wall clock) are moved to.
/// Not CLOCK_REALTIME itself: the kernel refuses it for the sched_switch tracepoint ("wrong
/// clockid"), as it does CLOCK_TAI and CLOCK_BOOTTIME.
inline constexpr std::string_view kRecordClock = "CLOCK_MONOTONIC";

/// perf record's --call-graph argument for a mode: "dwarf,16384" for "dwarf".
std::string CallGraphArgument(std::string_view mode);

struct PerfSettings {
  std::string perf;              ///< the perf executable
  std::string event = "cycles";  ///< on-CPU event; perf itself falls back to cpu-clock where
                                 ///< the machine has no hardware counters (virtual machines)
  int frequency = 999;           ///< samples per second and CPU
  std::string call_graph = std::string(kDefaultCallGraph);  ///< perf record --call-graph
  std::string data_path;                                    ///< perf.data
};

/// What the machine lets perf record, found by recording `true`.
struct PerfProbe {
  bool off_cpu = false;        ///< sched:sched_switch may be recorded
  std::string off_cpu_reason;  ///< why not, when it may not
};

/// The perf executable on `path_list` (PATH's syntax). Error (ExitCode::kUnsupported): not
/// found, naming Debian's package.
StatusOr<std::string> FindPerf(std::string_view path_list);

/// Records `true` with the settings' event, and then with the off-CPU tracepoint too. Error
/// (kUnsupported) when perf may not record at all: NotPermittedMessage.
StatusOr<PerfProbe> ProbePerf(const PerfSettings& settings, const std::string& scratch_dir);

/// `perf record ... --`: the words to put before the program's own.
std::vector<std::string> RecordCommand(const PerfSettings& settings, bool off_cpu);

/// `perf script` over the settings' data file: its fields asked per event type (hw, sw, raw,
/// trace), `trace` of tracepoints only, so that no field is invalid for the event recorded.
std::vector<std::string> ScriptCommand(const PerfSettings& settings);

/// Runs `perf script` over the settings' data file and hands on each line of its output as it
/// is written. Error (kInputError) when perf script fails: the recording could not be read; its
/// last words are in the message.
Status ReadPerfScript(const PerfSettings& settings,
                      const std::function<void(std::string_view)>& on_line);

/// The processes the settings' recording saw begin, fork or end (perf's task events), read by a
/// pass that asks no sample for its stack (a fraction of a second on a 30 MB recording): whose
/// perf maps a run may remove when the full reading failed. Error (kInputError) when perf
/// script fails.
StatusOr<std::set<int>> ReadRecordedPids(const PerfSettings& settings);

/// OK when perf record left a recording at the settings' data file; else (kOutputError) why
/// there is none to read: no file, or an empty one (a full file system, /dev/null).
Status CheckRecordingWritten(const PerfSettings& settings);

/// kernel.perf_event_paranoid (/proc/sys/kernel/perf_event_paranoid), nullopt when unreadable.
std::optional<int> ReadParanoid();

/// The error for a perf that may not record: what perf said (its first line), the paranoid
/// value and what it means, and what to do (run as root, or the sysctl).
std::string NotPermittedMessage(std::string_view perf_stderr, std::optional<int> paranoid,
                                bool root);

/// The first line of `text` that says something (perf's stderr), without the line end: perf's
/// own "Error:" verdict where it gives one; never a warning that ends in "Ignoring.".
std::string FirstLine(std::string_view text);

}  // namespace dlcheck::profile
