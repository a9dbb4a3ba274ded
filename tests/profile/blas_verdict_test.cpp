// SPDX-License-Identifier: Apache-2.0
// profile names the BLAS a sample is in (issue 31, item 10), opens with one verdict line and
// points its OpenMP finding at the thread-set comparison (issue 35, row 4), and marks what stack
// scanning found (issue 35, row 9): the dynamic loader's stale words are no frames, scanned
// frames carry "_[s]".
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <sstream>
#include <string>

#include "profile/classify.h"
#include "profile/profile.h"
#include "profile/profile_report.h"
#include "profile/stack_scan.h"

namespace dlcheck::profile {
namespace {

const report::Finding* FindingOf(const report::Report& r, std::string_view code) {
  for (const auto& f : r.findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

PerfRecord Sample(double time_s, std::vector<Frame> frames) {
  PerfRecord r;
  r.comm = "python3";
  r.pid = 40;
  r.tid = 40;
  r.time_s = time_s;
  r.event = "cycles";
  r.frames = std::move(frames);
  return r;
}

// `blas` of 100 samples in sgemm_ of `library`, the rest in the interpreter.
Profile WithBlas(int blas, const std::string& library) {
  ProfileBuilder builder;
  for (int i = 0; i < 100; ++i) {
    builder.Add(Sample(1.0 + i * 0.01, i < blas ? std::vector<Frame>{{"sgemm_", library}}
                                                : std::vector<Frame>{{"_PyEval_EvalFrameDefault",
                                                                      "/usr/bin/python3.11"}}));
  }
  return builder.profile();
}

TEST(ProfileNamesTheBlas, ByItsFileAndDebiansAlternatives) {
  constexpr std::string_view kLib = "/usr/lib/x86_64-linux-gnu/";
  EXPECT_EQ(BlasImplementation(std::string(kLib) + "blas/libblas.so.3", ""), kReferenceBlas);
  EXPECT_EQ(BlasImplementation(std::string(kLib) + "openblas-pthread/libblas.so.3", ""),
            "OpenBLAS");
  EXPECT_EQ(BlasImplementation(std::string(kLib) + "libopenblas.so.0", ""), "OpenBLAS");
  EXPECT_EQ(BlasImplementation(std::string(kLib) + "blis-openmp/libblas.so.3", ""), "BLIS");
  EXPECT_EQ(BlasImplementation("/opt/intel/oneapi/mkl/lib/libmkl_core.so.2", ""), "MKL");
  EXPECT_EQ(BlasImplementation(std::string(kLib) + "atlas/libblas.so.3", ""), "ATLAS");
  // Linked into a framework: the symbol says which.
  EXPECT_EQ(BlasImplementation("/x/libtorch_cpu.so", "mkl_blas_avx512_sgemm"), "MKL");
  EXPECT_EQ(BlasImplementation("/x/numpy.so", "sgemm_kernel_HASWELL"), "OpenBLAS");
  EXPECT_EQ(BlasImplementation("/x/libtorch_cpu.so", "sgemm_"), "");
}

TEST(ProfileNamesTheBlas, AReferenceBlasHoldingMuchTimeNamesThePackageThatReplacesIt) {
  const std::string reference = "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3";
  report::Report report(ProfileDocument());
  AddProfileTables(report, WithBlas(35, reference), {}, {});
  const report::Table* blas = report.FindTable(kBlasTable.name);
  ASSERT_NE(blas, nullptr);
  ASSERT_EQ(blas->rows.size(), 1u);
  EXPECT_EQ(std::get<std::string>(blas->rows[0][1].data), kReferenceBlas);
  const report::Finding* f = FindingOf(report, "reference-blas");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("35 % of CPU time in the reference BLAS"), std::string::npos)
      << f->message;
  EXPECT_NE(f->message.find("install libopenblas0-pthread"), std::string::npos) << f->message;
  EXPECT_EQ(ProfileVerdict(WithBlas(60, reference), {}),
            "60 % in a BLAS library, 100 % of it the reference BLAS");
  // A small share, or an optimised BLAS: no finding.
  report::Report small(ProfileDocument());
  AddProfileTables(small, WithBlas(5, reference), {}, {});
  EXPECT_EQ(FindingOf(small, "reference-blas"), nullptr);
  report::Report openblas(ProfileDocument());
  AddProfileTables(openblas,
                   WithBlas(50, "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"), {}, {});
  EXPECT_EQ(FindingOf(openblas, "reference-blas"), nullptr);
}

TEST(ProfileVerdictLine, NamesTheLargestClassAndItsTopKernel) {
  ProfileBuilder builder;
  for (int i = 0; i < 100; ++i) {
    const char* kernel = i < 66   ? "jit_brgemm_kernel_t"
                         : i < 86 ? "jit_uni_reorder_kernel_f32"
                                  : nullptr;
    builder.Add(Sample(1.0 + i * 0.01, kernel != nullptr
                                           ? std::vector<Frame>{{kernel, "/tmp/perf-40.map"}}
                                           : std::vector<Frame>{{"gomp_barrier_wait_end",
                                                                 "/usr/lib/libgomp.so.1"}}));
  }
  verbose::PrimitiveStats ip;
  ip.primitive = "inner_product";
  ip.implementation = "brgemm:avx512_core";
  EXPECT_EQ(ProfileVerdict(builder.profile(), {ip}),
            "86 % in oneDNN JIT kernels, 77 % of them jit_brgemm_kernel_t (inner_product)");
  EXPECT_EQ(ProfileVerdict(Profile{}, {}), "");
}

TEST(ProfileVerdictLine, TheOpenMpFindingPointsAtTheThreadSetComparison) {
  ProfileBuilder builder;
  for (int i = 0; i < 10; ++i) {
    builder.Add(Sample(1.0 + i * 0.1, {{"gomp_barrier_wait_end", "/usr/lib/libgomp.so.1"}}));
  }
  report::Report report(ProfileDocument());
  AddProfileTables(report, builder.profile(), {}, {});
  const report::Finding* f = FindingOf(report, "openmp-share");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("dlcheck dispatch --thread-sets 1,all"), std::string::npos)
      << f->message;
}

// This process's executable mapping of `object` (the dynamic loader, libc), as perf records it.
std::optional<PerfDataMmap> CodeMappingOf(std::string_view object) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    if (perms.size() < 3 || perms[2] != 'x' || path.find(object) == std::string::npos) continue;
    const std::size_t dash = range.find('-');
    PerfDataMmap m{.pid = static_cast<std::uint32_t>(getpid()),
                   .start = std::stoull(range.substr(0, dash), nullptr, 16),
                   .file_offset = std::stoull(offset, nullptr, 16),
                   .executable = true,
                   .filename = path};
    m.length = std::stoull(range.substr(dash + 1), nullptr, 16) - m.start;
    return m;
  }
  return std::nullopt;
}

