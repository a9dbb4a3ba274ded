// SPDX-License-Identifier: Apache-2.0
#pragma once
// Pieces both backends share; not part of the module's interface.

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "mlp/trainer.h"

namespace dlcheck::mlp::internal {

/// The scalar trainer; `fallbacks` are reported by fallbacks() (a whole-model fallback).
std::unique_ptr<Trainer> MakeScalarTrainer(const ModelConfig& config, Observer* observer,
                                           std::vector<Fallback> fallbacks);

/// The oneDNN trainer, or null with the reasons in `fallbacks` when a primitive cannot be
/// created.
std::unique_ptr<Trainer> MakeOneDnnTrainer(const ModelConfig& config, Observer* observer,
                                           std::vector<Fallback>& fallbacks);

/// oneDNN's problem descriptor text for a layer's op, e.g. "mb100ic784oc128".
std::string ProblemString(const LayerSpec& layer);
/// "8x20x24x24" (or "100x10" for fully connected shapes).
std::string DimsString(Shape shape);

/// Copies `batch` into `input` (config.batch x 784), repeating the last sample to fill a
/// short batch.
void CopyBatchImages(const Batch& batch, std::span<float> input);
/// Softmax cross-entropy from log-probabilities: writes d(loss)/d(logprob) = -onehot/N into
/// `diff` and returns the mean loss.
float NllLoss(std::span<const float> log_probs, std::span<const std::int32_t> labels,
              std::span<float> diff, int classes);

}  // namespace dlcheck::mlp::internal
