// SPDX-License-Identifier: Apache-2.0
#include "report/safe_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "report/printer.h"

namespace dlcheck::report {
namespace {

// Text as hostile inputs carry it: a terminal escape (ESC [ 2 J clears the screen), a C1 CSI
// (U+009B), a byte that is not UTF-8, a cut sequence, a surrogate, an overlong slash.
const std::string kHostile =
    "a\x1b[2Jb \xc2\x9b"
    "c \xff "
    "d\xe2\x82 e\xed\xa0\x80 f\xc0\xaf";

TEST(SafeTextTest, Utf8SequencesAreCheckedStrictly) {
  EXPECT_EQ(Utf8SequenceBytes("\xc3\xa9", 0), 2u);
  EXPECT_EQ(Utf8SequenceBytes("\xe2\x82\xac", 0), 3u);      // euro sign
  EXPECT_EQ(Utf8SequenceBytes("\xf0\x9f\x98\x80", 0), 4u);  // emoji
  EXPECT_EQ(Utf8SequenceBytes("\xe2\x82", 0), 0u);          // cut short
  EXPECT_EQ(Utf8SequenceBytes("\xed\xa0\x80", 0), 0u);      // surrogate
  EXPECT_EQ(Utf8SequenceBytes("\xc0\xaf", 0), 0u);          // overlong
  EXPECT_EQ(Utf8SequenceBytes("\xf4\x90\x80\x80", 0), 0u);  // beyond U+10FFFF
  EXPECT_EQ(Utf8SequenceBytes("\x80", 0), 0u);              // stray continuation
}

TEST(SafeTextTest, VisibleTextSpellsOutControlsAndBadBytes) {
  EXPECT_EQ(VisibleText(kHostile),
            "a\\x1b[2Jb \\xc2\\x9bc \\xff d\\xe2\\x82 e\\xed\\xa0\\x80 f\\xc0\\xaf");
  EXPECT_EQ(VisibleText("tab\there\r\n"), "tab\\x09here\\x0d\\x0a");
  EXPECT_EQ(VisibleText("tab\there\r\n", true), "tab\there\r\n");
  EXPECT_EQ(VisibleText("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
}

TEST(SafeTextTest, ValidUtf8TextReplaces) {
  EXPECT_EQ(ValidUtf8Text("a\xff"
                          "b",
                          "?"),
            "a?b");
  EXPECT_EQ(ValidUtf8Text("a\x1b[2J\tb", "?", true), "a?[2J\tb");
  EXPECT_EQ(ValidUtf8Text("a\x1b", "?"), "a\x1b");
}

Report HostileReport() {
  Report r;
  r.command = "parse";
  r.AddSection({"header", "Log header"}).Add({"cpu"}, kHostile);
  Table& t = r.AddView("primitives", {"implementation", "execs"}, "Primitives");
  t.rows.push_back({kHostile, 1});
  r.AddFinding(Severity::kWarning, "w", kHostile);
  return r;
}

std::string Render(Format format) {
  std::ostringstream out;
  Print(HostileReport(), format, out);
  return out.str();
}

bool HasRawControlOrBadByte(const std::string& text, bool allow_line_breaks) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t bytes = Utf8SequenceBytes(text, i);
    if (bytes == 0) return true;
    const bool line_break = text[i] == '\n' || text[i] == '\r';
    if (IsControl(text, i, bytes) && !(allow_line_breaks && line_break)) return true;
    i += bytes;
  }
  return false;
}

TEST(SafeTextTest, EveryFormatIsSafe) {
  const std::string table = Render(Format::kTable);
  EXPECT_FALSE(HasRawControlOrBadByte(table, true)) << table;
  EXPECT_NE(table.find("a\\x1b[2Jb"), std::string::npos) << table;
  const std::string csv = Render(Format::kCsv);
  EXPECT_FALSE(HasRawControlOrBadByte(csv, true)) << csv;
  EXPECT_NE(csv.find("a\\x1b[2Jb \\xc2\\x9bc \\xff"), std::string::npos) << csv;
  const std::string json = Render(Format::kJson);
  EXPECT_FALSE(HasRawControlOrBadByte(json, true)) << json;
  const nlohmann::json doc = nlohmann::json::parse(json);
  const std::string cell = doc["primitives"][0]["implementation"];
  EXPECT_EQ(cell.substr(0, 6), "a\x1b[2Jb");  // escaped in the document, exact in the value
  EXPECT_NE(cell.find("c \xef\xbf\xbd "), std::string::npos) << cell;  // 0xFF -> U+FFFD
}

TEST(CsvFormulaTest, TextThatWouldRunAsAFormulaGetsAQuoteAndNumbersDoNot) {
  Report r;
  Table& t = r.AddView("primitives", {"problem", "execs", "ratio"});
  t.rows.push_back({"=1+2", -3, Value(-0.5, 1)});
  t.rows.push_back({"+cmd", 0, Value()});
  t.rows.push_back({"-2+3", 1, Value()});
  t.rows.push_back({"@SUM(A1)", 1, Value()});
  t.rows.push_back({"\t=1", 1, Value()});
  t.rows.push_back({"10:10", 1, Value()});
  std::ostringstream out;
  Print(r, Format::kCsv, out);
  EXPECT_EQ(out.str(),
            "problem,execs,ratio\r\n"
            "'=1+2,-3,-0.5\r\n"
            "'+cmd,0,\r\n"
            "'-2+3,1,\r\n"
            "'@SUM(A1),1,\r\n"
            "'\t=1,1,\r\n"
            "10:10,1,\r\n");
}

TEST(CsvFormulaTest, LfLineEndsOnRequest) {
  Report r;
  r.AddView("t", {"a", "b"}).rows.push_back({"x\ny", 1});
  SetPrintSettings({.csv_lf = true});
  std::ostringstream out;
  Print(r, Format::kCsv, out);
  SetPrintSettings({});
  // The line break inside a quoted field is the cell's own, kept as it is.
  EXPECT_EQ(out.str(), "a,b\n\"x\ny\",1\n");
}

// SafeText, for recorded text in a report (a path, a brand string): one '?' per byte refused.
TEST(SafeTextTest, KeepsUtf8AndReplacesEachControlAndBadByteWithAQuestionMark) {
  EXPECT_EQ(SafeText("Intel\x1b[31mCore\xff"), "Intel?[31mCore?");
  EXPECT_EQ(SafeText("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
  EXPECT_EQ(SafeText("\xc2\x9b"
                     "2J"),
            "??2J");                                       // C1 CSI, as UTF-8
  EXPECT_EQ(SafeText("\xc0\xaf \xed\xa0\x80"), "?? ???");  // overlong, surrogate
  EXPECT_EQ(SafeText("\xe2\x82"), "??");                   // cut inside a sequence
  EXPECT_EQ(SafeText("abcdef", 3), "abc");
}

// Bidi controls reorder what a terminal shows: each is a control, refused like C0 and C1.
TEST(SafeTextTest, BidiControlsAreControls) {
  EXPECT_EQ(SafeText("a\xe2\x80\xae"
                     "b"),
            "a???b");  // U+202E right-to-left override
  EXPECT_EQ(SafeText("a\xe2\x81\xa6"
                     "b\xe2\x81\xa9"),
            "a???b???");                                 // an isolate and its end
  EXPECT_EQ(SafeText("\xe2\x80\x8f\xd8\x9c"), "?????");  // RLM, arabic letter mark
  EXPECT_EQ(SafeText("\xe2\x80\x94 \xe2\x80\xa6"), "\xe2\x80\x94 \xe2\x80\xa6");  // a dash, dots
  EXPECT_EQ(VisibleText("\xe2\x80\xae"), "\\xe2\\x80\\xae");
}

// SafeMessage, for every `dlcheck: ...` line: each line made safe, the line breaks kept.
TEST(SafeTextTest, SafeMessageKeepsLineBreaksOnly) {
  EXPECT_EQ(SafeMessage("bad line 'x\x9b[2J'\nsecond \x1b[31m"), "bad line 'x?[2J'\nsecond ?[31m");
  EXPECT_EQ(SafeMessage("caf\xc3\xa9\n"), "caf\xc3\xa9\n");
  EXPECT_EQ(SafeMessage(""), "");
}

}  // namespace
}  // namespace dlcheck::report
