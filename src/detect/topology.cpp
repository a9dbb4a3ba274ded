// SPDX-License-Identifier: Apache-2.0
#include "detect/topology.h"

#include <fmt/format.h>
#include <hwloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <tuple>

#include "common/finding_codes.h"
#include "detect/topology_xml_bounds.h"
#include "os/cpu_budget.h"
#include "os/input_file.h"
#include "os/output_file.h"
#include "report/safe_text.h"

namespace dlcheck::detect {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology_t t) const { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;

struct BitmapDeleter {
  void operator()(hwloc_bitmap_t b) const { hwloc_bitmap_free(b); }
};
using BitmapPtr = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

// How much of an XML file is searched for the <topology version="..."> tag.
constexpr std::size_t kXmlHeadBytes = 64 * 1024;

// The library's release, not hwloc_get_api_version(): hwloc 2.9 keeps the 2.8 API number.
std::string HwlocMajorMinor() {
  return fmt::format("{}.{}", HWLOC_VERSION_MAJOR, HWLOC_VERSION_MINOR);
}

// A topology configured the way every dlcheck topology is: the whole machine (so allowed and
// existing PUs can be compared; the XML of a restricted process keeps its disallowed PUs too),
// with instruction and memory-side caches (both filtered out by default). I/O devices only where
// asked: they cost a PCI scan on a live host.
StatusOr<TopologyPtr> NewTopology(bool with_io) {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) {
    return Status(ExitCode::kFailure, "hwloc could not set up a topology (out of memory?)");
  }
  TopologyPtr topology(raw);
  hwloc_topology_set_flags(raw, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
  hwloc_topology_set_icache_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_ALL);
  hwloc_topology_set_type_filter(raw, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_ALL);
  if (with_io) hwloc_topology_set_io_types_filter(raw, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
  return topology;
}

std::string ListText(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  if (hwloc_bitmap_list_asprintf(&text, set) < 0 || text == nullptr) return {};
  std::string result(text);
  std::free(text);
  return result;
}

int Weight(hwloc_const_bitmap_t set) {
  return set == nullptr ? 0 : std::max(0, hwloc_bitmap_weight(set));
}

int CoresInside(hwloc_topology_t t, hwloc_const_cpuset_t set) {
  if (set == nullptr) return 0;
  return std::max(0, hwloc_get_nbobjs_inside_cpuset_by_type(t, set, HWLOC_OBJ_CORE));
}

int CountByType(hwloc_topology_t t, hwloc_obj_type_t type) {
  return std::max(0, hwloc_get_nbobjs_by_type(t, type));
}

int TypeRank(std::string_view type) {
  if (type == "data") return 0;
  if (type == "instruction") return 1;
  if (type == "unified") return 2;
  return 3;
}

void AddCache(hwloc_topology_t t, hwloc_obj_t obj, std::string type,
              std::vector<CacheInfo>& caches) {
  const int level = static_cast<int>(obj->attr->cache.depth);
  const auto size = static_cast<std::int64_t>(obj->attr->cache.size);
  const int cores = CoresInside(t, obj->cpuset);
  const int pus = Weight(obj->cpuset);
  for (CacheInfo& c : caches) {
    if (c.level == level && c.type == type && c.size_bytes == size) {
      ++c.instances;
      c.cores_per_instance = std::max(c.cores_per_instance, cores);
      c.pus_per_instance = std::max(c.pus_per_instance, pus);
      return;
    }
  }
  caches.push_back({level, std::move(type), size, 1, cores, pus,
                    static_cast<int>(obj->attr->cache.linesize),
                    static_cast<int>(obj->attr->cache.associativity)});
}

std::string CacheTypeName(hwloc_obj_cache_type_t type) {
  switch (type) {
    case HWLOC_OBJ_CACHE_DATA:
      return "data";
    case HWLOC_OBJ_CACHE_INSTRUCTION:
      return "instruction";
    case HWLOC_OBJ_CACHE_UNIFIED:
      return "unified";
  }
  return "unified";
}

// The logical index of `pu`'s ancestor of `type`, -1 where it has none.
int AncestorIndex(hwloc_topology_t t, hwloc_obj_type_t type, hwloc_obj_t pu) {
  const hwloc_obj_t above = hwloc_get_ancestor_obj_by_type(t, type, pu);
  return above != nullptr ? static_cast<int>(above->logical_index) : -1;
}

// The OS index of the NUMA node whose cpuset holds `cpu`, -1 where none does.
int NodeOf(hwloc_topology_t t, unsigned cpu) {
  for (hwloc_obj_t node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, nullptr);
       node != nullptr; node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, node)) {
    if (node->cpuset != nullptr && hwloc_bitmap_isset(node->cpuset, cpu)) {
      return static_cast<int>(node->os_index);
    }
  }
  return -1;
}

