// LazyLibrary: a library loaded where first needed. What it says when the library or one of its
// functions is missing is what dlcheck tells the user (a zstd log without libarchive, --format
// xlsx without libxlsxwriter), so both are checked on real libraries.
#include "common/lazy_library.h"

#include <gtest/gtest.h>

namespace dlcheck {
namespace {

using ZlibVersion = const char* (*)();

TEST(LazyLibraryTest, ALoadedLibraryGivesItsFunctions) {
  LazyLibrary zlib("libz.so.1");  // every Debian system has it (dlcheck links it too)
  ZlibVersion version = nullptr;
  zlib.Resolve("zlibVersion", version);
  ASSERT_NE(version, nullptr) << zlib.error();
  EXPECT_EQ(zlib.error(), "");
  EXPECT_EQ(std::string(version()).substr(0, 2), "1.");
}

TEST(LazyLibraryTest, AMissingFunctionIsNamed) {
  LazyLibrary zlib("libz.so.1");
  ZlibVersion missing = nullptr;
  zlib.Resolve("dlcheck_no_such_function", missing);
  EXPECT_EQ(missing, nullptr);
  EXPECT_EQ(zlib.error(), "it has no dlcheck_no_such_function");
}

TEST(LazyLibraryTest, AMissingLibraryIsNamedAndGivesNothing) {
  LazyLibrary none("libdlcheck-no-such-library.so.0");
  EXPECT_NE(none.error().find("libdlcheck-no-such-library.so.0"), std::string::npos)
      << none.error();
  ZlibVersion version = nullptr;
  none.Resolve("zlibVersion", version);
  EXPECT_EQ(version, nullptr);
}

}  // namespace
}  // namespace dlcheck
