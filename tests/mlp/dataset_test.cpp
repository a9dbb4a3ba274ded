// SPDX-License-Identifier: Apache-2.0
#include "mlp/dataset.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <numeric>

#include "mlp/model.h"
#include "support/test_files.h"

namespace dlcheck::mlp {
namespace {

namespace fs = std::filesystem;

std::string Sample(const std::string& name) {
  return dlcheck::testing::DataPath("mnist/" + name);
}

// A fresh directory under the test's temporary directory.
std::string TempDir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("dlcheck_mlp_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string Be32(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// An IDX images file: `count` images of rows x cols, pixel p of image i = (i * 7 + p) % 256.
std::string ImagesIdx(std::uint32_t count, std::uint32_t rows = 28, std::uint32_t cols = 28) {
  std::string bytes = Be32(0x803) + Be32(count) + Be32(rows) + Be32(cols);
  for (std::uint32_t i = 0; i < count; ++i) {
    for (std::uint32_t p = 0; p < rows * cols; ++p) bytes += static_cast<char>((i * 7 + p) % 256);
  }
  return bytes;
}

std::string LabelsIdx(const std::vector<int>& labels) {
  std::string bytes = Be32(0x801) + Be32(static_cast<std::uint32_t>(labels.size()));
  for (int label : labels) bytes += static_cast<char>(label);
  return bytes;
}

void WritePlain(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

void WriteGz(const std::string& path, const std::string& bytes) {
  gzFile file = gzopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, bytes.data(), static_cast<unsigned>(bytes.size())),
            static_cast<int>(bytes.size()));
  gzclose(file);
}

TEST(SyntheticDataTest, DeterministicInRangeAndEveryClassPresent) {
  const Dataset a = MakeSyntheticData(200, 5);
  const Dataset b = MakeSyntheticData(200, 5);
  EXPECT_EQ(a.images, b.images);
  EXPECT_EQ(a.labels, b.labels);
  ASSERT_EQ(a.size(), 200);
  ASSERT_EQ(a.images.size(), 200u * kImageSize);
  std::vector<int> histogram(kNumClasses);
  for (std::int32_t label : a.labels) {
    ASSERT_GE(label, 0);
    ASSERT_LT(label, kNumClasses);
    ++histogram[label];
  }
  for (int count : histogram) EXPECT_GT(count, 0);
  for (float p : a.images) {
    ASSERT_GE(p, 0.0f);
    ASSERT_LE(p, 1.0f);
  }
  EXPECT_NE(MakeSyntheticData(200, 6).images, a.images);
}

TEST(GetBatchTest, CyclesThroughWholeBatches) {
  const Dataset data = MakeSyntheticData(10, 1);
  const Batch first = GetBatch(data, 0, 4);
  EXPECT_EQ(first.size(), 4);
  EXPECT_EQ(first.images.size(), 4u * kImageSize);
  EXPECT_EQ(first.labels.data(), data.labels.data());
  EXPECT_EQ(GetBatch(data, 1, 4).labels.data(), data.labels.data() + 4);
  // Two whole batches fit; batch 2 is batch 0 again.
  EXPECT_EQ(GetBatch(data, 2, 4).labels.data(), data.labels.data());
  EXPECT_EQ(GetBatch(data, 2, 4).images.data(), data.images.data());
}

TEST(ReadIdxTest, ReadsPlainAndGzippedFilesAlike) {
  const std::string dir = TempDir("plain_gz");
  WritePlain(dir + "/images", ImagesIdx(3));
  WritePlain(dir + "/labels", LabelsIdx({4, 0, 9}));
  WriteGz(dir + "/images.gz", ImagesIdx(3));
  WriteGz(dir + "/labels.gz", LabelsIdx({4, 0, 9}));
  for (const std::string suffix : {"", ".gz"}) {
    StatusOr<Dataset> data = ReadIdx(dir + "/images" + suffix, dir + "/labels" + suffix);
    ASSERT_TRUE(data.ok()) << data.status().message();
    EXPECT_EQ(data->labels, (std::vector<std::int32_t>{4, 0, 9}));
    ASSERT_EQ(data->images.size(), 3u * kImageSize);
    EXPECT_EQ(data->images[0], 0.0f);
    EXPECT_EQ(data->images[1], 1.0f / 255.0f);
    EXPECT_EQ(data->images[kImageSize + 1], 8.0f / 255.0f);         // image 1, pixel 1
    EXPECT_EQ(data->images[2 * kImageSize + 255], 13.0f / 255.0f);  // (14 + 255) % 256
  }
}

TEST(ReadIdxTest, ErrorsNameTheFileAndTheProblem) {
  const std::string dir = TempDir("errors");
  const std::string images = dir + "/images";
  const std::string labels = dir + "/labels";
  WritePlain(images, ImagesIdx(2));
  WritePlain(labels, LabelsIdx({1, 2}));
  auto error = [](const std::string& i, const std::string& l) {
    StatusOr<Dataset> data = ReadIdx(i, l);
    EXPECT_FALSE(data.ok());
    EXPECT_EQ(data.status().code(), ExitCode::kInputError);
    return data.status().message();
  };
  EXPECT_EQ(error(dir + "/missing", labels), "cannot open IDX file " + dir + "/missing");
  EXPECT_EQ(error(labels, labels), labels +
                                       ": not an IDX file of unsigned bytes (magic 0x00000801, "
                                       "expected 0x00000803)");
  WritePlain(dir + "/short_header", Be32(0x803) + Be32(1));
  EXPECT_EQ(error(dir + "/short_header", labels), dir + "/short_header: truncated IDX header");
  WritePlain(dir + "/short_data", ImagesIdx(2).substr(0, 16 + 784 + 10));
  EXPECT_EQ(error(dir + "/short_data", labels),
            dir + "/short_data: truncated IDX data (expected 1568 bytes after the header)");
  WritePlain(dir + "/small", ImagesIdx(2, 8, 8));
  EXPECT_EQ(error(dir + "/small", labels), dir + "/small: images are 8x8, the models need 28x28");
  WritePlain(dir + "/three_labels", LabelsIdx({1, 2, 3}));
  EXPECT_EQ(error(images, dir + "/three_labels"),
            dir + "/three_labels: 3 labels for 2 images in " + images);
  WritePlain(dir + "/bad_label", LabelsIdx({1, 12}));
  EXPECT_EQ(error(images, dir + "/bad_label"),
            dir + "/bad_label: label 12 of sample 1 is not a class 0..9");
}

// Damaged data is refused, not trained on (issue 20): a .gz whose CRC is wrong, a file named .gz
// whose gzip header is damaged (zlib would read it as plain bytes), and data longer than its
// header says.
TEST(ReadIdxTest, DamagedGzipDataIsAnInputError) {
  const std::string dir = TempDir("damaged");
  const std::string labels = dir + "/labels";
  WritePlain(labels, LabelsIdx({1, 2}));
  WriteGz(dir + "/images.gz", ImagesIdx(2));
  std::string gz;
  {
    std::ifstream in(dir + "/images.gz", std::ios::binary);
    gz.assign(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(gz.size(), 18u);
  ASSERT_TRUE(ReadIdx(dir + "/images.gz", labels).ok());
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 8] = static_cast<char>(bad_crc[bad_crc.size() - 8] ^ 0x01);
  WritePlain(dir + "/bad_crc.gz", bad_crc);
  StatusOr<Dataset> data = ReadIdx(dir + "/bad_crc.gz", labels);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().code(), ExitCode::kInputError);
  EXPECT_EQ(data.status().message(), dir + "/bad_crc.gz: corrupt gzip data (incorrect data check)");
  // The gzip magic broken: zlib alone would read the compressed bytes as the IDX file.
  std::string bad_header = gz;
  bad_header[0] = 'X';
  WritePlain(dir + "/bad_header.gz", bad_header);
  data = ReadIdx(dir + "/bad_header.gz", labels);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().message(),
            dir + "/bad_header.gz: named .gz but not gzip data (a damaged gzip header?)");
  WritePlain(dir + "/long", ImagesIdx(2) + "x");
  data = ReadIdx(dir + "/long", labels);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().message(),
            dir + "/long: more data than its IDX header says (1568 bytes after the header)");
}

