// SPDX-License-Identifier: Apache-2.0
// Slurm's compressed hostlist form, as `scontrol show hostlist` prints it.
#include "fleet/hostlist.h"

#include <gtest/gtest.h>

namespace dlcheck::fleet {
namespace {

TEST(HostlistTest, RunsOfNumbersBecomeRanges) {
  EXPECT_EQ(CompressHostlist({"node7", "node2", "node1", "node3"}), "node[1-3,7]");
}

TEST(HostlistTest, OneNumberedNameStaysPlain) {
  EXPECT_EQ(CompressHostlist({"node17"}), "node17");
}

TEST(HostlistTest, NamesWithoutNumbersAndOtherPrefixesStandApart) {
  EXPECT_EQ(CompressHostlist({"node2", "login", "gpu1", "node1", "gpu2"}),
            "gpu[1-2],login,node[1-2]");
}

TEST(HostlistTest, ZeroPaddingIsKeptAndSameWidthNumbersJoinIt) {
  EXPECT_EQ(CompressHostlist({"n01", "n02", "n10"}), "n[01-02,10]");
  EXPECT_EQ(CompressHostlist({"n9", "n10", "n11"}), "n[9-11]");
}

TEST(HostlistTest, DuplicatesCountOnce) {
  EXPECT_EQ(CompressHostlist({"node1", "node1", "node2"}), "node[1-2]");
  EXPECT_EQ(CompressHostlist({}), "");
}

}  // namespace
}  // namespace dlcheck::fleet
