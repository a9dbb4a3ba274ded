#include "dispatch/program.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "dispatch/signals.h"

extern char** environ;

namespace dlcheck::dispatch {
namespace {

// In the child: its own process group (holding the terminal when dlcheck held it), stdout on
// the pipe, default signal dispositions, then exec (searching PATH). An exec failure goes back
// to the parent as errno through the close-on-exec pipe.
[[noreturn]] void ExecProgram(int parent, int out_fd, int status_fd, std::vector<char*>& argv,
                              std::vector<char*>& envp, const cpu_set_t* cpus, bool terminal) {
  // Its own group, so that everything it starts can be signalled together; the terminal's
  // foreground too, so that it reads the terminal and gets Ctrl-C as it would without dlcheck.
  // SIGTTOU is held back meanwhile: this process is not yet in the foreground.
  sigset_t ttou;
  sigemptyset(&ttou);
  sigaddset(&ttou, SIGTTOU);
  sigprocmask(SIG_BLOCK, &ttou, nullptr);
  setpgid(0, 0);
  if (terminal) tcsetpgrp(STDIN_FILENO, getpid());
  // Default dispositions before the signals blocked around fork are let in: a SIGINT sent now
  // ends the child, as it would end the program.
  SignalForwarding::ResetInChild();
  DieWithParent(parent);
  dup2(out_fd, STDOUT_FILENO);
  // The affinity is inherited across exec: every thread the program starts stays on these CPUs.
  if (cpus != nullptr && sched_setaffinity(0, sizeof *cpus, cpus) != 0) {
    const int err = errno;
    (void)!write(status_fd, &err, sizeof err);
    _exit(127);
  }
  execvpe(argv[0], argv.data(), envp.data());
  const int err = errno;
  (void)!write(status_fd, &err, sizeof err);
  _exit(127);
}

// SIGTTOU held back in dlcheck while it lives: dlcheck may give the terminal to the program's
// group and take it back, and writes the program's output to a terminal it does not hold.
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

// Whether dlcheck holds its terminal's foreground (an interactive run): the program then gets
// it for as long as it runs.
bool HoldsTerminal() {
  return isatty(STDIN_FILENO) == 1 && tcgetpgrp(STDIN_FILENO) == getpgrp();
}

Status ExecError(const std::string& program, int err) {
  const bool not_found = err == ENOENT || err == ENOTDIR;
  if (not_found && program.find('/') == std::string::npos) {
    return Status(ExitCode::kCommandNotFound,
                  fmt::format("cannot run '{}': command not found", program));
  }
  return Status(not_found ? ExitCode::kCommandNotFound : ExitCode::kCannotExecute,
                fmt::format("cannot run '{}': {}", program, std::strerror(err)));
}

void Record(int status, ProgramOutcome& outcome) {
  if (WIFSIGNALED(status)) {
    outcome.signaled = true;
    outcome.signal = WTERMSIG(status);
  } else {
    outcome.exited = true;
    outcome.exit_code = WEXITSTATUS(status);
  }
}

// The program's process group and the terminal, as a shell keeps them for a job.
struct Job {
  pid_t pid = -1;         // the program, leader of its own process group
  bool terminal = false;  // the program's group holds dlcheck's terminal
};

// The program stopped (Ctrl-Z at the terminal it holds): dlcheck takes the terminal back and
// stops too, so the shell sees its job stopped; on `fg` both go on.
void FollowStop(const Job& job) {
  tcsetpgrp(STDIN_FILENO, getpgrp());
  kill(getpid(), SIGSTOP);
  tcsetpgrp(STDIN_FILENO, job.pid);
  kill(-job.pid, SIGCONT);
}

// Waits for the program (blocking or not); true once it has ended and been reaped.
bool Reap(const Job& job, ProgramOutcome& outcome, bool block) {
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

// What the program's stdout still holds when it has ended is read for at most this long: its
// last words, not what a process it left in the background goes on writing.
constexpr auto kDrainAfterEnd = std::chrono::milliseconds(250);
// How often the program is looked at while its stdout is quiet.
constexpr int kWaitPollMs = 20;

// Reads the program's stdout as it is written until the program has ended (waitpid says so,
// whoever else still holds the pipe) and what it wrote has been read, or the pipe closes.
// Returns whether the program was reaped on the way.
bool PumpStdout(int fd, const Job& job, ProgramOutcome& outcome,
                const std::function<void(std::string_view)>& on_stdout) {
  std::string buffer(64 * 1024, '\0');
  pollfd readable{fd, POLLIN, 0};
  bool reaped = false;
  std::chrono::steady_clock::time_point drain_until;
  for (;;) {
    if (!reaped && Reap(job, outcome, false)) {
      reaped = true;
      drain_until = std::chrono::steady_clock::now() + kDrainAfterEnd;
    }
    if (reaped && std::chrono::steady_clock::now() >= drain_until) break;
    const int ready = poll(&readable, 1, reaped ? 0 : kWaitPollMs);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0 || (ready == 0 && reaped)) break;
    if (ready == 0) continue;
    const ssize_t got = read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    on_stdout(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
  }
  return reaped;
}

// The program has ended: the terminal comes back to dlcheck, and whatever the program left
// running in its process group is sent SIGTERM (nothing dlcheck started outlives its run).
void EndJob(const Job& job) {
  if (job.terminal) tcsetpgrp(STDIN_FILENO, getpgrp());
  SignalForwarding::ClearTarget();
  if (kill(-job.pid, 0) == 0) {
    kill(-job.pid, SIGTERM);
    kill(-job.pid, SIGCONT);  // a stopped one ends too
  }
}

}  // namespace

std::string ProgramOutcome::Describe() const {
  if (!signaled) return fmt::format("exited with status {}", exit_code);
  return KilledBySignalText(signal);
}

StatusOr<ProgramOutcome> RunProgram(const ProgramSpec& spec,
                                    const std::function<void(std::string_view)>& on_stdout) {
  if (spec.argv.empty()) return Status(ExitCode::kUsage, "run: no program given");
  int out_pipe[2], status_pipe[2];
  if (pipe2(out_pipe, O_CLOEXEC) != 0 || pipe2(status_pipe, O_CLOEXEC) != 0) {
    return Status(ExitCode::kFailure, fmt::format("cannot create pipes: {}", strerror(errno)));
  }
  std::vector<std::string> env = ChildEnvironment(spec.env);
  std::vector<char*> envp, argv;
  for (auto& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);

  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int cpu : spec.cpus) CPU_SET(cpu, &cpus);

