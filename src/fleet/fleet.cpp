// SPDX-License-Identifier: Apache-2.0
#include "fleet/fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>
#include <tuple>
#include <unordered_map>

#include "check/check_report.h"
#include "common/onednn_isa.h"
#include "detect/platform_report.h"
#include "detect/topology_report.h"
#include "os/input_file.h"

namespace dlcheck::fleet {
namespace {

using nlohmann::json;
using report::Field;
using report::Part;
namespace identity = report::contract::identity_field;
namespace feature = detect::feature_column;

// `object`'s member called `name`, or nullptr (`object` need not be an object).
const json* MemberOf(const json& object, std::string_view name) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(std::string(name));
  return it == object.end() ? nullptr : &*it;
}

std::string Text(const json& object, const Field& field) {
  const json* value = MemberOf(object, field.name);
  return value != nullptr && value->is_string() ? value->get<std::string>() : std::string();
}

bool IsTrue(const json& object, const Field& field) {
  const json* value = MemberOf(object, field.name);
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

bool IsNull(const json& object, const Field& field) {
  const json* value = MemberOf(object, field.name);
  return value == nullptr || value->is_null();
}

bool IsFalse(const json& object, const Field& field) {
  const json* value = MemberOf(object, field.name);
  return value != nullptr && value->is_boolean() && !value->get<bool>();
}

// The section `part` of `doc`, or null when it has none.
const json& SectionOf(const json& doc, const Part& part) {
  static const json kNone;
  const json* section = MemberOf(doc, part.name);
  return section != nullptr && section->is_object() ? *section : kNone;
}

std::string HostFromFile(const std::string& file) {
  std::string stem = std::filesystem::path(file).filename().string();
  if (stem.size() > 5 && stem.compare(stem.size() - 5, 5, ".json") == 0)
    stem.resize(stem.size() - 5);
  return stem;
}

// `field` of `section` when it is an integer, else -1.
long Count(const json& section, const Field& field) {
  const json* value = MemberOf(section, field.name);
  return value != nullptr && value->is_number_integer() ? value->get<long>() : -1L;
}

std::optional<TopologyShape> ReadTopology(const json& doc) {
  using namespace detect::topology_field;
  const json& topology = SectionOf(doc, detect::kTopologySection);
  if (topology.is_null()) return std::nullopt;
  const TopologyShape shape{.sockets = Count(topology, kPackages),
                            .numa_nodes = std::max(Count(topology, kNumaNodes), 0L),
                            .cores = Count(topology, kCores),
                            .pus = Count(topology, kPus)};
  if (shape.sockets < 0 || shape.cores < 0 || shape.pus < 0) return std::nullopt;
  return shape;
}

void ReadFeatures(const json& features, HostReport& r) {
  if (!features.is_object()) return;
  for (const auto& [name, layers] : features.items()) {
    if (!layers.is_object()) continue;
    // Usable; in a recording's report (OS layer unknown, usable null): in CPUID, as `check`
    // judges requirements.
    if (IsTrue(layers, feature::kUsable) ||
        (IsNull(layers, feature::kUsable) && IsTrue(layers, feature::kCpuid))) {
      r.usable.push_back(name);
      if (IsFalse(layers, feature::kProbe)) r.faulted.push_back(name);
    } else if (IsTrue(layers, feature::kHidden)) {
      r.hidden.push_back(name);
    } else if (IsTrue(layers, feature::kCpuid) && IsFalse(layers, feature::kUsable)) {
      r.cpuid_only.push_back(name);
    }
  }
  std::sort(r.usable.begin(), r.usable.end());
}

// The report's facts, or the reason it cannot be used.
std::string ReadReport(const json& doc, HostReport& r) {
  if (!doc.is_object()) return "not a JSON object";
  r.command = Text(doc, identity::kCommand);
  r.dlcheck_version = Text(doc, identity::kDlcheckVersion);
  const bool is_check = r.command == check::CheckDocument().command;
  if (r.command != detect::PlatformDocument().command && !is_check) {
    return r.command.empty() ? "not a dlcheck report (no \"command\")"
                             : fmt::format("a dlcheck {} report, not platform or check", r.command);
  }
  const json* schema = MemberOf(doc, identity::kSchemaVersion.name);
  if (schema == nullptr || !schema->is_number_integer() || schema->get<long>() != kReadableSchema) {
    return fmt::format("report schema {} of dlcheck {}; this dlcheck reads schema {}",
                       schema == nullptr ? "none" : schema->dump(),
                       r.dlcheck_version.empty() ? "?" : r.dlcheck_version, kReadableSchema);
  }
  const json* features = MemberOf(doc, detect::kFeaturesTable.name);
  if (features == nullptr || !features->is_object()) return "no features table";
  // The host: a top-level `host`, else `check.host` (what `dlcheck check` writes), else the file.
  std::string host = Text(doc, check::check_field::kHost);
  if (host.empty()) host = Text(SectionOf(doc, check::kCheckSection), check::check_field::kHost);
  if (!host.empty()) r.host = std::move(host);
  const json& cpu = SectionOf(doc, detect::kCpuSection);
  const std::string brand = Text(cpu, detect::cpu_field::kBrand);
  r.cpu = brand.empty() ? Text(cpu, detect::cpu_field::kVendor) : brand;
  r.microarchitecture = Text(cpu, detect::cpu_field::kMicroarchitecture);
  const json& levels = SectionOf(doc, detect::kLevelsSection);
  r.onednn_isa = Text(levels, detect::levels_field::kOnednnEffectiveIsa);
  if (r.onednn_isa.empty()) r.onednn_isa = Text(levels, detect::levels_field::kOnednnMaxIsa);
  r.topology = ReadTopology(doc);
  const long memory_mib =
      Count(SectionOf(doc, detect::kTopologySection), detect::topology_field::kMemoryMib);
  if (memory_mib >= 0) r.memory_mib = memory_mib;
  r.amx_permission = IsTrue(cpu, detect::cpu_field::kAmxPermission);
  if (is_check) {
    const json& check = SectionOf(doc, check::kCheckSection);
    r.check_status = Text(check, check::check_field::kStatus);
    r.check_summary = Text(check, check::check_field::kSummary);
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

// Sorts `words` and drops repeats.
void SortDistinct(std::vector<std::string>& words) {
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
}

bool KnownMicroarchitecture(const std::string& name) {
  return !name.empty() && name != "unknown";
}

std::vector<FleetGroup> GroupHosts(const std::vector<HostReport>& reports) {
  std::map<decltype(Signature(reports[0])), FleetGroup> by_signature;
  for (const HostReport& r : reports) {
    FleetGroup& g = by_signature[Signature(r)];
    if (g.hosts.empty()) {
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
    // Every host's CPU, not the first one's (a repeat of the last one is not kept twice).
    if (g.cpus.empty() || g.cpus.back() != r.cpu) g.cpus.push_back(r.cpu);
    if (KnownMicroarchitecture(r.microarchitecture) &&
        (g.microarchitectures.empty() || g.microarchitectures.back() != r.microarchitecture)) {
      g.microarchitectures.push_back(r.microarchitecture);
    }
    g.hidden.insert(g.hidden.end(), r.hidden.begin(), r.hidden.end());
  }
  std::vector<FleetGroup> groups;
  for (auto& [signature, g] : by_signature) {
    std::sort(g.hosts.begin(), g.hosts.end());
    SortDistinct(g.cpus);
    SortDistinct(g.microarchitectures);
    SortDistinct(g.hidden);
    groups.push_back(std::move(g));
  }
  std::sort(groups.begin(), groups.end(), [](const FleetGroup& a, const FleetGroup& b) {
    if (a.hosts.size() != b.hosts.size()) return a.hosts.size() > b.hosts.size();
    return a.hosts.front() < b.hosts.front();
  });
  MarkBest(groups);
  return groups;
}

// "groups 1, 2 and 3", "groups 1, 2, ..., 8 and 92 more": the first kSameSiliconGroupsNamed of
// `members` (indexes into the groups), numbered from 1.
std::string GroupNumbers(const std::vector<std::size_t>& members) {
  const std::size_t named = std::min(members.size(), kSameSiliconGroupsNamed);
  std::string text = "groups";
  for (std::size_t i = 0; i < named; ++i) {
    const bool last = i + 1 == members.size();
    text += fmt::format("{}{}", i == 0 ? " " : (last ? " and " : ", "), members[i] + 1);
  }
  if (members.size() > named) text += fmt::format(" and {} more", members.size() - named);
  return text;
}

// The note for the groups `members` (indexes into `groups`, in order) of `microarchitecture`:
// what each of the named ones lacks of the features the others have; "" when all of them expose
// the same features. Linear in the groups and their features.
std::string SameSiliconNote(const std::vector<FleetGroup>& groups,
                            const std::vector<std::size_t>& members,
                            const std::string& microarchitecture) {
  std::vector<std::string> any;  // the features some group of the microarchitecture has
  for (const std::size_t i : members) {
    any.insert(any.end(), groups[i].usable.begin(), groups[i].usable.end());
  }
  SortDistinct(any);
  const bool differ = std::any_of(members.begin(), members.end(), [&](std::size_t i) {
    return groups[i].usable.size() != any.size();
  });
  if (!differ) return {};
  std::string note = fmt::format("{} are {} {}", GroupNumbers(members),
                                 members.size() == 2 ? "both" : "all", microarchitecture);
  for (std::size_t k = 0; k < members.size() && k < kSameSiliconGroupsNamed; ++k) {
    const FleetGroup& g = groups[members[k]];
    std::vector<std::string> missing;
    std::set_difference(any.begin(), any.end(), g.usable.begin(), g.usable.end(),
                        std::back_inserter(missing));
    if (!missing.empty()) {
      note += fmt::format("; group {} lacks {}", members[k] + 1, fmt::join(missing, " "));
    }
  }
  return note;
}

// One note per known microarchitecture whose groups expose different features (a group of
// hosts of several microarchitectures counts under each).
std::vector<std::string> SameSilicon(const std::vector<FleetGroup>& groups) {
  std::map<std::string, std::vector<std::size_t>> members;  // microarchitecture -> groups
  for (std::size_t i = 0; i < groups.size(); ++i) {
    for (const std::string& name : groups[i].microarchitectures) members[name].push_back(i);
  }
  std::vector<std::string> notes;
  for (const auto& [microarchitecture, indexes] : members) {
    if (indexes.size() < 2) continue;
    if (std::string note = SameSiliconNote(groups, indexes, microarchitecture); !note.empty()) {
      notes.push_back(std::move(note));
    }
  }
  return notes;
}

// Every host with its group's number, by host.
std::vector<FleetHost> HostRows(const std::vector<HostReport>& reports,
                                const std::vector<FleetGroup>& groups) {
  std::unordered_map<std::string_view, std::size_t> group_of;
  for (std::size_t i = 0; i < groups.size(); ++i) {
    for (const std::string& host : groups[i].hosts) group_of.emplace(host, i + 1);
  }
  std::vector<FleetHost> rows;
  rows.reserve(reports.size());
  for (const HostReport& r : reports) {
    rows.push_back({.host = r.host,
                    .group = group_of.at(r.host),
                    .cpu = r.cpu,
                    .microarchitecture = r.microarchitecture,
                    .onednn_isa = r.onednn_isa,
                    .check_status = r.check_status,
                    .dlcheck_version = r.dlcheck_version,
                    .file = r.file});
  }
  return rows;
}

void AddOutliers(const HostReport& r, std::vector<Outlier>& outliers) {
  for (const auto& f : r.hidden) {
    outliers.push_back({r.host, fmt::format("{} hidden by the hypervisor (every {} part has it)", f,
                                            r.microarchitecture)});
  }
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
  // increment(error), not ++, which throws when the directory is removed while it is listed.
  for (std::filesystem::directory_iterator it(path, error), end; !error && it != end;
       it.increment(error)) {
    const std::filesystem::directory_entry& entry = *it;
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
  fleet.same_silicon = SameSilicon(fleet.groups);
  std::sort(reports_.begin(), reports_.end(),
            [](const HostReport& a, const HostReport& b) { return a.host < b.host; });
  fleet.host_rows = HostRows(reports_, fleet.groups);
  for (const HostReport& r : reports_) AddOutliers(r, fleet.outliers);
  for (auto& [version, hosts] : fleet.versions) std::sort(hosts.begin(), hosts.end());
  reports_.clear();
  file_of_host_.clear();
  return fleet;
}

}  // namespace dlcheck::fleet
