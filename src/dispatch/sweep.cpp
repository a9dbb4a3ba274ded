#include "dispatch/sweep.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/nearest_name.h"
#include "common/onednn_isa.h"
#include "common/text.h"
#include "verbose/rules.h"

namespace dlcheck::dispatch {
namespace {

// Whether a cap runs below or at the machine's maximum; a maximum that is unknown or cannot be
// ranked admits no cap.
bool CapFits(std::string_view cap, std::string_view max) {
  return onednn::AtOrBelow(cap, max);
}

}  // namespace

StatusOr<std::vector<std::string>> ChooseCaps(const std::vector<std::string>& requested,
                                              const detect::PlatformInfo& info) {
  const std::string max = info.onednn_effective_isa.value_or(info.onednn_max_isa);
  const detect::FeatureLayers* vnni = info.FindFeature("avx_vnni");
  const bool avx_vnni = vnni != nullptr && vnni->usable.value_or(vnni->cpuid);
  std::vector<std::string> caps;
  if (requested.empty()) {
    for (auto c : kSweepCaps) {
      if (!CapFits(c, max)) continue;
      if (c == "avx2_vnni" && !avx_vnni) continue;  // would run the avx2 kernels again
      caps.emplace_back(c);
    }
    if (caps.empty()) {
      return Status(
          ExitCode::kUnsupported,
          fmt::format("oneDNN dispatches to '{}' here, below sse41: nothing to sweep", max));
    }
    return caps;
  }
  for (const auto& given : requested) {
    const std::string name = Lower(given);
    if (!onednn::IsSweepCap(name)) {
      return UsageError(fmt::format("--isa: '{}' is not a oneDNN ISA cap ({}){}", given,
                                    onednn::SweepCapsText(), DidYouMean(Lower(given), kSweepCaps)));
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

std::optional<std::string> IsaCapOf(const RunConfig& config) {
  if (const auto* cap = std::get_if<CapConfig>(&config)) return cap->isa;
  if (std::holds_alternative<ScalarConfig>(config)) return std::string(kScalarCap);
  return std::nullopt;
}

StatusOr<SweepRun> RunSweepWorker(const SweepSettings& settings, RunConfig config, int threads,
                                  bool peak) {
  CaptureOptions capture;
  capture.run = settings.run;
  capture.run.backend =
      std::holds_alternative<ScalarConfig>(config) ? mlp::Backend::kScalar : mlp::Backend::kOneDnn;
  if (const auto* set = std::get_if<ThreadSetConfig>(&config)) capture.run.cpuset = set->cpuset;
  capture.run.peak = peak;
  capture.threads = threads;
  if (const auto* cap = std::get_if<CapConfig>(&config)) capture.max_cpu_isa = cap->isa;
  capture.timeout_s = settings.timeout_s;
  capture.on_phase = settings.on_phase;
  // Linux perf map (/tmp/perf-<pid>.map): perf report shows the JIT kernels' names.
  if (settings.perf_map) capture.extra_env.emplace_back("ONEDNN_JIT_PROFILE", "2");
  StatusOr<CapturedRun> run = CaptureModelRun(capture);
  if (!run.ok()) return run.status();
  return SweepRun{.config = std::move(config), .threads = threads, .run = std::move(*run)};
}

bool AboveCap(const verbose::PrimitiveStats& s, std::string_view cap) {
  const std::string_view isa = s.isa.view().substr(0, s.isa.find(" "));
  if (isa.empty()) return false;
  return onednn::Compare(isa, cap) == onednn::IsaOrder::kAbove;
}

PrimitiveKey KeyOf(const verbose::PrimitiveStats& s) {
  return {std::string(s.LayerOr("")), s.primitive.str(), s.prop_kind.str(), s.problem.str()};
}

SweepCells CellsOf(const CapturedRun& run) {
  SweepCells cells;
  for (const auto& s : run.rows) {
    if (s.execs == 0) continue;
    SweepCell& c = cells[KeyOf(s)];
    c.ms_total += s.exec_ms_total;
    if (s.flops) c.flops += *s.flops * static_cast<double>(s.timed_execs);
    c.scalar |= verbose::IsScalarFallback(s) || verbose::IsDlcheckKernel(s);
    if (s.exec_ms_total > c.top_ms) {
      c.top_ms = s.exec_ms_total;
      c.implementation = s.implementation;
      c.isa = s.isa;
    }
  }
  return cells;
}

std::optional<double> SpeedupOver(const SweepCells& base, const SweepCells& cells,
                                  const PrimitiveKey& key) {
  const auto b = base.find(key);
  const auto c = cells.find(key);
  if (b == base.end() || c == cells.end() || c->second.ms_total <= 0) return std::nullopt;
  return b->second.ms_total / c->second.ms_total;
}

std::string PeakIsaOf(std::string_view cap) {
  using onednn::IsaName;
  for (const std::string_view peak : {IsaName("avx512_core"), IsaName("avx2")}) {
    if (onednn::AtOrAbove(cap, peak)) return std::string(peak);
  }
  return std::string(IsaName("sse41"));
}

std::optional<double> PeakOf(const SweepRun& r) {
  const CapConfig* cap = r.cap();
  if (cap == nullptr) return std::nullopt;
  return r.run.Number(result_key::kPeakGflopsPrefix + PeakIsaOf(cap->isa));
}

int ThreadsOf(const SweepRun& r) {
  if (r.run.header.threads) return *r.run.header.threads;
  return r.threads > 0 ? r.threads : 1;
}

std::string Describe(const SweepRun& r) {
  const std::string where = r.run.last_phase.empty() ? "start-up" : r.run.last_phase;
  return fmt::format("{} in phase {}", r.run.outcome.Describe(), where);
}

}  // namespace dlcheck::dispatch
