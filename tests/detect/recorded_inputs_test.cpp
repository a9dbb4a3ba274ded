// SPDX-License-Identifier: Apache-2.0
// The edges of recorded input: `cpuid -r` dumps, dumps cut short, files that are not files,
// inputs too large to read, text that is not UTF-8, and output files that must not be written
// through a planted symlink or silently lost on a full disk.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "detect/cpuid_dump.h"
#include "detect/platform.h"
#include "os/input_file.h"
#include "os/output_file.h"
#include "support/run_dlcheck.h"

namespace dlcheck::detect {
namespace {

using dlcheck::testing::DataPath;
using os::kMaxInputBytes;
using os::ReadInputFile;
using os::WriteAll;
using os::WriteFileReplacing;

const std::string kThisMachine = "cpuid/cpuid-r/oxide-virtual-turin-like-processor";

void ExpectError(const Status& status, ExitCode code, const std::string& message) {
  EXPECT_EQ(status.code(), code);
  EXPECT_EQ(status.message(), message);
}

// --- cpuid -r ------------------------------------------------------------------------------------

constexpr std::string_view kTinyCpuidTool =
    "CPU 0:\n"
    "   0x00000000 0x00: eax=0x00000007 ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65\n"
    "   0x00000007 0x00: eax=0x00000001 ebx=0xf1bb03a9 ecx=0x18005f42 edx=0x00000110\n"
    "   0x00000007 0x01: eax=0x00000030 ebx=0x00000000 ecx=0x00000000 edx=0x00000000\n"
    "CPU 1:\n"
    "   0x00000000 0x00: eax=0x00000007 ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65\n"
    "   0x8000001d 0x03: eax=0x00004163 ebx=0x03c0003f ecx=0x00007fff edx=0x00000001\n";

TEST(CpuidToolDumpTest, BlocksLeavesAndSubleavesMapToTheSameDump) {
  const StatusOr<CpuidDump> dump = ParseCpuidDump(kTinyCpuidTool, "tiny");
  ASSERT_TRUE(dump.ok()) << dump.status().message();
  ASSERT_EQ(dump->cpus.size(), 2u);
  EXPECT_EQ(dump->cpus[0].index, 0);
  EXPECT_EQ(dump->cpus[1].index, 1);
  EXPECT_EQ(dump->cpus[0].leaves.size(), 3u);
  EXPECT_EQ(dump->cpus[0].leaves.at({7, 0}), (CpuidRegs{1, 0xf1bb03a9, 0x18005f42, 0x110}));
  EXPECT_EQ(dump->cpus[0].leaves.at({7, 1}), (CpuidRegs{0x30, 0, 0, 0}));
  EXPECT_EQ(dump->cpus[1].leaves.at({0x8000001D, 3}), (CpuidRegs{0x4163, 0x03c0003f, 0x7fff, 1}));
  // The AIDA64 text of the same dump reads back to the same leaves.
  const StatusOr<CpuidDump> again = ParseCpuidDump(FormatCpuidDump(*dump), "again");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->cpus[0].leaves, dump->cpus[0].leaves);
  EXPECT_EQ(again->cpus[1].leaves, dump->cpus[1].leaves);
}

TEST(CpuidToolDumpTest, ErrorsNameTheLine) {
  ExpectError(ParseCpuidDump("CPU zero:\n", "t").status(), ExitCode::kInputError,
              "t:1: not a CPUID dump header: 'CPU zero:'");
  ExpectError(
      ParseCpuidDump("CPU 0:\n   0x00000000 0x00: eax=0x0000000d ebx=0x6874\n", "t").status(),
      ExitCode::kInputError,
      "t:2: CPUID line cut short (each of EAX EBX ECX EDX has 8 hex digits): "
      "'0x00000000 0x00: eax=0x0000000d ebx=0x6874'");
  ExpectError(ParseCpuidDump("CPU 0:\n   0x00000000 0x00: eax=0x0000000d ebx=0x68747541 ec\n", "t")
                  .status(),
              ExitCode::kInputError,
              "t:2: CPUID line cut short (each of EAX EBX ECX EDX has 8 hex digits): "
              "'0x00000000 0x00: eax=0x0000000d ebx=0x68747541 ec'");
  ExpectError(
      ParseCpuidDump("CPU 0:\n   0x00000000 0x00: eax=0x0000000d ebx=0x68747541 ecx=0x444d4163 "
                     "edx=0x69746e65 esi=0x0\n",
                     "t")
          .status(),
      ExitCode::kInputError,
      "t:2: not a CPUID dump line: '0x00000000 0x00: eax=0x0000000d ebx=0x68747541 ecx=0x444d416'");
}

// A register cut short in the other formats was read as a smaller number before.
TEST(CpuidDumpTest, ARegisterCutShortIsAnErrorInEveryFormat) {
  ExpectError(ParseCpuidDump("CPUID 00000007: 00000001-239CA7EB-98C027AC-FC1C\n", "a").status(),
              ExitCode::kInputError,
              "a:1: CPUID line cut short (each of EAX EBX ECX EDX has 8 hex digits): "
              "'CPUID 00000007: 00000001-239CA7EB-98C027AC-FC1C'");
  ExpectError(ParseCpuidDump("CPUID 00000007: 00000001-239CA7EB\n", "a").status(),
              ExitCode::kInputError,
              "a:1: CPUID line cut short (each of EAX EBX ECX EDX has 8 hex digits): "
              "'CPUID 00000007: 00000001-239CA7EB'");
  ExpectError(ParseCpuidDump("basic_cpuid[0]=0000000d 756e6547 6c65746e 4965\n", "l").status(),
              ExitCode::kInputError,
              "l:1: CPUID line cut short (each of EAX EBX ECX EDX has 8 hex digits): "
              "'basic_cpuid[0]=0000000d 756e6547 6c65746e 4965'");
}

// The same machine, recorded by `cpuid -r` and by `dlcheck platform --save-raw`, replays to the
// same CPU: every feature layer, the identity, the core kinds and the levels.
TEST(CpuidToolDumpTest, ReplaysLikeTheSameMachinesSaveRaw) {
  const StatusOr<PlatformInfo> tool = DetectRecordedPlatform(DataPath(kThisMachine + ".txt"));
  const StatusOr<PlatformInfo> saved =
      DetectRecordedPlatform(DataPath(kThisMachine + ".save-raw.test"));
  ASSERT_TRUE(tool.ok()) << tool.status().message();
  ASSERT_TRUE(saved.ok()) << saved.status().message();
  ASSERT_EQ(tool->features.size(), saved->features.size());
  for (std::size_t i = 0; i < tool->features.size(); ++i) {
    const FeatureLayers& a = tool->features[i];
    const FeatureLayers& b = saved->features[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.cpu, b.cpu) << a.name;
    EXPECT_EQ(a.libcpuid, b.libcpuid) << a.name;
  }
  EXPECT_EQ(tool->cpu.vendor, saved->cpu.vendor);
  EXPECT_EQ(tool->cpu.brand, "Oxide Virtual Turin-like Processor");
  EXPECT_EQ(tool->cpu.brand, saved->cpu.brand);
  EXPECT_EQ(tool->cpu.family, 26);
  EXPECT_EQ(tool->logical_cpus, 2);
  EXPECT_EQ(tool->logical_cpus, saved->logical_cpus);
  ASSERT_NE(tool->x86(), nullptr);
  ASSERT_NE(saved->x86(), nullptr);
  EXPECT_EQ(tool->x86()->xsave_supported, saved->x86()->xsave_supported);
  EXPECT_EQ(tool->onednn_max_isa, saved->onednn_max_isa);
  EXPECT_EQ(tool->PsabiLevel(), saved->PsabiLevel());
  EXPECT_TRUE(tool->FindFeature("avx512f")->cpu);
  EXPECT_EQ(tool->FindFinding("recording-incomplete"), nullptr);
}

// --- recordings cut short ------------------------------------------------------------------------

TEST(CpuidDumpTest, ADumpCutInsideARegisterIsAnInputErrorWithItsLine) {
  const std::string path = DataPath("cpuid/invalid/cut-inside-register.cpuid-r.txt");
  ExpectError(DetectRecordedPlatform(path).status(), ExitCode::kInputError,
              path +
                  ":8: CPUID line cut short (each of EAX EBX ECX EDX has 8 hex digits): "
                  "'0x00000006 0x00: eax=0x00000004 ebx=0x00000000 ecx=0x0000'");
}

TEST(CpuidDumpTest, ADumpCutBeforeLeaf7SaysWhichLeavesAreMissing) {
  const StatusOr<PlatformInfo> info =
      DetectRecordedPlatform(DataPath("cpuid/invalid/cut-before-leaf-7.cpuid-r.txt"));
  ASSERT_TRUE(info.ok()) << info.status().message();
  const Finding* finding = info->FindFinding("recording-incomplete");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::kWarning);
  EXPECT_EQ(finding->message,
            "the CPUID recording lacks leaf 7 (AVX2, AVX-512, AMX), leaf 0Dh (the XSAVE state "
            "components) although the CPU reports them: the features from them are unknown "
            "(shown as absent); record the dump again");
}

