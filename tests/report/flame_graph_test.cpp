// SPDX-License-Identifier: Apache-2.0
// --format folded and --format svg: the printers of a report's `stacks` table, held to the text
// and the SVG dlcheck wrote before they were report formats (tests/data/profile/INDEX.md).
#include "report/flame_graph.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "report/printer.h"
#include "support/test_files.h"

namespace dlcheck::report {
namespace {

using dlcheck::testing::DataPath;
using dlcheck::testing::ReadFile;

TEST(FlameGraphTest, FoldedTextIsOneLinePerStack) {
  std::ostringstream out;
  WriteFolded({{"a;b", 3}, {"a;c", 2}}, out);
  EXPECT_EQ(out.str(), "a;b 3\na;c 2\n");
}

// The SVG parses as XML (python3's expat) and names every frame in a <title>.
TEST(FlameGraphTest, SvgIsWellFormedXmlWithEveryFrame) {
  const std::map<std::string, std::uint64_t> folded = {
      {"dlcheck;main;jit_brgemm_kernel_t_[j]", 30},
      {"dlcheck;main;<&\"odd'>", 10},
      {"dlcheck;[libgomp.so.1];do_sched_yield_[k]", 60}};
  const std::string path = ::testing::TempDir() + "/flame.svg";
  {
    std::ofstream out(path);
    WriteFlameGraphSvg(folded, {.title = "t & <test>"}, out);
  }
  const std::string check =
      "python3 -c \"import sys,xml.etree.ElementTree as E; r=E.parse(sys.argv[1]).getroot(); "
      "ns='{http://www.w3.org/2000/svg}'; "
      "t=[x.text for x in r.iter(ns+'title')]; "
      "need=['all (100 samples, 100.00%)','jit_brgemm_kernel_t_[j] (30 samples, 30.00%)',"
      "'<&\\\"odd\\'> (10 samples, 10.00%)','do_sched_yield_[k] (60 samples, 60.00%)']; "
      "sys.exit(0 if all(n in t for n in need) and len(t)==7 else 1)\" " +
      path;
  EXPECT_EQ(std::system(check.c_str()), 0) << "not valid XML, or frames missing: " << path;
}

// Issue 35, row 9: a frame found by stack scanning ("_[s]") is drawn hatched, and a box under
// 2 px (1 sample of 10,000 in 1,180 px) is left out by default.
TEST(FlameGraphTest, ScannedFramesHatchedAndBoxesUnderTwoPixelsLeftOut) {
  const std::map<std::string, std::uint64_t> folded = {
      {"dlcheck;main_[s];jit_brgemm_kernel_t_[j]", 9999}, {"dlcheck;tiny_frame", 1}};
  std::ostringstream out;
  WriteFlameGraphSvg(folded, {}, out);
  const std::string svg = out.str();
  EXPECT_NE(svg.find("<pattern id=\"scanned\""), std::string::npos);
  EXPECT_NE(svg.find("<title>main_[s] (9999 samples"), std::string::npos);
  EXPECT_NE(svg.find("fill=\"url(#scanned)\""), std::string::npos);
  EXPECT_EQ(svg.find("tiny_frame"), std::string::npos);
  // Without scanned frames, no pattern.
  std::ostringstream plain;
  WriteFlameGraphSvg({{"a;b", 3}}, {}, plain);
  EXPECT_EQ(plain.str().find("<pattern"), std::string::npos);
}

// A profile's report: a kernels table and the stacks of a recorded folded file, as
// profile::AddStacksTable makes them.
Report ProfileReport(const std::string& folded_name) {
  Report report;
  report.command = "profile";
  report.AddView("kernels", {"kernel", "samples"}).rows.push_back({"jit_t", 3});
  Table& stacks = report.AddView(std::string(kStacksTable), {"stack", "samples"},
                                 "dlcheck profile --model mlp");
  stacks.caption = "960 samples of cycles at 999 Hz; JIT kernels green, OS kernel blue";
  stacks.format_input = true;
  std::istringstream in(ReadFile(DataPath("profile/" + folded_name)));
  for (std::string line; std::getline(in, line);) {
    const std::size_t space = line.rfind(' ');
    stacks.rows.push_back({line.substr(0, space), std::stoll(line.substr(space + 1))});
  }
  return report;
}

std::string Printed(const Report& report, Format format) {
  std::ostringstream out;
  Print(report, format, out);
  return out.str();
}

TEST(StacksPrinterTest, FoldedAndSvgAreByteIdenticalToTheRecordedOutput) {
  for (const std::string name : {"mlp_excerpt", "torch_cnn_dwarf_excerpt"}) {
    SCOPED_TRACE(name);
    const Report report = ProfileReport(name + ".folded");
    ASSERT_GT(report.FindTable(kStacksTable)->rows.size(), 3u);
    EXPECT_EQ(Printed(report, Format::kFolded), ReadFile(DataPath("profile/" + name + ".folded")));
    // DLCHECK_UPDATE_GOLDEN=1 rewrites the expected SVG (then review its diff like code).
    if (const char* update = std::getenv("DLCHECK_UPDATE_GOLDEN"); update && *update == '1') {
      std::ofstream(DataPath("profile/" + name + ".svg"), std::ios::binary)
          << Printed(report, Format::kSvg);
    }
    EXPECT_EQ(Printed(report, Format::kSvg), ReadFile(DataPath("profile/" + name + ".svg")));
  }
}

TEST(StacksPrinterTest, FormatNamesAreFoldedAndSvg) {
  EXPECT_EQ(ParseFormat("folded"), Format::kFolded);
  EXPECT_EQ(ParseFormat("SVG"), Format::kSvg);
}

// The stacks are a format's input: the table, CSV, JSON and xlsx printers leave them out.
TEST(StacksPrinterTest, NoOtherFormatShowsTheStacks) {
  const Report report = ProfileReport("mlp_excerpt.folded");
  for (const Format format : {Format::kTable, Format::kCsv, Format::kJson}) {
    const std::string text = Printed(report, format);
    EXPECT_NE(text.find("jit_t"), std::string::npos) << FormatName(format);
    EXPECT_EQ(text.find("stack"), std::string::npos) << FormatName(format) << text;
  }
}

// --format speedscope: the recorded stacks as speedscope's file format. Read back, every sample
// names its frames root first and the weights are the folded counts: unfolding it gives the
// recorded folded text again, line for line (the comm is the root frame).
TEST(StacksPrinterTest, SpeedscopeHoldsTheFoldedStacksAsItsSchemaSays) {
  EXPECT_EQ(ParseFormat("speedscope"), Format::kSpeedscope);
  for (const std::string name : {"mlp_excerpt", "torch_cnn_dwarf_excerpt"}) {
    SCOPED_TRACE(name);
    const Report report = ProfileReport(name + ".folded");
    const nlohmann::json file = nlohmann::json::parse(Printed(report, Format::kSpeedscope));
    EXPECT_EQ(file["$schema"], "https://www.speedscope.app/file-format-schema.json");
    const nlohmann::json& frames = file["shared"]["frames"];
    ASSERT_EQ(file["profiles"].size(), 1u);
    const nlohmann::json& profile = file["profiles"][0];
    EXPECT_EQ(profile["type"], "sampled");
    EXPECT_EQ(profile["unit"], "none");
    ASSERT_EQ(profile["samples"].size(), profile["weights"].size());
    std::uint64_t total = 0;
    std::string unfolded;
    for (std::size_t i = 0; i < profile["samples"].size(); ++i) {
      std::string stack;
      for (const nlohmann::json& at : profile["samples"][i]) {
        ASSERT_LT(at.get<std::size_t>(), frames.size());
        stack +=
            (stack.empty() ? "" : ";") + frames[at.get<std::size_t>()]["name"].get<std::string>();
      }
      const std::uint64_t weight = profile["weights"][i].get<std::uint64_t>();
      total += weight;
      unfolded += stack + " " + std::to_string(weight) + "\n";
    }
    EXPECT_EQ(profile["endValue"].get<std::uint64_t>(), total);
    EXPECT_EQ(unfolded, Printed(report, Format::kFolded));
  }
}

TEST(StacksPrinterTest, AReportWithoutStacksPrintsNoStacks) {
  Report report;
  report.AddView("kernels", {"kernel", "samples"}).rows.push_back({"jit_t", 3});
  EXPECT_EQ(Printed(report, Format::kFolded), "");
  EXPECT_NE(Printed(report, Format::kSvg).find("<svg"), std::string::npos);
}

}  // namespace
}  // namespace dlcheck::report