// A header is a claim: 16 bytes that say 2^32 - 1 images, or 60,000 images with none after them,
// are refused without allocating what they claim (memory follows the bytes that are there).
TEST(ReadIdxTest, AHeaderClaimingHugeDimensionsIsRefusedWithoutAllocatingThem) {
  const std::string dir = TempDir("claims");
  const std::string labels = dir + "/labels";
  WritePlain(labels, LabelsIdx({1}));
  WritePlain(dir + "/huge", Be32(0x803) + Be32(0xFFFFFFFFu) + Be32(28) + Be32(28));
  StatusOr<Dataset> data = ReadIdx(dir + "/huge", labels);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().message(),
            dir + "/huge: IDX dimensions too large (more than 1 GiB of data)");
  WritePlain(dir + "/empty", Be32(0x803) + Be32(60000) + Be32(28) + Be32(28));
  data = ReadIdx(dir + "/empty", labels);
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.status().message(),
            dir + "/empty: truncated IDX data (expected 47040000 bytes after the header)");
}

TEST(LoadIdxTest, ReadsTrainAndTestSetsPreferringPlainFiles) {
  const std::string dir = TempDir("load");
  WriteGz(dir + "/train-images-idx3-ubyte.gz", ImagesIdx(4));
  WriteGz(dir + "/train-labels-idx1-ubyte.gz", LabelsIdx({1, 2, 3, 4}));
  WritePlain(dir + "/t10k-images-idx3-ubyte", ImagesIdx(2));
  WritePlain(dir + "/t10k-labels-idx1-ubyte", LabelsIdx({5, 6}));
  WriteGz(dir + "/t10k-labels-idx1-ubyte.gz", LabelsIdx({7, 8}));  // the plain file wins
  StatusOr<IdxDataSets> sets = LoadIdx(dir);
  ASSERT_TRUE(sets.ok()) << sets.status().message();
  EXPECT_EQ(sets->train.labels, (std::vector<std::int32_t>{1, 2, 3, 4}));
  EXPECT_EQ(sets->test.labels, (std::vector<std::int32_t>{5, 6}));
}

