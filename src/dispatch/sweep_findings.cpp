// SPDX-License-Identifier: Apache-2.0
#include "dispatch/sweep_findings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "common/finding_codes.h"
#include "dispatch/sweep.h"
#include "os/exit_status.h"
#include "os/signals.h"
#include "verbose/rules.h"

namespace dlcheck::dispatch {

std::string RowName(const verbose::PrimitiveStats& row) {
  const std::string layer = row.layer ? row.layer->str() + " " : std::string();
  return fmt::format("{}{} {} ({})", layer, row.primitive.view(), row.prop_kind.view(),
                     row.implementation.view());
}

namespace {

// The executed work on oneDNN's scalar code among `rows` (RowName each) and whether it cost 1 %
// of their execution time or more (or the time is unknown): a warning, else said as info.
struct ScalarWork {
  std::vector<std::string> rows;
  bool costly = false;
};

ScalarWork ScalarWorkOf(const std::vector<verbose::PrimitiveStats>& rows) {
  ScalarWork work;
  double scalar_ms = 0, exec_ms = 0;
  for (const auto& row : rows) {
    exec_ms += row.exec_ms_total;
    if (!verbose::IsScalarFinding(row, verbose::ScalarScope::kExecutedWork)) continue;
    work.rows.push_back(RowName(row));
    scalar_ms += row.exec_ms_total;
  }
  work.costly = !work.rows.empty() && (exec_ms <= 0 || scalar_ms >= 0.01 * exec_ms);
  return work;
}

bool TestsACap(std::string_view cap) {
  return !cap.empty() && cap != kScalarCap;
}

std::optional<Finding> AboveCapFinding(const std::vector<verbose::PrimitiveStats>& rows,
                                       std::string_view cap) {
  std::vector<std::string> above;
  for (const auto& row : rows) {
    if (AboveCap(row, cap)) above.push_back(RowName(row));
  }
  if (above.empty()) return std::nullopt;
  return Finding{
      .severity = Severity::kWarning,
      .code = codes::kIsaAboveCap,
      .message = fmt::format("under the cap {} oneDNN still ran {}", cap, fmt::join(above, ", "))};
}

// "under the cap avx2" / "under the caps sse41, avx2".
std::string UnderCaps(const std::vector<std::string>& caps) {
  return fmt::format("under the cap{} {}", caps.size() == 1 ? "" : "s", fmt::join(caps, ", "));
}

Finding ScalarFinding(const std::vector<std::string>& caps, const ScalarWork& work) {
  return {.severity = work.costly ? Severity::kWarning : Severity::kInfo,
          .code = codes::kCapScalarFallback,
          .message = fmt::format("{} these primitives ran scalar code: {}{}", UnderCaps(caps),
                                 fmt::join(work.rows, ", "),
                                 work.costly ? "" : " (under 1% of the execution time)")};
}

}  // namespace

std::vector<Finding> CapFindings(const std::vector<verbose::PrimitiveStats>& rows,
                                 std::string_view cap) {
  if (!TestsACap(cap)) return {};
  std::vector<Finding> findings;
  if (auto above = AboveCapFinding(rows, cap)) findings.push_back(std::move(*above));
  if (const ScalarWork work = ScalarWorkOf(rows); !work.rows.empty()) {
    findings.push_back(ScalarFinding({std::string(cap)}, work));
  }
  return findings;
}

std::vector<Finding> CapScalarFindings(const std::vector<ConfigRuns>& results) {
  // One per distinct list of rows, in the order first seen; a warning where any cap paid for it.
  std::vector<std::pair<std::vector<std::string>, ScalarWork>> seen;  // caps, work
  for (const ConfigRuns& r : results) {
    const CapConfig* cap = r.config.cap();
    if (cap == nullptr || !TestsACap(cap->isa)) continue;
    ScalarWork work = ScalarWorkOf(r.first().rows);
    if (work.rows.empty()) continue;
    const auto same = std::find_if(seen.begin(), seen.end(),
                                   [&](const auto& s) { return s.second.rows == work.rows; });
    if (same == seen.end()) {
      seen.push_back({{cap->isa}, std::move(work)});
    } else {
      same->first.push_back(cap->isa);
      same->second.costly = same->second.costly || work.costly;
    }
  }
  std::vector<Finding> findings;
  for (const auto& [caps, work] : seen) findings.push_back(ScalarFinding(caps, work));
  return findings;
}

std::optional<Finding> CapModelFallbackFinding(const Run& run, std::string_view cap) {
  if (!run.model || run.model->fallbacks.empty()) return std::nullopt;
  const auto& fallbacks = run.model->fallbacks;
  std::vector<std::string> layers;
  for (const auto& f : fallbacks) layers.push_back(f.layer);
  return Finding{.severity = Severity::kWarning,
                 .code = codes::kCapModelFallback,
                 .message = fmt::format("under the cap {} oneDNN could not run this model, so "
                                        "dlcheck's scalar kernels ran it (layers {}): {}",
                                        cap, fmt::join(layers, ", "), fallbacks.front().reason)};
}

CapRace RaceOf(const std::vector<Spread>& spreads, bool higher_is_faster) {
  CapRace race;
  if (spreads.size() < 2) return race;
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < spreads.size(); ++i) {
    const double median = spreads[i].median, best = spreads[fastest].median;
    if (higher_is_faster ? median > best : median < best) fastest = i;
  }
  race.fastest = fastest;
  race.baseline = fastest == 0 ? spreads.size() - 1 : 0;
  for (std::size_t i = 0; i < spreads.size(); ++i) {
    if (i != fastest && i != race.baseline && !Separated(spreads[i], spreads[fastest])) {
      race.tied.push_back(i);
    }
  }
  return race;
}