TEST(CpuidDumpTest, ADumpCutBefore80000001hSaysSo) {
  const StatusOr<PlatformInfo> info =
      DetectRecordedPlatform(DataPath("cpuid/invalid/cut-before-80000001h.cpuid-r.txt"));
  ASSERT_TRUE(info.ok()) << info.status().message();
  const Finding* finding = info->FindFinding("recording-incomplete");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->message,
            "the CPUID recording lacks leaf 80000001h (LAHF, LZCNT, for the x86-64 levels) "
            "although the CPU reports it: the features from it are unknown (shown as absent); "
            "record the dump again");
}

// --- reading: only files and pipes, never more than the cap -------------------------------------

TEST(InputFileTest, ACharacterDeviceIsRefusedBeforeReading) {
  ExpectError(ReadDumpText("/dev/zero").status(), ExitCode::kInputError,
              "cannot read CPUID dump '/dev/zero': it is a character device, not a regular file "
              "or a pipe");
}

TEST(InputFileTest, AFileThatFailsToReadSaysWhy) {
  ExpectError(ReadDumpText("/proc/self/mem").status(), ExitCode::kInputError,
              "cannot read CPUID dump '/proc/self/mem': Input/output error");
}

TEST(InputFileTest, ARegularFileOverTheCapIsRefusedFromItsSize) {
  const std::string path = ::testing::TempDir() + "dlcheck_sparse_" + std::to_string(getpid());
  { std::ofstream create(path); }
  std::filesystem::resize_file(path, kMaxInputBytes + 1);  // sparse: no disk used
  const Status status = ReadDumpText(path).status();
  std::filesystem::remove(path);
  ExpectError(status, ExitCode::kInputError,
              "CPUID dump '" + path + "' is larger than 64 MiB, the most dlcheck reads");
}

