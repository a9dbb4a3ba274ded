// SPDX-License-Identifier: Apache-2.0
// libFuzzer target for the verbose log session: any bytes, split into lines, go through the
// LogSession that `dlcheck parse` and the worker capture drive (joining parser, repeated-line
// memo, aggregator, header merge), then the memory-descriptor parser and the work model. Nothing
// may crash, hang, leak or read out of bounds; and the aggregate invariant (execs over rows ==
// exec events the listener saw) must hold.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "verbose/flops.h"
#include "verbose/log_session.h"

using namespace dlcheck::verbose;

namespace {

// Counts the exec events the session reports, parsed or repeated, and exercises the parsers a
// report uses on every parsed event.
class CountingListener : public EventListener {
 public:
  void OnEvent(const VerboseEvent& e, std::size_t) override {
    if (e.operation == Operation::kExec) ++exec_events;
    ParseMemoryDescs(e.memory_descriptors, mds_);
    (void)DataTypesText(mds_);
    (void)LayoutsText(mds_);
    (void)FlopsOf(e.primitive, e.problem);
  }
  void OnRepeat(const LineMemo::Entry& repeat, double, std::optional<double>) override {
    if (repeat.exec) ++exec_events;
  }
  std::uint64_t exec_events = 0;

 private:
  std::vector<MemoryDesc> mds_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  LogSession session;
  CountingListener listener;
  session.AddListener(&listener);
  std::uint64_t line_number = 0;
  std::size_t start = 0;
  while (start <= input.size()) {
    // The lines the memo takes in place, as FeedAll takes them from the reader's buffer.
    std::uint64_t taken = 0;
    start += session.FeedPredicted(input.substr(start), 4096, taken);
    line_number += taken;
    std::size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    session.Feed(input.substr(start, end - start), ++line_number);
    start = end + 1;
  }
  session.Finish();
  const Summary summary = session.Summarize();
  std::uint64_t execs = 0;
  for (const PrimitiveStats& row : session.aggregator().rows()) execs += row.execs;
  if (execs != listener.exec_events || summary.execs != listener.exec_events) std::abort();
  if (session.stats().lines != line_number) std::abort();
  return 0;
}
