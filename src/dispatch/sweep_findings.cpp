#include "dispatch/sweep_findings.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

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

std::vector<Finding> CapFindings(const std::vector<verbose::PrimitiveStats>& rows,
                                 std::string_view cap) {
  if (cap.empty() || cap == kScalarCap) return {};
  std::vector<std::string> above, scalar;
  for (const auto& row : rows) {
    if (AboveCap(row, cap)) above.push_back(RowName(row));
    if (verbose::IsScalarFinding(row, verbose::ScalarScope::kExecutedWork)) {
      scalar.push_back(RowName(row));
    }
  }
  std::vector<Finding> findings;
  if (!above.empty()) {
    findings.push_back({.severity = Severity::kWarning,
                        .code = "isa-above-cap",
                        .message = fmt::format("under the cap {} oneDNN still ran {}", cap,
                                               fmt::join(above, ", "))});
  }
  if (!scalar.empty()) {
    findings.push_back(
        {.severity = Severity::kWarning,
         .code = "cap-scalar-fallback",
         .message = fmt::format("under the cap {} these primitives ran scalar code: {}", cap,
                                fmt::join(scalar, ", "))});
  }
  return findings;
}

std::optional<Finding> CapModelFallbackFinding(const CapturedRun& run, std::string_view cap) {
  if (run.fallbacks.empty()) return std::nullopt;
  std::vector<std::string> layers;
  for (const auto& f : run.fallbacks) layers.push_back(f.layer);
  return Finding{
      .severity = Severity::kWarning,
      .code = "cap-model-fallback",
      .message = fmt::format("under the cap {} oneDNN could not run this model, so "
                             "dlcheck's scalar kernels ran it (layers {}): {}",
                             cap, fmt::join(layers, ", "), run.fallbacks.front().reason)};
}

Spread SamplesSpreadOf(const SweepRun& r) {
  const auto& res = r.run.results;
  if (!res.samples_per_s) return {};
  if (!res.samples_per_s_min || !res.samples_per_s_max || !res.timed_chunks) {
    return {.runs = 1,
            .median = *res.samples_per_s,
            .min = *res.samples_per_s,
            .max = *res.samples_per_s};
  }
  return {.runs = static_cast<std::size_t>(*res.timed_chunks),
          .median = *res.samples_per_s,
          .min = *res.samples_per_s_min,
          .max = *res.samples_per_s_max};
}

std::optional<Finding> ModelPayoff(const std::vector<SweepRun>& runs) {
  const SweepRun* low = nullptr;
  const SweepRun* high = nullptr;
  for (const auto& r : runs) {
    if (r.cap() == nullptr || !r.run.results.samples_per_s) continue;
    if (low == nullptr) low = &r;
    high = &r;
  }
  if (low == nullptr || high == low) return std::nullopt;
  const Spread a = SamplesSpreadOf(*low), b = SamplesSpreadOf(*high);
  if (!Separated(a, b)) {
    return Finding{
        .severity = Severity::kWarning,
        .code = "too-noisy",
        .message = fmt::format(
            "the runs are too noisy to rank the caps {} ({:.0f}-{:.0f} samples/s over the timed "
            "chunks) and {} ({:.0f}-{:.0f}): their ranges overlap; rerun on a quieter machine or "
            "with more --iters",
            low->cap()->isa, a.min, a.max, high->cap()->isa, b.min, b.max)};
  }
  return Finding{.severity = Severity::kInfo,
                 .code = "payoff",
                 .message = fmt::format(
                     "the model trains {:.2f}x as fast under the cap {} as under {} (samples/s; "
                     "the timed chunks of the two runs do not overlap)",
                     b.median / a.median, high->cap()->isa, low->cap()->isa)};
}

Finding InterruptedFinding(int signal) {
  return {.severity = Severity::kWarning,
          .code = "interrupted",
          .message = fmt::format("interrupted by {}: the report holds the runs that were done",
                                 os::SignalName(signal))};
}

Finding RankConfigs(std::string_view what, const RankedConfig& a, const RankedConfig& b) {
  if (a.runs < 2 || b.runs < 2) {
    return {.severity = Severity::kInfo,
            .code = "too-few-runs",
            .message = fmt::format("{}: one run per configuration, so the spread is unknown and "
                                   "{} and {} are not ranked; rerun with --repeat 3 or more",
                                   what, a.name, b.name)};
  }
  if (!Separated(a.wall, b.wall)) {
    return {.severity = Severity::kWarning,
            .code = "too-noisy",
            .message = fmt::format(
                "{}: the runs are too noisy to rank {} ({:.3f}-{:.3f} s) and {} ({:.3f}-{:.3f} "
                "s): their wall times overlap; rerun on a quieter machine or with more --repeat",
                what, a.name, a.wall.min, a.wall.max, b.name, b.wall.min, b.wall.max)};
  }
  const bool a_faster = a.wall.median < b.wall.median;
  const RankedConfig& fast = a_faster ? a : b;
  const RankedConfig& slow = a_faster ? b : a;
  return {.severity = Severity::kInfo,
          .code = "payoff",
          .message = fmt::format(
              "{}: the program runs {:.2f}x as fast under {} as under {} (median wall time of {} "
              "and {} runs; spread {:.1f}% and {:.1f}%)",
              what, slow.wall.median / fast.wall.median, fast.name, slow.name, fast.runs, slow.runs,
              100 * fast.wall.Relative(), 100 * slow.wall.Relative())};
}

std::optional<std::size_t> SeparatedFastest(const std::vector<std::optional<Spread>>& spreads) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < spreads.size(); ++i) {
    if (spreads[i] && (!best || spreads[i]->median < spreads[*best]->median)) best = i;
  }
  if (!best) return std::nullopt;
  for (std::size_t i = 0; i < spreads.size(); ++i) {
    if (i != *best && spreads[i] && !Separated(*spreads[i], *spreads[*best])) return std::nullopt;
  }
  return best;
}

std::optional<Finding> ProgramFailedFinding(std::string_view config,
                                            const std::vector<os::Outcome>& runs) {
  const auto failed = std::find_if(runs.begin(), runs.end(),
                                   [](const os::Outcome& o) { return o.ShellStatus() != 0; });
  if (failed == runs.end()) return std::nullopt;
  std::vector<int> statuses;
  for (const auto& run : runs) statuses.push_back(run.ShellStatus());
  return Finding{.severity = Severity::kError,
                 .code = "program-failed",
                 .message = fmt::format("under {} the program {} (exit statuses of the runs: {})",
                                        config, failed->Ended(), fmt::join(statuses, ","))};
}

std::optional<Finding> ThreadsOverriddenFinding(std::string_view config, int asked, int seen) {
  if (asked <= 0 || seen <= 0 || seen == asked) return std::nullopt;
  return Finding{.severity = Severity::kInfo,
                 .code = "threads-overridden",
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

}  // namespace dlcheck::dispatch
