// SPDX-License-Identifier: Apache-2.0
// On this host: invariants only, never this machine's values.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "common/onednn_isa.h"
#include "detect/cpuid_dump.h"
#include "detect/cpuid_source.h"
#include "detect/cpuinfo.h"
#include "detect/libcpuid_layer.h"
#include "detect/platform.h"
#include "dispatch/onednn_info.h"

namespace dlcheck::detect {
namespace {

// Each allowed CPU is visited once, while the thread runs on it, and the mask is restored.
TEST(ForEachAllowedCpuTest, VisitsEachAllowedCpuOnItAndRestoresTheMask) {
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
  std::vector<int> visited;
  int ran_elsewhere = 0;
  const StatusOr<int> count = ForEachAllowedCpu([&](int cpu) {
    visited.push_back(cpu);
    if (sched_getcpu() != cpu) ++ran_elsewhere;
  });
  ASSERT_TRUE(count.ok()) << count.status().message();
  EXPECT_EQ(*count, static_cast<int>(visited.size()));
  EXPECT_EQ(*count, CPU_COUNT(&before));  // no CPU went offline during a test
  EXPECT_EQ(ran_elsewhere, 0);
  for (int cpu : visited) EXPECT_TRUE(CPU_ISSET(cpu, &before)) << cpu;
  EXPECT_TRUE(std::is_sorted(visited.begin(), visited.end()));
  cpu_set_t after;
  ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(LivePlatformTest, UsableAvx512SubsetsEqualTheKernelFlags) {
  const PlatformInfo info = DetectLivePlatform();
  ASSERT_TRUE(ReadProcCpuinfo().has_value()) << "this test needs Linux /proc/cpuinfo";
  ASSERT_NE(info.x86(), nullptr);
  ASSERT_TRUE(info.x86()->xcr0.has_value());
  int compared = 0;
  for (const FeatureLayers& f : info.features) {
    ASSERT_TRUE(f.os.has_value()) << f.name;
    ASSERT_TRUE(f.usable.has_value()) << f.name;
    EXPECT_EQ(*f.usable, f.cpu && *f.os) << f.name;
    if (StateClassOf(f.name) != StateClass::kAvx512) continue;
    // AVX10: no /proc/cpuinfo name dlcheck can rely on, so its kernel layer is null.
    if (!KernelNamesFeature(f.name)) {
      EXPECT_FALSE(f.kernel.has_value()) << f.name;
      continue;
    }
    ASSERT_TRUE(f.kernel.has_value()) << f.name;
    EXPECT_EQ(*f.usable, *f.kernel) << f.name;
    ++compared;
  }
  EXPECT_EQ(compared, 16);
}

TEST(LivePlatformTest, EffectiveOneDnnIsaNeverExceedsTheDerivedLevel) {
  PlatformInfo info = DetectLivePlatform();
  SetOneDnnEffectiveIsa(info, dispatch::OneDnnEffectiveIsa(), "");
  ASSERT_TRUE(info.onednn_effective_isa.has_value());
  ASSERT_TRUE(onednn::IsaRank(info.onednn_max_isa).has_value()) << info.onednn_max_isa;
  ASSERT_TRUE(onednn::IsaRank(*info.onednn_effective_isa).has_value())
      << *info.onednn_effective_isa;
  EXPECT_TRUE(onednn::AtOrBelow(*info.onednn_effective_isa, info.onednn_max_isa))
      << *info.onednn_effective_isa << " > " << info.onednn_max_isa;
  for (const Finding& f : info.findings) EXPECT_NE(f.code, "onednn-isa-above-derived");
}

TEST(LivePlatformTest, SavedRawDumpReplaysWithTheSameFeatures) {
  const PlatformInfo live = DetectLivePlatform();
  const StatusOr<CpuidDump> dump = DumpLiveCpuid();
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  EXPECT_EQ(static_cast<int>(dump->cpus.size()), live.logical_cpus);

  const char* tmp = std::getenv("TMPDIR");
  const std::string path = std::string(tmp != nullptr && *tmp ? tmp : "/tmp") +
                           "/dlcheck-live-test-" + std::to_string(getpid()) + ".test";
  {
    std::ofstream out(path);
    out << FormatCpuidDump(*dump);
  }
  // libcpuid 0.6.2 reads the file dlcheck wrote, and says what it says about this CPU.
  EXPECT_EQ(LibcpuidCanRead(path), "");
  const StatusOr<PlatformInfo> replay = DetectRecordedPlatform(path);
  std::remove(path.c_str());
  ASSERT_TRUE(replay.ok()) << replay.status().message();

  EXPECT_EQ(replay->cpu.vendor, live.cpu.vendor);
  EXPECT_EQ(replay->cpu.brand, live.cpu.brand);
  EXPECT_EQ(replay->cpu.family, live.cpu.family);
  EXPECT_EQ(replay->cpu.model, live.cpu.model);
  EXPECT_EQ(replay->cpu.microarchitecture, live.cpu.microarchitecture);
  EXPECT_EQ(replay->cpu.hypervisor_vendor, live.cpu.hypervisor_vendor);
  EXPECT_EQ(replay->logical_cpus, live.logical_cpus);
  ASSERT_EQ(replay->features.size(), live.features.size());
  for (std::size_t i = 0; i < live.features.size(); ++i) {
    EXPECT_EQ(replay->features[i].cpu, live.features[i].cpu) << live.features[i].name;
    EXPECT_EQ(replay->features[i].libcpuid, live.features[i].libcpuid) << live.features[i].name;
  }
}

}  // namespace
}  // namespace dlcheck::detect
