#include "fleet/fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>

#include "common/onednn_isa.h"
#include "os/input_file.h"

namespace dlcheck::fleet {
namespace {

using nlohmann::json;

std::string Text(const json& object, const char* key) {
  if (!object.is_object()) return {};
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool IsTrue(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && it->get<bool>();
}

bool IsNull(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() || it->is_null();
}

bool IsFalse(const json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_boolean() && !it->get<bool>();
}

std::string HostFromFile(const std::string& file) {
  std::string stem = std::filesystem::path(file).filename().string();
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0)
    stem.resize(stem.size() - 5);
  return stem;
}

std::optional<TopologyShape> ReadTopology(const json& doc) {
  auto it = doc.find("topology");
  if (it == doc.end() || !it->is_object()) return std::nullopt;
  auto count = [&](const char* key) {
    auto v = it->find(key);
    return v != it->end() && v->is_number_integer() ? v->get<long>() : -1L;
  };
  const TopologyShape shape{.sockets = count("packages"),
                            .numa_nodes = std::max(count("numa_nodes"), 0L),
                            .cores = count("cores"),
                            .pus = count("pus")};
  if (shape.sockets < 0 || shape.cores < 0 || shape.pus < 0) return std::nullopt;
  return shape;
}

void ReadFeatures(const json& features, HostReport& r) {
  if (!features.is_object()) return;
  for (const auto& [name, layers] : features.items()) {
    if (!layers.is_object()) continue;
    // Usable; in a recording's report (OS layer unknown, usable null): in CPUID, as `check`
    // judges requirements.
    if (IsTrue(layers, "usable") || (IsNull(layers, "usable") && IsTrue(layers, "cpuid"))) {
      r.usable.push_back(name);
      if (IsFalse(layers, "probe")) r.faulted.push_back(name);
    } else if (IsTrue(layers, "cpuid") && IsFalse(layers, "usable")) {
      r.cpuid_only.push_back(name);
    }
  }
  std::sort(r.usable.begin(), r.usable.end());
}

// The report's facts, or the reason it cannot be used.
std::string ReadReport(const json& doc, HostReport& r) {
  if (!doc.is_object()) return "not a JSON object";
  r.command = Text(doc, "command");
  r.dlcheck_version = Text(doc, "dlcheck_version");
  if (r.command != "platform" && r.command != "check") {
    return r.command.empty() ? "not a dlcheck report (no \"command\")"
                             : fmt::format("a dlcheck {} report, not platform or check", r.command);
  }
  auto schema = doc.find("schema_version");
  if (schema == doc.end() || !schema->is_number_integer() ||
      schema->get<long>() != kReadableSchema) {
    return fmt::format("report schema {} of dlcheck {}; this dlcheck reads schema {}",
                       schema == doc.end() ? "none" : schema->dump(),
                       r.dlcheck_version.empty() ? "?" : r.dlcheck_version, kReadableSchema);
  }
  auto features = doc.find("features");
  if (features == doc.end() || !features->is_object()) return "no features table";
  // The host: a top-level `host`, else `check.host` (what `dlcheck check` writes), else the file.
  std::string host = Text(doc, "host");
  if (host.empty() && doc.contains("check")) host = Text(doc["check"], "host");
  if (!host.empty()) r.host = std::move(host);
  const json& cpu = doc.contains("cpu") ? doc["cpu"] : json();
  r.cpu = Text(cpu, "brand").empty() ? Text(cpu, "vendor") : Text(cpu, "brand");
  const json& levels = doc.contains("levels") ? doc["levels"] : json();
  r.onednn_isa = Text(levels, "onednn_effective_isa");
  if (r.onednn_isa.empty()) r.onednn_isa = Text(levels, "onednn_max_isa");
  r.topology = ReadTopology(doc);
  if (auto topology = doc.find("topology"); topology != doc.end() && topology->is_object()) {
    auto memory = topology->find("memory_mib");
    if (memory != topology->end() && memory->is_number_integer()) r.memory_mib = *memory;
  }
  r.amx_permission = IsTrue(cpu, "amx_permission");
  if (r.command == "check") {
    const json& check = doc.contains("check") ? doc["check"] : json();
    r.check_status = Text(check, "status");
    r.check_summary = Text(check, "summary");
    if (r.check_status.empty()) return "a check report without a status";
  }
  ReadFeatures(*features, r);
  return {};
}

std::tuple<std::vector<std::string>, std::string, std::optional<TopologyShape>, std::string, bool>
Signature(const HostReport& r) {
  return {r.usable, r.onednn_isa, r.topology, r.check_status, r.amx_permission};
}

// Higher is better: the oneDNN ISA's rank, then how many features are usable, then hosts.
std::tuple<int, std::size_t, std::size_t> Merit(const FleetGroup& g) {
  return {onednn::SortRank(g.onednn_isa), g.usable.size(), g.hosts.size()};
}

void MarkBest(std::vector<FleetGroup>& groups) {
  if (groups.empty()) return;
  auto best = std::max_element(groups.begin(), groups.end(),
                               [](const auto& a, const auto& b) { return Merit(a) < Merit(b); });
  best->best = true;
  for (FleetGroup& g : groups) {
    std::set_difference(best->usable.begin(), best->usable.end(), g.usable.begin(), g.usable.end(),
                        std::back_inserter(g.lacks));
  }
}

std::vector<FleetGroup> GroupHosts(const std::vector<HostReport>& reports) {
  std::map<decltype(Signature(reports[0])), FleetGroup> by_signature;
  for (const HostReport& r : reports) {
    FleetGroup& g = by_signature[Signature(r)];
    if (g.hosts.empty()) {
      g.cpu = r.cpu;
      g.usable = r.usable;
      g.onednn_isa = r.onednn_isa;
      g.topology = r.topology;
      g.check_status = r.check_status;
      g.amx_permission = r.amx_permission;
      g.memory_mib = r.memory_mib;
    }
    // The least memory of the group: a RealMemory above a node's own would drain it.
    if (r.memory_mib <= 0 || g.memory_mib <= 0) {
      g.memory_mib = 0;
    } else {
      g.memory_mib = std::min(g.memory_mib, r.memory_mib);
    }
    g.hosts.push_back(r.host);
  }
  std::vector<FleetGroup> groups;
  for (auto& [signature, g] : by_signature) {
    std::sort(g.hosts.begin(), g.hosts.end());
    groups.push_back(std::move(g));
  }
  std::sort(groups.begin(), groups.end(), [](const FleetGroup& a, const FleetGroup& b) {
    if (a.hosts.size() != b.hosts.size()) return a.hosts.size() > b.hosts.size();
    return a.hosts.front() < b.hosts.front();
  });
  MarkBest(groups);
  return groups;
}

void AddOutliers(const HostReport& r, std::vector<Outlier>& outliers) {
  for (const auto& f : r.cpuid_only) {
    outliers.push_back({r.host, f + " in CPUID but not OS-enabled"});
  }
  for (const auto& f : r.faulted) {
    outliers.push_back({r.host, f + " usable per CPUID and OS, but its probe faulted"});
  }
  if (!r.check_status.empty() && r.check_status != "OK") {
    outliers.push_back({r.host, fmt::format("check {}: {}", r.check_status, r.check_summary)});
  }
}

}  // namespace

std::size_t Fleet::hosts() const {
  std::size_t n = 0;
  for (const auto& g : groups) n += g.hosts.size();
  return n;
}

void FleetReader::Add(const std::string& path) {
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) {
    pending_.push_back({path, {}});
    return;
  }
  // A listed entry that is not a regular file (a FIFO would block the open for ever, a device
  // never ends) is skipped without being opened, and said so.
  std::vector<Pending> files;
  for (const auto& entry : std::filesystem::directory_iterator(path, error)) {
    const auto& p = entry.path();
    if (p.extension() != ".json" || p.filename().string().front() == '.') continue;
    std::error_code type_error;
    const bool regular = entry.is_regular_file(type_error);
    files.push_back({p.string(), regular ? std::string()
                                         : "not a regular file (a FIFO, device, socket or "
                                           "dangling link found in the directory; not opened)"});
  }
  if (error) {
    pending_.push_back({path, "cannot list the directory: " + error.message()});
    return;
  }
  std::sort(files.begin(), files.end(),
            [](const Pending& a, const Pending& b) { return a.file < b.file; });
  for (auto& file : files) pending_.push_back(std::move(file));
}

