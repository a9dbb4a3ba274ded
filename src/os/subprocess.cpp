// SPDX-License-Identifier: Apache-2.0
#include "os/subprocess.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <optional>

#include "os/signals.h"

extern char** environ;

namespace dlcheck::os {
namespace {

using Clock = std::chrono::steady_clock;

constexpr std::size_t kStderrTail = 16 * 1024;
// What the child's pipes still hold when it has ended is read for at most this long: its last
// words, not what a process it left in the background goes on writing.
constexpr auto kDrainAfterEnd = std::chrono::milliseconds(250);
// How often the child is looked at while its pipes are quiet.
constexpr int kWaitPollMs = 20;

// The child's environment: this process's, minus the names in `unset` and those `overrides`
// sets, plus `overrides`, as NAME=VALUE strings.
std::vector<std::string> ChildEnvironment(const Spec& spec) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    bool drop = false;
    for (const auto& u : spec.unset_env) drop = drop || name == u;
    for (const auto& [k, v] : spec.env) drop = drop || name == k;
    if (!drop) env.emplace_back(entry);
  }
  for (const auto& [k, v] : spec.env) env.push_back(k + "=" + v);
  return env;
}

std::vector<char*> NullTerminated(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (auto& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// Pipes made before fork: read end [0], write end [1], both close-on-exec.
struct Pipe {
  int fd[2] = {-1, -1};
  bool Open() { return pipe2(fd, O_CLOEXEC) == 0; }
  void CloseWriteEnd() {
    if (fd[1] >= 0) close(fd[1]);
    fd[1] = -1;
  }
};

// What the child needs between fork and exec, prepared before fork (no allocation after it).
struct ChildSetup {
  int parent = 0;
  int out_fd = -1;
  int err_fd = -1;  // -1: stderr inherited
  int status_fd = -1;
  bool terminal = false;
  bool search_path = false;
  const cpu_set_t* cpus = nullptr;
  char** argv = nullptr;
  char** envp = nullptr;
};

[[noreturn]] void FailInChild(int status_fd) {
  const int err = errno;  // tells the parent why, through the close-on-exec pipe
  (void)!write(status_fd, &err, sizeof err);
  _exit(127);
}

// In the child: its own process group (holding the terminal when asked and dlcheck held it),
// the kernel's promise to kill it when dlcheck dies, its pipes, default signal dispositions,
// then exec.
[[noreturn]] void ExecChild(const ChildSetup& c) {
  // SIGTTOU is held back while this process is not yet in the terminal's foreground.
  sigset_t ttou;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigprocmask(SIG_BLOCK, &ttou, nullptr);
  setpgid(0, 0);
  if (c.terminal) tcsetpgrp(STDIN_FILENO, getpid());
  // Default dispositions before the signals blocked around fork are let in: a SIGINT sent now
  // ends the child, as it would end the program.
  SignalForwarding::ResetInChild();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != c.parent) _exit(127);  // dlcheck died before prctl: the race it leaves open
  dup2(c.out_fd, STDOUT_FILENO);
  if (c.err_fd >= 0) dup2(c.err_fd, STDERR_FILENO);
  // The affinity is inherited across exec: every thread the program starts stays on these CPUs.
  if (c.cpus != nullptr && sched_setaffinity(0, sizeof *c.cpus, c.cpus) != 0) {
    FailInChild(c.status_fd);
  }
  if (c.search_path) {
    execvpe(c.argv[0], c.argv, c.envp);
  } else {
    execve(c.argv[0], c.argv, c.envp);
  }
  FailInChild(c.status_fd);
}

// SIGTTOU held back in dlcheck while it lives: dlcheck may give the terminal to the child's
// group and take it back, and writes the child's output to a terminal it does not hold.
class TerminalSignalsHeld {
 public:
  TerminalSignalsHeld() {
    sigset_t ttou;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    sigprocmask(SIG_BLOCK, &ttou, &before_);
  }
  ~TerminalSignalsHeld() { sigprocmask(SIG_SETMASK, &before_, nullptr); }
  TerminalSignalsHeld(const TerminalSignalsHeld&) = delete;
  TerminalSignalsHeld& operator=(const TerminalSignalsHeld&) = delete;

 private:
  sigset_t before_{};
};

// Whether dlcheck holds its terminal's foreground (an interactive run).
bool HoldsTerminal() {
  return isatty(STDIN_FILENO) == 1 && tcgetpgrp(STDIN_FILENO) == getpgrp();
}

// The child's process group and the terminal, as a shell keeps them for a job.
struct Job {
  pid_t pid = -1;         // the child, leader of its own process group
  bool terminal = false;  // the child's group holds dlcheck's terminal
};

void Record(int status, Outcome& outcome) {
  if (outcome.timed_out) {
    outcome.signal = SIGKILL;  // dlcheck's SIGKILL: a timeout, not a crash
  } else if (WIFSIGNALED(status)) {
    outcome.signaled = true;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.exited = true;
    outcome.exit_code = WEXITSTATUS(status);
  }
}

// The child stopped (Ctrl-Z at the terminal it holds): dlcheck takes the terminal back and
// stops too, so the shell sees its job stopped; on `fg` both go on.
void FollowStop(const Job& job) {
  tcsetpgrp(STDIN_FILENO, getpgrp());
  kill(getpid(), SIGSTOP);
  tcsetpgrp(STDIN_FILENO, job.pid);
  kill(-job.pid, SIGCONT);
}

// Waits for the child (blocking or not); true once it has ended and been reaped. The one
// reaper: every child dlcheck starts ends here.
bool Reap(const Job& job, Outcome& outcome, bool block) {
  for (;;) {
    int status = 0;
    const int flags = (block ? 0 : WNOHANG) | (job.terminal ? WUNTRACED : 0);
    const pid_t got = waitpid(job.pid, &status, flags);
    if (got < 0 && errno == EINTR) continue;
    if (got != job.pid) return false;
    if (WIFSTOPPED(status)) {
      FollowStop(job);
      if (!block) return false;
      continue;
    }
    outcome.pid = static_cast<int>(job.pid);
    Record(status, outcome);
    return true;
  }
}

// The child has ended: the terminal comes back to dlcheck, and whatever the child left
// running in its process group is sent SIGTERM (nothing dlcheck started outlives its run).
void EndJob(const Job& job) {
  if (job.terminal) tcsetpgrp(STDIN_FILENO, getpgrp());
  SignalForwarding::ClearTarget();
  if (kill(-job.pid, 0) == 0) {
    kill(-job.pid, SIGTERM);
    kill(-job.pid, SIGCONT);  // a stopped one ends too
  }
}

void KeepTail(std::string& tail, std::string_view data) {
  tail.append(data);
  if (tail.size() > 2 * kStderrTail) tail.erase(0, tail.size() - kStderrTail);
}

// The child's pipes while it runs: stdout, and stderr when its tail is kept.
class Pipes {
 public:
  Pipes(int out, int err) : fds_{{out, POLLIN, 0}, {err, POLLIN, 0}} {}
  ~Pipes() {
    for (auto& p : fds_) Close(p);
  }
  Pipes(const Pipes&) = delete;
  Pipes& operator=(const Pipes&) = delete;

  bool open() const { return fds_[0].fd >= 0 || fds_[1].fd >= 0; }
  // Waits up to `wait_ms` for output and hands it on; false when nothing was ready.
  bool Read(int wait_ms, const std::function<void(std::string_view)>& on_stdout,
            const std::function<void(std::string_view)>& on_stderr, std::string& stderr_tail) {
    const int ready = poll(fds_, 2, wait_ms);
    if (ready <= 0) return ready < 0 && errno == EINTR;
    for (int i = 0; i < 2; ++i) {
      if (fds_[i].fd < 0 || !(fds_[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t got = read(fds_[i].fd, buffer_.data(), buffer_.size());
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        Close(fds_[i]);
        continue;
      }
      const std::string_view data(buffer_.data(), static_cast<std::size_t>(got));
      if (i == 0) {
        on_stdout(data);
      } else {
        KeepTail(stderr_tail, data);
        if (on_stderr) on_stderr(data);
      }
    }
    return true;
  }

 private:
  static void Close(pollfd& p) {
    if (p.fd >= 0) close(p.fd);
    p.fd = -1;  // poll passes over a negative descriptor
  }
  pollfd fds_[2];
  std::string buffer_ = std::string(64 * 1024, '\0');
};

std::optional<Clock::time_point> DeadlineOf(double timeout_s) {
  if (timeout_s <= 0) return std::nullopt;
  return Clock::now() +
         std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(timeout_s));
}

// Reads the child's pipes as they are written until it has ended (waitpid says so) and what it
// wrote has been read: to the pipes' end with Spec::read_to_end, else what is waiting, for
// kDrainAfterEnd at most (whoever else still holds the pipes). Past the deadline its group is
// killed (and it is reaped).
void Follow(const Job& job, Pipes& pipes, const Spec& spec, Outcome& outcome,
            const std::function<void(std::string_view)>& on_stdout) {
  std::optional<Clock::time_point> deadline = DeadlineOf(spec.timeout_s);
  std::optional<Clock::time_point> drain_until;
  const int signals_at_start = SignalForwarding::ReceivedCount();
  bool signalled = false;
  bool reaped = false;
  for (;;) {
    if (!reaped && Reap(job, outcome, false)) {
      reaped = true;
      if (!spec.read_to_end) drain_until = Clock::now() + kDrainAfterEnd;
    }
    if (!reaped && !signalled && SignalForwarding::ReceivedCount() != signals_at_start) {
      signalled = true;  // passed on: it has Spec::grace_after_signal_s to end
      const Clock::time_point grace = *DeadlineOf(std::max(spec.grace_after_signal_s, 0.001));
      if (!deadline || grace < *deadline) deadline = grace;
    }
    if (reaped && (!pipes.open() || (drain_until && Clock::now() >= *drain_until))) return;
    if (deadline && Clock::now() >= *deadline) {
      kill(-job.pid, SIGKILL);
      if (reaped) return;  // what it left behind held the pipes: ended with it
      outcome.timed_out = !signalled;
      kill(job.pid, SIGKILL);
      Reap(job, outcome, true);
      return;
    }
    if (!reaped && spec.while_running) spec.while_running(job.pid);
    const bool got =
        pipes.Read(drain_until ? 0 : kWaitPollMs, on_stdout, spec.on_stderr, outcome.stderr_tail);
    if (!got && drain_until) return;  // ended, and nothing more is waiting
  }
}

// Forks the child; in the parent, puts it in its own group (holding the terminal when asked)
// and names it the target of forwarded signals. -1 when fork failed.
pid_t Start(const ChildSetup& setup) {
  // SIGINT/SIGTERM/SIGHUP wait until the child's group is known (the parent) or the handlers
  // are reset (the child), so none is lost between fork and exec.
  const SignalForwarding::Block blocked;
  const pid_t pid = fork();
  if (pid == 0) ExecChild(setup);
  if (pid > 0) {
    setpgid(pid, pid);  // as the child does: no signal to the group comes before it
    if (setup.terminal) tcsetpgrp(STDIN_FILENO, pid);
    SignalForwarding::Target(pid, /*own_group=*/true);
  }
  return pid;
}

// exec's errno, from the close-on-exec pipe; 0 once exec succeeded (the pipe closed empty).
int ExecErrno(int status_fd) {
  int err = 0;
  ssize_t got;
  while ((got = read(status_fd, &err, sizeof err)) < 0 && errno == EINTR) {
  }
  close(status_fd);
  return got == sizeof err ? err : 0;
}

}  // namespace

std::string Outcome::Ended() const {
  if (timed_out) return fmt::format("timed out after {:g} s and was killed", timeout_s);
  if (signaled) return KilledBySignalText(signal);
  return fmt::format("exited with status {}", exit_code);
}

std::string Outcome::Describe() const {
  if (timed_out || interrupted == 0) return Ended();
  // Stopped on the user's word, not crashed: say whose signal it was.
  const std::string name = SignalName(interrupted);
  return fmt::format("was stopped: dlcheck received {} and passed it on",
                     name.empty() ? "signal " + std::to_string(interrupted) : name);
}

std::string KilledBySignalText(int signal) {
  const std::string name = SignalName(signal);
  return name.empty() ? fmt::format("was killed by signal {}", signal)
                      : fmt::format("was killed by signal {} ({})", signal, name);
}

Status CannotRun(const std::string& program, int err) {
  const bool not_found = err == ENOENT || err == ENOTDIR;
  if (not_found && program.find('/') == std::string::npos) {
    return Status(ExitCode::kCommandNotFound,
                  fmt::format("cannot run '{}': command not found", program));
  }
  return Status(not_found ? ExitCode::kCommandNotFound : ExitCode::kCannotExecute,
                fmt::format("cannot run '{}': {}", program, std::strerror(err)));
}

std::optional<std::string> FindOnPath(std::string_view name, std::string_view path_list) {
  while (true) {
    const std::size_t colon = path_list.find(':');
    std::string dir(path_list.substr(0, colon));
    if (dir.empty()) dir = ".";
    const std::string path = dir + "/" + std::string(name);
    struct stat info {};
    if (stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
        access(path.c_str(), X_OK) == 0) {
      return path;
    }
    if (colon == std::string_view::npos) return std::nullopt;
    path_list.remove_prefix(colon + 1);
  }
}

StatusOr<std::string> FindProgram(const std::string& program, std::string_view path_list) {
  if (program.find('/') == std::string::npos) {
    if (std::optional<std::string> found = FindOnPath(program, path_list)) return *found;
    return CannotRun(program, ENOENT);
  }
  if (access(program.c_str(), X_OK) != 0) return CannotRun(program, errno);
  // exec refuses a directory with EACCES, whatever its mode.
  struct stat info {};
  if (stat(program.c_str(), &info) == 0 && !S_ISREG(info.st_mode))
    return CannotRun(program, EACCES);
  return program;
}

std::string SelfExecutable() {
  char path[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
  if (n <= 0) return "dlcheck";
  return std::string(path, static_cast<std::size_t>(n));
}

StatusOr<Outcome> RunProcess(const Spec& spec,
                             const std::function<void(std::string_view)>& on_stdout) {
  if (spec.argv.empty()) return Status(ExitCode::kUsage, "no program given to run");
  Pipe out, err, status;
  if (!out.Open() || !status.Open() || (spec.keep_stderr_tail && !err.Open())) {
    return Status(ExitCode::kFailure, fmt::format("cannot create pipes: {}", strerror(errno)));
  }
  std::vector<std::string> env = ChildEnvironment(spec);
  std::vector<std::string> args = spec.argv;
  std::vector<char*> envp = NullTerminated(env), argv = NullTerminated(args);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int cpu : spec.cpus) CPU_SET(cpu, &cpus);

  const SignalForwarding forwarding;
  std::optional<TerminalSignalsHeld> terminal_signals;
  if (spec.terminal) terminal_signals.emplace();
  const ChildSetup setup{.parent = getpid(),
                         .out_fd = out.fd[1],
                         .err_fd = err.fd[1],
                         .status_fd = status.fd[1],
                         .terminal = spec.terminal && HoldsTerminal(),
                         .search_path = spec.search_path,
                         .cpus = spec.cpus.empty() ? nullptr : &cpus,
                         .argv = argv.data(),
                         .envp = envp.data()};
  const auto start = Clock::now();
  const double start_unix_s =
      std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
  const Job job{.pid = Start(setup), .terminal = setup.terminal};
  out.CloseWriteEnd();
  err.CloseWriteEnd();
  status.CloseWriteEnd();
  Pipes pipes(out.fd[0], err.fd[0]);
  if (job.pid < 0) {
    close(status.fd[0]);
    return Status(ExitCode::kFailure, fmt::format("cannot fork: {}", strerror(errno)));
  }
  Outcome outcome;
  outcome.timeout_s = spec.timeout_s;
  outcome.start_unix_s = start_unix_s;
  if (const int exec_errno = ExecErrno(status.fd[0]); exec_errno != 0) {
    Reap(job, outcome, true);
    EndJob(job);
    return CannotRun(spec.argv[0], exec_errno);
  }
  Follow(job, pipes, spec, outcome, on_stdout);
  if (outcome.pid == 0) Reap(job, outcome, true);
  EndJob(job);
  outcome.wall_s = std::chrono::duration<double>(Clock::now() - start).count();
  outcome.interrupted = SignalForwarding::Received();
  if (outcome.stderr_tail.size() > kStderrTail) {
    outcome.stderr_tail.erase(0, outcome.stderr_tail.size() - kStderrTail);
  }
  return outcome;
}

namespace {

// Cuts a byte stream into lines with one reused buffer; hands complete lines on.
class LineSplitter {
 public:
  LineSplitter(const std::function<void(std::string_view)>& on_line, std::size_t max_line)
      : on_line_(on_line), max_line_(max_line) {}

  void Feed(std::string_view data) {
    while (!data.empty()) {
      const std::size_t nl = data.find('\n');
      Append(data.substr(0, nl));
      if (nl == std::string_view::npos) return;
      Emit();
      data.remove_prefix(nl + 1);
    }
  }
  void Finish() {
    if (!pending_.empty()) Emit();
  }

 private:
  void Append(std::string_view data) {
    while (pending_.size() + data.size() > max_line_) {
      const std::size_t room = max_line_ - pending_.size();
      pending_.append(data.substr(0, room));
      Emit();
      data.remove_prefix(room);
    }
    pending_.append(data);
  }
  void Emit() {
    std::string_view line(pending_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    on_line_(line);
    pending_.clear();
  }
  const std::function<void(std::string_view)>& on_line_;
  std::size_t max_line_;
  std::string pending_;
};

}  // namespace

StatusOr<Outcome> RunProcessLines(const Spec& spec,
                                  const std::function<void(std::string_view)>& on_line,
                                  std::size_t max_line) {
  LineSplitter lines(on_line, max_line);
  StatusOr<Outcome> ended =
      RunProcess(spec, [&lines](std::string_view bytes) { lines.Feed(bytes); });
  lines.Finish();
  return ended;
}

}  // namespace dlcheck::os
