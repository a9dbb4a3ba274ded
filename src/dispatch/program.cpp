#include "dispatch/program.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

extern char** environ;

namespace dlcheck::dispatch {
namespace {

// The running program, for the signal handler; 0 when none runs.
volatile sig_atomic_t g_program_pid = 0;
volatile sig_atomic_t g_forwarded = 0;

// Passes SIGINT/SIGTERM on to the program. A signal the terminal sent (si_code SI_KERNEL) went
// to the whole foreground process group, the program included: it is not sent twice.
void ForwardSignal(int signal, siginfo_t* info, void*) {
  if (info != nullptr && info->si_code == SI_KERNEL) return;
  const pid_t pid = g_program_pid;
  if (pid > 0) {
    kill(pid, signal);
    g_forwarded = signal;
  }
}

// Installs the forwarding handlers (no SA_RESTART: poll wakes up) and ignores SIGPIPE, so a
// closed stderr does not kill dlcheck; the destructor puts back what was there.
class SignalForwarding {
 public:
  SignalForwarding() {
    struct sigaction forward {};
    forward.sa_sigaction = ForwardSignal;
    forward.sa_flags = SA_SIGINFO;
    sigemptyset(&forward.sa_mask);
    sigaction(SIGINT, &forward, &old_int_);
    sigaction(SIGTERM, &forward, &old_term_);
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ignore, &old_pipe_);
  }
  ~SignalForwarding() {
    g_program_pid = 0;
    sigaction(SIGINT, &old_int_, nullptr);
    sigaction(SIGTERM, &old_term_, nullptr);
    sigaction(SIGPIPE, &old_pipe_, nullptr);
  }
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
  struct sigaction old_pipe_ {};
};

// In the child: stdout on the pipe, default signal dispositions, then exec (searching PATH).
// An exec failure goes back to the parent as errno through the close-on-exec pipe.
[[noreturn]] void ExecProgram(int parent, int out_fd, int status_fd, std::vector<char*>& argv,
                              std::vector<char*>& envp) {
  // Default dispositions before the signals blocked around fork are let in: a SIGINT sent now
  // ends the child, as it would end the program.
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  signal(SIGPIPE, SIG_DFL);  // SIG_IGN would be inherited across exec
  DieWithParent(parent);
  dup2(out_fd, STDOUT_FILENO);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execvpe(argv[0], argv.data(), envp.data());
  const int err = errno;
  (void)!write(status_fd, &err, sizeof err);
  _exit(127);
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

// Waits for the program (blocking or not); true once it has been reaped.
bool Reap(pid_t pid, ProgramOutcome& outcome, bool block) {
  int status = 0;
  pid_t got;
  while ((got = waitpid(pid, &status, block ? 0 : WNOHANG)) < 0 && errno == EINTR) {
  }
  if (got != pid) return false;
  g_program_pid = 0;  // its pid may be reused from now on: forward nothing more
  outcome.pid = static_cast<int>(pid);
  Record(status, outcome);
  return true;
}

// Reads the program's stdout until it closes, or until the program has ended and the pipe holds
// nothing more (something it left running in the background may keep the pipe open). Returns
// whether the program was reaped on the way.
bool PumpStdout(int fd, pid_t pid, ProgramOutcome& outcome,
                const std::function<void(std::string_view)>& on_stdout) {
  std::string buffer(64 * 1024, '\0');
  pollfd readable{fd, POLLIN, 0};
  bool reaped = false;
  for (;;) {
    const int ready = poll(&readable, 1, reaped ? 0 : 200);
    if (ready < 0 && errno == EINTR) continue;
    if (ready < 0) break;
    if (ready == 0) {
      if (reaped) break;
      reaped = Reap(pid, outcome, false);
      continue;
    }
    const ssize_t got = read(fd, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    on_stdout(std::string_view(buffer.data(), static_cast<std::size_t>(got)));
  }
  return reaped;
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

  SignalForwarding forwarding;
  const auto start = std::chrono::steady_clock::now();
  const pid_t parent = getpid();
  // SIGINT/SIGTERM wait until the program's pid is known (the parent) or the handlers are reset
  // (the child), so none is lost between fork and exec.
  sigset_t forwarded, before;
  sigemptyset(&forwarded);
  sigaddset(&forwarded, SIGINT);
  sigaddset(&forwarded, SIGTERM);
  sigprocmask(SIG_BLOCK, &forwarded, &before);
  const pid_t pid = fork();
  if (pid == 0) ExecProgram(parent, out_pipe[1], status_pipe[1], argv, envp);
  g_program_pid = pid > 0 ? pid : 0;
  g_forwarded = 0;
  sigprocmask(SIG_SETMASK, &before, nullptr);
  if (pid < 0) return Status(ExitCode::kFailure, fmt::format("cannot fork: {}", strerror(errno)));
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
    Reap(pid, outcome, true);
    return ExecError(spec.argv[0], exec_errno);
  }
  const bool reaped = PumpStdout(out_pipe[0], pid, outcome, on_stdout);
  close(out_pipe[0]);
  if (!reaped) Reap(pid, outcome, true);
  outcome.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  outcome.forwarded_signal = g_forwarded;
  return outcome;
}

}  // namespace dlcheck::dispatch
