// SPDX-License-Identifier: Apache-2.0
// The roofline's arithmetic (bytes per call by benchdnn's rule, intensity, the binding roof), the
// measurement plan and plateaus on constructed sweeps, the kernels chosen per feature set, and
// the stored profile's text: exact expectations, no measurement.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "roofline/kernels.h"
#include "roofline/machine_profile.h"
#include "roofline/measure.h"
#include "roofline/placement.h"

namespace dlcheck::roofline {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

TEST(BytesPerCallTest, MatmulCountsSourceWeightsAndDestinationOnce) {
  // 1x4096 by 4096x4096 in f32: (4096 + 4096*4096 + 4096) * 4 bytes.
  EXPECT_EQ(BytesPerCall("matmul", "1x4096:4096x4096", "src:f32 wei:f32 dst:f32",
                         "src_f32::blocked:ab:f0 wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0"),
            (4096.0 + 4096.0 * 4096.0 + 4096.0) * 4);
  // oneDNN 2.6.3 also prints the destination's shape.
  EXPECT_EQ(BytesPerCall("matmul", "1024x1024:1024x1024:1024x1024", "src:f32 wei:f32 dst:f32", ""),
            3 * 1024.0 * 1024.0 * 4);
}

TEST(BytesPerCallTest, MatmulBatchBroadcastAndBiasMask) {
  // Batch 4 broadcast from the weights' 1: dst 4x8x32; the bias's mask 4 (bit 2) keeps N: 32.
  EXPECT_EQ(BytesPerCall("matmul", "4x8x16:1x16x32", "src:f32 wei:f32 bia:f32 dst:f32",
                         "src_f32::blocked:abc:f0 wei_f32::blocked:abc:f0 "
                         "bia_f32::blocked:abc:f0_mask4 dst_f32::blocked:abc:f0"),
            (4.0 * 8 * 16 + 16 * 32 + 32 + 4 * 8 * 32) * 4);
  // Mask 6 (bits 1 and 2): a bias of M x N; a oneDNN 3.x descriptor.
  EXPECT_EQ(BytesPerCall("matmul", "4x8x16:4x16x32", "src:f32 wei:f32 bia:f32 dst:f32",
                         "bia:f32::blocked:abc::f0_mask6"),
            (4.0 * 8 * 16 + 4 * 16 * 32 + 8 * 32 + 4 * 8 * 32) * 4);
  // An undef bias moves nothing.
  EXPECT_EQ(BytesPerCall("matmul", "2x3:3x4", "src:f32 wei:f32 bia:undef dst:f32", ""),
            (6.0 + 12 + 8) * 4);
}

TEST(BytesPerCallTest, EachTensorAtItsOwnDataTypeSize) {
  // int8 weights and source, f32 destination, s32 bias.
  EXPECT_EQ(BytesPerCall("matmul", "2x3:3x4", "src:u8 wei:s8 bia:s32 dst:f32", ""),
            6.0 + 12 + 4 * 4 + 8 * 4);
  EXPECT_EQ(BytesPerCall("matmul", "2x3:3x4", "src:bf16 wei:bf16 dst:bf16", ""),
            (6.0 + 12 + 8) * 2);
}

TEST(BytesPerCallTest, InnerProductAndConvolution) {
  EXPECT_EQ(BytesPerCall("inner_product", "mb8ic64oc10", "src:f32 wei:f32 bia:f32 dst:f32", ""),
            (8.0 * 64 + 10 * 64 + 10 + 8 * 10) * 4);
  EXPECT_EQ(BytesPerCall("inner_product", "mb2ic16ih5iw5oc10", "src:f32 wei:f32 dst:f32", ""),
            (2.0 * 16 * 25 + 10 * 16 * 25 + 2 * 10) * 4);
  // A grouped convolution: weights oc x ic/g x kh x kw.
  EXPECT_EQ(BytesPerCall("convolution", "g2mb1_ic4oc8_ih5oh5kh3sh1dh0ph1_iw5ow5kw3sw1dw0pw1",
                         "src:f32 wei:f32 bia:f32 dst:f32", ""),
            (1.0 * 4 * 25 + 8 * 2 * 9 + 8 + 1 * 8 * 25) * 4);
}

TEST(BytesPerCallTest, NoFigureWithoutAShapeOrAType) {
  EXPECT_FALSE(BytesPerCall("reorder", "2x3", "src:f32 dst:f32", ""));
  EXPECT_FALSE(BytesPerCall("matmul", "*x3:3x4", "src:f32 wei:f32 dst:f32", ""));
  EXPECT_FALSE(BytesPerCall("matmul", "2x3:3x4", "src:f99 wei:f32 dst:f32", ""));
  EXPECT_FALSE(BytesPerCall("matmul", "2x3:3x4", "", ""));
}

TEST(ComputeDataTypeTest, TheWeightsTypeNamesThePeak) {
  EXPECT_EQ(ComputeDataType("src:u8 wei:s8 dst:f32"), "int8");
  EXPECT_EQ(ComputeDataType("src:bf16 wei:bf16 dst:f32"), "bf16");
  EXPECT_EQ(ComputeDataType("src:f32 wei:f32 dst:f32"), "f32");
  EXPECT_EQ(ComputeDataType("src:f16 dst:f16"), "f16");
  EXPECT_EQ(ComputeDataType("src:f64 wei:f64 dst:f64"), "");
}

TEST(PlaceTest, TheLowerRoofBindsAndTheFractionIsOfIt) {
  const Roofs roofs{.memory_gbps = 20, .peak_gflops = 100};
  // 1x4096:4096x4096 f32 in 4 ms: intensity 2*4096*4096 / 67141632 bytes = 0.4997;
  // memory roof 9.99 GFLOP/s < 100: memory-bound, at 8.39 GFLOP/s = 84 % of it.
  const double flops = 2.0 * 4096 * 4096;
  const double bytes = (4096.0 + 4096.0 * 4096.0 + 4096.0) * 4;
  const std::optional<Placement> gemv = Place(flops, bytes, 0.004, roofs);
  ASSERT_TRUE(gemv);
  EXPECT_DOUBLE_EQ(gemv->intensity, flops / bytes);
  EXPECT_EQ(gemv->bound, Bound::kMemory);
  EXPECT_DOUBLE_EQ(gemv->memory_roof_gflops, 20 * flops / bytes);
  EXPECT_DOUBLE_EQ(gemv->roof_gflops, gemv->memory_roof_gflops);
  EXPECT_DOUBLE_EQ(gemv->achieved_gflops, flops / 0.004 / 1e9);
  EXPECT_DOUBLE_EQ(gemv->achieved_gbps, bytes / 0.004 / 1e9);
  EXPECT_NEAR(gemv->fraction, 0.8393, 1e-4);
  // 1024^3 in 30 ms: intensity 170.7, memory roof 3413 > 100: compute-bound at 71.6 %.
  const double cube = 2.0 * 1024 * 1024 * 1024;
  const std::optional<Placement> gemm = Place(cube, 3 * kMiB * 4, 0.030, roofs);
  ASSERT_TRUE(gemm);
  EXPECT_EQ(gemm->bound, Bound::kCompute);
  EXPECT_DOUBLE_EQ(gemm->roof_gflops, 100);
  EXPECT_NEAR(gemm->fraction, 0.7158, 1e-4);
  EXPECT_STREQ(BoundName(gemm->bound), "compute");
  EXPECT_STREQ(BoundName(gemv->bound), "memory");
}

TEST(PlaceTest, NoPlaceWithoutPositiveFigures) {
  EXPECT_FALSE(Place(0, 1, 1, {20, 100}));
  EXPECT_FALSE(Place(1, 0, 1, {20, 100}));
  EXPECT_FALSE(Place(1, 1, 0, {20, 100}));
  EXPECT_FALSE(Place(1, 1, 1, {0, 100}));
  EXPECT_FALSE(Place(1, 1, 1, {20, 0}));
}

TEST(PlanTest, ThreadCountsAreEveryCountUpToEightThenPowersOfTwo) {
  EXPECT_EQ(ThreadCounts(1), (std::vector<int>{1}));
  EXPECT_EQ(ThreadCounts(2), (std::vector<int>{1, 2}));
  EXPECT_EQ(ThreadCounts(8), (std::vector<int>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(ThreadCounts(12), (std::vector<int>{1, 2, 4, 8, 12}));
  EXPECT_EQ(ThreadCounts(64), (std::vector<int>{1, 2, 4, 8, 16, 32, 64}));
}

TEST(PlanTest, TheDramWorkingSetIsEightTimesAllTheL3) {
  const std::vector<CacheSize> zen3 = {
      {"L1", 32 << 10, 2}, {"L2", 512 << 10, 2}, {"L3", 32 << 20, 1}};
  const MeasurePlan plan = PlanMeasurements({.cpus = {0, 1}, .caches = zen3});
  EXPECT_EQ(plan.dram_bytes, std::int64_t{256} << 20);
  EXPECT_EQ(plan.sweep_sizes.front(), 4096);
  EXPECT_EQ(plan.sweep_sizes.back(), plan.dram_bytes);
  EXPECT_EQ(plan.sweep_sizes.size(), 17u);  // 4 KiB .. 256 MiB, x2
  EXPECT_EQ(plan.thread_counts, (std::vector<int>{1, 2}));
  EXPECT_EQ(plan.peak_thread_counts, (std::vector<int>{1, 2}));
  // Quick: x4 steps, half the DRAM set; a small machine's memory caps it at an eighth.
  const MeasurePlan quick = PlanMeasurements({.quick = true, .cpus = {0}, .caches = zen3});
  EXPECT_EQ(quick.dram_bytes, std::int64_t{128} << 20);
  EXPECT_EQ(quick.sweep_sizes.size(), 9u);  // 4K 16K 64K 256K 1M 4M 16M 64M 128M
  EXPECT_EQ(quick.peak_thread_counts, (std::vector<int>{1}));
  EXPECT_LT(quick.sample_seconds * quick.samples, plan.sample_seconds * plan.samples);
  const MeasurePlan small =
      PlanMeasurements({.cpus = {0}, .caches = zen3, .memory_bytes = std::int64_t{512} << 20});
  // (256 MiB asked, 64 MiB allowed.)
  EXPECT_EQ(small.dram_bytes, std::int64_t{64} << 20);
  // Without caches: the floor, 64 MiB.
  EXPECT_EQ(PlanMeasurements({.cpus = {0}}).dram_bytes, std::int64_t{64} << 20);
}

TEST(PlateauTest, EachLevelIsTheMedianOfItsPoints) {
  const std::vector<CacheSize> caches = {{"L1", 32 << 10, 2}, {"L2", 512 << 10, 2}};
  std::vector<SweepPoint> sweep;
  // read: 4K 8K 16K in L1 (100, 120, 110), 64K 128K 256K in L2 (60, 50, 55), 32K between
  // (L1's edge, in neither), 4M DRAM (from 4x all of the largest cache, 1 MiB).
  const std::vector<std::pair<std::int64_t, double>> read = {
      {4 << 10, 100}, {8 << 10, 120},  {16 << 10, 110}, {32 << 10, 90},
      {64 << 10, 60}, {128 << 10, 50}, {256 << 10, 55}, {4 << 20, 10}};
  for (const auto& [bytes, gbps] : read) sweep.push_back({kRead, bytes, gbps});
  sweep.push_back({kTriad, 4 << 10, 80});
  const std::vector<Plateau> p = PlateausOf(sweep, caches);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[0].level, "L1");
  EXPECT_EQ(p[0].read_gbps, 110);
  EXPECT_EQ(p[0].triad_gbps, 80);
  EXPECT_FALSE(p[0].copy_gbps);
  EXPECT_EQ(p[0].from_bytes, 4 << 10);
  EXPECT_EQ(p[0].to_bytes, 16 << 10);
  EXPECT_EQ(p[1].level, "L2");
  EXPECT_EQ(p[1].read_gbps, 55);
  EXPECT_EQ(p[2].level, "DRAM");
  EXPECT_EQ(p[2].read_gbps, 10);
  EXPECT_EQ(p[2].from_bytes, 4 << 20);
}

// The read sweep `dlcheck roofline` measured on this project's CI host (2026-12-08: a 2-vCPU KVM
// guest whose CPUID reports an L3 of 480 MiB, hwloc likewise), in KiB and GB/s. Four times the
// L3 is beyond the sweep's 1 GiB, yet read fell to 11-13 GB/s at 64 MiB and stayed there.
const std::vector<std::pair<std::int64_t, double>> kGuestReadSweep = {
    {4, 299.59},     {8, 287.61},     {16, 287.25},    {32, 287.28},    {64, 154.93},
    {128, 155.06},   {256, 154.71},   {512, 151.76},   {1024, 147.30},  {2048, 61.72},
    {4096, 27.05},   {8192, 26.84},   {16384, 26.89},  {32768, 23.39},  {65536, 11.73},
    {131072, 11.09}, {262144, 11.83}, {524288, 11.77}, {1048576, 12.93}};

std::vector<SweepPoint> ReadSweep(const std::vector<std::pair<std::int64_t, double>>& kib_gbps) {
  std::vector<SweepPoint> sweep;
  for (const auto& [kib, gbps] : kib_gbps) sweep.push_back({kRead, kib << 10, gbps});
  return sweep;
}

TEST(PlateauTest, DramIsWhereTheBandwidthStoppedFallingWhenTheReportedL3IsOutOfReach) {
  const std::vector<CacheSize> caches = {
      {"L1", 48 << 10, 2}, {"L2", 2 << 20, 2}, {"L3", std::int64_t{480} << 20, 1}};
  const std::vector<SweepPoint> sweep = ReadSweep(kGuestReadSweep);
  EXPECT_EQ(FlatTailFrom(sweep), (std::int64_t{32} << 20) + 1);
  const std::vector<Plateau> p = PlateausOf(sweep, caches);
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[2].level, "L3");  // up to the tail, not half of 480 MiB
  EXPECT_EQ(p[2].from_bytes, std::int64_t{4} << 20);
  EXPECT_EQ(p[2].to_bytes, std::int64_t{32} << 20);
  EXPECT_NEAR(*p[2].read_gbps, 26.865, 1e-9);  // median of 27.05, 26.84, 26.89, 23.39
  EXPECT_EQ(p[3].level, "DRAM");
  EXPECT_EQ(p[3].from_bytes, std::int64_t{64} << 20);
  EXPECT_EQ(p[3].to_bytes, std::int64_t{1} << 30);
  EXPECT_EQ(p[3].read_gbps, 11.77);
}

TEST(PlateauTest, ASweepStillFallingOrFlatFromItsStartHasNoTail) {
  // Still falling at its end (a 3D V-Cache part swept too short): no DRAM plateau.
  EXPECT_EQ(FlatTailFrom(ReadSweep({{4, 300},
                                    {64, 150},
                                    {4096, 60},
                                    {65536, 40},
                                    {131072, 30},
                                    {262144, 22},
                                    {524288, 16}})),
            0);
  // Two points alike are not yet a plateau.
  EXPECT_EQ(FlatTailFrom(ReadSweep({{4, 300}, {64, 150}, {65536, 12}, {131072, 12}})), 0);
  // Flat from the first point: no level fell into it.
  EXPECT_EQ(FlatTailFrom(ReadSweep({{4, 12}, {8, 12.5}, {16, 11.8}, {32, 12.1}})), 0);
  // With a reachable DRAM (4x the L3 swept), the tail changes nothing.
  const std::vector<CacheSize> caches = {{"L3", std::int64_t{32} << 20, 1}};
  const std::vector<Plateau> p = PlateausOf(ReadSweep(kGuestReadSweep), caches);
  EXPECT_EQ(p.back().from_bytes, std::int64_t{128} << 20);
}

TEST(KernelsTest, OnlyWhatTheFeaturesAllowIsChosen) {
  const detect::FeatureSet avx2 = {{"avx2", true}, {"fma", true}, {"avx512f", false}};
  EXPECT_EQ(BandwidthKernelsFor(avx2).vector, "ymm");
  std::vector<std::string> units;
  for (const ComputeKernel& k : ComputeKernelsFor(avx2)) units.push_back(k.unit);
  EXPECT_EQ(units, (std::vector<std::string>{"sse", "avx2_fma", "avx2_int8"}));
  const detect::FeatureSet none;
  EXPECT_EQ(BandwidthKernelsFor(none).vector, "xmm");
  EXPECT_EQ(ComputeKernelsFor(none).size(), 1u);
  const detect::FeatureSet spr = {{"avx2", true},        {"fma", true},         {"avx512f", true},
                                  {"avx512_vnni", true}, {"avx512_bf16", true}, {"amx_tile", true},
                                  {"amx_bf16", true},    {"amx_int8", true},    {"avx_vnni", true},
                                  {"avx512_fp16", true}};
  EXPECT_EQ(BandwidthKernelsFor(spr).vector, "zmm");
  EXPECT_EQ(ComputeKernelsFor(spr).size(), 10u);
  EXPECT_TRUE(MissingUnitsFor(spr).empty());
  // What the AVX2 host lacks is named with the feature it misses.
  const std::vector<MissingUnit> missing = MissingUnitsFor(avx2);
  ASSERT_EQ(missing.size(), 7u);
  EXPECT_EQ(missing[0].what, "f32 on avx512_fma (vfmadd231ps zmm)");
  EXPECT_EQ(missing[0].reason.rfind("not usable here: avx512f (", 0), 0u) << missing[0].reason;
}

MachineProfile SampleProfile() {
  MachineProfile p;
  p.cpu_key = CpuKey("AuthenticAMD", 25, 1, 1, "AMD EPYC");
  p.vendor = "AuthenticAMD";
  p.brand = "AMD EPYC";
  p.microarchitecture = "Zen 3";
  p.measured_at = "2026-12-07T07:00:00Z";
  p.usable_cpus = 2;
  p.load_start = 0.5;
  p.sweep = {{kRead, 4096, 150.5}, {kCopy, 4096, 140}, {kTriad, 3840, 120}};
  p.plateaus = {{"L1", 32768, 4096, 16384, 150.5, std::nullopt, 120}};
  p.threads = {{1, "0", 18, 17, 24, 30}, {2, "0,1", 20, 16, 29, 27}};
  p.peaks = {{"f32", "avx2_fma", "vfmadd231ps ymm", 1, 100},
             {"f32", "sse", "mulps", 2, 60},
             {"f32", "avx2_fma", "vfmadd231ps ymm", 2, 190},
             {"int8", "avx2_int8", "vpmaddubsw", 2, 300}};
  p.unmeasured = {{"bf16", "no avx512_bf16"}};
  return p;
}

TEST(MachineProfileTest, KeyMemoryAndBestPeak) {
  const MachineProfile p = SampleProfile();
  EXPECT_EQ(p.cpu_key, "AuthenticAMD-25-1-1-AMD_EPYC");
  EXPECT_EQ(CpuKey("GenuineIntel", 6, 143, 8, "Intel(R) Xeon(R) w9-3475X / ../x"),
            "GenuineIntel-6-143-8-Intel_R__Xeon_R__w9-3475X___.._x");
  EXPECT_EQ(p.MemoryGbps(), 29);  // the best of read and triad at 2 threads
  EXPECT_EQ(p.BestPeak("f32")->gflops, 190);
  EXPECT_EQ(p.BestPeak("f32")->threads, 2);
  EXPECT_EQ(p.BestPeak("int8")->unit, "avx2_int8");
  EXPECT_FALSE(p.BestPeak("bf16"));
}

TEST(MachineProfileTest, BandwidthSaturatesWhereMoreThreadsAddLessThanATenth) {
  // read/triad best: 10, 18, 19.5, 20 GB/s at 1..4 threads: 2 threads reach 18 >= 0.9 x 20.
  const std::vector<ThreadBandwidth> threads = {
      {1, "0", 10, 9, 8, 9}, {2, "0,1", 18, 0, 0, 0}, {3, "", 19.5, 0, 0, 0}, {4, "", 0, 0, 20, 0}};
  EXPECT_EQ(SaturationThreads(threads), 2);
  // Still growing past 90 % only at the last count: no saturation to speak of.
  EXPECT_FALSE(SaturationThreads({{1, "", 10, 0, 0, 0}, {2, "", 19, 0, 0, 0}}));
  EXPECT_FALSE(SaturationThreads({{1, "", 10, 0, 0, 0}}));
  // One thread already within 10 % of two.
  EXPECT_EQ(SaturationThreads({{1, "", 19, 0, 0, 0}, {2, "", 20, 0, 0, 0}}), 1);
}

TEST(MachineProfileTest, TheStoredTextReadsBackTheSame) {
  const MachineProfile p = SampleProfile();
  const std::string text = ProfileJson(p);
  const StatusOr<MachineProfile> back = ParseProfileJson(text, "p.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(ProfileJson(*back), text);
  EXPECT_EQ(back->load_start, 0.5);
  EXPECT_FALSE(back->load_end);
  EXPECT_FALSE(back->plateaus[0].copy_gbps);
}

TEST(MachineProfileTest, ABrokenOrForeignFileIsAnInputError) {
  const StatusOr<MachineProfile> broken = ParseProfileJson("{\"format_version\": 1", "p.json");
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.status().message(),
            "'p.json' is not a machine profile (not a JSON object): run 'dlcheck roofline' to "
            "measure this machine again");
  const StatusOr<MachineProfile> future = ParseProfileJson("{\"format_version\": 9}", "p.json");
  ASSERT_FALSE(future.ok());
  EXPECT_EQ(future.status().message(),
            "'p.json' is a machine profile of another format version (9, this dlcheck reads 1): "
            "run 'dlcheck roofline' to measure this machine again");
  const StatusOr<MachineProfile> empty = ParseProfileJson("{\"format_version\": 1}", "p.json");
  ASSERT_FALSE(empty.ok());
}

TEST(MachineProfileTest, StoredInTheCacheDirectoryWhole) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dlcheck_roofline_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  setenv("XDG_CACHE_HOME", dir.c_str(), 1);
  EXPECT_EQ(CacheDirectory(), (dir / "dlcheck").string());
  setenv("XDG_CACHE_HOME", "relative/path", 1);  // not absolute: ignored, as XDG says
  setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(CacheDirectory(), "/home/someone/.cache/dlcheck");
  unsetenv("XDG_CACHE_HOME");
  const MachineProfile p = SampleProfile();
  const std::string path = ProfilePath((dir / "dlcheck").string(), p.cpu_key);
  EXPECT_EQ(std::filesystem::path(path).filename(), "roofline-AuthenticAMD-25-1-1-AMD_EPYC.json");
  ASSERT_TRUE(StoreProfile(p, path).ok());
  const StatusOr<MachineProfile> back = LoadProfile(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(ProfileJson(*back), ProfileJson(p));
  // Only the profile is left in the directory: no temporary file.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir / "dlcheck"),
                          std::filesystem::directory_iterator()),
            1);
  const StatusOr<MachineProfile> missing = LoadProfile((dir / "none.json").string());
  EXPECT_FALSE(missing.ok());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace dlcheck::roofline
