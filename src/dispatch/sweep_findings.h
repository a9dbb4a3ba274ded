#pragma once
// What a sweep concludes, beside the runs it concludes from: the findings both sweeps make
// (`dispatch --model` and `dispatch -- CMD`), the ranking of a program sweep's configurations and
// its exit status. The commands gather runs and print; the decisions are made and tested here
// (tests/dispatch/sweep_findings_test.cpp, on constructed rows and spreads).
//
//   for (Finding& f : CapFindings(run.rows, "avx2")) report.findings.push_back(std::move(f));
//   Finding ranked = RankConfigs("ISA caps", {"cap avx2", 3, avx2_wall}, {"cap sse41", 3, ...});

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/finding.h"
#include "dispatch/capture.h"
#include "dispatch/noise.h"
#include "dispatch/sweep.h"
#include "os/subprocess.h"
#include "verbose/aggregate.h"

namespace dlcheck::dispatch {

/// A row as a finding names it: "fc1 inner_product forward_training (ref:any)", without a
/// layer for a row that has none (a program's).
std::string RowName(const verbose::PrimitiveStats& row);

/// What the rows run under `cap` say about the cap: `isa-above-cap` for the rows that ran at an
/// ISA above it (what a cap must never allow) and `cap-scalar-fallback` for the executed work on
/// oneDNN's scalar code (verbose::ScalarScope::kExecutedWork; dlcheck's own kernels are the
/// model's fallback, said apart). Nothing for the scalar pseudo-cap or a thread-set run.
std::vector<Finding> CapFindings(const std::vector<verbose::PrimitiveStats>& rows,
                                 std::string_view cap);

/// `cap-model-fallback`: under `cap` oneDNN could not run the model, so dlcheck's scalar kernels
/// ran it (the layers the worker announced as model fallbacks); nullopt when none was.
std::optional<Finding> CapModelFallbackFinding(const CapturedRun& run, std::string_view cap);

/// A model run's samples/s as a spread over the chunks of its timed steps (runs 0 when it
/// measured none, 1 without chunks).
Spread SamplesSpreadOf(const SweepRun& r);

/// The model sweep's payoff in one sentence: the highest cap against the lowest in samples/s
/// (`payoff`), only when their timed chunks do not overlap, else `too-noisy`; nullopt with fewer
/// than two measured caps.
std::optional<Finding> ModelPayoff(const std::vector<SweepRun>& runs);

/// `interrupted`: the sweep was stopped by `signal`, which dlcheck passed on.
Finding InterruptedFinding(int signal);

/// A configuration of a program sweep, as the ranking sees it.
struct RankedConfig {
  std::string name;  ///< "cap avx2", "threads socket"
  std::size_t runs = 0;
  Spread wall;  ///< the runs' wall times, seconds
};

/// "the program runs 1.80x as fast under A as under B" (`payoff`), only where each has two runs
/// or more (else `too-few-runs`) and their wall times do not overlap (else `too-noisy`). `what`
/// names the comparison ("ISA caps", "thread sets").
Finding RankConfigs(std::string_view what, const RankedConfig& a, const RankedConfig& b);

/// Which of the configurations ran a primitive fastest: the one with the lowest median, only
/// when its runs do not overlap any other's (nullopt otherwise, or when none ran it). A
/// configuration without the primitive is nullopt in `spreads`.
std::optional<std::size_t> SeparatedFastest(const std::vector<std::optional<Spread>>& spreads);

/// `program-failed`: the first run under `config` that did not exit 0, with every run's exit
/// status; nullopt when each exited 0.
std::optional<Finding> ProgramFailedFinding(std::string_view config,
                                            const std::vector<os::Outcome>& runs);

/// `threads-overridden`: dlcheck asked for `asked` threads under `config` and oneDNN ran `seen`
/// (the program sets its own count); nullopt when they agree or either is unknown (0).
std::optional<Finding> ThreadsOverriddenFinding(std::string_view config, int asked, int seen);

/// The exit status of a program sweep: 128 + N when signal N stopped it, else the first status
/// of a run that was not 0 (in run order), else 0.
int ProgramSweepStatus(int interrupted_by, const std::vector<int>& run_statuses);

}  // namespace dlcheck::dispatch
