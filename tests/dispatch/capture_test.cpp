// SPDX-License-Identifier: Apache-2.0
// dispatch::Capture of a program, in-process: the one capture that `run`, `dispatch -- CMD` and
// `profile -- CMD` share, on /bin/sh replaying a real oneDNN 2.6.3 log (tests/data/verbose).
#include "dispatch/capture.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>

#include "support/test_files.h"

namespace dlcheck::dispatch {
namespace {

const std::string kLog = testing::DataPath("verbose/torch_cnn_avx2_2.6.3.log");

// The log's verbose lines and exec lines, counted from the file itself.
struct LogCounts {
  std::uint64_t verbose = 0;
  std::uint64_t execs = 0;
};
LogCounts CountLog() {
  std::istringstream in(testing::ReadFile(kLog));
  LogCounts counts;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("onednn_verbose,", 0) != 0) continue;
    ++counts.verbose;
    if (line.rfind("onednn_verbose,exec,", 0) == 0) ++counts.execs;
  }
  return counts;
}

// A program that checks the environment its configuration sets (exit 9 otherwise), then prints
// the log without its comment lines (the script's own last line included) and a line of its own.
ProgramSource Replay(const std::string& expected_env) {
  return ProgramSource{
      {"/bin/sh", "-c", expected_env + " || exit 9; grep -v '^#' '" + kLog + "'; echo own line"}};
}

TEST(CaptureTest, AProgramsRunIsOneRecordOfItsVerboseLinesAndItsOwnOutput) {
  const LogCounts counts = CountLog();
  ASSERT_GT(counts.execs, 10u);
  // dlcheck's own verbose request (a user's value would be kept instead).
  for (const char* name : {"ONEDNN_VERBOSE", "DNNL_VERBOSE", "MKLDNN_VERBOSE"}) unsetenv(name);
  const CaptureSettings settings{.config = CapConfig{"avx2"}, .threads = 3, .max_timeline = 5};
  const StatusOr<dispatch::Run> run = Capture(Replay("test \"$ONEDNN_MAX_CPU_ISA\" = avx2 && "
                                                     "test \"$DNNL_MAX_CPU_ISA\" = avx2 && "
                                                     "test \"$OMP_NUM_THREADS\" = 3 && "
                                                     "test \"$MKL_NUM_THREADS\" = 3 && "
                                                     "test \"$ONEDNN_VERBOSE\" = 2,dispatch && "
                                                     "test \"$DNNL_VERBOSE\" = 2"),
                                              settings);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->outcome.ShellStatus(), 0) << "the configuration's environment was not set";
  EXPECT_FALSE(run->model) << "a program has no model results";
  EXPECT_FALSE(run->Refused());
  EXPECT_FALSE(run->verbose_request.from_user);
  EXPECT_EQ(run->verbose_request.Text(),
            "ONEDNN_VERBOSE=2,dispatch DNNL_VERBOSE=2 MKLDNN_VERBOSE=2");
  EXPECT_EQ(run->verbose_lines, counts.verbose);
  // The script's own last line of the log and the program's own line.
  EXPECT_EQ(run->program_output.lines, 2u);
  EXPECT_EQ(run->header.library_version, "oneDNN v2.6.3 (commit N/A)");
  std::uint64_t execs = 0;
  for (const auto& row : run->rows) execs += row.execs;
  EXPECT_EQ(execs, counts.execs);
  EXPECT_GT(run->summary.exec_ms, 0);
  // The timeline keeps the first five executions and counts the rest.
  EXPECT_EQ(run->execs.size(), 5u);
  EXPECT_EQ(run->timeline_dropped, counts.execs - 5);
}

TEST(CaptureTest, TheDefaultConfigurationLeavesTheEnvironmentAlone) {
  // Whatever the shell that runs the tests exports, this process passes none of these on: what
  // the program sees of them, the capture added.
  for (const char* name :
       {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OMP_PROC_BIND", "ONEDNN_MAX_CPU_ISA"}) {
    unsetenv(name);
  }
  const StatusOr<dispatch::Run> run = Capture(
      Replay("test -z \"$OMP_NUM_THREADS$MKL_NUM_THREADS$OMP_PROC_BIND$ONEDNN_MAX_CPU_ISA\""), {});
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->outcome.ShellStatus(), 0);
  EXPECT_EQ(run->execs.size(), CountLog().execs) << "under the report's cap: all kept";
}

TEST(CaptureTest, AUsersVerboseSettingIsKeptAndNamed) {
  for (const char* name : {"ONEDNN_VERBOSE", "DNNL_VERBOSE", "MKLDNN_VERBOSE"}) unsetenv(name);
  setenv("DNNL_VERBOSE", "1", 1);
  const StatusOr<dispatch::Run> run =
      Capture(Replay("test \"$DNNL_VERBOSE\" = 1 && test -z \"$ONEDNN_VERBOSE$MKLDNN_VERBOSE\" && "
                     "test \"$ONEDNN_VERBOSE_TIMESTAMP\" = 1"),
              {});
  unsetenv("DNNL_VERBOSE");
  ASSERT_TRUE(run.ok()) << run.status().message();
  EXPECT_EQ(run->outcome.ShellStatus(), 0) << "the user's DNNL_VERBOSE=1 was not kept alone";
  EXPECT_TRUE(run->verbose_request.from_user);
  EXPECT_EQ(run->verbose_request.Text(), "DNNL_VERBOSE=1");
}

TEST(CaptureTest, AProgramHasNoScalarRunAndAMissingOneIsNamed) {
  const StatusOr<dispatch::Run> scalar =
      Capture(ProgramSource{{"/bin/true"}}, {.config = ScalarConfig{}});
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(scalar.status().code(), ExitCode::kUsage);
  const StatusOr<dispatch::Run> missing = Capture(ProgramSource{{"dlcheck-no-such-program"}}, {});
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ExitCode::kCommandNotFound);
}

TEST(CaptureTest, AProgramsExitStatusIsItsOwn) {
  const StatusOr<dispatch::Run> run = Capture(ProgramSource{{"/bin/sh", "-c", "exit 7"}}, {});
  ASSERT_TRUE(run.ok());
  EXPECT_EQ(run->outcome.ShellStatus(), 7);
  EXPECT_FALSE(run->OutOfMemory()) << "7 is the model worker's out-of-memory status only";
  EXPECT_EQ(run->verbose_lines, 0u);
}

}  // namespace
}  // namespace dlcheck::dispatch
