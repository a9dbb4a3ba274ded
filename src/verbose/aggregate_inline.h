// SPDX-License-Identifier: Apache-2.0
#pragma once
// The Aggregator's per-event work that the memo's per-line loop (LineMemo::TakePredicted) calls
// for every repeated line: defined here, inline, for the two files that call it (aggregate.cpp
// and line_memo.cpp), so that a repeated line costs no call.

#include <algorithm>

#include "verbose/aggregate.h"

namespace dlcheck::verbose {

[[gnu::always_inline]] inline void Aggregator::AddRepeatHere(const LineMemo::Entry& entry,
                                                             double ms) {
  ++events_;
  if (entry.row == other_row_) ++other_events_;
  PrimitiveStats& row = rows_[entry.row];
  if (!entry.exec && !pending_dispatch_.empty()) {
    JoinDispatch(row, row.problem.view());
    if (!entry.nested) pending_dispatch_.clear();
  }
  AddTime(row, entry, ms);
}

[[gnu::always_inline]] inline void Aggregator::AddTime(PrimitiveStats& row,
                                                       const LineMemo::Entry& kind,
                                                       std::optional<double> ms) {
  if (kind.nested) {
    ++row.nested_creates;
    if (ms) row.nested_create_ms += *ms;
  } else if (kind.exec) {
    ++row.execs;
    if (ms) {
      if (row.timed_execs == 0) {
        row.exec_ms_min = row.exec_ms_max = row.first_exec_ms = *ms;
      } else {
        row.exec_ms_min = std::min(row.exec_ms_min, *ms);
        row.exec_ms_max = std::max(row.exec_ms_max, *ms);
      }
      ++row.timed_execs;
      row.exec_ms_total += *ms;
    }
  } else {
    ++row.creates;
    if (kind.cache_hit) ++row.cache_hits;
    if (ms) row.create_ms += *ms;
  }
}

}  // namespace dlcheck::verbose
