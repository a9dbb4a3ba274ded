// SPDX-License-Identifier: Apache-2.0
#pragma once
// A Profile (and the verbose rows of the same run) -> report::Report tables and findings:
//
//   classes     class,samples,pct,description          CPU time by class (classify.h)
//   kernels     kernel,primitive,implementations,samples,pct,pct_of_jit
//                                                       JIT kernels by the primitive that ran them
//   by_primitive  primitive,implementations,jit_samples,sampled_pct,verbose_exec_ms,verbose_pct
//                                                       sampled CPU share beside verbose's time
//   operators   operator,samples,pct,jit_samples,onednn_samples,blas_samples,beneath,primitives
//                                                       CPU time by framework operator (top N),
//                                                       with the oneDNN executions its samples
//                                                       fell in (exec_join.h)
//   off_cpu     state,seconds,pct,switches,wait,stack  blocked time by stack (top N)
//   blas        library,blas,samples,pct               BLAS samples by library file (Debian's
//                                                       libblas.so.3 alternative resolved)
//   instruction_mix  library,samples,pct,widest,<class>_pct...  instruction classes by file
//   instruction_mix_functions  function,library,instruction_class,samples,pct,why_unknown

#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profile/profile.h"
#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"
#include "verbose/aggregate.h"

namespace dlcheck::profile {

// The profile's words, declared once: the tables below and the `profile` section that
// cli/profile_command.cpp fills from the recording.
namespace profile_field {
using report::Field;
using report::Type;
// clang-format off
// profile: what was recorded
inline constexpr Field kCommand{"command"};
inline constexpr Field kEnded{"ended"};
inline constexpr Field kEvent{"event"};
inline constexpr Field kFrequencyHz{"frequency_hz", Type::kInteger};
inline constexpr Field kCallGraph{"call_graph"};
inline constexpr Field kSamples{"samples", Type::kInteger};
inline constexpr Field kDurationS{"duration_s", Type::kNumber};
inline constexpr Field kProcesses{"processes", Type::kInteger};
inline constexpr Field kThreads{"threads", Type::kInteger};
inline constexpr Field kJitKernels{"jit_kernels", Type::kInteger};
inline constexpr Field kOperatorAttributedPct{"operator_attributed_pct", Type::kNumber};
inline constexpr Field kScannedSamples{"scanned_samples", Type::kInteger};
inline constexpr Field kTimedExecutions{"timed_executions", Type::kInteger};
inline constexpr Field kExecJoinedSamples{"exec_joined_samples", Type::kInteger};
inline constexpr Field kSamplesPerS{"samples_per_s", Type::kNumber};  ///< the model's
inline constexpr Field kTimedS{"timed_s", Type::kNumber};  ///< the model's timed budget
inline constexpr Field kVerboseLines{"verbose_lines", Type::kInteger};
inline constexpr Field kVerboseExecMs{"verbose_exec_ms", Type::kNumber};
inline constexpr Field kOffCpuRecorded{"off_cpu_recorded", Type::kBoolean};
inline constexpr Field kOffCpuS{"off_cpu_s", Type::kNumber};
inline constexpr Field kBlockedS{"blocked_s", Type::kNumber};
inline constexpr Field kPreemptedS{"preempted_s", Type::kNumber};
inline constexpr Field kPerfData{"perf_data"};
inline constexpr Field kVerdict{"verdict"};  ///< ProfileVerdict: the one line a report opens with
// The noise guard's, as verbose reports them (dispatch::model_run_field spells the same names;
// dispatch depends on profile, so they cannot be shared from there: a static_assert in
// cli/profile_command.cpp holds them equal).
inline constexpr Field kThreadsFrom{"threads_from"};
inline constexpr Field kLoadStart{"load_start", Type::kNumber};
inline constexpr Field kLoadEnd{"load_end", Type::kNumber};
// classes
inline constexpr Field kClass{"class"};
inline constexpr Field kPct{"pct", Type::kNumber};
inline constexpr Field kDescription{"description"};
// kernels, by_primitive
inline constexpr Field kKernel{"kernel"};
inline constexpr Field kPrimitive{"primitive"};
inline constexpr Field kImplementations{"implementations"};
inline constexpr Field kPctOfJit{"pct_of_jit", Type::kNumber};
inline constexpr Field kJitSamples{"jit_samples", Type::kInteger};
inline constexpr Field kSampledPct{"sampled_pct", Type::kNumber};
inline constexpr Field kVerbosePct{"verbose_pct", Type::kNumber};
// operators
inline constexpr Field kOperator{"operator"};
inline constexpr Field kOnednnSamples{"onednn_samples", Type::kInteger};
inline constexpr Field kBlasSamples{"blas_samples", Type::kInteger};
inline constexpr Field kBeneath{"beneath"};
inline constexpr Field kPrimitives{"primitives"};
// blas
inline constexpr Field kLibrary{"library"};  ///< the file, Debian's alternatives resolved
inline constexpr Field kBlas{"blas"};        ///< which BLAS it is (BlasImplementation)
// instruction_mix, instruction_mix_functions (instruction_mix.h)
inline constexpr Field kInstructionMix{"instruction_mix"};  ///< InstructionMixVerdict
inline constexpr Field kReadS{"read_s", Type::kNumber};      ///< Profile::read_s
inline constexpr Field kDecodeS{"decode_s", Type::kNumber};  ///< Profile::decode_s
inline constexpr Field kWidest{"widest"};
inline constexpr Field kFunction{"function"};
inline constexpr Field kInstructionClass{"instruction_class"};
inline constexpr Field kWhyUnknown{"why_unknown"};
/// A library's samples in each class, as a share of its samples; by CodeClass.
inline constexpr std::array<Field, kCodeClassCount> kCodeClassPct = {
    Field{"scalar_pct", Type::kNumber},      Field{"sse_pct", Type::kNumber},
    Field{"avx_pct", Type::kNumber},         Field{"avx_vnni_pct", Type::kNumber},
    Field{"avx512_pct", Type::kNumber},      Field{"avx512_vnni_pct", Type::kNumber},
    Field{"avx512_bf16_fp16_pct", Type::kNumber}, Field{"amx_pct", Type::kNumber},
    Field{"unknown_pct", Type::kNumber}};
// off_cpu
inline constexpr Field kState{"state"};
inline constexpr Field kSeconds{"seconds", Type::kNumber};
inline constexpr Field kSwitches{"switches", Type::kInteger};
inline constexpr Field kWait{"wait"};
inline constexpr Field kStack{"stack"};
inline constexpr Field kStacks{"stacks", Type::kInteger};  ///< how many stacks a view row merges
// clang-format on
}  // namespace profile_field

inline constexpr report::Part kProfileSection{"profile", "Profile"};
inline constexpr report::Part kClassesTable{"classes", "CPU time by class"};
inline constexpr report::Part kKernelsTable{"kernels", "JIT kernels by primitive"};
inline constexpr report::Part kByPrimitiveTable{"by_primitive",
                                                "Sampled JIT time and verbose time by primitive"};
inline constexpr report::Part kOperatorsTable{"operators", "CPU time by framework operator"};
inline constexpr report::Part kOffCpuTable{"off_cpu", "Off-CPU time by stack"};
/// The human table's reading view of `off_cpu`: its stacks merged by state and wait (stacks
/// hundreds of characters long that differ in the middle cannot be told apart at 80 columns by
/// any cut). JSON, CSV and xlsx have each stack in `off_cpu`.
inline constexpr report::Part kOffCpuByWaitView{"off_cpu_by_wait",
                                                "Off-CPU time by where it waited"};
inline constexpr report::Part kBlasTable{"blas", "CPU time by BLAS library"};
inline constexpr report::Part kInstructionMixTable{"instruction_mix",
                                                   "Instruction classes by library"};
inline constexpr report::Part kInstructionMixFunctionsTable{
    "instruction_mix_functions", "Instruction class of the top functions"};

/// The instruction_mix table's columns: library, samples, pct, widest, then kCodeClassPct.
std::span<const report::Field> InstructionMixColumns();
/// The instruction_mix_functions table's columns.
std::span<const report::Field> InstructionMixFunctionColumns();
/// Adds the instruction_mix table (a row per file samples ran in, by samples: the share of CPU
/// time it had, the widest class its samples ran and the share of its samples in each class)
/// and instruction_mix_functions (the `top` functions by samples, 0: all, with their class).
void AddInstructionMixTables(report::Report& report, const Profile& profile, std::size_t top);
/// "61 % of CPU time in AVX-512 code, 0 % in AMX, 12 % not decoded; libfoo.so ran AVX/AVX2 at
/// most": the shares of all on-CPU samples, then the widest class of the three files with the
/// most samples; empty without samples.
std::string InstructionMixVerdict(const Profile& profile);

/// `profile`'s document.
const report::contract::Document& ProfileDocument();

/// The OpenMP runtime's share of samples from which the `openmp-share` finding is raised.
inline constexpr double kOpenMpFindingPct = 25.0;
/// The reference BLAS's share of samples from which the `reference-blas` finding is raised.
inline constexpr double kReferenceBlasFindingPct = 10.0;

/// The leaves the operators table's `beneath` column names per operator (the rest are counted).
inline constexpr std::size_t kBeneathLeaves = 5;
/// The oneDNN executions the operators table's `primitives` column names per operator.
inline constexpr std::size_t kOperatorPrimitives = 3;

/// The primitive column of oneDNN's spin barrier ("jit_t"): time threads spent waiting for each
/// other inside a primitive, not any primitive's work.
inline constexpr std::string_view kSpinBarrier = "(spin barrier)";

struct ProfileReportOptions {
  std::size_t top = 20;  ///< rows of the kernels and off_cpu tables (0: all)
  /// Why off-CPU time was not recorded; empty when it was.
  std::string off_cpu_reason;
};

/// The primitive kinds that ran a kernel: the kind its name says, else the kinds of the verbose
/// rows whose implementation belongs to the family its name says ("inner_product" for
/// jit_brgemm_kernel_t in the MLP), joined by '+'; empty when neither says.
std::string AttributeKernel(const std::string& kernel,
                            const std::vector<verbose::PrimitiveStats>& rows);

/// The implementations verbose saw for a primitive kind, distinct, joined by ' '.
std::string ImplementationsOf(const std::string& primitive,
                              const std::vector<verbose::PrimitiveStats>& rows);

/// Adds the tables above and the profile's findings (OpenMP share, the reference BLAS, no JIT
/// names, off-CPU not recorded).
void AddProfileTables(report::Report& report, const Profile& profile,
                      const std::vector<verbose::PrimitiveStats>& rows,
                      const ProfileReportOptions& options);

/// The share (%) of the samples in oneDNN JIT code or BLAS that a framework operator is above;
/// nullopt when no sample landed in either.
std::optional<double> OperatorAttributedPct(const Profile& profile);

/// The profile's verdict in one line, what a report opens with: where most CPU time went
/// ("86 % in oneDNN JIT kernels, 77 % of them brgemm inner products"; "35 % in a BLAS library,
/// 90 % of it the reference BLAS"); empty without samples.
std::string ProfileVerdict(const Profile& profile,
                           const std::vector<verbose::PrimitiveStats>& rows);

/// Seconds off CPU in the given states ("S", "D", ...); all states when `states` is empty.
double OffCpuSeconds(const Profile& profile, const std::vector<std::string>& states = {});

/// Adds the `stacks` table (stack, samples: the collapsed stacks, in their order) that
/// `--format folded` and `--format svg` print, titled `title` with `caption` under it (the flame
/// graph's two lines); no other format shows it.
void AddStacksTable(report::Report& report, const Profile& profile, std::string title,
                    std::string caption);

/// The profile's verdict: "4210 cycles samples: 86.1 % in oneDNN JIT kernels, 2.0 % other
/// oneDNN code; the most in oneDNN JIT kernels", or "no on-CPU sample" when perf took none.
std::string ProfileVerdict(const Profile& profile);

}  // namespace dlcheck::profile
