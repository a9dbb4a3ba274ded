#include "detect/library_versions.h"

#include <fmt/format.h>
#include <hwloc.h>
#include <libcpuid.h>

namespace dlcheck::detect {

std::string LibcpuidVersion() {
  return cpuid_lib_version();
}

std::string HwlocVersion() {
  const unsigned v = hwloc_get_api_version();
  return fmt::format("{}.{}.{}", v >> 16, (v >> 8) & 0xff, v & 0xff);
}

}  // namespace dlcheck::detect
