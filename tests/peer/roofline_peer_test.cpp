// SPDX-License-Identifier: Apache-2.0
// dlcheck roofline's figures beside Debian's likwid-bench (likwid 5.2), run side by side on this
// machine: read bandwidth against `load_<v>`, triad against `stream_<v>_fma` (the same vector
// width <v> as dlcheck's kernels, the JSON's `vector`; likwid's plain `load` and `stream` are
// scalar and slower on any AVX host), at dlcheck's DRAM working set, within 15 % below and 25 %
// above the band likwid-bench's own rounds span (issue 45; see Compare); the f32 FMA peak against
// `peakflops_avx_fma` (`_avx512_fma` on AVX-512 hosts), whose double-precision flops are half the
// single-precision ones of the same instructions, within 10 %. Bytes are counted alike (the arrays
// read and written, no write-allocate). Both sides keep the best of as many samples of the same
// length (STREAM's best rate: 6 of about 40 ms a round on each side), in rounds that interleave
// them, so that both meet the same moments of a shared machine. One thread is held to the
// tolerances; two threads are printed beside them (on a machine shared with other work, a second
// thread's core is the first to be taken, on either side). Skipped, with the reason, where
// likwid-bench is absent.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "os/subprocess.h"
#include "support/run_dlcheck.h"

namespace dlcheck {
namespace {

using Json = nlohmann::json;

// Rounds of dlcheck then likwid-bench, interleaved, so that both sides meet the same moments of
// a shared machine; each side keeps its best figure.
constexpr int kRounds = 3;
// likwid-bench runs per round and figure, each sized to about kLikwidSeconds (its -i), so that
// both sides keep the best of as many samples of the same length: dlcheck keeps the best of its
// sizing sample and 5 samples of 40 ms (roofline/measure.cpp). On a VM whose memory is shared
// with neighbours single samples spread by +-15 %, and a best of more or shorter samples is
// higher by that alone (likwid's best of 3 runs of 0.1 s against dlcheck's best of 6 of 40 ms
// read 1.13-1.19 on this project's 2-CPU VM).
constexpr int kLikwidRuns = 6;
constexpr double kLikwidSeconds = 0.04;
constexpr double kBandwidthTolerance = 0.15;
// Above the peer's best, more room: dlcheck's best sample can meet a faster moment of a shared
// machine than any of the peer's (a fresh Debian root here: dlcheck's triad 24.8 GB/s against
// likwid-bench's rounds of 20.3-21.5, 1.155x). What the bound is for still falls outside it: a
// byte-counting error, such as a write-allocate counted on triad's store (4/3 = 1.33x).
constexpr double kBandwidthAboveTolerance = 0.25;
constexpr double kPeakTolerance = 0.10;

struct LikwidRun {
  double figure = 0;  ///< 10^9 per second; 0: none printed
  double seconds = 0;
};

// One likwid-bench run of `test` on `threads` threads over `working_set_kb` (its kB) for `iters`
// iterations: its `MByte/s:` or `MFlops/s:` (`label`) and `Time:`.
LikwidRun RunLikwid(const std::string& likwid, const std::string& test, int threads,
                    long working_set_kb, long iters, const std::string& label) {
  const std::string command = likwid + " -t " + test + " -W N:" + std::to_string(working_set_kb) +
                              "kB:" + std::to_string(threads) + " -i " + std::to_string(iters) +
                              " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::string out;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) out += buffer.data();
  pclose(pipe);
  LikwidRun run;
  std::smatch m;
  if (std::regex_search(out, m, std::regex("\\n" + label + ":\\s+([0-9.]+)"))) {
    run.figure = std::stod(m[1]) / 1e3;
  }
  if (std::regex_search(out, m, std::regex("\\nTime:\\s+([0-9.e+-]+)"))) {
    run.seconds = std::stod(m[1]);
  }
  return run;
}

// One figure likwid-bench is asked for, and its best so far.
struct LikwidFigure {
  std::string test;
  int threads = 1;
  long working_set_kb = 0;
  std::string label;
  long iters = 1;                   ///< sized by each run to about kLikwidSeconds
  std::vector<double> round_bests;  ///< the best of each round's runs