// Every PU where it sits (lscpu -e's map), by OS number; `allowed` (may be null: all are) marks
// those this process may use.
std::vector<PuPlace> PuPlaces(hwloc_topology_t t, hwloc_const_bitmap_t allowed) {
  std::vector<PuPlace> places;
  for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, nullptr); pu != nullptr;
       pu = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_PU, pu)) {
    const hwloc_obj_t package = hwloc_get_ancestor_obj_by_type(t, HWLOC_OBJ_PACKAGE, pu);
    places.push_back({.cpu = pu->os_index,
                      .core = AncestorIndex(t, HWLOC_OBJ_CORE, pu),
                      .package = package != nullptr ? static_cast<int>(package->os_index) : -1,
                      .node = NodeOf(t, pu->os_index),
                      .l1d = AncestorIndex(t, HWLOC_OBJ_L1CACHE, pu),
                      .l2 = AncestorIndex(t, HWLOC_OBJ_L2CACHE, pu),
                      .l3 = AncestorIndex(t, HWLOC_OBJ_L3CACHE, pu),
                      .allowed = allowed == nullptr || hwloc_bitmap_isset(allowed, pu->os_index)});
  }
  std::sort(places.begin(), places.end(),
            [](const PuPlace& a, const PuPlace& b) { return a.cpu < b.cpu; });
  return places;
}

std::vector<CacheInfo> Caches(hwloc_topology_t t) {
  std::vector<CacheInfo> caches;
  const int depth = hwloc_topology_get_depth(t);
  for (int d = 0; d < depth; ++d) {
    if (!hwloc_obj_type_is_cache(hwloc_get_depth_type(t, d))) continue;
    const unsigned n = hwloc_get_nbobjs_by_depth(t, d);
    for (unsigned i = 0; i < n; ++i) {
      hwloc_obj_t obj = hwloc_get_obj_by_depth(t, d, i);
      AddCache(t, obj, CacheTypeName(obj->attr->cache.type), caches);
    }
  }
  for (hwloc_obj_t obj = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_MEMCACHE, nullptr); obj != nullptr;
       obj = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_MEMCACHE, obj)) {
    AddCache(t, obj, "memory-side", caches);
  }
  std::sort(caches.begin(), caches.end(), [](const CacheInfo& a, const CacheInfo& b) {
    return std::tuple(a.level, TypeRank(a.type), a.size_bytes) <
           std::tuple(b.level, TypeRank(b.type), b.size_bytes);
  });
  return caches;
}

std::vector<HwlocCpuKind> CpuKinds(hwloc_topology_t t) {
  std::vector<HwlocCpuKind> kinds;
  const int nr = hwloc_cpukinds_get_nr(t, 0);
  if (nr < 2) return kinds;  // none, or one kind for the whole machine: nothing to tell apart
  BitmapPtr set(hwloc_bitmap_alloc());
  if (set == nullptr) return kinds;
  for (int i = 0; i < nr; ++i) {
    int efficiency = -1;
    unsigned nr_infos = 0;
    hwloc_info_s* infos = nullptr;
    if (hwloc_cpukinds_get_info(t, static_cast<unsigned>(i), set.get(), &efficiency, &nr_infos,
                                &infos, 0) != 0) {
      continue;
    }
    HwlocCpuKind kind;
    kind.efficiency = efficiency;
    for (unsigned j = 0; j < nr_infos; ++j) {
      if (!kind.infos.empty()) kind.infos += ' ';
      // An XML file's infos are any bytes: made safe here, before they reach a report.
      kind.infos += report::SafeText(fmt::format("{}={}", infos[j].name, infos[j].value));
      if (std::string_view(infos[j].name) == "CoreType")
        kind.name = report::SafeText(infos[j].value);
    }
    if (kind.name.empty()) kind.name = fmt::format("kind{}", i);
    kind.cores = CoresInside(t, set.get());
    kind.pus = Weight(set.get());
    kinds.push_back(std::move(kind));
  }
  return kinds;
}

