// SPDX-License-Identifier: Apache-2.0
#pragma once
#include <string>

namespace dlcheck::detect {

/// libcpuid's version string as the library reports it at run time, e.g. "0.6.2".
std::string LibcpuidVersion();
/// hwloc's release version, e.g. "2.9.0".
std::string HwlocVersion();

}  // namespace dlcheck::detect
