// SPDX-License-Identifier: Apache-2.0
// The command table (src/cli/command_table.cpp) in-process: what main, help and the tests read.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "cli/commands.h"
#include "report/contract.h"
#include "support/test_files.h"

namespace dlcheck::cli {
namespace {

// A command line parsed as main parses it (the command's Setup, then OneValuePerOccurrence)
// without running the command: the app's parse-complete callback runs after every option is read
// and before the command's callback (main's refuses a binary format on a terminal there), and
// throws ParsedOnly.
struct ParsedOnly {};
struct ParseOnlyApp {
  CLI::App app;
  CLI::App* sub;
  int exit_code = 0;
  explicit ParseOnlyApp(const Command& command)
      : sub(app.add_subcommand(std::string(command.name))) {
    command.setup(*sub, exit_code);
    OneValuePerOccurrence(*sub);
    app.parse_complete_callback([] { throw ParsedOnly{}; });
  }
};

// The program's words after `--` of `command OPTION [VALUE] -- sh -c 'echo hi'`, parsed as main
// parses (the command's Setup, then OneValuePerOccurrence) but without running the command.
std::vector<std::string> ProgramAfter(const Command& command, const CLI::Option& option,
                                      bool attached) {
  ParseOnlyApp parser(command);
  CLI::App& app = parser.app;
  CLI::App* sub = parser.sub;
  const std::string name = option.get_name();  // the long name where there is one
  const std::string value =
      name == "--output" ? ::testing::TempDir() + "dlcheck_command_table_output" : "1";
  std::vector<std::string> args = {std::string(command.name)};
  if (option.get_expected_max() == 0) {  // a flag
    args.push_back(name);
  } else if (attached) {
    args.push_back(name + "=" + value);
  } else {
    args.insert(args.end(), {name, value});
  }
  args.insert(args.end(), {"--", "sh", "-c", "echo hi"});
  std::reverse(args.begin(), args.end());
  try {
    app.parse(args);
    ADD_FAILURE() << command.name << " ran";
  } catch (const ParsedOnly&) {
  } catch (const std::exception&) {
    // A value the option refuses ("1" for --isa) is not what this looks at.
  }
  DiscardReportOutput();
  return sub->get_option("command")->results();
}

// `--` ends dlcheck's options for every command that takes a program, whatever option comes
// last before it (issue 35: `dispatch --isa avx2 -- sh -c 'echo hi'` read -c as dlcheck's).
TEST(CommandTableTest, DoubleDashEndsTheOptionsOfEveryCommandThatTakesAProgram) {
  const std::vector<std::string> program = {"sh", "-c", "echo hi"};
  for (const std::string_view name : {"run", "dispatch", "profile"}) {
    const Command* command = FindCommand(name);
    ASSERT_NE(command, nullptr) << name;
    CLI::App app;
    int exit_code = 0;
    command->setup(*app.add_subcommand(std::string(name)), exit_code);
    std::size_t tried = 0;
    for (const CLI::Option* option : app.get_subcommand(std::string(name))->get_options()) {
      const std::string option_name = option->get_name();
      if (option->get_positional() || option_name.rfind("--help", 0) == 0) continue;
      ++tried;
      EXPECT_EQ(ProgramAfter(*command, *option, false), program) << name << " " << option_name;
      if (option->get_expected_max() > 0) {
        EXPECT_EQ(ProgramAfter(*command, *option, true), program)
            << name << " " << option_name << "=VALUE";
      }
    }
    EXPECT_GT(tried, 3u) << name;
  }
}

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

// The overview page's list under --columns (".It Cm COMMAND Ta TABLE") names each report
// command's main table as its document declares it (the one home of that fact), and every
// command that declares one.
TEST(CommandTable, TheManPageNamesEachDeclaredMainTable) {
  const std::string man = testing::ReadFile(testing::DataPath("../../man/dlcheck.1"));
  ASSERT_FALSE(man.empty());
  static const std::regex row(R"(^\.It Cm ([a-z]+) Ta ([a-z_]+)$)");
  std::map<std::string, std::string> listed;
  std::istringstream in(man);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, row)) listed[m[1]] = m[2];
  }
  ASSERT_FALSE(listed.empty());
  for (const auto& [name, table] : listed) {
    const Command* command = FindCommand(name);
    ASSERT_NE(command, nullptr) << name;
    ASSERT_NE(command->document, nullptr) << name;
    const std::string& declared = command->document().main_table;
    if (!declared.empty()) {
      EXPECT_EQ(table, declared) << name;
    }
  }
  for (const Command& command : Commands()) {
    if (command.document == nullptr || command.document().main_table.empty()) continue;
    EXPECT_EQ(listed.count(std::string(command.name)), 1u) << command.name;
    // The declared main table is a table of the document.
    const report::contract::Member* member =
        report::contract::FindMember(command.document().members, command.document().main_table);
    EXPECT_NE(member, nullptr) << command.name;
  }
}

// Whether `command` takes `value` for `option` on its command line, parsed as main parses but
// without running the command: a value the option's conversion or validator refuses is false;
// any later complaint (a missing file argument) is not the option's.
bool Takes(const Command& command, const std::string& option, const std::string& value) {
  ParseOnlyApp parser(command);
  CLI::App& app = parser.app;
  std::vector<std::string> args = {std::string(command.name), option + "=" + value};
  std::reverse(args.begin(), args.end());
  bool taken = true;
  try {
    app.parse(args);
  } catch (const ParsedOnly&) {
  } catch (const CLI::ValidationError&) {
    taken = false;
  } catch (const CLI::ConversionError&) {
    taken = false;
  } catch (const std::exception&) {
  }
  DiscardReportOutput();
  return taken;
}

// Every floating option of every command (one that takes 1.5 and refuses a word) refuses what
// is not a finite number: issue 51, `whatif --cover nan` ran. One validator (model_options.h)
// for all of them.
TEST(CommandTableTest, EveryFloatingOptionRefusesWhatIsNotAFiniteNumber) {
  int floating = 0;
  for (const Command& command : Commands()) {
    CLI::App app;
    CLI::App* sub = app.add_subcommand(std::string(command.name));
    int exit_code = 0;
    command.setup(*sub, exit_code);
    for (const CLI::Option* option : sub->get_options()) {
      if (option->get_expected_max() == 0 || option->get_positional()) continue;
      const std::string name = option->get_name();
      if (name.rfind("--", 0) != 0 || name == "--output") continue;
      if (!Takes(command, name, "1.5") || Takes(command, name, "word")) continue;
      ++floating;
      for (const char* bad : {"nan", "-nan", "NaN", "inf", "-inf", "1e999", "0x1p9999"}) {
        EXPECT_FALSE(Takes(command, name, bad)) << command.name << " " << name << "=" << bad;
      }
    }
  }
  // whatif --cover and --time, diff --threshold and --min-share, every --timeout, --lr: at least.
  EXPECT_GE(floating, 8);
}

}  // namespace
}  // namespace dlcheck::cli