namespace {

// "; a tie within the spread with avx512_core_bf16 (2.15x): their timed chunks overlap avx2's":
// the caps `race.tied` whose ranges overlap the fastest's, each with its own ratio over the
// baseline (`ratio(i)`), as a payoff sentence ends.
template <typename Ratio>
std::string TiedWith(const CapRace& race, const std::vector<std::string>& names, Ratio ratio,
                     std::string_view what_overlaps) {
  if (race.tied.empty()) return {};
  std::vector<std::string> tied;
  for (const std::size_t i : race.tied)
    tied.push_back(fmt::format("{} ({:.2f}x)", names[i], ratio(i)));
  return fmt::format("; a tie within the spread with {}: {} overlap {}'s", fmt::join(tied, ", "),
                     what_overlaps, names[*race.fastest]);
}

// "; the highest cap, avx512_core_bf16: 1.85x": where the fastest cap is not the highest and the
// highest neither ties with it nor is the baseline (a sweep whose top cap is not its best).
template <typename Ratio>
std::string HighestCap(const CapRace& race, const std::vector<std::string>& names, Ratio ratio) {
  const std::size_t highest = names.size() - 1;
  if (*race.fastest == highest || race.baseline == highest ||
      std::find(race.tied.begin(), race.tied.end(), highest) != race.tied.end()) {
    return {};
  }
  return fmt::format("; the highest cap, {}: {:.2f}x", names[highest], ratio(highest));
}

}  // namespace

