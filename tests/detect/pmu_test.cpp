// SPDX-License-Identifier: Apache-2.0
// Hardware counters read from recorded event-source layouts (tests/data/pmu): a KVM guest
// without a CPU PMU is said plainly, a hybrid Intel host's two PMUs are not a finding.
#include "detect/pmu.h"

#include <gtest/gtest.h>

#include "support/test_files.h"

namespace dlcheck::detect {
namespace {

TEST(PmuTest, AKvmGuestWithoutACpuPmuIsSaid) {
  const PmuState pmu = ReadPmu(testing::DataPath("pmu/kvm_amd"));
  EXPECT_TRUE(pmu.readable);
  EXPECT_TRUE(pmu.cpu_pmus.empty());
  EXPECT_EQ(pmu.devices,
            (std::vector<std::string>{"breakpoint", "msr", "software", "tracepoint", "uprobe"}));
  CpuIdentity guest;
  guest.hypervisor = true;
  guest.hypervisor_vendor = "KVM";
  const std::optional<Finding> finding = NoPmuFinding(pmu, guest);
  ASSERT_TRUE(finding);
  EXPECT_EQ(finding->code, "no-hardware-counters");
  EXPECT_EQ(finding->severity, Severity::kInfo);
  EXPECT_EQ(finding->message,
            "no hardware performance counters here: the kernel registered no CPU PMU "
            "(/sys/bus/event_source/devices has breakpoint, msr, software, tracepoint, uprobe): "
            "this guest's hypervisor (KVM) does not pass the PMU through. perf samples by "
            "cpu-clock (software), and no cycle, cache, memory or instruction counter can be "
            "read; 'dlcheck roofline' measures bandwidth and peaks by timing instead");
  // Without a hypervisor the cause is not guessed.
  const std::optional<Finding> bare = NoPmuFinding(pmu, CpuIdentity{});
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->message.find("hypervisor"), std::string::npos);
}

TEST(PmuTest, AHybridHostHasTwoCpuPmusAndNoFinding) {
  const PmuState pmu = ReadPmu(testing::DataPath("pmu/intel_hybrid"));
  EXPECT_EQ(pmu.cpu_pmus, (std::vector<std::string>{"cpu_atom", "cpu_core"}));
  EXPECT_FALSE(NoPmuFinding(pmu, CpuIdentity{}));
}

TEST(PmuTest, AnUnreadableDirectoryIsNoFinding) {
  const PmuState pmu = ReadPmu(testing::DataPath("pmu/no_such_machine"));
  EXPECT_FALSE(pmu.readable);
  EXPECT_FALSE(NoPmuFinding(pmu, CpuIdentity{}));
}

}  // namespace
}  // namespace dlcheck::detect
