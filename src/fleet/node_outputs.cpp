// SPDX-License-Identifier: Apache-2.0
#include "fleet/node_outputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <ctime>

#include "common/onednn_isa.h"
#include "common/text.h"
#include "dlcheck/version.h"
#include "report/safe_text.h"

namespace dlcheck::fleet {
namespace {

bool IsAlnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

const char* YesNo(bool value) {
  return value ? "true" : "false";
}

bool IsAmx(std::string_view feature) {
  return feature.rfind("amx_", 0) == 0;
}

std::string_view ProbeWord(detect::ProbeState state) {
  switch (state) {
    case detect::ProbeState::kPassed:
      return "passed";
    case detect::ProbeState::kFaulted:
      return "faulted";
    case detect::ProbeState::kNoProbe:
      return "none";
    case detect::ProbeState::kError:
      return "error";
  }
  return "error";
}

// A Prometheus label value: `\`, `"` and newlines escaped.
std::string EscapeLabel(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

// One metric family: HELP, TYPE gauge, then its samples (`name{labels} value` lines).
void Family(std::string& out, std::string_view name, std::string_view help,
            const std::vector<std::string>& samples) {
  if (samples.empty()) return;
  out += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
  for (const auto& s : samples) out += s + '\n';
}

std::string Sample(std::string_view name, std::string_view labels, double value) {
  return fmt::format("{}{} {}", name, labels, value);
}

std::string InfoLabels(const check::Evidence& e) {
  const detect::PlatformInfo& p = e.platform;
  std::string labels = fmt::format("dlcheck_version=\"{}\"", EscapeLabel(kVersion));
  const std::pair<const char*, std::string> fields[] = {
      {"vendor", p.cpu.vendor},
      {"brand", p.cpu.brand},
      {"microarchitecture", p.cpu.microarchitecture},
      {"x86_64_level", p.PsabiLevel()},
      {"onednn_max_isa", p.onednn_max_isa},
      {"onednn_isa", check::OneDnnIsa(p)}};
  for (const auto& [key, value] : fields) {
    labels += fmt::format(",{}=\"{}\"", key, EscapeLabel(value));
  }
  return "{" + labels + "}";
}

void FeatureFamilies(const check::Evidence& e, std::string& out) {
  std::vector<std::string> cpuid, usable, probes;
  for (const auto& f : e.platform.features) {
    const std::string label = fmt::format("{{feature=\"{}\"}}", EscapeLabel(f.name));
    cpuid.push_back(Sample("dlcheck_feature_cpuid", label, f.cpu ? 1 : 0));
    if (f.usable) usable.push_back(Sample("dlcheck_feature_usable", label, *f.usable ? 1 : 0));
  }
  for (const auto& p : e.probes) {
    if (p.state == detect::ProbeState::kNoProbe) continue;
    const std::string label = fmt::format("{{feature=\"{}\"}}", EscapeLabel(p.feature));
    probes.push_back(
        Sample("dlcheck_probe_passed", label, p.state == detect::ProbeState::kPassed ? 1 : 0));
  }
  Family(out, "dlcheck_feature_cpuid", "1 when CPUID reports the ISA feature, else 0.", cpuid);
  Family(out, "dlcheck_feature_usable",
         "1 when the ISA feature is in CPUID and enabled by the OS, else 0.", usable);
  Family(out, "dlcheck_probe_passed",
         "1 when an instruction of the feature ran in a probe process, 0 when it faulted.", probes);
}

void RunFamilies(const check::Evidence& e, std::string& out) {
  if (!e.run) return;
  const dispatch::WorkerResults& r = check::ModelOf(*e.run).results;
  if (r.samples_per_s) {
    Family(out, "dlcheck_model_samples_per_second",
           "Training throughput of the check's MLP pass on oneDNN, over its timed steps.",
           {Sample("dlcheck_model_samples_per_second", "", *r.samples_per_s)});
    Family(out, "dlcheck_model_threads",
           "OpenMP threads of the check's model pass (fixed, so that nodes compare).",
           {Sample("dlcheck_model_threads", "", check::kModelPassThreads)});
  }
  if (r.samples_per_s_min && r.samples_per_s_max) {
    Family(out, "dlcheck_model_samples_per_second_min",
           "Throughput of the slowest timed chunk of the check's model pass.",
           {Sample("dlcheck_model_samples_per_second_min", "", *r.samples_per_s_min)});
    Family(out, "dlcheck_model_samples_per_second_max",
           "Throughput of the fastest timed chunk of the check's model pass.",
           {Sample("dlcheck_model_samples_per_second_max", "", *r.samples_per_s_max)});
  }
  if (r.step_ms_timed) {
    Family(out, "dlcheck_model_step_seconds", "Mean time of one timed training step.",
           {Sample("dlcheck_model_step_seconds", "", *r.step_ms_timed / 1e3)});
  }
  if (r.max_deviation) {
    Family(out, "dlcheck_model_max_deviation",
           "Largest deviation of oneDNN's results from the scalar reference.",
           {Sample("dlcheck_model_max_deviation", "", *r.max_deviation)});
  }
}

// The seconds since the epoch of a UTC ISO 8601 time ("2026-12-07T10:15:51Z"); nullopt when it
// is not one.
std::optional<double> EpochSeconds(const std::string& utc) {
  std::tm parts{};
  const char* end = ::strptime(utc.c_str(), "%Y-%m-%dT%H:%M:%S", &parts);
  if (end == nullptr || (*end != 'Z' && *end != '\0')) return std::nullopt;
  return static_cast<double>(::timegm(&parts));
}

// The node's measured limits: whether it has hardware counters, and what the machine profile
// `dlcheck roofline` stored for this CPU holds (DRAM bandwidth, the best compute peak of each
// data type), with the time it was measured, so that a stale or missing profile can be seen.
void LimitFamilies(const check::Evidence& e, std::string& out) {
  if (e.pmu && e.pmu->readable) {
    Family(out, "dlcheck_hardware_counters",
           "1 when the kernel registered a CPU PMU (perf can count cycles, cache misses), 0 in a "
           "guest whose hypervisor hides it (perf samples by cpu-clock only).",
           {Sample("dlcheck_hardware_counters", "", e.pmu->cpu_pmus.empty() ? 0 : 1)});
  }
  if (!e.machine_profile) return;
  const roofline::MachineProfile& p = *e.machine_profile;
  if (const double gbps = p.MemoryGbps(); gbps > 0) {
    Family(out, "dlcheck_memory_bandwidth_bytes_per_second",
           "DRAM bandwidth dlcheck roofline measured on this CPU model (the best of read and "
           "triad at the most threads; bytes as STREAM counts them).",
           {Sample("dlcheck_memory_bandwidth_bytes_per_second", "", gbps * 1e9)});
  }
  std::vector<std::string> peaks;
  for (const char* dtype : {"f32", "bf16", "f16", "int8"}) {
    if (std::optional<roofline::ComputePeak> peak = p.BestPeak(dtype)) {
      peaks.push_back(
          Sample("dlcheck_compute_peak_ops_per_second",
                 fmt::format("{{dtype=\"{}\",unit=\"{}\"}}", dtype, EscapeLabel(peak->unit)),
                 peak->gflops * 1e9));
    }
  }
  Family(out, "dlcheck_compute_peak_ops_per_second",
         "The best compute peak dlcheck roofline measured for each data type, all threads "
         "(a multiply-add counts 2), and the unit that reached it.",
         peaks);
  if (std::optional<double> at = EpochSeconds(p.measured_at)) {
    Family(out, "dlcheck_machine_profile_timestamp_seconds",
           "When the stored machine profile these limits come from was measured (Unix time).",
           {Sample("dlcheck_machine_profile_timestamp_seconds", "", *at)});
  }
}

}  // namespace

std::vector<std::string> OneDnnLevelsMet(std::string_view isa_name, bool avx_vnni_usable) {
  const std::string isa = Lower(isa_name);
  // The caps below `isa` in its own architecture's order.
  const onednn::IsaArch arch = onednn::ArchOf(isa);
  const std::optional<int> top = onednn::RankIn(arch, isa);
  if (!top || *top <= 0) return {};
  std::vector<std::string> levels;
  for (std::string_view cap : onednn::SweepCaps(arch)) {
    const std::optional<int> rank = onednn::RankIn(arch, cap);
    if (!rank || *rank >= *top) continue;
    // AVX2 VNNI sits beside, not below, the AVX-512 levels: an AVX-512 node meets it only
    // when its CPU has AVX-VNNI (Sapphire Rapids and Zen 5 do, Ice Lake and Zen 4 do not).
    if (cap == "avx2_vnni" && !avx_vnni_usable) continue;
    levels.emplace_back(cap);
  }
  levels.push_back(isa);
  return levels;
}

std::vector<std::string> OneDnnLevelsMet(const detect::PlatformInfo& platform) {
  return OneDnnLevelsMet(check::OneDnnIsa(platform), platform.FeatureAvailable("avx_vnni"));
}

std::vector<std::string> SlurmFeatureTokens(const std::vector<std::string>& usable,
                                            std::string_view onednn_isa, bool amx_permission,
                                            std::string_view state) {
  std::vector<std::string> features;
  for (const std::string& f : usable) features.push_back(Lower(f));
  const bool avx_vnni = std::find(usable.begin(), usable.end(), "avx_vnni") != usable.end();
  for (const std::string& level : OneDnnLevelsMet(onednn_isa, avx_vnni)) {
    features.push_back("onednn_" + level);
  }
  if (amx_permission) features.emplace_back("amx_permission");
  if (!state.empty()) features.push_back("dlcheck_" + Lower(state));
  features.erase(std::remove_if(features.begin(), features.end(),
                                [](const std::string& f) { return !IsSlurmFeatureToken(f); }),
                 features.end());
  std::sort(features.begin(), features.end());
  return features;
}

StatusOr<std::string> CheckedNodeName(std::string_view name, std::string_view source) {
  const bool valid = !name.empty() && name.size() <= 64 && IsAlnum(name.front()) &&
                     std::all_of(name.begin(), name.end(), [](char c) {
                       return IsAlnum(c) || c == '-' || c == '_' || c == '.';
                     });
  if (valid) return std::string(name);
  return UsageError(fmt::format(
      "{} '{}' is not a valid node name (1 to 64 letters, digits, '-', '_' or '.'); it would "
      "enter generated configuration",
      source, report::SafeText(name, 80)));
}

bool IsSlurmFeatureToken(std::string_view token) {
  if (token.empty() || !std::isalpha(static_cast<unsigned char>(token.front()))) return false;
  return std::all_of(token.begin(), token.end(), [](char c) { return IsAlnum(c) || c == '_'; });
}

std::vector<std::string> SlurmFeatures(const check::CheckResult& result,
                                       const check::Evidence& evidence) {
  const detect::PlatformInfo& p = evidence.platform;
  // As the check judges a requirement: usable, or, where the OS layer is unknown (a recording),
  // in CPUID.
  std::vector<std::string> usable;
  for (const auto& f : p.features) {
    if (f.Available()) usable.push_back(f.name);
  }
  return SlurmFeatureTokens(usable, check::OneDnnIsa(p),
                            p.ProcessPermitted("amx_tile").value_or(false),
                            check::StateName(result.state));
}

std::string SlurmFeatureList(const std::vector<std::string>& features) {
  return fmt::format("{}", fmt::join(features, ","));
}

std::string SlurmHardwareProblem(long packages, long cores, long pus, long memory_mib) {
  const auto count = [](long n) { return n >= 1 && n <= kMaxSlurmCount; };
  if (!count(packages) || !count(cores) || !count(pus) || packages > cores || cores > pus) {
    return fmt::format(
        "its counts (sockets {}, cores {}, PUs {}) are no machine's: slurm.conf takes 1 to {} "
        "of each, sockets <= cores <= PUs",
        packages, cores, pus, kMaxSlurmCount);
  }
  if (memory_mib < 0 || memory_mib > kMaxSlurmMemoryMib) {
    return fmt::format("its memory ({} MiB) is no machine's: 0 to {} MiB", memory_mib,
                       kMaxSlurmMemoryMib);
  }
  return {};
}

std::optional<SlurmNodeHardware> NodeHardware(long packages, long cores, long pus,
                                              long memory_mib) {
  // Written for slurmctld, whose fields are 16-bit: a number past them would wrap there (or, as
  // an int here, print CPUs=-1294967296).
  if (!SlurmHardwareProblem(packages, cores, pus, memory_mib).empty()) return std::nullopt;
  SlurmNodeHardware h;
  h.cpus = static_cast<int>(pus);
  h.sockets_per_board = static_cast<int>(packages);
  h.cores_per_socket = static_cast<int>(std::max(1L, cores / packages));
  h.threads_per_core = static_cast<int>(std::max(1L, pus / cores));
  h.real_memory_mib = std::max(1L, memory_mib);
  return h;
}

std::optional<SlurmNodeHardware> NodeHardware(const detect::Topology& topology, long memory_mib) {
  return NodeHardware(topology.packages, topology.cores, topology.pus, memory_mib);
}

std::string SlurmNodeLine(std::string_view nodes, const std::optional<SlurmNodeHardware>& hardware,
                          const std::vector<std::string>& features) {
  std::string line = fmt::format("NodeName={}", nodes);
  if (hardware) {
    line += fmt::format(
        " CPUs={} Boards={} SocketsPerBoard={} CoresPerSocket={} ThreadsPerCore={} RealMemory={}",
        hardware->cpus, hardware->boards, hardware->sockets_per_board, hardware->cores_per_socket,
        hardware->threads_per_core, hardware->real_memory_mib);
  }
  return line + fmt::format(" Features={}", SlurmFeatureList(features));
}

bool IsValidLabelValue(std::string_view value) {
  if (value.empty()) return true;
  if (value.size() > 63 || !IsAlnum(value.front()) || !IsAlnum(value.back())) return false;
  return std::all_of(value.begin(), value.end(),
                     [](char c) { return IsAlnum(c) || c == '-' || c == '_' || c == '.'; });
}

bool IsValidLabelName(std::string_view name) {
  return !name.empty() && IsValidLabelValue(name);
}

std::vector<NfdLabel> NfdLabels(const check::CheckResult& result, const check::Evidence& evidence) {
  const detect::PlatformInfo& p = evidence.platform;
  std::vector<NfdLabel> labels;
  labels.push_back({"check-status", Lower(check::StateName(result.state))});
  labels.push_back({"onednn-isa", check::OneDnnIsa(p)});
  labels.push_back({"onednn-max-isa", p.onednn_max_isa});
  // One label per level met, as the Slurm tokens: a nodeSelector on
  // `.../onednn.avx512_core_bf16: "true"` means at least bf16.
  for (const std::string& level : OneDnnLevelsMet(p)) labels.push_back({"onednn." + level, "true"});
  if (const std::optional<bool> saved = p.OsSavesState("amx_tile")) {
    labels.push_back({"amx-os-state", YesNo(*saved)});
  }
  if (const std::optional<bool> granted = p.ProcessPermitted("amx_tile")) {
    labels.push_back({"amx-permission", YesNo(*granted)});
  }
  for (const auto& f : p.features) {
    if (IsAmx(f.name) && f.usable) labels.push_back({"usable." + f.name, YesNo(*f.usable)});
  }
  for (const auto& probe : evidence.probes) {
    if (probe.state != detect::ProbeState::kNoProbe) {
      labels.push_back({"probe." + probe.feature, std::string(ProbeWord(probe.state))});
    }
  }
  labels.erase(std::remove_if(labels.begin(), labels.end(),
                              [](const NfdLabel& l) {
                                return !IsValidLabelName(l.name) || !IsValidLabelValue(l.value);
                              }),
               labels.end());
  return labels;
}

std::string NfdFeatureFile(const check::CheckResult& result, const check::Evidence& evidence,
                           std::string_view expiry) {
  std::string out = fmt::format("# dlcheck {} node features for NFD's local source\n", kVersion);
  if (!expiry.empty()) out += fmt::format("# +expiry-time={}\n", expiry);
  for (const auto& l : NfdLabels(result, evidence)) {
    out += fmt::format("{}/{}={}\n", kNfdPrefix, l.name, l.value);
  }
  return out;
}

std::string ExpiryTime(long seconds) {
  const std::time_t at = std::time(nullptr) + seconds;
  std::tm utc{};
  gmtime_r(&at, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::string PrometheusTextfile(const check::CheckResult& result, const check::Evidence& evidence) {
  std::string out;
  Family(out, "dlcheck_info",
         "dlcheck's version and the node's CPU facts as labels; the value is always 1.",
         {Sample("dlcheck_info", InfoLabels(evidence), 1)});
  Family(out, "dlcheck_check_status",
         "The check's state: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN (its exit status).",
         {Sample("dlcheck_check_status", "", check::ToInt(result.state))});
  const auto problems =
      std::count_if(result.items.begin(), result.items.end(),
                    [](const check::Item& i) { return i.state != check::State::kOk; });
  Family(out, "dlcheck_check_problems", "Checked items that are not OK.",
         {Sample("dlcheck_check_problems", "", static_cast<double>(problems))});
  if (evidence.topology) {
    Family(out, "dlcheck_sockets", "CPU packages (sockets) of the node.",
           {Sample("dlcheck_sockets", "", evidence.topology->packages)});
    Family(out, "dlcheck_cores", "CPU cores of the node.",
           {Sample("dlcheck_cores", "", evidence.topology->cores)});
  }
  FeatureFamilies(evidence, out);
  RunFamilies(evidence, out);
  LimitFamilies(evidence, out);
  return out;
}

}  // namespace dlcheck::fleet
