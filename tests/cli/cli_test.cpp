// SPDX-License-Identifier: Apache-2.0
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "common/exit_code.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

namespace dlcheck {
namespace {

using testing::RunDlcheck;

TEST(CliTest, VersionNamesEveryLibrary) {
  const auto r = RunDlcheck({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("dlcheck ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\noneDNN 2."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nlibcpuid 0."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nhwloc 2."), std::string::npos) << r.out;
}

TEST(CliTest, HelpListsSubcommands) {
  const auto r = RunDlcheck({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("platform"), std::string::npos) << r.out;
}

// The commands `dlcheck --help` shows under Subcommands (`  parse   the per-primitive ...`).
std::vector<std::string> HelpSubcommands() {
  const std::string help = RunDlcheck({"--help"}).out;
  std::istringstream in(help.substr(help.find("Subcommands:")));
  static const std::regex row(R"(^  ([a-z]+)\s)");
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, row)) names.push_back(m[1]);
  }
  return names;
}

// `help --list` is the command table's report commands: every command --help shows but `help`,
// in the same order, and no hidden one.
TEST(CliTest, HelpListIsEveryReportCommandOfHelp) {
  const std::vector<std::string> listed = testing::ReportCommands();
  std::vector<std::string> shown = HelpSubcommands();
  ASSERT_FALSE(shown.empty());
  EXPECT_EQ(shown.back(), "help");
  shown.pop_back();
  EXPECT_EQ(listed, shown);
  for (const std::string hidden : {"worker", "schema"}) {
    EXPECT_EQ(std::count(listed.begin(), listed.end(), hidden), 0) << hidden;
  }
}

TEST(CliTest, NoSubcommandIsAUsageError) {
  const auto r = RunDlcheck({});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err.rfind("dlcheck: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err,
            "dlcheck: no command given: name one of verbose, parse, run, profile, platform, "
            "roofline, dispatch, whatif, tune, check, diff, fleet, help (see 'dlcheck --help')\n");
  EXPECT_TRUE(r.out.empty());
}

TEST(CliTest, AMistypedTopLevelOptionIsNamedWithASuggestion) {
  const auto r = RunDlcheck({"--verison"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err,
            "dlcheck: unknown option '--verison'; did you mean '--version'? (see 'dlcheck "
            "--help')\n");
}

// `dlcheck help COMMAND` shows the command's man page as `man` does (ManPageTest below holds the
// text to the man reader's); without a command it prints --help, and a typo is named.
// The text of a formatted man page: mandoc (where man-db is not installed) writes bold and
// underlined words as overstrikes ("d\bdl\bl"), man-db's man strips them into a pipe.
std::string WithoutOverstrikes(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\b') {
      if (!out.empty()) out.pop_back();
    } else {
      out.push_back(c);
    }
  }
  return out;
}

