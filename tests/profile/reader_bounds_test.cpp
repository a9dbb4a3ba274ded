// SPDX-License-Identifier: Apache-2.0
// Issue 37, class 3: profile's readers are bounded whatever a recording holds. A perf.data that
// claims more event ids than any machine has, a symbol that demangles into gigabytes, more
// distinct stacks or copied mappings than any run makes, a FIFO or a device where a regular
// file is expected: each ends in a clear error or a named bound, in little memory and time,
// never in the OOM killer or a read that waits forever. The inputs are built here from the
// recorded fixture (tests/data/profile/jit_conv.perf.data) and from this test's own mappings.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "profile/perf_data.h"
#include "profile/stack_scan.h"
#include "support/scratch_dir.h"

namespace dlcheck::profile {
namespace {

std::string FixturePath() {
  return std::string(DLCHECK_TEST_DATA) + "/profile/jit_conv.perf.data";
}

std::string FixtureBytes() {
  std::ifstream in(FixturePath(), std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

std::uint64_t U64At(const std::string& bytes, std::size_t at) {
  std::uint64_t v = 0;
  std::memcpy(&v, bytes.data() + at, 8);
  return v;
}

long MaxRssKiB() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

// A name whose every level names the one before twice (P<S, S>): its demangling doubles every
// two levels, 60 levels print about 2^30 times 50 bytes.
std::string DemanglingBomb(int levels) {
  const auto base36 = [](int i) {
    std::string r;
    do {
      r.insert(r.begin(), "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"[i % 36]);
      i /= 36;
    } while (i != 0);
    return r;
  };
  std::string name = "_Z1fI1PIiiE";
  for (int i = 0; i < levels; ++i) name += "S_IS" + base36(i) + "_S" + base36(i) + "_E";
  return name + "EvT_";
}

class ProfileReadersBounded : public dlcheck::testing::ScratchDirTest {};

TEST_F(ProfileReadersBounded, EventIdsPastTheBoundAreRefusedBeforeTheyAreStored) {
  std::string bytes = FixtureBytes();
  ASSERT_GT(bytes.size(), 104u);
  const std::uint64_t attr_size = U64At(bytes, 16);
  const std::uint64_t attrs_at = U64At(bytes, 24);
  // The first event's ids section: {offset, size} in the last 16 bytes of its attribute.
  const std::uint64_t ids_size = (kMaxPerfDataIds + 1) * 8;
  bytes.replace(attrs_at + attr_size - 8, 8, reinterpret_cast<const char*>(&ids_size), 8);
  std::istringstream in(bytes);
  const StatusOr<PerfDataCounts> read = ReadPerfData(in, {});
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().message(),
            "not a readable perf.data: more than 262144 event ids (one per CPU and event)");
}

TEST_F(ProfileReadersBounded, ADemanglingBombStaysMangledInLittleMemory) {
  EXPECT_EQ(Demangle("_ZN3foo3barEv"), "foo::bar()");
  EXPECT_EQ(Demangle("_ZN3foo3barEv.part.0"), "foo::bar()");
  EXPECT_EQ(Demangle("main"), "main");
  EXPECT_EQ(Demangle("f"), "f");  // a C name, not the mangled type "float"
  // A short one is demangled as it is (1,450 bytes).
  EXPECT_EQ(Demangle(DemanglingBomb(10)).rfind("void f<P<int, int>", 0), 0u);
  const long rss_before = MaxRssKiB();
  const auto start = std::chrono::steady_clock::now();
  const std::string bomb = DemanglingBomb(60);
  EXPECT_EQ(Demangle(bomb), bomb);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_LT(seconds, 10.0);
  EXPECT_LT(MaxRssKiB() - rss_before, 64 * 1024);  // KiB: the child's memory is not ours
  const std::string long_symbol = "_ZN" + std::string(5000, 'a') + "E";
  EXPECT_EQ(Demangle(long_symbol), long_symbol);
}

// The processes whose parent is this one.
int OwnChildren() {
  std::ifstream children("/proc/self/task/" + std::to_string(getpid()) + "/children");
  int n = 0;
  for (pid_t pid = 0; children >> pid;) ++n;
  return n;
}

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Issue 51, class 7: 64 bombs in one scan (the budget of one scan) cost the budget's seconds
// and one child's memory at most, each left mangled, and no child outlives its call; a name
// that needs no child is still demangled after the budget is spent.
TEST_F(ProfileReadersBounded, SixtyFourBombsCostTheBudgetNotDlchecksMemory) {
  DemanglerBudget budget;
  const long rss_before = MaxRssKiB();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 64; ++i) {
    const std::string bomb = DemanglingBomb(40 + i);
    EXPECT_EQ(Demangle(bomb, budget), bomb);
  }
  // The budget and the last child's own bound past it, with room for a busy machine.
  EXPECT_LT(SecondsSince(start), DemanglerBudget::kSeconds + DemanglerBudget::kChildSeconds + 4);
  EXPECT_LT(MaxRssKiB() - rss_before, 64 * 1024);
  EXPECT_EQ(OwnChildren(), 0);
  EXPECT_EQ(Demangle("_ZN3foo3barEv", budget), "foo::bar()");
}

// Once spent, a name that would need a child stays mangled at once, and the bound is said with
// the names it left mangled.
TEST_F(ProfileReadersBounded, ASpentBudgetLeavesTheRestMangledAndSaysSo) {
  DemanglerBudget budget({}, 0.3);
  EXPECT_EQ(budget.BoundReached(), "");
  for (int i = 0; i < 64 && budget.left_mangled() == 0; ++i) {
    EXPECT_EQ(Demangle(DemanglingBomb(40 + i), budget), DemanglingBomb(40 + i));
  }
  ASSERT_EQ(budget.left_mangled(), 1);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 10; ++i) {
    EXPECT_EQ(Demangle(DemanglingBomb(61 + i), budget), DemanglingBomb(61 + i));
  }
  // A short expansion that would demangle in a child is left mangled too: nothing is left.
  EXPECT_EQ(Demangle(DemanglingBomb(10), budget), DemanglingBomb(10));
  EXPECT_LT(SecondsSince(start), 1.0);  // no child started
  EXPECT_EQ(budget.left_mangled(), 12);
  EXPECT_EQ(budget.BoundReached(),
            "the demangler's 0.3 s (its children together) were spent: 12 names that could "
            "demangle explosively left mangled");
}

// A stop (a signal) starts no other child: the names after it stay mangled at once (a child at
// work is ended by the same stop: child_call_test).
TEST_F(ProfileReadersBounded, AStopStartsNoOtherDemanglerChild) {
  bool signalled = false;
  DemanglerBudget budget([&signalled] { return signalled; }, 60);
  EXPECT_EQ(Demangle(DemanglingBomb(10), budget).rfind("void f<P<int, int>", 0), 0u);
  signalled = true;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 8; ++i) {
    EXPECT_EQ(Demangle(DemanglingBomb(60 + i), budget), DemanglingBomb(60 + i));
  }
  EXPECT_EQ(Demangle(DemanglingBomb(10), budget), DemanglingBomb(10));
  EXPECT_LT(SecondsSince(start), 1.0);
  EXPECT_EQ(budget.left_mangled(), 9);
  EXPECT_EQ(budget.BoundReached(), "");  // a stopped scan says it was stopped, not this
  EXPECT_EQ(OwnChildren(), 0);
}

