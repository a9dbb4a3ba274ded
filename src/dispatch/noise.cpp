// SPDX-License-Identifier: Apache-2.0
#include "dispatch/noise.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>

#include "common/finding_codes.h"
#include "detect/binding.h"

namespace dlcheck::dispatch {

Spread SpreadOf(std::vector<double> values) {
  Spread s;
  s.runs = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  s.median = values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  s.min = values.front();
  s.max = values.back();
  return s;
}

bool Separated(const Spread& a, const Spread& b) {
  if (a.runs < 2 || b.runs < 2) return false;
  return a.max < b.min || b.max < a.min;
}

std::optional<LoadAverage> ReadLoadAverage(const std::string& path) {
  std::string from = path;
  if (from.empty()) {
    const char* hook = std::getenv("DLCHECK_LOADAVG");
    from = hook != nullptr && *hook != '\0' ? hook : "/proc/loadavg";
  }
  std::ifstream in(from);
  LoadAverage load;
  if (!(in >> load.one >> load.five >> load.fifteen)) return std::nullopt;
  if (!std::isfinite(load.one) || load.one < 0) return std::nullopt;
  return load;
}

int IdleCpus(int cpus, const LoadAverage& load) {
  const int busy = static_cast<int>(std::lround(load.one));
  return std::max(1, cpus - busy);
}

namespace {

// A positive count at the start of `text` ("4" or the outer level of "4,2"); nullopt otherwise.
std::optional<int> LeadingCount(std::string_view text) {
  text = text.substr(0, text.find(','));
  int count = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), count);
  if (ec != std::errc() || end != text.data() + text.size() || count < 1) return std::nullopt;
  return count;
}

// A default (the idle or all cores) held to the CPU budget; `from` says when the budget set it.
ThreadChoice WithinBudget(ThreadChoice choice, const os::CpuBudget& budget) {
  if (choice.threads <= budget.cpus) return choice;
  choice.threads = budget.cpus;
  choice.from = fmt::format("the CPU budget: {}", budget.Text());
  return choice;
}

}  // namespace

ThreadChoice ChooseThreads(int asked, int cores, const os::CpuBudget& budget,
                           const std::optional<LoadAverage>& load) {
  const int cpus = budget.cpus;
  ThreadChoice choice;
  if (asked > 0) {
    choice.from = "--threads";
    choice.threads = asked;
  } else if (const char* env = std::getenv("OMP_NUM_THREADS"); env != nullptr && *env != 0) {
    // A nested list ("4,2") starts with the outer level's count.
    if (std::optional<int> count = LeadingCount(env)) {
      choice.threads = *count;
    } else {
      const std::string_view text =
          std::string_view(env).substr(0, std::string_view(env).find(','));
      choice.capped = fmt::format("OMP_NUM_THREADS={}", text.substr(0, 40));
      choice.threads = cpus;
    }
    choice.from = "OMP_NUM_THREADS";
  } else if (load) {
    choice.threads = IdleCpus(cores, *load);
    choice.from =
        fmt::format("the idle cores: {} of {} at load {:.2f}", choice.threads, cores, load->one);
    return WithinBudget(std::move(choice), budget);
  } else {
    choice.threads = cores;
    choice.from = fmt::format("all {} cores (no load average)", cores);
    return WithinBudget(std::move(choice), budget);
  }
  if (choice.threads > cpus) {
    choice.capped = fmt::format("{} threads", choice.threads);
    choice.threads = cpus;
  }
  return choice;
}

StatusOr<ThreadChoice> ChooseLiveThreads(int asked, const std::optional<LoadAverage>& load) {
  StatusOr<std::vector<detect::ThreadSet>> all = detect::LiveThreadSets({"all"});
  if (!all.ok()) return all.status();
  return ChooseThreads(asked, all->front().threads, os::ReadCpuBudget(), load);
}

StatusOr<CaptureFrame> StartCaptureFrame(int asked) {
  CaptureFrame frame{.load_start = ReadLoadAverage()};
  StatusOr<ThreadChoice> threads = ChooseLiveThreads(asked, frame.load_start);
  if (!threads.ok()) return threads.status();
  frame.threads = std::move(*threads);
  return frame;
}

void EndCaptureFrame(CaptureFrame& frame) {
  frame.load_end = ReadLoadAverage();
}

std::vector<Finding> NoiseFindings(const CaptureFrame& frame) {
  return NoiseFindings(frame.threads, frame.load_start, frame.load_end);
}

std::vector<Finding> NoiseFindings(const ThreadChoice& threads,
                                   const std::optional<LoadAverage>& load_start,
                                   const std::optional<LoadAverage>& load_end) {
  std::vector<Finding> findings;
  if (!threads.capped.empty()) {
    findings.push_back(
        {.severity = Severity::kWarning,
         .code = codes::kThreadsCapped,
         .message = fmt::format("{} asked, but this process may use {} CPUs: capped to {} (more "
                                "OpenMP threads than CPUs only wait for each other, and a huge "
                                "count makes the OpenMP runtime fail)",
                                threads.capped, threads.threads, threads.threads)});
  }
  const double start = load_start ? load_start->one : 0, end = load_end ? load_end->one : 0;
  if (std::max(start, end) >= 1.0) {
    findings.push_back(
        {.severity = Severity::kWarning,
         .code = codes::kBusyMachine,
         .message = fmt::format("the machine was busy (load average {:.2f} at the start, {:.2f} "
                                "at the end): other work competes for the cores, so times vary; "
                                "compare the spread before trusting a difference",
                                start, end)});
  }
  return findings;
}

std::optional<ProgramThreads> ThreadsOfProgram(std::optional<int> log_threads,
                                               const char* environment_threads,
                                               const os::CpuBudget& budget, bool assume_default) {
  if (log_threads && *log_threads > 0) return ProgramThreads{*log_threads, "the log's nthr:"};
  if (environment_threads != nullptr && *environment_threads != '\0') {
    if (std::optional<int> count = LeadingCount(environment_threads)) {
      return ProgramThreads{*count, "OMP_NUM_THREADS"};
    }
  }
  if (!assume_default) return std::nullopt;
  return ProgramThreads{budget.affinity, "OpenMP's default, one per CPU of the affinity mask"};
}

std::optional<Finding> OversubscribedFinding(const ProgramThreads& threads,
                                             const os::CpuBudget& budget, std::string_view who,
                                             std::string_view here) {
  if (threads.threads <= budget.cpus) return std::nullopt;
  if (!here.empty() && threads.threads > budget.affinity) return std::nullopt;
  return Finding{
      .severity = Severity::kWarning,
      .code = codes::kOversubscribed,
      .message = fmt::format(
          "{} ran {} OpenMP threads ({}), but this process may use {}{}: the threads wait for "
          "each other{}; run it with OMP_NUM_THREADS={}",
          who, threads.threads, threads.from, budget.Text(), here,
          budget.QuotaBinds() ? " and for the cgroup's quota" : "", budget.cpus)};
}

}  // namespace dlcheck::dispatch
