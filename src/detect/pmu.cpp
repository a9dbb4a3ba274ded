// SPDX-License-Identifier: Apache-2.0
#include "detect/pmu.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "common/finding_codes.h"

namespace dlcheck::detect {
namespace {

bool IsCpuPmu(const std::string& name) {
  return name == "cpu" || name == "cpu_core" || name == "cpu_atom" ||
         name.rfind("armv8_", 0) == 0 || name.rfind("armv9_", 0) == 0;
}

std::string Joined(const std::vector<std::string>& words) {
  std::string text;
  for (const std::string& w : words) text += (text.empty() ? "" : ", ") + w;
  return text;
}

}  // namespace

PmuState ReadPmu(const std::string& root) {
  PmuState state;
  const std::filesystem::path devices =
      std::filesystem::path(root.empty() ? "/" : root) / "sys/bus/event_source/devices";
  std::error_code ec;
  std::filesystem::directory_iterator it(devices, ec);
  if (ec) return state;
  state.readable = true;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const std::string name = it->path().filename().string();
    state.devices.push_back(name);
    if (IsCpuPmu(name)) state.cpu_pmus.push_back(name);
  }
  std::sort(state.devices.begin(), state.devices.end());
  std::sort(state.cpu_pmus.begin(), state.cpu_pmus.end());
  return state;
}

std::optional<Finding> NoPmuFinding(const PmuState& pmu, const CpuIdentity& cpu) {
  if (!pmu.readable || !pmu.cpu_pmus.empty()) return std::nullopt;
  std::string why = "the kernel registered no CPU PMU (/sys/bus/event_source/devices has " +
                    (pmu.devices.empty() ? std::string("nothing") : Joined(pmu.devices)) + ")";
  if (cpu.hypervisor) {
    why += ": this guest's hypervisor" +
           (cpu.hypervisor_vendor.empty() ? std::string() : " (" + cpu.hypervisor_vendor + ")") +
           " does not pass the PMU through";
  }
  return Finding{Severity::kInfo, codes::kNoHardwareCounters,
                 "no hardware performance counters here: " + why +
                     ". perf samples by cpu-clock (software), and no cycle, cache, memory or "
                     "instruction counter can be read; 'dlcheck roofline' measures bandwidth "
                     "and peaks by timing instead"};
}

}  // namespace dlcheck::detect
