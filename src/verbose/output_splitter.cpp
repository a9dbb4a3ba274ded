// SPDX-License-Identifier: Apache-2.0
#include "verbose/output_splitter.h"

#include <array>
#include <cstring>

#include "verbose/dialect.h"
#include "verbose/line_parser.h"

namespace dlcheck::verbose {
namespace {

// The length of the longest suffix of `text` that could still grow into a marker (dialect.h's):
// such a tail of the stream is held back until the next bytes decide it.
std::size_t MarkerPrefixAtEnd(std::string_view text) {
  std::size_t longest = 0;
  for (const Dialect& dialect : kDialects) {
    const std::string_view marker = dialect.marker;
    for (std::size_t k = std::min(text.size(), marker.size() - 1); k > longest; --k) {
      if (marker.starts_with(text.substr(text.size() - k))) {
        longest = k;
        break;
      }
    }
  }
  return longest;
}

}  // namespace

OutputSplitter::OutputSplitter(OutputSink& sink, std::size_t max_line)
    : sink_(sink), max_line_(max_line) {}

void OutputSplitter::Feed(std::string_view chunk) {
  while (!chunk.empty()) {
    const void* nl = std::memchr(chunk.data(), '\n', chunk.size());
    const std::size_t take =
        nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - chunk.data()) : chunk.size();
    const std::string_view piece = chunk.substr(0, take);
    if (nl != nullptr && held_.empty() && !in_verbose_ && !too_long_) {
      TakeLine(piece);  // a whole line in this chunk: no copy
    } else {
      Append(piece);
      if (nl != nullptr) {
        TakeHeldLine();
      } else {
        DecidePartial();
      }
    }
    chunk.remove_prefix(nl ? take + 1 : take);
  }
  Flush();
}

void OutputSplitter::Finish() {
  if (in_verbose_ && !too_long_) {
    DeliverVerbose(held_);
  } else if (!in_verbose_ && held_.size() > context_) {
    PassOn(std::string_view(held_).substr(context_));
  }
  Reset();
  Flush();
}

void OutputSplitter::Append(std::string_view piece) {
  if (too_long_) return;
  held_.append(piece);
  if (in_verbose_) CheckLength();
}

void OutputSplitter::CheckLength() {
  if (held_.size() <= max_line_) return;
  too_long_ = true;
  held_.clear();
  ++verbose_lines_;
  sink_.OnTooLongLine();
}

void OutputSplitter::TakeLine(std::string_view line) {
  const std::size_t marker = FindMarker(line);
  if (marker == std::string_view::npos) {
    PassOn(line);
    PassOn("\n");
    ++program_lines_;
    return;
  }
  PassOn(line.substr(0, marker));
  if (line.size() - marker > max_line_) {
    ++verbose_lines_;
    sink_.OnTooLongLine();
  } else {
    DeliverVerbose(line.substr(marker));
  }
}

void OutputSplitter::TakeHeldLine() {
  if (too_long_) {
    // Counted when it grew too long.
  } else if (in_verbose_) {
    DeliverVerbose(held_);
  } else {
    const std::string_view line(held_);
    const std::size_t marker = FindMarker(line);
    if (marker == std::string_view::npos) {
      PassOn(line.substr(context_));
      PassOn("\n");
      ++program_lines_;
    } else {
      PassOn(line.substr(context_, marker - context_));
      DeliverVerbose(line.substr(marker));
    }
  }
  Reset();
}

// A line without its `\n` yet: hand on what can no longer be part of a verbose line.
void OutputSplitter::DecidePartial() {
  if (in_verbose_ || too_long_) return;
  const std::size_t marker = FindMarker(held_);
  if (marker != std::string_view::npos) {
    PassOn(std::string_view(held_).substr(context_, marker - context_));
    held_.erase(0, marker);
    context_ = 0;
    in_verbose_ = true;
    CheckLength();
    return;
  }
  const std::size_t keep =
      held_.size() - MarkerPrefixAtEnd(std::string_view(held_).substr(context_));
  if (keep <= context_) return;
  PassOn(std::string_view(held_).substr(context_, keep - context_));
  held_.erase(0, keep - 1);  // the last byte handed on stays as context
  context_ = 1;
}

void OutputSplitter::DeliverVerbose(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  ++verbose_lines_;
  sink_.OnVerboseLine(line);
}

void OutputSplitter::PassOn(std::string_view bytes) {
  out_.append(bytes);
  program_bytes_ += bytes.size();
}

void OutputSplitter::Flush() {
  if (out_.empty()) return;
  sink_.OnProgramOutput(out_);
  out_.clear();
}

void OutputSplitter::Reset() {
  held_.clear();
  context_ = 0;
  in_verbose_ = false;
  too_long_ = false;
}

}  // namespace dlcheck::verbose
