// SPDX-License-Identifier: Apache-2.0
#pragma once
// The attainable single-core floating-point peak right now, per vector ISA: roofline's f32
// kernels (roofline/kernels.h: independent fused multiply-adds, or multiply + add where there is
// no FMA), each where the CPU and the OS enable it. A compute
// primitive's GFLOP/s is then shown as a fraction of what this core can do at this moment
// (frequency, power state and neighbours included), not of a datasheet number.

#include <string>
#include <vector>

namespace dlcheck::dispatch {

struct PeakResult {
  std::string isa;    ///< "sse41" (mul+add, 4 lanes), "avx2" (FMA, 8 lanes), "avx512_core" (16)
  double gflops = 0;  ///< f32 GFLOP/s on the calling thread
};

/// Measures each ISA this CPU and its OS enable (detect::LiveUsableFeatures), for about
/// `seconds_per_isa` each. Run it where the executing core is the one you care about.
std::vector<PeakResult> MeasurePeak(double seconds_per_isa = 0.02);

}  // namespace dlcheck::dispatch
