// SPDX-License-Identifier: Apache-2.0
#include "os/child_call.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <fstream>

namespace dlcheck::os {
namespace {

// The address space this process holds now (/proc/self/statm's first field), in bytes.
std::size_t AddressSpaceBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

// A signal sent to the child alone: passed on to dlcheck (which stops as for its own), and the
// child ends as the signal would end it.
void PassOnToParent(int signal) {
  ::kill(::getppid(), signal);
  ::_exit(128 + signal);
}

// The OOM killer's first choice, before dlcheck (raising one's own score needs no privilege).
void FirstForTheOomKiller() {
  const int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  const char most[] = "1000";
  [[maybe_unused]] const ssize_t wrote = ::write(fd, most, sizeof most - 1);
  ::close(fd);
}

[[noreturn]] void RunChild(const std::function<std::string()>& work, const ChildLimits& limits,
                           std::size_t address_space, int out) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) ::signal(sig, PassOnToParent);
  FirstForTheOomKiller();
  const rlimit memory{address_space + limits.max_memory_bytes,
                      address_space + limits.max_memory_bytes};
  ::setrlimit(RLIMIT_AS, &memory);
  const rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  try {
    const std::string result = work();
    if (result.size() > limits.max_output_bytes) ::_exit(1);
    for (std::size_t at = 0; at < result.size();) {
      const ssize_t wrote = ::write(out, result.data() + at, result.size() - at);
      if (wrote <= 0) ::_exit(1);
      at += static_cast<std::size_t>(wrote);
    }
  } catch (...) {
    ::_exit(1);
  }
  ::_exit(0);
}

}  // namespace

std::optional<std::string> CallInChild(const std::function<std::string()>& work,
                                       const ChildLimits& limits) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return std::nullopt;
  const std::size_t address_space = AddressSpaceBytes();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    RunChild(work, limits, address_space, fds[1]);
  }
  ::close(fds[1]);
  if (pid < 0) {
    ::close(fds[0]);
    return std::nullopt;
  }
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(limits.timeout_s);
  std::string result;
  bool ended = false;  // the child closed its end: it is done
  bool bounded = true;
  constexpr long kStopCheckMs = 50;
  while (!ended && bounded) {
    if (limits.stop && limits.stop()) break;
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd p{fds[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min(left, kStopCheckMs)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;
    if (ready < 0) break;
    char buffer[4096];
    const ssize_t got = ::read(fds[0], buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      ended = true;
      break;
    }
    result.append(buffer, static_cast<std::size_t>(got));
    bounded = result.size() <= limits.max_output_bytes;
  }
  ::close(fds[0]);
  if (!ended) ::kill(pid, SIGKILL);
  int status = 0;
  pid_t reaped = -1;
  do {
    reaped = ::waitpid(pid, &status, 0);
  } while (reaped < 0 && errno == EINTR);
  if (reaped != pid || !ended || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return std::nullopt;
  return result;
}

}  // namespace dlcheck::os
