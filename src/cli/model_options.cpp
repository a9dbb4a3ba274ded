#include "cli/model_options.h"

#include "cli/enum_option.h"

namespace dlcheck::cli {

void AddModelOptions(CLI::App& sub, dispatch::ModelRunOptions& o) {
  AddEnumOption(sub, "-m,--model", o.model.model,
                {{"mlp", mlp::ModelKind::kMlp}, {"cnn", mlp::ModelKind::kCnn}},
                "the model: mlp (default) or cnn", "MODEL");
  AddEnumOption(sub, "--dtype", o.model.dtype,
                {{"f32", mlp::DType::kF32}, {"bf16", mlp::DType::kBf16}},
                "compute data type: f32 (default) or bf16", "DTYPE");
  AddEnumOption(sub, "--backend", o.backend,
                {{"onednn", mlp::Backend::kOneDnn}, {"scalar", mlp::Backend::kScalar}},
                "onednn (default; scalar kernels where oneDNN cannot) or scalar", "BACKEND");

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
  sub.add_option("--data", o.data_dir,
                 "MNIST-format IDX directory (e.g. /usr/share/datasets/fashion-mnist): train "
                 "on it and report test accuracy");
}

}  // namespace dlcheck::cli
