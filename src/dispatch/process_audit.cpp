// SPDX-License-Identifier: Apache-2.0
#include "dispatch/process_audit.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iterator>
#include <sstream>
#include <tuple>

#include "common/finding_codes.h"
#include "os/input_file.h"

namespace dlcheck::dispatch {
namespace {

constexpr lib::Role kRoleOrder[] = {lib::Role::kOneDnn, lib::Role::kOpenMp,
                                    lib::Role::kBlas,   lib::Role::kAllocator,
                                    lib::Role::kEngine, lib::Role::kFramework};

// A /proc file read whole; empty when it is gone (the process ended) or unreadable.
std::string ReadSmall(const std::string& path) {
  return os::ReadProcFile(path).value_or(std::string());
}

std::string_view NextField(std::string_view& text) {
  const std::size_t start = text.find_first_not_of(" \t");
  if (start == std::string_view::npos) {
    text = {};
    return {};
  }
  text.remove_prefix(start);
  const std::size_t end = text.find_first_of(" \t");
  const std::string_view field = text.substr(0, end);
  text.remove_prefix(end == std::string_view::npos ? text.size() : end);
  return field;
}

template <typename Number>
std::optional<Number> NumberOf(std::string_view text) {
  Number value{};
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::vector<int> NumericEntries(const std::string& dir) {
  std::vector<int> ids;
  // increment(error), not ++: a task directory vanishes when its process ends, and ++ throws.
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    if (std::optional<int> id = NumberOf<int>(it->path().filename().string())) ids.push_back(*id);
  }
  return ids;
}

// The CPUs of "Cpus_allowed_list:\t0-3,8" in a /proc/PID/status text; empty when it has none.
std::vector<int> AllowedCpuList(std::string_view status) {
  constexpr std::string_view kKey = "Cpus_allowed_list:";
  const std::size_t at = status.find(kKey);
  if (at == std::string_view::npos) return {};
  std::string_view list = status.substr(at + kKey.size());
  list = list.substr(0, list.find('\n'));
  std::vector<int> cpus;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view range = list.substr(0, comma);
    list.remove_prefix(comma == std::string_view::npos ? list.size() : comma + 1);
    while (!range.empty() && (range.front() == ' ' || range.front() == '\t')) {
      range.remove_prefix(1);
    }
    const std::size_t dash = range.find('-');
    const std::optional<int> first = NumberOf<int>(range.substr(0, dash));
    const std::optional<int> last =
        dash == std::string_view::npos ? first : NumberOf<int>(range.substr(dash + 1));
    // A hostile or cut list counts as none rather than as millions of CPUs.
    if (!first || !last || *last < *first || *last - *first >= 65536) return {};
    for (int cpu = *first; cpu <= *last; ++cpu) cpus.push_back(cpu);
  }
  return cpus;
}

std::string Names(const std::vector<const MappedLibrary*>& libraries) {
  std::string text;
  for (const MappedLibrary* l : libraries) {
    if (!text.empty()) text += ", ";
    text += LibraryText(*l);
  }
  return text;
}

}  // namespace

std::vector<std::string> ExecutableMappings(std::string_view maps) {
  std::vector<std::string> files;
  std::set<std::string_view> seen;
  while (!maps.empty()) {
    const std::size_t newline = maps.find('\n');
    std::string_view line = maps.substr(0, newline);
    maps.remove_prefix(newline == std::string_view::npos ? maps.size() : newline + 1);
    NextField(line);  // the address range
    const std::string_view permissions = NextField(line);
    for (int i = 0; i < 3; ++i) NextField(line);  // offset, device, inode
    const std::size_t start = line.find_first_not_of(" \t");
    if (permissions.size() < 3 || permissions[2] != 'x' || start == std::string_view::npos) {
      continue;
    }
    std::string_view path = line.substr(start);
    if (!path.starts_with('/')) continue;  // [vdso], [anon:...], a JIT's anonymous code
    constexpr std::string_view kDeleted = " (deleted)";
    if (path.ends_with(kDeleted)) path.remove_suffix(kDeleted.size());
    if (seen.insert(path).second) files.emplace_back(path);
  }
  return files;
}