// Reads the loaded hwloc topology into the plain record.
Topology Extract(hwloc_topology_t t, std::string source, bool live) {
  Topology topo;
  topo.source = report::SafeText(source);  // a path may hold any bytes
  topo.is_this_system = hwloc_topology_is_thissystem(t) == 1;
  topo.packages = CountByType(t, HWLOC_OBJ_PACKAGE);
  topo.numa_nodes = CountByType(t, HWLOC_OBJ_NUMANODE);
  topo.dies = CountByType(t, HWLOC_OBJ_DIE);
  topo.cores = CountByType(t, HWLOC_OBJ_CORE);
  topo.pus = CountByType(t, HWLOC_OBJ_PU);
  topo.l3_instances = CountByType(t, HWLOC_OBJ_L3CACHE);
  // Groups may sit at several depths, where counting by type gives -1: count by depth.
  const int depth = hwloc_topology_get_depth(t);
  for (int d = 0; d < depth; ++d) {
    if (hwloc_get_depth_type(t, d) == HWLOC_OBJ_GROUP) {
      topo.groups += static_cast<int>(hwloc_get_nbobjs_by_depth(t, d));
    }
  }

  for (hwloc_obj_t core = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, nullptr); core != nullptr;
       core = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_CORE, core)) {
    topo.smt_per_core = std::max(topo.smt_per_core, Weight(core->cpuset));
  }

  for (hwloc_obj_t node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, nullptr);
       node != nullptr; node = hwloc_get_next_obj_by_type(t, HWLOC_OBJ_NUMANODE, node)) {
    NumaNodeInfo info;
    info.os_index = node->os_index;
    info.memory_bytes = static_cast<std::int64_t>(node->attr->numanode.local_memory);
    info.pus = Weight(node->cpuset);
    info.cores = CoresInside(t, node->cpuset);
    topo.memory_bytes += info.memory_bytes;
    topo.numa.push_back(info);
  }
  std::sort(topo.numa.begin(), topo.numa.end(),
            [](const NumaNodeInfo& a, const NumaNodeInfo& b) { return a.os_index < b.os_index; });

  topo.caches = Caches(t);
  topo.cpu_kinds = CpuKinds(t);

  // Allowed PUs: the cgroup cpuset hwloc read (or the XML recorded), and for a live topology
  // also the process's CPU affinity (taskset, numactl, a batch scheduler's binding).
  hwloc_const_cpuset_t machine = hwloc_topology_get_topology_cpuset(t);
  BitmapPtr allowed(hwloc_bitmap_dup(hwloc_topology_get_allowed_cpuset(t)));
  if (allowed != nullptr) {
    hwloc_bitmap_and(allowed.get(), allowed.get(), machine);
    if (live && topo.is_this_system) {
      BitmapPtr bound(hwloc_bitmap_alloc());
      if (bound != nullptr && hwloc_get_cpubind(t, bound.get(), HWLOC_CPUBIND_PROCESS) == 0 &&
          !hwloc_bitmap_iszero(bound.get())) {
        hwloc_bitmap_and(allowed.get(), allowed.get(), bound.get());
      }
    }
    topo.allowed_pus = Weight(allowed.get());
    topo.allowed_cpuset = ListText(allowed.get());
  }
  topo.cpus = PuPlaces(t, allowed.get());
  topo.allowed_differs = topo.allowed_pus != topo.pus;
  if (live && topo.is_this_system) {
    if (std::optional<os::CpuQuota> quota = os::ReadCpuQuota()) {
      topo.cpu_quota = quota->cpus;
      topo.cpu_quota_file = report::SafeText(quota->file);
    }
  }
  topo.findings = TopologyFindings(topo);
  return topo;
}

// While alive, whatever the process writes to stderr (fd 2) goes to an anonymous memory file
// instead; Finish() puts stderr back and returns what was written. Used around hwloc's loading
// of a user's file, where hwloc and libxml2 print their own lines ("hwloc: Topology does not
// contain any NUMA node, aborting!") that dlcheck turns into its one error line.
class StderrCapture {
 public:
  StderrCapture() {
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    memory_ = ::memfd_create("dlcheck-stderr", MFD_CLOEXEC);
    if (saved_ < 0 || memory_ < 0 || ::dup2(memory_, STDERR_FILENO) < 0) Restore();
  }
  StderrCapture(const StderrCapture&) = delete;
  StderrCapture& operator=(const StderrCapture&) = delete;
  ~StderrCapture() { Restore(); }

