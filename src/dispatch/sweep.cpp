// SPDX-License-Identifier: Apache-2.0
#include "dispatch/sweep.h"

#include <fmt/format.h>

#include <algorithm>
#include <span>

#include "common/finding_codes.h"
#include "common/nearest_name.h"
#include "common/onednn_isa.h"
#include "common/text.h"
#include "detect/binding.h"
#include "dispatch/onednn_info.h"
#include "os/signals.h"
#include "verbose/rules.h"

namespace dlcheck::dispatch {
namespace {

// Whether a cap runs below or at the machine's maximum; a maximum that is unknown or cannot be
// ranked admits no cap.
bool CapFits(std::string_view cap, std::string_view max) {
  return onednn::AtOrBelow(cap, max);
}

// The lowest cap of `arch` ("sse41" on x86), for the message of a machine below it.
std::string_view LowestCap(onednn::IsaArch arch) {
  const std::span<const std::string_view> caps = onednn::SweepCaps(arch);
  return caps.empty() ? std::string_view("any cap") : caps.front();
}

}  // namespace

StatusOr<std::vector<std::string>> ChooseCaps(const std::vector<std::string>& requested,
                                              const detect::PlatformInfo& info) {
  const std::string max = info.onednn_effective_isa.value_or(info.onednn_max_isa);
  const bool avx_vnni = info.FeatureAvailable("avx_vnni");
  const onednn::IsaArch arch = info.Arch();
  std::vector<std::string> caps;
  if (requested.empty()) {
    for (std::string_view c : onednn::SweepCaps(arch)) {
      if (!CapFits(c, max)) continue;
      if (c == "avx2_vnni" && !avx_vnni) continue;  // would run the avx2 kernels again
      caps.emplace_back(c);
    }
    if (caps.empty()) {
      return Status(ExitCode::kUnsupported,
                    fmt::format("oneDNN dispatches to '{}' here, below {}: nothing to sweep", max,
                                LowestCap(arch)));
    }
    return caps;
  }
  for (const auto& given : requested) {
    const std::string name = Lower(given);
    if (!onednn::IsSweepCap(name, arch)) {
      const std::span<const std::string_view> known = onednn::SweepCaps(arch);
      return UsageError(fmt::format("--isa: '{}' is not a oneDNN ISA cap ({}){}", given,
                                    onednn::SweepCapsText(arch), DidYouMean(name, known)));
    }
    if (!CapFits(name, max)) {
      return Status(ExitCode::kUnsupported,
                    fmt::format("--isa: this machine dispatches up to {}, so a cap of {} would run "
                                "the same kernels as {}",
                                max, name, max));
    }
    if (std::find(caps.begin(), caps.end(), name) == caps.end()) caps.push_back(name);
  }
  std::sort(caps.begin(), caps.end(), [](const std::string& a, const std::string& b) {
    return onednn::Compare(a, b) == onednn::IsaOrder::kBelow;  // caps: all ranked
  });
  return caps;
}

std::optional<Finding> HiddenCapsFinding(const detect::PlatformInfo& info,
                                         const std::vector<std::string>& caps) {
  const std::string max = info.onednn_effective_isa.value_or(info.onednn_max_isa);
  if (caps.empty() || caps.back() != max) return std::nullopt;
  detect::FeatureSet silicon;
  std::vector<std::string> hidden;
  for (const detect::FeatureLayers& f : info.features) {
    silicon[f.name] = f.Available() || f.hidden_by_hypervisor;
    if (f.hidden_by_hypervisor) hidden.push_back(f.name);
  }
  if (hidden.empty()) return std::nullopt;
  const std::string reachable = detect::MaxOneDnnIsa(silicon);
  std::vector<std::string> not_tried;
  for (std::string_view cap : onednn::SweepCaps(info.Arch())) {
    if (onednn::Compare(cap, max) == onednn::IsaOrder::kAbove && onednn::AtOrBelow(cap, reachable))
      not_tried.emplace_back(cap);
  }
  if (not_tried.empty()) return std::nullopt;
  return Finding{
      .severity = Severity::kWarning,
      .code = codes::kCapHidden,
      .message = fmt::format(
          "the sweep stops at {}: {} {} not tried because this guest's hypervisor hides {} "
          "(every {} part has {}), not because the CPU lacks {}; ask for an instance type or "
          "hypervisor setting that passes {} through",
          max, Join(not_tried, ", "), not_tried.size() == 1 ? "was" : "were", Join(hidden, ", "),
          info.cpu.microarchitecture, hidden.size() == 1 ? "it" : "them",
          hidden.size() == 1 ? "it" : "them", hidden.size() == 1 ? "it" : "them")};
}

std::string SweepConfig::Name() const {
  if (const CapConfig* c = cap()) return "cap " + c->isa;
  if (const ThreadSetConfig* set = thread_set()) return "threads " + set->name;
  return std::string(kScalarCap);
}

std::string SweepConfig::Label() const {
  if (const ThreadSetConfig* set = thread_set()) return fmt::format("{} ({})", Name(), set->cpuset);
  if (scalar()) return "dlcheck scalar kernels";
  return Name();
}

StatusOr<SweepPlan> PlanSweep(const SweepRequest& request) {
  detect::PlatformInfo info = detect::DetectLivePlatform();
  detect::SetOneDnnEffectiveIsa(info, OneDnnEffectiveIsa(), "");
  StatusOr<std::vector<std::string>> caps = ChooseCaps(request.isa, info);
  if (!caps.ok()) return caps.status();
  SweepPlan plan{.caps = std::move(*caps)};
  if (std::optional<Finding> hidden = HiddenCapsFinding(info, plan.caps)) {
    plan.findings.push_back(std::move(*hidden));
  }
  StatusOr<CaptureFrame> frame = StartCaptureFrame(request.threads);
  if (!frame.ok()) return frame.status();
  plan.frame = std::move(*frame);
  for (const auto& cap : plan.caps) {
    plan.configs.push_back({.run = CapConfig{cap}, .threads = plan.frame.threads.threads});
  }
  if (request.scalar) {
    plan.configs.push_back({.run = ScalarConfig{}, .threads = plan.frame.threads.threads});
  }
  if (request.thread_sets.empty()) return plan;
  StatusOr<std::vector<detect::ThreadSet>> sets = detect::LiveThreadSets(request.thread_sets);
  if (!sets.ok()) return sets.status();
  for (auto& s : *sets) {
    plan.configs.push_back(
        {.run = ThreadSetConfig{.name = s.name, .cpuset = s.cpuset, .cpus = std::move(s.cpus)},
         .threads = s.threads});
  }
  return plan;
}

namespace {

// The source as one configuration runs it: the model measures its peak only under a cap.
RunSource SourceFor(const RunSource& source, const SweepConfig& config, bool peak) {
  RunSource configured = source;
  if (auto* model = std::get_if<ModelSource>(&configured)) {
    model->run.peak = peak && config.cap() != nullptr;
  }
  return configured;
}

CaptureSettings CaptureFor(const SweepConfig& config, const SweepSettings& settings) {
  return {.config = config.run,
          .threads = config.threads,
          .timeout_s = settings.timeout_s,
          .max_timeline = 0,  // a sweep prints no timeline
          .extra_env = settings.extra_env,
          .on_phase = settings.on_phase,
          .on_output = settings.on_output,
          .on_chunk = settings.on_chunk};
}

// Whether the sweep goes on: no signal received, no refusal of the model worker.
bool GoesOn(const std::vector<ConfigRuns>& done) {
  if (os::SignalForwarding::Received() != 0) return false;
  return done.empty() || !done.front().first().Refused();
}

}  // namespace

StatusOr<std::vector<ConfigRuns>> RunSweep(const RunSource& source, const SweepPlan& plan,
                                           const SweepSettings& settings) {
  std::vector<ConfigRuns> done;
  for (const SweepConfig& config : plan.configs) {
    const RunSource configured = SourceFor(source, config, settings.peak);
    const CaptureSettings capture = CaptureFor(config, settings);
    ConfigRuns result{.config = config};
    for (int i = 1; i <= settings.repeat && GoesOn(done); ++i) {
      if (settings.on_run) {
        settings.on_run(settings.repeat > 1
                            ? fmt::format("{} (run {}/{})", config.Label(), i, settings.repeat)
                            : config.Label());
      }
      StatusOr<Run> run = Capture(configured, capture);
      if (!run.ok()) return run.status();
      result.runs.push_back(std::move(*run));
      if (result.runs.back().Refused()) break;
    }
    if (result.runs.empty()) break;
    std::vector<double> walls;
    for (const auto& r : result.runs) walls.push_back(r.outcome.wall_s);
    result.wall = SpreadOf(walls);
    done.push_back(std::move(result));
  }
  return done;
}

bool ConfigRuns::Succeeded() const {
  return std::all_of(runs.begin(), runs.end(), [](const Run& run) { return run.outcome.ok(); });
}

const verbose::LogHeader& ConfigRuns::header() const {
  for (const Run& run : runs) {
    if (!run.header.library_version.empty() || !run.header.isa_short.empty()) return run.header;
  }
  return first().header;
}

std::string LibraryVersionOf(const std::vector<ConfigRuns>& results) {
  for (const ConfigRuns& r : results) {
    for (const Run& run : r.runs) {
      if (!run.header.library_version.empty()) return run.header.library_version;
    }
  }
  return {};
}

bool AboveCap(const verbose::PrimitiveStats& s, std::string_view cap) {
  const std::string_view isa = s.isa.view().substr(0, s.isa.find(" "));
  if (isa.empty()) return false;
  return onednn::Compare(isa, cap) == onednn::IsaOrder::kAbove;
}

PrimitiveKey KeyOf(const verbose::PrimitiveStats& s) {
  return {std::string(s.LayerOr("")), s.primitive.str(), s.prop_kind.str(), s.problem.str()};
}

double SweepCell::MedianMs() const {
  return SpreadOf(ms).median;
}

namespace {

void AddCells(SweepCells& cells, const Run& run, std::size_t index, std::size_t runs) {
  for (const auto& s : run.rows) {
    if (s.execs == 0) continue;
    SweepCell& c = cells[KeyOf(s)];
    c.ms.resize(runs, 0.0);
    c.ms[index] += s.exec_ms_total;
    c.scalar |= verbose::IsScalarFallback(s) || verbose::IsDlcheckKernel(s);
    if (s.exec_ms_total > c.top_ms) {
      c.top_ms = s.exec_ms_total;
      c.implementation = s.implementation;
      c.isa_named = !s.isa.empty() && !s.isa_inferred;
    }
  }
}

}  // namespace

SweepCells CellsOf(const ConfigRuns& runs) {
  SweepCells cells;
  for (std::size_t i = 0; i < runs.runs.size(); ++i) {
    AddCells(cells, runs.runs[i], i, runs.runs.size());
  }
  return cells;
}

SweepCells CellsOf(const Run& run) {
  SweepCells cells;
  AddCells(cells, run, 0, 1);
  return cells;
}

std::optional<double> SpeedupOver(const SweepCells& base, const SweepCells& cells,
                                  const PrimitiveKey& key) {
  const auto b = base.find(key);
  const auto c = cells.find(key);
  if (b == base.end() || c == cells.end() || c->second.MedianMs() <= 0) return std::nullopt;
  return b->second.MedianMs() / c->second.MedianMs();
}

std::vector<PrimitiveKey> KeysOf(const std::vector<const ConfigRuns*>& configs) {
  std::vector<PrimitiveKey> keys;
  for (const ConfigRuns* c : configs) {
    for (const Run& run : c->runs) {
      for (const auto& s : run.rows) {
        if (s.execs == 0) continue;
        PrimitiveKey k = KeyOf(s);
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(std::move(k));
      }
    }
  }
  return keys;
}

std::string PeakIsaOf(std::string_view cap) {
  using onednn::IsaName;
  for (const std::string_view peak : {IsaName("avx512_core"), IsaName("avx2")}) {
    if (onednn::AtOrAbove(cap, peak)) return std::string(peak);
  }
  return std::string(IsaName("sse41"));
}

std::optional<double> PeakOf(const ConfigRuns& r) {
  const CapConfig* cap = r.config.cap();
  if (cap == nullptr) return std::nullopt;
  return r.first().Number(result_key::kPeakGflopsPrefix + PeakIsaOf(cap->isa));
}

int ThreadsSeen(const ConfigRuns& r) {
  for (const Run& run : r.runs) {
    if (run.header.threads) return *run.header.threads;
  }
  return 0;
}

int ThreadsOf(const ConfigRuns& r) {
  if (const int seen = ThreadsSeen(r); seen > 0) return seen;
  return r.config.threads > 0 ? r.config.threads : 1;
}

std::string Describe(const ConfigRuns& r) {
  const Run& run = r.first();
  if (run.outcome.ok()) return "ok";
  if (!run.model) return run.outcome.Describe();
  return fmt::format("{} {}", run.outcome.Describe(), run.Where());
}

}  // namespace dlcheck::dispatch
