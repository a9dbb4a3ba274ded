// SPDX-License-Identifier: Apache-2.0
#include "os/signals.h"

#include <string.h>
#include <unistd.h>

namespace dlcheck::os {
namespace {

volatile sig_atomic_t g_target = 0;     // the child's pid; 0: none
volatile sig_atomic_t g_own_group = 0;  // the child leads its own process group
volatile sig_atomic_t g_received = 0;
volatile sig_atomic_t g_received_count = 0;
int g_depth = 0;  // nested SignalForwarding instances

constexpr int kForwarded[] = {SIGINT, SIGTERM, SIGHUP};

void Forward(int signal, siginfo_t* info, void*) {
  g_received = signal;
  g_received_count = g_received_count + 1;
  const pid_t pid = g_target;
  if (pid <= 0) return;
  if (g_own_group != 0) {
    kill(-pid, signal);
    return;
  }
  // The terminal (si_code SI_KERNEL) sent it to the whole foreground group, the child included.
  if (info == nullptr || info->si_code != SI_KERNEL) kill(pid, signal);
}

}  // namespace

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev == nullptr ? std::string() : "SIG" + std::string(abbrev);
}

SignalForwarding::SignalForwarding() {
  if (g_depth++ == 0) {
    g_received = 0;
    g_received_count = 0;
  }
  struct sigaction forward {};
  forward.sa_sigaction = Forward;
  forward.sa_flags = SA_SIGINFO;
  sigemptyset(&forward.sa_mask);
  sigaction(SIGINT, &forward, &old_int_);
  sigaction(SIGTERM, &forward, &old_term_);
  sigaction(SIGHUP, &forward, &old_hup_);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old_pipe_);
}

SignalForwarding::~SignalForwarding() {
  ClearTarget();
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGHUP, &old_hup_, nullptr);
  sigaction(SIGPIPE, &old_pipe_, nullptr);
  --g_depth;
}

void SignalForwarding::Target(pid_t pid, bool own_group) {
  g_own_group = own_group ? 1 : 0;
  g_target = pid;
}

void SignalForwarding::ClearTarget() {
  g_target = 0;
}

int SignalForwarding::Received() {
  return g_received;
}

int SignalForwarding::ReceivedCount() {
  return g_received_count;
}

SignalForwarding::Block::Block() {
  sigset_t set;
  sigemptyset(&set);
  for (int s : kForwarded) sigaddset(&set, s);
  sigprocmask(SIG_BLOCK, &set, &before_);
}

SignalForwarding::Block::~Block() {
  sigprocmask(SIG_SETMASK, &before_, nullptr);
}

void SignalForwarding::ResetInChild() {
  for (int s : kForwarded) signal(s, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);  // SIG_IGN would be inherited across exec
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

}  // namespace dlcheck::os
