// SPDX-License-Identifier: Apache-2.0
#include "mlp/dataset.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string_view>

#include "mlp/model.h"

namespace dlcheck::mlp {

Batch GetBatch(const Dataset& data, int index, int batch_size) {
  const int batches = std::max(1, data.size() / batch_size);
  const std::size_t start = static_cast<std::size_t>(index % batches) * batch_size;
  const std::size_t count = std::min<std::size_t>(batch_size, data.labels.size() - start);
  return Batch{std::span(data.images).subspan(start * kImageSize, count * kImageSize),
               std::span(data.labels).subspan(start, count)};
}

Dataset MakeSyntheticData(int samples, std::uint64_t seed) {
  // The class patterns are the same for every seed (the task), bright or dark pixels (0.1 or
  // 0.9), so classes sit far apart; the seed picks the samples and their noise.
  Random pattern_random(0xDA7Aull);
  std::vector<float> patterns(kNumClasses * kImageSize);
  for (float& p : patterns) p = pattern_random.Uniform() < 0.5f ? 0.1f : 0.9f;
  Random random(seed ^ 0x5A3Dull);
  Dataset data;
  data.images.resize(static_cast<std::size_t>(std::max(samples, 0)) * kImageSize);
  data.labels.resize(std::max(samples, 0));
  for (int i = 0; i < samples; ++i) {
    const int label = static_cast<int>(random.Next() % kNumClasses);
    data.labels[i] = label;
    float* image = &data.images[static_cast<std::size_t>(i) * kImageSize];
    for (int p = 0; p < kImageSize; ++p) {
      image[p] =
          std::clamp(patterns[label * kImageSize + p] + random.Uniform(-0.3f, 0.3f), 0.0f, 1.0f);
    }
  }
  return data;
}

namespace {

struct GzCloser {
  void operator()(gzFile file) const { gzclose(file); }
};
using GzFile = std::unique_ptr<std::remove_pointer_t<gzFile>, GzCloser>;

std::uint32_t BigEndian(const unsigned char* bytes) {
  return (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) |
         (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]};
}

// zlib's words for why a read stopped ("incorrect data check" for a bad CRC), or "" when it did
// not fail. gzerror prefixes them with the path, which the caller says already.
std::string GzErrorText(gzFile file, const std::string& path) {
  int code = Z_OK;
  const char* text = gzerror(file, &code);
  if (code == Z_OK || code == Z_STREAM_END || text == nullptr) return "";
  std::string_view why = text;
  if (why.starts_with(path + ": ")) why.remove_prefix(path.size() + 2);
  return std::string(why);
}

// Reads exactly `size` bytes. Errors: the gzip data is corrupt (zlib's reason: a bad CRC or
// length, bad deflate data), else the file ends early ("truncated `what`").
Status ReadExactly(gzFile file, const std::string& path, unsigned char* out, std::size_t size,
                   std::string_view what) {
  while (size > 0) {
    const unsigned chunk = static_cast<unsigned>(std::min<std::size_t>(size, 1u << 30));
    const int got = gzread(file, out, chunk);
    if (got <= 0) {
      if (const std::string why = GzErrorText(file, path); !why.empty()) {
        return InputError(path + ": corrupt gzip data (" + why + ")");
      }
      return InputError(path + ": truncated " + std::string(what));
    }
    out += got;
    size -= static_cast<std::size_t>(got);
  }
  return {};
}

// The most an IDX file's data may hold: Fashion-MNIST's training images are 47 MB.
constexpr std::size_t kMaxIdxBytes = std::size_t{1} << 30;
// Read in steps of this many bytes, so that memory follows the data that is there, not the size
// a header claims.
constexpr std::size_t kIdxStep = std::size_t{1} << 22;

// The `total` bytes after the header, then the end of the file: a file cut short, longer than
// its header says, or whose gzip check fails (CRC, length) is an error.
StatusOr<std::vector<unsigned char>> ReadIdxData(gzFile file, const std::string& path,
                                                 std::size_t total) {
  std::vector<unsigned char> bytes;
  const std::string cut =
      "IDX data (expected " + std::to_string(total) + " bytes after the header)";
  while (bytes.size() < total) {
    const std::size_t at = bytes.size();
    bytes.resize(at + std::min(kIdxStep, total - at));
    if (Status read = ReadExactly(file, path, bytes.data() + at, bytes.size() - at, cut);
        !read.ok()) {
      return read;
    }
  }
  unsigned char extra = 0;
  const int after = gzread(file, &extra, 1);
  if (const std::string why = GzErrorText(file, path); after < 0 || !why.empty()) {
    return InputError(path + ": corrupt gzip data (" + why + ")");
  }
  if (after > 0) {
    return InputError(path + ": more data than its IDX header says (" + std::to_string(total) +
                      " bytes after the header)");
  }
  return bytes;
}

// A file named `.gz` that zlib reads as plain bytes has a damaged gzip header.
bool NamedGzipButPlain(gzFile file, const std::string& path) {
  return path.size() > 3 && path.compare(path.size() - 3, 3, ".gz") == 0 && gzdirect(file) != 0;
}

// Reads an unsigned-byte IDX file with `dims` dimensions (magic 0x0000080N).
StatusOr<std::vector<unsigned char>> ReadIdxBytes(const std::string& path, int dims,
                                                  std::vector<std::uint32_t>& shape) {
  GzFile file(gzopen(path.c_str(), "rb"));
  if (!file) return InputError("cannot open IDX file " + path);
  unsigned char header[4 + 4 * 3];
  if (Status read = ReadExactly(file.get(), path, header, 4, "IDX header"); !read.ok()) return read;
  if (NamedGzipButPlain(file.get(), path)) {
    return InputError(path + ": named .gz but not gzip data (a damaged gzip header?)");
  }
  const std::uint32_t magic = BigEndian(header);
  const std::uint32_t expected = 0x800u + static_cast<std::uint32_t>(dims);
  if (magic != expected) {
    char text[96];
    std::snprintf(text, sizeof(text),
                  ": not an IDX file of unsigned bytes (magic 0x%08x, "
                  "expected 0x%08x)",
                  magic, expected);
    return InputError(path + text);
  }
  if (Status read = ReadExactly(file.get(), path, header + 4, 4 * static_cast<std::size_t>(dims),
                                "IDX header");
      !read.ok()) {
    return read;
  }
  shape.clear();
  std::size_t total = 1;
  for (int d = 0; d < dims; ++d) {
    shape.push_back(BigEndian(header + 4 + 4 * d));
    total *= shape.back();
    if (total > kMaxIdxBytes) {
      return InputError(path + ": IDX dimensions too large (more than 1 GiB of data)");
    }
  }
  return ReadIdxData(file.get(), path, total);
}

std::string FindIdx(const std::string& dir, const std::string& name) {
  namespace fs = std::filesystem;
  const fs::path plain = fs::path(dir) / name;
  std::error_code error;
  if (fs::is_regular_file(plain, error)) return plain.string();
  const fs::path gz = fs::path(dir) / (name + ".gz");
  if (fs::is_regular_file(gz, error)) return gz.string();
  return {};
}

}  // namespace