TEST_F(ProfileReadersBounded, DistinctStacksAreBoundedByTheirFrames) {
  ScannedStacks scanned;
  std::vector<Frame> callers(256, Frame{"caller", "/usr/lib/libx.so"});
  for (std::uint64_t i = 0; i < 2000; ++i) {
    callers.front().symbol = "caller" + std::to_string(i);
    scanned.Add({1, i}, callers);
  }
  EXPECT_EQ(scanned.distinct(), (std::size_t{1} << 18) / 256);
  EXPECT_EQ(scanned.size(), scanned.distinct());  // the others got no callers
  ASSERT_EQ(scanned.bounds_reached.size(), 1u);
  EXPECT_NE(scanned.bounds_reached.begin()->find("more than 262144 frames"), std::string::npos);
  EXPECT_EQ(scanned.CallersOf({1, 1999}), nullptr);
  ASSERT_NE(scanned.CallersOf({1, 0}), nullptr);
}

TEST_F(ProfileReadersBounded, AForkStormCopiesMappingsUpToTheBound) {
  ReturnAddressScanner scanner;
  for (std::uint64_t i = 0; i < 100; ++i) {
    scanner.AddMapping({.pid = 1,
                        .start = 0x400000 + i * 0x1000,
                        .length = 0x1000,
                        .executable = true,
                        .filename = "/usr/lib/lib" + std::to_string(i) + ".so"});
  }
  for (std::uint32_t pid = 2; pid < 5000; ++pid) scanner.Fork({.pid = pid, .ppid = 1});
  ASSERT_EQ(scanner.bounds_reached().size(), 1u);
  EXPECT_NE(scanner.bounds_reached().begin()->find("more than 262144 file mappings"),
            std::string::npos);
}

TEST_F(ProfileReadersBounded, AFifoOrADeviceIsRefusedNotRead) {
  // perf.data itself: a FIFO (which no one writes) and /dev/zero (which never ends).
  const std::string fifo = (dir_ / "perf.data").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/zero")}) {
    const StatusOr<ScannedStacks> scanned = ScanJitStacks(path, dir_.string());
    ASSERT_FALSE(scanned.ok()) << path;
    EXPECT_EQ(scanned.status().message(), "cannot read " + path + ": not a regular file");
  }
  // The recording's perf map: a FIFO in its place is named, and the scan goes on without it.
  const std::string map = (dir_ / "perf-11626.map").string();
  ASSERT_EQ(mkfifo(map.c_str(), 0600), 0);
  const StatusOr<ScannedStacks> scanned = ScanJitStacks(FixturePath(), dir_.string());
  ASSERT_TRUE(scanned.ok()) << scanned.status().message();
  EXPECT_EQ(scanned->jit_samples, 0u);
  ASSERT_EQ(scanned->bounds_reached.size(), 1u);
  EXPECT_EQ(*scanned->bounds_reached.begin(),
            "cannot read perf map '" + map + "': it is a FIFO, not a regular file");
  // A map that is a link to /dev/zero.
  ASSERT_EQ(unlink(map.c_str()), 0);
  ASSERT_EQ(symlink("/dev/zero", map.c_str()), 0);
  const StatusOr<ScannedStacks> zero = ScanJitStacks(FixturePath(), dir_.string());
  ASSERT_TRUE(zero.ok()) << zero.status().message();
  ASSERT_EQ(zero->bounds_reached.size(), 1u);
  EXPECT_EQ(*zero->bounds_reached.begin(),
            "cannot read perf map '" + map + "': it is a character device, not a regular file");
}

TEST_F(ProfileReadersBounded, AStopEndsTheScanAtOnce) {
  int asked = 0;
  const StatusOr<ScannedStacks> scanned =
      ScanJitStacks(FixturePath(), std::string(DLCHECK_TEST_DATA) + "/profile", [&] {
        ++asked;
        return true;
      });
  ASSERT_TRUE(scanned.ok()) << scanned.status().message();
  EXPECT_TRUE(scanned->stopped);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(scanned->jit_samples, 0u);
}

}  // namespace
}  // namespace dlcheck::profile