std::optional<Finding> ModelPayoff(const SweepComparison& comparison) {
  std::vector<const ConfigComparison*> measured;  // lowest cap first
  for (const std::size_t i : comparison.RankedCaps()) {
    if (comparison.configs[i].samples_per_s) measured.push_back(&comparison.configs[i]);
  }
  if (measured.size() < 2) return std::nullopt;
  std::vector<Spread> spreads;
  std::vector<std::string> names;
  for (const ConfigComparison* c : measured) {
    spreads.push_back(c->samples);
    names.push_back(c->config.cap()->isa);
  }
  const CapRace race = RaceOf(spreads, /*higher_is_faster=*/true);
  const Spread& fast = spreads[*race.fastest];
  const Spread& base = spreads[race.baseline];
  const std::string& fast_cap = names[*race.fastest];
  const std::string& base_cap = names[race.baseline];
  if (!Separated(fast, base)) {
    const bool fast_first = *race.fastest < race.baseline;
    const Spread& a = fast_first ? fast : base;
    const Spread& b = fast_first ? base : fast;
    return Finding{
        .severity = Severity::kWarning,
        .code = codes::kTooNoisy,
        .message = fmt::format(
            "the runs are too noisy to rank the caps {} ({:.0f}-{:.0f} samples/s over the timed "
            "chunks) and {} ({:.0f}-{:.0f}): their ranges overlap; rerun on a quieter machine or "
            "with more --iters",
            fast_first ? fast_cap : base_cap, a.min, a.max, fast_first ? base_cap : fast_cap, b.min,
            b.max)};
  }
  const auto ratio = [&](std::size_t i) { return spreads[i].median / base.median; };
  return Finding{
      .severity = Severity::kInfo,
      .code = codes::kPayoff,
      .message = fmt::format(
          "the model trains {:.2f}x as fast under the cap {} as under {} (samples/s; "
          "the timed chunks of the two runs do not overlap){}{}",
          fast.median / base.median, fast_cap, base_cap,
          TiedWith(race, names, ratio, "their timed chunks"), HighestCap(race, names, ratio))};
}

std::vector<Finding> PeakFindings(const SweepComparison& comparison) {
  std::vector<Finding> findings;
  const ConfigComparison* narrower = nullptr;  // the highest peak of the caps so far
  for (const std::size_t i : comparison.caps) {
    const ConfigComparison& c = comparison.configs[i];
    if (!c.peak_gflops || *c.peak_gflops <= 0) continue;
    if (narrower != nullptr && *c.peak_gflops < *narrower->peak_gflops) {
      findings.push_back(
          {.severity = Severity::kWarning,
           .code = codes::kPeakBelowNarrower,
           .message = fmt::format(
               "the FMA peak probe measured {:.1f} GFLOP/s a core under the cap {}, below the "
               "{:.1f} under the narrower cap {}, which {} can also run: a disturbed probe (a "
               "busy machine; rerun), or wider units that are no faster (AMD Zen 4 runs AVX-512 "
               "on 256-bit halves); the peak fractions under {} are against the lower figure",
               *c.peak_gflops, c.config.cap()->isa, *narrower->peak_gflops,
               narrower->config.cap()->isa, c.config.cap()->isa, c.config.cap()->isa)});
    }
    if (narrower == nullptr || *c.peak_gflops > *narrower->peak_gflops) narrower = &c;
  }
  return findings;
}

Finding InterruptedFinding(int signal) {
  return {.severity = Severity::kWarning,
          .code = codes::kInterrupted,
          .message = fmt::format("interrupted by {}: the report holds the runs that were done",
                                 os::SignalName(signal))};
}

