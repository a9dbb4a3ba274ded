#include "dispatch/worker_protocol.h"

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

}  // namespace

std::string LayerLine(std::string_view layer, std::string_view layer_phase) {
  return Line("layer", layer, layer_phase);
}
std::string PhaseLine(std::string_view phase) {
  return Line("phase", phase);
}
std::string ResultLine(std::string_view key, std::string_view value) {
  return Line("result", key, OneLine(value));
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
