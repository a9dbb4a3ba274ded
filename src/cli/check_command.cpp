// dlcheck check: the provisioning smoke check. Detects the platform, probes what CPUID claims,
// runs a short MLP pass on oneDNN against the scalar reference, checks the requirements, and
// answers in the monitoring-plugin convention: a first line `DLCHECK OK - ... | perfdata` and
// the exit status 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "cli/enum_option.h"
#include "common/onednn_isa.h"
#include "detect/cpu_features.h"
#include "detect/platform.h"
#include "detect/platform_report.h"
#include "detect/probe.h"
#include "detect/topology.h"
#include "dispatch/capture.h"
#include "dispatch/onednn_info.h"
#include "dispatch/sweep.h"
#include "verbose/rules.h"

namespace dlcheck::cli {
namespace {

/// The exit status of `dlcheck check` (monitoring-plugin convention, not ExitCode: a monitoring
/// system reads these numbers; man/dlcheck.1 documents them under `check`).
enum class CheckStatus : int { kOk = 0, kWarning = 1, kCritical = 2, kUnknown = 3 };

std::string_view StatusName(CheckStatus s) {
  switch (s) {
    case CheckStatus::kOk:
      return "OK";
    case CheckStatus::kWarning:
      return "WARNING";
    case CheckStatus::kCritical:
      return "CRITICAL";
    case CheckStatus::kUnknown:
      return "UNKNOWN";
  }
  return "UNKNOWN";
}

enum class CheckFormat { kText, kJson };

struct CheckOptions {
  std::vector<std::string> require;
  int min_sockets = 0;
  int min_cores = 0;
  std::string expect_isa;
  bool no_scalar_fallback = false;
  CheckFormat format = CheckFormat::kText;
  double timeout_s = 60;
};

/// One checked item: a row of the `checks` table. `summary` is the short text that goes into the
/// first line when the item is not OK: no timings, no PIDs.
struct CheckItem {
  std::string check;
  CheckStatus status = CheckStatus::kOk;
  std::string detail;
  std::string summary;
};

struct Requirement {
  std::string name;
  bool is_isa = false;  ///< a oneDNN ISA level rather than a feature
};

std::optional<Requirement> ParseRequirement(const std::string& given) {
  const std::string name = CLI::detail::to_lower(given);
  const auto& features = detect::ReportedFeatures();
  if (std::find(features.begin(), features.end(), name) != features.end()) {
    return Requirement{name, false};
  }
  if (dispatch::IsSweepCap(name)) return Requirement{name, true};
  return std::nullopt;
}

// The ISA oneDNN dispatches to: what it reports, else what the bits allow.
std::string OneDnnIsa(const detect::PlatformInfo& info) {
  return info.onednn_effective_isa ? *info.onednn_effective_isa : info.onednn_max_isa;
}

void CheckRequirement(const Requirement& r, const detect::PlatformInfo& info,
                      const std::vector<detect::ProbeResult>& probes,
                      std::vector<CheckItem>& items) {
  CheckItem item{.check = "require " + r.name};
  if (r.is_isa) {
    const std::string have = OneDnnIsa(info);
    const bool met = detect::OneDnnIsaRank(have) >= detect::OneDnnIsaRank(r.name);
    item.status = met ? CheckStatus::kOk : CheckStatus::kCritical;
    item.detail = fmt::format("oneDNN dispatches up to {}", have);
    item.summary = fmt::format("oneDNN ISA {} below the required {}", have, r.name);
    items.push_back(std::move(item));
    return;
  }
  const detect::FeatureLayers* f = info.FindFeature(r.name);
  const bool usable = f != nullptr && f->usable.value_or(f->cpuid);
  const detect::ProbeResult* probe = detect::FindProbe(probes, r.name);
  if (!usable) {
    item.status = CheckStatus::kCritical;
    item.detail = f != nullptr && f->cpuid ? "CPUID claims it but the OS has not enabled it"
                                           : "the CPU does not have it";
    item.summary = fmt::format("required {} is missing", r.name);
  } else if (probe != nullptr && probe->state == detect::ProbeState::kFaulted) {
    item.status = CheckStatus::kCritical;
    item.detail =
        fmt::format("usable per CPUID and XCR0, but the instruction faults ({})", probe->detail);
    item.summary = fmt::format("required {} faults", r.name);
  } else {
    item.detail = probe != nullptr && probe->state == detect::ProbeState::kPassed
                      ? "usable; the probe ran"
                      : "usable";
  }
  items.push_back(std::move(item));
}

void CheckPlatform(const detect::PlatformInfo& info, std::vector<CheckItem>& items) {
  for (const auto& f : info.findings) {
    if (f.severity != Severity::kWarning) continue;
    // libcpuid 0.6.2 reports no AVX-512 on AMD Zen 4/5: a known gap of the library, not of the
    // machine; oneDNN reads CPUID itself. Warning on it would make every such node WARN forever,
    // so libcpuid's disagreements are notes; the kernel's and oneDNN's stay warnings.
    if (f.code.starts_with("libcpuid-")) {
      items.push_back({.check = "platform " + f.code,
                       .status = CheckStatus::kOk,
                       .detail = "a note, not a warning (libcpuid gap): " + f.message});
      continue;
    }
    items.push_back({.check = "platform " + f.code,
                     .status = CheckStatus::kWarning,
                     .detail = f.message,
                     .summary = f.code});
  }
}

void CheckProbes(const detect::PlatformInfo& info, const std::vector<detect::ProbeResult>& probes,
                 std::vector<CheckItem>& items) {
  int passed = 0;
  for (const auto& p : probes) {
    const detect::FeatureLayers* f = info.FindFeature(p.feature);
    const bool usable = f != nullptr && f->usable.value_or(f->cpuid);
    if (p.state == detect::ProbeState::kPassed) {
      ++passed;
    } else if (p.state == detect::ProbeState::kFaulted && usable) {
      items.push_back({.check = "probe " + p.feature,
                       .status = CheckStatus::kWarning,
                       .detail = fmt::format("CPUID claims {} but the instruction faults ({}): "
                                             "the hypervisor or kernel hides it",
                                             p.feature, p.detail),
                       .summary = fmt::format("{} faults although CPUID claims it", p.feature)});
    } else if (p.state == detect::ProbeState::kError) {
      items.push_back({.check = "probe " + p.feature,
                       .status = CheckStatus::kWarning,
                       .detail = p.detail,
                       .summary = fmt::format("probe of {} could not run", p.feature)});
    }
  }
  items.push_back({.check = "probes",
                   .status = CheckStatus::kOk,
                   .detail = fmt::format("{} of {} probes ran", passed, probes.size())});
}

void CheckTopology(const CheckOptions& o, const StatusOr<detect::Topology>& topology,
                   std::vector<CheckItem>& items) {
  if (o.min_sockets == 0 && o.min_cores == 0) return;
  if (!topology.ok()) {
    items.push_back({.check = "topology",
                     .status = CheckStatus::kUnknown,
                     .detail = topology.status().message(),
                     .summary = "topology unknown"});
    return;
  }
  if (o.min_sockets > 0) {
    const bool met = topology->packages >= o.min_sockets;
    items.push_back(
        {.check = fmt::format("min-sockets {}", o.min_sockets),
         .status = met ? CheckStatus::kOk : CheckStatus::kCritical,
         .detail = fmt::format("{} sockets", topology->packages),
         .summary = fmt::format("{} sockets, fewer than {}", topology->packages, o.min_sockets)});
  }
  if (o.min_cores > 0) {
    const bool met = topology->cores >= o.min_cores;
    items.push_back(
        {.check = fmt::format("min-cores {}", o.min_cores),
         .status = met ? CheckStatus::kOk : CheckStatus::kCritical,
         .detail = fmt::format("{} cores", topology->cores),
         .summary = fmt::format("{} cores, fewer than {}", topology->cores, o.min_cores)});
  }
}

void CheckRun(const CheckOptions& o, const dispatch::CapturedRun& run,
              std::vector<CheckItem>& items) {
  if (!run.outcome.ok()) {
    const std::string where = run.last_phase.empty() ? "start-up" : run.last_phase;
    items.push_back({.check = "model run",
                     .status = CheckStatus::kCritical,
                     .detail = fmt::format("the model worker {} in phase {}",
                                           run.outcome.Describe(run.timeout_s), where),
                     .summary = fmt::format("model worker {} in phase {}",
                                            run.outcome.Describe(run.timeout_s), where)});
  } else {
    items.push_back({.check = "model run", .detail = "the MLP trained to the end"});
  }
  const auto deviation = run.Number(dispatch::result_key::kMaxDeviation);
  const auto tolerance = run.Number(dispatch::result_key::kTolerance);
  if (deviation && tolerance) {
    const bool met = *deviation <= *tolerance;
    items.push_back({.check = "reference",
                     .status = met ? CheckStatus::kOk : CheckStatus::kCritical,
                     .detail = fmt::format("largest deviation from the scalar reference {:.3g} "
                                           "(tolerance {:.3g})",
                                           *deviation, *tolerance),
                     .summary = "oneDNN disagrees with the scalar reference"});
  } else if (run.outcome.ok()) {
    items.push_back({.check = "reference",
                     .status = CheckStatus::kUnknown,
                     .detail = "the worker reported no deviation",
                     .summary = "no reference comparison"});
  }

  // Scalar fallbacks: whole layers on dlcheck's kernels (announced by the worker, once each),
  // or oneDNN compute primitives on its reference code.
  std::vector<std::string> scalar;
  for (const auto& f : run.fallbacks) scalar.push_back(f.layer + " (dlcheck scalar kernels)");
  for (const auto& row : run.rows) {
    if (verbose::IsComputePrimitive(row) && verbose::IsScalarFallback(row)) {
      scalar.push_back(
          fmt::format("{} {} ({})", row.layer.value_or("?"), row.primitive, row.implementation));
    }
  }
  if (!scalar.empty()) {
    std::string list;
    for (const auto& s : scalar) list += (list.empty() ? "" : ", ") + s;
    items.push_back(
        {.check = "scalar fallback",
         .status = o.no_scalar_fallback ? CheckStatus::kCritical : CheckStatus::kWarning,
         .detail = "compute ran on scalar code: " + list,
         .summary = fmt::format("{} scalar fallback(s)", scalar.size())});
  } else if (run.outcome.ok()) {
    items.push_back({.check = "scalar fallback", .detail = "none"});
  }

  if (!o.expect_isa.empty()) {
    const int want = onednn::IsaRank(o.expect_isa).value_or(0);
    std::string below;
    std::string unranked;  // ISAs the table cannot place against the expected one
    std::string lowest;
    int lowest_rank = 1 << 20;
    int compute_rows = 0;
    for (const auto& row : run.rows) {
      if (!verbose::IsComputePrimitive(row) || row.execs == 0) continue;
      ++compute_rows;
      const std::optional<int> rank = row.isa.empty() ? 0 : onednn::IsaRank(row.isa);
      if (!rank) {
        if (unranked.find(row.isa) == std::string::npos) {
          unranked += (unranked.empty() ? "" : ", ") + row.isa;
        }
        continue;
      }
      if (*rank < lowest_rank) {
        lowest_rank = *rank;
        lowest = row.isa.empty() ? "no ISA" : row.isa;
      }
      if (*rank < want) {
        below += fmt::format("{}{} {} ({})", below.empty() ? "" : ", ", row.layer.value_or("?"),
                             row.primitive, row.implementation);
      }
    }
    CheckItem item{.check = "expect-isa " + o.expect_isa};
    if (compute_rows == 0) {
      item.status = CheckStatus::kUnknown;
      item.detail = "no compute primitive executed";
      item.summary = "no compute primitive to check the ISA of";
    } else if (!below.empty()) {
      item.status = CheckStatus::kCritical;
      item.detail = "below " + o.expect_isa + ": " + below;
      item.summary =
          fmt::format("compute dispatched {} below the expected {}", lowest, o.expect_isa);
    } else if (!unranked.empty()) {
      item.status = CheckStatus::kUnknown;
      item.detail = fmt::format("compute dispatched {}, which dlcheck cannot rank against {}",
                                unranked, o.expect_isa);
      item.summary = fmt::format("cannot rank {} against the expected {}", unranked, o.expect_isa);
    } else {
      item.detail = fmt::format("{} compute primitives at {} or above (lowest {})", compute_rows,
                                o.expect_isa, lowest);
    }
    items.push_back(std::move(item));
  }
}

std::string Perfdata(const dispatch::CapturedRun* run, const std::vector<CheckItem>& items) {
  std::string perf;
  if (run != nullptr) {
    if (auto v = run->Number(dispatch::result_key::kSamplesPerS)) {
      perf += fmt::format(" 'samples_per_s'={:.1f};;;0", *v);
    }
    if (auto v = run->Number(dispatch::result_key::kStepMsTimed)) {
      perf += fmt::format(" 'step_time'={:.6f}s;;;0", *v / 1e3);
    }
    if (auto v = run->Number(dispatch::result_key::kMaxDeviation)) {
      perf += fmt::format(" 'max_deviation'={:.3g};;;0", *v);
    }
  }
  int problems = 0;
  for (const auto& i : items) problems += i.status != CheckStatus::kOk;
  perf += fmt::format(" 'problems'={};;;0", problems);
  if (perf.front() == ' ') perf.erase(0, 1);
  return perf;
}

std::string OkSummary(const detect::PlatformInfo& info, const StatusOr<detect::Topology>& topology,
                      std::size_t requirements) {
  std::string text = info.cpu.brand.empty() ? info.cpu.vendor : info.cpu.brand;
  if (topology.ok()) {
    text += fmt::format(", {} socket{}, {} cores", topology->packages,
                        topology->packages == 1 ? "" : "s", topology->cores);
  }
  text += fmt::format(", oneDNN {}", OneDnnIsa(info));
  text += ", MLP matches the scalar reference";
  if (requirements > 0) {
    text += fmt::format(", {} requirement{} met", requirements, requirements == 1 ? "" : "s");
  }
  return text;
}

int RunCheck(const CheckOptions& o) {
  std::vector<Requirement> requirements;
  for (const auto& r : o.require) {
    if (r.empty()) continue;
    auto parsed = ParseRequirement(r);
    if (!parsed) {
      PrintError(
          fmt::format("--require: '{}' is neither a feature (a /proc/cpuinfo name such "
                      "as avx512bw) nor a oneDNN ISA ({})",
                      r, dispatch::SweepCapsText()));
      return static_cast<int>(CheckStatus::kUnknown);
    }
    requirements.push_back(*parsed);
  }
  if (!o.expect_isa.empty() && !dispatch::IsSweepCap(o.expect_isa)) {
    PrintError(fmt::format("--expect-isa: '{}' is not a oneDNN ISA ({})", o.expect_isa,
                           dispatch::SweepCapsText()));
    return static_cast<int>(CheckStatus::kUnknown);
  }

  // A node configured with ONEDNN_MAX_CPU_ISA is checked as configured: the worker gets the cap.
  std::string env_cap;
  for (const char* name : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"}) {
    const char* value = std::getenv(name);
    if (env_cap.empty() && value != nullptr) env_cap = value;
  }
  detect::PlatformInfo info = detect::DetectLivePlatform();
  detect::SetOneDnnEffectiveIsa(info, dispatch::OneDnnEffectiveIsa(), env_cap);
  const StatusOr<detect::Topology> topology = detect::LoadLiveTopology();
  const std::vector<detect::ProbeResult> probes = detect::RunProbes(info, true, {});

  std::vector<CheckItem> items;
  CheckPlatform(info, items);
  CheckProbes(info, probes, items);
  for (const auto& r : requirements) CheckRequirement(r, info, probes, items);
  CheckTopology(o, topology, items);

  dispatch::CaptureOptions capture;
  capture.run.model.model = mlp::ModelKind::kMlp;
  capture.run.model.batch = 100;
  capture.run.warmup = 1;
  capture.run.iters = 5;
  capture.run.traced = 1;
  capture.timeout_s = o.timeout_s;
  capture.max_cpu_isa = env_cap;
  StatusOr<dispatch::CapturedRun> run = dispatch::CaptureModelRun(capture);
  if (run.ok()) {
    CheckRun(o, *run, items);
  } else {
    items.push_back({.check = "model run",
                     .status = CheckStatus::kUnknown,
                     .detail = run.status().message(),
                     .summary = "the model worker could not start"});
  }

  CheckStatus status = CheckStatus::kOk;
  for (const auto& i : items) status = std::max(status, i.status);
  std::string summary;
  if (status == CheckStatus::kOk) {
    const std::size_t asked = requirements.size() + (o.min_sockets > 0) + (o.min_cores > 0) +
                              (o.expect_isa.empty() ? 0 : 1);
    summary = OkSummary(info, topology, asked);
  } else {
    // Worst first, then in check order.
    for (CheckStatus level :
         {CheckStatus::kUnknown, CheckStatus::kCritical, CheckStatus::kWarning}) {
      for (const auto& i : items) {
        if (i.status == level) summary += (summary.empty() ? "" : "; ") + i.summary;
      }
    }
  }
  const std::string perfdata = Perfdata(run.ok() ? &*run : nullptr, items);

  report::Report report;
  report.command = "check";
  report.AddSection("check", "Check")
      .Add("status", std::string(StatusName(status)))
      .Add("exit_status", static_cast<int>(status))
      .Add("summary", summary)
      .Add("perfdata", perfdata);
  report::Table& t = report.AddTable("checks", {"check", "status", "detail"}, "Checks");
  for (const auto& i : items)
    t.rows.push_back({i.check, std::string(StatusName(i.status)), i.detail});
  report::Section& run_section = report.AddSection("run", "Model run");
  run_section.Add("model", "mlp").Add("batch", 100).Add("timed_iters", 5);
  if (run.ok()) {
    for (const auto& [key, value] : run->results) run_section.Add(key, value);
    run_section.Add("worker", run->outcome.ok()
                                  ? report::Value("ok")
                                  : report::Value(run->outcome.Describe(run->timeout_s)));
  }
  detect::AddPlatform(info, report, probes);
  report.primary_table = "checks";

  switch (o.format) {
    case CheckFormat::kText:
      std::cout << "DLCHECK " << StatusName(status) << " - " << summary << " | " << perfdata
                << "\n";
      report::Print(report, report::Format::kTable, std::cout);
      break;
    case CheckFormat::kJson:
      report::Print(report, report::Format::kJson, std::cout);
      break;
  }
  return static_cast<int>(status);
}

}  // namespace

void SetupCheck(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CheckOptions>();
  auto* sub = app.add_subcommand(
      "check",
      "provisioning smoke check: requirements, probes and a short MLP pass; exit 0 OK, "
      "1 WARNING, 2 CRITICAL, 3 UNKNOWN");
  sub->add_option("--require", o->require,
                  "features (/proc/cpuinfo names) or oneDNN ISA levels this node must have, "
                  "comma-separated (e.g. avx512bw,avx512vl,avx512dq or avx512_core_bf16)")
      ->delimiter(',')
      ->type_name("LIST");
  sub->add_option("--min-sockets", o->min_sockets, "at least N sockets (packages)")
      ->check(CLI::Range(1, 4096))
      ->type_name("N");
  sub->add_option("--min-cores", o->min_cores, "at least N cores")
      ->check(CLI::Range(1, 1 << 20))
      ->type_name("N");
  sub->add_option("--expect-isa", o->expect_isa,
                  "the model's compute primitives must dispatch at least this oneDNN ISA")
      ->type_name("ISA")
      ->transform([](std::string s) { return CLI::detail::to_lower(s); });
  sub->add_flag("--no-scalar-fallback", o->no_scalar_fallback,
                "a scalar fallback is CRITICAL, not a WARNING");
  sub->add_option("--timeout", o->timeout_s,
                  "kill the model worker after this many seconds (default 60)")
      ->check(CLI::PositiveNumber);
  AddEnumOption(*sub, "--format", o->format,
                {{"text", CheckFormat::kText}, {"json", CheckFormat::kJson}},
                "text (status line, then details; default) or json", "FORMAT");
  sub->callback([o, &exit_code] { exit_code = RunCheck(*o); });
}

bool CheckCommandParsed(const CLI::App& app) {
  return app.got_subcommand("check");
}

}  // namespace dlcheck::cli
