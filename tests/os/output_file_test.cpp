// SPDX-License-Identifier: Apache-2.0
// OutputFile (src/os/output_file.h): what each kind of target gets. Regular files are
// replaced whole, devices and FIFOs written into, directories, block devices and sockets refused;
// an output that is not committed leaves the target as it was and no temporary file.
#include "os/output_file.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/scratch_dir.h"
#include "support/test_files.h"

namespace dlcheck::os {
namespace {

using OutputTargetTest = testing::ScratchDirTest;

using dlcheck::testing::ReadFile;

std::vector<std::string> Entries(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  return names;
}

TEST_F(OutputTargetTest, ARegularFileIsReplacedOnCommitOnly) {
  const std::string path = Write("out.txt", "old\n");
  OutputFile out;
  ASSERT_TRUE(out.Open(path).ok());
  EXPECT_FALSE(out.writes_through());
  out.stream() << "new\n";
  EXPECT_EQ(ReadFile(path), "old\n");  // nothing seen before the rename
  ASSERT_TRUE(out.Commit().ok());
  EXPECT_EQ(ReadFile(path), "new\n");
  EXPECT_EQ(Entries(dir_), std::vector<std::string>{"out.txt"});
}

// Issue 37, class 7: a name near NAME_MAX (250 bytes) still gets a temporary beside it (its
// base cut to fit), and the target keeps its whole name.
TEST_F(OutputTargetTest, ANameNearTheLimitStillGetsATemporary) {
  const std::string name(250, 'n');
  const std::string path = (dir_ / name).string();
  OutputFile out;
  ASSERT_TRUE(out.Open(path).ok());
  out.stream() << "whole\n";
  const Status committed = out.Commit();
  ASSERT_TRUE(committed.ok()) << committed.message();
  EXPECT_EQ(ReadFile(path), "whole\n");
  EXPECT_EQ(Entries(dir_), std::vector<std::string>{name});
}

TEST_F(OutputTargetTest, AnOutputNotCommittedLeavesTheTargetAndNoTemporaryFile) {
  const std::string path = Write("out.txt", "old\n");
  {
    OutputFile out;
    ASSERT_TRUE(out.Open(path).ok());
    out.stream() << "half";
  }
  EXPECT_EQ(ReadFile(path), "old\n");
  EXPECT_EQ(Entries(dir_), std::vector<std::string>{"out.txt"});
}

TEST_F(OutputTargetTest, AFifoIsWrittenIntoAndStaysAFifo) {
  const std::string fifo = (dir_ / "pipe").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string received;
  std::thread reader([&] { received = ReadFile(fifo); });
  OutputFile out;
  const Status opened = out.Open(fifo);  // waits for the reader, as cp does
  ASSERT_TRUE(opened.ok()) << opened.message();
  EXPECT_TRUE(out.writes_through());
  out.stream() << "through\n";
  const Status committed = out.Commit();
  reader.join();
  EXPECT_TRUE(committed.ok()) << committed.message();
  EXPECT_EQ(received, "through\n");
  struct stat info {};
  ASSERT_EQ(lstat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
  EXPECT_EQ(Entries(dir_), std::vector<std::string>{"pipe"});
}

TEST_F(OutputTargetTest, TheFullDeviceIsAnOutputErrorAtCommit) {
  OutputFile out;
  ASSERT_TRUE(out.Open("/dev/full").ok());
  out.stream() << "lost\n";
  const Status committed = out.Commit();
  EXPECT_EQ(committed.code(), ExitCode::kOutputError);
  EXPECT_EQ(committed.message(), "cannot write '/dev/full': No space left on device");
}

TEST_F(OutputTargetTest, ASocketIsRefused) {
  const std::string path = (dir_ / "sock").string();
  const int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  ASSERT_LT(path.size(), sizeof address.sun_path);
  std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  OutputFile out;
  const Status opened = out.Open(path);
  close(fd);
  EXPECT_EQ(opened.code(), ExitCode::kOutputError);
  EXPECT_EQ(opened.message(), "cannot write '" + path +
                                  "': it is a socket; dlcheck writes into regular files, "
                                  "character devices and FIFOs only");
}

TEST_F(OutputTargetTest, ABlockDeviceIsRefused) {
  std::string block;
  for (const auto& e : std::filesystem::directory_iterator("/dev")) {
    if (e.is_block_file()) {
      block = e.path().string();
      break;
    }
  }
  if (block.empty()) GTEST_SKIP() << "no block device in /dev here";
  OutputFile out;
  const Status opened = out.Open(block);
  EXPECT_EQ(opened.code(), ExitCode::kOutputError);
  EXPECT_EQ(opened.message(), "cannot write '" + block +
                                  "': it is a block device; dlcheck writes into regular files, "
                                  "character devices and FIFOs only");
}

}  // namespace
}  // namespace dlcheck::os
