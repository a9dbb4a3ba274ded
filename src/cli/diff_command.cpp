// SPDX-License-Identifier: Apache-2.0
// `dlcheck diff A B`: two runs side by side, exit 1 when B regressed against A.
#include <cmath>
#include <iostream>
#include <memory>

#include "cli/commands.h"
#include "cli/model_options.h"
#include "compare/row_diff.h"

namespace dlcheck::cli {
namespace {

struct DiffCommandOptions {
  std::string a, b;
  compare::DiffOptions diff;
  report::Format format = report::Format::kTable;
  int jobs = 0;  ///< threads that read a large log file (0: LogJobs())
};

StatusOr<int> RunDiff(const DiffCommandOptions& options) {
  const int jobs = options.jobs > 0 ? options.jobs : LogJobs();
  StatusOr<compare::RunRows> a = compare::LoadRunRows(options.a, jobs);
  if (!a.ok()) return a.status();
  StatusOr<compare::RunRows> b = compare::LoadRunRows(options.b, jobs);
  if (!b.ok()) return b.status();
  if (a->rows.empty() || b->rows.empty()) {
    const std::string& empty = a->rows.empty() ? options.a : options.b;
    return Status(ExitCode::kInputError,
                  empty +
                      ": no primitive rows to compare (is it a verbose log, or the JSON "
                      "report of 'dlcheck parse', 'verbose' or 'run'?)");
  }
  compare::RowDiff diff = compare::CompareRuns(*a, *b, options.diff);
  a->rows = {};  // the diff holds the rows it needs
  b->rows = {};
  const bool regressed = diff.regressions > 0;
  report::Print(compare::DiffReport(std::move(diff)), options.format, std::cout);
  // A lost report is exit 8 even when B regressed (1): a CI job must not gate on a report it
  // never got. -o FILE is settled here for that, standard output just after.
  if (Status written = CommitReportOutput(); !written.ok()) return written;
  if (!std::cout.flush()) {
    return Status(ExitCode::kOutputError, "cannot write the report to standard output");
  }
  return regressed ? ToInt(ExitCode::kRegression) : ToInt(ExitCode::kOk);
}

}  // namespace

void SetupDiff(CLI::App& subcommand, int& exit_code) {
  auto options = std::make_shared<DiffCommandOptions>();
  CLI::App* const sub = &subcommand;
  sub->add_option("A", options->a, "the reference run: a verbose log (.gz too) or a JSON report")
      ->required()
      ->type_name("FILE");
  sub->add_option("B", options->b, "the run judged against A, in either form")
      ->required()
      ->type_name("FILE");
  AddJobsOption(*sub, options->jobs);
  sub->add_option("--threshold", options->diff.threshold_pct,
                  "a row more than PCT % slower per execution regressed (default 20)")
      ->type_name("PCT")
      ->check(RealRange(0.0, 1000.0));
  sub->add_option("--min-share", options->diff.min_share_pct,
                  "rows under PCT % of both runs' exec time are not judged on time (default 1)")
      ->type_name("PCT")
      ->check(RealRange(0.0, 100.0));
  AddFormatOption(*sub, options->format);
  AddOutputOption(*sub);
  sub->callback([options, &exit_code] { exit_code = EndCommand(RunDiff(*options)); });
}

}  // namespace dlcheck::cli
