// SPDX-License-Identifier: Apache-2.0
// dlcheck inside a real cgroup with a CPU quota of half a CPU (issue 33, part 6): the test moves
// itself into a new cgroup of this machine's CPU hierarchy (v1: the `cpu` controller's
// cpu.cfs_quota_us; v2: cpu.max), the quota set on the parent and none on the leaf it runs in
// (the smallest on the way up wins), runs dlcheck there and moves back. Root only, on a machine
// whose CPU hierarchy can be written: skipped with the reason elsewhere.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "os/cpu_budget.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

namespace dlcheck::testing {
namespace {

bool WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  out.flush();
  return static_cast<bool>(out);
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A cgroup `parent/leaf` with a quota of half a CPU on `parent`, this process moved into `leaf`
// while it lives, and back into `home` after.
class QuotaCgroup {
 public:
  // An empty string when made; else why not (the test is skipped with it).
  std::string Make() {
    if (geteuid() != 0) return "not root: cgroups cannot be written";
    const std::vector<os::CpuCgroup> found =
        os::FindCpuCgroups(ReadText("/proc/self/cgroup"), ReadText("/proc/self/mountinfo"));
    for (const os::CpuCgroup& c : found) {
      // v2: the cpu controller must be available to the children of the mount point.
      if (c.v2 &&
          ReadText(c.mount_point + "/cgroup.controllers").find("cpu") == std::string::npos) {
        continue;
      }
      hierarchy_ = c;
      break;
    }
    if (!hierarchy_) return "no writable CPU cgroup hierarchy (no cpu controller mounted)";
    const os::CpuCgroup& h = *hierarchy_;
    parent_ = h.mount_point + "/dlcheck-quota-test-" + std::to_string(getpid());
    leaf_ = parent_ + "/leaf";
    if (mkdir(parent_.c_str(), 0755) != 0) {
      return "cannot create a cgroup under " + h.mount_point + ": " + std::strerror(errno);
    }
    made_parent_ = true;
    if (h.v2) {
      WriteText(h.mount_point + "/cgroup.subtree_control", "+cpu");
      WriteText(parent_ + "/cgroup.subtree_control", "+cpu");
      if (!WriteText(parent_ + "/cpu.max", "50000 100000")) return "cannot write cpu.max";
    } else if (!WriteText(parent_ + "/cpu.cfs_period_us", "100000") ||
               !WriteText(parent_ + "/cpu.cfs_quota_us", "50000")) {
      return "cannot write cpu.cfs_quota_us";
    }
    if (mkdir(leaf_.c_str(), 0755) != 0) return "cannot create " + leaf_;
    made_leaf_ = true;
    if (!WriteText(leaf_ + "/cgroup.procs", std::to_string(getpid()))) {
      return "cannot move this process into " + leaf_;
    }
    moved_ = true;
    return {};
  }

  ~QuotaCgroup() {
    if (moved_) WriteText(hierarchy_->directory + "/cgroup.procs", std::to_string(getpid()));
    if (made_leaf_) rmdir(leaf_.c_str());
    if (made_parent_) rmdir(parent_.c_str());
  }

  const std::string& parent() const { return parent_; }
  bool v2() const { return hierarchy_->v2; }

