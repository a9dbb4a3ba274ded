// SPDX-License-Identifier: Apache-2.0
#include "detect/library_versions.h"

#include <fmt/format.h>
#include <hwloc.h>
#include <libcpuid.h>

namespace dlcheck::detect {

std::string LibcpuidVersion() {
  return cpuid_lib_version();
}

// The release dlcheck was built against: hwloc_get_api_version() gives the API version, which
// hwloc 2.9 leaves at 2.8.0 because its API did not change.
std::string HwlocVersion() {
  return HWLOC_VERSION;
}

}  // namespace dlcheck::detect
