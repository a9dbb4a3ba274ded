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

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profile/profile.h"
#include "report/report.h"
#include "verbose/aggregate.h"

namespace dlcheck::profile {

/// The OpenMP runtime's share of samples from which the `openmp-share` finding is raised.
inline constexpr double kOpenMpFindingPct = 25.0;

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

/// Adds the five tables above and the profile's findings (OpenMP share, no JIT names, off-CPU
/// not recorded).
void AddProfileTables(report::Report& report, const Profile& profile,
                      const std::vector<verbose::PrimitiveStats>& rows,
                      const ProfileReportOptions& options);

/// The share (%) of the samples in oneDNN JIT code or BLAS that a framework operator is above;
/// nullopt when no sample landed in either.
std::optional<double> OperatorAttributedPct(const Profile& profile);

/// Seconds off CPU in the given states ("S", "D", ...); all states when `states` is empty.
double OffCpuSeconds(const Profile& profile, const std::vector<std::string>& states = {});

/// Adds the `stacks` table (stack, samples: the collapsed stacks, in their order) that
/// `--format folded` and `--format svg` print, titled `title` with `caption` under it (the flame
/// graph's two lines); no other format shows it.
void AddStacksTable(report::Report& report, const Profile& profile, std::string title,
                    std::string caption);

}  // namespace dlcheck::profile
