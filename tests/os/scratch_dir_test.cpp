// SPDX-License-Identifier: Apache-2.0
// The tests' scratch directory (tests/support/scratch_dir.h): one level under TMPDIR whatever
// the test's name (a parameterized test's `Name/0` left an empty `dlcheck_<pid>_Name` behind),
// and removed whole, directories made unwritable included.
#include "support/scratch_dir.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

namespace dlcheck::testing {
namespace {

class ScratchDirCleanup : public ScratchDirTest, public ::testing::WithParamInterface<int> {};

TEST_P(ScratchDirCleanup, ItsDirectoryIsOneLevelUnderTmpAndGoesWhole) {
  namespace fs = std::filesystem;
  EXPECT_EQ(dir_.parent_path(), fs::temp_directory_path());
  EXPECT_NE(dir_.filename().string().find("ScratchDirCleanup"), std::string::npos);
  fs::create_directories(dir_ / "locked" / "inner");
  Write("locked/inner/file", "x");
  ASSERT_EQ(chmod((dir_ / "locked" / "inner").c_str(), 0500), 0);
  ASSERT_EQ(chmod((dir_ / "locked").c_str(), 0500), 0);
  const fs::path dir = dir_;
  TearDown();
  EXPECT_FALSE(fs::exists(dir));
  SetUp();  // the fixture's own TearDown has its directory again
}

INSTANTIATE_TEST_SUITE_P(Params, ScratchDirCleanup, ::testing::Values(1, 2));

}  // namespace
}  // namespace dlcheck::testing
