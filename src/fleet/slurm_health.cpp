// SPDX-License-Identifier: Apache-2.0
#include "fleet/slurm_health.h"

#include <fmt/format.h>

#include "os/signals.h"
#include "os/subprocess.h"

namespace dlcheck::fleet {
namespace {

// The value of `key=` in a line of space-separated fields, up to the next space.
std::string Field(std::string_view line, std::string_view key) {
  const std::string needle = " " + std::string(key) + "=";
  const std::string padded = " " + std::string(line);
  const std::size_t at = padded.find(needle);
  if (at == std::string::npos) return {};
  const std::size_t begin = at + needle.size();
  const std::size_t end = padded.find(' ', begin);
  return padded.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

bool StartsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

}  // namespace

bool SlurmNode::drained() const {
  return state.find("DRAIN") != std::string::npos;
}

bool SlurmNode::drained_by_dlcheck() const {
  return drained() && StartsWith(reason, kReasonPrefix);
}

SlurmNode ParseShowNode(std::string_view text) {
  const std::string_view line = text.substr(0, text.find('\n'));
  SlurmNode node{.state = Field(line, "State")};
  const std::size_t at = (" " + std::string(line)).find(" Reason=");
  if (at != std::string::npos) {
    std::string reason(line.substr(at + 7));
    // Slurm appends who set the reason and when: " [root@2026-11-22T19:21:30]".
    if (const std::size_t by = reason.rfind(" [");
        by != std::string::npos && reason.back() == ']') {
      reason.resize(by);
    }
    node.reason = reason == "(null)" ? std::string() : reason;
  }
  return node;
}

std::string DrainReason(const check::CheckResult& result) {
  std::string reason =
      fmt::format("{} {} - {}", kReasonPrefix, check::StateName(result.state), result.summary);
  if (reason.size() > 250) reason = reason.substr(0, 247) + "...";
  return reason;
}

HealthAction DecideHealthAction(const check::CheckResult& result, const SlurmNode& node) {
  switch (result.state) {
    case check::State::kCritical:
      if (node.drained() && !node.drained_by_dlcheck()) return HealthAction::kNone;
      return node.reason == DrainReason(result) ? HealthAction::kNone : HealthAction::kDrain;
    case check::State::kOk:
    case check::State::kWarning:
      return node.drained_by_dlcheck() ? HealthAction::kResume : HealthAction::kNone;
    case check::State::kUnknown:
      return HealthAction::kNone;
  }
  return HealthAction::kNone;
}

std::vector<std::string> UpdateArguments(HealthAction action, std::string_view node_name,
                                         const check::CheckResult& result) {
  const std::string node = fmt::format("NodeName={}", node_name);
  switch (action) {
    case HealthAction::kDrain:
      return {"update", node, "State=DRAIN", "Reason=" + DrainReason(result)};
    case HealthAction::kResume:
      return {"update", node, "State=RESUME"};
    case HealthAction::kNone:
      return {};
  }
  return {};
}

StatusOr<std::string> RunScontrol(const SlurmTools& tools, const std::vector<std::string>& args) {
  // Bounded: Slurm kills a HealthCheckProgram after 60 s, and an scontrol that never answers
  // (slurmctld down, a network that drops packets) must not take all of it.
  os::Spec spec{.argv = {tools.scontrol}, .search_path = true, .timeout_s = kScontrolTimeoutS};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  if (!tools.slurm_conf.empty()) spec.env.emplace_back("SLURM_CONF", tools.slurm_conf);
  // `scontrol -o show node` prints one line; what is past the bound is read and dropped, so a
  // runaway scontrol cannot take memory in proportion to what it prints.
  constexpr std::size_t kMaxScontrolBytes = std::size_t{1} << 20;
  std::string out;
  bool overflowed = false;
  StatusOr<os::Outcome> ended = os::RunProcess(spec, [&out, &overflowed](std::string_view bytes) {
    const std::size_t room = kMaxScontrolBytes - out.size();
    overflowed = overflowed || bytes.size() > room;
    out += bytes.substr(0, room);
  });
  const std::string command = fmt::format("{} {}", tools.scontrol, fmt::join(args, " "));
  if (!ended.ok()) {
    return Status(ExitCode::kFailure,
                  fmt::format("cannot run '{}': {} (give its path with --scontrol)", command,
                              ended.status().message()));
  }
  if (ended->ShellStatus() != 0) {
    return Status(
        ExitCode::kFailure,
        fmt::format("'{}' {} (is slurmctld up, and --slurm-conf right?)", command, ended->Ended()));
  }
  if (overflowed) {
    return Status(ExitCode::kFailure,
                  fmt::format("'{}' printed more than 1 MiB; not a node's line", command));
  }
  return out;
}

StatusOr<HealthAction> ApplyHealthCheck(const SlurmTools& tools, const std::string& node_name,
                                        const check::CheckResult& result) {
  StatusOr<std::string> shown = RunScontrol(tools, {"-o", "show", "node", node_name});
  if (!shown.ok()) return shown.status();
  const HealthAction action = DecideHealthAction(result, ParseShowNode(*shown));
  if (action == HealthAction::kNone) return action;
  // Stopped between the two: the node is left as it was.
  if (const int sig = os::SignalForwarding::Received(); sig != 0) {
    return Status(ExitCode::kFailure,
                  fmt::format("stopped by {} before scontrol updated the node; it is left as it "
                              "was",
                              os::SignalName(sig)));
  }
  StatusOr<std::string> updated = RunScontrol(tools, UpdateArguments(action, node_name, result));
  if (!updated.ok()) return updated.status();
  return action;
}

std::string_view HealthActionName(HealthAction action) {
  switch (action) {
    case HealthAction::kDrain:
      return "drained";
    case HealthAction::kResume:
      return "resumed";
    case HealthAction::kNone:
      return "unchanged";
  }
  return "unchanged";
}

}  // namespace dlcheck::fleet
