// SPDX-License-Identifier: Apache-2.0
// tune's audit of a running program (dispatch/process_audit.h): the libraries of a recorded
// /proc/PID/maps (python3 with Debian's numpy on the reference BLAS, and libgomp and LLVM's
// libomp loaded beside each other, recorded on a Debian 12 host), task stat lines with hostile
// command names, and a /proc tree written by the test (a program and its child, their threads).
#include "dispatch/process_audit.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "common/finding_codes.h"
#include "support/finding_codes.h"
#include "support/scratch_dir.h"
#include "support/test_files.h"

namespace dlcheck::dispatch {
namespace {

using testing::Codes;

TEST(ExecutableMappings, OnlyFilesWithCodeEachOnce) {
  const std::vector<std::string> files = ExecutableMappings(
      "55d0a0000000-55d0a0001000 r--p 00000000 08:01 12 /usr/bin/python3.11\n"
      "55d0a0001000-55d0a0002000 r-xp 00001000 08:01 12 /usr/bin/python3.11\n"
      "7f0000000000-7f0000001000 r-xp 00000000 08:01 13 /opt/my lib/libgomp.so.1 (deleted)\n"
      "7f0000001000-7f0000002000 rw-p 00000000 00:00 0 \n"
      "7f0000002000-7f0000003000 r-xp 00000000 00:00 0 [vdso]\n"
      "7f0000003000-7f0000004000 r-xp 00002000 08:01 12 /usr/bin/python3.11\n"
      "short line\n"
      "\n");
  EXPECT_EQ(files, (std::vector<std::string>{"/usr/bin/python3.11", "/opt/my lib/libgomp.so.1"}));
}

TEST(LibraryKinds, DebianAlternativesAndVendoredCopies) {
  const auto name = [](std::string_view path) {
    const auto kind = lib::KindOfLibrary(path);
    return kind ? std::string(lib::RoleName(kind->role)) + ":" + std::string(kind->name)
                : std::string("-");
  };
  EXPECT_EQ(name("/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"), "blas:OpenBLAS");
  EXPECT_EQ(name("/usr/lib/x86_64-linux-gnu/blis-openmp/libblas.so.3"), "blas:BLIS");
  EXPECT_EQ(name("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0"), "blas:reference BLAS");
  EXPECT_EQ(name("/opt/blas-tools/libblas.so.3"), "blas:reference BLAS");  // not the blas/ dir
  EXPECT_EQ(name("/x/torch/lib/libgomp-a34b3233.so.1"), "openmp:GNU OpenMP");
  EXPECT_EQ(name("/x/numpy.libs/libopenblas64_p-r0-742d56dc.3.20.so"), "blas:OpenBLAS");
  EXPECT_EQ(name("/usr/lib/x86_64-linux-gnu/libiomp5.so"), "openmp:Intel OpenMP");
  EXPECT_EQ(name("/usr/lib/x86_64-linux-gnu/libdnnl.so.2.6"), "onednn:oneDNN");
  EXPECT_EQ(name("/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"), "allocator:jemalloc");
  EXPECT_EQ(name("/usr/lib/x86_64-linux-gnu/libc.so.6"), "-");
}

TEST(ParseTaskStat, CommandNamesWithSpacesAndParentheses) {
  const std::string tail =
      " 21207 21207 1366 0 -1 4194304 99 0 0 0 7 5 0 0 20 0 1 0 259450 3133440 387 "
      "18446744073709551615 94718421229568 94718421249449 140727074873072 0 0 0 0 0 0 0 0 0 17 "
      "3 0 0 0 0 0";
  const std::optional<TaskStat> stat = ParseTaskStat("21211 (a) b) (c) R" + tail);
  ASSERT_TRUE(stat.has_value());
  EXPECT_EQ(stat->state, 'R');
  EXPECT_EQ(stat->cpu_ticks, 12u);
  EXPECT_EQ(stat->processor, 3);
  EXPECT_EQ(stat->vsize, 3133440u);
  EXPECT_FALSE(ParseTaskStat("21211 (cat R 1 2").has_value());
  EXPECT_FALSE(ParseTaskStat("21211 (cat) R 1 2").has_value());  // cut short
  EXPECT_FALSE(ParseTaskStat("").has_value());
  EXPECT_FALSE(ParseTaskStat("1 (x) RR" + tail).has_value());
}

// A /proc written by the test: program 100 (two threads, both runnable) started 200 (one
// sleeping thread, the reference BLAS and jemalloc mapped), on 1 usable CPU.
class ProcessAuditorTest : public testing::ScratchDirTest {
 protected:
  void Task(int pid, int tid, char state) {
    std::filesystem::create_directories(dir_ / std::to_string(pid) / "task" / std::to_string(tid));
    Write(std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat",
          std::to_string(tid) + " (worker) " + state +
              " 1 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 1 1 1 1 1 1 0 0 0 0 0 0 0 0 0 17 0 0 0");
    Write(std::to_string(pid) + "/task/" + std::to_string(tid) + "/status",
          "Name:\tworker\nCpus_allowed_list:\t3\n");
  }
};

TEST_F(ProcessAuditorTest, FollowsChildrenCountsThreadsAndSeesOversubscription) {
  Task(100, 100, 'R');
  Task(100, 101, 'R');
  Write("100/task/100/children", "200 ");
  Write("100/task/101/children", "");
  Write("100/maps", "7f0-7f1 r-xp 0 0:0 1 /usr/lib/x86_64-linux-gnu/libgomp.so.1\n");
  Write("100/status", "Name:\tpython3\nCpus_allowed_list:\t3\n");
  Task(200, 200, 'S');
  Write("200/maps",
        "7f0-7f1 r-xp 0 0:0 1 /usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0\n"
        "7f1-7f2 r-xp 0 0:0 1 /usr/lib/x86_64-linux-gnu/libjemalloc.so.2\n");
  ProcessAuditor auditor(dir_.string());
  for (int i = 0; i < 3; ++i) auditor.Sample(100);
  auditor.Sample(999);  // ended: no sample
  const ProcessAudit audit = auditor.Result();
  EXPECT_EQ(audit.samples, 3);
  EXPECT_EQ(audit.processes_max, 2);
  EXPECT_EQ(audit.threads_max, 3);
  EXPECT_EQ(audit.runnable_max, 2);
  EXPECT_EQ(audit.usable_cpus, 1);
  ASSERT_EQ(audit.libraries.size(), 3u);  // in role order: OpenMP, BLAS, allocator
  EXPECT_EQ(audit.libraries[0].kind.name, "GNU OpenMP");
  EXPECT_EQ(audit.libraries[1].kind.name, lib::kReferenceBlas);
  EXPECT_EQ(audit.libraries[2].kind.name, "jemalloc");
  EXPECT_EQ(audit.crowded_samples, 3);
  EXPECT_EQ(audit.crowded_runnable, 2);
  EXPECT_EQ(audit.crowded_cpu_list, std::vector<int>{3});
  // On a host of 1 usable CPU: more threads than CPUs.
  std::vector<Finding> findings = AuditFindings(audit, 1);
  EXPECT_EQ(Codes(findings),
            (std::vector<std::string>{codes::kReferenceBlas, codes::kPoolsOversubscribed}));
  EXPECT_EQ(findings[1].message,
            "up to 2 threads were runnable at once on 1 usable CPU (3 of 3 samples): the thread "
            "pools oversubscribe the CPUs; set OMP_NUM_THREADS (and MKL_NUM_THREADS, "
            "OPENBLAS_NUM_THREADS) so that they add up to the CPUs");
  // On a host of 4: pinned together.
  findings = AuditFindings(audit, 4);
  EXPECT_EQ(Codes(findings),
            (std::vector<std::string>{codes::kReferenceBlas, codes::kThreadsShareACore}));
  EXPECT_EQ(findings[1].message,
            "up to 2 threads were runnable at once but could run only on CPU 3 while 4 are "
            "usable (3 of 3 samples): an affinity setting (taskset, numactl, GOMP_CPU_AFFINITY, "
            "KMP_AFFINITY, OMP_PLACES) pins them together; widen it, or run 1 thread");
}

// CI stop 53 (ASan, loaded host): a program that ended while its /proc files were read made
// read(2) fail (ESRCH once the task is reaped), which the stream reader turned into an exception
// and dlcheck into an internal error. A file that cannot be read is the same class, made
// deterministic: a directory where /proc has its maps and a thread's stat. The sample reads what
// it can and nothing is thrown.
TEST_F(ProcessAuditorTest, FilesThatFailToReadAreMissingNotAnError) {
  Task(100, 100, 'R');
  Task(100, 101, 'R');
  std::filesystem::create_directories(dir_ / "100" / "maps");
  std::filesystem::remove(dir_ / "100/task/101/stat");
  std::filesystem::create_directories(dir_ / "100/task/101/stat");
  Write("100/status", "Name:\tpython3\nCpus_allowed_list:\t3\n");
  ProcessAuditor auditor(dir_.string());
  ASSERT_NO_THROW(auditor.Sample(100));
  const ProcessAudit audit = auditor.Result();
  EXPECT_EQ(audit.samples, 1);
  EXPECT_TRUE(audit.libraries.empty());
  EXPECT_EQ(audit.threads_max, 1);  // the thread whose stat could not be read is not counted
}

TEST_F(ProcessAuditorTest, RecordedNumpyWithTwoOpenMpRuntimes) {
  Task(100, 100, 'S');
  Write("100/maps", testing::ReadFile(testing::DataPath("process/python3_numpy_gomp_omp.maps")));
  ProcessAuditor auditor(dir_.string());
  auditor.Sample(100);
  const ProcessAudit audit = auditor.Result();
  EXPECT_EQ(audit.samples, 1);
  const std::vector<const MappedLibrary*> openmp = audit.Of(lib::Role::kOpenMp);
  ASSERT_EQ(openmp.size(), 2u);
  EXPECT_EQ(LibraryText(*openmp[0]), "GNU OpenMP (libgomp.so.1.0.0)");
  EXPECT_EQ(LibraryText(*openmp[1]), "LLVM OpenMP (libomp.so.5)");
  ASSERT_EQ(audit.Of(lib::Role::kBlas).size(), 1u);
  EXPECT_EQ(audit.Of(lib::Role::kBlas)[0]->kind.name, lib::kReferenceBlas);
  const std::vector<Finding> findings = AuditFindings(audit, 2);
  EXPECT_EQ(Codes(findings),
            (std::vector<std::string>{codes::kTwoOpenmpRuntimes, codes::kReferenceBlas}));
  EXPECT_EQ(findings[0].message,
            "the program mapped 2 OpenMP runtimes (GNU OpenMP (libgomp.so.1.0.0), LLVM OpenMP "
            "(libomp.so.5)): each keeps its own pool of threads, which compete for the same CPUs "
            "and may oversubscribe them; have its libraries use one runtime (or preload one with "
            "LD_PRELOAD)");
}

}  // namespace
}  // namespace dlcheck::dispatch
