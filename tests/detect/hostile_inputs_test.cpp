// SPDX-License-Identifier: Apache-2.0
// Crafted recordings (issue 20): subleaf tables longer than libcpuid's fixed arrays, CPU numbers
// out of range, and JSON nested or filled beyond what a parser should be given. Each must be
// refused or read within bounds, never crash dlcheck.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "detect/cpuid_dump.h"
#include "detect/platform.h"
#include "os/input_file.h"
#include "support/run_dlcheck.h"

namespace dlcheck::detect {
namespace {

using dlcheck::testing::DataPath;
using os::CheckJsonBounds;

// An Intel client (four caches in leaf 4: L1D, L1I, L2, L3) and an AMD desktop (four in
// 8000001Dh), recorded by libcpuid's own tool.
const std::string kIntel = "cpuid/11th-gen-intel-core-i7-1165g7.test";
const std::string kAmd = "cpuid/amd-ryzen-9-7900x-12-core-processor.test";

// The first logical CPU of a recorded dump, with `extra` more subleaves of `leaf`, each a copy of
// its last one (a cache row that says "there is one more cache").
LogicalCpuDump WithExtraSubleaves(const std::string& fixture, std::uint32_t leaf, int extra) {
  const StatusOr<CpuidDump> dump = LoadCpuidDump(DataPath(fixture));
  EXPECT_TRUE(dump.ok()) << dump.status().message();
  LogicalCpuDump cpu = dump->cpus.front();
  std::uint32_t last = 0;
  while (cpu.leaves.count({leaf, last + 1}) != 0) ++last;
  const CpuidRegs row = cpu.leaves.at({leaf, last});
  for (int i = 1; i <= extra; ++i) cpu.leaves[{leaf, last + i}] = row;
  return cpu;
}

// The same CPU as `cpuid -r` prints it.
std::string AsCpuidTool(const LogicalCpuDump& cpu) {
  std::string out = "CPU 0:\n";
  for (const auto& [key, r] : cpu.leaves) {
    char line[128];
    std::snprintf(line, sizeof line,
                  "   0x%08x 0x%02x: eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x\n", key.first,
                  key.second, r.eax, r.ebx, r.ecx, r.edx);
    out += line;
  }
  return out;
}

class CraftedDumpTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const auto& path : written_) std::filesystem::remove(path);
  }
  std::string Write(const std::string& name, const std::string& text) {
    const std::string path = (std::filesystem::temp_directory_path() /
                              ("dlcheck_crafted_" + std::to_string(getpid()) + "_" + name))
                                 .string();
    std::ofstream(path, std::ios::binary) << text;
    written_.push_back(path);
    return path;
  }
  // Replays the dump at `path` and returns the libcpuid finding about left-out subleaves ("" when
  // there is none); fails when the replay fails.
  std::string LeftOutFinding(const std::string& path) {
    const StatusOr<PlatformInfo> info = DetectRecordedPlatform(path);
    EXPECT_TRUE(info.ok()) << info.status().message();
    if (!info.ok()) return "?";
    EXPECT_TRUE(info->FindFeature("avx2")->cpu);
    const Finding* finding = info->FindFinding("libcpuid-subleaves-left-out");
    return finding == nullptr ? "" : finding->message;
  }

 private:
  std::vector<std::string> written_;
};

// Six leaf-4 cache subleaves smashed libcpuid 0.6.2's stack (five fit its tables): the replay now
// gives it five and says which were left out, in both dump formats.
TEST_F(CraftedDumpTest, SixCacheSubleavesInLeaf4AreCutForLibcpuidInBothFormats) {
  const LogicalCpuDump cpu = WithExtraSubleaves(kIntel, 4, 2);  // subleaves 0..5
  ASSERT_EQ(cpu.leaves.count({4, 5}), 1u);
  const std::string expected =
      "libcpuid was not given leaf 4h subleaf 5 of the dump (more subleaves than its fixed "
      "tables hold); dlcheck's own decoding read them";
  EXPECT_EQ(LeftOutFinding(Write("six.test", FormatCpuidDump({{cpu}}))), expected);
  EXPECT_EQ(LeftOutFinding(Write("six.txt", AsCpuidTool(cpu))), expected);
  // Eight, libcpuid's own array size, is cut the same way.
  EXPECT_EQ(
      LeftOutFinding(Write("eight.test", FormatCpuidDump({{WithExtraSubleaves(kIntel, 4, 4)}}))),
      "libcpuid was not given leaf 4h subleaves 5 to 7 of the dump (more subleaves than its "
      "fixed tables hold); dlcheck's own decoding read them");
}