// An address just after a `call rel32` in the mapping: a word stack scanning takes for a
// return address.
std::uint64_t AfterACall(const PerfDataMmap& m) {
  const auto* code = reinterpret_cast<const std::uint8_t*>(m.start);
  for (std::uint64_t i = 4096; i + 5 < m.length; ++i) {
    if (code[i] == 0xE8) return m.start + i + 5;
  }
  return 0;
}

TEST(ScannedFrames, TheLoadersStaleWordsAreNoFramesOthersAreMarked) {
  const std::optional<PerfDataMmap> loader = CodeMappingOf("/ld-linux");
  const std::optional<PerfDataMmap> libc = CodeMappingOf("/libc.so");
  if (!loader || !libc) GTEST_SKIP() << "no ld-linux or libc mapping in this process";
  ReturnAddressScanner scanner;
  scanner.AddMapping(*loader);
  scanner.AddMapping(*libc);
  const auto pid = static_cast<std::uint32_t>(getpid());
  const auto stack = [](std::uint64_t word) {
    std::vector<std::uint8_t> bytes(8);
    std::memcpy(bytes.data(), &word, 8);
    return bytes;
  };
  EXPECT_TRUE(scanner.Scan(pid, stack(AfterACall(*loader))).empty());
  const std::vector<Frame> in_libc = scanner.Scan(pid, stack(AfterACall(*libc)));
  ASSERT_EQ(in_libc.size(), 1u);
  EXPECT_TRUE(in_libc[0].scanned);
  EXPECT_TRUE(FrameName(in_libc[0]).ends_with("_[s]")) << FrameName(in_libc[0]);
}

}  // namespace
}  // namespace dlcheck::profile
