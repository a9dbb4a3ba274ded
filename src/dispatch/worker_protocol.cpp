// SPDX-License-Identifier: Apache-2.0
#include "dispatch/worker_protocol.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace dlcheck::dispatch {
namespace {

std::string Line(std::string_view kind, std::string_view a, std::string_view b = {}) {
  std::string line(kWorkerMarker);
  line.append(kind).append(",").append(a);
  if (!b.empty()) line.append(",").append(b);
  return line;
}

// Newlines and commas in a name would break the line format; names are identifiers, so they
// never hold any, but a reason may hold commas (it is the last field and taken whole).
std::string OneLine(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

template <typename Number>
std::optional<Number> ParseWhole(std::string_view text) {
  Number value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

// The real-valued results, by key: the one table the parser and the lookup share.
struct RealField {
  std::string_view key;
  std::optional<double> WorkerResults::*member;
};
constexpr RealField kRealFields[] = {
    {result_key::kMaxDeviation, &WorkerResults::max_deviation},
    {result_key::kTolerance, &WorkerResults::tolerance},
    {result_key::kLossFirst, &WorkerResults::loss_first},
    {result_key::kSamplesPerS, &WorkerResults::samples_per_s},
    {result_key::kStepMsTimed, &WorkerResults::step_ms_timed},
    {result_key::kTimedChunks, &WorkerResults::timed_chunks},
    {result_key::kTimedSteps, &WorkerResults::timed_steps},
    {result_key::kSamplesPerSMin, &WorkerResults::samples_per_s_min},
    {result_key::kSamplesPerSMax, &WorkerResults::samples_per_s_max},
    {result_key::kStepMsTraced, &WorkerResults::step_ms_traced},
    {result_key::kLossLast, &WorkerResults::loss_last},
    {result_key::kTestAccuracy, &WorkerResults::test_accuracy},
};

// "nan" and "inf" parse as doubles; a loss may well be one, so they are kept.
bool RecordReal(WorkerResults& results, std::string_view key, std::string_view value) {
  if (key.starts_with(result_key::kPeakGflopsPrefix)) {
    const auto number = ParseWhole<double>(value);
    if (!number) return false;
    results.peak_gflops[std::string(
        key.substr(std::string_view(result_key::kPeakGflopsPrefix).size()))] = *number;
    return true;
  }
  for (const RealField& field : kRealFields) {
    if (field.key != key) continue;
    const auto number = ParseWhole<double>(value);
    if (!number) return false;
    results.*field.member = *number;
    return true;
  }
  return false;
}

bool RecordOther(WorkerResults& results, std::string_view key, std::string_view value) {
  if (key == result_key::kBackend) {
    results.backend = std::string(value);
  } else if (key == result_key::kDeviationTensor) {
    results.deviation_tensor = std::string(value);
  } else if (key == result_key::kTrainSamples) {
    results.train_samples = ParseWhole<std::int64_t>(value);
    return results.train_samples.has_value();
  } else {
    return RecordReal(results, key, value);
  }
  return true;
}

}  // namespace

bool RecordResult(WorkerResults& results, std::string_view key, std::string_view value) {
  if (RecordOther(results, key, value)) return true;
  results.malformed.push_back(fmt::format("{},{}", key, value));
  return false;
}

std::optional<double> NumericResult(const WorkerResults& results, std::string_view key) {
  if (key == result_key::kTrainSamples) {
    if (!results.train_samples) return std::nullopt;
    return static_cast<double>(*results.train_samples);
  }
  if (key.starts_with(result_key::kPeakGflopsPrefix)) {
    const auto it = results.peak_gflops.find(
        std::string(key.substr(std::string_view(result_key::kPeakGflopsPrefix).size())));
    if (it == results.peak_gflops.end()) return std::nullopt;
    return it->second;
  }
  for (const RealField& field : kRealFields) {
    if (field.key == key) return results.*field.member;
  }
  return std::nullopt;
}

std::string LayerLine(std::string_view layer, std::string_view layer_phase) {
  return Line("layer", layer, layer_phase);
}
std::string PhaseLine(std::string_view phase) {
  return Line("phase", phase);
}
std::string ResultLine(std::string_view key, std::string_view value) {
  return Line("result", key, OneLine(value));
}
std::string ResultLine(std::string_view key, double value) {
  // fmt's "{}" is the shortest text that reads back as the same double.
  return Line("result", key, fmt::format("{}", value));
}
std::string ResultLine(std::string_view key, std::int64_t value) {
  return Line("result", key, fmt::format("{}", value));
}
std::string FallbackLine(std::string_view layer, std::string_view reason) {
  return Line("fallback", layer, OneLine(reason));
}

std::optional<WorkerMessage> ParseWorkerLine(std::string_view line) {
  if (!line.starts_with(kWorkerMarker)) return std::nullopt;
  line.remove_prefix(kWorkerMarker.size());
  const std::size_t kind_end = line.find(',');
  if (kind_end == std::string_view::npos) return std::nullopt;
  const std::string_view kind = line.substr(0, kind_end);
  std::string_view rest = line.substr(kind_end + 1);
  const std::size_t name_end = rest.find(',');
  WorkerMessage msg;
  msg.name = rest.substr(0, name_end);
  msg.value = name_end == std::string_view::npos ? std::string_view{} : rest.substr(name_end + 1);
  if (kind == "layer") {
    msg.kind = WorkerMessage::Kind::kLayer;
  } else if (kind == "phase") {
    msg.kind = WorkerMessage::Kind::kPhase;
  } else if (kind == "result") {
    msg.kind = WorkerMessage::Kind::kResult;
  } else if (kind == "fallback") {
    msg.kind = WorkerMessage::Kind::kFallback;
  } else {
    return std::nullopt;
  }
  if (msg.name.empty()) return std::nullopt;
  return msg;
}

}  // namespace dlcheck::dispatch