TEST(CliTest, HelpCommandShowsACommandsPage) {
  const auto r = RunDlcheck({"help", "diff"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string page = WithoutOverstrikes(r.out);
  EXPECT_NE(page.find("dlcheck-diff"), std::string::npos) << page;
  EXPECT_NE(page.find("EXIT STATUS"), std::string::npos) << page;
  const auto top = RunDlcheck({"help"});
  EXPECT_EQ(top.exit_code, 0);
  EXPECT_EQ(top.out, RunDlcheck({"--help"}).out);
  const auto typo = RunDlcheck({"help", "parze"});
  EXPECT_EQ(typo.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(typo.err,
            "dlcheck: help: unknown command 'parze'; did you mean 'parse'? (see 'dlcheck "
            "--help')\n");
}

// With no man reader on PATH (and so no `man -w` either), `help COMMAND` says so in one line and
// prints the command's options, as `COMMAND --help` does.
TEST(CliTest, HelpCommandWithoutAManReaderPrintsTheOptions) {
  const auto r = RunDlcheck({"help", "diff"}, {}, {"PATH=/nonexistent"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, RunDlcheck({"diff", "--help"}).out);
  EXPECT_EQ(r.err,
            "dlcheck: help: no manual page dlcheck-diff(1) found (next to this dlcheck, or by "
            "man), or no man or mandoc showed it within 10 s; the options of 'dlcheck diff "
            "--help' follow\n");
}

// Issue 51: `dlcheck help` waited for ever on a `man` that hangs. The reader renders the page
// within 10 s or is passed over (its process group killed), and the options follow.
TEST(CliTest, HelpCommandWithAManThatHangsPrintsTheOptionsWithin10s) {
  const std::string dir =
      ::testing::TempDir() + "dlcheck_help_hanging_man_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  const auto script = [&](const std::string& name, const std::string& body) {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  };
  script("man", "exec /bin/sleep 600");
  script("mandoc", "exit 1");
  const auto start = std::chrono::steady_clock::now();
  const auto r = RunDlcheck({"help", "diff"}, {}, {"PATH=" + dir});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(seconds, 9.5);
  EXPECT_LT(seconds, 30);
  EXPECT_EQ(r.out, RunDlcheck({"diff", "--help"}).out);
  EXPECT_NE(r.err.find("or no man or mandoc showed it within 10 s"), std::string::npos) << r.err;
}

// Issue 51: a command name with a terminal escape (ESC, a C1 CSI, a bidi override) was echoed
// raw by `help`. Every message goes through the one sanitizer (report::SafeMessage).
TEST(CliTest, HelpDoesNotEchoTerminalEscapes) {
  const auto r = RunDlcheck({"help",
                             "\x1b]0;owned\x07\x1b[2Jrun\xc2\x9b"
                             "31m\xe2\x80\xae\x9b"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x07'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\xc2\x9b"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("\xe2\x80\xae"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\x9b'), std::string::npos) << r.err;
  EXPECT_EQ(r.err.rfind("dlcheck: help: unknown command '?]0;owned??[2Jrun??31m", 0), 0u) << r.err;
}

TEST(CliTest, OutputGoesToTheFileOfDashO) {
  const std::string path = ::testing::TempDir() + "/dlcheck-dash-o.csv";
  const auto r = RunDlcheck(
      {"parse", "-f", "csv", "-o", path, testing::DataPath("verbose/torch_cnn_2.6.3.log")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  std::ifstream in(path);
  std::string header;
  std::getline(in, header);
  EXPECT_EQ(header.rfind("engine,primitive,", 0), 0u) << header;
  std::remove(path.c_str());
  const auto bad = RunDlcheck({"diff", "-o", "/nonexistent-dir/x", "a", "b"});
  EXPECT_EQ(bad.exit_code, ToInt(ExitCode::kOutputError));
  EXPECT_EQ(bad.err, "dlcheck: cannot write '/nonexistent-dir/x': No such file or directory\n");
}

TEST(CliTest, CsvRawLeavesFormulaLikeTextAsItIs) {
  const std::string log =
      "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
      "dst_f32::blocked:ab:f0,,,=1+2,0.5\n";
  const auto guarded = RunDlcheck({"parse", "-f", "csv", "--columns", "problem", "-"}, log);
  EXPECT_EQ(guarded.out, "problem\r\n'=1+2\r\n");
  const auto raw =
      RunDlcheck({"parse", "-f", "csv", "--csv-raw", "--csv-lf", "--columns", "problem", "-"}, log);
  EXPECT_EQ(raw.out, "problem\n=1+2\n");
}

TEST(CliTest, AMistypedCommandIsNamedWithASuggestion) {
  const auto r = RunDlcheck({"parze", "log.txt"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err,
            "dlcheck: unknown command 'parze'; did you mean 'parse'? (see 'dlcheck --help')\n");
  const auto far = RunDlcheck({"xyzzy"});
  EXPECT_EQ(far.err, "dlcheck: unknown command 'xyzzy' (see 'dlcheck --help')\n");
  // Asking for the help of a command that does not exist is the same mistake, not the top help.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"nosuch", "--help"}, {"--help", "parze"}, {"parze", "-h"}}) {
    const auto help = RunDlcheck(args);
    EXPECT_EQ(help.exit_code, ToInt(ExitCode::kUsage)) << args[0];
    EXPECT_TRUE(help.out.empty()) << help.out;
    EXPECT_EQ(help.err.rfind("dlcheck: unknown command '", 0), 0u) << help.err;
  }
  EXPECT_EQ(RunDlcheck({"parse", "--help"}).exit_code, 0);
}

TEST(CliTest, AMistypedOptionIsNamedWithASuggestionAndTheCommandsHelp) {
  const auto r = RunDlcheck({"parse", "--fromat", "csv", "-"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err,
            "dlcheck: parse: unknown option '--fromat'; did you mean '--format'? (see 'dlcheck "
            "parse --help')\n");
  EXPECT_TRUE(r.out.empty());
}

TEST(CliTest, OutOfRangeValuesGiveOneShortLine) {
  const auto r = RunDlcheck({"parse", "--top", "-1"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err, "dlcheck: parse: --top: -1 must be 0 or more (see 'dlcheck parse --help')\n");
  const auto sockets = RunDlcheck({"check", "--min-sockets", "0"});
  EXPECT_EQ(sockets.exit_code, 3);  // check: UNKNOWN
  EXPECT_EQ(sockets.err,
            "dlcheck: check: --min-sockets: 0 must be from 1 to 4096 (see 'dlcheck check "
            "--help')\n");
}

TEST(CliTest, SortTakesNamesOnlyAndHelpListsThem) {
  const auto help = RunDlcheck({"parse", "--help"});
  EXPECT_NE(help.out.find("--sort KEY"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("time (default), execs, creates, name"), std::string::npos);
  EXPECT_EQ(help.out.find("ENUM"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("->"), std::string::npos) << help.out;
  const auto number = RunDlcheck({"parse", "--sort", "3", "-"});
  EXPECT_EQ(number.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(number.err,
            "dlcheck: parse: --sort: 3 not in {time,execs,creates,name} (see 'dlcheck parse "
            "--help')\n");
}

TEST(CliTest, AnUnknownColumnIsAUsageErrorThatListsTheValidOnes) {
  const auto r = RunDlcheck({"parse", "--columns", "primitive,bogus", "-"}, "x\n");
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err.rfind("dlcheck: parse: --columns: unknown column 'bogus'; the primitives table "
                        "has: engine,primitive,implementation,",
                        0),
            0u)
      << r.err;
  // Checked before the log is read, against the columns parse's document declares (layer and
  // file included: a table of several logs has them).
  EXPECT_NE(
      r.err.find(",gflops,benchdnn,skipped,library,layer,file (see 'dlcheck parse --help')\n"),
      std::string::npos)
      << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(CliTest, EveryCommandHasFormatWithTable) {
  const std::vector<std::string> commands = testing::ReportCommands();
  ASSERT_FALSE(commands.empty());
  for (const std::string& command : commands) {
    const auto help = RunDlcheck({command, "--help"});
    EXPECT_NE(help.out.find("-f,--format FORMAT"), std::string::npos) << command << help.out;
    EXPECT_NE(help.out.find("--columns LIST"), std::string::npos) << command << help.out;
  }
}

TEST(CliTest, UnknownOptionIsAUsageError) {
  const auto r = RunDlcheck({"platform", "--no-such-option"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_NE(r.err.find("--no-such-option"), std::string::npos) << r.err;
}

TEST(CliTest, UnknownFormatIsAUsageError) {
  const auto r = RunDlcheck({"platform", "--format", "xml"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_NE(r.err.find("xml"), std::string::npos) << r.err;
}

TEST(CliTest, FormatNamesIgnoreCase) {
  const auto r = RunDlcheck({"platform", "--format", "JSON"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{", 0), 0u) << r.out.substr(0, 100);
}

TEST(CliTest, UnknownFormatSaysWhatIsAllowed) {
  const auto r = RunDlcheck({"platform", "--format", "xml"});
  EXPECT_EQ(
      r.err,
      "dlcheck: platform: --format: xml not in {table,csv,json,xlsx,html} (see 'dlcheck platform "
      "--help')\n");
}

TEST(CliTest, TraceFormatIsOnlyForCommandsWithATimeline) {
  const auto r = RunDlcheck({"platform", "--format", "trace"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_NE(r.err.find("trace"), std::string::npos) << r.err;
}

// Runs `command` with /bin/sh; its stderr and exit status (128 + N for signal N).
struct ShellResult {
  int exit_code = -1;
  std::string err;
};

ShellResult Shell(const std::string& command) {
  const std::string err_file = ::testing::TempDir() + "dlcheck_cli_err_" + std::to_string(getpid());
  const int status = std::system((command + " 2>" + err_file).c_str());
  ShellResult r;
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.err = testing::ReadFile(err_file);
  std::remove(err_file.c_str());
  return r;
}

// Commands that finish in a moment, in every format they have.
std::vector<std::string> QuickCommands() {
  const std::string log = testing::DataPath("verbose/torch_cnn_2.6.3.log");
  const std::string dump = testing::DataPath("platform/unknown-cpu.test");
  std::vector<std::string> commands;
  for (const std::string format : {"table", "csv", "json"}) {
    commands.push_back("parse " + log + " --format " + format);
    commands.push_back("parse --events " + log + " --format " + format);
    commands.push_back("platform --cpuid-dump " + dump + " --format " + format);
    commands.push_back("run --format " + format + " -- true");
  }
  commands.push_back("run --format trace -- true");
  return commands;
}

// stderr ends with the one write error line (a notice such as parse's skipped lines may come
// before it).
bool EndsWithOneWriteError(const std::string& err, const std::string& reason) {
  const std::string line = "dlcheck: write error: " + reason + " (standard output)\n";
  return err.size() >= line.size() &&
         err.compare(err.size() - line.size(), line.size(), line) == 0 &&
         err.find("write error") == err.size() - line.size() + std::string("dlcheck: ").size();
}

TEST(WriteErrorTest, AFullDiskIsAWriteErrorForEveryCommandAndFormat) {
  ASSERT_EQ(access("/dev/full", W_OK), 0) << "Linux has /dev/full";
  for (const std::string& command : QuickCommands()) {
    const auto r = Shell(std::string(DLCHECK_BINARY) + " " + command + " >/dev/full");
    EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError)) << command << ": " << r.err;
    EXPECT_TRUE(EndsWithOneWriteError(r.err, "No space left on device")) << command << r.err;
  }
}

TEST(WriteErrorTest, AClosedStdoutIsAWriteError) {
  for (const std::string& command : QuickCommands()) {
    const auto r = Shell(std::string(DLCHECK_BINARY) + " " + command + " >&-");
    EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError)) << command << ": " << r.err;
    EXPECT_TRUE(EndsWithOneWriteError(r.err, "Bad file descriptor")) << command << r.err;
  }
}

// A workbook is made in temporary files (TMPDIR): when they cannot be made, the error names the
// directory and the remedy, exit 8, never an "internal error".
TEST(WriteErrorTest, AWorkbookWithoutRoomForItsTemporaryFilesIsAWriteError) {
  const std::string log = testing::DataPath("verbose/torch_cnn_2.6.3.log");
  const auto r = Shell("TMPDIR=/nonexistent/dlcheck " + std::string(DLCHECK_BINARY) +
                       " parse --format xlsx " + log + " >/dev/null");
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError)) << r.err;
  EXPECT_EQ(r.err,
            "dlcheck: cannot create a temporary file for the workbook in /nonexistent/dlcheck: No "
            "such file or directory; set TMPDIR to a writable directory with room\n");
}

TEST(WriteErrorTest, CheckReportsALostReportAsUnknown) {
  const auto r = Shell(std::string(DLCHECK_BINARY) + " check --no-such-option >/dev/full");
  EXPECT_EQ(r.exit_code, 3) << r.err;  // the usage error's own code, and nothing written
  EXPECT_EQ(r.err.find("write error"), std::string::npos) << r.err;
}

TEST(WriteErrorTest, AReaderThatWentAwayIsNotAnError) {
  // 200,000 events: far more than a pipe holds, so dlcheck writes after head has gone.
  const std::string line =
      "onednn_verbose,exec,cpu,eltwise,jit:avx2,forward_training,data_f32::blocked:a::f0 "
      "diff_undef::undef:::,,alg:eltwise_relu alpha:0 beta:0,100,0.01";
  const auto r = Shell("yes '" + line + "' | head -n 200000 | " + DLCHECK_BINARY +
                       " parse --events --format csv | head -n 1 >/dev/null");
  EXPECT_EQ(r.exit_code, 0);  // head's status
  EXPECT_EQ(r.err, "");
}

// The address space (bytes) of a started `dlcheck parse --format FORMAT -` once it waits for its
// first line: the binary and its libraries mapped (with the one the format loads: libxlsxwriter
// for xlsx), the command line parsed.
std::size_t StartedAddressSpace(const char* format) {
  int in[2];
  if (pipe(in) != 0) return 0;
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    close(in[0]);
    close(in[1]);
    execl(DLCHECK_BINARY, DLCHECK_BINARY, "parse", "--format", format, "-",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  const std::string proc = "/proc/" + std::to_string(pid);
  std::size_t kib = 0;
  for (int tries = 0; tries < 500 && kib == 0; ++tries) {
    // /proc/PID/syscall starts "0 0x0 " while it blocks in read(0, ...).
    std::ifstream syscall(proc + "/syscall");
    std::string number, fd;
    syscall >> number >> fd;
    if (number == "0" && fd == "0x0") {
      std::ifstream status(proc + "/status");
      for (std::string line; std::getline(status, line);) {
        if (line.rfind("VmSize:", 0) == 0) kib = std::stoul(line.substr(7));
      }
    } else {
      usleep(10000);
    }
  }
  close(in[1]);
  int ignored = 0;
  waitpid(pid, &ignored, 0);
  return kib * 1024;
}

// Tests that run dlcheck under an address-space limit (`prlimit --as`) set relative to what a
// started dlcheck holds.
class AddressSpaceLimitTest : public testing::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer reserves terabytes of shadow address space, which an "
                    "address-space limit refuses at start-up; the Release build runs this test";
#endif
  }
  // `prlimit --as=N ` for N `extra_mib` MiB above the address space of a dlcheck started with
  // `--format format`.
  static std::string PrlimitAbove(std::size_t extra_mib, const char* format = "table") {
    const std::size_t started = StartedAddressSpace(format);
    EXPECT_GT(started, 0u) << "could not see dlcheck waiting for input";
    return "prlimit --as=" + std::to_string(started + (extra_mib << 20)) + " ";
  }
};

class OutOfMemoryTest : public AddressSpaceLimitTest {};

TEST_F(OutOfMemoryTest, MemoryExhaustionIsExitSevenWithAMessage) {
  // 4 MiB more than a started dlcheck holds, for a log of 300,000 distinct shapes: every reader
  // and every row needs more than that, however well they are bounded.
  const std::string prlimit = PrlimitAbove(4);
  const std::string generate =
      "awk 'BEGIN { for (i = 1; i <= 300000; i++) printf "
      "\"onednn_verbose,exec,cpu,eltwise,jit:avx2,forward_training,data_f32::blocked:a::f0 "
      "diff_undef::undef:::,,alg:eltwise_relu alpha:0 beta:0,%d,0.01\\n\", i }'";
  const auto r =
      Shell(generate + " | " + prlimit + DLCHECK_BINARY + " parse --format csv >/dev/null");
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUnsupported)) << r.err;
  EXPECT_EQ(r.err.rfind("dlcheck: out of memory: ", 0), 0u) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
}

// A model worker (`verbose`, `dispatch`) that runs out of memory under a real address-space
// limit: the parent ends with 7 and says so once, in its own words, never as a worker failure.
// The limit applies to dlcheck and, inherited, to its worker; the parent stays far below it.
class WorkerOutOfMemoryTest : public AddressSpaceLimitTest {
 protected:
  // An MNIST-format directory of 200,000 blank training images (gzip keeps it under 1 MB): the
  // worker reads their 157 MB of bytes, then cannot have the 627 MB of floats they become.
  std::string WriteLargeDataSet() {
    const std::string dir = dir_.string();
    const auto idx = [&dir](const std::string& name, const std::string& header, long bytes) {
      return "{ printf '" + header + "'; head -c " + std::to_string(bytes) +
             " /dev/zero; } | gzip -1 >" + dir + "/" + name + ".gz";
    };
    // Big-endian headers: magic 0x803 (images) or 0x801 (labels), then the dimensions;
    // 200,000 is 0x00030d40 and 100 is 0x64.
    const std::string images = "\\000\\000\\010\\003", labels = "\\000\\000\\010\\001";
    const std::string side = "\\000\\000\\000\\034\\000\\000\\000\\034";  // 28 x 28
    const std::string many = "\\000\\003\\015\\100", few = "\\000\\000\\000\\144";
    const std::string script = idx("train-images-idx3-ubyte", images + many + side, 200000L * 784) +
                               " && " + idx("train-labels-idx1-ubyte", labels + many, 200000) +
                               " && " +
                               idx("t10k-images-idx3-ubyte", images + few + side, 100L * 784) +
                               " && " + idx("t10k-labels-idx1-ubyte", labels + few, 100);
    EXPECT_EQ(std::system(script.c_str()), 0) << script;
    return dir;
  }
  // `dlcheck ARGS` under an address-space limit `extra_mib` above a started dlcheck's.
  ShellResult UnderLimit(const std::string& args, std::size_t extra_mib) {
    return Shell(PrlimitAbove(extra_mib) + DLCHECK_BINARY + " " + args + " >" +
                 (dir_ / "out").string());
  }
  std::string Out() const { return testing::ReadFile((dir_ / "out").string()); }
};

// The worker runs out while it loads --data (a std::bad_alloc in the worker, before its first
// phase): no report, one line, 7; the same for dispatch, which starts no second worker.
TEST_F(WorkerOutOfMemoryTest, DataThatDoesNotFitEndsWithSevenAndOneLine) {
  const std::string data = WriteLargeDataSet();
  const std::string message =
      "dlcheck: out of memory: the model worker did not fit in the memory it may use (in phase "
      "start-up); raise the limit (ulimit -v, the cgroup's memory.max) or use a smaller --batch, "
      "--layers or --data set\n";
  const std::string model = " --data " + data + " --iters 1 --warmup 0 --traced 1 --format json";
  for (const std::string command : {"verbose", "dispatch --isa sse41 --no-peak"}) {
    const auto r = UnderLimit(command + model, 320);
    EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUnsupported)) << command << r.err;
    EXPECT_EQ(r.err, message) << command;
    EXPECT_EQ(Out(), "") << command;
  }
  // Without the limit the same data set trains: the limit, not the data, stopped it.
  const auto r = Shell(std::string(DLCHECK_BINARY) + " verbose" + model + " >/dev/null");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// The model's weights do not fit (oneDNN or the scalar kernels cannot allocate them, in phase
// init): the report of what was done, with an `out-of-memory` finding and no `worker-failed`,
// then one line and 7.
TEST_F(WorkerOutOfMemoryTest, AModelThatDoesNotFitIsReportedOnceWithSeven) {
  // fc2 alone holds 16384 x 16384 floats (1 GiB), twice the room the limit leaves.
  const auto r = UnderLimit(
      "verbose --layers 16384,16384,10 --iters 1 --warmup 0 --traced 1 --threads 1 --format json",
      512);
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUnsupported)) << r.err;
  static const std::regex message(
      "dlcheck: out of memory: the model worker did not fit in the memory it may use \\(in phase "
      "init(, layer \\w+)?\\); raise the limit \\(ulimit -v, the cgroup's memory.max\\) or use a "
      "smaller --batch, --layers or --data set\n");
  EXPECT_TRUE(std::regex_match(r.err, message)) << r.err;
  const std::string out = Out();
  ASSERT_TRUE(nlohmann::json::accept(out)) << out;
  const nlohmann::json doc = nlohmann::json::parse(out);
  std::multiset<std::string> codes;
  for (const auto& f : doc["findings"]) {
    codes.insert(f["code"].get<std::string>());
  }
  EXPECT_EQ(codes.count("out-of-memory"), 1u) << out;
  EXPECT_EQ(codes.count("worker-failed"), 0u) << out;
}

// A log of any size and any number of shapes parses in bounded memory, in every format: 200,000
// distinct shapes (past kMaxRows, into the `other` row), 200 primitives whose attributes are
// 256 KB of text each (past the rows' text budget) and 200 diagnostics of 256 KB each (cut), all
// read under an address-space limit 48 MiB above a started dlcheck. Without those bounds the
// rows hold ~200 MB, the diagnostics ~80 MB: exit 7.
class BoundedMemoryTest : public AddressSpaceLimitTest {};

TEST_F(BoundedMemoryTest, AnyNumberOfShapesAndAnyLengthFitIn48MiB) {
  const std::string generate =
      "awk 'BEGIN { long = \"y\"; while (length(long) < 200000) long = long long;"
      " for (i = 1; i <= 200000; i++) printf "
      "\"onednn_verbose,v1,primitive,exec,cpu,convolution,jit:avx2,forward_training,"
      "src:f32::blocked:abcd::f0 dst:f32::blocked:abcd::f0,,alg:convolution_direct,"
      "mb2_ic16oc32_ih%doh%dkh3sh1dh0ph1_iw13ow13kw3sw1dw0pw1,0.08\\n\", i, i;"
      " for (i = 1; i <= 200; i++) printf "
      "\"onednn_verbose,v1,primitive,exec,cpu,eltwise,jit:avx2,forward_training,"
      "data:f32::blocked:a::f0,attr-post-ops:%d%s,alg:eltwise_relu alpha:0 beta:0,8,0.01\\n\","
      " i, long;"
      " for (i = 1; i <= 200; i++) printf "
      "\"onednn_verbose,v1,primitive,create:dispatch,convolution,cpu,x64:gemm,%d%s\\n\", i,"
      " long }'";
  const std::string json = (dir_ / "out.json").string();
  for (const std::string format : {"csv", "table", "xlsx", "json"}) {
    const auto r =
        Shell(generate + " | " + PrlimitAbove(48, format.c_str()) + DLCHECK_BINARY +
              " parse --format " + format + " - >" + (format == "json" ? json : "/dev/null"));
    EXPECT_EQ(r.exit_code, 0) << format << ": " << r.err;
  }
  std::ifstream in(json);
  const nlohmann::json doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  ASSERT_TRUE(doc.is_object());
  const auto& rows = doc["primitives"];
  ASSERT_GE(rows.size(), 2u);
  EXPECT_EQ(rows.size(), doc["summary"]["rows"].get<std::size_t>());
  EXPECT_LE(rows.size(), 50001u);
  std::uint64_t execs = 0;
  for (const auto& row : rows) execs += row["execs"].get<std::uint64_t>();
  EXPECT_EQ(execs, 200200u) << "every exec counted, in its row or in 'other'";
  bool other = false;
  for (const auto& row : rows) other = other || row["primitive"] == "other";
  EXPECT_TRUE(other);
  std::size_t longest_diagnostic = 0;
  for (const auto& d : doc["diagnostics"]) {
    longest_diagnostic = std::max(longest_diagnostic, d["message"].get<std::string>().size());
  }
  EXPECT_GT(longest_diagnostic, 0u);
  EXPECT_LE(longest_diagnostic, 1024u + 3u) << "diagnostics are cut at 1 KiB";
}

// A log line with a terminal escape and a byte that is not UTF-8 in its fields: no format
// passes either through raw.
TEST(SafeTextCliTest, HostileLogTextIsSafeInEveryFormat) {
  const std::string line =
      "onednn_verbose,exec,cpu,eltwise,jit:\x1b[2J\xff,forward_training,data_f32::blocked:a::f0 "
      "diff_undef::undef:::,,alg:eltwise_relu alpha:0 beta:0,100\x1b]0;owned\x07,0.01\n";
  for (const std::string format : {"table", "csv", "json"}) {
    const auto r = RunDlcheck({"parse", "--format", format, "-"}, line);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << format << ": " << r.out;
    EXPECT_EQ(r.out.find('\x07'), std::string::npos) << format;
    EXPECT_EQ(r.out.find('\xff'), std::string::npos) << format;
    if (format == "json") {
      EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
    } else {
      EXPECT_NE(r.out.find("[2J"), std::string::npos) << r.out;
    }
  }
}

// --help and the command's page man/dlcheck-COMMAND.1 describe the same options: each command's
// long options in --help are those of its page's SYNOPSIS lines (every line together), and each
// is described after the SYNOPSIS.
std::set<std::string> HelpOptions(const std::string& command) {
  const auto r = RunDlcheck({command, "--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  static const std::regex option_line(R"(^\s+(?:-\w,)?--([a-z0-9][a-z0-9-]*))");
  std::set<std::string> names;
  std::istringstream in(r.out);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, option_line) && m[1] != "help") names.insert(m[1]);
  }
  return names;
}

/// The source tree's man/ directory, and a page of it by name (`dlcheck-parse`).
std::string ManDir() {
  return testing::DataPath("../../man");
}
std::string ManPagePath(const std::string& page) {
  return ManDir() + "/" + page + ".1";
}

/// The page of `command` (man/dlcheck-COMMAND.1), or the overview (man/dlcheck.1) for "".
std::string ManPage(const std::string& command = {}) {
  return testing::ReadFile(ManPagePath(command.empty() ? "dlcheck" : "dlcheck-" + command));
}

std::string Synopsis(const std::string& man) {
  const std::size_t begin = man.find(".Sh SYNOPSIS");
  if (begin == std::string::npos) return {};
  return man.substr(begin, man.find(".Sh DESCRIPTION") - begin);
}

std::set<std::string> SynopsisOptions(const std::string& man) {
  const std::string synopsis = Synopsis(man);
  static const std::regex flag(R"(Fl -([a-z0-9][a-z0-9-]*))");
  std::set<std::string> names;
  for (std::sregex_iterator it(synopsis.begin(), synopsis.end(), flag), last; it != last; ++it) {
    names.insert((*it)[1]);
  }
  return names;
}

// What every report command of the command table (`dlcheck help --list`) offers: these options
// and at least these formats. --help, the man page's SYNOPSIS and README are held to it.
const std::set<std::string> kEveryCommandFormats = {"table", "csv", "json", "xlsx", "html"};
const std::vector<std::string> kCommonOptions = {"format", "columns", "csv-lf", "csv-raw",
                                                 "output"};

std::set<std::string> SplitSet(const std::string& text, char separator) {
  std::set<std::string> names;
  std::istringstream in(text);
  for (std::string name; std::getline(in, name, separator);) names.insert(name);
  return names;
}

// The format names `--help` shows (`-f,--format FORMAT:{table,csv,json}`).
std::set<std::string> HelpFormats(const std::string& command) {
  const auto r = RunDlcheck({command, "--help"});
  static const std::regex format(R"(--format FORMAT:\{([a-z,]+)\})");
  std::smatch m;
  if (!std::regex_search(r.out, m, format)) return {};
  return SplitSet(m[1], ',');
}

// The format names of each of the page's SYNOPSIS lines (`.Op Fl -format Ar table|csv`).
std::vector<std::set<std::string>> SynopsisFormats(const std::string& man) {
  std::istringstream in(Synopsis(man));
  static const std::regex format(R"(Fl -format Ar ([a-z|]+))");
  std::vector<std::set<std::string>> lists;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_search(line, m, format)) lists.push_back(SplitSet(m[1], '|'));
  }
  return lists;
}

TEST(ManPageTest, EveryCommandHasTheCommonOptionsAndItsFormatsEverywhere) {
  const std::vector<std::string> commands = testing::ReportCommands();
  ASSERT_FALSE(commands.empty());
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const std::string man = ManPage(command);
    ASSERT_FALSE(man.empty());
    const std::set<std::string> help = HelpOptions(command);
    for (const std::string& option : kCommonOptions) EXPECT_EQ(help.count(option), 1u) << option;
    const std::set<std::string> formats = HelpFormats(command);
    EXPECT_TRUE(std::includes(formats.begin(), formats.end(), kEveryCommandFormats.begin(),
                              kEveryCommandFormats.end()));
    const auto synopsis = SynopsisFormats(man);
    EXPECT_FALSE(synopsis.empty());
    for (const auto& listed : synopsis) EXPECT_EQ(listed, formats);
  }
  const std::string readme = testing::ReadFile(testing::DataPath("../../README.md"));
  for (const char* entry : {"| `-f, --format FORMAT` |", "| `-o, --output FILE` |",
                            "| `--columns [TABLE:]LIST` |", "| `--csv-lf` |", "| `--csv-raw` |"}) {
    EXPECT_NE(readme.find(entry), std::string::npos) << entry;
  }
}

TEST(ManPageTest, SynopsisAndHelpListTheSameOptionsForEveryCommand) {
  const std::vector<std::string> commands = testing::ReportCommands();
  ASSERT_FALSE(commands.empty());
  for (const std::string& command : commands) {
    const std::string man = ManPage(command);
    ASSERT_FALSE(man.empty()) << command;
    const std::set<std::string> help = HelpOptions(command);
    EXPECT_FALSE(help.empty()) << command;
    EXPECT_EQ(SynopsisOptions(man), help) << "dlcheck " << command;
    // Each is described after the SYNOPSIS (an option list entry or the command's prose).
    const std::string body = man.substr(man.find(".Sh DESCRIPTION"));
    for (const auto& name : help) {
      const std::regex described("Fl -" + name + "(?![a-z0-9-])");
      EXPECT_TRUE(std::regex_search(body, described))
          << "dlcheck " << command << " --" << name << " is not described in man/dlcheck-"
          << command << ".1";
    }
  }
}

// A page per command: man/ holds the overview and one dlcheck-COMMAND.1 for every command --help
// shows (the report commands and help), no other; each page is its command's, in NAME and
// SYNOPSIS, with the sections every page has; the overview points at every page; README links
// to every page.
// The words of a man page's paragraph, its macros left out: ".Ev OMP_NUM_THREADS ," reads
// "OMP_NUM_THREADS,".
std::string ManWords(const std::string& paragraph) {
  static const std::set<std::string> kMacros = {".It", ".Ev", ".Fl", ".Ar", ".Pq", "Pq",  "No",
                                                "Ev",  "Fl",  "Ar",  ".Cm", ".Li", ".Pa", ".Po",
                                                ".Pc", "Ns",  ".Dq", ".Ql", ".Em", ".Pp"};
  std::istringstream in(paragraph);
  std::string word, text;
  while (in >> word) {
    if (kMacros.count(word) != 0) continue;
    if (!text.empty() && word != "," && word != ";" && word != ")" && word != ".") text += ' ';
    text += word;
  }
  return text;
}

// The paragraph of option `item` (".It Fl t , Fl -threads Ar N") in a man page.
std::string ManItem(const std::string& man, const std::string& item) {
  const std::size_t begin = man.find(item + "\n");
  if (begin == std::string::npos) return {};
  const std::size_t body = begin + item.size() + 1;
  return man.substr(body, man.find("\n.It ", body) - body);
}

// The words the help and the man pages use for the rule a run's threads_from names.
std::string DocumentedRule(const std::string& threads_from) {
  if (threads_from == "OMP_NUM_THREADS") return "OMP_NUM_THREADS";
  if (threads_from.rfind("the idle cores: ", 0) == 0) return "the cores idle over the last minute";
  if (threads_from.rfind("all ", 0) == 0 && threads_from.ends_with("(no load average)"))
    return "all cores without a load average";
  if (threads_from.rfind("the CPU budget: ", 0) == 0) return "its cgroup's CPU quota";
  return "(no documented rule for '" + threads_from + "')";
}

// Issue 35 row 10: the thread default of `verbose` and `dispatch` as --help and the man page say
// it is what a run reports in threads_from, under each rule a run can take (OMP_NUM_THREADS set,
// a load average, none).
class ThreadDefaultDocsTest : public testing::ScratchDirTest {};

TEST_F(ThreadDefaultDocsTest, InHelpAndManAreWhatRunsReport) {
  const std::string idle = Write("loadavg", "0.00 0.00 0.00 1/100 1\n");
  const std::vector<std::vector<std::string>> environments = {
      {"OMP_NUM_THREADS=1"},
      {"OMP_NUM_THREADS=", "DLCHECK_LOADAVG=" + idle},
      {"OMP_NUM_THREADS=", "DLCHECK_LOADAVG=" + (dir_ / "no-such-loadavg").string()}};
  const std::map<std::string, std::vector<std::string>> runs = {
      {"verbose",
       {"verbose", "--model", "mlp", "--iters", "1", "--warmup", "0", "--traced", "1", "-f",
        "json"}},
      {"dispatch", {"dispatch", "--isa", "sse41", "-f", "json", "--", "true"}}};
  for (const auto& [command, args] : runs) {
    const testing::RunResult help = testing::RunDlcheck({command, "--help"});
    std::string help_text = help.out;
    std::replace(help_text.begin(), help_text.end(), '\n', ' ');
    help_text = std::regex_replace(help_text, std::regex(" +"), " ");
    const std::string man = ManWords(ManItem(ManPage(command), ".It Fl t , Fl -threads Ar N"));
    ASSERT_FALSE(man.empty()) << command;
    for (const auto& env : environments) {
      const testing::RunResult r = testing::RunDlcheck(args, {}, env);
      ASSERT_EQ(r.exit_code, 0) << command << ": " << r.err;
      const nlohmann::json j = nlohmann::json::parse(r.out);
      const std::string from = j["run"]["threads_from"].get<std::string>();
      const std::string rule = DocumentedRule(from);
      EXPECT_NE(help_text.find(rule), std::string::npos)
          << command << " --help does not say '" << rule << "' (" << from << "):\n"
          << help.out;
      EXPECT_NE(man.find(rule), std::string::npos)
          << "man dlcheck-" << command << " does not say '" << rule << "':\n"
          << man;
    }
  }
}

TEST(ManPageTest, EveryCommandHasItsPageAndEveryPageItsCommand) {
  std::vector<std::string> commands = testing::ReportCommands();
  ASSERT_FALSE(commands.empty());
  commands.push_back("help");
  std::set<std::string> expected = {"dlcheck.1"};
  for (const std::string& command : commands) expected.insert("dlcheck-" + command + ".1");
  std::set<std::string> found;
  for (const auto& entry : std::filesystem::directory_iterator(ManDir())) {
    if (entry.path().extension() == ".1") found.insert(entry.path().filename().string());
  }
  EXPECT_EQ(found, expected);
  const std::string overview = ManPage();
  const std::string readme = testing::ReadFile(testing::DataPath("../../README.md"));
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const std::string man = ManPage(command);
    EXPECT_NE(man.find(".Nm dlcheck-" + command + "\n"), std::string::npos);
    EXPECT_NE(Synopsis(man).find(".Nm dlcheck\n.Cm " + command + "\n"), std::string::npos);
    for (const char* section :
         {".Sh DESCRIPTION", ".Sh OPTIONS", ".Sh EXIT STATUS", ".Sh EXAMPLES", ".Sh SEE ALSO"}) {
      EXPECT_NE(man.find(section), std::string::npos) << section;
    }
    if (command != "help") {
      EXPECT_NE(man.find(".Sh OUTPUT"), std::string::npos);
    }
    EXPECT_NE(overview.find(".Xr dlcheck-" + command + " 1"), std::string::npos);
    EXPECT_NE(readme.find("(man/dlcheck-" + command + ".1)"), std::string::npos);
  }
}

// What a man reader on PATH prints for `file` with its stdout a pipe, as dlcheck's is below:
// `man -l`, else `mandoc -a` (the readers `dlcheck help` tries, in that order); "" when neither.
std::string ManReaderOutput(const std::string& file) {
  for (const std::string reader : {"man -l", "mandoc -a"}) {
    const std::string name = reader.substr(0, reader.find(' '));
    if (std::system(("command -v " + name + " > /dev/null 2>&1").c_str()) != 0) continue;
    FILE* pipe = popen((reader + " '" + file + "' 2> /dev/null").c_str(), "r");
    if (pipe == nullptr) return {};
    std::string text;
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
      text.append(buffer, n);
    }
    pclose(pipe);
    return text;
  }
  return {};
}

// `dlcheck help COMMAND` and `man dlcheck-COMMAND` show the same text: the page beside the
// binary (the source tree's man/ for build/dlcheck), through the same reader.
TEST(ManPageTest, HelpCommandShowsWhatManShows) {
  std::vector<std::string> commands = testing::ReportCommands();
  commands.push_back("help");
  for (const std::string& command : commands) {
    SCOPED_TRACE(command);
    const std::string expected = ManReaderOutput(ManPagePath("dlcheck-" + command));
    if (expected.empty()) GTEST_SKIP() << "neither man nor mandoc is installed";
    const auto r = RunDlcheck({"help", command});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, expected);
  }
}

}  // namespace
}  // namespace dlcheck
