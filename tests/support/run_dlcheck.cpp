// SPDX-License-Identifier: Apache-2.0
#include "support/run_dlcheck.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace dlcheck::testing {

pid_t StartDlcheck(const std::vector<std::string>& args, const std::string& out,
                   const std::string& err) {
  const pid_t pid = fork();
  if (pid == 0) {
    const int out_fd = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out_fd, STDOUT_FILENO);
    dup2(err_fd, STDERR_FILENO);
    std::vector<char*> argv = {const_cast<char*>(DLCHECK_BINARY)};
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(DLCHECK_BINARY, argv.data());
    _exit(127);
  }
  return pid;
}

std::vector<std::string> ReportCommands() {
  const RunResult listed = RunDlcheck({"help", "--list"});
  std::vector<std::string> names;
  std::size_t start = 0;
  while (listed.exit_code == 0 && start < listed.out.size()) {
    const std::size_t end = std::min(listed.out.find('\n', start), listed.out.size());
    names.push_back(listed.out.substr(start, end - start));
    start = end + 1;
  }
  return names;
}

RunResult RunDlcheck(const std::vector<std::string>& args, const std::string& stdin_text,
                     const std::vector<std::string>& extra_env) {
  int in_pipe[2], out_pipe[2], err_pipe[2];
  if (pipe(in_pipe) || pipe(out_pipe) || pipe(err_pipe)) throw std::runtime_error("pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    for (int fd : {in_pipe[0], in_pipe[1], out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) {
      close(fd);
    }
    for (const auto& kv : extra_env) putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> argv;
    std::string binary = DLCHECK_BINARY;
    argv.push_back(binary.data());
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execve(binary.c_str(), argv.data(), environ);
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  std::signal(SIGPIPE, SIG_IGN);

  RunResult result;
  std::size_t written = 0;
  if (stdin_text.empty()) {
    close(in_pipe[1]);
    in_pipe[1] = -1;
  }
  pollfd fds[3] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}, {in_pipe[1], POLLOUT, 0}};
  int open_outputs = 2;
  char buf[65536];
  while (open_outputs > 0) {
    const nfds_t n = in_pipe[1] >= 0 ? 3 : 2;
    if (poll(fds, n, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      const ssize_t got = read(fds[i].fd, buf, sizeof buf);
      if (got <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_outputs;
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<std::size_t>(got));
      }
    }
    if (in_pipe[1] >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
      const ssize_t put =
          write(in_pipe[1], stdin_text.data() + written, stdin_text.size() - written);
      if (put > 0) written += static_cast<std::size_t>(put);
      if (put <= 0 || written == stdin_text.size()) {
        close(in_pipe[1]);
        in_pipe[1] = -1;
        fds[2].fd = -1;
      }
    }
  }
  if (in_pipe[1] >= 0) close(in_pipe[1]);
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace dlcheck::testing