std::optional<TaskStat> ParseTaskStat(std::string_view line) {
  const std::size_t paren = line.rfind(')');
  if (paren == std::string_view::npos || line.find('(') > paren) return std::nullopt;
  std::string_view rest = line.substr(paren + 1);
  TaskStat stat;
  // Field 3 is the state; utime and stime are fields 14 and 15; vsize 23; processor 39.
  unsigned long long utime = 0, stime = 0;
  for (int field = 3; field <= 39; ++field) {
    const std::string_view text = NextField(rest);
    if (text.empty()) return std::nullopt;
    if (field == 3) {
      if (text.size() != 1) return std::nullopt;
      stat.state = text[0];
    } else if (field == 23) {
      const std::optional<unsigned long long> bytes = NumberOf<unsigned long long>(text);
      if (!bytes) return std::nullopt;
      stat.vsize = *bytes;
    } else if (field == 14 || field == 15) {
      const std::optional<unsigned long long> ticks = NumberOf<unsigned long long>(text);
      if (!ticks) return std::nullopt;
      (field == 14 ? utime : stime) = *ticks;
    } else if (field == 39) {
      const std::optional<int> cpu = NumberOf<int>(text);
      if (!cpu) return std::nullopt;
      stat.processor = *cpu;
    }
  }
  stat.cpu_ticks = utime + stime;
  return stat;
}

std::vector<const MappedLibrary*> ProcessAudit::Of(lib::Role role) const {
  std::vector<const MappedLibrary*> of;
  for (const MappedLibrary& l : libraries) {
    if (l.kind.role == role) of.push_back(&l);
  }
  return of;
}

std::vector<int> ProcessAuditor::Descendants(int pid) const {
  std::vector<int> all = {pid};
  // /proc/PID/task/TID/children lists each thread's children; followed breadth first.
  for (std::size_t next = 0; next < all.size() && all.size() < 4096; ++next) {
    const std::string tasks = proc_root_ + "/" + std::to_string(all[next]) + "/task";
    for (int tid : NumericEntries(tasks)) {
      std::istringstream children(ReadSmall(tasks + "/" + std::to_string(tid) + "/children"));
      for (int child; children >> child;) {
        if (std::find(all.begin(), all.end(), child) == all.end()) all.push_back(child);
      }
    }
  }
  return all;
}

void ProcessAuditor::SampleProcess(int pid, int& threads, int& runnable,
                                   std::set<int>& runnable_cpus) {
  const std::string dir = proc_root_ + "/" + std::to_string(pid);
  // Its mappings again only when its address space changed size (field 23 of its stat): a
  // Python program with PyTorch maps a thousand regions, and a launcher may start many processes.
  const std::optional<TaskStat> process = ParseTaskStat(ReadSmall(dir + "/stat"));
  const unsigned long long vsize = process ? process->vsize : 0;
  const auto [last, first_sight] = maps_read_at_vsize_.try_emplace(pid, vsize);
  if (first_sight || last->second != vsize || vsize == 0) {
    last->second = vsize;
    for (std::string& file : ExecutableMappings(ReadSmall(dir + "/maps"))) {
      if (seen_files_.insert(file).second) files_.push_back(std::move(file));
    }
  }
  for (int tid : NumericEntries(dir + "/task")) {
    const std::optional<TaskStat> stat =
        ParseTaskStat(ReadSmall(dir + "/task/" + std::to_string(tid) + "/stat"));
    if (!stat) continue;  // ended meanwhile
    ++threads;
    if (stat->state != 'R') continue;
    ++runnable;
    for (int cpu : AllowedCpuList(ReadSmall(dir + "/task/" + std::to_string(tid) + "/status"))) {
      runnable_cpus.insert(cpu);
    }
  }
}

void ProcessAuditor::Sample(int pid) {
  int threads = 0, runnable = 0, processes = 0;
  std::set<int> runnable_cpus;
  for (int process : Descendants(pid)) {
    const int before = threads;
    SampleProcess(process, threads, runnable, runnable_cpus);
    processes += threads > before;
  }
  if (processes == 0) return;  // it ended before this sample
  if (const std::vector<int> cpus =
          AllowedCpuList(ReadSmall(proc_root_ + "/" + std::to_string(pid) + "/status"));
      !cpus.empty()) {
    audit_.usable_cpus = static_cast<int>(cpus.size());
  }
  ++audit_.samples;
  audit_.processes_max = std::max(audit_.processes_max, processes);
  audit_.threads_max = std::max(audit_.threads_max, threads);
  audit_.runnable_max = std::max(audit_.runnable_max, runnable);
  // More runnable threads than the CPUs they may run on: they take turns.
  const int room = static_cast<int>(runnable_cpus.size());
  if (room > 0 && runnable > room) {
    ++audit_.crowded_samples;
    if (runnable - room > audit_.crowded_runnable - audit_.crowded_cpus) {
      audit_.crowded_runnable = runnable;
      audit_.crowded_cpus = room;
      audit_.crowded_cpu_list = std::vector<int>(runnable_cpus.begin(), runnable_cpus.end());
    }
  }
}

