// SPDX-License-Identifier: Apache-2.0
// The human table on a real terminal: dlcheck runs on a pseudo-terminal of 80 and 120 columns
// (openpty with that window size, no COLUMNS: the width comes from the terminal as it does in
// tmux or xterm), and what it printed is read back as the screen shows it.
//
// Each table is checked against the same command's piped output (no width limit: every row on
// one line, every cell whole): each row takes exactly one screen line, in order, under a header
// of at most three lines; no line is wider than the terminal; every word on the screen is a
// word of the piped output or ends in `…` (a cut cell), so no identifier is broken
// (`avx512_` / `core`); no two rows that differ in the piped output print the same words (a
// column left out or cut alike would make them look like one row); the answer columns are on the
// screen at 80 columns, with the piped output's values for the first row.
//
// Every report opens with its verdict on a terminal: the first lines, up to a blank one, are one
// paragraph that ends with the tally of its errors and warnings, and the findings come before the
// first table.
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "common/propagation.h"
#include "support/run_dlcheck.h"
#include "support/scratch_dir.h"

namespace dlcheck {
namespace {

using testing::RunDlcheck;

constexpr std::string_view kEllipsis = "\u2026";

// What dlcheck printed on a terminal of `columns` columns (CR LF read back as LF), and how it
// ended.
struct Screen {
  std::string text;
  int exit_code = -1;
};

[[noreturn]] void ExecOnTerminal(const std::vector<std::string>& args) {
  unsetenv("COLUMNS");
  unsetenv("LINES");
  std::vector<char*> argv;
  std::string binary = DLCHECK_BINARY;
  argv.push_back(binary.data());
  std::vector<std::string> copies = args;
  for (std::string& a : copies) argv.push_back(a.data());
  argv.push_back(nullptr);
  execv(binary.c_str(), argv.data());
  _exit(127);
}

Screen RunOnTerminal(const std::vector<std::string>& args, unsigned short columns) {
  winsize size{};
  size.ws_row = 50;
  size.ws_col = columns;
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, &size);
  if (pid < 0)
    return {.text = std::string("(no terminal: forkpty failed: ") + strerror(errno) + ")"};
  if (pid == 0) ExecOnTerminal(args);
  std::string raw;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(master, buffer, sizeof buffer);
    if (n > 0) {
      raw.append(buffer, static_cast<std::size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: the child closed its side
    }
  }
  close(master);
  int status = 0;
  waitpid(pid, &status, 0);
  Screen screen;
  screen.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] == '\r' && i + 1 < raw.size() && raw[i + 1] == '\n') continue;
    screen.text += raw[i];
  }
  return screen;
}

// The screen's lines: a progress line drawn over (`\r ESC [K`) leaves what was drawn last.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (const auto cr = line.rfind('\r'); cr != std::string::npos) line = line.substr(cr + 1);
    for (std::size_t at; (at = line.find("\033[K")) != std::string::npos;) line.erase(at, 3);
    lines.push_back(line);
  }
  return lines;
}

// Display columns of ASCII and `…` text (what these tables hold).
std::size_t Width(const std::string& line) {
  std::size_t width = 0;
  for (unsigned char c : line) width += (c & 0xC0) != 0x80 ? 1 : 0;
  return width;
}

std::vector<std::string> Words(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

bool EndsInEllipsis(const std::string& word) {
  return word.size() >= kEllipsis.size() &&
         word.compare(word.size() - kEllipsis.size(), kEllipsis.size(), kEllipsis) == 0;
}

// A cut word's parts that are whole text: `jit:…avx512_core` -> {"jit:", "avx512_core"},
// `…ic32oc64` -> {"ic32oc64"}, `brgemm:…` -> {"brgemm:"}.
std::vector<std::string> WholeParts(const std::string& word) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at; (at = word.find(kEllipsis, start)) != std::string::npos;) {
    if (at > start) parts.push_back(word.substr(start, at - start));
    start = at + kEllipsis.size();
  }
  if (start < word.size()) parts.push_back(word.substr(start));
  return parts;
}

