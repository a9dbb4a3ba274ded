// SPDX-License-Identifier: Apache-2.0
#include "verbose/log_session.h"

#include <algorithm>
#include <charconv>

#include "verbose/exec_time.h"

namespace dlcheck::verbose {

std::uint64_t ParseStats::Skipped() const {
  std::uint64_t n = 0;
  for (const auto& [reason, count] : skipped) n += count;
  return n;
}

void MergeHeader(LogHeader& into, const LogHeader& from) {
  if (into.library_version.empty()) into.library_version = from.library_version;
  if (into.zendnn_version.empty()) into.zendnn_version = from.zendnn_version;
  if (into.runtime.empty()) into.runtime = from.runtime;
  if (!into.threads) into.threads = from.threads;
  if (into.isa.empty()) {
    into.isa = from.isa;
    into.isa_short = from.isa_short;
  }
  // The other info lines too (a verbose filter's, ...), as bounded as the parser keeps them.
  for (const std::string& line : from.other) {
    if (into.other.size() >= 64) break;
    if (std::find(into.other.begin(), into.other.end(), line) == into.other.end()) {
      into.other.push_back(line);
    }
  }
}

LogSession::LogSession(LogSessionOptions options) : options_(options) {}

void LogSession::StartInput(std::string name) {
  if (parser_) Finish();
  input_name_ = std::move(name);
  if (label_inputs_) {
    input_names_.push_back(input_name_);
    aggregator_.SetInput(static_cast<std::uint32_t>(input_names_.size()));
  }
  parser_.emplace([this](const ParseResult& r, VerboseEvent& event, std::uint64_t line) {
    OnParsed(r, event, line);
  });
  parser_->RestrictTo(options_.dialect);
  // A new input has its own template and header: remembered lines no longer parse the same.
  ForgetMemo();
}

void LogSession::Finish() {
  if (!parser_) return;
  if (!stopped()) parser_->Finish();
  MergeHeader(merged_header_, parser_->header());
  input_headers_.emplace_back(input_name_, parser_->header());
  parser_.reset();
}

LogHeader LogSession::header() const {
  LogHeader header = merged_header_;
  if (parser_) MergeHeader(header, parser_->header());
  return header;
}

void LogSession::SetLayer(std::string_view layer) {
  if (layer == layer_) return;
  layer_.assign(layer);
  layer_id_ = 0;  // 0: no layer
  if (layer_.empty()) return;
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    if (layers_[i] == layer_) {
      layer_id_ = static_cast<std::uint32_t>(i + 1);
      return;
    }
  }
  layers_.push_back(layer_);
  layer_id_ = static_cast<std::uint32_t>(layers_.size());
}

// Equal states, equal results for equal lines: the parser's state (template, header ISA) and
// the layer events are tagged with, numbered as they come.
void LogSession::NewMemoStates() {
  memo_parser_state_ = parser_->state_id();
  memo_layer_id_ = layer_id_;
  auto number = [this](std::uint32_t layer_key) {
    return memo_states_
        .try_emplace({memo_parser_state_, layer_key},
                     static_cast<std::uint32_t>(memo_states_.size()))
        .first->second;
  };
  memo_state_ = number(layer_id_);
  memo_stamped_state_ = number(layer_id_ | kStampedBit);
}

// The per-line loop of every reader: kept in one function, so that a repeated line costs a
// memo lookup and an addition, as it did in parse's own loop.
bool LogSession::Feed(std::string_view line, std::uint64_t number) {
  if (!strict_error_.empty()) return false;
  if (!parser_) [[unlikely]] {
    StartInput("<input>");
  }
  JoiningParser& parser = *parser_;
  ++stats_.lines;
  // Fast path: a line seen before (all but its time and timestamp) feeds its row without
  // parsing; first the line that followed the previous one last time, compared in place.
  if (options_.memo && !parser.has_pending()) {
    const LineMemo::Predicted found =
        memo_.LookupPredicted(PredictedStates(), line, true, line.size());
    switch (found.match) {
      case LineMemo::Match::kEvent:
        ++stats_.events;
        aggregator_.AddRepeat(found.entry, found.ms);
        if (!listeners_.empty()) NotifyRepeat(found.entry, found.ms, found.stamp);
        return true;
      case LineMemo::Match::kForeign:
        ++stats_.skipped[SkipReason::kForeign];
        return true;
      case LineMemo::Match::kMiss:
        break;
    }
    LineMemo::Entry entry;
    double ms = 0;
    bool stamped = false;
    std::optional<double> timestamp;
    std::size_t stamp_at = 0;
    const std::string_view key = MemoKey(line, stamped, timestamp, stamp_at);
    switch (memo_.Lookup(MemoState(stamped), key, entry, ms)) {
      case LineMemo::Match::kEvent:
        ++stats_.events;
        aggregator_.AddRepeat(entry, ms);
        for (EventListener* l : listeners_) l->OnRepeat(entry, ms, timestamp);
        return true;
      case LineMemo::Match::kForeign:
        ++stats_.skipped[SkipReason::kForeign];
        return true;
      case LineMemo::Match::kMiss:
        break;
    }
  }
  last_.line = 0;
  parser.Feed(line, number);
  if (options_.memo) RememberLine(line, number);
  return strict_error_.empty();
}

