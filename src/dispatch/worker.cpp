#include "dispatch/worker.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>

#include "dispatch/signals.h"

extern char** environ;

namespace dlcheck::dispatch {
namespace {

constexpr std::size_t kStderrTail = 16 * 1024;

// Splits the stream into lines with one reused buffer; hands complete lines on.
class LineSplitter {
 public:
  LineSplitter(const std::function<void(std::string_view)>& on_line, std::size_t max_line)
      : on_line_(on_line), max_line_(max_line) {}

  void Feed(const char* data, std::size_t size) {
    while (size > 0) {
      const void* nl = std::memchr(data, '\n', size);
      const std::size_t take = nl ? static_cast<const char*>(nl) - data : size;
      Append(data, take);
      if (nl == nullptr) return;
      Emit();
      data += take + 1;
      size -= take + 1;
    }
  }
  void Finish() {
    if (!pending_.empty()) Emit();
  }
  std::size_t lines() const { return lines_; }

 private:
  void Append(const char* data, std::size_t size) {
    while (pending_.size() + size > max_line_) {
      const std::size_t room = max_line_ - pending_.size();
      pending_.append(data, room);
      Emit();
      data += room;
      size -= room;
    }
    pending_.append(data, size);
  }
  void Emit() {
    std::string_view line(pending_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    on_line_(line);
    ++lines_;
    pending_.clear();
  }
  const std::function<void(std::string_view)>& on_line_;
  std::size_t max_line_;
  std::string pending_;
  std::size_t lines_ = 0;
};

}  // namespace

std::string WorkerOutcome::Describe(double timeout_s) const {
  if (timed_out) return fmt::format("timed out after {:g} s and was killed", timeout_s);
  if (interrupted != 0) {
    // Stopped on the user's word, not crashed: say whose signal it was.
    const std::string name = SignalName(interrupted);
    return fmt::format("was stopped: dlcheck received {} and passed it on",
                       name.empty() ? "signal " + std::to_string(interrupted) : name);
  }
  if (signaled) {
    return KilledBySignalText(signal);
  }
  return fmt::format("exited with status {}", exit_code);
}

std::string KilledBySignalText(int signal) {
  const std::string name = SignalName(signal);
  return name.empty() ? fmt::format("was killed by signal {}", signal)
                      : fmt::format("was killed by signal {} ({})", signal, name);
}

std::vector<std::string> ChildEnvironment(
    const std::vector<std::pair<std::string, std::string>>& overrides,
    const std::vector<std::string>& unset) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool drop = false;
    for (const auto& u : unset) drop = drop || name == u;
    for (const auto& [k, v] : overrides) drop = drop || name == k;
    if (!drop) env.emplace_back(entry);
  }
  for (const auto& [k, v] : overrides) env.push_back(k + "=" + v);
  return env;
}

void DieWithParent(int parent) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);
}

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev == nullptr ? std::string() : "SIG" + std::string(abbrev);
}

std::string SelfExecutable() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "dlcheck";
  return std::string(path, static_cast<std::size_t>(n));
}