// The same class: every other subleaf table libcpuid keeps in a fixed array (leaf Bh and
// 8000001Dh hold four rows) takes no more than it holds.
TEST_F(CraftedDumpTest, OverlongTopologyAndAmdCacheTablesAreCutForLibcpuid) {
  EXPECT_EQ(
      LeftOutFinding(Write("b.test", FormatCpuidDump({{WithExtraSubleaves(kIntel, 0xB, 4)}}))),
      "libcpuid was not given leaf Bh subleaves 4 to 5 of the dump (more subleaves than its "
      "fixed tables hold); dlcheck's own decoding read them");
  EXPECT_EQ(
      LeftOutFinding(Write("amd.txt", AsCpuidTool(WithExtraSubleaves(kAmd, 0x8000001D, 2)))),
      "libcpuid was not given leaf 8000001Dh subleaves 4 to 5 of the dump (more subleaves than "
      "its fixed tables hold); dlcheck's own decoding read them");
  // A recording whose tables fit says nothing.
  EXPECT_EQ(LeftOutFinding(DataPath(kIntel)), "");
}

// `cpuid -r` CPU numbers are digits and at most 65535: a sign or an overflow is refused.
TEST(CraftedCpuNumberTest, NegativeAndHugeCpuNumbersAreRefused) {
  const std::string line =
      "   0x00000000 0x00: eax=0x00000007 ebx=0x68747541 ecx=0x444d4163 edx=0x69746e65\n";
  for (const std::string header : {"CPU -1:", "CPU 99999999999:", "CPU 65536:", "CPU +3:"}) {
    const StatusOr<CpuidDump> dump = ParseCpuidDump(header + "\n" + line, "t");
    ASSERT_FALSE(dump.ok()) << header;
    EXPECT_EQ(dump.status().code(), ExitCode::kInputError);
    EXPECT_EQ(dump.status().message(), "t:1: not a CPUID dump header: '" + header + "'");
  }
  const StatusOr<CpuidDump> last = ParseCpuidDump("CPU 65535:\n" + line, "t");
  ASSERT_TRUE(last.ok()) << last.status().message();
  EXPECT_EQ(last->cpus.front().index, 65535);
  // The AIDA64 header's number follows the same rule.
  EXPECT_FALSE(ParseCpuidDump("------[ Logical CPU #4294967296 ]------\n", "t").ok());
}

// --- JSON bounds
// ----------------------------------------------------------------------------------

TEST(JsonBoundsTest, DeepNestingIsRefusedBeforeAnyParserRecurses) {
  const std::string deep = std::string(50000, '[') + std::string(50000, ']');
  const Status s = CheckJsonBounds(deep, "report", "deep.json", {});
  EXPECT_EQ(s.code(), ExitCode::kInputError);
  EXPECT_EQ(s.message(), "report 'deep.json' nests JSON more than 64 deep, the most dlcheck reads");
  const std::string objects = [] {
    std::string text;
    for (int i = 0; i < 65; ++i) text += "{\"a\":";
    return text + "1" + std::string(65, '}');
  }();
  EXPECT_FALSE(CheckJsonBounds(objects, "report", "o.json", {}).ok());
  EXPECT_TRUE(CheckJsonBounds(objects, "report", "o.json", {.max_depth = 65}).ok());
}

