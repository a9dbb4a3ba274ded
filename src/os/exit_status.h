// SPDX-License-Identifier: Apache-2.0
#pragma once
// The exit status a shell reports for a process that a signal ended: 128 + N for signal N. The
// one home of that rule: `run -- CMD` passes a program's death on, and dlcheck ends with it when
// a signal interrupts it.
//
//   if (const int sig = SignalForwarding::Received(); sig != 0) return ExitStatusForSignal(sig);

namespace dlcheck::os {

/// 128 + `signal`, what `sh`, `time` and `timeout` report for a process ended by `signal`.
constexpr int ExitStatusForSignal(int signal) {
  return 128 + signal;
}

}  // namespace dlcheck::os
