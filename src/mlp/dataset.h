// SPDX-License-Identifier: Apache-2.0
#pragma once
// Training data: deterministic synthetic images with separable classes, or MNIST-format IDX
// files (plain or gzipped), e.g. Debian's dataset-fashion-mnist.
//
//   Dataset data = MakeSyntheticData(1000, /*seed=*/1);
//   StatusOr<IdxDataSets> fashion = LoadIdx("/usr/share/datasets/fashion-mnist");
//   Batch batch = GetBatch(data, step, config.batch);

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"

namespace dlcheck::mlp {

/// Labelled 28x28 single-channel images, pixels scaled to [0, 1], labels 0..9.
struct Dataset {
  std::vector<float> images;  ///< size() * 784 pixels, image after image, row-major
  std::vector<std::int32_t> labels;
  int size() const { return static_cast<int>(labels.size()); }
};

/// A view of `size` consecutive samples of a Dataset.
struct Batch {
  std::span<const float> images;
  std::span<const std::int32_t> labels;
  int size() const { return static_cast<int>(labels.size()); }
};

/// Batch number `index` of `batch_size` samples, cycling through the data set
/// (samples start at (index mod floor(size / batch_size)) * batch_size). Needs
/// data.size() >= batch_size.
Batch GetBatch(const Dataset& data, int index, int batch_size);

/// `samples` images, ten classes. Each class is a fixed random pattern (the same for every
/// seed) plus per-sample noise from `seed`, clamped to [0, 1]: linearly separable, so a
/// model's loss falls, and data from another seed is a test set of the same task.
Dataset MakeSyntheticData(int samples, std::uint64_t seed);

/// One IDX images file and its labels file (each plain or gzipped: zlib reads both).
/// Errors (exit code 3) name the file: missing, not IDX, not 28x28, truncated, counts differ,
/// a label above 9.
StatusOr<Dataset> ReadIdx(const std::string& images_path, const std::string& labels_path);

/// The training and test sets of an MNIST-format directory.
struct IdxDataSets {
  Dataset train;
  Dataset test;
};
/// Reads `dir`/train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte and
/// t10k-labels-idx1-ubyte, each with or without `.gz` (the plain name wins when both exist).
StatusOr<IdxDataSets> LoadIdx(const std::string& dir);

}  // namespace dlcheck::mlp
