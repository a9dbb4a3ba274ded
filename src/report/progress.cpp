// SPDX-License-Identifier: Apache-2.0
#include "report/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>

namespace dlcheck::report {
namespace {

constexpr auto kRedrawEvery = std::chrono::milliseconds(250);
constexpr std::size_t kWidth = 79;  // one line of an 80-column terminal: it never wraps

void WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t put = write(fd, bytes.data(), bytes.size());
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return;  // a terminal that went away: progress is not worth an error
    bytes.remove_prefix(static_cast<std::size_t>(put));
  }
}

}  // namespace

std::string Clock(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

Progress::Progress(std::string command, std::size_t steps, int fd)
    : command_(std::move(command)),
      steps_(steps),
      fd_(fd),
      active_(isatty(fd) != 0),
      start_(std::chrono::steady_clock::now()) {}

Progress::~Progress() {
  Clear();
}

void Progress::Step(std::string what) {
  if (!what_.empty()) ++done_;
  what_ = std::move(what);
  phase_.clear();
  Draw();
}

void Progress::Phase(std::string phase) {
  phase_ = std::move(phase);
  Draw();
}

void Progress::Tick() {
  if (!drawn_ || std::chrono::steady_clock::now() - last_draw_ >= kRedrawEvery) Draw();
}

void Progress::Clear() {
  if (!active_ || !drawn_) return;
  WriteAll(fd_, "\r\033[K");
  drawn_ = false;
}

std::string Progress::Line() const {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string line = "dlcheck " + command_;
  if (steps_ > 0) line += fmt::format(" [{}/{}]", std::min(done_ + 1, steps_), steps_);
  if (!what_.empty()) line += " " + what_;
  if (!phase_.empty()) line += ": " + phase_;
  line += fmt::format("  {} elapsed", Clock(elapsed));
  if (steps_ > 0 && done_ > 0) {
    const double left = elapsed / static_cast<double>(done_) * static_cast<double>(steps_ - done_);
    line += fmt::format(", ~{} left", Clock(left));
  }
  if (line.size() > kWidth) line.resize(kWidth);
  // A command's name may hold anything: no control byte reaches the terminal.
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return line;
}

void Progress::Draw() {
  if (!active_) return;
  WriteAll(fd_, "\r\033[K" + Line());
  drawn_ = true;
  last_draw_ = std::chrono::steady_clock::now();
}

}  // namespace dlcheck::report