TEST(LoadIdxTest, MissingFileIsAnInputError) {
  // The sample holds only the test set.
  StatusOr<IdxDataSets> sets = LoadIdx(dlcheck::testing::DataPath("mnist"));
  ASSERT_FALSE(sets.ok());
  EXPECT_EQ(sets.status().code(), ExitCode::kInputError);
  EXPECT_EQ(sets.status().message(), "no train-images-idx3-ubyte[.gz] in " +
                                         dlcheck::testing::DataPath("mnist") +
                                         " (--data needs an MNIST-format directory)");
}

// Real data: the first 100 test samples of Fashion-MNIST (tests/data/mnist/README.md).
TEST(FashionMnistSampleTest, ReadsTheRecordedSample) {
  StatusOr<Dataset> data =
      ReadIdx(Sample("t10k-images-idx3-ubyte.gz"), Sample("t10k-labels-idx1-ubyte.gz"));
  ASSERT_TRUE(data.ok()) << data.status().message();
  ASSERT_EQ(data->size(), 100);
  EXPECT_EQ(
      std::vector<std::int32_t>(data->labels.begin(), data->labels.begin() + 20),
      (std::vector<std::int32_t>{9, 2, 1, 1, 6, 1, 4, 6, 5, 7, 4, 5, 7, 3, 4, 1, 2, 4, 8, 0}));
  std::vector<int> histogram(kNumClasses);
  for (std::int32_t label : data->labels) ++histogram[label];
  EXPECT_EQ(histogram, (std::vector<int>{8, 13, 14, 9, 10, 9, 8, 11, 12, 6}));
  // Pixel sums (in bytes) computed with Python from the upstream file.
  double total = 0;
  for (float p : data->images) total += p * 255.0;
  EXPECT_NEAR(total, 5854180.0, 0.5);
  double first = 0;
  for (int p = 0; p < kImageSize; ++p) first += data->images[p] * 255.0;
  EXPECT_NEAR(first, 33456.0, 0.01);
}

}  // namespace
}  // namespace dlcheck::mlp
