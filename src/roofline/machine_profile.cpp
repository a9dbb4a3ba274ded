// SPDX-License-Identifier: Apache-2.0
#include "roofline/machine_profile.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <system_error>

#include "detect/cpu_features.h"
#include "detect/cpuid_source.h"
#include "os/input_file.h"
#include "os/output_file.h"

namespace dlcheck::roofline {
namespace {

using nlohmann::ordered_json;

// A stored profile is a few kilobytes; a megabyte is far past any real one.
constexpr std::size_t kMaxProfileBytes = std::size_t{1} << 20;

ordered_json Optional(const std::optional<double>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

std::optional<double> OptionalNumber(const ordered_json& value) {
  if (value.is_number()) return value.get<double>();
  return std::nullopt;
}

std::string Text(const ordered_json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double Number(const ordered_json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::int64_t Integer(const ordered_json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<std::int64_t>() : 0;
}

const ordered_json& ArrayOr(const ordered_json& object, const char* key) {
  static const ordered_json kEmpty = ordered_json::array();
  const auto it = object.find(key);
  return it != object.end() && it->is_array() ? *it : kEmpty;
}

}  // namespace

double MachineProfile::MemoryGbps() const {
  if (threads.empty()) return 0;
  const ThreadBandwidth& most = *std::max_element(
      threads.begin(), threads.end(),
      [](const ThreadBandwidth& a, const ThreadBandwidth& b) { return a.threads < b.threads; });
  return std::max(most.read_gbps, most.triad_gbps);
}

std::optional<ComputePeak> MachineProfile::BestPeak(const std::string& dtype) const {
  int most_threads = 0;
  for (const ComputePeak& peak : peaks) {
    if (peak.dtype == dtype) most_threads = std::max(most_threads, peak.threads);
  }
  std::optional<ComputePeak> best;
  for (const ComputePeak& peak : peaks) {
    if (peak.dtype != dtype || peak.threads != most_threads) continue;
    if (!best || peak.gflops > best->gflops) best = peak;
  }
  return best;
}

std::optional<int> SaturationThreads(const std::vector<ThreadBandwidth>& threads) {
  if (threads.size() < 2) return std::nullopt;
  auto bandwidth = [](const ThreadBandwidth& t) { return std::max(t.read_gbps, t.triad_gbps); };
  double most = 0;
  int most_threads = 0;
  for (const ThreadBandwidth& t : threads) {
    most = std::max(most, bandwidth(t));
    most_threads = std::max(most_threads, t.threads);
  }
  if (most <= 0) return std::nullopt;
  int fewest = most_threads;
  for (const ThreadBandwidth& t : threads) {
    if (bandwidth(t) >= kSaturated * most) fewest = std::min(fewest, t.threads);
  }
  if (fewest >= most_threads) return std::nullopt;
  return fewest;
}

std::string CpuKey(const std::string& vendor, int family, int model, int stepping,
                   const std::string& brand) {
  std::string key = vendor + "-" + std::to_string(family) + "-" + std::to_string(model) + "-" +
                    std::to_string(stepping) + "-" + brand;
  for (char& c : key) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '-';
    if (!kept) c = '_';
  }
  // A file name, whatever the brand string holds: at most 200 bytes.
  if (key.size() > 200) key.resize(200);
  return key;
}

std::string CacheDirectory() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  // The XDG rule: a relative path is invalid and ignored.
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/dlcheck";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] == '/') return std::string(home) + "/.cache/dlcheck";
  return {};
}

std::string ProfilePath(const std::string& directory, const std::string& cpu_key) {
  return (std::filesystem::path(directory) / ("roofline-" + cpu_key + ".json")).string();
}

std::string LiveCpuKey() {
  const detect::CpuIdentity cpu = detect::DecodeIdentity(detect::LiveCpuidSource());
  return CpuKey(cpu.vendor, cpu.family, cpu.model, cpu.stepping, cpu.brand);
}

StatusOr<std::string> StoredProfilePath() {
  const std::string directory = CacheDirectory();
  if (directory.empty()) {
    return InputError(
        "no cache directory to find this machine's profile in (set "
        "XDG_CACHE_HOME or HOME), or give the profile: --machine-profile FILE");
  }
  const std::string path = ProfilePath(directory, LiveCpuKey());
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) {
    return InputError(
        "no machine profile of this CPU in " + directory +
        ": run 'dlcheck roofline' once to measure it, or give one: --machine-profile FILE");
  }
  return path;
}

std::string ProfileJson(const MachineProfile& p) {
  ordered_json doc;
  doc["format_version"] = MachineProfile::kFormatVersion;
  doc["cpu_key"] = p.cpu_key;
  doc["vendor"] = p.vendor;
  doc["brand"] = p.brand;
  doc["microarchitecture"] = p.microarchitecture;
  doc["measured_at"] = p.measured_at;
  doc["dlcheck_version"] = p.dlcheck_version;
  doc["quick"] = p.quick;
  doc["usable_cpus"] = p.usable_cpus;
  doc["cpu_budget"] = p.cpu_budget;
  doc["load_start"] = Optional(p.load_start);
  doc["load_end"] = Optional(p.load_end);
  doc["seconds"] = p.seconds;
  doc["vector"] = p.vector;
  doc["memory_gbps"] = p.MemoryGbps();
  ordered_json& sweep = doc["sweep"] = ordered_json::array();
  for (const SweepPoint& s : p.sweep) {
    sweep.push_back(
        {{"kernel", s.kernel}, {"working_set_bytes", s.working_set_bytes}, {"gbps", s.gbps}});
  }
  ordered_json& plateaus = doc["plateaus"] = ordered_json::array();
  for (const Plateau& l : p.plateaus) {
    plateaus.push_back({{"level", l.level},
                        {"cache_bytes", l.cache_bytes},
                        {"from_bytes", l.from_bytes},
                        {"to_bytes", l.to_bytes},
                        {"read_gbps", Optional(l.read_gbps)},
                        {"copy_gbps", Optional(l.copy_gbps)},
                        {"triad_gbps", Optional(l.triad_gbps)}});
  }
  ordered_json& threads = doc["threads"] = ordered_json::array();
  for (const ThreadBandwidth& t : p.threads) {
    threads.push_back({{"threads", t.threads},
                       {"cpus", t.cpus},
                       {"read_gbps", t.read_gbps},
                       {"copy_gbps", t.copy_gbps},
                       {"triad_gbps", t.triad_gbps},
                       {"triad_nt_gbps", t.triad_nt_gbps}});
  }
  ordered_json& peaks = doc["peaks"] = ordered_json::array();
  for (const ComputePeak& c : p.peaks) {
    peaks.push_back({{"dtype", c.dtype},
                     {"unit", c.unit},
                     {"instruction", c.instruction},
                     {"threads", c.threads},
                     {"gflops", c.gflops}});
  }
  ordered_json& unmeasured = doc["unmeasured"] = ordered_json::array();
  for (const Unmeasured& u : p.unmeasured) {
    unmeasured.push_back({{"what", u.what}, {"reason", u.reason}});
  }
  return doc.dump(1) + "\n";
}

StatusOr<MachineProfile> ParseProfileJson(const std::string& text, const std::string& path) {
  if (Status bounded = os::CheckJsonBounds(text, "machine profile", path, {.max_depth = 8});
      !bounded.ok()) {
    return bounded;
  }
  const ordered_json doc = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) {
    return InputError("'" + path + "' is not a machine profile (not a JSON object): run " +
                      "'dlcheck roofline' to measure this machine again");
  }
  if (Integer(doc, "format_version") != MachineProfile::kFormatVersion) {
    return InputError("'" + path + "' is a machine profile of another format version (" +
                      std::to_string(Integer(doc, "format_version")) + ", this dlcheck reads " +
                      std::to_string(MachineProfile::kFormatVersion) +
                      "): run 'dlcheck roofline' to measure this machine again");
  }
  MachineProfile p;
  p.cpu_key = Text(doc, "cpu_key");
  p.vendor = Text(doc, "vendor");
  p.brand = Text(doc, "brand");
  p.microarchitecture = Text(doc, "microarchitecture");
  p.measured_at = Text(doc, "measured_at");
  p.dlcheck_version = Text(doc, "dlcheck_version");
  p.quick = doc.value("quick", false);
  p.usable_cpus = static_cast<int>(Integer(doc, "usable_cpus"));
  p.cpu_budget = Text(doc, "cpu_budget");
  p.load_start = OptionalNumber(doc.value("load_start", ordered_json()));
  p.load_end = OptionalNumber(doc.value("load_end", ordered_json()));
  p.seconds = Number(doc, "seconds");
  p.vector = Text(doc, "vector");
  for (const ordered_json& s : ArrayOr(doc, "sweep")) {
    p.sweep.push_back({Text(s, "kernel"), Integer(s, "working_set_bytes"), Number(s, "gbps")});
  }
  for (const ordered_json& l : ArrayOr(doc, "plateaus")) {
    p.plateaus.push_back({Text(l, "level"), Integer(l, "cache_bytes"), Integer(l, "from_bytes"),
                          Integer(l, "to_bytes"),
                          OptionalNumber(l.value("read_gbps", ordered_json())),
                          OptionalNumber(l.value("copy_gbps", ordered_json())),
                          OptionalNumber(l.value("triad_gbps", ordered_json()))});
  }
  for (const ordered_json& t : ArrayOr(doc, "threads")) {
    p.threads.push_back({static_cast<int>(Integer(t, "threads")), Text(t, "cpus"),
                         Number(t, "read_gbps"), Number(t, "copy_gbps"), Number(t, "triad_gbps"),
                         Number(t, "triad_nt_gbps")});
  }
  for (const ordered_json& c : ArrayOr(doc, "peaks")) {
    p.peaks.push_back({Text(c, "dtype"), Text(c, "unit"), Text(c, "instruction"),
                       static_cast<int>(Integer(c, "threads")), Number(c, "gflops")});
  }
  for (const ordered_json& u : ArrayOr(doc, "unmeasured")) {
    p.unmeasured.push_back({Text(u, "what"), Text(u, "reason")});
  }
  if (p.threads.empty() && p.peaks.empty()) {
    return InputError("'" + path + "' holds no bandwidth and no peak: run 'dlcheck roofline' " +
                      "to measure this machine again");
  }
  return p;
}

Status StoreProfile(const MachineProfile& profile, const std::string& path) {
  std::error_code ec;
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  if (!directory.empty()) std::filesystem::create_directories(directory, ec);
  if (ec) {
    return OutputFileError("cannot create the cache directory '" + directory.string() +
                           "' for the machine profile: " + ec.message() +
                           " (set XDG_CACHE_HOME to a directory you may write)");
  }
  return os::WriteFileReplacing(path, ProfileJson(profile));
}

StatusOr<MachineProfile> LoadProfile(const std::string& path) {
  StatusOr<std::string> text = os::ReadInputFile(
      path, {"machine profile", "; measure one with 'dlcheck roofline'", kMaxProfileBytes,
             /*regular_only=*/true});
  if (!text.ok()) return text.status();
  return ParseProfileJson(*text, path);
}

}  // namespace dlcheck::roofline
