// SPDX-License-Identifier: Apache-2.0
// The scratch directory: made fresh, removed with what is in it when done, and on SIGTERM (its
// named files, then itself).
#include "os/scratch_directory.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/scratch_dir.h"

namespace dlcheck::os {
namespace {

namespace fs = std::filesystem;
using ScratchDirectoryTest = testing::ScratchDirTest;

TEST_F(ScratchDirectoryTest, IsFreshPrivateAndRemovedWithItsFiles) {
  std::string path;
  {
    ScratchDirectory scratch;
    EXPECT_TRUE(scratch.path().empty());
    ASSERT_TRUE(scratch.Create("dlcheck-test-", dir_.string()).ok());
    path = scratch.path();
    EXPECT_EQ(fs::path(path).parent_path(), dir_);
    EXPECT_TRUE(fs::path(path).filename().string().starts_with("dlcheck-test-"));
    struct stat info {};
    ASSERT_EQ(stat(path.c_str(), &info), 0);
    EXPECT_TRUE(S_ISDIR(info.st_mode));
    EXPECT_EQ(info.st_mode & 0777, 0700u);
    const std::string data = scratch.File("perf.data");
    EXPECT_EQ(data, path + "/perf.data");
    std::ofstream(data) << "recorded";
    std::ofstream(path + "/perf.data.old") << "not named through File()";
    fs::create_directory(path + "/sub");
    std::ofstream(path + "/sub/deeper") << "x";

    ScratchDirectory other;
    ASSERT_TRUE(other.Create("dlcheck-test-", dir_.string()).ok());
    EXPECT_NE(other.path(), path);
  }
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir_));  // the other one is gone too
}

TEST_F(ScratchDirectoryTest, AParentThatCannotHoldItIsAnOutputError) {
  ScratchDirectory scratch;
  const std::string missing = dir_.string() + "/missing";
  const Status made = scratch.Create("dlcheck-test-", missing);
  EXPECT_EQ(made.code(), ExitCode::kOutputError);
  EXPECT_EQ(made.message(),
            "cannot create a scratch directory in " + missing + ": No such file or directory");
  EXPECT_TRUE(scratch.path().empty());
}

// A child makes one, writes a named file and is ended by SIGTERM: both are gone.
TEST_F(ScratchDirectoryTest, ASignalRemovesItsNamedFilesAndItself) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(pipe_fds[0]);
    ScratchDirectory scratch;
    if (!scratch.Create("dlcheck-test-", dir_.string()).ok()) _exit(1);
    std::ofstream(scratch.File("perf.data")) << "recorded";
    const std::string path = scratch.path() + "\n";
    if (write(pipe_fds[1], path.data(), path.size()) != static_cast<ssize_t>(path.size())) _exit(1);
    raise(SIGTERM);
    _exit(2);  // not reached: the handler ends the process as SIGTERM would
  }
  close(pipe_fds[1]);
  std::string path;
  char c = 0;
  while (read(pipe_fds[0], &c, 1) == 1 && c != '\n') path += c;
  close(pipe_fds[0]);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  ASSERT_FALSE(path.empty());
  EXPECT_FALSE(fs::exists(path + "/perf.data"));
  EXPECT_FALSE(fs::exists(path));
}

}  // namespace
}  // namespace dlcheck::os
