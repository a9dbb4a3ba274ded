#pragma once
// The model options shared by `verbose` and the hidden `worker` (and later `dispatch`, `check`).

#include <CLI/CLI.hpp>

#include "dispatch/model_worker.h"

namespace dlcheck::cli {

/// --model, --layers, --batch, --iters, --warmup, --traced, --seed, --lr, --dtype, --backend,
/// --data.
void AddModelOptions(CLI::App& sub, dispatch::ModelRunOptions& options);

}  // namespace dlcheck::cli
