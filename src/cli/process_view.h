// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `process` section of the commands that run a program (`tune`, `run`): what the audit
// (dispatch/process_audit.h) saw while it ran, and its findings.
//
//   dispatch::AuditSampler sampler;                 // settings.while_running = sampler.Hook()
//   ... run the program ...
//   AddProcessSection(report, sampler.Result(), os::ReadCpuBudget().cpus);

#include "dispatch/process_audit.h"
#include "report/contract.h"
#include "report/report.h"

namespace dlcheck::cli {

/// The section's part.
inline constexpr report::Part kProcessPart{"process", "The program, as sampled while it ran"};

/// Its member of a document's contract.
report::contract::Member ProcessMember();

/// Adds the section (libraries by role, threads; null counts where no sample was taken) and the
/// audit's findings, judged against the host's `host_cpus` usable CPUs.
void AddProcessSection(report::Report& report, const dispatch::ProcessAudit& audit, int host_cpus);

}  // namespace dlcheck::cli
