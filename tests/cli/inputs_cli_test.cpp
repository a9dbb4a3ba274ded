// SPDX-License-Identifier: Apache-2.0
// Hostile and unlucky inputs end to end (issue 20), through the built binary: inputs that are not
// files, depth and size bombs, names that would inject lines into generated configuration,
// numbers at the edges and damaged data. Each ends in a documented status and one `dlcheck:` line,
// or succeeds; none crashes, hangs or is read as something it is not.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "common/exit_code.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

namespace dlcheck {
namespace {

using testing::DataPath;
using testing::RunDlcheck;

constexpr int kUsage = 2;
constexpr int kInput = 3;

// One verbose line per distinct reorder shape: `rows` rows, each a primitive of its own.
std::string DistinctRowsLog(int rows) {
  std::string log;
  for (int i = 0; i < rows; ++i) {
    log +=
        "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:abcd:f0 "
        "dst_f32:p:blocked:Acdb16a:f0,,," +
        std::to_string(i + 1) + "x1x5x5,0.5\n";
  }
  return log;
}

std::size_t LineCount(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class InputsCliTest : public testing::ScratchDirTest {
 protected:
  // A FIFO in the scratch directory, fed `text` by a thread once a reader opens it.
  std::string Fifo(const std::string& name, const std::string& text) {
    const std::string path = (dir_ / name).string();
    EXPECT_EQ(mkfifo(path.c_str(), 0600), 0);
    writers_.emplace_back([path, text] { std::ofstream(path, std::ios::binary) << text; });
    return path;
  }
  void TearDown() override {
    for (auto& w : writers_) w.join();
    ScratchDirTest::TearDown();
  }
  std::vector<std::thread> writers_;
};

// --- inputs that are not files -------------------------------------------------------------------

// `diff <(zcat a.gz) <(zcat b.gz)`: each input is opened once, so the first bytes a format sniff
// read are not lost (50 of 2,000 rows per side were).
TEST_F(InputsCliTest, DiffOfTwoPipesKeepsEveryRow) {
  const std::string log = DistinctRowsLog(2000);
  const std::string file = Write("a.log", log);
  const auto from_files = RunDlcheck({"diff", "--format", "csv", file, file});
  ASSERT_EQ(from_files.exit_code, 0) << from_files.err;
  EXPECT_EQ(LineCount(from_files.out), 2001u);
  const auto from_pipes = RunDlcheck({"diff", "--format", "csv", Fifo("a", log), Fifo("b", log)});
  ASSERT_EQ(from_pipes.exit_code, 0) << from_pipes.err;
  EXPECT_EQ(from_pipes.out, from_files.out);
}

// The same class: a JSON report through a pipe is told apart by its first byte and read whole.
TEST_F(InputsCliTest, DiffOfAReportThroughAPipeReadsTheWholeReport) {
  const auto report =
      RunDlcheck({"parse", "--format", "json", Write("a.log", DistinctRowsLog(300))});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const std::string file = Write("a.json", report.out);
  const auto from_file = RunDlcheck({"diff", "--format", "csv", file, file});
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_EQ(LineCount(from_file.out), 301u);
  const auto from_pipe = RunDlcheck({"diff", "--format", "csv", Fifo("r", report.out), file});
  ASSERT_EQ(from_pipe.exit_code, 0) << from_pipe.err;
  EXPECT_EQ(from_pipe.out, from_file.out);
}

// A FIFO found by listing a directory is never opened (it would block for ever): skipped and said.
TEST_F(InputsCliTest, FleetSkipsAFifoInADirectoryWithoutOpeningIt) {
  const auto platform = RunDlcheck(
      {"platform", "--cpuid-dump", DataPath("cpuid/intel-core-i7-4770-cpu.test"), "-f", "json"});
  ASSERT_EQ(platform.exit_code, 0) << platform.err;
  Write("node1.json", platform.out);
  ASSERT_EQ(mkfifo((dir_ / "x.json").c_str(), 0600), 0);
  const auto r = RunDlcheck({"fleet", "-f", "json", dir_.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["skipped"].size(), 1u) << r.out;
  EXPECT_EQ(j["skipped"][0]["file"], (dir_ / "x.json").string());
  EXPECT_EQ(j["skipped"][0]["reason"],
            "not a regular file (a FIFO, device, socket or dangling link found in the directory; "
            "not opened)");
  EXPECT_EQ(j["groups"].size(), 1u);
}

// `check --config DIR` was ignored (OK with no requirement); /dev/zero was read without end.
TEST_F(InputsCliTest, CheckConfigThatIsNotAFileIsUnknown) {
  const auto dir = RunDlcheck({"check", "--config", dir_.string()});
  EXPECT_EQ(dir.exit_code, 3) << dir.out;  // UNKNOWN: the check did not run
  EXPECT_EQ(dir.err,
            "dlcheck: cannot read --config file '" + dir_.string() + "': it is a directory\n");
  const auto zero = RunDlcheck({"check", "--config", "/dev/zero"});
  EXPECT_EQ(zero.exit_code, 3);
  EXPECT_EQ(zero.err,
            "dlcheck: cannot read --config file '/dev/zero': it is a character device, not a "
            "regular file or a pipe\n");
}

// `parse <&-`: a closed standard input is not an empty log.
TEST_F(InputsCliTest, ParseOfAClosedStandardInputIsAnInputError) {
  const std::string err = (dir_ / "err").string();
  const std::string command =
      std::string("exec ") + DLCHECK_BINARY + " parse - <&- >/dev/null 2>" + err;
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), kInput);
  std::ifstream in(err);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line,
            "dlcheck: cannot read standard input: it is a character device (closed, or "
            "/dev/null?), not a log; give a file, or pipe the log in");
  // A device named as a file is refused the same way, before any output.
  const auto r = RunDlcheck({"parse", "/dev/zero"});
  EXPECT_EQ(r.exit_code, kInput);
  EXPECT_EQ(r.out, "");
}

// --- depth and size bombs ------------------------------------------------------------------------

// 300 KB of JSON nested 50,000 deep made `diff` die of a stack overflow; `fleet` too.
TEST_F(InputsCliTest, DeeplyNestedJsonIsRefusedNotRecursedInto) {
  std::string deep;
  for (int i = 0; i < 50000; ++i) deep += "{\"a\":[";
  deep += std::string(50000, ']');
  const std::string path = Write("deep.json", deep);
  const auto diff = RunDlcheck({"diff", path, path});
  EXPECT_EQ(diff.exit_code, kInput);
  EXPECT_EQ(diff.err, "dlcheck: report '" + path +
                          "' nests JSON more than 64 deep, the most dlcheck reads\n");
  const auto fleet = RunDlcheck({"fleet", "-f", "json", path});
  EXPECT_EQ(fleet.exit_code, kInput);  // no usable report
  const nlohmann::json j = nlohmann::json::parse(fleet.out);
  EXPECT_EQ(j["skipped"][0]["reason"],
            "report '" + path + "' nests JSON more than 32 deep, the most dlcheck reads");
}

// Under fleet's 4 MiB, a report of a million empty arrays would still take ~100 MB once parsed:
// a report holds a few hundred values, so more than 50,000 is refused before parsing.
TEST_F(InputsCliTest, FleetRefusesAReportWithFarMoreValuesThanAReport) {
  std::string wide = "[";
  for (int i = 0; i < 1000000; ++i) wide += i == 0 ? "[]" : ",[]";
  wide += "]";
  const std::string path = Write("wide.json", wide);
  const auto r = RunDlcheck({"fleet", "-f", "json", path});
  EXPECT_EQ(r.exit_code, kInput);
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["skipped"][0]["reason"],
            "report '" + path + "' holds more than 50000 JSON values, the most dlcheck reads");
}

