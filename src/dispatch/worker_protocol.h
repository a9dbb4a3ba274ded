#pragma once
// The lines a model worker writes on stdout besides oneDNN's own verbose lines, so the parent can
// tell which layer and phase each verbose line belongs to and collect the run's results. They
// share stdout (and its buffer) with oneDNN's printf, so their order with the verbose lines is
// exactly the order of events in the worker.
//
//   dlcheck_worker,phase,traced
//   dlcheck_worker,layer,fc1,forward
//   dlcheck_worker,fallback,fc2,oneDNN has no bf16 inner product on this CPU (unimplemented)
//   dlcheck_worker,result,samples_per_s,104233.5

#include <optional>
#include <string>
#include <string_view>

namespace dlcheck::dispatch {

inline constexpr std::string_view kWorkerMarker = "dlcheck_worker,";

/// One worker line. For kLayer: `name` is the layer, `value` the phase of the layer's work
/// (create, forward, backward, update). kPhase: `name` is the run phase (init, warmup, timed,
/// traced, reference, done). kResult: `name` is the key, `value` the text. kFallback: `name` is
/// the layer, `value` the reason (may contain commas).
struct WorkerMessage {
  enum class Kind { kLayer, kPhase, kResult, kFallback };
  Kind kind = Kind::kPhase;
  std::string_view name;
  std::string_view value;
};

std::string LayerLine(std::string_view layer, std::string_view layer_phase);
std::string PhaseLine(std::string_view phase);
std::string ResultLine(std::string_view key, std::string_view value);
std::string FallbackLine(std::string_view layer, std::string_view reason);

/// The message in `line`, or nullopt when the line is not a worker line (e.g. a verbose line).
std::optional<WorkerMessage> ParseWorkerLine(std::string_view line);

}  // namespace dlcheck::dispatch
