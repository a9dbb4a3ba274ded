// SPDX-License-Identifier: Apache-2.0
#pragma once
// The `machine_profile` section of `platform`: the stored profile of `dlcheck roofline` for
// this CPU, when there is one (the roofline module fills it; the platform's document declares it
// with these words).
#include "report/field.h"

namespace dlcheck::detect {

namespace machine_profile_field {
using report::Arity;
using report::Field;
using report::Type;
inline constexpr Field kProfile{"profile"};  ///< the stored file
inline constexpr Field kMeasuredAt{"measured_at"};
inline constexpr Field kQuick{"quick", Type::kBoolean};
inline constexpr Field kMemoryGbps{"memory_gbps", Type::kNumber};  ///< DRAM, the most threads
/// The best peak of each data type at the most threads: {"f32": 138.5, "int8": 147.0}.
inline constexpr Field kPeakGflops{"peak_gflops", Type::kNumber, Arity::kMap};
}  // namespace machine_profile_field

inline constexpr report::Part kMachineProfileSection{"machine_profile",
                                                     "Machine profile (dlcheck roofline)"};
inline constexpr report::Part kPeakGflopsSection{machine_profile_field::kPeakGflops.name,
                                                 "Peak GFLOP/s by data type"};

}  // namespace dlcheck::detect
