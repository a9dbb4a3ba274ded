// SPDX-License-Identifier: Apache-2.0
// perf.data read without perf: a small recording of a oneDNN convolution (tests/data/profile/
// jit_conv.perf.data, INDEX.md), whose expected values are what `perf report -D` and
// `perf script --ns` print for it, and damaged files built here.
#include "profile/perf_data.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace dlcheck::profile {
namespace {

constexpr std::uint32_t kRecordedPid = 11626;

std::string FixturePath() {
  return std::string(DLCHECK_TEST_DATA) + "/profile/jit_conv.perf.data";
}

std::string FixtureBytes() {
  std::ifstream in(FixturePath(), std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

struct Read {
  std::vector<PerfDataSample> samples;  // without their stack bytes (the buffer is reused)
  std::vector<std::size_t> stack_sizes;
  std::vector<PerfDataMmap> mmaps;
  std::vector<PerfDataFork> forks;
  StatusOr<PerfDataCounts> counts = PerfDataCounts{};
};

Read ReadBytes(const std::string& bytes) {
  Read r;
  std::istringstream in(bytes);
  const PerfDataVisitor visitor{.on_sample =
                                    [&](const PerfDataSample& s) {
                                      r.samples.push_back(s);
                                      r.samples.back().stack = {};
                                      r.stack_sizes.push_back(s.stack.size());
                                    },
                                .on_mmap = [&](const PerfDataMmap& m) { r.mmaps.push_back(m); },
                                .on_fork = [&](const PerfDataFork& f) { r.forks.push_back(f); }};
  r.counts = ReadPerfData(in, visitor);
  return r;
}

TEST(PerfDataTest, ReadsTheRecordedSamplesAsPerfDoes) {
  const Read r = ReadBytes(FixtureBytes());
  ASSERT_TRUE(r.counts.ok()) << r.counts.status().message();
  // perf report -D: 14 SAMPLE events, each with user registers (mask 0xff0fff) and a stack copy.
  EXPECT_EQ(r.counts->samples, 14u);
  EXPECT_EQ(r.counts->samples_with_stack, 14u);
  ASSERT_EQ(r.samples.size(), 14u);
  const PerfDataSample& first = r.samples.front();
  EXPECT_EQ(first.pid, kRecordedPid);
  EXPECT_EQ(first.tid, kRecordedPid);
  EXPECT_EQ(first.time_ns, 14430547623890u);  // perf script --ns: 14430.547623890
  EXPECT_EQ(first.ip, 0x7fdb7bb4022fu);
  EXPECT_TRUE(first.has_user_regs);
  EXPECT_EQ(first.sp, 0x7ffd5745eb28u);
  EXPECT_EQ(first.user_ip, first.ip);  // a sample in user space: the IP register is the IP
  for (std::size_t size : r.stack_sizes) {
    EXPECT_GT(size, 0u);
    EXPECT_LE(size, 4096u);  // --call-graph dwarf,4096
    EXPECT_EQ(size % 8, 0u);
  }
  for (std::size_t i = 1; i < r.samples.size(); ++i) {
    EXPECT_GT(r.samples[i].time_ns, r.samples[i - 1].time_ns);  // one thread, in time order
  }
}

TEST(PerfDataTest, ReadsTheMappingsWithTheirProtection) {
  const Read r = ReadBytes(FixtureBytes());
  ASSERT_TRUE(r.counts.ok()) << r.counts.status().message();
  // perf report -D: 1 MMAP (the kernel) and 73 MMAP2, of which 14 are r-xp (13 files and [vdso]).
  ASSERT_EQ(r.mmaps.size(), 74u);
  std::size_t executable = 0;
  const PerfDataMmap* dnnl_code = nullptr;
  for (const PerfDataMmap& m : r.mmaps) {
    if (m.pid != kRecordedPid || !m.executable) continue;
    ++executable;
    if (m.filename == "/usr/lib/x86_64-linux-gnu/libdnnl.so.2.6") dnnl_code = &m;
  }
  EXPECT_EQ(executable, 14u);
  ASSERT_NE(dnnl_code, nullptr);
  // [0x7fdb7c0e5000(0x2041000) @ 0xe5000 ...]: r-xp /usr/lib/x86_64-linux-gnu/libdnnl.so.2.6
  EXPECT_EQ(dnnl_code->start, 0x7fdb7c0e5000u);
  EXPECT_EQ(dnnl_code->length, 0x2041000u);
  EXPECT_EQ(dnnl_code->file_offset, 0xe5000u);
  EXPECT_TRUE(r.forks.empty());  // one process, one thread
}

TEST(PerfDataTest, RejectsWhatIsNotPerfData) {
  const Read r = ReadBytes(std::string(200, 'x'));
  ASSERT_FALSE(r.counts.ok());
  EXPECT_EQ(r.counts.status().message(), "not a readable perf.data: no PERFILE2 magic");
  const Read empty = ReadBytes("");
  ASSERT_FALSE(empty.counts.ok());
  EXPECT_EQ(empty.counts.status().message(), "not a readable perf.data: shorter than its header");
}

TEST(PerfDataTest, RejectsAttributesOfAnUnknownSize) {
  std::string bytes = FixtureBytes();
  ASSERT_GT(bytes.size(), 24u);
  // The header's attr_size (bytes 16-23): found by the fuzzer (fuzz/perf_data_fuzz.cpp) as an
  // allocation of exabytes.
  const std::uint64_t huge = 0x7669626178786390;
  bytes.replace(16, 8, reinterpret_cast<const char*>(&huge), 8);
  const Read r = ReadBytes(bytes);
  ASSERT_FALSE(r.counts.ok());
  EXPECT_EQ(r.counts.status().message(),
            "not a readable perf.data: event attributes of an unknown size");
}

TEST(PerfDataTest, RejectsARecordingCutShort) {
  const std::string bytes = FixtureBytes();
  ASSERT_GT(bytes.size(), 0x3000u);
  // The data section begins before 0x3000 and the header still says it is longer.
  const Read r = ReadBytes(bytes.substr(0, 0x3000));
  ASSERT_FALSE(r.counts.ok());
  EXPECT_EQ(r.counts.status().message().rfind("not a readable perf.data: ", 0), 0u)
      << r.counts.status().message();
  EXPECT_LT(r.samples.size(), 14u);
}

}  // namespace
}  // namespace dlcheck::profile