FleetReader::Parsed FleetReader::Parse(const std::string& file, std::string_view text) {
  Parsed parsed{.report = {.host = HostFromFile(file), .file = file}};
  if (Status bounded = os::CheckJsonBounds(text, "report", file, kReportJsonBounds);
      !bounded.ok()) {
    parsed.skip_reason = bounded.message();
    return parsed;
  }
  const json doc = json::parse(text.begin(), text.end(), nullptr, false);
  parsed.skip_reason = doc.is_discarded() ? "not valid JSON (a cut-off or foreign file?)"
                                          : ReadReport(doc, parsed.report);
  return parsed;
}

FleetReader::Parsed FleetReader::ReadAndParse(const Pending& pending) {
  if (!pending.error.empty())
    return {.report = {.file = pending.file}, .skip_reason = pending.error};
  StatusOr<std::string> text = os::ReadInputFile(pending.file, {"report", "", kMaxReportBytes});
  if (!text.ok()) return {.report = {.file = pending.file}, .skip_reason = text.status().message()};
  return Parse(pending.file, *text);
}

void FleetReader::Flush() {
  // Files are read and parsed on every CPU; only the merge, in the order given, is serial.
  std::vector<Parsed> parsed(pending_.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next++) < pending_.size();) parsed[i] = ReadAndParse(pending_[i]);
  };
  const unsigned helpers = std::min(std::max(std::thread::hardware_concurrency(), 1u), 16u) - 1;
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < helpers && t + 1 < pending_.size(); ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  pending_.clear();
  for (auto& p : parsed) Merge(std::move(p));
}

void FleetReader::AddText(const std::string& file, std::string_view text) {
  Flush();
  Merge(Parse(file, text));
}

void FleetReader::Merge(Parsed parsed) {
  ++fleet_.files;
  HostReport& r = parsed.report;
  if (!parsed.skip_reason.empty()) {
    fleet_.skipped.push_back({r.file, std::move(parsed.skip_reason)});
    return;
  }
  if (auto [it, added] = file_of_host_.emplace(r.host, r.file); !added) {
    fleet_.skipped.push_back(
        {r.file, fmt::format("host {} again (first in {})", r.host, it->second)});
    return;
  }
  fleet_.versions[r.dlcheck_version].push_back(r.host);
  reports_.push_back(std::move(r));
}

Fleet FleetReader::Finish() {
  Flush();
  Fleet fleet = std::move(fleet_);
  fleet_ = {};
  if (!reports_.empty()) fleet.groups = GroupHosts(reports_);
  std::sort(reports_.begin(), reports_.end(),
            [](const HostReport& a, const HostReport& b) { return a.host < b.host; });
  for (const HostReport& r : reports_) AddOutliers(r, fleet.outliers);
  for (auto& [version, hosts] : fleet.versions) std::sort(hosts.begin(), hosts.end());
  reports_.clear();
  file_of_host_.clear();
  return fleet;
}

}  // namespace dlcheck::fleet
