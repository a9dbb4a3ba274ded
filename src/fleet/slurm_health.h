// SPDX-License-Identifier: Apache-2.0
#pragma once
// `dlcheck check` as Slurm's HealthCheckProgram: on CRITICAL it drains its own node with a
// reason that starts `dlcheck:`; once the check passes again it resumes the node, but only when
// the reason is still dlcheck's own, never a node an administrator drained.
//
//   SlurmNode node = ParseShowNode(scontrol_o_show_node_output);
//   HealthAction action = DecideHealthAction(result, node);   // kDrain, kResume, kNone
//   RunScontrol(tools, UpdateArguments(action, name, result));

#include <string>
#include <string_view>
#include <vector>

#include "check/check.h"
#include "common/status.h"

namespace dlcheck::fleet {

/// Every reason dlcheck gives Slurm starts with this; only such reasons are dlcheck's to clear.
inline constexpr std::string_view kReasonPrefix = "dlcheck:";

/// A node as `scontrol -o show node NAME` describes it.
struct SlurmNode {
  std::string state;                ///< "IDLE+DRAIN", "MIXED", ...
  std::string reason;               ///< without Slurm's " [user@time]" suffix; empty: none
  bool drained() const;             ///< DRAIN (drained or draining) is in the state
  bool drained_by_dlcheck() const;  ///< drained, with a reason that starts kReasonPrefix
};

/// The state and reason from `scontrol -o show node` output (one line of Key=Value fields;
/// Reason runs to the end of the line).
SlurmNode ParseShowNode(std::string_view text);

enum class HealthAction {
  kNone,    ///< nothing to change
  kDrain,   ///< CRITICAL and not drained (or drained by dlcheck for another reason)
  kResume,  ///< not CRITICAL any more, and drained by dlcheck
};

/// CRITICAL drains unless an administrator drained the node already; OK and WARNING resume a
/// node dlcheck drained; UNKNOWN (the check could not run) changes nothing.
HealthAction DecideHealthAction(const check::CheckResult& result, const SlurmNode& node);

/// `dlcheck: CRITICAL - <summary>`, at most 250 characters.
std::string DrainReason(const check::CheckResult& result);

/// The scontrol arguments of `action` on `node_name` (empty for kNone).
std::vector<std::string> UpdateArguments(HealthAction action, std::string_view node_name,
                                         const check::CheckResult& result);

/// Where scontrol is and which slurm.conf it reads (a HealthCheckProgram inherits neither PATH
/// nor SLURM_CONF).
struct SlurmTools {
  std::string scontrol = "scontrol";  ///< a path, or a name looked up on PATH
  std::string slurm_conf;             ///< SLURM_CONF for scontrol; empty: scontrol's default
};

/// How long one scontrol call may take before it is killed (two are made: show, then update).
inline constexpr double kScontrolTimeoutS = 10;

/// Runs scontrol with `args`; its stdout. A failure (not found, non-zero exit, no answer within
/// kScontrolTimeoutS) says what to do.
StatusOr<std::string> RunScontrol(const SlurmTools& tools, const std::vector<std::string>& args);

/// The whole health-check step for `node_name`: reads the node, decides, updates it. Returns
/// the action taken.
StatusOr<HealthAction> ApplyHealthCheck(const SlurmTools& tools, const std::string& node_name,
                                        const check::CheckResult& result);

/// "drained", "resumed", "unchanged".
std::string_view HealthActionName(HealthAction action);

}  // namespace dlcheck::fleet
