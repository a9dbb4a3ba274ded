// SPDX-License-Identifier: Apache-2.0
#include "os/removed_on_signal.h"

#include <limits.h>
#include <signal.h>
#include <unistd.h>

#include <cstring>

namespace dlcheck::os {
namespace {

constexpr int kSlots = 32;
constexpr int kEndingSignals[] = {SIGINT, SIGTERM, SIGHUP};

// Fixed storage: the handler may only read memory that no allocation moves.
struct Slot {
  char path[PATH_MAX];
  volatile sig_atomic_t used;
  bool directory;
};
Slot g_slots[kSlots];

void RemoveAll() {
  for (int pass = 0; pass < 2; ++pass) {  // files first, then their directories
    for (Slot& slot : g_slots) {
      if (slot.used == 0 || slot.directory != (pass == 1)) continue;
      if (slot.directory) {
        rmdir(slot.path);
      } else {
        unlink(slot.path);
      }
    }
  }
}

void RemoveAndDie(int signal) {
  RemoveAll();
  ::signal(signal, SIG_DFL);
  raise(signal);
}

// Installs the handler for each ending signal still at its default (a handler that forwards
// signals to a child, signals.h, keeps its own; ours is back when it puts back what it found).
void InstallWhereDefault() {
  for (int s : kEndingSignals) {
    struct sigaction current {};
    sigaction(s, nullptr, &current);
    if (current.sa_handler != SIG_DFL || (current.sa_flags & SA_SIGINFO) != 0) continue;
    struct sigaction remove {};
    remove.sa_handler = RemoveAndDie;
    sigemptyset(&remove.sa_mask);
    for (int other : kEndingSignals) sigaddset(&remove.sa_mask, other);
    sigaction(s, &remove, nullptr);
  }
}

// The ending signals held back while a slot changes, so the handler never sees half a path.
class Blocked {
 public:
  Blocked() {
    sigset_t set;
    sigemptyset(&set);
    for (int s : kEndingSignals) sigaddset(&set, s);
    sigprocmask(SIG_BLOCK, &set, &before_);
  }
  ~Blocked() { sigprocmask(SIG_SETMASK, &before_, nullptr); }
  Blocked(const Blocked&) = delete;
  Blocked& operator=(const Blocked&) = delete;

 private:
  sigset_t before_{};
};

}  // namespace

RemovedOnSignal::RemovedOnSignal(const std::string& path, bool directory) {
  Reset(path, directory);
}

RemovedOnSignal::~RemovedOnSignal() {
  Release();
}

void RemovedOnSignal::Reset(const std::string& path, bool directory) {
  Release();
  if (path.empty() || path.size() >= PATH_MAX) return;
  const Blocked blocked;
  InstallWhereDefault();
  for (int i = 0; i < kSlots; ++i) {
    if (g_slots[i].used != 0) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].directory = directory;
    g_slots[i].used = 1;
    slot_ = i;
    return;
  }
}

void RemovedOnSignal::Release() {
  if (slot_ < 0) return;
  const Blocked blocked;
  g_slots[slot_].used = 0;
  slot_ = -1;
}

}  // namespace dlcheck::os
