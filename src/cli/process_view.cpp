// SPDX-License-Identifier: Apache-2.0
#include "cli/process_view.h"

#include <utility>

#include "cli/stats_view.h"
#include "common/library_kinds.h"
#include "common/text.h"

namespace dlcheck::cli {
namespace {

using report::Field;
using report::Type;
using report::Value;

namespace process_field {
// clang-format off
inline constexpr Field kSamples{"samples", Type::kInteger};
inline constexpr Field kProcessesMax{"processes_max", Type::kInteger};
inline constexpr Field kThreadsMax{"threads_max", Type::kInteger};
inline constexpr Field kRunnableMax{"runnable_max", Type::kInteger};  ///< threads in state R
inline constexpr Field kProgramCpus{"program_cpus", Type::kInteger};  ///< its affinity's CPUs
inline constexpr Field kOnednn{"onednn", Type::kText, report::Arity::kList};
inline constexpr Field kOpenmp{"openmp_runtimes", Type::kText, report::Arity::kList};
inline constexpr Field kBlas{"blas", Type::kText, report::Arity::kList};
inline constexpr Field kAllocators{"allocators", Type::kText, report::Arity::kList};
inline constexpr Field kEngines{"engines", Type::kText, report::Arity::kList};
inline constexpr Field kFrameworks{"frameworks", Type::kText, report::Arity::kList};
inline constexpr Field kAll[] = {kSamples, kProcessesMax, kThreadsMax, kRunnableMax, kProgramCpus,
                                 kOnednn, kOpenmp, kBlas, kAllocators, kEngines, kFrameworks};
// clang-format on
}  // namespace process_field

// The libraries of `role` the audit saw, as "GNU OpenMP (libgomp.so.1)".
Value LibrariesValue(const dispatch::ProcessAudit& audit, lib::Role role) {
  report::TextList names;
  for (const dispatch::MappedLibrary* l : audit.Of(role)) {
    names.push_back(ValidUtf8(dispatch::LibraryText(*l)));
  }
  return Value(std::move(names));
}

}  // namespace

report::contract::Member ProcessMember() {
  return report::contract::Object(kProcessPart, report::contract::Members(process_field::kAll));
}

void AddProcessSection(report::Report& report, const dispatch::ProcessAudit& audit, int host_cpus) {
  using namespace process_field;
  report::Section& s = report.AddSection(kProcessPart);
  const bool sampled = audit.samples > 0;
  s.Add(kSamples, audit.samples);
  s.Add(kProcessesMax, sampled ? Value(audit.processes_max) : Value());
  s.Add(kThreadsMax, sampled ? Value(audit.threads_max) : Value());
  s.Add(kRunnableMax, sampled ? Value(audit.runnable_max) : Value());
  s.Add(kProgramCpus, sampled && audit.usable_cpus > 0 ? Value(audit.usable_cpus) : Value());
  s.Add(kOnednn, LibrariesValue(audit, lib::Role::kOneDnn));
  s.Add(kOpenmp, LibrariesValue(audit, lib::Role::kOpenMp));
  s.Add(kBlas, LibrariesValue(audit, lib::Role::kBlas));
  s.Add(kAllocators, LibrariesValue(audit, lib::Role::kAllocator));
  s.Add(kEngines, LibrariesValue(audit, lib::Role::kEngine));
  s.Add(kFrameworks, LibrariesValue(audit, lib::Role::kFramework));
  for (Finding& f : dispatch::AuditFindings(audit, host_cpus)) {
    f.message = ValidUtf8(f.message);
    report.findings.push_back(std::move(f));
  }
}

}  // namespace dlcheck::cli