StatusOr<Dataset> ReadIdx(const std::string& images_path, const std::string& labels_path) {
  std::vector<std::uint32_t> image_shape;
  StatusOr<std::vector<unsigned char>> pixels = ReadIdxBytes(images_path, 3, image_shape);
  if (!pixels.ok()) return pixels.status();
  if (image_shape[1] != kImageSide || image_shape[2] != kImageSide) {
    return InputError(images_path + ": images are " + std::to_string(image_shape[1]) + "x" +
                      std::to_string(image_shape[2]) + ", the models need 28x28");
  }
  std::vector<std::uint32_t> label_shape;
  StatusOr<std::vector<unsigned char>> labels = ReadIdxBytes(labels_path, 1, label_shape);
  if (!labels.ok()) return labels.status();
  if (label_shape[0] != image_shape[0]) {
    return InputError(labels_path + ": " + std::to_string(label_shape[0]) + " labels for " +
                      std::to_string(image_shape[0]) + " images in " + images_path);
  }
  Dataset data;
  data.images.resize(pixels->size());
  std::transform(pixels->begin(), pixels->end(), data.images.begin(),
                 [](unsigned char p) { return static_cast<float>(p) / 255.0f; });
  data.labels.reserve(labels->size());
  for (std::size_t i = 0; i < labels->size(); ++i) {
    const unsigned char label = (*labels)[i];
    if (label >= kNumClasses) {
      return InputError(labels_path + ": label " + std::to_string(label) + " of sample " +
                        std::to_string(i) + " is not a class 0..9");
    }
    data.labels.push_back(label);
  }
  return data;
}

StatusOr<IdxDataSets> LoadIdx(const std::string& dir) {
  std::string paths[4];
  const char* names[4] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                          "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
  for (int i = 0; i < 4; ++i) {
    paths[i] = FindIdx(dir, names[i]);
    if (paths[i].empty()) {
      return InputError("no " + std::string(names[i]) + "[.gz] in " + dir +
                        " (--data needs an MNIST-format directory)");
    }
  }
  StatusOr<Dataset> train = ReadIdx(paths[0], paths[1]);
  if (!train.ok()) return train.status();
  StatusOr<Dataset> test = ReadIdx(paths[2], paths[3]);
  if (!test.ok()) return test.status();
  return IdxDataSets{std::move(*train), std::move(*test)};
}

}  // namespace dlcheck::mlp
