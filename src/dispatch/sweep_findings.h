// SPDX-License-Identifier: Apache-2.0
#pragma once
// What a sweep concludes, beside the runs it concludes from: the findings both sweeps make
// (`dispatch --model` and `dispatch -- CMD`), the ranking of a program sweep's configurations and
// its exit status. The commands gather runs and print; the decisions are made and tested here
// (tests/dispatch/sweep_findings_test.cpp, on constructed rows and spreads).
//
//   const SweepComparison comparison = CompareSweep(runs);  // sweep_compare.h
//   for (Finding& f : SweepFindings(runs, comparison, interrupted_by)) ...
//   StatusOr<int> status = SweepExitStatus(runs, interrupted_by);

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/finding.h"
#include "common/status.h"
#include "dispatch/noise.h"
#include "dispatch/run.h"
#include "dispatch/sweep.h"
#include "dispatch/sweep_compare.h"
#include "os/subprocess.h"
#include "verbose/aggregate.h"

namespace dlcheck::dispatch {

/// A row as a finding names it: "fc1 inner_product forward_training (ref:any)", without a
/// layer for a row that has none (a program's).
std::string RowName(const verbose::PrimitiveStats& row);

/// What the rows run under `cap` say about the cap: `isa-above-cap` for the rows that ran at an
/// ISA above it (what a cap must never allow) and `cap-scalar-fallback` for the executed work on
/// oneDNN's scalar code (verbose::ScalarScope::kExecutedWork; dlcheck's own kernels are the
/// model's fallback, said apart; info where it took under 1 % of the rows' execution time).
/// Nothing for the scalar pseudo-cap or a thread-set run.
std::vector<Finding> CapFindings(const std::vector<verbose::PrimitiveStats>& rows,
                                 std::string_view cap);

/// `cap-scalar-fallback` across a sweep: the scalar work of each cap's first run said once, one
/// finding per distinct list of rows naming every cap that ran it ("under the caps sse41, avx2
/// these primitives ran ..."). Each is a warning where the work took 1 % or more of a cap's
/// execution time (the rows' sum), else info ("under 1% of the execution time"): CapFindings'
/// rule for one cap.
std::vector<Finding> CapScalarFindings(const std::vector<ConfigRuns>& results);

/// `cap-model-fallback`: under `cap` oneDNN could not run the model, so dlcheck's scalar kernels
/// ran it (the layers the worker announced as model fallbacks); nullopt when none was.
std::optional<Finding> CapModelFallbackFinding(const Run& run, std::string_view cap);

/// Which cap of a sweep won: the fastest by median (the first of equal medians, the lowest cap),
/// the cap it is ranked against (the lowest; the highest where the lowest is the fastest), and
/// the others whose range overlaps the fastest's (a tie within the spread, lowest first).
struct CapRace {
  std::optional<std::size_t> fastest;  ///< nullopt with fewer than two caps
  std::size_t baseline = 0;
  std::vector<std::size_t> tied;
};

/// The race of caps measured as `spreads` (lowest cap first): samples/s (`higher_is_faster`) or
/// times.
CapRace RaceOf(const std::vector<Spread>& spreads, bool higher_is_faster);

/// The model sweep's payoff in one sentence: the fastest measured cap of `comparison` against
/// the lowest in samples/s (RaceOf; `payoff`), only when their timed chunks do not overlap, else
/// `too-noisy`; the caps within the fastest's spread are named as a tie, and the highest cap's
/// figure added where it is not the fastest ("1.85x under avx512_core_bf16" was said where avx2
/// gave 2.22x); nullopt with fewer than two measured caps.
std::optional<Finding> ModelPayoff(const SweepComparison& comparison);

/// `peak-below-narrower`: a cap whose FMA peak probe measured less than a narrower cap's (which
/// a wider ISA can always run): a disturbed probe, or wider units that are no faster (Zen 4's
/// AVX-512 on 256-bit halves); a warning, since that cap's peak fractions are against it. One
/// per such cap, lowest first.
std::vector<Finding> PeakFindings(const SweepComparison& comparison);

/// `interrupted`: the sweep was stopped by `signal`, which dlcheck passed on.
Finding InterruptedFinding(int signal);

/// A configuration of a program sweep, as the ranking sees it.
struct RankedConfig {
  std::string name;  ///< "cap avx2", "threads socket"
  std::size_t runs = 0;
  Spread wall;  ///< the runs' wall times, seconds
  Spread exec;  ///< oneDNN's execution time of the runs (ms; runs 0: no verbose line)
};

/// `payoff`, only where each has two runs or more (else `too-few-runs`) and their wall times
/// or oneDNN's execution times do not overlap (else `too-noisy`): both measures ranked, and the
/// verdict says which moved ("oneDNN's exec time is 3.40x as fast under A as under B, the
/// program's wall time 1.30x: oneDNN's time moved more; the rest of the wall time is outside
/// oneDNN"), or "the program runs 1.80x as fast under A as under B" where only the wall time is
/// known. `what` names the comparison ("ISA caps", "thread sets").
Finding RankConfigs(std::string_view what, const RankedConfig& a, const RankedConfig& b);

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

/// Everything a sweep's runs say, in one list, for either source: per configuration how its
/// runs ended (worker-failed, out-of-memory for the model; program-failed for a program), what
/// its cap allowed (isa-above-cap on the first run; cap-model-fallback), a program's
/// threads-overridden; then the scalar work once across the caps (CapScalarFindings), the peaks
/// (PeakFindings), no-verbose (a
/// program that printed no verbose line in any run), the ranking of the configurations whose runs
/// all succeeded (the model: ModelPayoff; a program: RankConfigs of the fastest cap, by RaceOf
/// of oneDNN's exec times where every run printed them, else of the wall times, against the
/// lowest, naming the caps within its spread, and of the last thread set against the first) and
/// `interrupted` when signal `interrupted_by` (0: none) stopped the sweep. `comparison` is
/// CompareSweep(results): the rankings read it.
std::vector<Finding> SweepFindings(const std::vector<ConfigRuns>& results,
                                   const SweepComparison& comparison, int interrupted_by);

/// How a sweep ends: 128 + N when signal N stopped it; for the model, out of memory (a worker's
/// exit 7, the machine's limit: its error, once) or a failed worker (error 5); for a program, the
/// first status of a run that was not 0 (ProgramSweepStatus); else 0.
StatusOr<int> SweepExitStatus(const std::vector<ConfigRuns>& results, int interrupted_by);

}  // namespace dlcheck::dispatch
