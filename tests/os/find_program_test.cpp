// SPDX-License-Identifier: Apache-2.0
// A program found before it is started, as exec would find it, with exec's "cannot run" words.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "os/subprocess.h"
#include "support/scratch_dir.h"

namespace dlcheck::os {
namespace {

class FindProgramTest : public testing::ScratchDirTest {
 protected:
  std::string Script(const std::string& name, mode_t mode) {
    const std::string path = Write(name, "#!/bin/sh\nexit 0\n");
    chmod(path.c_str(), mode);
    return path;
  }
};

TEST_F(FindProgramTest, FindOnPathTakesTheFirstExecutableFile) {
  std::filesystem::create_directories(dir_ / "a");
  std::filesystem::create_directories(dir_ / "b");
  std::filesystem::create_directories(dir_ / "c/tool");  // a directory is no program
  Script("a/tool", 0644);                                // not executable
  const std::string b = Script("b/tool", 0755);
  const std::string list =
      (dir_ / "c").string() + ":" + (dir_ / "a").string() + ":" + (dir_ / "b").string();
  EXPECT_EQ(FindOnPath("tool", list), b);
  EXPECT_EQ(FindOnPath("missing", list), std::nullopt);
  EXPECT_EQ(FindOnPath("tool", (dir_ / "a").string()), std::nullopt);
}

TEST_F(FindProgramTest, ANameIsLookedUpAndAPathTakenAsItIs) {
  const std::string tool = Script("tool", 0755);
  EXPECT_EQ(*FindProgram("tool", dir_.string()), tool);
  EXPECT_EQ(*FindProgram(tool, "/nonexistent"), tool);
}

TEST_F(FindProgramTest, WhatCannotRunIsSaidAsRunSaysIt) {
  const StatusOr<std::string> missing = FindProgram("dlcheck-no-such-command", dir_.string());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), ExitCode::kCommandNotFound);
  EXPECT_EQ(missing.status().message(), "cannot run 'dlcheck-no-such-command': command not found");
  EXPECT_EQ(missing.status().message(), CannotRun("dlcheck-no-such-command", ENOENT).message());

  const std::string absent = (dir_ / "absent").string();
  const StatusOr<std::string> no_file = FindProgram(absent, dir_.string());
  EXPECT_EQ(no_file.status().code(), ExitCode::kCommandNotFound);
  EXPECT_EQ(no_file.status().message(), "cannot run '" + absent + "': No such file or directory");

  // No x bit at all: not executable, for root too.
  const std::string plain = Script("plain", 0644);
  const StatusOr<std::string> denied = FindProgram(plain, "");
  EXPECT_EQ(denied.status().code(), ExitCode::kCannotExecute);
  EXPECT_EQ(denied.status().message(), "cannot run '" + plain + "': Permission denied");
  const StatusOr<std::string> directory = FindProgram(dir_.string(), "");
  EXPECT_EQ(directory.status().code(), ExitCode::kCannotExecute);
  EXPECT_EQ(directory.status().message(), "cannot run '" + dir_.string() + "': Permission denied");
}

}  // namespace
}  // namespace dlcheck::os
