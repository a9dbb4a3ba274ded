// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the perf.data reader (`dlcheck profile`'s stack scanning reads perf.data
// itself): any bytes as a perf.data file. Nothing may crash, hang, leak or read out of bounds;
// what it hands on must lie within the input, and its counts must agree with what it handed on.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "profile/perf_data.h"

using namespace dlcheck::profile;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  std::uint64_t samples = 0;
  std::uint64_t with_stack = 0;
  std::uint64_t stack_bytes = 0;
  const PerfDataVisitor visitor{.on_sample =
                                    [&](const PerfDataSample& s) {
                                      ++samples;
                                      with_stack += s.has_user_regs && !s.stack.empty();
                                      stack_bytes += s.stack.size();
                                    },
                                .on_mmap = [](const PerfDataMmap& m) { (void)m.filename.size(); },
                                .on_fork = [](const PerfDataFork&) {}};
  const dlcheck::StatusOr<PerfDataCounts> counts = ReadPerfData(in, visitor);
  if (stack_bytes > size) std::abort();  // a stack copy is part of a record of the input
  if (counts.ok() && (counts->samples < samples || counts->samples_with_stack != with_stack ||
                      counts->records < counts->samples)) {
    std::abort();
  }
  return 0;
}
