// SPDX-License-Identifier: Apache-2.0
#include "profile/perf_script.h"

#include <cctype>
#include <charconv>
#include <cstdlib>

namespace dlcheck::profile {
namespace {

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t';
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && (IsSpace(text.back()) || text.back() == '\r')) text.remove_suffix(1);
  return text;
}

bool ToInt(std::string_view digits, int& value) {
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return error == std::errc() && end == digits.data() + digits.size();
}

// Where " PID/TID SECONDS.FRACTION:" sits in a header line; the command name before it may hold
// spaces and slashes of its own ("kworker/0:1", "GC Thread#0").
struct HeaderSpan {
  std::size_t pid_begin = 0;
  std::size_t rest_begin = 0;  ///< after the time's colon
  int pid = 0;
  int tid = 0;
  double time_s = 0;
  std::uint64_t time_ns = 0;
};

// "5268.246705" (microseconds) or "5268.246705123" (--ns) as nanoseconds.
std::uint64_t Nanoseconds(std::string_view seconds) {
  const std::size_t dot = seconds.find('.');
  std::uint64_t whole = 0;
  std::from_chars(seconds.data(), seconds.data() + std::min(dot, seconds.size()), whole);
  std::uint64_t fraction = 0;
  if (dot != std::string_view::npos) {
    std::string digits(seconds.substr(dot + 1, 9));
    digits.resize(9, '0');
    std::from_chars(digits.data(), digits.data() + digits.size(), fraction);
  }
  return whole * 1'000'000'000 + fraction;
}

bool MatchHeaderAt(std::string_view line, std::size_t slash, HeaderSpan& span) {
  std::size_t b = slash;
  while (b > 0 && IsDigit(line[b - 1])) --b;
  if (b == slash || b == 0 || !IsSpace(line[b - 1])) return false;
  std::size_t e = slash + 1;
  while (e < line.size() && IsDigit(line[e])) ++e;
  if (e == slash + 1 || e >= line.size() || !IsSpace(line[e])) return false;
  if (!ToInt(line.substr(b, slash - b), span.pid)) return false;
  if (!ToInt(line.substr(slash + 1, e - slash - 1), span.tid)) return false;
  while (e < line.size() && IsSpace(line[e])) ++e;
  const std::size_t t = e;
  while (e < line.size() && (IsDigit(line[e]) || line[e] == '.')) ++e;
  if (e == t || e >= line.size() || line[e] != ':') return false;
  span.time_s = std::strtod(std::string(line.substr(t, e - t)).c_str(), nullptr);
  span.time_ns = Nanoseconds(line.substr(t, e - t));
  span.pid_begin = b;
  span.rest_begin = e + 1;
  return true;
}

bool FindHeader(std::string_view line, HeaderSpan& span) {
  for (std::size_t slash = line.find('/'); slash != std::string_view::npos;
       slash = line.find('/', slash + 1)) {
    if (MatchHeaderAt(line, slash, span)) return true;
  }
  return false;
}

// The new process of "PERF_RECORD_FORK(PID:TID):(PPID:PTID)"; 0 when it has no such pid.
int ForkedPid(std::string_view rest) {
  constexpr std::string_view kFork = "PERF_RECORD_FORK(";
  if (!rest.starts_with(kFork)) return 0;
  const std::string_view after = rest.substr(kFork.size());
  int pid = 0;
  return ToInt(after.substr(0, after.find(':')), pid) && pid > 0 ? pid : 0;
}

// "cpu-clock:", "sched:sched_switch: prev_comm=...", "PERF_RECORD_SWITCH IN" or a task event
// ("PERF_RECORD_COMM exec: ...", "PERF_RECORD_FORK(...)", "PERF_RECORD_EXIT(...)").
bool ParseEventText(std::string_view rest, PerfRecord& record) {
  for (std::string_view task : {"PERF_RECORD_COMM", "PERF_RECORD_FORK", "PERF_RECORD_EXIT"}) {
    if (rest.starts_with(task)) {
      record.kind = PerfRecord::Kind::kTask;
      record.forked_pid = ForkedPid(rest);
      return true;
    }
  }
  constexpr std::string_view kSwitch = "PERF_RECORD_SWITCH";
  if (rest.starts_with(kSwitch)) {
    // PERF_RECORD_SWITCH IN, PERF_RECORD_SWITCH OUT [preempt], or the _CPU_WIDE form.
    const bool out = rest.find(" OUT") != std::string_view::npos;
    record.kind = out ? PerfRecord::Kind::kSwitchOut : PerfRecord::Kind::kSwitchIn;
    return true;
  }
  record.kind = PerfRecord::Kind::kSample;
  std::size_t colon = rest.find(": ");
  if (colon == std::string_view::npos) {
    if (rest.empty() || rest.back() != ':') return false;
    colon = rest.size() - 1;
  }
  record.event = std::string(Trim(rest.substr(0, colon)));
  record.trace = std::string(Trim(rest.substr(colon + 1)));
  return !record.event.empty();
}

}  // namespace

bool ParseRecordHeader(std::string_view line, PerfRecord& record) {
  if (line.empty() || IsSpace(line.front())) return false;
  HeaderSpan span;
  if (!FindHeader(line, span)) return false;
  record = PerfRecord();
  record.comm = std::string(Trim(line.substr(0, span.pid_begin)));
  record.pid = span.pid;
  record.tid = span.tid;
  record.time_s = span.time_s;
  record.time_ns = span.time_ns;
  return ParseEventText(Trim(line.substr(span.rest_begin)), record);
}

bool ParseFrameLine(std::string_view line, Frame& frame) {
  if (line.empty() || !IsSpace(line.front())) return false;
  line = Trim(line);
  std::size_t i = 0;
  while (i < line.size() && std::isxdigit(static_cast<unsigned char>(line[i])) != 0) ++i;
  if (i == 0 || i >= line.size() || line[i] != ' ') return false;
  // The object is the last " (...)": symbols may hold parentheses and spaces of their own.
  const std::size_t open = line.rfind(" (");
  if (open == std::string_view::npos || open < i || line.back() != ')') return false;
  frame.symbol = std::string(Trim(line.substr(i + 1, open - i - 1)));
  frame.dso = std::string(line.substr(open + 2, line.size() - open - 3));
  if (frame.symbol.empty()) frame.symbol = "[unknown]";
  return true;
}

std::string_view TraceField(std::string_view trace, std::string_view name) {
  for (std::size_t at = trace.find(name); at != std::string_view::npos;
       at = trace.find(name, at + 1)) {
    const bool starts_word = at == 0 || IsSpace(trace[at - 1]);
    const std::size_t eq = at + name.size();
    if (!starts_word || eq >= trace.size() || trace[eq] != '=') continue;
    std::size_t end = eq + 1;
    while (end < trace.size() && !IsSpace(trace[end])) ++end;
    return trace.substr(eq + 1, end - eq - 1);
  }
  return {};
}

void PerfScriptParser::Feed(std::string_view line) {
  if (Trim(line).empty()) {
    Flush();
    return;
  }
  Frame frame;
  if (open_ && ParseFrameLine(line, frame)) {
    current_.frames.push_back(std::move(frame));
    return;
  }
  PerfRecord record;
  if (ParseRecordHeader(line, record)) {
    Flush();  // a switch record has no frames and no blank line after it
    current_ = std::move(record);
    open_ = true;
    return;
  }
  ++skipped_;
}

void PerfScriptParser::Finish() {
  Flush();
}

void PerfScriptParser::Flush() {
  if (!open_) return;
  open_ = false;
  ++records_;
  on_record_(current_);
}

}  // namespace dlcheck::profile
