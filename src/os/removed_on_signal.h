// SPDX-License-Identifier: Apache-2.0
#pragma once
// Temporary files that must not outlive dlcheck when a signal ends it (SIGINT, SIGTERM, SIGHUP):
// an output's temporary before its rename, a workbook being packed, perf's recording in a scratch
// directory. While one is registered, those signals (where nothing else handles them) remove
// every registered path, then end dlcheck as the signal would have (status 128+N). Owners still
// remove their files themselves on every ordinary path; a registration only covers the signal.
//
//   RemovedOnSignal guard(temporary_path);   // removed if SIGTERM comes now
//   ... write, rename ...
//   guard.Release();                          // or let it go out of scope

#include <string>

namespace dlcheck::os {

class RemovedOnSignal {
 public:
  RemovedOnSignal() = default;
  /// Registers `path` (a file; with `directory`, an empty directory: rmdir'ed after the files).
  /// Paths beyond a fixed number of slots (32) or longer than PATH_MAX are not covered.
  explicit RemovedOnSignal(const std::string& path, bool directory = false);
  /// Releases the registration (the path itself is left as it is).
  ~RemovedOnSignal();
  RemovedOnSignal(const RemovedOnSignal&) = delete;
  RemovedOnSignal& operator=(const RemovedOnSignal&) = delete;

  /// Registers `path` instead of what was registered before.
  void Reset(const std::string& path, bool directory = false);
  /// Forgets the path (renamed into place, or removed by its owner).
  void Release();

 private:
  int slot_ = -1;
};

}  // namespace dlcheck::os
