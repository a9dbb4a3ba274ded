// SPDX-License-Identifier: Apache-2.0
#include "detect/binding.h"

#include <fmt/format.h>
#include <hwloc.h>

#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace dlcheck::detect {
namespace {

struct TopologyDeleter {
  void operator()(hwloc_topology* t) const { hwloc_topology_destroy(t); }
};
using TopologyPtr = std::unique_ptr<hwloc_topology, TopologyDeleter>;
struct BitmapDeleter {
  void operator()(hwloc_bitmap_s* b) const { hwloc_bitmap_free(b); }
};
using BitmapPtr = std::unique_ptr<hwloc_bitmap_s, BitmapDeleter>;

StatusOr<TopologyPtr> LoadLive() {
  hwloc_topology_t raw = nullptr;
  if (hwloc_topology_init(&raw) != 0) return InputError("hwloc cannot initialise a topology");
  TopologyPtr topology(raw);
  if (hwloc_topology_load(raw) != 0) {
    return InputError(
        fmt::format("hwloc cannot read this machine's topology: {}", std::strerror(errno)));
  }
  return topology;
}

std::string ListOf(hwloc_const_bitmap_t set) {
  char* text = nullptr;
  hwloc_bitmap_list_asprintf(&text, set);
  std::string list = text != nullptr ? text : "";
  std::free(text);
  return list;
}

// An allowed core: its first allowed PU and its package.
struct Core {
  unsigned pu = 0;
  hwloc_obj_t package = nullptr;
};

}  // namespace

StatusOr<std::vector<ThreadSet>> LiveThreadSets(const std::vector<std::string>& specs) {
  StatusOr<TopologyPtr> topology = LoadLive();
  if (!topology.ok()) return topology.status();
  hwloc_topology_t topo = topology->get();
  hwloc_const_cpuset_t allowed = hwloc_topology_get_allowed_cpuset(topo);
  std::vector<Core> cores;
  BitmapPtr usable(hwloc_bitmap_alloc());
  for (hwloc_obj_t core = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_CORE, nullptr);
       core != nullptr; core = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_CORE, core)) {
    hwloc_bitmap_and(usable.get(), core->cpuset, allowed);
    if (hwloc_bitmap_iszero(usable.get())) continue;
    cores.push_back({static_cast<unsigned>(hwloc_bitmap_first(usable.get())),
                     hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, core)});
  }
  if (cores.empty()) return InputError("hwloc finds no core this process may run on");

  std::vector<ThreadSet> sets;
  for (const std::string& spec : specs) {
    std::vector<unsigned> pus;
    if (spec == "all") {
      for (const Core& c : cores) pus.push_back(c.pu);
    } else if (spec == "socket") {
      for (const Core& c : cores) {
        if (c.package == cores.front().package) pus.push_back(c.pu);
      }
    } else {
      int count = 0;
      const auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), count);
      if (ec != std::errc() || end != spec.data() + spec.size() || count < 1) {
        return UsageError(fmt::format(
            "--thread-sets: '{}' is not a thread set (1, socket, all or a number of cores)", spec));
      }
      if (count > static_cast<int>(cores.size())) {
        return UsageError(
            fmt::format("--thread-sets: {} threads asked, but this process may use {} "
                        "cores (one thread per core)",
                        count, cores.size()));
      }
      for (int i = 0; i < count; ++i) pus.push_back(cores[i].pu);
    }
    BitmapPtr set(hwloc_bitmap_alloc());
    for (unsigned pu : pus) hwloc_bitmap_set(set.get(), pu);
    sets.push_back({spec, static_cast<int>(pus.size()), ListOf(set.get()),
                    std::vector<int>(pus.begin(), pus.end())});
  }
  return sets;
}

Status BindProcess(const std::string& cpuset) {
  StatusOr<TopologyPtr> topology = LoadLive();
  if (!topology.ok()) return topology.status();
  BitmapPtr set(hwloc_bitmap_alloc());
  if (cpuset.empty() || hwloc_bitmap_list_sscanf(set.get(), cpuset.c_str()) != 0 ||
      hwloc_bitmap_iszero(set.get())) {
    return InputError(fmt::format("--cpuset: '{}' is not a CPU list such as 0-3,8", cpuset));
  }
  if (hwloc_set_cpubind(topology->get(), set.get(), HWLOC_CPUBIND_PROCESS) != 0) {
    return InputError(fmt::format("cannot bind to CPUs {}: {}", cpuset, std::strerror(errno)));
  }
  return {};
}

}  // namespace dlcheck::detect
