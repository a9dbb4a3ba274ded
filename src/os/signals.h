// SPDX-License-Identifier: Apache-2.0
#pragma once
// The signals that end an interactive run (SIGINT, SIGTERM, SIGHUP) while dlcheck waits for a
// child: passed on to the child, so that it ends, and remembered, so that dlcheck stops what it
// was doing (a sweep does not start its next run) and still reports what it captured. A child
// in its own process group (a worker, `run`'s program) gets every one, with everything it
// started; a child in dlcheck's group already got a signal the terminal sent to the whole
// foreground group and is not sent it twice.
//
//   SignalForwarding forwarding;          // handlers in place while it lives (nests)
//   SignalForwarding::Target(pid, true);  // a worker: its whole process group
//   ... wait for the child ...
//   SignalForwarding::ClearTarget();
//   if (int sig = SignalForwarding::Received(); sig != 0) ... // stop, report, exit 128 + sig

#include <signal.h>

#include <string>

namespace dlcheck::os {

/// "SIGSEGV" for 11 (glibc's abbreviation with `SIG`), or "" for a number that names none.
std::string SignalName(int signal);

class SignalForwarding {
 public:
  /// Installs the handlers (no SA_RESTART, so a waiting poll or read wakes up) and ignores
  /// SIGPIPE; the outermost of nested instances also forgets a signal received before.
  SignalForwarding();
  /// Puts back what was installed before.
  ~SignalForwarding();
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

  /// Passes the signals on to `pid` from now on (to its process group when `own_group`).
  static void Target(pid_t pid, bool own_group);
  /// Passes nothing on from now on (the child has been reaped: its pid may be reused).
  static void ClearTarget();
  /// The last of SIGINT, SIGTERM and SIGHUP received while an instance lived; 0: none.
  static int Received();
  /// How many of them were received while an instance lived: a signal received after a point
  /// (the end of a recording) is told from one received before it.
  static int ReceivedCount();

  /// The signals, with SIGINT, SIGTERM and SIGHUP blocked while it lives: around fork, so
  /// that none arrives before Target() names the child.
  class Block {
   public:
    Block();
    ~Block();
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;

   private:
    sigset_t before_{};
  };

  /// In a child between fork and exec: the default dispositions of the forwarded signals and
  /// of SIGPIPE, and an empty signal mask (what exec would otherwise inherit).
  static void ResetInChild();

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  struct sigaction old_hup_ {};
  struct sigaction old_pipe_ {};
};

}  // namespace dlcheck::os
