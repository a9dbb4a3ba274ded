// The formats that are views of the primitives table: `--format benchdnn` (one reproducer per
// distinct primitive) and the refusals of formats that cannot be streamed with --events.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "support/lines.h"
#include "support/run_dlcheck.h"

namespace dlcheck::testing {
namespace {

// The oneDNN 3.13.1 lines: one row per kind, so one line per row, every line distinct.
TEST(FormatsCliTest, BenchdnnPrintsOneLinePerDistinctRowOfTheCsvColumn) {
  const std::string log = DataPath("verbose/formats_3.13.1.txt");
  const RunResult lines = RunDlcheck({"parse", log, "--format", "benchdnn"});
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  const RunResult csv = RunDlcheck({"parse", log, "--format", "csv", "--columns", "benchdnn"});
  ASSERT_EQ(csv.exit_code, 0) << csv.err;
  std::vector<std::string> column = Lines(csv.out);
  ASSERT_FALSE(column.empty());
  EXPECT_EQ(column.front(), "benchdnn\r");
  std::set<std::string> distinct;
  for (std::size_t i = 1; i < column.size(); ++i) {
    std::string cell = column[i].substr(0, column[i].size() - 1);  // CRLF
    if (cell.size() > 1 && cell.front() == '"') cell = cell.substr(1, cell.size() - 2);
    distinct.insert(cell);
  }
  const std::vector<std::string> printed = Lines(lines.out);
  EXPECT_EQ(std::set<std::string>(printed.begin(), printed.end()), distinct);
  EXPECT_EQ(printed.size(), distinct.size());  // no line twice
  std::size_t commands = 0;
  for (const std::string& line : printed) {
    const bool command = line.rfind("benchdnn --", 0) == 0 ||
                         line.rfind("ONEDNN_MAX_CPU_ISA=AVX2 benchdnn --", 0) == 0;
    const bool why = line.rfind("# no benchdnn reproducer for ", 0) == 0;
    EXPECT_TRUE(command || why) << line;
    commands += command ? 1 : 0;
  }
  EXPECT_GE(commands, 10u);  // conv, deconv, ip, matmul, reorder, eltwise, softmax, pool, ...
}

TEST(FormatsCliTest, EventsCannotBeAWorkbookOrADistinctList) {
  const std::string log = DataPath("verbose/formats_3.13.1.txt");
  for (const char* format : {"xlsx", "benchdnn"}) {
    const RunResult run = RunDlcheck({"parse", "--events", "--format", format, log});
    EXPECT_EQ(run.exit_code, 2) << format;
    EXPECT_NE(run.err.find("--events"), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty()) << format;
  }
}

}  // namespace
}  // namespace dlcheck::testing