// --- injection into generated configuration ------------------------------------------------------

TEST_F(InputsCliTest, ANodeNameWithANewlineNeverReachesSlurmConf) {
  const auto r = RunDlcheck({"check", "--emit", "slurm-conf"}, "",
                            {"SLURMD_NODENAME=n1\nNodeName=evil Features=x"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "dlcheck: SLURMD_NODENAME 'n1?NodeName=evil Features=x' is not a valid node name (1 "
            "to 64 letters, digits, '-', '_' or '.'); it would enter generated configuration\n");
  // The same rule for --node-name, and for a space (slurm.conf's separator) as for a newline.
  const auto option =
      RunDlcheck({"check", "--emit", "slurm-conf", "--node-name", "n1 Features=all"});
  EXPECT_EQ(option.exit_code, 3);
  EXPECT_EQ(option.out, "");
  EXPECT_NE(option.err.find("dlcheck: --node-name 'n1 Features=all' is not a valid node name"),
            std::string::npos)
      << option.err;
}

// --- numbers at the edges ------------------------------------------------------------------------

TEST_F(InputsCliTest, DurationsBeyondThirtyDaysAndNonFiniteNumbersAreUsageErrors) {
  // verbose and dispatch: VerboseCliTest.ATimeoutThatIsNotAFiniteNumberAboveZeroIsAShortUsageError
  for (const char* command : {"profile"}) {
    for (const char* value : {"1e10", "inf", "nan", "0"}) {
      const auto r = RunDlcheck({command, "--timeout", value});
      EXPECT_EQ(r.exit_code, kUsage) << command << " " << value << ": " << r.err;
      EXPECT_EQ(r.err, "dlcheck: " + std::string(command) + ": --timeout: '" + value +
                           "' is not a number of seconds above 0 and at most 2592000 (30 days) "
                           "(see 'dlcheck " +
                           command + " --help')\n");
    }
  }
  // The model's --time budget is a duration too: the same rule and message.
  for (const char* value : {"1e10", "nan", "0"}) {
    const auto r = RunDlcheck({"verbose", "--time", value});
    EXPECT_EQ(r.exit_code, kUsage) << value << ": " << r.err;
    EXPECT_NE(r.err.find("--time: '" + std::string(value) + "' is not a number of seconds above 0"),
              std::string::npos)
        << r.err;
  }
  const auto check = RunDlcheck({"check", "--timeout", "1e10"});
  EXPECT_EQ(check.exit_code, 3);  // a check's bad command line is UNKNOWN
  for (const char* value : {"nan", "inf", "-1"}) {
    const auto diff = RunDlcheck({"diff", "--threshold", value, "a", "b"});
    EXPECT_EQ(diff.exit_code, kUsage) << value;
    EXPECT_EQ(diff.err, "dlcheck: diff: --threshold: '" + std::string(value) +
                            "' is not a number from 0 to 1000 (see 'dlcheck diff --help')\n");
  }
  const auto share = RunDlcheck({"diff", "--min-share", "nan", "a", "b"});
  EXPECT_EQ(share.exit_code, kUsage);
}

// OMP_NUM_THREADS=100000 killed check's worker; it is capped to the CPUs dlcheck may use, as
// `verbose` caps it, and the check runs its model.
TEST_F(InputsCliTest, AHugeOmpNumThreadsIsCappedForTheChecksWorker) {
  const auto r = RunDlcheck({"check", "--format", "json"}, "", {"OMP_NUM_THREADS=100000"});
  ASSERT_LE(r.exit_code, 2) << r.err;  // OK, WARNING or CRITICAL: never UNKNOWN
  const nlohmann::json j = nlohmann::json::parse(r.out);
  bool model_ran = false;
  for (const auto& item : j["checks"]) {
    if (item["check"] == "model run") model_ran = item["status"] == "OK";
  }
  EXPECT_TRUE(model_ran) << r.out;
}

// --- damaged data --------------------------------------------------------------------------------

// A .gz whose CRC is wrong was trained on; now `verbose --data` refuses it (an input error).
TEST_F(InputsCliTest, VerboseDataWithABadGzipCrcIsRefused) {
  std::ifstream in(DataPath("mnist/t10k-images-idx3-ubyte.gz"), std::ios::binary);
  std::string gz((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(gz.size(), 8u);
  gz[gz.size() - 8] = static_cast<char>(gz[gz.size() - 8] ^ 0x01);  // the CRC32's first byte
  for (const char* set : {"train", "t10k"}) {
    Write(std::string(set) + "-images-idx3-ubyte.gz", gz);
    std::ifstream labels(DataPath("mnist/t10k-labels-idx1-ubyte.gz"), std::ios::binary);
    Write(std::string(set) + "-labels-idx1-ubyte.gz",
          std::string((std::istreambuf_iterator<char>(labels)), std::istreambuf_iterator<char>()));
  }
  const auto r = RunDlcheck({"verbose", "--data", dir_.string(), "--iters", "1"});
  EXPECT_EQ(r.exit_code, kInput) << r.err;
  EXPECT_NE(r.err.find("train-images-idx3-ubyte.gz: corrupt gzip data (incorrect data check)"),
            std::string::npos)
      << r.err;
}

// A crafted CPUID dump in `cpuid -r` format with six leaf-4 cache subleaves replays.
TEST_F(InputsCliTest, ACpuidDumpWithSixCacheSubleavesReplays) {
  std::string dump =
      "CPU 0:\n"
      "   0x00000000 0x00: eax=0x0000001b ebx=0x756e6547 ecx=0x6c65746e edx=0x49656e69\n"
      "   0x00000001 0x00: eax=0x000806c1 ebx=0x00100800 ecx=0x7ffafbbf edx=0xbfebfbff\n";
  for (int i = 0; i < 6; ++i) {
    char line[100];
    std::snprintf(line, sizeof line,
                  "   0x00000004 0x%02x: eax=0x1c03c163 ebx=0x02c0003f ecx=0x00003fff "
                  "edx=0x00000004\n",
                  i);
    dump += line;
  }
  const auto r = RunDlcheck({"platform", "--cpuid-dump", Write("six.txt", dump), "-f", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  bool said = false;
  for (const auto& f : j["findings"]) said = said || f["code"] == "libcpuid-subleaves-left-out";
  EXPECT_TRUE(said) << r.out;
  // A negative CPU number is refused with its line.
  const auto negative =
      RunDlcheck({"platform", "--cpuid-dump",
                  Write("neg.txt", "CPU -1:\n" + dump.substr(dump.find('\n') + 1))});
  EXPECT_EQ(negative.exit_code, kInput);
  EXPECT_NE(negative.err.find(":1: not a CPUID dump header: 'CPU -1:'"), std::string::npos)
      << negative.err;
}

}  // namespace
}  // namespace dlcheck
