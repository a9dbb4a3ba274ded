// SPDX-License-Identifier: Apache-2.0
// The CPU budget (os/cpu_budget.h) on recorded cgroup layouts (tests/data/cgroup, README there
// says where each came from) and on the lines of each file's kinds.
#include "os/cpu_budget.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <future>
#include <thread>

#include "support/scratch_dir.h"
#include "support/test_files.h"

namespace dlcheck::os {
namespace {

using dlcheck::testing::DataPath;
using dlcheck::testing::ReadFile;

TEST(CpuBudget, CpuMaxReadsQuotaOverPeriod) {
  EXPECT_DOUBLE_EQ(*ParseCpuMax("42000 100000\n"), 0.42);
  EXPECT_DOUBLE_EQ(*ParseCpuMax("200000 100000"), 2.0);
  EXPECT_FALSE(ParseCpuMax("max 100000\n"));
  EXPECT_FALSE(ParseCpuMax("max"));
  EXPECT_FALSE(ParseCpuMax(""));
  EXPECT_FALSE(ParseCpuMax("0 100000"));
  EXPECT_FALSE(ParseCpuMax("50000 0"));
  EXPECT_FALSE(ParseCpuMax("50000 100000 7"));
  EXPECT_FALSE(ParseCpuMax("fifty 100000"));
}

// Issue 51 class 4: a quota far below one CPU or far above the machine still gives a budget of
// whole CPUs and a text with no non-finite number (the oversubscription finding says it).
TEST(CpuBudget, ExtremeQuotasGiveFiniteBudgets) {
  for (const char* cpu_max : {"1 9223372036854775807", "9223372036854775807 1", "1 1000000"}) {
    const std::optional<double> cpus = ParseCpuMax(cpu_max);
    ASSERT_TRUE(cpus) << cpu_max;
    EXPECT_TRUE(std::isfinite(*cpus) && *cpus > 0) << cpu_max;
    const CpuBudget budget = BudgetOf(4, CpuQuota{*cpus, "cpu.max"});
    EXPECT_GE(budget.cpus, 1) << cpu_max;
    EXPECT_LE(budget.cpus, 4) << cpu_max;
    const std::string text = budget.Text();
    for (const char* word : {"inf", "nan"}) {
      EXPECT_EQ(text.find(word), std::string::npos) << cpu_max << ": " << text;
    }
  }
  EXPECT_FALSE(ParseCpuMax("0 100000"));
  EXPECT_FALSE(ParseCpuMax("100000 0"));
  EXPECT_FALSE(ParseCpuMax("99999999999999999999 100000"));  // past 64 bits: not a number
}

TEST(CpuBudget, CfsQuotaOfMinusOneIsNoLimit) {
  EXPECT_DOUBLE_EQ(*ParseCfsQuota("50000\n", "100000\n"), 0.5);
  EXPECT_DOUBLE_EQ(*ParseCfsQuota("150000", "100000"), 1.5);
  EXPECT_FALSE(ParseCfsQuota("-1\n", "100000\n"));
  EXPECT_FALSE(ParseCfsQuota("50000", ""));
  EXPECT_FALSE(ParseCfsQuota("5e4", "100000"));
}

// The v1 hierarchy with the cpu controller, recorded on the CI machine: cgroup path appended to
// the mount point; the v2 mount there has no cpu line of its own but is read too.
TEST(CpuBudget, FindsTheV1CpuHierarchyAndTheV2One) {
  const std::vector<CpuCgroup> found =
      FindCpuCgroups(ReadFile(DataPath("cgroup/v1-nested/proc/self/cgroup")),
                     ReadFile(DataPath("cgroup/v1-nested/proc/self/mountinfo")));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].directory, "/sys/fs/cgroup/cpu/dlcheck-job/step");
  EXPECT_EQ(found[0].mount_point, "/sys/fs/cgroup/cpu");
  EXPECT_FALSE(found[0].v2);
  EXPECT_EQ(found[1].directory, "/sys/fs/cgroup/unified");
  EXPECT_TRUE(found[1].v2);
}

// A mount whose root is the process's own cgroup (Docker on cgroup v1, the line from
// dotnet/coreclr#13895): the path is not appended again. The cpu controller shares its
// hierarchy with cpuacct there.
TEST(CpuBudget, MountRootThatIsTheCgroupIsNotAppendedTwice) {
  const std::string scope =
      "/system.slice/docker-654dd7b6b8bbfe1739ae3309b471e95ccc82b3a3f56b7879f0a811d68b5c4e1d.scope";
  const std::vector<CpuCgroup> found =
      FindCpuCgroups("4:cpuacct,cpu:" + scope + "\n",
                     "354 347 0:28 " + scope +
                         " /sys/fs/cgroup/cpuacct,cpu ro,nosuid,nodev,noexec,relatime - cgroup "
                         "cgroup rw,cpuacct,cpu\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].directory, "/sys/fs/cgroup/cpuacct,cpu");
}

// A mount point with a space, as mountinfo escapes it; a path from another cgroup namespace
// (outside the mount's root) is read at the mount point.
TEST(CpuBudget, EscapedMountPointsAndForeignPaths) {
  const std::vector<CpuCgroup> found = FindCpuCgroups(
      "0::/../outside\n", "41 31 0:38 /inside /sys/fs/my\\040cgroup rw - cgroup2 cgroup2 rw\n");
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].directory, "/sys/fs/my cgroup");
  EXPECT_TRUE(found[0].v2);
  // Outside the namespace's root, seen from a mount of the whole hierarchy: never above it.
  const std::vector<CpuCgroup> outside = FindCpuCgroups(
      "0::/../../user.slice\n", "41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
  ASSERT_EQ(outside.size(), 1u);
  EXPECT_EQ(outside[0].directory, "/sys/fs/cgroup");
}

