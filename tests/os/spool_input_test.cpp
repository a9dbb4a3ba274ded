// SPDX-License-Identifier: Apache-2.0
// SpoolInput (src/os/input_file.h): a stream read once (a pipe, standard input) copied whole into
// a file only its owner may read; a stream larger than the bound and a write the disk refuses
// are clear errors, and neither leaves a file behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <string>
#include <thread>

#include "os/input_file.h"
#include "support/scratch_dir.h"
#include "support/test_files.h"

namespace dlcheck::os {
namespace {

using SpoolInputTest = testing::ScratchDirTest;
using dlcheck::testing::ReadFile;

// A pipe whose write end gets `content` from a thread, then closes; the read end is returned.
// SIGPIPE is ignored: a reader that stops early ends the writer with EPIPE.
int PipeOf(const std::string& content, std::thread& writer) {
  std::signal(SIGPIPE, SIG_IGN);
  int fds[2];
  EXPECT_EQ(pipe(fds), 0);
  writer = std::thread([fd = fds[1], content] {
    std::size_t at = 0;
    while (at < content.size()) {
      const ssize_t n = write(fd, content.data() + at, content.size() - at);
      if (n <= 0) break;
      at += static_cast<std::size_t>(n);
    }
    close(fd);
  });
  return fds[0];
}

TEST_F(SpoolInputTest, APipeIsCopiedWholeIntoAPrivateFile) {
  std::string content;
  for (int i = 0; i < 20000; ++i)
    content += "onednn_verbose,exec,cpu,line " + std::to_string(i) + "\n";
  std::thread writer;
  const int fd = PipeOf(content, writer);
  const std::string path = (dir_ / "spooled.log").string();
  const Status spooled = SpoolInput(fd, "standard input", path);
  writer.join();
  close(fd);
  ASSERT_TRUE(spooled.ok()) << spooled.message();
  EXPECT_EQ(ReadFile(path), content);
  struct stat info {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
}

TEST_F(SpoolInputTest, MoreThanTheBoundIsAnInputErrorAndLeavesNoFile) {
  std::thread writer;
  const int fd = PipeOf(std::string(3 << 20, 'x'), writer);
  const std::string path = (dir_ / "spooled.log").string();
  const Status spooled = SpoolInput(fd, "standard input", path, std::size_t{1} << 20);
  close(fd);  // the writer's pending write fails with EPIPE (SIGPIPE ignored) and it ends
  writer.join();
  EXPECT_EQ(spooled.code(), ExitCode::kInputError);
  EXPECT_EQ(spooled.message(),
            "standard input holds more than 1 MiB, the most dlcheck copies to read it again");
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(SpoolInputTest, AFullDiskIsAnOutputError) {
  std::thread writer;
  const int fd = PipeOf(std::string(1 << 20, 'x'), writer);
  const Status spooled = SpoolInput(fd, "standard input", "/dev/full");
  close(fd);
  writer.join();
  EXPECT_EQ(spooled.code(), ExitCode::kOutputError);
  EXPECT_EQ(spooled.message(), "cannot write '/dev/full': No space left on device");
}

}  // namespace
}  // namespace dlcheck::os
