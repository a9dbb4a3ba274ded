// SPDX-License-Identifier: Apache-2.0
#pragma once
// The loops `dlcheck roofline` times, each compiled for its own target (a function attribute)
// and chosen by what this CPU and OS enable, so that no instruction the host lacks is ever
// executed. Bandwidth kernels stream f32 arrays with the widest vectors the host has; compute
// kernels run independent chains of one instruction (enough to cover its latency).
//
//   std::vector<ComputeKernel> kernels = ComputeKernelsFor(detect::LiveUsableFeatures());
//   double ops = kernels[0].run(1000);   // operations done; time it
#include <cstddef>
#include <string>
#include <vector>

#include "detect/cpu_features.h"

namespace dlcheck::roofline {

/// One pass-loop of a bandwidth kernel over arrays of `n` f32 elements (n a multiple of 64, the
/// arrays 64-byte aligned), `passes` times. Returns nothing; it writes a value into `*sink` so
/// the reads are not optimised away.
using BandwidthLoop = void (*)(float* a, float* b, float* c, std::size_t n, long passes,
                               float* sink);

/// The bandwidth kernels of one vector width.
struct BandwidthKernels {
  std::string vector;  ///< "zmm", "ymm" or "xmm"
  BandwidthLoop read = nullptr;
  BandwidthLoop copy = nullptr;
  BandwidthLoop triad = nullptr;
  BandwidthLoop triad_nt = nullptr;
};

/// The widest kernels `usable` (the features CPUID reports and the OS enabled) can run: zmm with
/// avx512f, ymm with avx2 and fma, else xmm (SSE2, every x86-64).
BandwidthKernels BandwidthKernelsFor(const detect::FeatureSet& usable);

/// One compute loop: `rounds` rounds of the instruction's chains; returns the operations done
/// (a fused multiply-add counts 2, a dot product of k pairs 2k).
using ComputeLoop = double (*)(long rounds);

struct ComputeKernel {
  std::string dtype;        ///< "f32", "bf16", "f16", "int8"
  std::string unit;         ///< "avx2_fma", "avx512_fma", "sse", "avx2_int8", "avx_vnni", ...
  std::string instruction;  ///< "vfmadd231ps ymm"
  ComputeLoop run = nullptr;
  /// Called once on each thread before `run` (AMX: the tile configuration); may be null.
  void (*prepare)() = nullptr;
  /// Called once on each thread after the last `run` (AMX: release the tiles); may be null.
  void (*finish)() = nullptr;
};

/// The compute kernels `usable` can run, in report order.
std::vector<ComputeKernel> ComputeKernelsFor(const detect::FeatureSet& usable);

/// A data type or unit `usable` cannot run, with the reason in words: what `roofline` says it
/// could not measure here.
struct MissingUnit {
  std::string what;    ///< "bf16 compute (avx512_bf16)"
  std::string reason;  ///< "this CPU (or its hypervisor) does not report avx512_bf16"
};
/// The units of ComputeKernelsFor that `usable` lacks, each with its reason.
std::vector<MissingUnit> MissingUnitsFor(const detect::FeatureSet& usable);

}  // namespace dlcheck::roofline
