// SPDX-License-Identifier: Apache-2.0
#include "check/check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <span>

#include "common/nearest_name.h"
#include "common/onednn_isa.h"
#include "common/text.h"
#include "detect/cpu_features.h"
#include "verbose/rules.h"

namespace dlcheck::check {

const dispatch::ModelResults& ModelOf(const dispatch::Run& run) {
  static const dispatch::ModelResults kNone;
  return run.model ? *run.model : kNone;
}

namespace {

void CheckPlatform(const detect::PlatformInfo& info, std::vector<Item>& items) {
  for (const auto& f : info.findings) {
    // libcpuid 0.6.2 reports no AVX-512 on AMD Zen 4/5: a known gap of the library, not of the
    // machine; oneDNN reads CPUID itself. `platform` says libcpuid's disagreements as information
    // (dlcheck trusts the leaves), and so does the check: an OK item with the same words.
    if (f.topic == Topic::kLibcpuid) {
      items.push_back({.check = "platform " + f.code,
                       .state = State::kOk,
                       .detail = std::string(SeverityName(f.severity)) + ": " + f.message});
      continue;
    }
    if (f.severity != Severity::kWarning) continue;
    items.push_back({.check = "platform " + f.code,
                     .state = State::kWarning,
                     .detail = f.message,
                     .summary = f.code});
  }
}

void CheckProbes(const detect::PlatformInfo& info, const std::vector<detect::ProbeResult>& probes,
                 std::vector<Item>& items) {
  int passed = 0;
  for (const auto& p : probes) {
    if (p.state == detect::ProbeState::kPassed) {
      ++passed;
    } else if (p.state == detect::ProbeState::kFaulted && info.FeatureAvailable(p.feature)) {
      items.push_back({.check = "probe " + p.feature,
                       .state = State::kWarning,
                       .detail = fmt::format("CPUID claims {} but the instruction faults ({}): "
                                             "the hypervisor or kernel hides it",
                                             p.feature, p.detail),
                       .summary = fmt::format("{} faults although CPUID claims it", p.feature)});
    } else if (p.state == detect::ProbeState::kError) {
      items.push_back({.check = "probe " + p.feature,
                       .state = State::kWarning,
                       .detail = p.detail,
                       .summary = fmt::format("probe of {} could not run", p.feature)});
    }
  }
  items.push_back({.check = "probes",
                   .state = State::kOk,
                   .detail = fmt::format("{} of {} probes ran", passed, probes.size())});
}

Item CheckIsaRequirement(const Requirement& r, const detect::PlatformInfo& info) {
  // A oneDNN 3.x level is held against the level 3.x dispatches here, a 2.6 cap against the
  // linked oneDNN's.
  const bool onednn3 = onednn::IsOneDnn3Level(r.name);
  const std::string have = onednn3 ? info.onednn3_max_isa.isa : OneDnnIsa(info);
  const std::string_view which = onednn3 ? "oneDNN 3.x" : "oneDNN";
  Item item{.check = "require " + r.name,
            .detail = fmt::format("{} dispatches up to {}", which, have)};
  const std::optional<int> have_rank = onednn::IsaRank(have);
  const std::optional<int> want_rank = onednn::IsaRank(r.name);
  if (!have_rank || !want_rank) {
    item.state = State::kUnknown;
    item.summary = fmt::format("cannot rank {} against the required {}", have, r.name);
  } else if (*have_rank < *want_rank) {
    item.state = State::kCritical;
    item.summary = fmt::format("{} ISA {} below the required {}", which, have, r.name);
  }
  return item;
}

Item CheckRequirement(const Requirement& r, const detect::PlatformInfo& info,
                      const std::vector<detect::ProbeResult>& probes) {
  if (r.is_isa) return CheckIsaRequirement(r, info);
  Item item{.check = "require " + r.name};
  const detect::FeatureLayers* f = info.FindFeature(r.name);
  const detect::ProbeResult* probe = detect::FindProbe(probes, r.name);
  if (f == nullptr || !f->Available()) {
    item.state = State::kCritical;
    item.detail = f != nullptr && f->cpu ? "CPUID claims it but the OS has not enabled it"
                  : f != nullptr && f->hidden_by_hypervisor
                      ? fmt::format(
                            "hidden by the hypervisor: every {} part has it, this "
                            "guest's CPUID does not expose it",
                            info.cpu.microarchitecture)
                      : "the CPU does not have it";
    item.summary = fmt::format("required {} is missing", r.name);
  } else if (probe != nullptr && probe->state == detect::ProbeState::kFaulted) {
    item.state = State::kCritical;
    item.detail =
        fmt::format("usable per CPUID and XCR0, but the instruction faults ({})", probe->detail);
    item.summary = fmt::format("required {} faults", r.name);
  } else {
    item.detail = probe != nullptr && probe->state == detect::ProbeState::kPassed
                      ? "usable; the probe ran"
                      : "usable";
  }
  return item;
}

Item AtLeast(const char* what, int minimum, int have) {
  return {.check = fmt::format("min-{} {}", what, minimum),
          .state = have >= minimum ? State::kOk : State::kCritical,
          .detail = fmt::format("{} {}", have, what),
          .summary = fmt::format("{} {}, fewer than {}", have, what, minimum)};
}

void CheckTopology(const Requirements& r, const Evidence& e, std::vector<Item>& items) {
  if (r.min_sockets == 0 && r.min_cores == 0) return;
  if (!e.topology) {
    items.push_back({.check = "topology",
                     .state = State::kUnknown,
                     .detail = e.topology_error,
                     .summary = "topology unknown"});
    return;
  }
  if (r.min_sockets > 0) items.push_back(AtLeast("sockets", r.min_sockets, e.topology->packages));
  if (r.min_cores > 0) items.push_back(AtLeast("cores", r.min_cores, e.topology->cores));
}

Item WorkerItem(const dispatch::Run& run) {
  if (run.outcome.ok()) return {.check = "model run", .detail = "the MLP trained to the end"};
  const std::string where = ModelOf(run).last_phase.empty() ? "start-up" : ModelOf(run).last_phase;
  if (run.OutOfMemory()) {
    // The machine's limit, not a broken worker: UNKNOWN, as dlcheck's own memory running out.
    return {.check = "model run",
            .state = State::kUnknown,
            .detail = fmt::format("the model worker ran out of memory in phase {}: raise the "
                                  "limit (ulimit -v, the cgroup's memory.max)",
                                  where),
            .summary = fmt::format("model worker out of memory in phase {}", where)};
  }
  const std::string what = run.outcome.Describe();
  return {.check = "model run",
          .state = State::kCritical,
          .detail = fmt::format("the model worker {} in phase {}", what, where),
          .summary = fmt::format("model worker {} in phase {}", what, where)};
}

std::optional<Item> ReferenceItem(const dispatch::Run& run) {
  const auto& deviation = ModelOf(run).results.max_deviation;
  const auto& tolerance = ModelOf(run).results.tolerance;
  if (deviation && tolerance) {
    return Item{.check = "reference",
                .state = *deviation <= *tolerance ? State::kOk : State::kCritical,
                .detail = fmt::format("largest deviation from the scalar reference {:.3g} "
                                      "(tolerance {:.3g})",
                                      *deviation, *tolerance),
                .summary = "oneDNN disagrees with the scalar reference",
                .stable_detail = *deviation <= *tolerance
                                     ? "the deviation from the scalar reference is within "
                                       "tolerance"
                                     : "the deviation from the scalar reference exceeds "
                                       "tolerance"};
  }
  if (!run.outcome.ok()) return std::nullopt;
  return Item{.check = "reference",
              .state = State::kUnknown,
              .detail = "the worker reported no deviation",
              .summary = "no reference comparison"};
}

// Scalar fallbacks: whole layers on dlcheck's kernels (announced by the worker, once each), or
// oneDNN compute primitives on its reference code.
std::optional<Item> ScalarFallbackItem(const Requirements& r, const dispatch::Run& run) {
  std::vector<std::string> scalar;
  for (const auto& f : ModelOf(run).fallbacks)
    scalar.push_back(f.layer + " (dlcheck scalar kernels)");
  for (const auto& row : run.rows) {
    if (verbose::IsScalarFinding(row, verbose::ScalarScope::kCompute)) {
      scalar.push_back(fmt::format("{} {} ({})", row.LayerOr("?"), row.primitive.view(),
                                   row.implementation.view()));
    }
  }
  if (!scalar.empty()) {
    return Item{.check = "scalar fallback",
                .state = r.no_scalar_fallback ? State::kCritical : State::kWarning,
                .detail = "compute ran on scalar code: " + Join(scalar, ", "),
                .summary = fmt::format("{} scalar fallback(s)", scalar.size())};
  }
  if (!run.outcome.ok()) return std::nullopt;
  return Item{.check = "scalar fallback", .detail = "none"};
}

// The executed compute primitives against the expected ISA, by the one ISA table's rank.
struct IsaSurvey {
  int compute_rows = 0;
  std::vector<std::string> below;     ///< rows under the expected ISA
  std::vector<std::string> unranked;  ///< ISAs the table cannot place against the expected one
  std::string lowest;                 ///< the lowest ranked ISA seen
};

IsaSurvey SurveyIsas(std::string_view expect_isa, const dispatch::Run& run) {
  IsaSurvey survey;
  int lowest_rank = 1 << 20;
  for (const auto& row : run.rows) {
    if (!verbose::IsComputePrimitive(row) || row.execs == 0) continue;
    ++survey.compute_rows;
    // A row without an ISA token ran plain code: "none", below every ISA.
    const std::string_view isa = row.isa.empty() ? onednn::IsaName("none") : row.isa.view();
    const onednn::IsaOrder order = onednn::Compare(isa, expect_isa);
    if (order == onednn::IsaOrder::kUnrankable) {
      if (std::find(survey.unranked.begin(), survey.unranked.end(), row.isa) ==
          survey.unranked.end()) {
        survey.unranked.push_back(row.isa);
      }
      continue;
    }
    if (const int rank = *onednn::IsaRank(isa); rank < lowest_rank) {
      lowest_rank = rank;
      survey.lowest = row.isa.empty() ? "no ISA" : row.isa.str();
    }
    if (order == onednn::IsaOrder::kBelow) {
      survey.below.push_back(
          fmt::format("{} {} ({})", row.LayerOr("?"), row.primitive, row.implementation));
    }
  }
  return survey;
}

// The level a run's rows are held to for `expect_isa`: itself, except a oneDNN 3.x level asked
// of a log of an older oneDNN (the linked 2.6.3's model pass), which has no such level: there the
// rows are held to the level that oneDNN dispatches here, once the host's 3.x level reaches the
// expected one (else the host itself is below it, an item of its own).
struct ExpectedLevel {
  std::string isa;
  std::string note;           ///< how `isa` came from the expected level, or ""
  std::optional<Item> below;  ///< the host's 3.x level is below the expected one
};

ExpectedLevel LevelFor(const std::string& expect_isa, const dispatch::Run& run,
                       const detect::PlatformInfo& platform) {
  if (!onednn::IsOneDnn3Level(expect_isa) || run.header.MajorVersion() >= 3) {
    return {.isa = expect_isa};
  }
  const std::string& host3 = platform.onednn3_max_isa.isa;
  if (onednn::Compare(host3, expect_isa) == onednn::IsaOrder::kBelow) {
    return {
        .below = Item{
            .check = "expect-isa " + expect_isa,
            .state = State::kCritical,
            .detail = fmt::format("oneDNN 3.x dispatches up to {} on this CPU", host3),
            .summary = fmt::format("oneDNN 3.x ISA {} below the expected {}", host3, expect_isa)}};
  }
  const std::string linked = OneDnnIsa(platform);
  return {
      .isa = linked,
      .note = fmt::format(" (the model ran on oneDNN {}, which has no {}: held to {}, its "
                          "level on this CPU, whose oneDNN 3.x level is {})",
                          run.header.library_version.empty() ? "2.x" : run.header.library_version,
                          expect_isa, linked, host3)};
}

Item ExpectIsaItem(const std::string& expect_isa, const dispatch::Run& run,
                   const detect::PlatformInfo& platform) {
  ExpectedLevel level = LevelFor(expect_isa, run, platform);
  if (level.below) return std::move(*level.below);
  const IsaSurvey survey = SurveyIsas(level.isa, run);
  Item item{.check = "expect-isa " + expect_isa};
  if (survey.compute_rows == 0) {
    item.state = State::kUnknown;
    item.detail = "no compute primitive executed";
    item.summary = "no compute primitive to check the ISA of";
  } else if (!survey.below.empty()) {
    item.state = State::kCritical;
    item.detail = "below " + level.isa + ": " + Join(survey.below, ", ") + level.note;
    item.summary =
        fmt::format("compute dispatched {} below the expected {}", survey.lowest, level.isa);
  } else if (!survey.unranked.empty()) {
    // An ISA with no place in the x86 order is not evidence of being below it.
    item.state = State::kUnknown;
    item.detail = fmt::format("compute dispatched {}, which dlcheck cannot rank against {}",
                              Join(survey.unranked, ", "), level.isa);
    item.summary = fmt::format("cannot rank {} against the expected {}",
                               Join(survey.unranked, ", "), level.isa);
  } else {
    item.detail = fmt::format("{} compute primitives at {} or above (lowest {}){}",
                              survey.compute_rows, level.isa, survey.lowest, level.note);
  }
  return item;
}

void CheckModelRun(const Requirements& r, const Evidence& e, std::vector<Item>& items) {
  if (!e.run) {
    items.push_back({.check = "model run",
                     .state = State::kUnknown,
                     .detail = e.run_error,
                     .summary = "the model worker could not start"});
    return;
  }
  const dispatch::Run& run = *e.run;
  items.push_back(WorkerItem(run));
  if (auto item = ReferenceItem(run)) items.push_back(std::move(*item));
  if (auto item = ScalarFallbackItem(r, run)) items.push_back(std::move(*item));
  if (!r.expect_isa.empty()) items.push_back(ExpectIsaItem(r.expect_isa, run, e.platform));
}

}  // namespace

std::string PerfdataNumber(double value, int significant) {
  // The plugin guidelines' value class is [-0-9.]: fixed-point, never an exponent. Decimals enough
  // for `significant` digits (3.81e-06 -> 0.00000381), at most 15 (below that: 0).
  constexpr int kMaxDecimals = 15;
  if (!std::isfinite(value) || value == 0) return "0";
  const int magnitude = static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int decimals = std::clamp(significant - 1 - magnitude, 0, kMaxDecimals);
  std::string text = fmt::format("{:.{}f}", value, decimals);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text == "-0" ? "0" : text;
}

namespace {

std::string Perfdata(const Evidence& e, const std::vector<Item>& items) {
  std::string perf;
  if (e.run) {
    const dispatch::WorkerResults& results = ModelOf(*e.run).results;
    if (results.samples_per_s) {
      perf += fmt::format(" 'samples_per_s'={:.1f};;;0", *results.samples_per_s);
      // Its context: the spread over the timed chunks and the threads it ran on.
      if (results.samples_per_s_min && results.samples_per_s_max) {
        perf += fmt::format(" 'samples_per_s_min'={:.1f};;;0 'samples_per_s_max'={:.1f};;;0",
                            *results.samples_per_s_min, *results.samples_per_s_max);
      }
      perf += fmt::format(" 'threads'={};;;0", kModelPassThreads);
    }
    if (results.step_ms_timed) {
      perf += fmt::format(" 'step_time'={:.6f}s;;;0", *results.step_ms_timed / 1e3);
    }
    if (results.max_deviation) {
      perf += fmt::format(" 'max_deviation'={};;;0", PerfdataNumber(*results.max_deviation, 3));
    }
  }
  const auto problems = std::count_if(items.begin(), items.end(),
                                      [](const Item& i) { return i.state != State::kOk; });
  perf += fmt::format(" 'problems'={};;;0", problems);
  return perf.substr(1);
}

std::string OkSummary(const Requirements& r, const Evidence& e) {
  const detect::PlatformInfo& info = e.platform;
  std::string text = info.cpu.brand.empty() ? info.cpu.vendor : info.cpu.brand;
  if (e.topology) {
    text += fmt::format(", {} socket{}, {} cores", e.topology->packages,
                        e.topology->packages == 1 ? "" : "s", e.topology->cores);
  }
  text += fmt::format(", oneDNN {}", OneDnnIsa(info));
  text += ", MLP matches the scalar reference";
  if (const std::size_t asked = r.Count(); asked > 0) {
    text += fmt::format(", {} requirement{} met", asked, asked == 1 ? "" : "s");
  }
  return text;
}

// The problems, worst first, then in check order.
std::string ProblemSummary(const std::vector<Item>& items) {
  std::string summary;
  for (State level : {State::kUnknown, State::kCritical, State::kWarning}) {
    for (const auto& i : items) {
      if (i.state == level) summary += (summary.empty() ? "" : "; ") + i.summary;
    }
  }
  return summary;
}

}  // namespace

std::string_view StateName(State state) {
  switch (state) {
    case State::kOk:
      return "OK";
    case State::kWarning:
      return "WARNING";
    case State::kCritical:
      return "CRITICAL";
    case State::kUnknown:
      return "UNKNOWN";
  }
  return "UNKNOWN";
}

std::size_t Requirements::Count() const {
  return require.size() + (min_sockets > 0) + (min_cores > 0) + (expect_isa.empty() ? 0 : 1);
}

namespace {

// The ISA names a check takes on this build's architecture (the machine it checks): the linked
// oneDNN's caps and oneDNN 3.x's levels.
constexpr onednn::IsaArch kCheckArch = onednn::kBuildArch;

std::vector<std::string> CheckIsas() {
  const std::span<const std::string_view> caps = onednn::SweepCaps(kCheckArch);
  const std::span<const std::string_view> levels3 = onednn::OneDnn3Levels(kCheckArch);
  std::vector<std::string> names(caps.begin(), caps.end());
  names.insert(names.end(), levels3.begin(), levels3.end());
  return names;
}

bool IsCheckIsa(std::string_view name) {
  const std::vector<std::string> names = CheckIsas();
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

// "; did you mean 'avx512bw'?" for a mistyped feature or ISA level, or "".
std::string RequireSuggestion(const std::string& name) {
  std::vector<std::string> names = detect::ReportedFeatures();
  for (const std::string& isa : CheckIsas()) names.push_back(isa);
  return DidYouMean(name, names);
}

StatusOr<Requirements> ParseRequirements(const std::vector<std::string>& require, int min_sockets,
                                         int min_cores, std::string expect_isa,
                                         bool no_scalar_fallback) {
  Requirements r{.min_sockets = min_sockets,
                 .min_cores = min_cores,
                 .expect_isa = Lower(std::move(expect_isa)),
                 .no_scalar_fallback = no_scalar_fallback};
  const auto& features = detect::ReportedFeatures();
  for (const auto& given : require) {
    if (given.empty()) continue;
    const std::string name = Lower(given);
    if (std::find(features.begin(), features.end(), name) != features.end()) {
      r.require.push_back({name, false});
    } else if (IsCheckIsa(name)) {
      r.require.push_back({name, true});
    } else {
      return UsageError(
          fmt::format("--require: '{}' is neither a feature (a /proc/cpuinfo name such "
                      "as avx512bw) nor a oneDNN ISA ({}){}",
                      given, onednn::CheckIsasText(kCheckArch), RequireSuggestion(name)));
    }
  }
  if (!r.expect_isa.empty() && !IsCheckIsa(r.expect_isa)) {
    return UsageError(fmt::format("--expect-isa: '{}' is not a oneDNN ISA ({}){}", r.expect_isa,
                                  onednn::CheckIsasText(kCheckArch),
                                  DidYouMean(r.expect_isa, CheckIsas())));
  }
  return r;
}

std::string OneDnnIsa(const detect::PlatformInfo& platform) {
  return platform.onednn_effective_isa ? *platform.onednn_effective_isa : platform.onednn_max_isa;
}

std::vector<Item> EvaluateItems(const Requirements& requirements, const Evidence& evidence) {
  std::vector<Item> items;
  CheckPlatform(evidence.platform, items);
  CheckProbes(evidence.platform, evidence.probes, items);
  for (const auto& r : requirements.require) {
    items.push_back(CheckRequirement(r, evidence.platform, evidence.probes));
  }
  CheckTopology(requirements, evidence, items);
  CheckModelRun(requirements, evidence, items);
  return items;
}

CheckResult Summarize(const Requirements& requirements, const Evidence& evidence,
                      std::vector<Item> items) {
  CheckResult result{.items = std::move(items)};
  for (const auto& i : result.items) result.state = std::max(result.state, i.state);
  result.summary =
      result.state == State::kOk ? OkSummary(requirements, evidence) : ProblemSummary(result.items);
  result.perfdata = Perfdata(evidence, result.items);
  return result;
}

CheckResult Evaluate(const Requirements& requirements, const Evidence& evidence) {
  return Summarize(requirements, evidence, EvaluateItems(requirements, evidence));
}

std::string CheckResult::Headline() const {
  return fmt::format("{} | {}", StableHeadline(), perfdata);
}

std::string CheckResult::StableHeadline() const {
  return fmt::format("DLCHECK {} - {}", StateName(state), summary);
}

}  // namespace dlcheck::check
