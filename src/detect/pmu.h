// SPDX-License-Identifier: Apache-2.0
#pragma once
// Whether this machine has hardware performance counters: the CPU PMUs the kernel registered
// (`/sys/bus/event_source/devices`: `cpu` on x86, `cpu_core` and `cpu_atom` on hybrid Intel,
// `armv8_pmuv3*` on Arm). A guest whose hypervisor does not pass the PMU through has none: perf
// then samples by cpu-clock, and no cache, memory or instruction counter can be read.
//
//   PmuState pmu = ReadPmu();                 // this machine; ReadPmu("tests/data/pmu/kvm")
//   if (auto f = NoPmuFinding(pmu, info.cpu)) report.findings.push_back(*f);
#include <optional>
#include <string>
#include <vector>

#include "common/finding.h"
#include "detect/cpu_features.h"

namespace dlcheck::detect {

struct PmuState {
  bool readable = false;              ///< the devices directory could be listed
  std::vector<std::string> cpu_pmus;  ///< the CPU PMUs registered, sorted
  std::vector<std::string> devices;   ///< every event source, sorted (software, tracepoint, ...)
};

/// The event sources under `root` + /sys/bus/event_source/devices ("": this machine; a folder:
/// a recorded layout, see tests/data/pmu).
PmuState ReadPmu(const std::string& root = "");

/// `no-hardware-counters` (info) when the kernel registered no CPU PMU: what that rules out,
/// and, under a hypervisor, who hides it. nullopt when there is one or the directory could not
/// be read.
std::optional<Finding> NoPmuFinding(const PmuState& pmu, const CpuIdentity& cpu);

}  // namespace dlcheck::detect