// Whether a cut word shows a piece of a whole one: each of its parts is in it, in order, the first
// at its start where the cut keeps the start (`jit:…`, `jit:…avx512_core`), the last at its end
// where the cut keeps the end (`…ic32oc64`, `jit:…avx512_core`).
bool CutFrom(const std::string& cut, const std::string& whole) {
  const std::vector<std::string> parts = WholeParts(cut);
  if (parts.empty()) return true;
  const bool keeps_start = cut.rfind(kEllipsis, 0) != 0;
  const bool keeps_end = !EndsInEllipsis(cut);
  if (keeps_start && whole.rfind(parts.front(), 0) != 0) return false;
  if (keeps_end &&
      (whole.size() < parts.back().size() ||
       whole.compare(whole.size() - parts.back().size(), parts.back().size(), parts.back()) != 0)) {
    return false;
  }
  std::size_t at = 0;
  for (const std::string& part : parts) {
    const std::size_t found = whole.find(part, at);
    if (found == std::string::npos) return false;
    at = found + part.size();
  }
  return true;
}

// A table as printed: its title line, the lines up to the next blank line.
std::vector<std::string> Block(const std::vector<std::string>& lines, const std::string& title) {
  std::vector<std::string> block;
  bool inside = false;
  for (const std::string& line : lines) {
    if (!inside) {
      inside = line.rfind(title, 0) == 0;
      continue;
    }
    if (line.empty()) break;
    if (block.empty() && line[0] != ' ') continue;  // the title's own second line
    block.push_back(line);
  }
  return block;
}

// The piped table's rows: every line after its one header line.
std::vector<std::string> PipedRows(const std::vector<std::string>& piped_block) {
  return {piped_block.begin() + (piped_block.empty() ? 0 : 1), piped_block.end()};
}

// Whether the screen line shows the piped row: each of its words is a word of the row, its
// short spelling on a narrowed table (a propagation kind's benchdnn direction: `bwd_w`), or the
// start of one cut with `…` (the screen leaves columns out, never adds any).
// A live run (`dispatch` of the model) measures again: only its first word, what the row is,
// is compared.
bool ShowsRow(const std::string& screen_line, const std::string& piped_row, bool live) {
  std::vector<std::string> shown = Words(screen_line);
  const std::vector<std::string> whole = Words(piped_row);
  if (shown.empty()) return false;
  if (live) shown.resize(1);
  for (const std::string& word : shown) {
    if (std::find(whole.begin(), whole.end(), word) != whole.end()) continue;
    if (std::any_of(whole.begin(), whole.end(),
                    [&](const std::string& w) { return onednn::ShortPropagation(w) == word; }))
      continue;
    if (word.find(kEllipsis) == std::string::npos) return false;
    // A cut cell: a piece of one word, or of a list of words whose middle is left out
    // (`amx_bf16…avx512vl`).
    const bool of_a_word = std::any_of(whole.begin(), whole.end(),
                                       [&](const std::string& w) { return CutFrom(word, w); });
    if (of_a_word) continue;
    std::size_t at = 0;
    for (const std::string& part : WholeParts(word)) {
      at = piped_row.find(part, at);
      if (at == std::string::npos) return false;
      at += part.size();
    }
  }
  return true;
}

struct TableCheck {
  std::string title;                 ///< the table's heading, as printed
  std::vector<std::string> answers;  ///< columns that must be on the screen
  bool live = false;                 ///< the command measures: two runs differ in numbers
  std::vector<std::string> whole;    ///< columns whose cells keep their last `:` part whole
  /// The first column is a number that names the row (an event's log line): rows apart may be
  /// told apart by it, where other numbers only measure a row.
  bool numbered = false;
};

// The cell of column `name` in a piped row: the word at the column's offset in the piped header
// (the pipe prints every column whole, aligned under its name); "" where the header has none.
std::string PipedCell(const std::string& header, const std::string& row, const std::string& name) {
  std::size_t at = std::string::npos;
  for (std::size_t found = header.find(name); found != std::string::npos;
       found = header.find(name, found + 1)) {
    const bool starts = found == 0 || header[found - 1] == ' ';
    const bool ends = found + name.size() == header.size() || header[found + name.size()] == ' ';
    if (starts && ends) {
      at = found;
      break;
    }
  }
  if (at == std::string::npos || at >= row.size() || row[at] == ' ') return {};
  return row.substr(at, row.find(' ', at) - at);
}

// Whether a word is a measurement (`12.5`, `-`): what a live run changes.
bool IsNumber(const std::string& word) {
  return word.find_first_not_of("0123456789.-") == std::string::npos;
}