TEST(JsonBoundsTest, ValuesAreCountedAndBracketsInStringsAreNot) {
  const std::string wide = "[" + [] {
    std::string items;
    for (int i = 0; i < 1000; ++i) items += (i ? ",[]" : "[]");
    return items;
  }() + "]";
  EXPECT_TRUE(CheckJsonBounds(wide, "report", "w", {.max_values = 1001}).ok());
  const Status s = CheckJsonBounds(wide, "report", "w", {.max_values = 1000});
  EXPECT_EQ(s.message(), "report 'w' holds more than 1000 JSON values, the most dlcheck reads");
  // Brackets, quotes and escapes inside strings are text, not structure.
  const std::string strings = R"({"a": "[[[[[[\"]]]", "b": [1, true, null, -2.5e3]})";
  EXPECT_TRUE(CheckJsonBounds(strings, "r", "s", {.max_depth = 2, .max_values = 9}).ok());
  EXPECT_FALSE(CheckJsonBounds(strings, "r", "s", {.max_depth = 2, .max_values = 8}).ok());
  EXPECT_FALSE(CheckJsonBounds(strings, "r", "s", {.max_depth = 1}).ok());
}

// Issue 51: a C1 control (0x9B, CSI; and U+009B as UTF-8) in a bad line of an AIDA64 report was
// echoed raw in the error. The quoted line goes through the one sanitizer of log text.
TEST(CraftedCpuNumberTest, ABadLineIsQuotedWithoutItsControls) {
  for (const std::string& csi :
       {std::string("\x9b"), std::string("\xc2\x9b"), std::string("\x1b[")}) {
    const StatusOr<CpuidDump> dump = ParseCpuidDump(
        "------[ CPUID Registers / Logical CPU #0 ]------\nCPUID 00000000: " + csi + "2Jowned\n",
        "r.txt");
    ASSERT_FALSE(dump.ok());
    const std::string& message = dump.status().message();
    EXPECT_EQ(message.find(csi), std::string::npos) << message;
    EXPECT_NE(message.find("r.txt:2: not a CPUID dump line: 'CPUID 00000000: ?"), std::string::npos)
        << message;
  }
}

// Issue 51: a CPU named twice in an AIDA64 dump was counted twice. A recorded report
// (tests/data/cpuid/aida64) with the block of logical CPU #1 repeated at its end: as many CPUs
// as the report, and a warning that names the repeated one.
TEST_F(CraftedDumpTest, ACpuNamedTwiceIsCountedOnce) {
  const StatusOr<std::string> text =
      ReadDumpText(DataPath("cpuid/aida64/GenuineIntel00C0662_ArrowLake_07_CPUID.txt.xz"));
  ASSERT_TRUE(text.ok()) << text.status().message();
  const std::size_t first = text->find("------[ CPUID Registers / Logical CPU #1 ]");
  const std::size_t next = text->find("------[ CPUID Registers / Logical CPU #2 ]");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(next, std::string::npos);
  const std::string repeated = *text + "\n" + text->substr(first, next - first);
  const StatusOr<CpuidDump> once = ParseCpuidDump(*text, "once");
  const StatusOr<CpuidDump> twice = ParseCpuidDump(repeated, "twice");
  ASSERT_TRUE(once.ok() && twice.ok());
  EXPECT_EQ(twice->cpus.size(), once->cpus.size());
  EXPECT_EQ(twice->repeated_cpus, std::vector<int>{1});
  EXPECT_TRUE(once->repeated_cpus.empty());
  const StatusOr<PlatformInfo> info = DetectRecordedPlatform(Write("repeated.txt", repeated));
  ASSERT_TRUE(info.ok()) << info.status().message();
  const Finding* finding = info->FindFinding("dump-repeats-cpus");
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->message,
            "the dump names logical CPU 1 more than once: each is counted once (" +
                std::to_string(once->cpus.size()) +
                " logical CPUs), from its first block; the repeated blocks were left out");
}

}  // namespace
}  // namespace dlcheck::detect