namespace {

// `slow`'s median over `fast`'s.
double Times(const Spread& slow, const Spread& fast) {
  return fast.median > 0 ? slow.median / fast.median : 0;
}

// One of the two times a configuration is ranked by, as a payoff finding names it.
struct Measure {
  std::string_view name;
  Spread RankedConfig::*spread;
  std::string_view unit;
};
constexpr Measure kWallTime{"the program's wall time", &RankedConfig::wall, "s"};
constexpr Measure kExecTime{"oneDNN's exec time", &RankedConfig::exec, "ms"};

// `payoff` where `moved` ranks `fast` before `slow` and `still` did not move beyond its spread.
Finding OnlyOneMoved(std::string_view what, const RankedConfig& fast, const RankedConfig& slow,
                     const Measure& moved, const Measure& still, std::string_view conclusion) {
  const Spread& fast_still = fast.*still.spread;
  const Spread& slow_still = slow.*still.spread;
  return {.severity = Severity::kInfo,
          .code = codes::kPayoff,
          .message = fmt::format(
              "{}: {} is {:.2f}x as fast under {} as under {} (medians of {} and {} runs), but "
              "{} did not move beyond its spread ({:.3f}-{:.3f} {} and {:.3f}-{:.3f} {}): {}",
              what, moved.name, Times(slow.*moved.spread, fast.*moved.spread), fast.name, slow.name,
              fast.runs, slow.runs, still.name, fast_still.min, fast_still.max, still.unit,
              slow_still.min, slow_still.max, still.unit, conclusion)};
}

// What the exec times say beside a wall-time ranking, or where only they moved.
Finding RankByBoth(std::string_view what, const RankedConfig& a, const RankedConfig& b) {
  const bool wall_moved = Separated(a.wall, b.wall);
  const bool exec_moved = Separated(a.exec, b.exec);
  const bool a_faster = exec_moved ? a.exec.median < b.exec.median : a.wall.median < b.wall.median;
  const RankedConfig& fast = a_faster ? a : b;
  const RankedConfig& slow = a_faster ? b : a;
  if (exec_moved && wall_moved) {
    const std::string runs = fmt::format("medians of {} and {} runs", fast.runs, slow.runs);
    const double exec = Times(slow.exec, fast.exec), wall = Times(slow.wall, fast.wall);
    return {.severity = Severity::kInfo,
            .code = codes::kPayoff,
            .message = fmt::format(
                "{}: oneDNN's exec time is {:.2f}x as fast under {} as under {}, the program's "
                "wall time {:.2f}x ({}): {}",
                what, exec, fast.name, slow.name, wall, runs,
                exec > 1.1 * wall ? "oneDNN's time moved more; the rest of the wall time is "
                                    "outside oneDNN"
                                  : "both moved")};
  }
  if (exec_moved) {
    return OnlyOneMoved(what, fast, slow, kExecTime, kWallTime,
                        "the rest of the wall time is outside oneDNN");
  }
  return OnlyOneMoved(what, fast, slow, kWallTime, kExecTime, "what moved is outside oneDNN");
}

}  // namespace

Finding RankConfigs(std::string_view what, const RankedConfig& a, const RankedConfig& b) {
  if (a.runs < 2 || b.runs < 2) {
    return {.severity = Severity::kInfo,
            .code = codes::kTooFewRuns,
            .message = fmt::format("{}: one run per configuration, so the spread is unknown and "
                                   "{} and {} are not ranked; rerun with --repeat 3 or more",
                                   what, a.name, b.name)};
  }
  const bool with_exec = a.exec.runs >= 2 && b.exec.runs >= 2;
  if (with_exec && (Separated(a.exec, b.exec) || Separated(a.wall, b.wall))) {
    return RankByBoth(what, a, b);
  }
  if (!Separated(a.wall, b.wall)) {
    return {.severity = Severity::kWarning,
            .code = codes::kTooNoisy,
            .message = fmt::format(
                "{}: the runs are too noisy to rank {} ({:.3f}-{:.3f} s) and {} ({:.3f}-{:.3f} "
                "s): their wall times overlap{}; rerun on a quieter machine or with more --repeat",
                what, a.name, a.wall.min, a.wall.max, b.name, b.wall.min, b.wall.max,
                with_exec ? ", and so do oneDNN's exec times" : "")};
  }
  const bool a_faster = a.wall.median < b.wall.median;
  const RankedConfig& fast = a_faster ? a : b;
  const RankedConfig& slow = a_faster ? b : a;
  return {.severity = Severity::kInfo,
          .code = codes::kPayoff,
          .message = fmt::format(
              "{}: the program runs {:.2f}x as fast under {} as under {} (median wall time of {} "
              "and {} runs; spread {:.1f}% and {:.1f}%)",
              what, slow.wall.median / fast.wall.median, fast.name, slow.name, fast.runs, slow.runs,
              100 * fast.wall.Relative(), 100 * slow.wall.Relative())};
}