// The checks of the file's header comment, for one table of one command at one width.
void ExpectFitted(const std::vector<std::string>& args, const TableCheck& table,
                  unsigned short columns) {
  SCOPED_TRACE(table.title + " at " + std::to_string(columns) + " columns");
  const testing::RunResult piped = RunDlcheck(args);
  ASSERT_LE(piped.exit_code, 1) << piped.err;  // `diff` ends 1 on a regression
  const Screen screen = RunOnTerminal(args, columns);
  ASSERT_EQ(screen.exit_code, piped.exit_code) << screen.text;
  const std::vector<std::string> lines = Lines(screen.text);
  for (const std::string& line : lines) EXPECT_LE(Width(line), columns) << line;

  const std::vector<std::string> piped_block = Block(Lines(piped.out), table.title);
  const std::vector<std::string> rows = PipedRows(piped_block);
  ASSERT_FALSE(rows.empty()) << piped.out;
  const std::vector<std::string> block = Block(lines, table.title);
  std::size_t first = 0;
  while (first < block.size() && !ShowsRow(block[first], rows[0], table.live)) ++first;
  ASSERT_LT(first, block.size()) << "no first row in\n" << screen.text;
  EXPECT_LE(first, 6u) << "header lines\n" << screen.text;
  // The rows as the screen shows them: a row folded onto more lines (narrower than its columns
  // even cut) goes on at a deeper indent.
  std::vector<std::string> shown;
  std::size_t folded = 0;
  const std::size_t row_indent = block[first].find_first_not_of(' ');
  for (std::size_t i = first; i < block.size(); ++i) {
    if (block[i].find_first_not_of(' ') > row_indent && !shown.empty() &&
        shown.size() <= rows.size()) {
      shown.back() += " " + block[i];
      ++folded;
    } else {
      shown.push_back(block[i]);
    }
  }
  if (columns >= 120) {
    EXPECT_EQ(folded, 0u) << "rows folded at " << columns << ":\n" << screen.text;
  }
  // Columns whose distinguishing end is kept (which kernel ran, at which ISA): each row's cell is
  // on its line whole, or cut with its last `:` part whole (`jit_…avx512_core_vnni`, never
  // `brgemm_bwd_w:…`); a name without one (an Arm kernel's) may be cut at either end.
  for (const std::string& column : table.whole) {
    for (std::size_t i = 0; i < rows.size() && i < shown.size(); ++i) {
      const std::string cell = PipedCell(piped_block.front(), rows[i], column);
      if (cell.empty() || cell == "-") continue;
      const std::size_t colon = cell.rfind(':');
      const std::string end = colon == std::string::npos ? "" : cell.substr(colon + 1);
      const std::vector<std::string> words = Words(shown[i]);
      const bool kept = std::any_of(words.begin(), words.end(), [&](const std::string& w) {
        if (w == cell) return true;
        const std::size_t cut = w.find(kEllipsis);
        if (cut == std::string::npos) return false;
        const std::string head = w.substr(0, cut), tail = w.substr(cut + kEllipsis.size());
        return cell.starts_with(head) && cell.ends_with(tail) && tail.ends_with(end) &&
               tail.size() >= end.size();
      });
      EXPECT_TRUE(kept) << column << " '" << cell << "' lost its end on its line:\n"
                        << shown[i] << "\nscreen:\n"
                        << screen.text;
    }
  }
  ASSERT_GE(shown.size(), rows.size()) << screen.text;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_TRUE(ShowsRow(shown[i], rows[i], table.live))
        << "row " << i << " is not on line " << i << " of the rows:\n"
        << shown[i] << "\nexpected\n"
        << rows[i] << "\nscreen:\n"
        << screen.text;
  }
  // What follows the rows is the note of left-out columns, not a row's second line.
  for (std::size_t i = rows.size(); i < shown.size(); ++i) {
    EXPECT_NE(shown[i].find_first_not_of(' '), std::string::npos);
    if (i == rows.size()) {
      EXPECT_NE(shown[i].find("(not shown at "), std::string::npos) << screen.text;
    }
  }

  // The piped words, and their short spellings on a narrowed table (`bwd_w`).
  std::set<std::string> whole_words;
  for (const std::string& line : piped_block) {
    for (const std::string& w : Words(line)) {
      whole_words.insert(w);
      whole_words.emplace(onednn::ShortPropagation(w));
    }
  }
  // A live run's note may hold words the piped run's did not (one run found a variant within
  // noise, the other did not): such a word is broken only if it is a piece of a whole word, cut
  // between two letters (`baseline's` of `baseline's;` is whole: a sentence's end differs).
  const auto has_letter = [](const std::string& s) {
    return std::any_of(s.begin(), s.end(), [](unsigned char c) { return std::isalnum(c); });
  };
  const auto piece_of_a_word = [&](const std::string& w) {
    return std::any_of(whole_words.begin(), whole_words.end(), [&](const std::string& whole) {
      if (whole.size() <= w.size()) return false;
      const std::size_t rest = whole.size() - w.size();
      return (whole.starts_with(w) && has_letter(whole.substr(w.size()))) ||
             (whole.ends_with(w) && has_letter(whole.substr(0, rest)));
    });
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (const std::string& w : Words(shown[i])) {
      EXPECT_TRUE(whole_words.count(w) == 1 || w.find(kEllipsis) != std::string::npos ||
                  (table.live && (IsNumber(w) || !piece_of_a_word(w))))
          << "broken word '" << w << "' in\n"
          << shown[i];
    }
  }
  // Rows apart: two rows the pipe prints differently in its text (not only in its numbers) are
  // two different texts on the screen.
  const auto text_words = [&](const std::string& line) {
    std::vector<std::string> words = Words(line);
    const auto measures = words.begin() + (table.numbered && !words.empty() ? 1 : 0);
    words.erase(std::remove_if(measures, words.end(), IsNumber), words.end());
    return words;
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    for (std::size_t j = i + 1; j < rows.size(); ++j) {
      if (text_words(rows[i]) == text_words(rows[j])) continue;
      EXPECT_NE(text_words(shown[i]), text_words(shown[j]))
          << "rows " << i << " and " << j << " look alike:\n"
          << shown[i] << "\n"
          << shown[j] << "\nbut differ:\n"
          << rows[i] << "\n"
          << rows[j];
    }
  }
  // The answer columns: in the header (a name may wrap after `_`: its words are on the header
  // lines), never in the note of left-out columns.
  std::string header;
  for (std::size_t i = 0; i < first; ++i) header += block[i];
  std::string header_words;
  for (const std::string& w : Words(header)) header_words += w;
  std::string note;
  for (std::size_t i = rows.size(); i < shown.size(); ++i) note += shown[i] + " ";
  for (const std::string& answer : table.answers) {
    std::string glued;  // the name's words as the header lines hold them, without spaces
    for (const std::string& w : Words(answer)) glued += w;
    bool in_header = header_words.find(glued) != std::string::npos;
    if (!in_header) {
      // Wrapped: each piece of the name on its own header line.
      std::size_t found = 0;
      std::string rest = glued;
      for (std::size_t i = 0; i < first && !rest.empty(); ++i) {
        for (const std::string& w : Words(block[i])) {
          if (rest.rfind(w, 0) == 0) {
            rest = rest.substr(w.size());
            ++found;
            break;
          }
        }
      }
      in_header = rest.empty() && found > 0;
    }
    EXPECT_TRUE(in_header) << answer << " not in the header:\n" << screen.text;
    EXPECT_EQ(note.find(" " + answer + ","), std::string::npos) << note;
    EXPECT_EQ(note.find(": " + answer), std::string::npos) << note;
  }
}