 private:
  std::optional<os::CpuCgroup> hierarchy_;
  std::string parent_, leaf_;
  bool made_parent_ = false, made_leaf_ = false, moved_ = false;
};

const nlohmann::json* FindingOf(const nlohmann::json& report, const std::string& code) {
  for (const auto& f : report["findings"]) {
    if (f["code"] == code) return &f;
  }
  return nullptr;
}

class CpuQuotaCliTest : public ScratchDirTest {};

TEST_F(CpuQuotaCliTest, HalfACpuIsReportedAndRespected) {
  QuotaCgroup cgroup;
  if (const std::string why = cgroup.Make(); !why.empty()) GTEST_SKIP() << why;
  const os::CpuBudget budget = os::ReadCpuBudget();
  ASSERT_TRUE(budget.quota);
  EXPECT_DOUBLE_EQ(budget.quota->cpus, 0.5);
  EXPECT_EQ(budget.cpus, 1);

  // platform: the quota beside the cpuset, and the finding (0.5 is below any cpuset).
  const RunResult platform = RunDlcheck({"platform", "-f", "json"});
  ASSERT_EQ(platform.exit_code, 0) << platform.err;
  const nlohmann::json p = nlohmann::json::parse(platform.out);
  ASSERT_TRUE(p["topology"]["cpu_quota"].is_number()) << p["topology"];
  EXPECT_DOUBLE_EQ(p["topology"]["cpu_quota"].get<double>(), 0.5);
  const nlohmann::json* quota = FindingOf(p, "cpu-quota");
  ASSERT_NE(quota, nullptr) << p["findings"];
  EXPECT_EQ((*quota)["severity"], "warning");
  const std::string file = cgroup.parent() + (cgroup.v2() ? "/cpu.max" : "/cpu.cfs_quota_us");
  EXPECT_NE((*quota)["message"].get<std::string>().find(file), std::string::npos) << *quota;
  EXPECT_NE((*quota)["message"].get<std::string>().find("OMP_NUM_THREADS=1"), std::string::npos);

  // verbose: its default thread count is held to the budget, and says what chose it.
  const RunResult verbose = RunDlcheck(
      {"verbose", "--model", "mlp", "--iters", "1", "--warmup", "0", "--traced", "1", "-f", "json"},
      {}, {"OMP_NUM_THREADS="});
  ASSERT_EQ(verbose.exit_code, 0) << verbose.err;
  const nlohmann::json v = nlohmann::json::parse(verbose.out);
  EXPECT_EQ(v["run"]["threads"], 1) << v["run"];
  const std::string from = v["run"]["threads_from"].get<std::string>();
  // On a busy machine the idle cores may already be 1: then the budget did not have to say so.
  if (from.rfind("the idle cores: 1 ", 0) != 0 && budget.affinity > 1) {
    EXPECT_EQ(from, "the CPU budget: " + budget.Text()) << from;
  }

  // parse: a log of as many threads as this cpuset has CPUs, above the budget, is
  // oversubscribed (if it was recorded here); a 1-thread log is not.
  if (budget.affinity > 1) {
    const std::string log =
        Write("nthr.log",
              "onednn_verbose,info,oneDNN v3.4.1 (commit N/A)\n"
              "onednn_verbose,info,cpu,runtime:OpenMP,nthr:" +
                  std::to_string(budget.affinity) +
                  "\nonednn_verbose,exec,cpu,eltwise,jit:avx2,forward_training,"
                  "data_f32::blocked:a:f0 diff_undef::undef:::,,alg:eltwise_relu alpha:0 "
                  "beta:0,64,0.01\n");
    const RunResult parsed = RunDlcheck({"parse", log, "-f", "json"});
    ASSERT_EQ(parsed.exit_code, 0) << parsed.err;
    const nlohmann::json report = nlohmann::json::parse(parsed.out);
    const nlohmann::json* over = FindingOf(report, "oversubscribed");
    ASSERT_NE(over, nullptr) << parsed.out;
    EXPECT_NE((*over)["message"].get<std::string>().find("OMP_NUM_THREADS=1"), std::string::npos);

    // run: a program left to OpenMP's default starts one thread per CPU of the cpuset (its
    // log's nthr: says so, or OpenMP's default is assumed).
    const RunResult ran =
        RunDlcheck({"run", "-f", "json", "--", DLCHECK_BINARY, "worker", "--model", "mlp",
                    "--iters", "1", "--warmup", "0", "--traced", "1"},
                   {}, {"OMP_NUM_THREADS="});
    ASSERT_EQ(ran.exit_code, 0) << ran.err;
    const nlohmann::json run_report = nlohmann::json::parse(ran.out);
    const nlohmann::json* run_over = FindingOf(run_report, "oversubscribed");
    ASSERT_NE(run_over, nullptr) << run_report["findings"];
    EXPECT_NE((*run_over)["message"].get<std::string>().find("OMP_NUM_THREADS=1"),
              std::string::npos)
        << *run_over;
  }
}

}  // namespace
}  // namespace dlcheck::testing
