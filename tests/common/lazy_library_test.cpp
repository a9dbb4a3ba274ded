// SPDX-License-Identifier: Apache-2.0
// LazyLibrary: a library loaded where first needed. What it says when the library or one of its
// functions is missing is what dlcheck tells the user (a zstd log without libarchive, --format
// xlsx without libxlsxwriter), so both are checked on real libraries.
#include "common/lazy_library.h"

#include <gtest/gtest.h>
#include <zlib.h>

namespace dlcheck {
namespace {

using ZlibVersion = const char* (*)();

TEST(LazyLibraryTest, ALoadedLibraryGivesItsFunctions) {
  LazyLibrary zlib("libz.so.1");  // every Debian system has it (dlcheck links it too)
  const auto version = zlib.Get<ZlibVersion>("zlibVersion");
  ASSERT_NE(version, nullptr) << zlib.error();
  EXPECT_EQ(zlib.error(), "");
  EXPECT_EQ(std::string(version()).substr(0, 2), "1.");
}

TEST(LazyLibraryTest, AMissingFunctionIsNamed) {
  LazyLibrary zlib("libz.so.1");
  EXPECT_EQ(zlib.Get<ZlibVersion>("dlcheck_no_such_function"), nullptr);
  EXPECT_EQ(zlib.error(), "it has no dlcheck_no_such_function");
}

// The struct a lazy library's user writes (DLCHECK_LAZY_FUNCTION): members looked up as it is made.
struct Zlib {
  LazyLibrary library{"libz.so.1"};
  DLCHECK_LAZY_FUNCTION(zlibVersion);
};

TEST(LazyLibraryTest, AStructOfFunctionsIsLookedUpAsItIsMade) {
  const Zlib zlib;
  ASSERT_NE(zlib.zlibVersion, nullptr) << zlib.library.error();
  EXPECT_EQ(std::string(zlib.zlibVersion()), std::string(zlibVersion()));
}

TEST(LazyLibraryTest, AMissingLibraryIsNamedAndGivesNothing) {
  LazyLibrary none("libdlcheck-no-such-library.so.0");
  EXPECT_NE(none.error().find("libdlcheck-no-such-library.so.0"), std::string::npos)
      << none.error();
  EXPECT_EQ(none.Get<ZlibVersion>("zlibVersion"), nullptr);
}

}  // namespace
}  // namespace dlcheck