std::optional<Finding> ProgramFailedFinding(std::string_view config,
                                            const std::vector<os::Outcome>& runs) {
  const auto failed = std::find_if(runs.begin(), runs.end(),
                                   [](const os::Outcome& o) { return o.ShellStatus() != 0; });
  if (failed == runs.end()) return std::nullopt;
  std::vector<int> statuses;
  for (const auto& run : runs) statuses.push_back(run.ShellStatus());
  return Finding{.severity = Severity::kError,
                 .code = codes::kProgramFailed,
                 .message = fmt::format("under {} the program {} (exit statuses of the runs: {})",
                                        config, failed->Ended(), fmt::join(statuses, ","))};
}

std::optional<Finding> ThreadsOverriddenFinding(std::string_view config, int asked, int seen) {
  if (asked <= 0 || seen <= 0 || seen == asked) return std::nullopt;
  return Finding{.severity = Severity::kInfo,
                 .code = codes::kThreadsOverridden,
                 .message = fmt::format("under {} dlcheck asked for {} threads (OMP_NUM_THREADS) "
                                        "but oneDNN ran {}: the program sets its own thread count",
                                        config, asked, seen)};
}

int ProgramSweepStatus(int interrupted_by, const std::vector<int>& run_statuses) {
  if (interrupted_by != 0) return os::ExitStatusForSignal(interrupted_by);
  for (int status : run_statuses) {
    if (status != 0) return status;
  }
  return 0;
}