// The per-line loop of a long log: the lines read ahead that the memo predicts, taken in place
// until the first it does not (Feed takes that one). Nothing here changes the parser's state,
// the layer or whether a timestamp was seen, so the memo's states hold for the whole text.
std::size_t LogSession::FeedPredicted(std::string_view text, std::size_t line_cap,
                                      std::uint64_t& lines) {
  lines = 0;
  if (!options_.memo || !strict_error_.empty() || !parser_ || parser_->has_pending()) return 0;
  bool notify = false;
  for (const EventListener* l : listeners_) notify = notify || l->UsesRepeats();
  const LineMemo::Taken taken =
      memo_.TakePredicted(PredictedStates(), text, line_cap,
                          options_.add_repeats ? &aggregator_ : nullptr, notify ? this : nullptr);
  lines = taken.lines;
  stats_.lines += taken.lines;
  stats_.events += taken.events;
  if (taken.foreign != 0) stats_.skipped[SkipReason::kForeign] += taken.foreign;
  return taken.bytes;
}

// Tells the listeners of a repeat taken by LookupPredicted; the timestamp's digits are read
// only for a listener that uses them.
void LogSession::NotifyRepeat(const LineMemo::Entry& entry, double ms, std::string_view stamp) {
  std::optional<double> timestamp;
  bool read = stamp.empty();
  for (EventListener* l : listeners_) {
    if (!read && l->UsesTimestamps()) {
      read = true;
      double value = 0;
      const auto [end, error] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), value);
      if (error == std::errc() && end == stamp.data() + stamp.size() && IsTimestampMs(value)) {
        timestamp = value;
      }
    }
    l->OnRepeat(entry, ms, timestamp);
  }
}

std::string_view LogSession::MemoKey(std::string_view line, bool& stamped,
                                     std::optional<double>& timestamp, std::size_t& stamp_at) {
  std::size_t begin = 0, end = 0;
  stamped = saw_timestamp_ && FindTimestampField(line, begin, end, timestamp);
  stamp_at = begin;
  if (!stamped) return line;
  memo_key_.assign(line.substr(0, begin));
  memo_key_.append(line.substr(end));
  return memo_key_;
}

// Remembers a line that parsed alone into a timed create or exec (keyed without its timestamp
// field, which differs on every line), or that had no marker.
void LogSession::RememberLine(std::string_view line, std::uint64_t number) {
  if (parser_->has_pending()) return;
  if (last_.line == number && last_.row != Aggregator::kNoRow && last_.ms) {
    if (last_.timestamped) saw_timestamp_ = true;
    bool stamped = false;
    std::optional<double> timestamp;
    std::size_t stamp_at = 0;
    const std::string_view key = MemoKey(line, stamped, timestamp, stamp_at);
    // A timestamp the key function does not find where the parser found one: never a repeat.
    if (stamped != last_.timestamped) return;
    memo_.Remember(MemoState(stamped), key, {last_.row, last_.exec, last_.cache_hit, last_.nested},
                   *last_.ms, stamped ? stamp_at : std::string_view::npos);
  } else if (last_foreign_ == number) {
    memo_.RememberForeign(line);
  }
}

Status LogSession::FeedAll(LineReader& reader, std::string name) {
  StartInput(std::move(name));
  FeedRest(reader);
  Finish();
  return reader.status();
}

void LogSession::FeedRest(LineReader& reader) {
  std::string_view line;
  while (strict_error_.empty()) {
    std::uint64_t lines = 0;
    const std::size_t taken = FeedPredicted(reader.Ahead(), reader.line_cap(), lines);
    reader.Skip(taken, lines);
    const LineReader::Next next = reader.Read(line);
    if (next == LineReader::Next::kEnd) break;
    if (next == LineReader::Next::kTooLong) {
      FeedTooLong(reader.line_number());
    } else {
      Feed(line, reader.line_number());
    }
  }
}

void LogSession::FeedTooLong(std::uint64_t number) {
  if (stopped()) return;
  ++stats_.lines;
  if (!parser_) StartInput("<input>");
  parser_->FeedSkip(SkipReason::kTooLong, number);
}

void LogSession::OnParsed(const ParseResult& result, VerboseEvent& event, std::uint64_t line) {
  switch (result.kind) {
    case LineKind::kEvent: {
      ++stats_.events;
      // A graph partition's layer is its op names, set by the parser; dlcheck's own layer
      // (SetLayer) wins where there is one.
      if (!layer_.empty()) event.layer = layer_;
      const std::size_t row = aggregator_.Add(event);
      last_ = {line,
               row,
               event.operation == Operation::kExec,
               event.IsCacheHit(),
               event.operation == Operation::kCreateNested,
               TimeIsLastField(event.era) ? event.time_ms : std::nullopt,  // else not memoised
               event.timestamp.has_value()};
      for (EventListener* l : listeners_) l->OnEvent(event, row);
      break;
    }
    case LineKind::kInfo:
      ++stats_.info_lines;
      break;
    case LineKind::kSkipped:
      OnSkipped(result.reason, line);
      break;
    case LineKind::kBlank:
      break;
  }
}

void LogSession::OnSkipped(SkipReason reason, std::uint64_t line) {
  ++stats_.skipped[reason];
  if (reason == SkipReason::kForeign) last_foreign_ = line;
  if (options_.strict && strict_error_.empty() && reason != SkipReason::kForeign &&
      reason != SkipReason::kGraph) {
    strict_error_ =
        input_name_ + ":" + std::to_string(line) + ": " + std::string(SkipReasonText(reason));
  }
}

std::vector<PrimitiveStats> LogSession::TakeRows() {
  memo_.Clear();  // its entries name rows by index
  return aggregator_.TakeRows();
}

}  // namespace dlcheck::verbose
