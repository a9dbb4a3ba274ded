// SPDX-License-Identifier: Apache-2.0
// OutputSplitter: the same verbose lines and the same program bytes however the stream is cut.
#include "verbose/output_splitter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace dlcheck::verbose {
namespace {

struct Collected : OutputSink {
  std::vector<std::string> verbose;
  int too_long = 0;
  std::string program;
  void OnVerboseLine(std::string_view line) override { verbose.emplace_back(line); }
  void OnTooLongLine() override { ++too_long; }
  void OnProgramOutput(std::string_view bytes) override { program.append(bytes); }
};

// Feeds `stream` in pieces of `piece` bytes (0: all at once).
Collected Split(const std::string& stream, std::size_t piece, std::size_t max_line = 1 << 20) {
  Collected sink;
  OutputSplitter splitter(sink, max_line);
  if (piece == 0) piece = stream.size();
  for (std::size_t at = 0; at < stream.size(); at += piece) {
    splitter.Feed(std::string_view(stream).substr(at, piece));
  }
  splitter.Finish();
  return sink;
}

const std::string kExec = "onednn_verbose,exec,cpu,reorder,jit:uni,undef,x,,,8x8,0.01";

TEST(OutputSplitterTest, SameResultForEveryCut) {
  const std::string stream = "loss 1\n50%\r" + kExec + "\r\nxonednn_verbose,not,a,marker\n" +
                             "epoch: " + kExec + "\ndnnl_verbose,exec,cpu\nbin\x01\xff" +
                             "\nlast onednn_verb";
  const Collected whole = Split(stream, 0);
  EXPECT_EQ(whole.verbose, (std::vector<std::string>{kExec, kExec, "dnnl_verbose,exec,cpu"}));
  EXPECT_EQ(whole.program,
            "loss 1\n50%\rxonednn_verbose,not,a,marker\nepoch: bin\x01\xff\nlast onednn_verb");
  for (std::size_t piece = 1; piece < 40; ++piece) {
    const Collected cut = Split(stream, piece);
    EXPECT_EQ(cut.verbose, whole.verbose) << "pieces of " << piece;
    EXPECT_EQ(cut.program, whole.program) << "pieces of " << piece;
  }
}

TEST(OutputSplitterTest, PartialLinesArePassedOnAtOnceButAMarkerStartIsHeld) {
  Collected sink;
  OutputSplitter splitter(sink);
  splitter.Feed("progress 10%\rprogress 20%");
  EXPECT_EQ(sink.program, "progress 10%\rprogress 20%");
  splitter.Feed("\rone");
  EXPECT_EQ(sink.program, "progress 10%\rprogress 20%\r");  // "one" may start onednn_verbose,
  splitter.Feed("dnn_verbose,info,oneDNN v2.6.3");
  splitter.Feed("\n");
  EXPECT_EQ(sink.verbose, std::vector<std::string>{"onednn_verbose,info,oneDNN v2.6.3"});
  EXPECT_EQ(splitter.verbose_lines(), 1u);
}

TEST(OutputSplitterTest, TooLongVerboseLineIsCountedNotKept) {
  const std::string stream = "onednn_verbose," + std::string(100, 'a') + "\nafter\n" + kExec;
  for (std::size_t piece : {0, 7}) {
    const Collected c = Split(stream, piece, 64);
    EXPECT_EQ(c.too_long, 1);
    EXPECT_EQ(c.program, "after\n");
    EXPECT_EQ(c.verbose, std::vector<std::string>{kExec});
  }
}

}  // namespace
}  // namespace dlcheck::verbose
