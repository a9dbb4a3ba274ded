// SPDX-License-Identifier: Apache-2.0
#include "mlp/trainer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <set>

#include "dispatch/onednn_info.h"
#include "support/test_files.h"

namespace dlcheck::mlp {
namespace {

// Records what a trainer reports, as "layer:phase" and scalar events.
class Recorder : public Observer {
 public:
  void OnLayer(std::string_view layer, std::string_view phase) override {
    marks.push_back(std::string(layer) + ":" + std::string(phase));
  }
  void OnScalarOp(const ScalarOpEvent& event) override { events.push_back(event); }
  std::vector<std::string> marks;
  std::vector<ScalarOpEvent> events;
};

std::unique_ptr<Trainer> Make(Backend backend, const ModelConfig& config,
                              Observer* observer = nullptr) {
  StatusOr<std::unique_ptr<Trainer>> trainer = MakeTrainer(backend, config, observer);
  EXPECT_TRUE(trainer.ok()) << trainer.status().message();
  return trainer.ok() ? std::move(*trainer) : nullptr;
}

ModelConfig Mlp(int batch = 16) {
  ModelConfig config;
  config.batch = batch;
  return config;
}

ModelConfig Cnn(int batch = 8) {
  ModelConfig config;
  config.model = ModelKind::kCnn;
  config.batch = batch;
  config.lr = 0.05f;
  return config;
}

TEST(ValidateTest, RejectsBadConfigurationsWithUsageErrors) {
  ModelConfig config = Mlp();
  config.batch = 0;
  EXPECT_EQ(Validate(config).message(), "--batch must be between 1 and 16384");
  EXPECT_EQ(Validate(config).code(), ExitCode::kUsage);
  config.batch = 16385;
  EXPECT_EQ(Validate(config).message(), "--batch must be between 1 and 16384");
  config.batch = 16384;
  EXPECT_TRUE(Validate(config).ok());
  config = Mlp();
  config.lr = 0;
  EXPECT_EQ(Validate(config).message(), "--lr must be a positive number");
  config.lr = NAN;
  EXPECT_EQ(Validate(config).message(), "--lr must be a positive number");
  config = Mlp();
  config.layers = {};
  EXPECT_EQ(Validate(config).message(), "--layers needs at least one layer size");
  config.layers = {128, 0, 10};
  EXPECT_EQ(Validate(config).message(), "--layers sizes must be between 1 and 16384");
  config.layers = {16385, 10};
  EXPECT_EQ(Validate(config).message(), "--layers sizes must be between 1 and 16384");
  config.layers = std::vector<int>(33, 10);
  EXPECT_EQ(Validate(config).message(), "--layers takes at most 32 layers");
  config.layers = std::vector<int>(32, 10);
  EXPECT_TRUE(Validate(config).ok());
  config.layers = {128, 64};
  EXPECT_EQ(Validate(config).message(), "--layers must end with 10, the number of classes");
  StatusOr<std::unique_ptr<Trainer>> trainer = MakeTrainer(Backend::kOneDnn, config);
  ASSERT_FALSE(trainer.ok());
  EXPECT_EQ(trainer.status().code(), ExitCode::kUsage);
  config.model = ModelKind::kCnn;  // the CNN ignores --layers
  EXPECT_TRUE(Validate(config).ok());
}

TEST(DescribeModelTest, MlpLayersHaveStableNamesAndShapes) {
  ModelConfig config = Mlp(32);
  config.layers = {128, 64, 10};
  std::vector<LayerSpec> layers = DescribeModel(config);
  std::vector<std::string> names;
  for (const LayerSpec& layer : layers) names.push_back(layer.name);
  EXPECT_EQ(names, (std::vector<std::string>{"fc1", "relu1", "fc2", "relu2", "fc3", "loss"}));
  EXPECT_EQ(layers[0].in, (Shape{32, 784}));
  EXPECT_EQ(layers[0].out, (Shape{32, 128}));
  EXPECT_FALSE(layers[0].needs_diff_src);
  EXPECT_TRUE(layers[2].needs_diff_src);
  EXPECT_EQ(layers[4].out, (Shape{32, 10}));
}

TEST(DescribeModelTest, CnnIsLeNet) {
  std::vector<LayerSpec> layers = DescribeModel(Cnn(8));
  std::vector<std::string> names;
  for (const LayerSpec& layer : layers) names.push_back(layer.name);
  EXPECT_EQ(names, (std::vector<std::string>{"conv1", "relu1", "pool1", "conv2", "relu2", "pool2",
                                             "fc1", "relu3", "fc2", "loss"}));
  EXPECT_EQ(layers[0].out, (Shape{8, 20, 24, 24}));
  EXPECT_EQ(layers[2].out, (Shape{8, 20, 12, 12}));
  EXPECT_EQ(layers[3].out, (Shape{8, 50, 8, 8}));
  EXPECT_EQ(layers[5].out, (Shape{8, 50, 4, 4}));
  EXPECT_EQ(layers[6].out, (Shape{8, 500}));
  EXPECT_EQ(layers[8].out, (Shape{8, 10}));
}

TEST(InitialParametersTest, DeterministicPerSeedAndBoundedByFanIn) {
  ModelConfig config = Cnn();
  const Parameters a = InitialParameters(config);
  const Parameters b = InitialParameters(config);
  EXPECT_EQ(a.weights, b.weights);
  EXPECT_EQ(a.layer, (std::vector<std::string>{"conv1", "conv2", "fc1", "fc2"}));
  ASSERT_EQ(a.weights[0].size(), 20u * 1 * 5 * 5);
  ASSERT_EQ(a.weights[2].size(), 500u * 800);
  for (float w : a.weights[0]) EXPECT_LE(std::fabs(w), 1.0f / 5.0f);  // fan_in 25
  config.seed = 2;
  EXPECT_NE(InitialParameters(config).weights, a.weights);
}

float MeanLossOverSteps(Trainer& trainer, const Dataset& data, int first, int count) {
  double sum = 0;
  for (int i = first; i < first + count; ++i) {
    sum += trainer.Step(GetBatch(data, i, trainer.config().batch));
  }
  return static_cast<float>(sum / count);
}

class BackendTest : public ::testing::TestWithParam<Backend> {};

TEST_P(BackendTest, MlpLossFallsOverFiftyStepsAndLearnsSeparableData) {
  const ModelConfig config = Mlp(32);
  std::unique_ptr<Trainer> trainer = Make(GetParam(), config);
  ASSERT_NE(trainer, nullptr);
  const Dataset data = MakeSyntheticData(640, 7);
  const float start = MeanLossOverSteps(*trainer, data, 0, 5);
  MeanLossOverSteps(*trainer, data, 5, 40);
  const float end = MeanLossOverSteps(*trainer, data, 45, 5);
  EXPECT_GT(start, 1.5f);  // about ln(10) for an untrained model
  EXPECT_LT(end, 0.5f * start);
  EXPECT_GT(Accuracy(*trainer, MakeSyntheticData(100, 8)), 0.9f);
}

// The CNN learns the synthetic task slowly from its small initial weights; on one repeated
// batch its loss falls within a few steps.
TEST_P(BackendTest, CnnLossFallsOnARepeatedBatch) {
  const ModelConfig config = Cnn(8);
  std::unique_ptr<Trainer> trainer = Make(GetParam(), config);
  ASSERT_NE(trainer, nullptr);
  const Dataset data = MakeSyntheticData(8, 3);
  const float start = trainer->Step(GetBatch(data, 0, 8));
  float end = start;
  for (int i = 0; i < 9; ++i) end = trainer->Step(GetBatch(data, 0, 8));
  EXPECT_GT(start, 2.0f);
  EXPECT_LT(end, 0.75f * start);
}

// Real data: the 100 Fashion-MNIST samples in tests/data/mnist (README there).
TEST_P(BackendTest, MlpLearnsTheFashionMnistSample) {
  const std::string dir = dlcheck::testing::DataPath("mnist/");
  StatusOr<Dataset> data =
      ReadIdx(dir + "t10k-images-idx3-ubyte.gz", dir + "t10k-labels-idx1-ubyte.gz");
  ASSERT_TRUE(data.ok()) << data.status().message();
  std::unique_ptr<Trainer> trainer = Make(GetParam(), Mlp(20));
  const float before = Accuracy(*trainer, *data);
  const float start = MeanLossOverSteps(*trainer, *data, 0, 5);
  MeanLossOverSteps(*trainer, *data, 5, 30);
  const float end = MeanLossOverSteps(*trainer, *data, 35, 5);
  EXPECT_LT(end, 0.75f * start);                        // 2.3 -> 1.4 on every backend
  EXPECT_GT(Accuracy(*trainer, *data), before + 0.3f);  // it fits the samples it saw
}

INSTANTIATE_TEST_SUITE_P(Backends, BackendTest,
                         ::testing::Values(Backend::kOneDnn, Backend::kScalar),
                         [](const auto& param_info) {
                           return std::string(Name(param_info.param));
                         });

// Runs both backends from the same weights on the same batches and returns the largest
// deviation over `steps` steps (each step's gradients, after the updates before it).
Deviation CompareBackends(const ModelConfig& config, int steps) {
  std::unique_ptr<Trainer> onednn = Make(Backend::kOneDnn, config);
  std::unique_ptr<Trainer> scalar = Make(Backend::kScalar, config);
  const Dataset data = MakeSyntheticData(config.batch * steps, 11);
  Deviation worst;
  for (int i = 0; i < steps; ++i) {
    onednn->Step(GetBatch(data, i, config.batch));
    scalar->Step(GetBatch(data, i, config.batch));
    Deviation d = CompareSnapshots(onednn->TakeSnapshot(), scalar->TakeSnapshot());
    if (d.value > worst.value) worst = d;
  }
  return worst;
}

TEST(AgreementTest, MlpF32OneDnnMatchesScalar) {
  const Deviation d = CompareBackends(Mlp(16), 3);
  RecordProperty("max_deviation", std::to_string(d.value));
  EXPECT_LE(d.value, kToleranceF32) << d.tensor;
}

TEST(AgreementTest, CnnF32OneDnnMatchesScalar) {
  const Deviation d = CompareBackends(Cnn(8), 2);
  RecordProperty("max_deviation", std::to_string(d.value));
  EXPECT_LE(d.value, kToleranceF32) << d.tensor;
}

// Invariant on the live host: where oneDNN creates bf16 primitives they agree with the
// scalar kernels' bf16 emulation; where it cannot, the trainer says so for every layer.
TEST(AgreementTest, Bf16AgreesOrFallsBackWithReason) {
  for (ModelKind model : {ModelKind::kMlp, ModelKind::kCnn}) {
    ModelConfig config = model == ModelKind::kMlp ? Mlp(16) : Cnn(8);
    config.dtype = DType::kBf16;
    std::unique_ptr<Trainer> trainer = Make(Backend::kOneDnn, config);
    ASSERT_NE(trainer, nullptr);
    const std::string isa = dispatch::OneDnnEffectiveIsa();
    if (trainer->backend() == Backend::kOneDnn) {
      EXPECT_TRUE(trainer->fallbacks().empty());
      // oneDNN 2.6 has no bf16 below AVX-512.
      EXPECT_TRUE(isa.starts_with("avx512")) << isa;
      const Deviation d = CompareBackends(config, 1);
      RecordProperty(std::string(Name(model)) + "_bf16_max_deviation", std::to_string(d.value));
      EXPECT_LE(d.value, kToleranceBf16) << d.tensor;
    } else {
      EXPECT_NE(isa, "avx512_core_bf16");
      const std::vector<Fallback> fallbacks = trainer->fallbacks();
      ASSERT_EQ(fallbacks.size(), trainer->layers().size());
      EXPECT_NE(fallbacks.front().reason.find("oneDNN cannot create"), std::string::npos);
    }
  }
}

// In a fresh process capped at AVX2 (ONEDNN_MAX_CPU_ISA is read once, at oneDNN's first use),
// oneDNN 2.6 has no bf16 kernels: the trainer must fall back to scalar kernels, say why for
// every layer, and still train.
void RunCappedBf16AndExit() {
  setenv("ONEDNN_MAX_CPU_ISA", "AVX2", 1);
  ModelConfig config = Mlp(8);
  config.dtype = DType::kBf16;
  Recorder recorder;
  StatusOr<std::unique_ptr<Trainer>> trainer = MakeTrainer(Backend::kOneDnn, config, &recorder);
  if (!trainer.ok() || (*trainer)->backend() != Backend::kScalar) std::exit(1);
  const std::vector<Fallback> fallbacks = (*trainer)->fallbacks();
  if (fallbacks.size() != 6 || fallbacks[0].layer != "fc1") std::exit(2);
  if (fallbacks[0].reason !=
      "oneDNN cannot create inner_product forward_training (bf16): unimplemented (could not "
      "create a primitive descriptor iterator)") {
    std::exit(3);
  }
  if (fallbacks[1].reason !=
      "the whole model runs on scalar kernels: layer fc1 has no oneDNN primitive") {
    std::exit(4);
  }
  const float loss = (*trainer)->Step(GetBatch(MakeSyntheticData(8, 1), 0, 8));
  if (!std::isfinite(loss) || recorder.events.empty()) std::exit(5);
  std::exit(0);
}

TEST(FallbackTest, Bf16UnderAvx2CapFallsBackToScalarWithReasons) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(RunCappedBf16AndExit(), ::testing::ExitedWithCode(0), "");
}

TEST(ObserverTest, OneDnnMarksEveryLayerAndPhaseInOrder) {
  ModelConfig config = Mlp(8);
  config.layers = {32, 10};
  Recorder recorder;
  std::unique_ptr<Trainer> trainer = Make(Backend::kOneDnn, config, &recorder);
  ASSERT_NE(trainer, nullptr);
  ASSERT_EQ(trainer->backend(), Backend::kOneDnn);
  // Creation: forward primitives in model order, backward from the loss down, then updates.
  const std::vector<std::string> create{
      "fc1:create", "relu1:create", "fc2:create", "loss:create", "loss:create",
      "fc2:create", "relu1:create", "fc1:create", "fc1:create",  "fc2:create"};
  EXPECT_EQ(recorder.marks, create);
  recorder.marks.clear();
  trainer->Step(GetBatch(MakeSyntheticData(8, 1), 0, 8));
  const std::vector<std::string> step{
      "fc1:forward",  "relu1:forward",  "fc2:forward",  "loss:forward", "loss:backward",
      "fc2:backward", "relu1:backward", "fc1:backward", "fc1:update",   "fc2:update"};
  EXPECT_EQ(recorder.marks, step);
  EXPECT_TRUE(recorder.events.empty());  // oneDNN prints its own verbose lines
}

TEST(ObserverTest, OneDnnPrimitivesCoverTheTrainingStep) {
  std::set<std::string> mlp_kinds;
  std::unique_ptr<Trainer> mlp = Make(Backend::kOneDnn, Mlp(8));
  for (const PrimitiveInfo& p : mlp->primitives()) {
    mlp_kinds.insert(p.primitive + "/" + p.prop_kind);
    EXPECT_FALSE(p.implementation.empty());
  }
  for (const char* kind :
       {"inner_product/forward_training", "inner_product/backward_data",
        "inner_product/backward_weights", "eltwise/forward_training", "eltwise/backward_data",
        "softmax_v2/forward_training", "softmax_v2/backward_data", "binary/undef"}) {
    EXPECT_TRUE(mlp_kinds.contains(kind)) << kind;
  }
  std::set<std::string> cnn_kinds;
  std::unique_ptr<Trainer> cnn = Make(Backend::kOneDnn, Cnn(8));
  for (const PrimitiveInfo& p : cnn->primitives())
    cnn_kinds.insert(p.primitive + "/" + p.prop_kind);
  for (const char* kind :
       {"convolution/forward_training", "convolution/backward_data", "convolution/backward_weights",
        "pooling_v2/forward_training", "pooling_v2/backward_data"}) {
    EXPECT_TRUE(cnn_kinds.contains(kind)) << kind;
  }
  EXPECT_TRUE(mlp->fallbacks().empty());
  EXPECT_TRUE(Make(Backend::kScalar, Mlp(8))->primitives().empty());
}

// One report shape whatever ran: the scalar kernels name their operations per layer as oneDNN
// names the primitives it creates for the same model (reorders aside: scalar kernels need none).
TEST(ObserverTest, ScalarOpsMatchOneDnnPrimitivesLayerByLayer) {
  for (const ModelConfig& config : {Mlp(4), Cnn(4)}) {
    std::set<std::string> onednn;
    std::unique_ptr<Trainer> trainer = Make(Backend::kOneDnn, config);
    ASSERT_EQ(trainer->backend(), Backend::kOneDnn);
    for (const PrimitiveInfo& p : trainer->primitives()) {
      if (p.primitive != "reorder") onednn.insert(p.layer + " " + p.primitive + " " + p.prop_kind);
    }
    Recorder recorder;
    Make(Backend::kScalar, config, &recorder);
    std::set<std::string> scalar;
    for (const ScalarOpEvent& e : recorder.events) {
      scalar.insert(e.layer + " " + e.primitive + " " + e.prop_kind);
    }
    EXPECT_EQ(scalar, onednn);
  }
}

TEST(ObserverTest, ScalarEventsDescribeEachOpLikeOneDnn) {
  Recorder recorder;
  std::unique_ptr<Trainer> trainer = Make(Backend::kScalar, Mlp(4), &recorder);
  ASSERT_NE(trainer, nullptr);
  EXPECT_EQ(trainer->backend(), Backend::kScalar);
  EXPECT_TRUE(trainer->fallbacks().empty());
  std::map<std::string, int> creates;
  for (const ScalarOpEvent& e : recorder.events) {
    EXPECT_EQ(e.operation, "create");
    ++creates[e.layer];
  }
  // fc1: forward, backward weights, two updates (no backward data for the first layer).
  EXPECT_EQ(creates["fc1"], 4);
  EXPECT_EQ(creates["fc2"], 5);
  EXPECT_EQ(creates["relu1"], 2);
  EXPECT_EQ(creates["loss"], 2);
  recorder.events.clear();
  trainer->Step(GetBatch(MakeSyntheticData(4, 1), 0, 4));
  ASSERT_FALSE(recorder.events.empty());
  ScalarOpEvent first = recorder.events.front();
  EXPECT_EQ(first.layer, "fc1");
  EXPECT_GE(first.time_ms, 0.0);
  first.time_ms = 0.25;
  EXPECT_EQ(ToVerboseLine(first),
            "onednn_verbose,exec,cpu,inner_product,dlcheck:scalar,forward_training,"
            "src_f32::blocked:ab:f0 wei_f32::blocked:ab:f0 bia_f32::blocked:a:f0 "
            "dst_f32::blocked:ab:f0,,,mb4ic784oc128,0.25");
  const ScalarOpEvent& last = recorder.events.back();
  EXPECT_EQ(last.layer, "fc3");
  EXPECT_EQ(last.primitive, "binary");
  EXPECT_EQ(last.aux, "alg:binary_add");
  EXPECT_EQ(last.problem, "10:10");
}

TEST(SnapshotTest, ZerosBeforeTheFirstStepThenNamedTensorsInModelOrder) {
  for (Backend backend : {Backend::kOneDnn, Backend::kScalar}) {
    std::unique_ptr<Trainer> trainer = Make(backend, Cnn(2));
    Snapshot before = trainer->TakeSnapshot();
    EXPECT_EQ(before.loss, 0.0f);
    std::vector<std::string> names;
    for (const Tensor& t : before.tensors) {
      names.push_back(t.name);
      for (float v : t.values) ASSERT_EQ(v, 0.0f) << t.name;
    }
    EXPECT_EQ(names,
              (std::vector<std::string>{"logits", "conv1.weight.grad", "conv1.bias.grad",
                                        "conv2.weight.grad", "conv2.bias.grad", "fc1.weight.grad",
                                        "fc1.bias.grad", "fc2.weight.grad", "fc2.bias.grad"}));
    EXPECT_EQ(before.tensors[0].values.size(), 2u * kNumClasses);
    EXPECT_EQ(before.tensors[5].values.size(), 500u * 800);
  }
}

TEST(StepTest, RejectsABatchOfAnotherSize) {
  for (Backend backend : {Backend::kOneDnn, Backend::kScalar}) {
    std::unique_ptr<Trainer> trainer = Make(backend, Mlp(8));
    const Dataset data = MakeSyntheticData(16, 1);
    EXPECT_TRUE(std::isnan(trainer->Step(GetBatch(data, 0, 4))));
    EXPECT_TRUE(std::isnan(trainer->Step(GetBatch(data, 0, 16))));
    EXPECT_EQ(trainer->Forward(GetBatch(data, 0, 16)).size(), 8u * kNumClasses);
    EXPECT_TRUE(std::isfinite(trainer->Step(GetBatch(data, 0, 8))));
  }
}

TEST(AccuracyTest, HandlesAPartialLastBatch) {
  std::unique_ptr<Trainer> trainer = Make(Backend::kScalar, Mlp(16));
  const Dataset data = MakeSyntheticData(640, 5);
  for (int i = 0; i < 30; ++i) trainer->Step(GetBatch(data, i, 16));
  const Dataset test = MakeSyntheticData(37, 6);  // 2 full batches and 5 samples
  const float accuracy = Accuracy(*trainer, test);
  EXPECT_GT(accuracy, 0.9f);
  EXPECT_LE(accuracy, 1.0f);
  EXPECT_EQ(Accuracy(*trainer, Dataset{}), 0.0f);
}

Snapshot SmallSnapshot() {
  Snapshot s;
  s.loss = 2.0f;
  s.tensors = {{"logits", {1.0f, -2.0f}}, {"fc1.weight.grad", {0.5f, 0.0f, -0.25f}}};
  return s;
}

TEST(DeviationTest, RelativeToEachTensorsLargestMagnitude) {
  const Snapshot a = SmallSnapshot();
  EXPECT_EQ(MaxDeviation(a, a), 0.0);
  Snapshot b = a;
  b.tensors[1].values[2] = -0.2f;  // 0.05 off, largest magnitude 0.5
  Deviation d = CompareSnapshots(a, b);
  EXPECT_NEAR(d.value, 0.1, 1e-6);
  EXPECT_EQ(d.tensor, "fc1.weight.grad");
  b = a;
  b.loss = 2.2f;
  d = CompareSnapshots(a, b);
  EXPECT_NEAR(d.value, 0.2 / 2.2, 1e-6);
  EXPECT_EQ(d.tensor, "loss");
  b = a;
  b.tensors[0].values[0] = NAN;
  EXPECT_TRUE(std::isinf(MaxDeviation(a, b)));
  b = a;
  b.tensors.pop_back();
  EXPECT_EQ(CompareSnapshots(a, b).tensor, "tensor count");
  b = a;
  b.tensors[1].name = "fc2.weight.grad";
  EXPECT_TRUE(std::isinf(MaxDeviation(a, b)));
}

TEST(DeviationTest, TolerancesPerDataType) {
  EXPECT_EQ(Tolerance(DType::kF32), kToleranceF32);
  EXPECT_EQ(Tolerance(DType::kBf16), kToleranceBf16);
  EXPECT_LT(kToleranceF32, kToleranceBf16);
}

}  // namespace
}  // namespace dlcheck::mlp
