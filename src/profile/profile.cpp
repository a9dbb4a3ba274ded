// SPDX-License-Identifier: Apache-2.0
#include "profile/profile.h"

#include <algorithm>

#include "report/safe_text.h"

namespace dlcheck::profile {
namespace {

bool IsSchedulerFrame(const Frame& f) {
  const std::string_view s = f.symbol;
  return s == "__schedule" || s.starts_with("schedule") || s.starts_with("__traceiter") ||
         s.starts_with("preempt_schedule") || s.starts_with("finish_task_switch");
}

// "do_nanosleep_[k] <- clock_nanosleep": the kernel function that called into the scheduler and
// the first user-space frame, the two names that say what a thread waited for.
std::string WaitOf(const PerfRecord& record) {
  std::string kernel;
  std::string user;
  for (const Frame& f : record.frames) {
    const bool in_kernel = ClassOf(f) == CpuClass::kKernel;
    if (in_kernel && kernel.empty() && !IsSchedulerFrame(f)) kernel = FrameName(f);
    if (!in_kernel) {
      user = FrameName(f);
      break;
    }
  }
  if (kernel.empty()) return user;
  return user.empty() ? kernel : kernel + " <- " + user;
}

}  // namespace

void ClassifyLeafCode(Profile& profile, CodeClassifier& classifier) {
  for (const auto& [leaf, samples] : profile.file_leaf_samples) {
    profile.leaf_code[leaf] = classifier.ClassOf(leaf.first, leaf.second);
  }
}

std::string CollapsedStack(const PerfRecord& record) {
  std::string stack = report::FoldedFrame(record.comm.empty() ? "[unknown]" : record.comm);
  // Frame-pointer unwinding through code built without frame pointers ends in addresses that
  // are no code at all ("0 [unknown] ([unknown])"): left out at the root end.
  auto f = record.frames.rbegin();
  while (f != record.frames.rend() && f->symbol == "[unknown]" && f->dso == "[unknown]") ++f;
  for (; f != record.frames.rend(); ++f) {
    stack += ';';
    stack += report::FoldedFrame(FrameName(*f));
  }
  return stack;
}

std::vector<Frame> SpliceCallers(const std::vector<Frame>& frames,
                                 const std::vector<Frame>& callers) {
  auto after_jit = std::find_if(frames.begin(), frames.end(), [](const Frame& f) {
    const CpuClass cls = ClassOf(f);
    return cls != CpuClass::kJit && cls != CpuClass::kKernel;
  });
  std::vector<Frame> spliced(frames.begin(), after_jit);
  spliced.insert(spliced.end(), callers.begin(), callers.end());
  return spliced;
}

std::string StateLetter(std::string_view prev_state) {
  if (prev_state.empty()) return "?";
  return std::string(1, prev_state.front());
}

std::string_view StateName(std::string_view letter) {
  if (letter == "S") return "sleeping (waiting for an event, a lock or a timer)";
  if (letter == "D") return "uninterruptible (disk or other I/O)";
  if (letter == "R") return "preempted (runnable, waiting for a CPU)";
  if (letter == "T" || letter == "t") return "stopped";
  if (letter == "I") return "idle";
  return "other";
}

void ProfileBuilder::Add(const PerfRecord& record) {
  if (record.kind == PerfRecord::Kind::kTask) {  // no sample: it only names a process
    for (int pid : {record.pid, record.forked_pid}) {
      if (pid > 0) profile_.recorded_pids.insert(pid);
    }
    return;
  }
  if (profile_.pids.empty() && profile_.tids.empty()) profile_.first_s = record.time_s;
  profile_.first_s = std::min(profile_.first_s, record.time_s);
  profile_.last_s = std::max(profile_.last_s, record.time_s);
  profile_.pids.insert(record.pid);
  profile_.tids.insert(record.tid);
  switch (record.kind) {
    case PerfRecord::Kind::kSwitchIn:
      EndOffCpu(record.tid, record.time_s);
      return;
    case PerfRecord::Kind::kSwitchOut:
      return;  // the sched_switch sample just before it carries the stack and state
    case PerfRecord::Kind::kSample:
    case PerfRecord::Kind::kTask:
      break;
  }
  if (record.event == kSwitchEvent) {
    AddSwitchOut(record);
    return;
  }
  // Without switch-in records (an older kernel), the thread's next on-CPU sample ends its wait.
  EndOffCpu(record.tid, record.time_s);
  AddOnCpu(record);
}

const std::vector<Frame>* ProfileBuilder::ScannedCallers(const PerfRecord& record) const {
  if (scanned_ == nullptr) return nullptr;
  // A JIT leaf, or the kernel entered from JIT code: the first user-space frame is JIT.
  const auto user = std::find_if(record.frames.begin(), record.frames.end(),
                                 [](const Frame& f) { return ClassOf(f) != CpuClass::kKernel; });
  if (user == record.frames.end() || ClassOf(*user) != CpuClass::kJit) return nullptr;
  return scanned_->CallersOf({static_cast<std::uint32_t>(record.tid), record.time_ns});
}

void ProfileBuilder::AddOnCpu(const PerfRecord& unwound) {
  PerfRecord spliced;
  const PerfRecord* used = &unwound;
  if (const std::vector<Frame>* callers = ScannedCallers(unwound)) {
    spliced = unwound;
    spliced.frames = SpliceCallers(unwound.frames, *callers);
    used = &spliced;
    ++profile_.scanned_samples;
    profile_.scanned_frames += callers->size();
  }
  const PerfRecord& record = *used;
  if (profile_.event.empty()) profile_.event = record.event;
  ++profile_.samples;
  ++profile_.folded[CollapsedStack(record)];
  const CpuClass cls = record.frames.empty() ? CpuClass::kOther : ClassOf(record.frames.front());
  ++profile_.class_samples[static_cast<std::size_t>(cls)];
  AddToOperator(record, cls);
  if (!record.frames.empty() && cls != CpuClass::kJit && cls != CpuClass::kKernel &&
      record.frames.front().dso.starts_with('/')) {
    ++profile_.file_leaf_samples[{record.frames.front().dso, record.frames.front().symbol}];
  }
  if (cls == CpuClass::kBlas) {
    const Frame& leaf = record.frames.front();
    ++profile_.blas_samples[{leaf.dso, std::string(BlasImplementation("", leaf.symbol))}];
  }
  if (cls == CpuClass::kJit) {
    const std::string kernel = FrameName(record.frames.front());
    ++profile_.kernel_samples[kernel.substr(0, kernel.size() - 4)];  // without "_[j]"
  }
}

void ProfileBuilder::AddToOperator(const PerfRecord& record, CpuClass cls) {
  const std::string op = OperatorOf(record.frames);
  OperatorSamples& o = profile_.operators[op.empty() ? std::string(kNoOperator) : op];
  ++o.samples;
  ++o.class_samples[static_cast<std::size_t>(cls)];
  if (cls == CpuClass::kJit || cls == CpuClass::kOneDnn || cls == CpuClass::kBlas) {
    std::string leaf = FrameName(record.frames.front());
    if (cls == CpuClass::kJit) leaf.resize(leaf.size() - 4);  // without "_[j]"
    ++o.beneath[leaf];
  }
  if (timeline_ == nullptr) return;
  if (const ExecSpan* exec = timeline_->At(record.time_s)) {
    ++o.executions[exec->label];
    ++profile_.exec_joined_samples;
  }
}

void ProfileBuilder::UseExecTimeline(const ExecTimeline* timeline) {
  timeline_ = timeline;
  profile_.exec_spans = timeline == nullptr ? 0 : timeline->size();
}

void ProfileBuilder::AddSwitchOut(const PerfRecord& record) {
  ++profile_.switch_samples;
  Pending& p = pending_[record.tid];
  p.since_s = record.time_s;
  p.state = StateLetter(TraceField(record.trace, "prev_state"));
  p.stack = CollapsedStack(record);
  p.wait = WaitOf(record);
}

void ProfileBuilder::EndOffCpu(int tid, double now_s) {
  const auto it = pending_.find(tid);
  if (it == pending_.end()) return;
  Pending& p = it->second;
  OffCpuStack& s = profile_.off_cpu[{p.state, p.stack}];
  s.seconds += std::max(0.0, now_s - p.since_s);
  ++s.switches;
  if (s.wait.empty()) s.wait = p.wait;
  pending_.erase(it);
}

}  // namespace dlcheck::profile