void ExpectFittedAt80And120(const std::vector<std::string>& args, const TableCheck& table) {
  for (const unsigned short columns : {std::uint16_t{80}, std::uint16_t{120}}) {
    ExpectFitted(args, table, columns);
  }
}

const TableCheck kPrimitives{
    "Primitives", {"implementation", "exec_ms_total", "time_pct"}, false, {"implementation"}};

TEST(TerminalTest, ParseOfATorchLogKeepsEachPrimitiveOnOneLine) {
  // 17 primitive rows (a PyTorch CNN's training steps), with long implementation names.
  ExpectFittedAt80And120({"parse", testing::DataPath("verbose/torch_cnn_2.6.3.log")}, kPrimitives);
}

TEST(TerminalTest, ParseOfEachRecordedTorchLogKeepsRowsApart) {
  // PyTorch 1.13's training and inference logs: forward and backward convolutions of one layer,
  // bf16 and int8 kernels, the same CNN under an SSE4.1 cap.
  for (const char* log :
       {"verbose/torch_bf16_2.6.3.log", "verbose/torch_int8_2.6.3.log",
        "verbose/torch_cnn_sse41_2.6.3.log", "verbose/torch_cnn_avx2_2.6.3.log"}) {
    SCOPED_TRACE(log);
    ExpectFittedAt80And120({"parse", testing::DataPath(log)}, kPrimitives);
  }
}

