#include "detect/probe.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

namespace dlcheck::detect {
namespace {

std::set<std::string> KernelFlags() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) == 0) {
      std::istringstream words(line.substr(line.find(':') + 1));
      return {std::istream_iterator<std::string>(words), std::istream_iterator<std::string>()};
    }
  }
  return {};
}

TEST(ProbeTest, TheFaultingProbeFaultsWithSigill) {
  const ProbeResult r = RunProbe(kFaultingProbe);
  EXPECT_EQ(r.state, ProbeState::kFaulted);
  EXPECT_EQ(r.detail, "SIGILL");
}

TEST(ProbeTest, UnknownFeatureHasNoProbe) {
  EXPECT_EQ(RunProbe("avx1024").state, ProbeState::kNoProbe);
}

// Invariant on the live host: whatever the kernel lists (it lists only what CPUID has and the OS
// enabled) executes.
TEST(ProbeTest, EveryFeatureTheKernelListsExecutes) {
  const auto flags = KernelFlags();
  ASSERT_FALSE(flags.empty()) << "no flags line in /proc/cpuinfo";
  int probed = 0;
  for (std::string_view feature : ProbedFeatures()) {
    if (!flags.count(std::string(feature))) continue;
    const ProbeResult r = RunProbe(feature);
    EXPECT_EQ(r.state, ProbeState::kPassed) << feature << ": " << r.detail;
    ++probed;
  }
  EXPECT_GT(probed, 0) << "every x86-64 Linux machine dlcheck supports lists sse4_1";
}

}  // namespace
}  // namespace dlcheck::detect