TEST(InputFileTest, APipeIsReadUpToTheCap) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  std::thread writer([&] {
    const std::string chunk(1500, 'x');
    (void)!::write(fds[1], chunk.data(), chunk.size());
    ::close(fds[1]);
  });
  const std::string path = "/dev/fd/" + std::to_string(fds[0]);
  const StatusOr<std::string> text = ReadInputFile(path, {"CPUID dump", "", 1024});
  writer.join();
  ::close(fds[0]);
  ExpectError(text.status(), ExitCode::kInputError,
              "CPUID dump '" + path + "' is larger than 1024 bytes, the most dlcheck reads");
}

TEST(InputFileTest, AnXzBombStopsAtTheCap) {
  const std::string path = DataPath("cpuid/invalid/65-mib-of-zeros.txt.xz");
  ExpectError(ReadDumpText(path).status(), ExitCode::kInputError,
              "CPUID dump '" + path + "' decompresses to more than 64 MiB, the most dlcheck reads");
}

// --- writing: never through a link, every failure said ------------------------------------------

TEST(OutputFileTest, AFullDiskIsAnOutputError) {
  const int fd = ::open("/dev/full", O_WRONLY | O_CLOEXEC);
  if (fd < 0) GTEST_SKIP() << "no /dev/full here";
  const Status status =
      WriteAll(fd, "CPUID 00000000: 0000000D-68747541-444D4163-69746E65\n", "/dev/full");
  ::close(fd);
  ExpectError(status, ExitCode::kOutputError, "cannot write '/dev/full': No space left on device");
}

TEST(OutputFileTest, APlantedSymlinkIsReplacedNotFollowed) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / ("dlcheck_link_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path victim = dir / "victim";
  std::ofstream(victim) << "keep me\n";
  std::filesystem::create_symlink(victim, dir / "cpuid.test");
  const Status status = WriteFileReplacing((dir / "cpuid.test").string(), "new\n");
  const bool is_link = std::filesystem::is_symlink(dir / "cpuid.test");
  std::stringstream victim_text, written_text;
  victim_text << std::ifstream(victim).rdbuf();
  written_text << std::ifstream(dir / "cpuid.test").rdbuf();
  const auto entries = std::distance(std::filesystem::directory_iterator(dir),
                                     std::filesystem::directory_iterator());
  std::filesystem::remove_all(dir);
  EXPECT_TRUE(status.ok()) << status.message();
  EXPECT_FALSE(is_link);
  EXPECT_EQ(victim_text.str(), "keep me\n");
  EXPECT_EQ(written_text.str(), "new\n");
  EXPECT_EQ(entries, 2);  // no temporary file left behind
}

TEST(OutputFileTest, AMissingDirectoryIsAnOutputError) {
  ExpectError(WriteFileReplacing("/nonexistent/dir/cpuid.test", "x"), ExitCode::kOutputError,
              "cannot write '/nonexistent/dir/cpuid.test': No such file or directory");
}

}  // namespace
}  // namespace dlcheck::detect
