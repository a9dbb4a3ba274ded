// SPDX-License-Identifier: Apache-2.0
#pragma once
// The executions of a run, in order, for a timeline: the `trace` table of `parse`, `run` and
// `verbose` (and their JSON documents), and the join of `profile` with perf's samples.
//
//   std::vector<ExecRecord> execs;
//   Timeline timeline(session, execs, kMaxTraceTimeline);
//   timeline.set_recording(true);
//   session.AddListener(&timeline);          // then feed the session; timeline.dropped() counts
//                                            // the executions past the cap

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verbose/log_session.h"
#include "verbose/verbose_event.h"

namespace dlcheck::verbose {

// The caps of a timeline, one per use, each with its reason. Every capped timeline counts what it
// left out and says so (`timeline-capped`, or a line on stderr for a trace).
/// A timeline inside a report (`run`, `verbose`: the `trace` table of JSON, xlsx and --format
/// trace): the JSON printer copies the table, and 50,000 executions made `run --format json`
/// peak at 119 MB; 10,000 keep it near 32 MB on a log of ten million lines.
inline constexpr std::size_t kMaxReportTimeline = 10'000;
/// `parse --format trace`: the trace printer streams the kept executions (about 250 bytes each
/// here), so ten times the report's.
inline constexpr std::size_t kMaxTraceTimeline = 100'000;
/// `profile`'s join with perf's samples by time: never printed, so a hundred times the report's
/// (a minute of a small model's primitives).
inline constexpr std::size_t kMaxJoinedTimeline = 1'000'000;

/// What a capped timeline says (the `timeline-capped` finding, or a line on stderr beside a
/// trace): "the timeline keeps the first N executions; M later ones are in the totals but not
/// in the timeline".
std::string TimelineCappedText(std::size_t kept, std::uint64_t dropped);

/// One primitive execution, for a timeline.
struct ExecRecord {
  std::string primitive;
  std::string layer;
  std::string implementation;
  std::string prop_kind;
  std::string problem;
  double start_ms = 0;  ///< since the first recorded execution
  double time_ms = 0;
  /// The log's timestamp of this execution (ms since the epoch, as oneDNN prints it), when the
  /// line had one.
  std::optional<double> stamp_ms;
};

/// The executions of a session, in order: a listener that records while `recording` (a model
/// worker's traced phase; all of a program's run), at most `max_records` of them (the rest are
/// counted in dropped()), so memory stays bounded however long the log.
class Timeline : public EventListener {
 public:
  Timeline(const LogSession& session, std::vector<ExecRecord>& execs, std::size_t max_records)
      : session_(session), execs_(execs), max_records_(max_records) {}
  void set_recording(bool recording) { recording_ = recording; }
  /// Executions seen while recording but not kept (over max_records).
  std::uint64_t dropped() const { return dropped_; }

  void OnEvent(const VerboseEvent& e, std::size_t row) override;
  void OnRepeat(const LineMemo::Entry& repeat, double ms, std::optional<double> timestamp) override;
  bool UsesRepeats() const override { return recording_; }
  bool UsesTimestamps() const override { return recording_; }

 private:
  // Moves the clock past one execution: false when it is past the cap (counted in dropped_);
  // else `start_ms` is where it starts.
  bool Advance(double time_ms, std::optional<double> timestamp, double& start_ms);

  const LogSession& session_;
  std::vector<ExecRecord>& execs_;
  std::size_t max_records_;
  bool recording_ = false;
  std::uint64_t dropped_ = 0;
  std::optional<double> first_stamp_;
  double clock_ms_ = 0;
};

}  // namespace dlcheck::verbose
