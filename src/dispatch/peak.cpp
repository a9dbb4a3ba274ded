// SPDX-License-Identifier: Apache-2.0
#include "dispatch/peak.h"

#include <chrono>

#include "detect/platform.h"
#include "roofline/kernels.h"

namespace dlcheck::dispatch {
namespace {

// The ISA a peak is named by in the sweep, for each f32 unit of roofline's kernels.
struct UnitIsa {
  std::string_view unit;
  std::string_view isa;
};
constexpr UnitIsa kUnitIsas[] = {
    {"sse", "sse41"}, {"avx2_fma", "avx2"}, {"avx512_fma", "avx512_core"}};

// GFLOP/s of `run` on the calling thread, its rounds doubled until they last `seconds`.
double Measure(roofline::ComputeLoop run, double seconds) {
  using Clock = std::chrono::steady_clock;
  run(1);  // warm up: frequency and caches
  long rounds = 1;
  for (;;) {
    const auto start = Clock::now();
    const double flops = run(rounds);
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (elapsed >= seconds || rounds > (1L << 30)) return flops / elapsed / 1e9;
    rounds *= 2;
  }
}

}  // namespace

std::vector<PeakResult> MeasurePeak(double seconds_per_isa) {
  std::vector<PeakResult> results;
  for (const roofline::ComputeKernel& kernel :
       roofline::ComputeKernelsFor(detect::LiveUsableFeatures())) {
    if (kernel.dtype != "f32") continue;
    for (const UnitIsa& u : kUnitIsas) {
      if (kernel.unit == u.unit) {
        results.push_back({std::string(u.isa), Measure(kernel.run, seconds_per_isa)});
      }
    }
  }
  return results;
}

}  // namespace dlcheck::dispatch
