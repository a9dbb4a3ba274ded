// SPDX-License-Identifier: Apache-2.0
#pragma once
// perf records -> what `dlcheck profile` reports: on-CPU samples by class and by JIT kernel (with
// the primitive each kernel worked for), the collapsed stacks of the flame graph, and off-CPU time
// by stack. Fed one record at a time (PerfScriptParser), so memory grows with the number of
// distinct stacks, not with the length of the recording.
//
//   ProfileBuilder builder;
//   PerfScriptParser parser([&](const PerfRecord& r) { builder.Add(r); });
//   ... parser.Feed(line) for every line of `perf script` ...
//   parser.Finish();
//   const Profile& profile = builder.profile();

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "profile/classify.h"
#include "profile/exec_join.h"
#include "profile/instruction_mix.h"
#include "profile/perf_script.h"
#include "profile/stack_scan.h"

namespace dlcheck::profile {

/// The tracepoint whose samples are the off-CPU switches.
inline constexpr std::string_view kSwitchEvent = "sched:sched_switch";

/// Blocked time under one stack and thread state.
struct OffCpuStack {
  double seconds = 0;
  std::uint64_t switches = 0;
  std::string wait;  ///< where it waited: the kernel function below the scheduler, and the
                     ///< first user-space frame ("do_nanosleep_[k] <- clock_nanosleep")
};

/// On-CPU samples under one framework operator, by the class of their leaf.
struct OperatorSamples {
  std::uint64_t samples = 0;
  std::array<std::uint64_t, kCpuClassCount> class_samples{};
  /// The oneDNN and BLAS work beneath the operator: samples by leaf frame, for leaves of class
  /// jit (the kernel's name: "jit_avx512_common_conv_fwd_kernel"), onednn and blas ("sgemm_").
  std::map<std::string, std::uint64_t> beneath;
  /// The oneDNN executions the operator's samples fell in (ExecTimeline, when the builder has
  /// one): samples by execution label (ExecLabel).
  std::map<std::string, std::uint64_t> executions;
};

/// The operator name of samples under no framework operator.
inline constexpr std::string_view kNoOperator = "-";

struct Profile {
  std::string event;          ///< the on-CPU event perf sampled ("cycles", "cpu-clock")
  std::uint64_t samples = 0;  ///< on-CPU samples
  std::array<std::uint64_t, kCpuClassCount> class_samples{};
  /// On-CPU samples by framework operator (OperatorOf; kNoOperator for none): the samples add
  /// up to `samples`.
  std::map<std::string, OperatorSamples> operators;
  /// BLAS samples (a leaf of class blas) by (library file as perf names it, BLAS of the symbol
  /// when the file does not say: BlasImplementation).
  std::map<std::pair<std::string, std::string>, std::uint64_t> blas_samples;
  /// On-CPU samples whose leaf frame is in a file on disk (not JIT code, not the OS kernel) by
  /// (file as perf names it, symbol as perf prints it).
  std::map<std::pair<std::string, std::string>, std::uint64_t> file_leaf_samples;
  /// The instruction class of each of those leaves (ClassifyLeafCode); empty until then.
  std::map<std::pair<std::string, std::string>, LeafCode> leaf_code;
  /// JIT kernel samples by kernel name (the perf map's).
  std::map<std::string, std::uint64_t> kernel_samples;
  /// Collapsed on-CPU stacks ("comm;root;...;leaf") -> samples; the values add up to `samples`.
  std::map<std::string, std::uint64_t> folded;
  /// Off-CPU time by (thread state letter as perf prints it: S, D, R, ...; collapsed stack).
  std::map<std::pair<std::string, std::string>, OffCpuStack> off_cpu;
  /// Samples in JIT code, or in the kernel entered from it, whose stack was extended by stack
  /// scanning (ScannedStacks), and the frames added: counted among `samples` like any other,
  /// never added to them.
  /// On-CPU samples taken while a timed oneDNN execution ran (ExecTimeline), and the
  /// executions the timeline held (0: no join was made).
  std::uint64_t exec_joined_samples = 0;
  std::uint64_t exec_spans = 0;
  std::uint64_t scanned_samples = 0;
  std::uint64_t scanned_frames = 0;
  std::string stack_scan_error;  ///< why perf.data could not be scanned; empty when it was
  std::set<std::string> stack_scan_bounds;  ///< the bounds the scan reached (what it left out)
  std::uint64_t switch_samples = 0;         ///< sched_switch samples seen
  std::set<int> pids;                       ///< processes sampled
  std::set<int> tids;                       ///< threads sampled
  /// Every process the recording saw begin, fork or end, sampled or not (perf's task events):
  /// the processes whose perf maps are this run's to remove, and no other's.
  std::set<int> recorded_pids;
  /// dlcheck's own post-processing: seconds to read the recording (stack scanning and perf
  /// script) and to decode the leaf functions' code (ClassifyLeafCode).
  double read_s = 0;
  double decode_s = 0;
  double first_s = 0;  ///< perf clock of the first and last record
  double last_s = 0;
};

class ProfileBuilder {
 public:
  /// Callers found by stack scanning, spliced above the JIT frames of the samples they were
  /// found for, joined by (tid, time_ns); null (the default): the stacks as perf unwound them.
  /// `scanned` must outlive the builder's use.
  void UseScannedStacks(const ScannedStacks* scanned) { scanned_ = scanned; }
  /// The oneDNN executions of the run, for joining samples to them by time; null (the
  /// default): no join. `timeline` must outlive the builder's use.
  void UseExecTimeline(const ExecTimeline* timeline);
  void Add(const PerfRecord& record);
  const Profile& profile() const { return profile_; }

 private:
  // A thread switched out, not yet back.
  struct Pending {
    double since_s = 0;
    std::string state;
    std::string stack;
    std::string wait;
  };

  void AddOnCpu(const PerfRecord& record);
  void AddSwitchOut(const PerfRecord& record);
  void EndOffCpu(int tid, double now_s);
  void AddToOperator(const PerfRecord& record, CpuClass cls);
  // The record with its scanned callers above its leaf JIT frames; nullptr when none were found.
  const std::vector<Frame>* ScannedCallers(const PerfRecord& record) const;

  Profile profile_;
  const ScannedStacks* scanned_ = nullptr;
  const ExecTimeline* timeline_ = nullptr;
  std::map<int, Pending> pending_;
};

/// Fills `profile.leaf_code` for every leaf of `profile.file_leaf_samples`, each decoded once.
void ClassifyLeafCode(Profile& profile, CodeClassifier& classifier);

/// "comm;root;...;leaf" for a record's call graph (FrameName for each frame), each frame made
/// safe for the folded format (report::FoldedFrame).
std::string CollapsedStack(const PerfRecord& record);

/// `frames` (leaf first) with `callers` in place of whatever follows its leading kernel and JIT
/// frames.
std::vector<Frame> SpliceCallers(const std::vector<Frame>& frames,
                                 const std::vector<Frame>& callers);

/// "R" from "R+", "S" from "S": the thread state of a sched_switch's prev_state, one letter.
std::string StateLetter(std::string_view prev_state);
/// "sleeping", "uninterruptible (I/O)", "preempted (runnable)", ... for a state letter.
std::string_view StateName(std::string_view letter);

}  // namespace dlcheck::profile
