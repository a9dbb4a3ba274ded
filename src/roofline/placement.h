// SPDX-License-Identifier: Apache-2.0
#pragma once
// A primitive's place under the roofline: the bytes one execution moves, by benchdnn's rule (the
// sizes of src, weights, bias and dst, each read or written once), its arithmetic intensity
// (flops per byte), the roof that binds it (memory: bandwidth x intensity; compute: the peak of
// its data type) and the fraction of that roof its measured time reaches.
//
//   BytesPerCall("matmul", "1x4096:4096x4096", "src:f32 wei:f32 dst:f32", md)
//     -> (4096 + 4096*4096 + 4096) * 4 bytes
//   Place(flops, bytes, seconds, {.memory_gbps = 20, .peak_gflops = 60})
//     -> intensity 0.5 flop/byte: memory roof 10 GFLOP/s < 60: memory-bound
#include <optional>
#include <string>
#include <string_view>

namespace dlcheck::roofline {

/// Bytes per element of a oneDNN data type name (f32 4, bf16 2, s8 1, ...); nullopt for
/// `undef` and names it does not know.
std::optional<int> DataTypeBytes(std::string_view data_type);

/// The data type of an argument (`wei`) in a row's data types (`src:f32 wei:s8 dst:f32`), ""
/// when absent.
std::string ArgumentDataType(std::string_view data_types, std::string_view argument);

/// The compute data type of a row, as the roofline's peaks name them: the weights' type (else
/// the source's): "f32", "bf16", "f16" or "int8" (s8, u8); "" for another.
std::string ComputeDataType(std::string_view data_types);

/// The bytes one execution moves by benchdnn's rule, for a matmul (`MxK:KxN[:MxN]`, batched or
/// broadcast), an inner product (`mbXicY[id..ih..iw..]ocZ`) and a convolution or deconvolution
/// (keyed problem); the bias only where its data type is not `undef` (its elements from the
/// `_maskN` of its memory descriptor for a matmul, else the output channels). nullopt for other
/// kinds, unreadable problems and unknown data types.
std::optional<double> BytesPerCall(std::string_view primitive, std::string_view problem,
                                   std::string_view data_types,
                                   std::string_view memory_descriptors);

/// The two roofs of one data type on one machine.
struct Roofs {
  double memory_gbps = 0;  ///< DRAM bandwidth, 10^9 bytes/s
  double peak_gflops = 0;  ///< the compute peak of the row's data type
};

enum class Bound { kMemory, kCompute };

/// "memory" or "compute".
const char* BoundName(Bound bound);

/// A row under the roofline.
struct Placement {
  double intensity = 0;           ///< flops per byte moved
  double achieved_gflops = 0;     ///< flops / seconds
  double achieved_gbps = 0;       ///< bytes / seconds
  double memory_roof_gflops = 0;  ///< memory_gbps x intensity
  Bound bound = Bound::kMemory;   ///< the lower roof
  double roof_gflops = 0;         ///< min(memory roof, peak)
  double fraction = 0;            ///< achieved / roof
};

/// The place of an execution of `flops` moving `bytes` in `seconds` under `roofs`; nullopt when
/// a figure is not positive.
std::optional<Placement> Place(double flops, double bytes, double seconds, const Roofs& roofs);

/// Below this fraction of its binding roof a row is far below it (`far-below-roof`).
inline constexpr double kFarBelowRoof = 0.10;

}  // namespace dlcheck::roofline