  SignalForwarding forwarding;
  const TerminalSignalsHeld terminal_signals;
  Job job{.terminal = HoldsTerminal()};
  const auto start = std::chrono::steady_clock::now();
  const pid_t parent = getpid();
  {
    // SIGINT/SIGTERM/SIGHUP wait until the program's group is known (the parent) or the
    // handlers are reset (the child), so none is lost between fork and exec.
    SignalForwarding::Block blocked;
    job.pid = fork();
    if (job.pid == 0) {
      ExecProgram(parent, out_pipe[1], status_pipe[1], argv, envp,
                  spec.cpus.empty() ? nullptr : &cpus, job.terminal);
    }
    if (job.pid > 0) {
      setpgid(job.pid, job.pid);  // as the child does: no signal to the group comes before it
      if (job.terminal) tcsetpgrp(STDIN_FILENO, job.pid);
      SignalForwarding::Target(job.pid, /*own_group=*/true);
    }
  }
  if (job.pid < 0) {
    return Status(ExitCode::kFailure, fmt::format("cannot fork: {}", strerror(errno)));
  }
  close(out_pipe[1]);
  close(status_pipe[1]);
  int exec_errno = 0;
  ssize_t got;
  while ((got = read(status_pipe[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR) {
  }
  close(status_pipe[0]);
  ProgramOutcome outcome;
  if (got == sizeof exec_errno) {
    close(out_pipe[0]);
    Reap(job, outcome, true);
    EndJob(job);
    return ExecError(spec.argv[0], exec_errno);
  }
  const bool reaped = PumpStdout(out_pipe[0], job, outcome, on_stdout);
  close(out_pipe[0]);
  if (!reaped) Reap(job, outcome, true);
  EndJob(job);
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.forwarded_signal = SignalForwarding::Received();
  return outcome;
}

}  // namespace dlcheck::dispatch