namespace {

// A started child: its pid and the read ends of its stdout and stderr.
struct Child {
  pid_t pid = -1;
  int out = -1;
  int err = -1;
};

// Starts the child with its stdout and stderr on pipes; fails when it cannot be started (the
// exec error comes back through a close-on-exec pipe).
StatusOr<Child> Spawn(const WorkerSpec& spec) {
  int out_pipe[2], err_pipe[2], exec_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) || pipe2(err_pipe, O_CLOEXEC) || pipe2(exec_pipe, O_CLOEXEC)) {
    return Status(ExitCode::kFailure, fmt::format("cannot create pipes: {}", strerror(errno)));
  }
  std::vector<std::string> env = ChildEnvironment(spec.env, spec.unset_env);
  std::vector<char*> envp, argv;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  const pid_t parent = getpid();
  SignalForwarding::Block blocked;  // until the worker is named the target of forwarded signals
  const pid_t pid = fork();
  if (pid < 0) return Status(ExitCode::kFailure, fmt::format("cannot fork: {}", strerror(errno)));
  if (pid == 0) {
    SignalForwarding::ResetInChild();
    DieWithParent(parent);
    setpgid(0, 0);  // its own process group, so a timeout kills everything it started
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    execve(argv[0], argv.data(), envp.data());
    const int err = errno;  // tell the parent why exec failed, through the close-on-exec pipe
    (void)!write(exec_pipe[1], &err, sizeof err);
    _exit(127);
  }
  setpgid(pid, pid);  // as the child does: no signal to its group can come before the group
  SignalForwarding::Target(pid, /*own_group=*/true);
  close(out_pipe[1]);
  close(err_pipe[1]);
  close(exec_pipe[1]);
  int exec_errno = 0;
  ssize_t got;
  while ((got = read(exec_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  const bool exec_failed = got == sizeof exec_errno;
  close(exec_pipe[0]);
  if (exec_failed) {
    close(out_pipe[0]);
    close(err_pipe[0]);
    SignalForwarding::ClearTarget();
    waitpid(pid, nullptr, 0);
    return Status(ExitCode::kWorkerFailed,
                  fmt::format("cannot start worker {}: {}", spec.argv[0], strerror(exec_errno)));
  }
  return Child{.pid = pid, .out = out_pipe[0], .err = err_pipe[0]};
}

void KeepTail(std::string& tail, const char* data, std::size_t size) {
  tail.append(data, size);
  if (tail.size() > 2 * kStderrTail) tail.erase(0, tail.size() - kStderrTail);
}

// Reads the child's stdout (line by line, into `lines`) and stderr (its tail) until both close
// or the deadline passes; then the child's process group is killed.
void Pump(const Child& child, double timeout_s, LineSplitter& lines, WorkerOutcome& outcome) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  pollfd fds[2] = {{child.out, POLLIN, 0}, {child.err, POLLIN, 0}};
  int open_fds = 2;
  std::string buffer(64 * 1024, '\0');
  while (open_fds > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      outcome.timed_out = true;
      kill(-child.pid, SIGKILL);
      kill(child.pid, SIGKILL);
      break;
    }
    const int ready = poll(fds, 2, static_cast<int>(std::min<long long>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = read(fds[i].fd, buffer.data(), buffer.size());
      if (got <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      const auto n = static_cast<std::size_t>(got);
      if (i == 0) {
        lines.Feed(buffer.data(), n);
      } else {
        KeepTail(outcome.stderr_tail, buffer.data(), n);
      }
    }
  }
  for (auto& fd : fds) {
    if (fd.fd >= 0) close(fd.fd);
  }
}

// Waits for the child and records how it ended.
void Reap(pid_t pid, WorkerOutcome& outcome) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  SignalForwarding::ClearTarget();
  outcome.pid = static_cast<int>(pid);
  outcome.interrupted = SignalForwarding::Received();
  if (outcome.timed_out) {
    outcome.signaled = false;
    outcome.signal = SIGKILL;
  } else if (WIFSIGNALED(status)) {
    outcome.signaled = true;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.exited = true;
    outcome.exit_code = WEXITSTATUS(status);
  }
}

}  // namespace

StatusOr<WorkerOutcome> RunWorker(const WorkerSpec& spec,
                                  const std::function<void(std::string_view)>& on_line,
                                  std::size_t max_line) {
  if (spec.argv.empty()) return Status(ExitCode::kFailure, "worker: no program given");
  SignalForwarding forwarding;
  StatusOr<Child> child = Spawn(spec);
  if (!child.ok()) return child.status();
  WorkerOutcome outcome;
  LineSplitter lines(on_line, max_line);
  Pump(*child, spec.timeout_s, lines, outcome);
  lines.Finish();
  outcome.stdout_lines = lines.lines();
  if (outcome.stderr_tail.size() > kStderrTail) {
    outcome.stderr_tail.erase(0, outcome.stderr_tail.size() - kStderrTail);
  }
  Reap(child->pid, outcome);
  return outcome;
}

}  // namespace dlcheck::dispatch
