// SPDX-License-Identifier: Apache-2.0
// Stack scanning: call instructions by their bytes, perf maps' ranges, the scan of a stack built
// here from this test's own return address (named from this binary's symbol table, found
// through /proc/self/maps), the JIT samples of the recorded oneDNN convolution, and the splice
// of scanned callers into a profile (samples counted once, the operator found above the JIT).
#include "profile/stack_scan.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "profile/profile.h"
#include "profile/profile_report.h"

namespace dlcheck::profile {
namespace {

std::string DataPath(const std::string& name) {
  return std::string(DLCHECK_TEST_DATA) + "/profile/" + name;
}

std::string ReadText(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool CallBefore(std::vector<std::uint8_t> bytes) {
  return EndsInCall(bytes);
}

TEST(StackScanTest, CallInstructionsByTheirBytes) {
  EXPECT_TRUE(CallBefore({0x90, 0x90, 0xE8, 0x10, 0x20, 0x30, 0x40}));   // call rel32
  EXPECT_TRUE(CallBefore({0x90, 0x90, 0x90, 0x90, 0x90, 0xFF, 0xD0}));   // call rax
  EXPECT_TRUE(CallBefore({0x90, 0x41, 0xFF, 0xD3}));                     // call r11
  EXPECT_TRUE(CallBefore({0x90, 0xFF, 0x15, 0x01, 0x02, 0x03, 0x04}));   // call [rip+disp32]
  EXPECT_TRUE(CallBefore({0x90, 0x90, 0x90, 0xFF, 0x54, 0x24, 0x08}));   // call [rsp+8]
  EXPECT_TRUE(CallBefore({0x90, 0x90, 0x90, 0x90, 0x90, 0xFF, 0x10}));   // call [rax]
  EXPECT_TRUE(CallBefore({0x90, 0x90, 0x90, 0x90, 0xFF, 0x50, 0x18}));   // call [rax+0x18]
  EXPECT_FALSE(CallBefore({0x90, 0x90, 0x90, 0x90, 0x90, 0xFF, 0xE0}));  // jmp rax
  EXPECT_FALSE(CallBefore({0x90, 0x90, 0x90, 0x90, 0x90, 0xFF, 0x15}));  // cut short
  EXPECT_FALSE(CallBefore({0, 0, 0, 0, 0, 0, 0}));
  EXPECT_FALSE(CallBefore({0xC3}));
  EXPECT_FALSE(CallBefore({}));
}

TEST(StackScanTest, PerfMapRangesSorted) {
  // oneDNN's perf map of the recorded convolution: four kernels.
  const auto ranges = ParsePerfMapRanges(ReadText(DataPath("perf-11626.map")));
  ASSERT_EQ(ranges.size(), 4u);
  EXPECT_EQ(ranges.front(), std::make_pair(std::uint64_t{0x7fdb7bb00000}, 0x7fdb7bb00460u));
  EXPECT_EQ(ranges.back(), std::make_pair(std::uint64_t{0x7fdb7bbc0000}, 0x7fdb7bbc0b6du));
  EXPECT_TRUE(ParsePerfMapRanges("not a map\n\n7f00 0 empty\n").empty());
}

// The executable file mappings of this process, as perf would record them.
std::vector<PerfDataMmap> OwnCodeMappings() {
  std::vector<PerfDataMmap> maps;
  std::istringstream lines(ReadText("/proc/self/maps"));
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    if (perms.size() < 3 || perms[2] != 'x' || !path.starts_with('/')) continue;
    const std::size_t dash = range.find('-');
    PerfDataMmap m{.pid = static_cast<std::uint32_t>(getpid()),
                   .start = std::stoull(range.substr(0, dash), nullptr, 16),
                   .length = 0,
                   .file_offset = std::stoull(offset, nullptr, 16),
                   .executable = true,
                   .filename = path};
    m.length = std::stoull(range.substr(dash + 1), nullptr, 16) - m.start;
    maps.push_back(m);
  }
  return maps;
}

[[gnu::noinline]] std::uint64_t ReturnAddressHere() {
  return reinterpret_cast<std::uint64_t>(__builtin_return_address(0));
}

// A real call site: the address ReturnAddressHere returns to lies in this function, after a call.
[[gnu::noinline]] std::uint64_t CallerOfReturnAddressHere() {
  const std::uint64_t address = ReturnAddressHere();
  asm volatile("" : : "r"(address) : "memory");  // no tail call: the call returns here
  return address;
}

std::vector<std::uint8_t> Words(const std::vector<std::uint64_t>& words) {
  std::vector<std::uint8_t> bytes(words.size() * 8);
  std::memcpy(bytes.data(), words.data(), bytes.size());
  return bytes;
}

TEST(StackScanTest, FindsAReturnAddressAmongOtherWords) {
  ReturnAddressScanner scanner;
  for (const PerfDataMmap& m : OwnCodeMappings()) scanner.AddMapping(m);
  const std::uint64_t ret = CallerOfReturnAddressHere();
  static int data_word = 0;
  const std::uint64_t heap = reinterpret_cast<std::uint64_t>(&scanner);
  const std::vector<std::uint8_t> stack =
      Words({0, 42, reinterpret_cast<std::uint64_t>(&data_word), heap, ret, ret, ~0ull});
  const std::vector<Frame> frames = scanner.Scan(static_cast<std::uint32_t>(getpid()), stack);
  ASSERT_EQ(frames.size(), 1u);  // the repeated address once
  EXPECT_NE(frames[0].symbol.find("CallerOfReturnAddressHere()"), std::string::npos)
      << frames[0].symbol;
  char exe[4096] = {};
  ASSERT_GT(readlink("/proc/self/exe", exe, sizeof exe - 1), 0);
  EXPECT_EQ(frames[0].dso, exe);
  EXPECT_EQ(scanner.files_unreadable(), 0u);
  // Another process has none of these mappings.
  EXPECT_TRUE(scanner.Scan(static_cast<std::uint32_t>(getpid()) + 1, stack).empty());
}

TEST(StackScanTest, ForkedProcessInheritsMappingsThreadsShareThem) {
  ReturnAddressScanner scanner;
  const auto pid = static_cast<std::uint32_t>(getpid());
  for (const PerfDataMmap& m : OwnCodeMappings()) scanner.AddMapping(m);
  scanner.Fork({.pid = pid + 7, .ppid = pid});
  const std::vector<std::uint8_t> stack = Words({CallerOfReturnAddressHere()});
  EXPECT_EQ(scanner.Scan(pid + 7, stack).size(), 1u);
}

TEST(StackScanTest, FindsTheJitSamplesOfTheRecording) {
  const StatusOr<ScannedStacks> scanned =
      ScanJitStacks(DataPath("jit_conv.perf.data"), DataPath(""));
  ASSERT_TRUE(scanned.ok()) << scanned.status().message();
  // perf script: 13 of the 14 samples are in jit_brgemm_kernel_t (the perf map's), all with a
  // stack copy. Which callers are found depends on this host's libdnnl and libc (their bytes
  // and symbols), so only their bound is checked.
  EXPECT_EQ(scanned->jit_samples, 13u);
  EXPECT_EQ(scanned->jit_with_stack, 13u);
  EXPECT_LE(scanned->size(), 13u);
  EXPECT_LE(scanned->distinct(), scanned->size());
  const StatusOr<ScannedStacks> missing = ScanJitStacks(DataPath("no-such.data"), DataPath(""));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message(), "cannot read " + DataPath("no-such.data"));
}

PerfRecord JitSample(int tid, std::uint64_t time_ns) {
  PerfRecord r;
  r.comm = "python3";
  r.pid = 40;
  r.tid = tid;
  r.time_ns = time_ns;
  r.time_s = static_cast<double>(time_ns) / 1e9;
  r.event = "cpu-clock";
  r.frames = {{"jit_avx512_common_conv_fwd_kernel", "/tmp/perf-40.map"}};
  return r;
}

TEST(StackScanTest, ScannedCallersAreSplicedAboveTheJitFrameWithoutAddingSamples) {
  ScannedStacks scanned;
  const std::vector<Frame> callers = {
      {"dnnl_primitive_execute", "/usr/lib/x86_64-linux-gnu/libdnnl.so.2.6"},
      {"at::_ops::mkldnn_convolution::call(at::Tensor const&)", "/usr/lib/libtorch_cpu.so"}};
  scanned.Add({41, 5'000'000'001}, callers);
  ProfileBuilder builder;
  builder.UseScannedStacks(&scanned);
  builder.Add(JitSample(41, 5'000'000'001));  // joined: same thread, same nanosecond
  builder.Add(JitSample(41, 5'000'000'002));  // not: another time
  builder.Add(JitSample(42, 5'000'000'001));  // not: another thread
  const Profile& p = builder.profile();
  EXPECT_EQ(p.samples, 3u);
  EXPECT_EQ(p.class_samples[static_cast<std::size_t>(CpuClass::kJit)], 3u);
  EXPECT_EQ(p.scanned_samples, 1u);
  EXPECT_EQ(p.scanned_frames, 2u);
  EXPECT_EQ(p.operators.at("aten::mkldnn_convolution").samples, 1u);
  EXPECT_EQ(p.operators.at("aten::mkldnn_convolution").beneath,
            (std::map<std::string, std::uint64_t>{{"jit_avx512_common_conv_fwd_kernel", 1}}));
  EXPECT_EQ(p.operators.at(std::string(kNoOperator)).samples, 2u);
  EXPECT_EQ(p.folded.at("python3;at::_ops::mkldnn_convolution::call;dnnl_primitive_execute;"
                        "jit_avx512_common_conv_fwd_kernel_[j]"),
            1u);
  EXPECT_EQ(p.folded.at("python3;jit_avx512_common_conv_fwd_kernel_[j]"), 2u);
}

TEST(StackScanTest, AKernelSampleEnteredFromJitCodeGetsTheCallersToo) {
  ScannedStacks scanned;
  scanned.Add({41, 7}, {{"at::_ops::convolution_backward::call(at::Tensor const&)",
                         "/usr/lib/libtorch_cpu.so"}});
  PerfRecord fault = JitSample(41, 7);  // a page fault on the kernel's first touch of memory
  fault.frames.insert(fault.frames.begin(), {"exc_page_fault", "[kernel.kallsyms]"});
  PerfRecord in_kernel = JitSample(41, 8);  // kernel code not entered from JIT: left alone
  in_kernel.frames = {{"exc_page_fault", "[kernel.kallsyms]"}, {"memset", "/lib/libc.so.6"}};
  scanned.Add({41, 8}, {{"at::_ops::mm::call(at::Tensor const&)", "/usr/lib/libtorch_cpu.so"}});
  ProfileBuilder builder;
  builder.UseScannedStacks(&scanned);
  builder.Add(fault);
  builder.Add(in_kernel);
  const Profile& p = builder.profile();
  EXPECT_EQ(p.samples, 2u);
  EXPECT_EQ(p.class_samples[static_cast<std::size_t>(CpuClass::kKernel)], 2u);
  EXPECT_EQ(p.scanned_samples, 1u);
  EXPECT_EQ(p.operators.at("aten::convolution_backward").samples, 1u);
  EXPECT_EQ(p.folded.at("python3;at::_ops::convolution_backward::call;"
                        "jit_avx512_common_conv_fwd_kernel_[j];exc_page_fault_[k]"),
            1u);
}

TEST(StackScanTest, ScannedStacksKeepEachStackOnceAndFindSamplesInAnyOrder) {
  ScannedStacks scanned;
  const std::vector<Frame> a = {{"f", "/lib/a.so"}};
  const std::vector<Frame> b = {{"f", "/lib/b.so"}};
  scanned.Add({1, 30}, a);
  scanned.Add({1, 10}, b);  // out of time order: perf.data is only nearly sorted
  scanned.Add({2, 20}, a);
  EXPECT_EQ(scanned.size(), 3u);
  EXPECT_EQ(scanned.distinct(), 2u);
  ASSERT_NE(scanned.CallersOf({1, 10}), nullptr);
  EXPECT_EQ(scanned.CallersOf({1, 10})->front().dso, "/lib/b.so");
  EXPECT_EQ(scanned.CallersOf({2, 20})->front().dso, "/lib/a.so");
  EXPECT_EQ(scanned.CallersOf({2, 30}), nullptr);
}

TEST(StackScanTest, OperatorsTableNamesWhatIsBeneathMostFirstAndCountsTheRest) {
  Profile p;
  p.samples = 28;
  OperatorSamples& conv = p.operators["aten::convolution_backward"];
  conv.samples = 28;
  conv.beneath = {{"a_kernel", 1}, {"b_kernel", 7}, {"c_kernel", 6}, {"d_kernel", 5},
                  {"e_kernel", 4}, {"f_kernel", 3}, {"sgemm_", 2}};
  report::Report report;
  AddProfileTables(report, p, {}, {});
  const report::Table* table = nullptr;
  for (const report::Table& t : report.tables) {
    if (t.name == "operators") table = &t;
  }
  ASSERT_NE(table, nullptr);
  ASSERT_EQ(table->rows.size(), 1u);
  const auto beneath = std::find(table->columns.begin(), table->columns.end(), "beneath");
  ASSERT_NE(beneath, table->columns.end());
  EXPECT_EQ(table->rows[0][static_cast<std::size_t>(beneath - table->columns.begin())],
            report::Value("b_kernel 7, c_kernel 6, d_kernel 5, e_kernel 4, f_kernel 3, 2 more"));
}

TEST(StackScanTest, SpliceReplacesWhatFollowsTheJitFrames) {
  const std::vector<Frame> unwound = {{"kernel_a", "/tmp/perf-1.map"}, {"[unknown]", "[unknown]"}};
  const std::vector<Frame> callers = {{"caller", "/usr/lib/libx.so"}};
  const std::vector<Frame> spliced = SpliceCallers(unwound, callers);
  ASSERT_EQ(spliced.size(), 2u);
  EXPECT_EQ(spliced[0].symbol, "kernel_a");
  EXPECT_EQ(spliced[1].symbol, "caller");
}

}  // namespace
}  // namespace dlcheck::profile
