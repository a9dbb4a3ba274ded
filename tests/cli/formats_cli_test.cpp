// SPDX-License-Identifier: Apache-2.0
// The formats that are views of the primitives table: `--format benchdnn` (one reproducer per
// distinct primitive) and the refusals of formats that cannot be streamed with --events.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "common/onednn_isa.h"
#include "common/text.h"
#include "support/lines.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

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

// The line speaks the benchdnn of the log's version (a 2.6.3 header: --cfg), or the one asked
// for; several logs each speak their own. Expected lines from driver_conv.md of each version.
TEST(FormatsCliTest, BenchdnnLinesSpeakTheLogsVersionOrTheOneAskedFor) {
  const std::string int8 = DataPath("verbose/torch_int8_2.6.3.log");
  const std::string v3 = DataPath("verbose/formats_3.13.1.txt");
  const RunResult own = RunDlcheck({"parse", int8, "--format", "benchdnn"});
  ASSERT_EQ(own.exit_code, 0) << own.err;
  EXPECT_NE(own.out.find("ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI OMP_NUM_THREADS=1 benchdnn --conv "
                         "--mode=P "
                         "--allow-enum-tags-only=0 --dir=FWD_B --cfg=u8s8u8 --stag=acdb "
                         "--wtag=any --dtag=acdb"),
            std::string::npos)
      << own.out;
  const RunResult three =
      RunDlcheck({"parse", int8, "--format", "benchdnn", "--benchdnn-version", "3"});
  ASSERT_EQ(three.exit_code, 0) << three.err;
  EXPECT_NE(three.out.find("ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI OMP_NUM_THREADS=1 benchdnn --conv "
                           "--mode=P "
                           "--dir=FWD_I --bia-dt=f32 --dt=u8:s8:u8 --stag=acdb --wtag=any"),
            std::string::npos)
      << three.out;
  EXPECT_EQ(three.out.find("--cfg="), std::string::npos) << three.out;
  // Two logs of two eras: a 2.x conv line and a 3.x one (formats_3.13.1.txt has no header: its
  // line format and its implementations' highest ISA, avx2, decide).
  const RunResult both = RunDlcheck({"parse", int8, v3, "--format", "benchdnn"});
  ASSERT_EQ(both.exit_code, 0) << both.err;
  EXPECT_NE(both.out.find("--cfg=u8s8u8"), std::string::npos) << both.out;
  EXPECT_NE(both.out.find("ONEDNN_MAX_CPU_ISA=AVX2 benchdnn --reorder --mode=P --sdt=f32 "
                          "--ddt=f32 --stag=abcd --dtag=aBcd8b 2x16x7x7"),
            std::string::npos)
      << both.out;
  EXPECT_NE(both.out.find("benchdnn --lnorm --mode=P --dir=FWD_I --dt=f32:f32"), std::string::npos)
      << both.out;
  const RunResult bad = RunDlcheck({"parse", int8, "--benchdnn-version", "4"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--benchdnn-version"), std::string::npos) << bad.err;
}

// --benchdnn-batch: one driver's benchdnn batch file, whose first line says how to run it; its
// lines are the driver's options of the --format benchdnn lines (driver_conv.md: --reset).
TEST(FormatsCliTest, BenchdnnBatchIsOneDriversBatchFile) {
  const std::string log = DataPath("verbose/torch_int8_2.6.3.log");
  // Run on a host with every ISA (DLCHECK_HOST_ISA): no line is above it.
  const RunResult batch = RunDlcheck({"parse", log, "--benchdnn-batch", "conv"}, "",
                                     {"DLCHECK_HOST_ISA=avx10_2_amx_2"});
  ASSERT_EQ(batch.exit_code, 0) << batch.err;
  const std::vector<std::string> lines = Lines(batch.out);
  ASSERT_EQ(lines.size(), 4u) << batch.out;  // the command, 2 lines, a comment before one
  EXPECT_EQ(lines[0],
            "# ONEDNN_MAX_CPU_ISA=AVX512_CORE_VNNI OMP_NUM_THREADS=1 benchdnn --conv --mode=P "
            "--batch=THIS_FILE");
  EXPECT_EQ(lines[1],
            "--reset --allow-enum-tags-only=0 --dir=FWD_B --cfg=u8s8u8 --stag=acdb "
            "--wtag=any --dtag=acdb --attr-oscale=per_dim_1:1 "
            "--attr-zero-points=src:common:1*+dst:common:119 --attr-scratchpad=user "
            "mb2_ic3oc16_ih16oh14kh3sh1dh0ph0_iw16ow14kw3sw1dw0pw0");
  EXPECT_EQ(lines[2], "# the log ran the next line at ONEDNN_MAX_CPU_ISA=AVX512_CORE");
  EXPECT_EQ(lines[3].rfind("--reset --allow-enum-tags-only=0 --dir=FWD_B --cfg=f32 ", 0), 0u);
  for (const char* other : {"--events", "--format=csv"}) {
    const RunResult refused = RunDlcheck({"parse", log, "--benchdnn-batch", "conv", other});
    EXPECT_EQ(refused.exit_code, 2) << other;
    EXPECT_NE(refused.err.find("--benchdnn-batch"), std::string::npos) << refused.err;
  }
  EXPECT_EQ(RunDlcheck({"parse", log, "--benchdnn-batch", "convolution"}).exit_code, 2);
}

// Every line pins the log's thread count (its header's nthr); a line whose ISA is above the
// host's says so in a comment, in --format benchdnn and in a batch file. The PyTorch CNN log
// (nthr:1, avx512_core kernels, recorded on a Zen 4) read for an AVX2 host and for this one.
TEST(FormatsCliTest, BenchdnnLinesPinTheThreadsAndTellAHostBelowTheirIsa) {
  const std::string log = DataPath("verbose/torch_cnn_2.6.3.log");
  const RunResult avx2 =
      RunDlcheck({"parse", log, "--format", "benchdnn"}, "", {"DLCHECK_HOST_ISA=avx2"});
  ASSERT_EQ(avx2.exit_code, 0) << avx2.err;
  std::size_t noted = 0;
  for (const std::string& line : Lines(avx2.out)) {
    if (line.empty() || line.front() == '#') continue;
    EXPECT_NE(line.find(" OMP_NUM_THREADS=1 benchdnn --"), std::string::npos) << line;
    const bool above = line.rfind("ONEDNN_MAX_CPU_ISA=AVX512", 0) == 0;
    const bool note = line.find("  # this host's highest ISA is avx2, below the log's avx512") !=
                      std::string::npos;
    EXPECT_EQ(note, above) << line;
    noted += note ? 1 : 0;
  }
  EXPECT_GT(noted, 0u) << avx2.out;
  const RunResult batch =
      RunDlcheck({"parse", log, "--benchdnn-batch", "conv"}, "", {"DLCHECK_HOST_ISA=avx2"});
  ASSERT_EQ(batch.exit_code, 0) << batch.err;
  const std::vector<std::string> lines = Lines(batch.out);
  ASSERT_GE(lines.size(), 3u) << batch.out;
  EXPECT_NE(lines[0].find(" OMP_NUM_THREADS=1 benchdnn --conv --mode=P --batch=THIS_FILE"),
            std::string::npos)
      << lines[0];
  EXPECT_EQ(lines[1].rfind("# the next line: this host's highest ISA is avx2", 0), 0u) << lines[1];
  // This host, as `platform` ranks it: a note exactly where the line's ISA is above it.
  const RunResult platform = RunDlcheck({"platform", "--format", "json"}, "", {"DLCHECK_HOST_ISA"});
  const std::string host =
      nlohmann::json::parse(platform.out)["levels"]["onednn3_max_isa"].get<std::string>();
  const RunResult here =
      RunDlcheck({"parse", log, "--format", "benchdnn"}, "", {"DLCHECK_HOST_ISA"});
  for (const std::string& line : Lines(here.out)) {
    constexpr std::string_view kCap = "ONEDNN_MAX_CPU_ISA=";
    if (line.rfind(kCap, 0) != 0) continue;
    const std::string isa = line.substr(kCap.size(), line.find(' ') - kCap.size());
    const bool above = onednn::Compare(Lower(isa), host) == onednn::IsaOrder::kAbove;
    EXPECT_EQ(line.find("  # this host's highest ISA is " + host) != std::string::npos, above)
        << line << " on " << host;
  }
}

// A log is anyone's text: fields carrying shell syntax, quotes or other options must come out of
// --format benchdnn and --benchdnn-batch as plain words or comments. The lines are written into
// scripts, checked with `sh -n` and run with a benchdnn on PATH that only records its arguments:
// the canary a field asks for is never made.
class HostileLogTest : public ScratchDirTest {};

TEST_F(HostileLogTest, FieldsOfALogNeverRunInItsReproducers) {
  const std::string canary = (dir_ / "canary").string();
  const std::vector<std::string> evils = {
      "$(touch " + canary + ")",   "`touch " + canary + "`",
      ";touch " + canary,          "|touch " + canary,
      "'$(touch " + canary + ")'", "\"$(touch " + canary + ")\"",
      " --batch=THIS_FILE",        " --engine=gpu",
      "\x0btouch " + canary};
  std::string log;
  for (const std::string& evil : evils) {
    const std::string head = "onednn_verbose,v1,primitive,exec,cpu,";
    log += head +
           "eltwise,jit:avx2,forward_training,data:f32::blocked:abcd::f0,,"
           "alg:eltwise_relu alpha:0 beta:0,2x16x7x7" +
           evil + ",0.1\n";
    log += head + "eltwise,jit:avx2,forward_training,data:f32" + evil +
           "::blocked:abcd::f0,,alg:eltwise_relu,2x16x7x8,0.1\n";
    log += head + "eltwise,jit:avx2,forward_training,data:f32::blocked:ab" + evil +
           "::f0,,alg:eltwise_relu,2x16x7x9,0.1\n";
    log += head +
           "eltwise,jit:avx2,forward_training,data:f32::blocked:abcd::f0,"
           "attr-scratchpad:user" +
           evil + ",alg:eltwise_relu" + evil + ",2x16x7x10,0.1\n";
    log += head +
           "convolution,jit:avx2,forward_training,src:f32::blocked:abcd::f0 "
           "wei:f32::blocked:abcd::f0 dst:f32::blocked:abcd::f0,attr-post-ops:eltwise_relu" +
           evil +
           ",alg:convolution_direct,mb2_ic16oc32_ih13oh13kh3sh1dh0ph1_iw13ow13kw3sw1dw0pw1,"
           "0.1\n";
  }
  const std::string path = Write("hostile.log", log);
  const std::string bin = (dir_ / "bin").string();
  std::filesystem::create_directories(bin);
  Write("bin/benchdnn",
        "#!/bin/sh\nprintf '%s\\n' \"$@\" >> \"" + (dir_ / "args").string() + "\"\n");
  std::filesystem::permissions(bin + "/benchdnn", std::filesystem::perms::owner_all);

  std::vector<std::pair<std::string, std::string>> scripts;  // (name, text)
  const RunResult lines = RunDlcheck({"parse", path, "--format", "benchdnn"});
  ASSERT_EQ(lines.exit_code, 0) << lines.err;
  scripts.emplace_back("lines.sh", lines.out);
  for (const char* driver : {"eltwise", "conv"}) {
    const RunResult batch = RunDlcheck({"parse", path, "--benchdnn-batch", driver});
    ASSERT_EQ(batch.exit_code, 0) << batch.err;
    const std::vector<std::string> batch_lines = Lines(batch.out);
    ASSERT_FALSE(batch_lines.empty());
    for (std::size_t i = 1; i < batch_lines.size(); ++i) {
      // benchdnn splits a batch file at blanks and skips `#` lines: no option of a line may be
      // --batch or --engine.
      if (batch_lines[i].front() == '#') continue;
      EXPECT_EQ(batch_lines[i].rfind("--reset ", 0), 0u) << batch_lines[i];
      EXPECT_EQ(batch_lines[i].find("--batch"), std::string::npos) << batch_lines[i];
      EXPECT_EQ(batch_lines[i].find("--engine"), std::string::npos) << batch_lines[i];
    }
    scripts.emplace_back(std::string(driver) + ".batch", batch.out);
  }
  std::size_t commands = 0;
  for (const auto& [name, text] : scripts) {
    SCOPED_TRACE(name + ":\n" + text);
    for (const std::string& line : Lines(text)) {
      EXPECT_EQ(line.find_first_of("\r\x0b"), std::string::npos) << line;
      commands += line.rfind("ONEDNN_MAX_CPU_ISA=AVX2 benchdnn ", 0) == 0 ? 1 : 0;
    }
    const std::string script = Write(name, text);
    EXPECT_EQ(std::system(("sh -n '" + script + "'").c_str()), 0);
    const std::string run = "cd '" + dir_.string() + "' && PATH='" + bin + "':\"$PATH\" sh '" +
                            script + "' >/dev/null 2>&1";
    std::system(run.c_str());
    EXPECT_FALSE(std::filesystem::exists(canary));
  }
  EXPECT_GE(commands, 5u);  // the lines whose hostile field was left out still run
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

// --events as a page: the events table of the CSV, row for row, after the findings the JSON
// stream ends with (a page's findings come first).
TEST(FormatsCliTest, EventsOnAPageAreTheStreamedRowsAfterTheFindings) {
  const std::string log = DataPath("verbose/why_lines.txt");
  const RunResult page = RunDlcheck({"parse", "--events", "--format", "html", log});
  ASSERT_EQ(page.exit_code, 0) << page.err;
  const RunResult json = RunDlcheck({"parse", "--events", "--format", "json", log});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const std::size_t events = doc["events"].size();
  ASSERT_GT(events, 0u);
  const std::size_t table = page.out.find("data-name=\"events\"");
  ASSERT_NE(table, std::string::npos) << page.out.substr(0, 2000);
  const std::size_t table_end = page.out.find("</table>", table);
  std::size_t rows = 0;
  for (std::size_t at = page.out.find("<tr>", page.out.find("<tbody>", table)); at < table_end;
       at = page.out.find("<tr>", at + 1)) {
    ++rows;
  }
  EXPECT_EQ(rows, events);
  // Every finding of the document, on the page before the table.
  ASSERT_FALSE(doc["findings"].empty());
  for (const auto& finding : doc["findings"]) {
    const std::size_t at = page.out.find("<code>" + finding["code"].get<std::string>() + "</code>");
    EXPECT_LT(at, table) << finding["code"];
  }
}

}  // namespace
}  // namespace dlcheck::testing
