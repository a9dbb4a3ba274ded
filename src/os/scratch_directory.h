// SPDX-License-Identifier: Apache-2.0
#pragma once
// A scratch directory: a fresh directory (mkdtemp) in the temporary directory, removed with
// everything in it when it goes out of scope. The files named through File() are also removed
// on a signal that ends dlcheck (removed_on_signal.h), and the directory after them.
//
//   ScratchDirectory scratch;
//   if (Status made = scratch.Create("dlcheck-profile-"); !made.ok()) return made;
//   const std::string data = scratch.File("perf.data");  // <tmp>/dlcheck-profile-Ab12Cd/perf.data

#include <deque>
#include <string>
#include <string_view>

#include "common/status.h"
#include "os/removed_on_signal.h"

namespace dlcheck::os {

class ScratchDirectory {
 public:
  ScratchDirectory() = default;
  /// Removes the directory and everything in it (nothing when Create failed or was not called).
  ~ScratchDirectory();
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  /// Creates `<parent>/<prefix>XXXXXX` (mode 0700); `parent` empty: the temporary directory
  /// (TMPDIR, else /tmp). Error (ExitCode::kOutputError): "cannot create a scratch directory in
  /// /tmp: No space left on device".
  Status Create(std::string_view prefix, const std::string& parent = "");

  /// The directory; empty before Create.
  const std::string& path() const { return path_; }
  /// The path of `name` in the directory, registered for removal on a signal.
  std::string File(std::string_view name);

 private:
  std::string path_;
  RemovedOnSignal directory_guard_;
  std::deque<RemovedOnSignal> file_guards_;  // a deque: a guard never moves once registered
};

}  // namespace dlcheck::os