TEST(TerminalTest, ParseOfPastedAndNewerLinesKeepsRowsApart) {
  for (const char* log :
       {"verbose/real_lines.txt", "verbose/formats_3.13.1.txt", "verbose/why_lines.txt"}) {
    SCOPED_TRACE(log);
    ExpectFittedAt80And120({"parse", testing::DataPath(log)}, kPrimitives);
  }
}

// The streamed events table (one row per event, fitted from its first rows): which kernel ran,
// on which ISA, created or executed, and for how long, on logs of each era.
TEST(TerminalTest, ParseEventsKeepTheKernelAndItsIsa) {
  const TableCheck events{
      "Events", {"operation", "implementation", "isa", "time_ms"}, false, {"implementation"}, true};
  for (const char* log : {"verbose/torch_cnn_2.6.3.log", "verbose/benchdnn_ts_3.10.2.log",
                          "verbose/real_lines.txt", "verbose/aarch64_lines.txt"}) {
    SCOPED_TRACE(log);
    ExpectFittedAt80And120({"parse", "--events", testing::DataPath(log)}, events);
  }
}

TEST(TerminalTest, ParseOfGeneratedLinesKeepsEachPrimitiveOnOneLine) {
  ExpectFittedAt80And120({"parse", testing::DataPath("verbose/generated_2.6.3.txt")}, kPrimitives);
}

class TerminalFilesTest : public testing::ScratchDirTest {
 protected:
  // The lines of generated_2.6.3.txt's section whose `# source:` line contains `marker`.
  std::string Section(const std::string& marker) {
    std::ifstream in(testing::DataPath("verbose/generated_2.6.3.txt"));
    std::string text;
    bool inside = false;
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("# source:", 0) == 0) inside = line.find(marker) != std::string::npos;
      if (inside) text += line + "\n";
    }
    return text;
  }
};

// The hot rows on a recorded machine profile's roofline: each row apart, its kernel's end and
// the roof that binds it kept.
TEST(TerminalTest, RooflineRowsKeepTheirBoundAndKernel) {
  ExpectFittedAt80And120(
      {"parse", "--machine-profile", testing::DataPath("roofline/round_roofs.json"),
       testing::DataPath("roofline/matmuls_2.6.3.log")},
      {"Hot rows on this machine's roofline",
       {"bound", "roof_fraction"},
       false,
       {"implementation"}});
}

TEST_F(TerminalFilesTest, DiffKeepsTheRatioAndOneLineARow) {
  const std::string a = Write("avx512.log", Section("(default max ISA)"));
  const std::string b = Write("avx2.log", Section("ONEDNN_MAX_CPU_ISA=AVX2"));
  ExpectFittedAt80And120({"diff", a, b}, {"Rows (a -> b)", {"regressed", "ratio"}});
}

TEST_F(TerminalFilesTest, DiffOfTwoTorchLogsKeepsRegressedAndRatio) {
  ExpectFittedAt80And120({"diff", testing::DataPath("verbose/torch_cnn_2.6.3.log"),
                          testing::DataPath("verbose/torch_cnn_avx2_2.6.3.log")},
                         {"Rows (a -> b)", {"regressed", "ratio"}});
}

TEST_F(TerminalFilesTest, DiffOfTwoReportsKeepsRegressedAndRatio) {
  std::vector<std::string> reports;
  for (const char* log :
       {"verbose/torch_cnn_avx2_2.6.3.log", "verbose/torch_cnn_sse41_2.6.3.log"}) {
    const auto r = RunDlcheck({"parse", "--format", "json", testing::DataPath(log)});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    reports.push_back(Write(std::string(log).substr(8) + ".json", r.out));
  }
  ExpectFittedAt80And120({"diff", reports[0], reports[1]},
                         {"Rows (a -> b)", {"regressed", "ratio"}});
}