TEST(CpuBudget, NoCgroupLinesNoHierarchies) {
  EXPECT_TRUE(FindCpuCgroups("", "").empty());
  // cgroup v1 without the cpu controller mounted: nothing to read.
  EXPECT_TRUE(FindCpuCgroups("1:cpu:/a\n",
                             "35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup "
                             "cgroup rw,memory\n")
                  .empty());
}

// The recorded v1 layout: the leaf has no quota (-1), its parent half a CPU.
TEST(CpuBudget, RecordedV1ParentQuotaWins) {
  const std::optional<CpuQuota> quota = ReadCpuQuota(DataPath("cgroup/v1-nested"));
  ASSERT_TRUE(quota);
  EXPECT_DOUBLE_EQ(quota->cpus, 0.5);
  EXPECT_EQ(quota->file, "/sys/fs/cgroup/cpu/dlcheck-job/cpu.cfs_quota_us");
}

// The v2 layout: job 2 CPUs, step 0.42, the leaf and user "max": the smallest on the way up.
TEST(CpuBudget, RecordedV2SmallestOnTheWayUpWins) {
  const std::optional<CpuQuota> quota = ReadCpuQuota(DataPath("cgroup/v2-nested"));
  ASSERT_TRUE(quota);
  EXPECT_DOUBLE_EQ(quota->cpus, 0.42);
  EXPECT_EQ(quota->file,
            "/sys/fs/cgroup/system.slice/slurm-worker-1_slurmstepd.scope/job_4749/step_0/cpu.max");
}

// A FIFO in place of a cgroup or /proc file is refused without waiting for a writer (issue 51:
// parse and platform never finished): that level has no quota, the others are read.
class CpuBudgetFifo : public dlcheck::testing::ScratchDirTest {
 protected:
  // ReadCpuQuota below the scratch copy, within 10 s; a read that blocks is released (the FIFO
  // opened for writing and closed) and fails the test.
  std::optional<CpuQuota> QuotaWithin10s(const std::filesystem::path& fifo) {
    auto promise = std::make_shared<std::promise<std::optional<CpuQuota>>>();
    std::future<std::optional<CpuQuota>> result = promise->get_future();
    std::thread([promise, root = dir_.string()] {
      promise->set_value(ReadCpuQuota(root));
    }).detach();
    if (result.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
      ADD_FAILURE() << "the quota reader waits on the FIFO " << fifo;
      close(open(fifo.c_str(), O_RDWR));
    }
    return result.get();
  }
};

TEST_F(CpuBudgetFifo, AFifoIsNoQuotaAndNoWait) {
  namespace fs = std::filesystem;
  fs::copy(DataPath("cgroup/v2-nested"), dir_, fs::copy_options::recursive);
  const fs::path step =
      dir_ / "sys/fs/cgroup/system.slice/slurm-worker-1_slurmstepd.scope/job_4749/step_0/cpu.max";
  ASSERT_TRUE(fs::remove(step));
  ASSERT_EQ(mkfifo(step.c_str(), 0600), 0);
  const std::optional<CpuQuota> quota = QuotaWithin10s(step);
  ASSERT_TRUE(quota);
  EXPECT_DOUBLE_EQ(quota->cpus, 2.0);  // the job's: the step's cpu.max is not read
  // /proc/self/cgroup a FIFO: no hierarchy, no quota, no wait.
  const fs::path cgroup = dir_ / "proc/self/cgroup";
  ASSERT_TRUE(fs::remove(cgroup));
  ASSERT_EQ(mkfifo(cgroup.c_str(), 0600), 0);
  EXPECT_FALSE(QuotaWithin10s(cgroup));
}

TEST(CpuBudget, NoProcFilesNoQuota) {
  EXPECT_FALSE(ReadCpuQuota(DataPath("cgroup/does-not-exist")));
}

TEST(CpuBudget, BudgetIsTheSmallerOfAffinityAndTheQuotaRoundedUp) {
  EXPECT_EQ(BudgetOf(2, CpuQuota{0.5, "q"}).cpus, 1);
  EXPECT_TRUE(BudgetOf(2, CpuQuota{0.5, "q"}).QuotaBinds());
  EXPECT_EQ(BudgetOf(8, CpuQuota{2.5, "q"}).cpus, 3);
  EXPECT_EQ(BudgetOf(8, CpuQuota{3.0, "q"}).cpus, 3);
  EXPECT_EQ(BudgetOf(2, CpuQuota{16.0, "q"}).cpus, 2);
  EXPECT_FALSE(BudgetOf(2, CpuQuota{16.0, "q"}).QuotaBinds());
  EXPECT_EQ(BudgetOf(4, std::nullopt).cpus, 4);
  EXPECT_EQ(BudgetOf(0, std::nullopt).cpus, 1);
  EXPECT_EQ(BudgetOf(2, CpuQuota{0.5, "q"}).Text(),
            "1 CPU (a cgroup CPU quota of 0.50 CPUs; 2 in the affinity mask)");
  EXPECT_EQ(BudgetOf(4, std::nullopt).Text(), "4 CPUs");
}

// On the live host (any machine): the budget never exceeds the affinity mask and is at least 1.
TEST(CpuBudget, LiveBudgetWithinAffinity) {
  const CpuBudget budget = ReadCpuBudget();
  EXPECT_GE(budget.cpus, 1);
  EXPECT_LE(budget.cpus, budget.affinity);
  EXPECT_EQ(UsableCpus(), budget.cpus);
  if (budget.quota) {
    EXPECT_GT(budget.quota->cpus, 0);
  }
}

}  // namespace
}  // namespace dlcheck::os