ProcessAudit ProcessAuditor::Result() const {
  ProcessAudit audit = audit_;
  for (lib::Role role : kRoleOrder) {
    const std::size_t first = audit.libraries.size();
    for (const std::string& file : files_) {
      const std::optional<lib::LibraryKind> kind = lib::KindOfLibrary(file);
      if (kind && kind->role == role) audit.libraries.push_back({file, *kind});
    }
    // By name, then path: /proc/PID/maps lists by address, which says nothing of load order.
    std::sort(audit.libraries.begin() + static_cast<std::ptrdiff_t>(first), audit.libraries.end(),
              [](const MappedLibrary& a, const MappedLibrary& b) {
                return std::tie(a.kind.name, a.path) < std::tie(b.kind.name, b.path);
              });
  }
  return audit;
}

std::function<void(int pid)> AuditSampler::Hook() {
  return [this](int pid) { Tick(pid); };
}

void AuditSampler::Tick(int pid) {
  using Clock = std::chrono::steady_clock;
  const auto after = [](double s) {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
  };
  const Clock::time_point now = Clock::now();
  if (!next_) next_ = now + after(kAuditFirstSampleS);
  if (now < *next_) return;
  auditor_.Sample(pid);
  next_ = Clock::now() + after(kAuditIntervalS);
}

std::string LibraryText(const MappedLibrary& library) {
  return fmt::format("{} ({})", library.kind.name, lib::BaseName(library.path));
}

namespace {

// Runnable threads beyond the CPUs they may run on: pinned together by an affinity narrower than
// the host's CPUs, or more of them than the host has.
Finding CrowdedFinding(const ProcessAudit& audit, int host_cpus) {
  const std::string seen = fmt::format("{} of {} samples", audit.crowded_samples, audit.samples);
  if (audit.crowded_cpus < host_cpus) {
    std::vector<std::string> cpus;
    for (int cpu : audit.crowded_cpu_list) cpus.push_back(std::to_string(cpu));
    return {.severity = Severity::kWarning,
            .code = codes::kThreadsShareACore,
            .message = fmt::format(
                "up to {} threads were runnable at once but could run only on CPU{} {} while {} "
                "are usable ({}): an affinity setting (taskset, numactl, GOMP_CPU_AFFINITY, "
                "KMP_AFFINITY, OMP_PLACES) pins them together; widen it, or run {} thread{}",
                audit.crowded_runnable, audit.crowded_cpus == 1 ? "" : "s", fmt::join(cpus, ","),
                host_cpus, seen, audit.crowded_cpus, audit.crowded_cpus == 1 ? "" : "s")};
  }
  return {
      .severity = Severity::kWarning,
      .code = codes::kPoolsOversubscribed,
      .message = fmt::format(
          "up to {} threads were runnable at once on {} usable CPU{} ({}): the thread pools "
          "oversubscribe the CPUs; set OMP_NUM_THREADS (and MKL_NUM_THREADS, "
          "OPENBLAS_NUM_THREADS) so that they add up to the CPUs",
          audit.crowded_runnable, audit.crowded_cpus, audit.crowded_cpus == 1 ? "" : "s", seen)};
}

}  // namespace

std::vector<Finding> AuditFindings(const ProcessAudit& audit, int host_cpus) {
  std::vector<Finding> findings;
  const std::vector<const MappedLibrary*> openmp = audit.Of(lib::Role::kOpenMp);
  if (openmp.size() >= 2) {
    findings.push_back(
        {.severity = Severity::kWarning,
         .code = codes::kTwoOpenmpRuntimes,
         .message = fmt::format(
             "the program mapped {} OpenMP runtimes ({}): each keeps its own pool of threads, "
             "which compete for the same CPUs and may oversubscribe them; have its libraries "
             "use one runtime (or preload one with LD_PRELOAD)",
             openmp.size(), Names(openmp))});
  }
  const std::vector<const MappedLibrary*> onednn = audit.Of(lib::Role::kOneDnn);
  if (onednn.size() >= 2) {
    findings.push_back(
        {.severity = Severity::kWarning,
         .code = codes::kTwoOnednnCopies,
         .message = fmt::format(
             "the program mapped {} copies of oneDNN ({}): each has its own primitive cache and "
             "settings, and ONEDNN_VERBOSE names both alike",
             onednn.size(), Names(onednn))});
  }
  for (const MappedLibrary* blas : audit.Of(lib::Role::kBlas)) {
    if (blas->kind.name != lib::kReferenceBlas) continue;
    findings.push_back(
        {.severity = Severity::kWarning,
         .code = codes::kReferenceBlas,
         .message = fmt::format(
             "the program's BLAS is the reference BLAS ({}): plain loops on one thread; "
             "install {} (Debian makes it libblas.so.3) or measure it with `dlcheck tune "
             "--groups blas`",
             blas->path, lib::kOptimizedBlasPackage)});
    break;
  }
  if (audit.samples >= 3 && 2 * audit.crowded_samples >= audit.samples) {
    findings.push_back(CrowdedFinding(audit, host_cpus));
  }
  return findings;
}

}  // namespace dlcheck::dispatch
