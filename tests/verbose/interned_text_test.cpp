// SPDX-License-Identifier: Apache-2.0
// Interned texts (one copy per process) and what a distinct primitive costs in memory.
#include "verbose/interned_text.h"

#include <gtest/gtest.h>
#include <malloc.h>

#include <string>
#include <thread>
#include <vector>

#include "verbose/log_session.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DLCHECK_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define DLCHECK_ASAN 1
#endif
#ifdef DLCHECK_ASAN
// The sanitizer runtime's count of the heap in use (GCC ships no header that declares it).
extern "C" std::size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace dlcheck::verbose {
namespace {

TEST(InternedTextTest, EqualTextsShareOneEntry) {
  const std::string convolution = "convolution";
  const InternedText a(convolution);
  const InternedText b(std::string_view("convolution"));
  const InternedText c("convolution_v2");
  EXPECT_EQ(a, b);
  EXPECT_EQ(&a.str(), &b.str());  // one copy of the text
  EXPECT_NE(a, c);
  EXPECT_EQ(a, "convolution");
  EXPECT_EQ(a.view(), convolution);
  EXPECT_LT(a, c);
  EXPECT_EQ("x " + a + " y", "x convolution y");
}

TEST(InternedTextTest, TheEmptyTextIsTheDefault) {
  const InternedText none;
  const InternedText empty("");
  EXPECT_EQ(none, empty);
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.str(), "");
  InternedText assigned("x");
  assigned = std::string_view();
  EXPECT_TRUE(assigned.empty());
}

TEST(InternedTextTest, NewTextsGrowThePoolAndRepeatsDoNot) {
  const std::size_t before = InternedText::PoolTexts();
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 100; ++i) InternedText("pool-growth-" + std::to_string(i));
  }
  EXPECT_EQ(InternedText::PoolTexts(), before + 100);
}

// Rows are made on more than one thread (fleet readers, capture threads): the same text from
// any thread is the same entry.
TEST(InternedTextTest, ThreadsInterningTheSameTextsGetTheSameEntries) {
  constexpr int kThreads = 4;
  constexpr int kTexts = 5000;
  std::vector<std::vector<const std::string*>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([t, &seen] {
      for (int i = 0; i < kTexts; ++i) {
        seen[t].push_back(&InternedText("threaded-" + std::to_string(i)).str());
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 1; t < kThreads; ++t) EXPECT_EQ(seen[t], seen[0]);
  for (int i = 0; i < kTexts; ++i) EXPECT_EQ(*seen[0][i], "threaded-" + std::to_string(i));
}

std::size_t HeapBytesInUse() {
#ifdef DLCHECK_ASAN
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;  // small blocks and mmapped ones
#endif
}

// A log of many distinct shapes (a dynamic-shape model prints one per sequence length): each
// distinct primitive costs its row, its texts that no other row has (here the problem), and
// its index slot, well under 1 KB. Measured as the heap the whole session (rows, index, memo,
// pool) takes for kMaxRows distinct primitives of a real oneDNN 3.x convolution line.
TEST(InternedTextTest, ADistinctPrimitiveCostsWellUnderAKilobyte) {
  const std::string head =
      "onednn_verbose,v1,primitive,exec,cpu,convolution,jit:avx2,forward_training,"
      "src:f32:a:blocked:aBcd8b::f0 wei:f32:a:blocked:ABcd8b8a::f0 bia:f32::blocked:a::f0 "
      "dst:f32:a:blocked:aBcd8b::f0,attr-scratchpad:user attr-post-ops:eltwise_relu,"
      "alg:convolution_direct,mb2_ic16oc32_ih";
  const std::size_t before = HeapBytesInUse();
  {
    LogSession session;
    std::uint64_t number = 0;
    std::string line;
    for (std::size_t shape = 1; shape <= kMaxRows; ++shape) {
      line = head + std::to_string(shape) + "oh" + std::to_string(shape) +
             "kh3sh1dh0ph1_iw13ow13kw3sw1dw0pw1,0.0820312";
      session.Feed(line, ++number);
    }
    session.Finish();
    ASSERT_EQ(session.aggregator().rows().size(), kMaxRows);
    const double per_row =
        static_cast<double>(HeapBytesInUse() - before) / static_cast<double>(kMaxRows);
    RecordProperty("bytes_per_distinct_primitive", std::to_string(per_row));
    std::cout << "heap per distinct primitive: " << per_row << " bytes\n";
    EXPECT_LT(per_row, 768.0);
  }
}

}  // namespace
}  // namespace dlcheck::verbose
