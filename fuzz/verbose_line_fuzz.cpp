// libFuzzer target for the verbose line parser: any bytes, split into lines, go through the
// joining parser, the aggregator with its repeated-line memo, the memory-descriptor parser and
// the work model. Nothing may crash, hang, leak or read out of bounds; and the aggregate
// invariant (execs over rows == exec events) must hold.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "verbose/aggregate.h"
#include "verbose/line_parser.h"
#include "verbose/work.h"

using namespace dlcheck::verbose;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  Aggregator aggregator;
  LineMemo memo;
  std::uint64_t exec_events = 0;
  std::vector<MemoryDesc> mds;
  LineMemo::Entry last;
  double last_ms = 0;
  bool last_valid = false;
  std::uint64_t last_line = 0;
  std::uint64_t last_foreign = 0;
  JoiningParser parser([&](const ParseResult& r, const VerboseEvent& e, std::uint64_t at) {
    if (r.kind == LineKind::kSkipped && r.reason == SkipReason::kForeign) last_foreign = at;
    if (r.kind != LineKind::kEvent) return;
    if (e.operation == Operation::kExec) ++exec_events;
    ParseMemoryDescs(e.memory_descriptors, mds);
    (void)DataTypesText(mds);
    (void)LayoutsText(mds);
    (void)FlopsOf(e.primitive, e.problem);
    const std::size_t row = aggregator.Add(e);
    if (row != Aggregator::kNoRow && e.time_ms && !e.timestamp) {
      last = {row, e.operation == Operation::kExec, e.cache.find("hit") != std::string::npos};
      last_ms = *e.time_ms;
      last_valid = true;
      last_line = at;
    }
  });
  aggregator.SetHeader(&parser.header());
  std::uint64_t line_number = 0;
  std::size_t start = 0;
  while (start <= input.size()) {
    std::size_t end = input.find('\n', start);
    if (end == std::string_view::npos) end = input.size();
    const std::string_view line = input.substr(start, end - start);
    LineMemo::Entry entry;
    double ms = 0;
    const LineMemo::Match m = parser.has_pending()
                                  ? LineMemo::Match::kMiss
                                  : memo.Lookup(parser.state_id(), line, entry, ms);
    if (m == LineMemo::Match::kEvent) {
      if (entry.exec) ++exec_events;
      aggregator.AddRepeat(entry, ms);
    } else if (m == LineMemo::Match::kForeign) {
      ++line_number;
    } else {
      last_valid = false;
      parser.Feed(line, ++line_number);
      // As in `dlcheck parse`: remember a line that parsed alone into a timed create/exec.
      if (last_valid && last_line == line_number && !parser.has_pending()) {
        memo.Remember(parser.state_id(), line, last, last_ms);
      } else if (last_foreign == line_number && !parser.has_pending()) {
        memo.RememberForeign(line);
      }
    }
    start = end + 1;
  }
  parser.Finish();
  const Summary summary = aggregator.Summarize();
  std::uint64_t execs = 0;
  for (const PrimitiveStats& row : aggregator.rows()) execs += row.execs;
  if (execs != exec_events || summary.execs != exec_events) std::abort();
  return 0;
}