namespace {

// Who ran a configuration of the model, as its findings name it: "the worker for avx2", "the
// worker for thread set socket".
std::string WorkerOf(const SweepConfig& config) {
  if (const ThreadSetConfig* set = config.thread_set())
    return "the worker for thread set " + set->name;
  return "the worker for " + IsaCapOf(config.run).value_or("");
}

// How a configuration's runs ended and what its cap allowed.
void AddConfigFindings(const ConfigRuns& r, std::vector<Finding>& findings) {
  for (const Run& run : r.runs) {
    const std::string then = run.OutOfMemory() ? "" : "; the other runs went on";
    if (auto ended = WorkerEndFinding(run, WorkerOf(r.config), then)) {
      findings.push_back(std::move(*ended));
    }
  }
  if (const CapConfig* cap = r.config.cap()) {
    // The scalar work is said once for every cap that ran it (CapScalarFindings).
    if (TestsACap(cap->isa)) {
      if (auto above = AboveCapFinding(r.first().rows, cap->isa)) {
        findings.push_back(std::move(*above));
      }
    }
    if (auto model = CapModelFallbackFinding(r.first(), cap->isa)) {
      findings.push_back(std::move(*model));
    }
  }
  if (r.first().model) return;
  std::vector<os::Outcome> ends;
  for (const Run& run : r.runs) ends.push_back(run.outcome);
  if (auto failed = ProgramFailedFinding(r.config.Name(), ends)) {
    findings.push_back(std::move(*failed));
  }
  if (auto overridden =
          ThreadsOverriddenFinding(r.config.Name(), r.config.threads, ThreadsSeen(r))) {
    findings.push_back(std::move(*overridden));
  }
}

RankedConfig RankedOf(const ConfigRuns& r) {
  std::vector<double> exec_ms;
  for (const Run& run : r.runs) {
    if (run.verbose_lines > 0) exec_ms.push_back(run.summary.exec_ms);
  }
  // oneDNN's time only where every run printed it.
  if (exec_ms.size() != r.runs.size()) exec_ms.clear();
  return {
      .name = r.config.Name(), .runs = r.runs.size(), .wall = r.wall, .exec = SpreadOf(exec_ms)};
}

// The caps `caps` (indices into `results`, lowest first) ranked: the fastest against the
// lowest (RaceOf), by oneDNN's exec times where every cap's runs printed them, else by wall time;
// a payoff names the caps within the fastest's spread and the highest cap where it lost.
Finding RankCaps(const std::vector<ConfigRuns>& results, const std::vector<std::size_t>& caps) {
  std::vector<RankedConfig> ranked;
  for (const std::size_t i : caps) ranked.push_back(RankedOf(results[i]));
  const bool by_exec = std::all_of(ranked.begin(), ranked.end(),
                                   [](const RankedConfig& r) { return r.exec.runs >= 2; });
  const Measure& measure = by_exec ? kExecTime : kWallTime;
  std::vector<Spread> spreads;
  std::vector<std::string> names;
  for (const RankedConfig& r : ranked) {
    spreads.push_back(r.*measure.spread);
    names.push_back(r.name);
  }
  const CapRace race = RaceOf(spreads, /*higher_is_faster=*/false);
  Finding ranking = RankConfigs("ISA caps", ranked[*race.fastest], ranked[race.baseline]);
  if (ranking.code != codes::kPayoff) return ranking;
  const auto ratio = [&](std::size_t i) { return Times(spreads[race.baseline], spreads[i]); };
  ranking.message += TiedWith(race, names, ratio, fmt::format("their runs of {}", measure.name));
  ranking.message += HighestCap(race, names, ratio);
  return ranking;
}

// A program's rankings: the fastest cap against the lowest (RankCaps), the last thread set against
// the first, each where there are two whose runs all exited 0 (a failed configuration's time is not
// the program's: it is never ranked; program-failed says why).
void AddProgramRankings(const std::vector<ConfigRuns>& results, const SweepComparison& comparison,
                        std::vector<Finding>& findings) {
  const std::vector<std::size_t> caps = comparison.RankedCaps();
  const std::vector<std::size_t> sets = comparison.RankedThreadSets();
  if (caps.size() >= 2) findings.push_back(RankCaps(results, caps));
  if (sets.size() >= 2) {
    findings.push_back(RankConfigs("thread sets", RankedOf(results[sets.back()]),
                                   RankedOf(results[sets.front()])));
  }
}

bool AnyVerboseLine(const std::vector<ConfigRuns>& results) {
  for (const auto& r : results) {
    for (const Run& run : r.runs) {
      if (run.verbose_lines > 0) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<Finding> SweepFindings(const std::vector<ConfigRuns>& results,
                                   const SweepComparison& comparison, int interrupted_by) {
  std::vector<Finding> findings;
  for (const auto& r : results) AddConfigFindings(r, findings);
  for (Finding& f : CapScalarFindings(results)) findings.push_back(std::move(f));
  for (Finding& f : PeakFindings(comparison)) findings.push_back(std::move(f));
  if (comparison.model) {
    if (auto payoff = ModelPayoff(comparison)) findings.push_back(std::move(*payoff));
  } else if (!results.empty()) {
    if (!AnyVerboseLine(results)) {
      findings.push_back(
          {.severity = Severity::kWarning,
           .code = codes::kNoVerbose,
           .message = "the program printed no oneDNN verbose line in any run although dlcheck "
                      "switched verbose on: it may not use oneDNN, its oneDNN may be built with "
                      "verbose output compiled out, or it may redirect or close its own stdout"});
    }
    AddProgramRankings(results, comparison, findings);
    // Every run of a sweep got the same environment: the user's verbose value is said once.
    if (!results.front().runs.empty()) {
      if (auto kept = VerboseKeptFinding(results.front().runs.front().verbose_request)) {
        findings.push_back(std::move(*kept));
      }
    }
  }
  if (interrupted_by != 0) findings.push_back(InterruptedFinding(interrupted_by));
  return findings;
}

StatusOr<int> SweepExitStatus(const std::vector<ConfigRuns>& results, int interrupted_by) {
  if (interrupted_by != 0) return os::ExitStatusForSignal(interrupted_by);
  std::vector<int> program_statuses;
  for (const auto& r : results) {
    for (const Run& run : r.runs) {
      if (run.OutOfMemory()) return run.OutOfMemoryError();
      if (!run.model) program_statuses.push_back(run.outcome.ShellStatus());
    }
  }
  for (const auto& r : results) {
    for (const Run& run : r.runs) {
      if (run.model && !run.outcome.ok()) {
        return Status(ExitCode::kWorkerFailed,
                      "a model worker failed; the report holds the other runs");
      }
    }
  }
  return ProgramSweepStatus(0, program_statuses);
}

}  // namespace dlcheck::dispatch
