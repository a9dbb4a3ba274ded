// SPDX-License-Identifier: Apache-2.0
#pragma once
// A check's result as a report: the headline (the monitoring first line, printed by the human
// table only), the `check` section (status, exit_status, summary, perfdata), the `checks` table
// (the one CSV prints) and the `run` section (the options the model ran with and its results,
// typed). The caller adds the platform.
//
//   DLCHECK OK - AMD Ryzen 9 9950X, 1 socket, ... | 'samples_per_s'=104233.5;;;0 'problems'=0;;;0
//   Check
//     status       OK
//     exit_status  0
//   ...
//   Checks
//     check       status  detail
//     probes      OK      6 of 6 probes ran

#include "check/check.h"
#include "dispatch/capture.h"
#include "report/contract.h"
#include "report/field.h"
#include "report/report.h"

namespace dlcheck::check {

// The check's words (the run section's are the model run's, dispatch/run_fields.h).
namespace check_field {
using report::Field;
using report::Type;
inline constexpr Field kStatus{"status"};  ///< OK, WARNING, CRITICAL, UNKNOWN
inline constexpr Field kExitStatus{"exit_status", Type::kInteger};
inline constexpr Field kSummary{"summary"};
inline constexpr Field kPerfdata{"perfdata"};  ///< the monitoring line's performance data
inline constexpr Field kHost{"host"};          ///< the node's name (not with --stable)
inline constexpr Field kCheck{"check"};        ///< a check item's name
inline constexpr Field kDetail{"detail"};
}  // namespace check_field

inline constexpr report::Part kCheckSection{"check", "Check"};
inline constexpr report::Part kChecksTable{"checks", "Checks"};
inline constexpr report::Part kRunSection{"run", "Model run"};

/// `check`'s document: check, checks, run, then the platform's members.
const report::contract::Document& CheckDocument();

/// Fills `report` with `result`; `ran` are the options the model run was started with. `stable`
/// leaves out everything measured (perfdata, the run's timings and deviations), so that identical
/// nodes print identical reports (`check --stable`).
void AddCheckReport(const CheckResult& result, const Evidence& evidence, const ModelPass& ran,
                    report::Report& report, bool stable = false);

}  // namespace dlcheck::check
