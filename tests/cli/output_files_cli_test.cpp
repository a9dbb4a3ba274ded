// SPDX-License-Identifier: Apache-2.0
// Output files through the built binary (src/os/output_file.h): a device or FIFO named as an
// output is written into, never replaced by a regular file; a write that fails (a full device, a
// file size limit) ends with one `dlcheck:` line and exit 8, and leaves what was there; the
// workbook's temporary files are gone after a SIGTERM, and the library's own error lines are
// not shown. One rule for `-o` of every report command: a command that fails leaves the file as
// it was, byte for byte, and a symlink named as FILE is replaced, never followed.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "common/exit_code.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"
#include "support/test_files.h"

namespace dlcheck {
namespace {

using Json = nlohmann::json;
using testing::RunDlcheck;
using OutputFilesTest = testing::ScratchDirTest;
using Clock = std::chrono::steady_clock;

// One verbose line, so that a raw log has something to keep.
constexpr const char* kVerboseLine =
    "onednn_verbose,exec,cpu,eltwise,jit:avx2,forward_training,data_f32::blocked:a::f0 "
    "diff_undef::undef:::,,alg:eltwise_relu alpha:0 beta:0,100,0.01";

using dlcheck::testing::ReadFile;

struct stat StatOf(const std::string& path) {
  struct stat info {};
  EXPECT_EQ(lstat(path.c_str(), &info), 0) << path;
  return info;
}

// The same node, of the same kind, before and after.
void ExpectSameNode(const struct stat& before, const struct stat& after) {
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_mode & S_IFMT, after.st_mode & S_IFMT);
  EXPECT_EQ(before.st_rdev, after.st_rdev);
}

std::vector<std::string> Entries(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  return names;
}

// A file size limit for the children started while it lives (SIGXFSZ ignored: the write fails
// with EFBIG, as a full disk fails with ENOSPC).
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &old_);
    old_handler_ = std::signal(SIGXFSZ, SIG_IGN);
    struct rlimit small = old_;
    small.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &small);
  }
  ~FileSizeLimit() {
    setrlimit(RLIMIT_FSIZE, &old_);
    std::signal(SIGXFSZ, old_handler_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  struct rlimit old_ {};
  void (*old_handler_)(int) = nullptr;
};

// The example: a copy of /dev/null made with mknod (root only) named as check's output.
TEST_F(OutputFilesTest, CheckWritesIntoAMknodNullDeviceAndLeavesItADevice) {
  const std::string null_copy = (dir_ / "null").string();
  if (mknod(null_copy.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
    GTEST_SKIP() << "mknod needs root (CAP_MKNOD): " << std::strerror(errno)
                 << "; WritesIntoDevNullAndLeavesIt covers the write-through as any user";
  }
  const struct stat before = StatOf(null_copy);
  const auto r = RunDlcheck({"check", "--emit", "slurm-features", "-o", null_copy});
  EXPECT_LE(r.exit_code, 2) << r.err;  // OK, WARNING or CRITICAL: the check itself ran
  EXPECT_EQ(r.err.find("cannot write"), std::string::npos) << r.err;
  const struct stat after = StatOf(null_copy);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  ExpectSameNode(before, after);
  EXPECT_EQ(Entries(dir_), std::vector<std::string>{"null"});  // no temporary file beside it
}

TEST_F(OutputFilesTest, WritesIntoDevNullAndLeavesIt) {
  const struct stat before = StatOf("/dev/null");
  const auto r = RunDlcheck({"run", "--output", "/dev/null", "--raw-log", "/dev/null", "--", "sh",
                             "-c", std::string("echo '") + kVerboseLine + "'"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  const struct stat after = StatOf("/dev/null");
  EXPECT_TRUE(S_ISCHR(after.st_mode));
  ExpectSameNode(before, after);
}

// A FIFO named as an output is fed, as `cp` feeds it, and stays a FIFO.
TEST_F(OutputFilesTest, WritesIntoAFifoForItsReader) {
  const std::string fifo = (dir_ / "report.fifo").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const struct stat before = StatOf(fifo);
  std::string received;
  std::thread reader([&] { received = ReadFile(fifo); });
  const auto r = RunDlcheck({"run", "--format", "json", "--output", fifo, "--", "true"});
  reader.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(Json::accept(received)) << received;
  EXPECT_EQ(Json::parse(received)["run"]["exit_status"], 0);
  const struct stat after = StatOf(fifo);
  EXPECT_TRUE(S_ISFIFO(after.st_mode));
  ExpectSameNode(before, after);
}

// /dev/stdout (a symlink to /proc/self/fd/1, here a pipe) is the standard output, not a link to
// replace.
TEST_F(OutputFilesTest, DevStdoutIsWrittenThrough) {
  const struct stat before = StatOf("/dev/stdout");
  const auto r = RunDlcheck({"run", "--format", "json", "--output", "/dev/stdout", "--", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  ASSERT_TRUE(Json::accept(r.out)) << r.out;
  EXPECT_TRUE(S_ISLNK(StatOf("/dev/stdout").st_mode));
  ExpectSameNode(before, StatOf("/dev/stdout"));
}

TEST_F(OutputFilesTest, ADirectoryIsRefusedBeforeTheProgramRuns) {
  const std::string marker = (dir_ / "ran").string();
  const auto r =
      RunDlcheck({"run", "--output", dir_.string(), "--", "sh", "-c", "touch '" + marker + "'"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError));
  EXPECT_EQ(r.err, "dlcheck: cannot write '" + dir_.string() + "': Is a directory\n");
  EXPECT_FALSE(std::filesystem::exists(marker));
}

// The examples of silent loss: /dev/full as run's report, run's raw log, verbose's raw
// log. Each is one line and exit 8.
TEST_F(OutputFilesTest, RunOutputOnAFullDeviceIsAnOutputError) {
  const auto r = RunDlcheck({"run", "--output", "/dev/full", "--", "true"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError));
  EXPECT_EQ(r.err, "dlcheck: cannot write '/dev/full': No space left on device\n");
}

TEST_F(OutputFilesTest, RunRawLogOnAFullDeviceIsAnOutputErrorAfterTheReport) {
  const auto r = RunDlcheck({"run", "--format", "json", "--raw-log", "/dev/full", "--", "sh", "-c",
                             std::string("echo '") + kVerboseLine + "'"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError));
  EXPECT_EQ(r.err, "dlcheck: cannot write '/dev/full': No space left on device\n");
  ASSERT_TRUE(Json::accept(r.out)) << r.out;
  EXPECT_EQ(Json::parse(r.out)["run"]["verbose_lines"], 1);
}

TEST_F(OutputFilesTest, VerboseRawLogOnAFullDeviceIsAnOutputError) {
  const auto r = RunDlcheck({"verbose", "--model", "mlp", "--batch", "8", "--iters", "1",
                             "--warmup", "0", "--raw-log", "/dev/full"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError));
  EXPECT_EQ(r.err, "dlcheck: cannot write '/dev/full': No space left on device\n");
}

// One more of the class: a file size limit (EFBIG). The report does not fit; the file keeps what
// it held, and no temporary file is left.
TEST_F(OutputFilesTest, AReportPastTheFileSizeLimitLeavesTheOldFile) {
  const std::string report = Write("report.json", "previous\n");
  testing::RunResult r;
  {
    const FileSizeLimit limit(256);
    r = RunDlcheck({"run", "--format", "json", "--output", report, "--", "true"});
  }
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError));
  EXPECT_EQ(r.err, "dlcheck: cannot write '" + report + "': File too large\n");
  EXPECT_EQ(ReadFile(report), "previous\n");
  EXPECT_EQ(Entries(dir_), std::vector<std::string>{"report.json"});
}

// The same limit on run's raw log: the error, not exit 0 with the log cut short.
TEST_F(OutputFilesTest, ARawLogPastTheFileSizeLimitIsAnOutputError) {
  const std::string raw_log = (dir_ / "raw.log").string();
  testing::RunResult r;
  {
    const FileSizeLimit limit(1024);
    r = RunDlcheck({"run", "--raw-log", raw_log, "--", "sh", "-c",
                    std::string("for i in $(seq 100); do echo '") + kVerboseLine + "'; done"});
  }
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError));
  EXPECT_EQ(r.err, "dlcheck: cannot write '" + raw_log + "': File too large\n");
  EXPECT_TRUE(Entries(dir_).empty());
}

// A log of `rows` distinct primitives (one execution each): a workbook of that many rows.
std::string DistinctRows(int rows) {
  std::string log;
  for (int i = 1; i <= rows; ++i) {
    log +=
        "onednn_verbose,exec,cpu,eltwise,jit:avx2,forward_training,data_f32::blocked:a::f0 "
        "diff_undef::undef:::,,alg:eltwise_relu alpha:0 beta:0," +
        std::to_string(i) + ",0.01\n";
  }
  return log;
}

// SIGTERM while the workbook is being made: its temporary file in TMPDIR is removed.
TEST_F(OutputFilesTest, SigtermDuringAWorkbookLeavesNoTemporaryFile) {
  const std::string log = Write("big.log", DistinctRows(200'000));
  const std::filesystem::path tmpdir = dir_ / "tmp";
  std::filesystem::create_directory(tmpdir);
  // Standard output is a pipe this test does not read: once the workbook is packed, dlcheck
  // blocks copying it out of its temporary file, so the signal lands while that file exists
  // (with /dev/null the copy could end first on a loaded machine, and the run end normally).
  int out[2];
  ASSERT_EQ(pipe(out), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    const int null_fd = open("/dev/null", O_WRONLY);
    dup2(out[1], STDOUT_FILENO);
    dup2(null_fd, STDERR_FILENO);
    close(out[0]);
    setenv("TMPDIR", tmpdir.c_str(), 1);
    execl(DLCHECK_BINARY, DLCHECK_BINARY, "parse", "--format", "xlsx", log.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  // Signalled once the copy has begun: the pipe holds the workbook's first bytes.
  const auto end = Clock::now() + std::chrono::seconds(120);
  int queued = 0;
  while (queued == 0 && Clock::now() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ASSERT_EQ(ioctl(out[0], FIONREAD, &queued), 0);
  }
  ASSERT_GT(queued, 0) << "the workbook was never written";
  EXPECT_FALSE(Entries(tmpdir).empty()) << "the workbook's temporary file is gone before the end";
  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  close(out[0]);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM) << status;
  EXPECT_EQ(Entries(tmpdir), std::vector<std::string>{});
}

// No room for the workbook's temporary files (a file size limit, as a full TMPDIR): dlcheck's
// one line, and not libxlsxwriter's own `[ERROR] ... packager.c` before it.
TEST_F(OutputFilesTest, AWorkbookWithoutRoomShowsOnlyDlchecksLine) {
  const std::string log = testing::DataPath("verbose/torch_cnn_2.6.3.log");
  const std::filesystem::path tmpdir = dir_ / "tmp";
  std::filesystem::create_directory(tmpdir);
  testing::RunResult r;
  {
    const FileSizeLimit limit(2048);
    r = RunDlcheck({"parse", "--format", "xlsx", log}, {}, {"TMPDIR=" + tmpdir.string()});
  }
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError)) << r.err;
  EXPECT_EQ(r.err.rfind("dlcheck: ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.find("[ERROR]"), std::string::npos) << r.err;
  EXPECT_EQ(Entries(tmpdir), std::vector<std::string>{});
}

// For every report command, a command line that is read whole and then fails at run time (a
// missing or bad input, a value only the run can refuse), with the exit status of that failure.
struct FailingRun {
  std::vector<std::string> args;  ///< `-o FILE` is added
  std::vector<int> exit_codes;    ///< the failure's own status (profile: no perf, or no CMD)
};

std::map<std::string, FailingRun> FailingRuns(const std::filesystem::path& dir) {
  const std::string missing = (dir / "missing").string();
  const std::string garbage = (dir / "garbage.bin").string();
  std::ofstream(garbage, std::ios::binary) << "not a cpuid dump\n";
  const int input = ToInt(ExitCode::kInputError);
  return {
      {"verbose", {{"verbose", "--iters", "1", "--data", missing}, {input}}},
      {"parse", {{"parse", missing}, {input}}},
      {"run", {{"run", "--raw-log", missing + "/raw.log", "--", "true"}, {8}}},
      {"profile",
       {{"profile", "--", missing},
        {ToInt(ExitCode::kUnsupported), ToInt(ExitCode::kCommandNotFound)}}},
      {"platform", {{"platform", "--cpuid-dump", garbage}, {input}}},
      {"roofline", {{"roofline", "--from", missing}, {input}}},
      {"dispatch", {{"dispatch", "--repeat", "2"}, {ToInt(ExitCode::kUsage)}}},
      {"whatif", {{"whatif", missing}, {input}}},
      {"check", {{"check", "--config", missing}, {3}}},  // UNKNOWN
      {"diff", {{"diff", missing, missing}, {input}}},
      {"fleet", {{"fleet", missing}, {input}}},
      {"tune", {{"tune", "--", missing}, {127}}},  // not found: the shell's code
  };
}

TEST_F(OutputFilesTest, EveryCommandThatFailsLeavesAnExistingOutputFileByteForByte) {
  const std::map<std::string, FailingRun> runs = FailingRuns(dir_);
  const std::string old = std::string("the report of an earlier run\n") + '\0' + '\xff';
  for (const std::string& command : testing::ReportCommands()) {
    const auto run = runs.find(command);
    ASSERT_NE(run, runs.end()) << command << ": add a failing run of it here";
    const std::string report = Write("report.out", old);
    std::vector<std::string> args = run->second.args;
    args.insert(args.begin() + 1, {"-o", report});
    const auto r = RunDlcheck(args);
    EXPECT_NE(std::find(run->second.exit_codes.begin(), run->second.exit_codes.end(), r.exit_code),
              run->second.exit_codes.end())
        << command << " ended with " << r.exit_code << ": " << r.err;
    EXPECT_EQ(r.err.rfind("dlcheck: ", 0), 0u) << command << ": " << r.err;
    EXPECT_EQ(ReadFile(report), old) << command;
    // Nothing beside it: no temporary file left by the failure.
    std::vector<std::string> entries = Entries(dir_);
    std::sort(entries.begin(), entries.end());
    EXPECT_EQ(entries, (std::vector<std::string>{"garbage.bin", "report.out"})) << command;
  }
}

// For every report command, a command line that succeeds (or, for profile, fails for want of
// perf on this machine) and writes its report quickly.
std::map<std::string, std::vector<std::string>> SucceedingRuns(const std::filesystem::path& dir) {
  const std::string log = testing::DataPath("verbose/torch_cnn_2.6.3.log");
  const std::string dump = testing::DataPath("cpuid/intel-core-i7-4770-cpu.test");
  const std::filesystem::path fleet = dir / "fleet";
  std::filesystem::create_directory(fleet);
  std::ofstream(fleet / "node1.json")
      << RunDlcheck({"platform", "--cpuid-dump", dump, "-f", "json"}).out;
  return {
      {"verbose", {"verbose", "--model", "mlp", "--batch", "8", "--iters", "1", "--warmup", "0"}},
      {"parse", {"parse", log}},
      {"run", {"run", "--", "true"}},
      {"profile", {"profile", "--", "true"}},
      {"platform", {"platform", "--cpuid-dump", dump}},
      {"roofline", {"roofline", "--from", testing::DataPath("roofline/zen3_vm_2cpu.json")}},
      {"dispatch", {"dispatch", "--isa", "sse41", "--", "true"}},
      {"whatif", {"whatif", "--variants", "none", "--time", "0", "--top", "1", log}},
      {"check", {"check", "--emit", "slurm-features"}},
      {"diff", {"diff", log, log}},
      {"fleet", {"fleet", fleet.string()}},
      {"tune", {"tune", "--runs", "2", "--groups", "openmp", "--", "true"}},
  };
}

TEST_F(OutputFilesTest, EveryCommandReplacesASymlinkAndLeavesItsTarget) {
  const std::map<std::string, std::vector<std::string>> runs = SucceedingRuns(dir_);
  const std::string target = Write("target.txt", "the link's target\n");
  const std::string link = (dir_ / "report.out").string();
  for (const std::string& command : testing::ReportCommands()) {
    const auto run = runs.find(command);
    ASSERT_NE(run, runs.end()) << command << ": add a quick run of it here";
    std::filesystem::remove(link);
    std::filesystem::create_symlink(target, link);
    std::vector<std::string> args = run->second;
    args.insert(args.begin() + 1, {"-o", link});
    const auto r = RunDlcheck(args);
    EXPECT_EQ(ReadFile(target), "the link's target\n") << command;
    if (command == "profile" && (r.exit_code == ToInt(ExitCode::kUnsupported))) {
      // No perf here (or perf may not record): the link is left as it was.
      EXPECT_TRUE(std::filesystem::is_symlink(link)) << r.err;
      continue;
    }
    // check: OK, WARNING or CRITICAL; the others: 0.
    EXPECT_LE(r.exit_code, command == "check" ? 2 : 0) << command << ": " << r.err;
    EXPECT_FALSE(std::filesystem::is_symlink(link)) << command;
    EXPECT_TRUE(std::filesystem::is_regular_file(link)) << command;
    EXPECT_FALSE(ReadFile(link).empty()) << command;
    EXPECT_EQ(r.out, "") << command;
  }
}

}  // namespace
}  // namespace dlcheck
