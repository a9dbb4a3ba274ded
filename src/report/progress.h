// SPDX-License-Identifier: Apache-2.0
#pragma once
// Progress of long work on stderr, drawn only when stderr is a terminal (never in the data, never
// in a log file): one line rewritten in place with the command, the step (configuration) and its
// phase, the time elapsed and, once a step has finished, an estimate of the time left. The line
// is cleared when the work ends, and before anything else is written to the terminal.
//
//   Progress progress("dispatch", /*steps=*/8);
//   progress.Step("cap avx2");            // [1/8] cap avx2
//   progress.Phase("timed");              // [1/8] cap avx2: timed   0:12 elapsed, ~1:24 left
//   progress.Clear();                     // before writing something else to stderr

#include <chrono>
#include <cstddef>
#include <string>

namespace dlcheck::report {

class Progress {
 public:
  /// Draws on `fd` when it is a terminal (isatty), else never; `steps` 0: no count or estimate.
  Progress(std::string command, std::size_t steps, int fd = 2);
  /// Clears the line.
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// True when it draws anything at all.
  bool active() const { return active_; }
  /// Starts the next step (the previous one counts as done).
  void Step(std::string what);
  /// The phase within the step.
  void Phase(std::string phase);
  /// Redraws the line when a moment has passed since the last drawing (or it was cleared).
  void Tick();
  /// Removes the line (before other output; the next Tick or Phase draws it again).
  void Clear();

  /// The line as drawn (without the terminal's control bytes): for tests.
  std::string Line() const;

 private:
  void Draw();

  std::string command_;
  std::size_t steps_;
  int fd_;
  bool active_;
  bool drawn_ = false;
  std::size_t done_ = 0;  // steps finished
  std::string what_;
  std::string phase_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
};

/// "0:07", "12:34", "1:02:03".
std::string Clock(double seconds);

}  // namespace dlcheck::report
