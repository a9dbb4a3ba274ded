// SPDX-License-Identifier: Apache-2.0
#pragma once
// The bounds of the times a verbose line gives, in one place for the parser (line_parser.cpp)
// and the aggregator's fast path for repeated lines (aggregate.cpp). A time of `1e308` ms is no
// measurement, and the sums and shares made from such times would leave the finite numbers
// (`inf ms (inf % of ...)` in a verdict, `x="inf"` in a chart): such a line is a bad time.

#include <cmath>

namespace dlcheck::verbose {

/// The longest execution time a line may give: 10^12 ms (31 years).
inline constexpr double kMaxExecMs = 1e12;
/// The latest timestamp a line may give, in ms since the epoch (the year 33658): spans and
/// windows, differences of timestamps, stay finite below it.
inline constexpr double kMaxTimestampMs = 1e15;

/// Whether `ms` is an execution time: a number from 0 to kMaxExecMs (not nan).
inline bool IsExecTime(double ms) {
  return std::isfinite(ms) && ms >= 0 && ms <= kMaxExecMs;
}

/// Whether `ms` is a timestamp: finite, at most kMaxTimestampMs.
inline bool IsTimestampMs(double ms) {
  return std::isfinite(ms) && ms <= kMaxTimestampMs;
}

}  // namespace dlcheck::verbose
