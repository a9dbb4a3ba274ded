#include "cli/model_options.h"

#include <map>

namespace dlcheck::cli {

void AddModelOptions(CLI::App& sub, dispatch::ModelRunOptions& o) {
  static const std::map<std::string, mlp::ModelKind> kModels = {{"mlp", mlp::ModelKind::kMlp},
                                                                {"cnn", mlp::ModelKind::kCnn}};
  static const std::map<std::string, mlp::DType> kDTypes = {{"f32", mlp::DType::kF32},
                                                            {"bf16", mlp::DType::kBf16}};
  static const std::map<std::string, mlp::Backend> kBackends = {{"onednn", mlp::Backend::kOneDnn},
                                                                {"scalar", mlp::Backend::kScalar}};
  sub.add_option("-m,--model", o.model.model, "the model: mlp (default) or cnn")
      ->transform(CLI::CheckedTransformer(kModels, CLI::ignore_case))
      ->default_str("mlp");
  sub.add_option("--layers", o.model.layers,
                 "MLP layer sizes on 784 inputs, the last one 10 (default 128,64,10)")
      ->delimiter(',')
      ->expected(1, 32);
  sub.add_option("-b,--batch", o.model.batch, "samples per step (default 100)")
      ->check(CLI::Range(1, 16384));
  sub.add_option("-n,--iters", o.iters, "timed steps, verbose off (default 50)")
      ->check(CLI::Range(0, 1000000));
  sub.add_option("--warmup", o.warmup, "untimed steps before timing (default 5)")
      ->check(CLI::Range(0, 1000000));
  sub.add_option("--traced", o.traced, "steps with verbose on, reported per primitive (default 3)")
      ->check(CLI::Range(1, 100000));
  sub.add_option("--seed", o.model.seed, "seed of the weights and synthetic data (default 1)");
  sub.add_option("--lr", o.model.lr, "SGD learning rate (default 0.1)")->check(CLI::PositiveNumber);
  sub.add_option("--dtype", o.model.dtype, "compute data type: f32 (default) or bf16")
      ->transform(CLI::CheckedTransformer(kDTypes, CLI::ignore_case))
      ->default_str("f32");
  sub.add_option("--backend", o.backend,
                 "onednn (default; scalar kernels where oneDNN cannot) or scalar")
      ->transform(CLI::CheckedTransformer(kBackends, CLI::ignore_case))
      ->default_str("onednn");
  sub.add_option("--data", o.data_dir,
                 "MNIST-format IDX directory (e.g. /usr/share/datasets/fashion-mnist): train "
                 "on it and report test accuracy");
}

}  // namespace dlcheck::cli