TEST_F(TerminalFilesTest, FleetKeepsWhatGroupsLack) {
  for (const auto& [host, dump] :
       std::vector<std::pair<std::string, std::string>>{{"node1", "intel-xeon-w9-3475x.test.xz"},
                                                        {"node2", "intel-core-i7-4770-cpu.test"},
                                                        {"node3",
                                                         "amd-ryzen-9-7900x-12-core-"
                                                         "processor.test"}}) {
    const auto r = RunDlcheck(
        {"platform", "--cpuid-dump", testing::DataPath("cpuid/" + dump), "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Write(host + ".json", r.out);
  }
  // Issue 47: the hosts stay (80 columns dropped the hostlist), and the oneDNN ISA whole
  // (answer columns; the microarchitecture is what 80 columns leave out).
  ExpectFittedAt80And120({"fleet", dir_.string()},
                         {"Groups", {"hostlist", "cpu", "onednn_isa", "lacks"}});
}

// whatif's variants (measured anew by each run, so numbers are live): every variant row apart
// from the others at 80 and 120 columns, its variant, time and speed-up kept. The log recorded
// under an SSE4.1 cap runs as logged on any x86-64 host.
TEST(TerminalTest, WhatifKeepsEachVariantApart) {
  ExpectFittedAt80And120(
      {"whatif", "--top", "2", "--time", "0.01", "--variants", "layouts,threads",
       testing::DataPath("verbose/torch_cnn_sse41_2.6.3.log")},
      {"Variants of each hot primitive", {"variant", "min_ms", "speedup"}, true});
}

TEST(TerminalTest, DispatchKeepsTheFastestCapAndItsSpeedups) {
  ExpectFittedAt80And120({"dispatch", "--model", "mlp", "--iters", "2", "--warmup", "0", "--traced",
                          "1", "--batch", "16"},
                         {"Per primitive", {"fastest", "x scalar", "x lowest"}, true});
}

// The model's primitives, by name (a live run: its times, and so their order by time, vary).
const std::vector<std::string> kTinyModel = {"--model",  "mlp", "--iters",  "2",
                                             "--warmup", "0",   "--traced", "1",
                                             "--batch",  "16",  "--sort",   "name"};

TEST(TerminalTest, VerboseKeepsEachPrimitiveOnOneLine) {
  std::vector<std::string> args = {"verbose"};
  args.insert(args.end(), kTinyModel.begin(), kTinyModel.end());
  ExpectFittedAt80And120(
      args,
      {"Primitives", {"implementation", "exec_ms_total", "time_pct"}, true, {"implementation"}});
}

TEST(TerminalTest, RunKeepsEachPrimitiveOnOneLine) {
  std::vector<std::string> args = {"run", "--sort", "name", "--", DLCHECK_BINARY, "worker"};
  args.insert(args.end(), kTinyModel.begin(), kTinyModel.end() - 2);
  ExpectFittedAt80And120(
      args,
      {"Primitives", {"implementation", "exec_ms_total", "time_pct"}, true, {"implementation"}});
}

TEST(TerminalTest, HelpFitsEightyColumns) {
  const std::vector<std::vector<std::string>> helps = {{"--help"},
                                                       {"verbose", "--help"},
                                                       {"parse", "--help"},
                                                       {"run", "--help"},
                                                       {"profile", "--help"},
                                                       {"platform", "--help"},
                                                       {"dispatch", "--help"},
                                                       {"check", "--help"},
                                                       {"diff", "--help"},
                                                       {"fleet", "--help"}};
  for (const std::vector<std::string>& args : helps) {
    const Screen screen = RunOnTerminal(args, 80);
    EXPECT_EQ(screen.exit_code, 0);
    for (const std::string& line : Lines(screen.text)) EXPECT_LE(Width(line), 80u) << line;
  }
}

// `help parse` on a terminal is man's page, through man's pager (cat here, so that none waits for
// keys): its prose is wrapped by man to the terminal; its examples of real output are as wide as
// that output (as in any man page), so they are not held to 80 columns.
TEST(TerminalTest, HelpCommandShowsThePageOnATerminal) {
  setenv("MANPAGER", "cat", 1);
  const Screen screen = RunOnTerminal({"help", "parse"}, 80);
  EXPECT_EQ(screen.exit_code, 0) << screen.text;
  std::string text;  // without man's overstrikes (`c\bc` bold, `_\bc` underline)
  for (const char c : screen.text) {
    if (c == '\b' && !text.empty()) {
      text.pop_back();
    } else {
      text += c;
    }
  }
  EXPECT_NE(text.find("dlcheck-parse"), std::string::npos) << text;
  EXPECT_NE(text.find("EXIT STATUS"), std::string::npos) << text;
}

TEST(TerminalTest, AWorkbookIsNotWrittenToATerminal) {
  const Screen screen =
      RunOnTerminal({"parse", "-f", "xlsx", testing::DataPath("verbose/torch_cnn_2.6.3.log")}, 80);
  EXPECT_EQ(screen.exit_code, 2);
  EXPECT_NE(screen.text.find("dlcheck: parse: --format xlsx: "), std::string::npos) << screen.text;
  EXPECT_NE(screen.text.find("-o FILE"), std::string::npos) << screen.text;
  EXPECT_EQ(screen.text.find("PK"), std::string::npos);  // no ZIP on the screen
  // The remedy works on the same terminal.
  const std::string path = ::testing::TempDir() + "/dlcheck-terminal.xlsx";
  const Screen to_file = RunOnTerminal(
      {"parse", "-f", "xlsx", "-o", path, testing::DataPath("verbose/torch_cnn_2.6.3.log")}, 80);
  EXPECT_EQ(to_file.exit_code, 0) << to_file.text;
  std::ifstream in(path, std::ios::binary);
  std::string magic(2, '\0');
  in.read(magic.data(), 2);
  EXPECT_EQ(magic, "PK");
  std::remove(path.c_str());
}

TEST(TerminalTest, AWebPageIsNotWrittenToATerminal) {
  const std::string log = testing::DataPath("verbose/torch_cnn_2.6.3.log");
  const Screen screen = RunOnTerminal({"parse", "-f", "html", log}, 80);
  EXPECT_EQ(screen.exit_code, 2);
  EXPECT_NE(screen.text.find("dlcheck: parse: --format html: a web page is for a browser"),
            std::string::npos)
      << screen.text;
  EXPECT_EQ(screen.text.find("<!DOCTYPE"), std::string::npos);
  const std::string path = ::testing::TempDir() + "/dlcheck-terminal.html";
  const Screen to_file = RunOnTerminal({"parse", "-f", "html", "-o", path, log}, 80);
  EXPECT_EQ(to_file.exit_code, 0) << to_file.text;
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "<!DOCTYPE html>");
  std::remove(path.c_str());
}

// A --columns list wider than the terminal: each row folds onto the same number of lines (the
// later ones indented), none wider than the terminal, every chosen column on the screen.
TEST(TerminalTest, ColumnsWiderThanTheTerminalFoldRows) {
  const std::vector<std::string> args = {
      "parse", "--columns",
      "primitive,implementation,prop_kind,data_types,layouts,problem,exec_ms_total,time_pct",
      testing::DataPath("verbose/torch_cnn_2.6.3.log")};
  const testing::RunResult piped = RunDlcheck(args);
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  const std::vector<std::string> rows = PipedRows(Block(Lines(piped.out), "Primitives"));
  ASSERT_FALSE(rows.empty());
  const Screen screen = RunOnTerminal(args, 80);
  ASSERT_EQ(screen.exit_code, 0) << screen.text;
  const std::vector<std::string> lines = Lines(screen.text);
  for (const std::string& line : lines) EXPECT_LE(Width(line), 80u) << line;
  const std::vector<std::string> block = Block(lines, "Primitives");
  std::size_t row_lines = 0;  // a row's first line starts at the table's indent, the rest deeper
  for (const std::string& line : block) {
    if (line.find_first_not_of(' ') == 2) ++row_lines;
  }
  // The header's first line and one per row start at the indent.
  EXPECT_EQ(row_lines, rows.size() + 1) << screen.text;
  EXPECT_GT(block.size(), 2 * rows.size()) << "rows are not folded:\n" << screen.text;
  for (const char* column : {"layouts", "problem", "exec_ms_", "time_"}) {
    EXPECT_NE(screen.text.find(column), std::string::npos) << column << "\n" << screen.text;
  }
}

// The verdict: the first paragraph of the screen, ending with the tally of errors and warnings;
// the findings (when there are any) before the first table's title.
struct VerdictCheck {
  std::vector<std::string> args;
  std::string first_table;  ///< the title of the report's first table
  std::string starts;       ///< what the verdict starts with
};

void ExpectVerdictFirst(const VerdictCheck& check, unsigned short columns) {
  SCOPED_TRACE(check.args.front() + " at " + std::to_string(columns) + " columns");
  const Screen screen = RunOnTerminal(check.args, columns);
  ASSERT_LE(screen.exit_code, 1) << screen.text;
  std::vector<std::string> lines;
  for (const std::string& line : Lines(screen.text)) {
    if (line.rfind("dlcheck:", 0) == 0) continue;  // a progress line left on the terminal
    lines.push_back(line);
  }
  std::size_t at = 0;
  while (at < lines.size() && lines[at].empty()) ++at;
  ASSERT_LT(at, lines.size()) << screen.text;
  std::string verdict;
  for (; at < lines.size() && !lines[at].empty(); ++at) verdict += lines[at] + " ";
  EXPECT_EQ(verdict.rfind(check.starts, 0), 0u) << verdict;
  const bool tally = verdict.find("; no warnings ") != std::string::npos ||
                     verdict.find(" warning: ") != std::string::npos ||
                     verdict.find(" warnings: ") != std::string::npos ||
                     verdict.find(" error: ") != std::string::npos ||
                     verdict.find(" errors: ") != std::string::npos;
  EXPECT_TRUE(tally) << verdict;
  const auto findings = std::find(lines.begin(), lines.end(), "Findings");
  const auto table = std::find_if(lines.begin(), lines.end(), [&](const std::string& line) {
    return line.find_first_not_of(' ') != std::string::npos &&
           line.substr(line.find_first_not_of(' ')).rfind(check.first_table, 0) == 0;
  });
  EXPECT_NE(table, lines.end()) << screen.text;
  if (findings != lines.end()) {
    EXPECT_LT(findings, table) << screen.text;
  }
  const bool warned = verdict.find("; no warnings ") == std::string::npos;
  if (warned) {
    EXPECT_NE(findings, lines.end()) << "a tally without findings:\n" << screen.text;
  }
}

TEST(TerminalVerdictTest, EveryReportOpensWithItsVerdict) {
  std::vector<std::string> verbose = {"verbose"};
  verbose.insert(verbose.end(), kTinyModel.begin(), kTinyModel.end());
  std::vector<std::string> run = {"run", "--", DLCHECK_BINARY, "worker"};
  run.insert(run.end(), kTinyModel.begin(), kTinyModel.end() - 2);
  const std::vector<VerdictCheck> checks = {
      {{"parse", testing::DataPath("verbose/torch_cnn_2.6.3.log")}, "Primitives", "oneDNN ran "},
      {{"parse", testing::DataPath("verbose/why_lines.txt")}, "Primitives", "oneDNN ran "},
      {verbose, "Primitives", "mlp: oneDNN ran "},
      {run, "Primitives", ""},
      {{"platform", "--cpuid-dump", testing::DataPath("cpuid/intel-core-i7-4770-cpu.test")},
       "Features",
       ""},
      // perf sampling a program that prints nothing itself (CI runs as root, as for profile's
      // own tests).
      {{"profile", "--no-off-cpu", "--", "/usr/bin/python3", "-c", "sum(range(30000000))"},
       "CPU time by class",
       ""},
      {{"dispatch", "--model", "mlp", "--iters", "2", "--warmup", "0", "--traced", "1", "--batch",
        "16", "--isa", "sse41,avx2"},
       "Per primitive",
       "swept "},
  };
  for (const VerdictCheck& check : checks) {
    for (const unsigned short columns : {std::uint16_t{80}, std::uint16_t{120}}) {
      ExpectVerdictFirst(check, columns);
    }
  }
}

TEST_F(TerminalFilesTest, FleetOpensWithItsVerdict) {
  for (const auto& [host, dump] : std::vector<std::pair<std::string, std::string>>{
           {"node1", "intel-core-i7-4770-cpu.test"},
           {"node2", "amd-ryzen-9-7900x-12-core-processor.test"}}) {
    const auto r = RunDlcheck(
        {"platform", "--cpuid-dump", testing::DataPath("cpuid/" + dump), "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Write(host + ".json", r.out);
  }
  ExpectVerdictFirst({{"fleet", dir_.string()}, "Groups", "2 hosts in 2 groups"}, 80);
}

// The verdict of a recorded log counts what the JSON report counts.
TEST(TerminalVerdictTest, ParseVerdictCountsTheLogsPrimitives) {
  const std::string log = testing::DataPath("verbose/torch_cnn_2.6.3.log");
  const testing::RunResult json = RunDlcheck({"parse", "--format", "json", log});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  const auto rows = doc["summary"]["rows"].get<long>();
  const auto execs = doc["summary"]["execs"].get<long>();
  const testing::RunResult piped = RunDlcheck({"parse", log});
  const std::string first_line = piped.out.substr(0, piped.out.find('\n'));
  EXPECT_EQ(first_line.rfind("oneDNN ran " + std::to_string(rows) +
                                 " primitives: " + std::to_string(execs) + " executions, ",
                             0),
            0u)
      << first_line;
}

}  // namespace
}  // namespace dlcheck
