// SPDX-License-Identifier: Apache-2.0
// The model options are described once (dispatch::VisitModelOptions): the worker's argv that
// WorkerArguments writes must read back through the CLI options into the same options.
#include "cli/model_options.h"

#include <gtest/gtest.h>

namespace dlcheck::cli {
namespace {

dispatch::ModelRunOptions ReadBack(const std::vector<std::string>& args) {
  dispatch::ModelRunOptions parsed;
  CLI::App app;
  auto* worker = app.add_subcommand("worker");
  AddWorkerOptions(*worker, parsed);
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 parses from the back
  app.parse(reversed);
  return parsed;
}

void ExpectSame(const dispatch::ModelRunOptions& a, const dispatch::ModelRunOptions& b) {
  EXPECT_EQ(a.model.model, b.model.model);
  EXPECT_EQ(a.model.layers, b.model.layers);
  EXPECT_EQ(a.model.batch, b.model.batch);
  EXPECT_EQ(a.model.lr, b.model.lr);
  EXPECT_EQ(a.model.seed, b.model.seed);
  EXPECT_EQ(a.model.dtype, b.model.dtype);
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(a.warmup, b.warmup);
  EXPECT_EQ(a.iters, b.iters);
  EXPECT_EQ(a.traced, b.traced);
  EXPECT_EQ(a.data_dir, b.data_dir);
  EXPECT_EQ(a.cpuset, b.cpuset);
  EXPECT_EQ(a.peak, b.peak);
}

TEST(ModelOptionsTest, WorkerArgumentsReadBackAsTheSameOptions) {
  dispatch::ModelRunOptions o;
  o.model = {.model = mlp::ModelKind::kCnn,
             .layers = {32, 10},
             .batch = 7,
             .lr = 0.0123f,
             .seed = 18446744073709551615ull,
             .dtype = mlp::DType::kBf16};
  o.backend = mlp::Backend::kScalar;
  o.warmup = 2;
  o.iters = 3;
  o.traced = 4;
  o.data_dir = "/data/fashion mnist";
  o.cpuset = "0-1";
  o.peak = true;
  const std::vector<std::string> args = dispatch::WorkerArguments(o);
  ASSERT_EQ(args.front(), "worker");
  ExpectSame(ReadBack(args), o);
}

TEST(ModelOptionsTest, DefaultsReadBackAndEmptyOptionsAreLeftOut) {
  const dispatch::ModelRunOptions defaults;
  const std::vector<std::string> args = dispatch::WorkerArguments(defaults);
  for (const char* absent : {"--data", "--cpuset", "--peak"}) {
    EXPECT_EQ(std::find(args.begin(), args.end(), absent), args.end()) << absent;
  }
  ExpectSame(ReadBack(args), defaults);
}

TEST(ModelOptionsTest, UserCommandsDoNotTakeTheWorkersOptions) {
  dispatch::ModelRunOptions o;
  CLI::App app;
  AddModelOptions(app, o);
  EXPECT_NE(app.get_option_no_throw("--batch"), nullptr);
  EXPECT_EQ(app.get_option_no_throw("--cpuset"), nullptr);
  EXPECT_EQ(app.get_option_no_throw("--peak"), nullptr);
}

}  // namespace
}  // namespace dlcheck::cli