  void Measure(const std::string& likwid) {
    double best = 0;
    for (int i = 0; i < kLikwidRuns; ++i) {
      const LikwidRun run = RunLikwid(likwid, test, threads, working_set_kb, iters, label);
      best = std::max(best, run.figure);
      if (run.seconds > 0 &&
          (run.seconds < kLikwidSeconds / 2 || run.seconds > kLikwidSeconds * 2)) {
        iters =
            std::max(1L, std::lround(static_cast<double>(iters) * kLikwidSeconds / run.seconds));
      }
    }
    round_bests.push_back(best);
  }
};

// dlcheck's figures, each the best of the rounds.
struct DlcheckFigures {
  std::string vector;
  long dram_kib = 0;
  std::vector<double> read;  ///< by threads - 1
  std::vector<double> triad;
  std::vector<double> fma;  ///< the widest f32 FMA unit; 0 for a count not measured
  std::string fma_unit;

  void Measure() {
    const auto r = testing::RunDlcheck({"roofline", "--no-store", "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const Json doc = Json::parse(r.out);
    vector = doc["roofline"]["vector"];
    // The threads table's working set: the sweep's largest (the DRAM plateau's end, where the
    // caches the CPU reports let the sweep leave them; null where they do not).
    dram_kib = doc["sweep"].back()["working_set_kib"];
    for (const Json& row : doc["threads"]) {
      const auto t = static_cast<std::size_t>(row["threads"].get<int>() - 1);
      if (read.size() <= t) read.resize(t + 1), triad.resize(t + 1);
      read[t] = std::max(read[t], row["read_gbps"].get<double>());
      triad[t] = std::max(triad[t], row["triad_gbps"].get<double>());
    }
    const std::string widest = Has(doc["peaks"], "avx512_fma") ? "avx512_fma"
                               : Has(doc["peaks"], "avx2_fma") ? "avx2_fma"
                                                               : "";
    fma_unit = widest;
    for (const Json& peak : doc["peaks"]) {
      if (peak["unit"] != widest) continue;
      const auto t = static_cast<std::size_t>(peak["threads"].get<int>() - 1);
      if (fma.size() <= t) fma.resize(t + 1);
      fma[t] = std::max(fma[t], peak["gflops"].get<double>());
    }
  }

  static bool Has(const Json& peaks, const char* unit) {
    for (const Json& peak : peaks) {
      if (peak["unit"] == unit) return true;
    }
    return false;
  }
};

// The 1-minute load average (/proc/loadavg's first field); 0 where it cannot be read.
double OneMinuteLoad() {
  std::ifstream in("/proc/loadavg");
  double load = 0;
  in >> load;
  return in ? load : 0;
}

// Prints dlcheck's best beside the peer's best and lowest round; `held`: also holds dlcheck's
// best within the peer's own band, [lowest round x (1 - tolerance), best x (1 + above_tolerance)]
// (above_tolerance: `tolerance` unless given).
// On a quiet machine the peer's rounds agree and the band is its best +- the tolerance; where
// the machine's memory is shared with other guests, its bandwidth moves by up to 2x within a
// minute (measured here: likwid-bench's triad best of 6 runs 14.5 to 21.5 GB/s in successive
// rounds), and the band holds dlcheck to what the peer itself measured over the same rounds.
void Compare(double dlcheck, const std::vector<double>& peer_rounds, double scale, double tolerance,
             const std::string& what, bool held, double above_tolerance = -1) {
  if (above_tolerance < 0) above_tolerance = tolerance;
  ASSERT_FALSE(peer_rounds.empty()) << what;
  const double best = scale * *std::max_element(peer_rounds.begin(), peer_rounds.end());
  const double lowest = scale * *std::min_element(peer_rounds.begin(), peer_rounds.end());
  ASSERT_GT(lowest, 0) << what << ": likwid-bench printed no figure in a round";
  std::printf("%-34s dlcheck %8.2f  likwid-bench %8.2f (rounds from %.2f)  ratio %.3f%s\n",
              what.c_str(), dlcheck, best, lowest, dlcheck / best,
              held ? "" : " (printed, not held)");
  if (held) {
    EXPECT_GE(dlcheck, lowest * (1 - tolerance))
        << what << ": dlcheck " << dlcheck << ", likwid-bench's rounds " << lowest << " to "
        << best;
    EXPECT_LE(dlcheck, best * (1 + above_tolerance))
        << what << ": dlcheck " << dlcheck << ", likwid-bench's rounds " << lowest << " to "
        << best;
  }
}

TEST(RooflinePeer, BandwidthAndFmaPeakBesideLikwidBench) {
  const char* path = std::getenv("PATH");
  const StatusOr<std::string> likwid =
      os::FindProgram("likwid-bench", path != nullptr ? path : "/usr/bin:/bin");
  if (!likwid.ok()) {
    GTEST_SKIP() << "likwid-bench is not installed (Debian package likwid; bash scripts/setup.sh "
                    "tests): no peer to compare dlcheck roofline's figures with";
  }
  DlcheckFigures d;
  ASSERT_NO_FATAL_FAILURE(d.Measure());
  ASSERT_FALSE(d.read.empty());
  const std::string suffix = d.vector == "zmm" ? "_avx512" : d.vector == "ymm" ? "_avx" : "_sse";
  const std::string triad = d.vector == "xmm" ? "stream_sse" : "stream" + suffix + "_fma";
  const long kb = d.dram_kib * 1024 / 1000;
  const int most = std::min(2, static_cast<int>(d.read.size()));
  std::vector<LikwidFigure> reads, triads, peaks;
  for (int t = 1; t <= most; ++t) {
    reads.push_back({"load" + suffix, t, kb, "MByte/s"});
    triads.push_back({triad, t, kb, "MByte/s"});
    // 32 kB: in L1, compute-bound. Double precision: half the flops of the same instructions.
    const std::string peak =
        d.fma_unit == "avx512_fma" ? "peakflops_avx512_fma" : "peakflops_avx_fma";
    peaks.push_back({peak, t, 32, "MFlops/s", 1000});
  }
  const double load_start = OneMinuteLoad();
  for (int round = 0; round < kRounds; ++round) {
    if (round > 0) {
      ASSERT_NO_FATAL_FAILURE(d.Measure());
    }
    for (auto* figures : {&reads, &triads, &peaks}) {
      for (LikwidFigure& f : *figures) {
        if (figures != &peaks || !d.fma_unit.empty()) f.Measure(*likwid);
      }
    }
  }
  // The two tools alternate, so their own load is at most the CPUs they use: a 1-minute load
  // above every CPU of the machine is other work, which takes the CPU from whichever tool runs
  // at the time (measured: ratios of 1.13-1.19 at load 3-5 on 2 CPUs, 1.01-1.05 at load 1.6).
  // There the figures are printed, with the load, and not held.
  const double load = std::max(load_start, OneMinuteLoad());
  const bool quiet = load <= static_cast<double>(std::thread::hardware_concurrency());
  if (!quiet) std::printf("1-minute load %.2f: other work shared the CPUs\n", load);
  for (int t = 1; t <= most; ++t) {
    const auto i = static_cast<std::size_t>(t - 1);
    const std::string at = " at " + std::to_string(t) + " thread" + (t > 1 ? "s" : "");
    const bool held = t == 1 && quiet;
    Compare(d.read[i], reads[i].round_bests, 1, kBandwidthTolerance, "read GB/s" + at, held,
            kBandwidthAboveTolerance);
    Compare(d.triad[i], triads[i].round_bests, 1, kBandwidthTolerance, "triad GB/s" + at, held,
            kBandwidthAboveTolerance);
    if (!d.fma_unit.empty() && i < d.fma.size() && d.fma[i] > 0) {
      Compare(d.fma[i], peaks[i].round_bests, 2, kPeakTolerance,
              "f32 " + d.fma_unit + " GFLOP/s" + at, held);
    }
  }
  if (d.fma_unit.empty()) {
    GTEST_SKIP() << "this CPU has no FMA unit dlcheck measures: its peak was not compared";
  }
}

}  // namespace
}  // namespace dlcheck
