// The command table (src/cli/command_table.cpp) in-process: what main, help and the tests read.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "cli/commands.h"
#include "report/contract.h"

namespace dlcheck::cli {
namespace {

TEST(CommandTableTest, NamesAreUniqueAndEachIsFound) {
  std::set<std::string_view> names;
  for (const Command& command : Commands()) {
    EXPECT_TRUE(names.insert(command.name).second) << command.name;
    EXPECT_EQ(FindCommand(command.name), &command);
    EXPECT_FALSE(command.help.empty()) << command.name;
    EXPECT_NE(command.setup, nullptr) << command.name;
  }
  EXPECT_EQ(FindCommand("no-such-command"), nullptr);
}

// A report command has a JSON document (its schema), and only a report command has one; the
// document is of that command.
TEST(CommandTableTest, EveryReportCommandHasAJsonContract) {
  std::set<std::string> documented;
  for (const Command& command : Commands()) {
    if (command.document == nullptr) continue;
    documented.insert(std::string(command.name));
    EXPECT_EQ(command.document().command, command.name);
    EXPECT_FALSE(command.document().members.empty()) << command.name;
  }
  const std::vector<std::string> reports = CommandNames(Command::Kind::kReport);
  EXPECT_EQ(std::set<std::string>(reports.begin(), reports.end()), documented);
}

// A document names each member once at each level (a member declared twice would be written
// once and described twice).
void ExpectUniqueNames(const std::vector<report::contract::Member>& members,
                       const std::string& where) {
  std::set<std::string> names;
  for (const report::contract::Member& m : members) {
    EXPECT_TRUE(names.insert(m.name).second) << where << m.name << " declared twice";
    ExpectUniqueNames(m.members, where + m.name + ".");
  }
}

TEST(CommandTableTest, EachDocumentDeclaresAMemberOnce) {
  for (const Command& command : Commands()) {
    if (command.document != nullptr) {
      ExpectUniqueNames(command.document().members, std::string(command.name) + ": ");
    }
  }
}

// What a user can name: the report commands and help, never a hidden one (worker, schema).
TEST(CommandTableTest, HiddenCommandsAreNotNamedToUsers) {
  const std::vector<std::string> visible = CommandNames(Command::Kind::kUtility);
  EXPECT_EQ(visible.back(), "help");
  EXPECT_EQ(visible.size(), CommandNames(Command::Kind::kReport).size() + 1);
  for (const Command& command : Commands()) {
    const bool listed = std::find(visible.begin(), visible.end(), command.name) != visible.end();
    EXPECT_EQ(listed, command.kind != Command::Kind::kHidden) << command.name;
  }
  EXPECT_EQ(CommandNames(Command::Kind::kHidden).size(), Commands().size());
}

// check answers in the monitoring-plugin convention: every failure is 3, UNKNOWN; no other
// command changes what a failure ends with.
TEST(CommandTableTest, OnlyCheckHasAFailureExitOfItsOwn) {
  for (const Command& command : Commands()) {
    if (command.name == "check") {
      EXPECT_EQ(command.failure_exit, 3);
    } else {
      EXPECT_FALSE(command.failure_exit.has_value()) << command.name;
    }
  }
}

}  // namespace
}  // namespace dlcheck::cli