  std::string Finish() {
    std::fflush(stderr);
    std::string text;
    if (memory_ >= 0 && ::lseek(memory_, 0, SEEK_SET) == 0) {
      char buffer[4096];
      ssize_t got = 0;
      while (text.size() < sizeof(buffer) && (got = ::read(memory_, buffer, sizeof(buffer))) > 0) {
        text.append(buffer, static_cast<std::size_t>(got));
      }
    }
    Restore();
    return text;
  }

 private:
  void Restore() {
    if (saved_ >= 0) {
      ::dup2(saved_, STDERR_FILENO);
      ::close(saved_);
      saved_ = -1;
    }
    if (memory_ >= 0) {
      ::close(memory_);
      memory_ = -1;
    }
  }

  int saved_ = -1;
  int memory_ = -1;
};

// The `version` attribute of the <topology> element when the file's head holds one ("2.0";
// hwloc 1.x wrote none), or empty.
std::string XmlVersion(std::string_view head) {
  for (std::size_t pos = head.find("<topology"); pos != std::string_view::npos;
       pos = head.find("<topology", pos + 1)) {
    const std::size_t after = pos + std::string_view("<topology").size();
    if (after >= head.size()) break;
    const char next = head[after];
    if (next != ' ' && next != '\t' && next != '\r' && next != '\n' && next != '>') continue;
    const std::size_t end = head.find('>', after);
    const std::string_view tag =
        head.substr(after, end == std::string_view::npos ? end : end - after);
    const std::size_t attr = tag.find("version=\"");
    if (attr == std::string_view::npos) return {};
    const std::size_t begin = attr + std::string_view("version=\"").size();
    const std::size_t close = tag.find('"', begin);
    if (close == std::string_view::npos) return {};
    return std::string(tag.substr(begin, close - begin));
  }
  return {};
}

// A document that opens a <topology> element but does not end with its closing tag (trailing
// whitespace aside): what a recording cut short looks like.
bool IsCutShort(std::string_view xml) {
  if (xml.find("<topology") == std::string_view::npos) return false;
  while (!xml.empty() &&
         std::string_view(" \t\r\n\0", 5).find(xml.back()) != std::string_view::npos) {
    xml.remove_suffix(1);
  }
  return !xml.ends_with("</topology>");
}

// `hwloc_says`: what hwloc printed while loading, its first line kept as the reason.
Status NotTopologyError(const std::string& path, std::string_view hwloc_says) {
  std::string_view reason = hwloc_says.substr(0, hwloc_says.find('\n'));
  if (reason.starts_with("hwloc: ")) reason.remove_prefix(7);
  while (reason.ends_with('!') || reason.ends_with('.') || reason.ends_with(' ')) {
    reason.remove_suffix(1);
  }
  const std::string because =
      reason.empty() ? std::string() : fmt::format(" ({})", report::SafeText(reason, 120));
  return InputError(fmt::format(
      "'{}' is not an hwloc XML topology: hwloc could not load it{}; write one with hwloc 2.x "
      "(lstopo --of xml)",
      path, because));
}

}  // namespace

namespace {

std::optional<Finding> RestrictedCpus(const Topology& topology) {
  if (!topology.allowed_differs) return std::nullopt;
  if (topology.source == "live") {
    return Finding{Severity::kWarning, codes::kRestrictedCpus,
                   fmt::format("this process may use {} of {} PUs (cpuset {}): affinity or "
                               "cgroup limits apply; benchmarks here see only those",
                               topology.allowed_pus, topology.pus, topology.allowed_cpuset)};
  }
  return Finding{Severity::kInfo, codes::kRestrictedCpus,
                 fmt::format("the recorded topology allows {} of {} PUs (cpuset {}): cgroup "
                             "limits applied where it was recorded",
                             topology.allowed_pus, topology.pus, topology.allowed_cpuset)};
}

std::optional<Finding> CpuQuotaBelowCpuset(const Topology& topology) {
  if (!topology.cpu_quota || *topology.cpu_quota >= topology.allowed_pus) return std::nullopt;
  const int budget = os::BudgetOf(topology.allowed_pus, os::CpuQuota{*topology.cpu_quota}).cpus;
  return Finding{
      Severity::kWarning, codes::kCpuQuota,
      fmt::format("this process's cgroup may use {:.2f} CPUs of time ({}) but its cpuset has {} "
                  "CPUs: OpenMP and oneDNN start one thread per CPU of the cpuset, and the "
                  "threads wait for each other and for the quota; run programs with "
                  "OMP_NUM_THREADS={} (dlcheck's own thread defaults use {})",
                  *topology.cpu_quota, topology.cpu_quota_file, topology.allowed_pus, budget,
                  budget)};
}

}  // namespace

