// SPDX-License-Identifier: Apache-2.0
#include "profile/perf.h"

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include "os/subprocess.h"
#include "profile/perf_script.h"

namespace dlcheck::profile {
namespace {

std::string_view ParanoidMeaning(int paranoid) {
  if (paranoid >= 3) return "only privileged users may use perf at all";
  if (paranoid == 2) return "unprivileged users may sample their own programs in user space only";
  if (paranoid == 1) return "unprivileged users may sample their own programs, kernel included";
  if (paranoid == 0) return "unprivileged users may sample CPU-wide, but not read tracepoints";
  return "no restriction";
}

bool LooksLikePermission(std::string_view text) {
  for (std::string_view word : {"ermission", "paranoid", "Access to performance monitoring",
                                "not permitted", "EACCES", "EPERM"}) {
    if (text.find(word) != std::string_view::npos) return true;
  }
  return false;
}

// Runs perf with `args`, its stdout thrown away; the outcome keeps the tail of its stderr.
StatusOr<os::Outcome> RunPerf(const std::vector<std::string>& argv, double timeout_s = 60) {
  const os::Spec spec{
      .argv = argv, .keep_stderr_tail = true, .read_to_end = true, .timeout_s = timeout_s};
  return os::RunProcess(spec, [](std::string_view) {});
}

std::vector<std::string> ProbeCommand(const PerfSettings& s, const std::string& scratch_dir,
                                      bool off_cpu) {
  PerfSettings probe = s;
  probe.data_path = scratch_dir + "/probe.data";
  std::vector<std::string> argv = RecordCommand(probe, off_cpu);
  argv.push_back("true");
  return argv;
}

}  // namespace

StatusOr<std::string> FindPerf(std::string_view path_list) {
  if (std::optional<std::string> perf = os::FindOnPath("perf", path_list)) return *perf;
  return Status(ExitCode::kUnsupported,
                "perf is not installed (not found on PATH): install Debian's linux-perf "
                "(apt-get install linux-perf) and run dlcheck profile again");
}

std::optional<int> ReadParanoid() {
  std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
  int value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

std::string FirstLine(std::string_view text) {
  std::string_view first;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.starts_with("Error:")) {  // perf's own verdict, when it gives one
      line.remove_prefix(6);
      while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
      return std::string(line);
    }
    // "'trace' not valid for hardware events. Ignoring.": a warning, not why perf failed.
    if (first.empty() && !line.ends_with("Ignoring.")) first = line;
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return std::string(first);
}

std::string NotPermittedMessage(std::string_view perf_stderr, std::optional<int> paranoid,
                                bool root) {
  const std::string said = FirstLine(perf_stderr);
  const std::string value = paranoid ? fmt::format("kernel.perf_event_paranoid is {} ({})",
                                                   *paranoid, ParanoidMeaning(*paranoid))
                                     : std::string("kernel.perf_event_paranoid could not be read");
  const std::string todo =
      root ? "this runs as root, so a container or security policy forbids perf_event_open: "
             "allow it (docker: --cap-add PERFMON or a seccomp profile that permits it)"
           : "run dlcheck as root, or allow sampling your own programs with "
             "'sudo sysctl kernel.perf_event_paranoid=2' (1 includes the kernel's stacks)";
  return fmt::format("perf may not record here ({}): {}; {}",
                     said.empty() ? "no reason given" : said, value, todo);
}

StatusOr<PerfProbe> ProbePerf(const PerfSettings& settings, const std::string& scratch_dir) {
  StatusOr<os::Outcome> on_cpu = RunPerf(ProbeCommand(settings, scratch_dir, false));
  if (!on_cpu.ok()) return on_cpu.status();
  if (!on_cpu->ok()) {
    const std::string& err = on_cpu->stderr_tail;
    if (LooksLikePermission(err)) {
      return Status(ExitCode::kUnsupported,
                    NotPermittedMessage(err, ReadParanoid(), geteuid() == 0));
    }
    return Status(ExitCode::kUnsupported,
                  fmt::format("perf record -e {} --call-graph {} failed ({}): check the event "
                              "name with 'perf list' (lbr needs an Intel CPU's last branch "
                              "records, which virtual machines seldom have)",
                              settings.event, settings.call_graph,
                              FirstLine(err).empty() ? "perf gave no reason" : FirstLine(err)));
  }
  PerfProbe probe;
  StatusOr<os::Outcome> off_cpu = RunPerf(ProbeCommand(settings, scratch_dir, true));
  if (!off_cpu.ok()) return off_cpu.status();
  probe.off_cpu = off_cpu->ok();
  if (!probe.off_cpu) {
    probe.off_cpu_reason = fmt::format(
        "perf may not record the sched:sched_switch tracepoint here ({}); it needs root, or "
        "kernel.perf_event_paranoid=-1 and read access to /sys/kernel/tracing",
        FirstLine(off_cpu->stderr_tail));
  }
  unlink((scratch_dir + "/probe.data").c_str());
  return probe;
}

std::string CallGraphArgument(std::string_view mode) {
  if (mode == "dwarf") return fmt::format("dwarf,{}", kDwarfStackBytes);
  return std::string(mode);
}

std::vector<std::string> RecordCommand(const PerfSettings& s, bool off_cpu) {
  std::vector<std::string> argv = {s.perf,
                                   "record",
                                   "--quiet",
                                   "--call-graph",
                                   CallGraphArgument(s.call_graph),
                                   "--freq",
                                   std::to_string(s.frequency),
                                   "--event",
                                   s.event,
                                   "--output",
                                   s.data_path,
                                   "--clockid",
                                   std::string(kRecordClock)};
  if (off_cpu) argv.insert(argv.end(), {"--event", "sched:sched_switch", "--switch-events"});
  argv.push_back("--");
  return argv;
}

std::vector<std::string> ScriptCommand(const PerfSettings& s) {
  // The fields per event type, so that each type is asked only for what it has: the `trace`
  // field exists for tracepoints (sched_switch) alone, and a list without a type would ask it
  // of the cycles or cpu-clock samples too. A type the recording lacks is passed over.
  constexpr std::string_view kSampleFields = "comm,pid,tid,time,event,ip,sym,dso";
  std::vector<std::string> argv = {s.perf, "script", "--input", s.data_path};
  for (std::string_view type : {"hw", "sw", "raw"}) {
    argv.insert(argv.end(), {"--fields", fmt::format("{}:{}", type, kSampleFields)});
  }
  argv.insert(argv.end(), {"--fields", "trace:comm,pid,tid,time,event,trace,ip,sym,dso",
                           "--show-switch-events", "--show-task-events", "--no-inline", "--ns"});
  return argv;
}

Status ReadPerfScript(const PerfSettings& s, const std::function<void(std::string_view)>& on_line) {
  const std::vector<std::string> argv = ScriptCommand(s);
  StatusOr<os::Outcome> ended = os::RunProcessLines(
      os::Spec{.argv = argv, .keep_stderr_tail = true, .read_to_end = true, .timeout_s = 3600},
      on_line);
  if (!ended.ok()) return ended.status();
  if (!ended->ok()) {
    const std::string said = FirstLine(ended->stderr_tail);
    return InputError(fmt::format("perf could not read its recording {} (perf script {}: {})",
                                  s.data_path, ended->Describe(),
                                  said.empty() ? "perf gave no reason" : said));
  }
  return {};
}

StatusOr<std::set<int>> ReadRecordedPids(const PerfSettings& s) {
  // The header's fields alone: a sample's line has no event, and only task events are kept.
  std::vector<std::string> argv = {s.perf, "script", "--input", s.data_path};
  for (std::string_view type : {"hw", "sw", "raw", "trace"}) {
    argv.insert(argv.end(), {"--fields", fmt::format("{}:comm,pid,tid,time", type)});
  }
  argv.push_back("--show-task-events");
  std::set<int> pids;
  PerfScriptParser parser([&pids](const PerfRecord& r) {
    if (r.kind != PerfRecord::Kind::kTask) return;
    for (int pid : {r.pid, r.forked_pid}) {
      if (pid > 0) pids.insert(pid);
    }
  });
  StatusOr<os::Outcome> ended = os::RunProcessLines(
      os::Spec{.argv = argv, .keep_stderr_tail = true, .read_to_end = true, .timeout_s = 600},
      [&parser](std::string_view line) {
        // Without a call graph to print, perf right-aligns the command name: no frame follows.
        line.remove_prefix(std::min(line.find_first_not_of(' '), line.size()));
        parser.Feed(line);
      });
  if (!ended.ok()) return ended.status();
  if (!ended->ok()) {
    return InputError(fmt::format("perf could not list the processes of {} (perf script {})",
                                  s.data_path, ended->Describe()));
  }
  parser.Finish();
  return pids;
}

Status CheckRecordingWritten(const PerfSettings& s) {
  struct stat info {};
  if (::stat(s.data_path.c_str(), &info) != 0) {
    return OutputFileError(fmt::format("perf wrote no recording to {} ({}): nothing to report",
                                       s.data_path, std::strerror(errno)));
  }
  if (!S_ISREG(info.st_mode) || info.st_size == 0) {
    return OutputFileError(fmt::format(
        "perf's recording {} is empty (a full file system, or a file that is not one): nothing "
        "to report",
        s.data_path));
  }
  return {};
}

}  // namespace dlcheck::profile
