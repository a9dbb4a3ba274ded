#include <gtest/gtest.h>

#include "common/exit_code.h"
#include "support/run_dlcheck.h"

namespace dlcheck {
namespace {

using testing::RunDlcheck;

TEST(CliTest, VersionNamesEveryLibrary) {
  const auto r = RunDlcheck({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.rfind("dlcheck ", 0), 0u) << r.out;
  EXPECT_NE(r.out.find("\noneDNN 2."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nlibcpuid 0."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nhwloc 2."), std::string::npos) << r.out;
}

TEST(CliTest, HelpListsSubcommands) {
  const auto r = RunDlcheck({"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("platform"), std::string::npos) << r.out;
}

TEST(CliTest, NoSubcommandIsAUsageError) {
  const auto r = RunDlcheck({});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err.rfind("dlcheck: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("dlcheck --help"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

TEST(CliTest, UnknownOptionIsAUsageError) {
  const auto r = RunDlcheck({"platform", "--no-such-option"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_NE(r.err.find("--no-such-option"), std::string::npos) << r.err;
}

TEST(CliTest, UnknownFormatIsAUsageError) {
  const auto r = RunDlcheck({"platform", "--format", "xml"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_NE(r.err.find("xml"), std::string::npos) << r.err;
}

TEST(CliTest, FormatNamesIgnoreCase) {
  const auto r = RunDlcheck({"platform", "--format", "JSON"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("{", 0), 0u) << r.out.substr(0, 100);
}

TEST(CliTest, UnknownFormatSaysWhatIsAllowed) {
  const auto r = RunDlcheck({"platform", "--format", "xml"});
  EXPECT_EQ(r.err,
            "dlcheck: --format: xml not in {table,csv,json} (run 'dlcheck --help' for usage)\n");
}

TEST(CliTest, TraceFormatIsOnlyForCommandsWithATimeline) {
  const auto r = RunDlcheck({"platform", "--format", "trace"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_NE(r.err.find("trace"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace dlcheck
