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
#include "report/report.h"

namespace dlcheck::check {

/// Fills `report` with `result`; `ran` are the options the model run was started with. `stable`
/// leaves out everything measured (perfdata, the run's timings and deviations), so that identical
/// nodes print identical reports (`check --stable`).
void AddCheckReport(const CheckResult& result, const Evidence& evidence, const ModelPass& ran,
                    report::Report& report, bool stable = false);

}  // namespace dlcheck::check