std::vector<Finding> TopologyFindings(const Topology& topology) {
  std::vector<Finding> findings;
  for (std::optional<Finding> finding : {RestrictedCpus(topology), CpuQuotaBelowCpuset(topology)}) {
    if (finding) findings.push_back(std::move(*finding));
  }
  return findings;
}

StatusOr<Topology> LoadLiveTopology() {
  StatusOr<TopologyPtr> topology = NewTopology(/*with_io=*/false);
  if (!topology.ok()) return topology.status();
  if (hwloc_topology_load(topology->get()) != 0) {
    return Status(
        ExitCode::kFailure,
        fmt::format("hwloc could not read this machine's topology: {}", std::strerror(errno)));
  }
  return Extract(topology->get(), "live", /*live=*/true);
}

StatusOr<Topology> LoadTopologyXml(const std::string& path) {
  StatusOr<std::string> xml = os::ReadInputFile(
      path, {"topology file", "; give an hwloc XML file (lstopo --of xml)", os::kMaxInputBytes});
  if (!xml.ok()) return xml.status();

  // hwloc 2.x refuses XML version 3 with a message only its verbose mode prints; say it here.
  const std::string version = XmlVersion(std::string_view(*xml).substr(0, kXmlHeadBytes));
  const int major = std::atoi(version.c_str());
  if (major > 2) {
    return InputError(fmt::format(
        "'{}' was written by hwloc {}.x (XML version {}); hwloc {} reads only version 2: export "
        "it with hwloc 2.x (lstopo --of xml)",
        path, major, version, HwlocMajorMinor()));
  }

  // hwloc 2.9 leaks the objects it had built when a file ends early (LeakSanitizer reports it),
  // so a topology cut short is refused before hwloc sees it.
  if (IsCutShort(*xml)) {
    return InputError(
        fmt::format("'{}' is cut short: its <topology> element has no closing </topology>; "
                    "write the whole file again (lstopo --of xml)",
                    path));
  }

  // hwloc recurses per nesting level and sizes its bitmaps and matrices by the indexes a file
  // names: a file past the bounds is refused before hwloc reads it.
  if (Status bounds = CheckTopologyXmlBounds(*xml, path); !bounds.ok()) return bounds;

  StatusOr<TopologyPtr> topology = NewTopology(/*with_io=*/true);
  if (!topology.ok()) return topology.status();
  // hwloc prints its own complaints about a bad file to stderr; they become part of one line.
  StderrCapture capture;
  // The size counts the terminating '\0', as hwloc's own exported buffers do. A failed
  // set_xmlbuffer must stop here: hwloc_topology_load would then quietly load the live host.
  const bool loaded = hwloc_topology_set_xmlbuffer(topology->get(), xml->c_str(),
                                                   static_cast<int>(xml->size() + 1)) == 0 &&
                      hwloc_topology_load(topology->get()) == 0;
  const std::string hwloc_says = capture.Finish();
  if (!loaded) return NotTopologyError(path, hwloc_says);
  return Extract(topology->get(), path, /*live=*/false);
}

Status SaveLiveTopologyXml(const std::string& path) {
  // No I/O devices: dlcheck reports none, and the PCI discovery of Debian's hwloc 2.9 leaks
  // (~1 KiB per load inside the hwloc_pci plugin; LeakSanitizer fails the sanitizer build).
  StatusOr<TopologyPtr> topology = NewTopology(/*with_io=*/false);
  if (!topology.ok()) return topology.status();
  hwloc_topology_t t = topology->get();
  if (hwloc_topology_load(t) != 0) {
    return Status(
        ExitCode::kFailure,
        fmt::format("hwloc could not read this machine's topology: {}", std::strerror(errno)));
  }
  char* buffer = nullptr;
  int length = 0;
  if (hwloc_topology_export_xmlbuffer(t, &buffer, &length, 0) != 0 || buffer == nullptr) {
    return Status(ExitCode::kFailure, "hwloc could not export the topology as XML");
  }
  // The buffer ends with a '\0' counted in its length; the file does not.
  const std::string xml(buffer, length > 0 ? static_cast<std::size_t>(length - 1) : 0);
  hwloc_free_xmlbuffer(t, buffer);

  return os::WriteFileReplacing(path, xml);
}

}  // namespace dlcheck::detect
