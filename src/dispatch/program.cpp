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

// In the child: stdout on the pipe, default signal dispositions, then exec (searching PATH).
// An exec failure goes back to the parent as errno through the close-on-exec pipe.
[[noreturn]] void ExecProgram(int parent, int out_fd, int status_fd, std::vector<char*>& argv,
                              std::vector<char*>& envp, const cpu_set_t* cpus) {
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
  SignalForwarding::ClearTarget();  // its pid may be reused from now on: forward nothing more
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

  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  for (int cpu : spec.cpus) CPU_SET(cpu, &cpus);

  SignalForwarding forwarding;
  const auto start = std::chrono::steady_clock::now();
  const pid_t parent = getpid();
  pid_t pid = -1;
  {
    // SIGINT/SIGTERM/SIGHUP wait until the program's pid is known (the parent) or the handlers
    // are reset (the child), so none is lost between fork and exec.
    SignalForwarding::Block blocked;
    pid = fork();
    if (pid == 0) {
      ExecProgram(parent, out_pipe[1], status_pipe[1], argv, envp,
                  spec.cpus.empty() ? nullptr : &cpus);
    }
    if (pid > 0) SignalForwarding::Target(pid, /*own_group=*/false);
  }
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
  outcome.forwarded_signal = SignalForwarding::Received();
  return outcome;
}

}  // namespace dlcheck::dispatch
