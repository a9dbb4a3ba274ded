// SPDX-License-Identifier: Apache-2.0
#pragma once
// A fixture with a fresh directory per test (removed afterwards) and a way to write files in it.

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

namespace dlcheck::testing {

class ScratchDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // One level under TMPDIR whatever the test's name: a parameterized test is `Name/0`, whose
    // `/` made a directory inside another, and removing the inner one left the outer behind.
    const ::testing::TestInfo* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(test->test_suite_name()) + "_" + test->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = std::filesystem::temp_directory_path() /
           ("dlcheck_" + std::to_string(getpid()) + "_" + name);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { RemoveScratch(dir_); }

  /// Writes `bytes` to `name` in the directory; returns its path.
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  /// Removes `dir` and all it holds, directories a test made unwritable or unreadable
  /// included (each is given its owner's permissions back first); never throws.
  static void RemoveScratch(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(dir, ec))) return;
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
    for (auto it = fs::recursive_directory_iterator(
             dir, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory(ec) && !it->is_symlink(ec)) {
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
      }
    }
    fs::remove_all(dir, ec);
  }

  std::filesystem::path dir_;
};

}  // namespace dlcheck::testing
