// SPDX-License-Identifier: Apache-2.0
#pragma once
// A program's stdout, as it arrives, split into oneDNN verbose lines and everything else. The
// verbose lines go to a log session; every other byte is the program's own output and is handed
// on unchanged and in order (partial lines, `\r` progress bars and binary data included).
//
//   OutputSplitter splitter(sink);             // sink: an OutputSink
//   while (read(fd, buf, n) > 0) splitter.Feed({buf, n});
//   splitter.Finish();                         // end of the stream: a held tail is decided
//
// Lines end at `\n`. On a line that holds a marker (FindMarker: `onednn_verbose,` ...), the
// text from the marker to the line feed is the verbose line (fed without `\n` and a last `\r`);
// what came before the marker on that line (a progress bar ended by `\r`, another writer's
// unfinished line) is program output. A line without a marker is program output with its `\n`.
// Bytes are handed on as soon as they are decided: only a tail that could still become a marker
// (at most the length of the longest marker) and a verbose line in progress are held back.

#include <cstdint>
#include <string>
#include <string_view>

namespace dlcheck::verbose {

/// Where the splitter delivers what it decided.
class OutputSink {
 public:
  virtual ~OutputSink() = default;
  /// A verbose line, from its marker, without the line end.
  virtual void OnVerboseLine(std::string_view line) = 0;
  /// A verbose line longer than the splitter's cap: counted, its text dropped.
  virtual void OnTooLongLine() = 0;
  /// The program's own bytes, in order; called at most once per Feed (and once by Finish).
  virtual void OnProgramOutput(std::string_view bytes) = 0;
};

class OutputSplitter {
 public:
  /// `max_line`: the longest verbose line kept (longer ones go to OnTooLongLine).
  explicit OutputSplitter(OutputSink& sink, std::size_t max_line = std::size_t{1} << 20);

  /// Takes the next bytes of the stream.
  void Feed(std::string_view chunk);
  /// Ends the stream: a verbose line without its `\n` is delivered, held bytes are handed on.
  void Finish();

  /// Bytes handed on as program output so far.
  std::uint64_t program_bytes() const { return program_bytes_; }
  /// Line feeds handed on as program output so far.
  std::uint64_t program_lines() const { return program_lines_; }
  /// Verbose lines delivered (too-long ones included).
  std::uint64_t verbose_lines() const { return verbose_lines_; }

 private:
  void TakeLine(std::string_view line);
  void TakeHeldLine();
  void DecidePartial();
  void Append(std::string_view piece);
  void CheckLength();
  void DeliverVerbose(std::string_view line);
  void PassOn(std::string_view bytes);
  void Flush();
  void Reset();

  OutputSink& sink_;
  std::size_t max_line_;
  // The undecided part of the current line, after `context_` bytes already handed on (0 or 1:
  // the byte before, which tells whether a marker would be glued to a word).
  std::string held_;
  std::size_t context_ = 0;
  bool in_verbose_ = false;  // held_ starts with a marker: wait for the line feed
  bool too_long_ = false;    // the verbose line in progress passed max_line_: drop until `\n`
  std::string out_;          // program output decided during this Feed
  std::uint64_t program_bytes_ = 0;
  std::uint64_t program_lines_ = 0;
  std::uint64_t verbose_lines_ = 0;
};

}  // namespace dlcheck::verbose
