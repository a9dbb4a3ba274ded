// SPDX-License-Identifier: Apache-2.0
// Issue 37, class 4: text from a recording (a process name, a symbol) is made safe per format. A
// symbol named with an OSC title sequence (ESC ] 0 ; ... BEL), a clear-screen (ESC [ 2 J), spaces
// and ';' stays one frame of the folded format (`stack count`: no space, no ';' inside a frame,
// no control character), and no escape reaches a terminal through the table or the SVG.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>

#include "profile/profile.h"
#include "profile/profile_report.h"
#include "report/printer.h"

namespace dlcheck::profile {
namespace {

constexpr char kHostileSymbol[] = "evil\x1b]0;owned\x07 \x1b[2J;name with spaces";
constexpr char kHostileComm[] = "py;th on\x1b[31m";

report::Report HostileReport() {
  PerfRecord r;
  r.comm = kHostileComm;
  r.pid = 40;
  r.tid = 40;
  r.time_s = 1.0;
  r.event = "cycles";
  r.frames = {{"jit_kernel\x1b[2J", "/tmp/perf-40.map"},
              {kHostileSymbol, "/usr/lib/libevil.so"},
              {"main", "/usr/bin/python3"}};
  ProfileBuilder builder;
  for (int i = 0; i < 3; ++i) {
    r.time_s += 0.1;
    builder.Add(r);
  }
  report::Report report(ProfileDocument());
  AddProfileTables(report, builder.profile(), {}, {});
  AddStacksTable(report, builder.profile(), "t", "c");
  return report;
}

std::string Printed(report::Format format) {
  std::ostringstream out;
  report::Print(HostileReport(), format, out);
  return out.str();
}

bool HasControl(const std::string& text) {
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n') || u == 0x7f) return true;
  }
  return false;
}

TEST(RecordedTextSafePerFormat, FoldedKeepsEachFrameOneFrame) {
  const std::string folded = Printed(report::Format::kFolded);
  EXPECT_FALSE(HasControl(folded)) << folded;
  // One line: the comm and three frames, then one space and the count.
  EXPECT_TRUE(std::regex_match(folded, std::regex("[^; \n]+(;[^; \n]+){3} 3\n"))) << folded;
  EXPECT_NE(folded.find("name_with_spaces"), std::string::npos) << folded;
}

TEST(RecordedTextSafePerFormat, TableAndSvgCarryNoEscape) {
  for (report::Format format :
       {report::Format::kTable, report::Format::kSvg, report::Format::kCsv}) {
    const std::string text = Printed(format);
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
    EXPECT_EQ(text.find('\x07'), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace dlcheck::profile
