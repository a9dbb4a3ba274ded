// SPDX-License-Identifier: Apache-2.0
#pragma once
// Execution probes: run one instruction of an ISA feature in a child process and see whether it
// faults. A CPUID bit is a claim; the probe is the evidence. A SIGILL in the child is a result
// ("the hypervisor or kernel hides it"), never a crash of dlcheck.
//
//   ProbeResult r = RunProbe("avx512f");
//   if (r.state == ProbeState::kFaulted) ...  // r.detail: "SIGILL"
//
// Which features to probe, and what a result means next to the CPUID claim, are decided here too:
//
//   std::vector<ProbeResult> probes = RunProbes(info, /*claimed=*/true, {});
//   std::vector<Finding> findings = ProbeFindings(info, probes);

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/finding.h"
#include "detect/platform.h"

namespace dlcheck::detect {

enum class ProbeState {
  kPassed,   ///< the instruction ran
  kFaulted,  ///< the child died of a signal (SIGILL, usually)
  kNoProbe,  ///< dlcheck has no probe for this feature
  kError,    ///< the child could not be started or ended otherwise
};

struct ProbeResult {
  std::string feature;
  ProbeState state = ProbeState::kNoProbe;
  std::string detail;  ///< "SIGILL", "exited with status 3", "arch_prctl refused: ..."
};

/// A probe that always faults (the UD2 instruction), to check the fault path on any machine.
inline constexpr std::string_view kFaultingProbe = "ud2";

/// The features dlcheck can probe, by their /proc/cpuinfo names (kFaultingProbe not included).
const std::vector<std::string_view>& ProbedFeatures();

/// Runs the probe of `feature` in a forked child. For AMX the child first asks the kernel for
/// the tile state (arch_prctl ARCH_REQ_XCOMP_PERM) and configures the tiles.
ProbeResult RunProbe(std::string_view feature);

/// The one-line error for a `--probe FEATURE` dlcheck cannot probe; nullopt when it can.
std::optional<std::string> CheckProbeName(const std::string& feature);

/// The features to probe: every probed feature the CPUID layer claims (when `claimed`) and every
/// name in `forced` (even when CPUID denies it), each once, in ReportedFeatures() order, forced
/// names no reported feature has (such as kFaultingProbe) last.
std::vector<std::string> ProbesToRun(const PlatformInfo& info, bool claimed,
                                     const std::vector<std::string>& forced);

/// Runs RunProbe on each of ProbesToRun(info, claimed, forced), in that order.
std::vector<ProbeResult> RunProbes(const PlatformInfo& info, bool claimed,
                                   const std::vector<std::string>& forced);

/// The probe result for `feature`, or nullptr when it was not probed.
const ProbeResult* FindProbe(const std::vector<ProbeResult>& probes, std::string_view feature);

/// What each probe result means next to the CPUID claim, in probe order: a warning where they
/// disagree (`probe-faults`, `probe-runs-unclaimed`) or the probe could not run (`probe-error`),
/// info where the fault is expected (`probe-faults-os-disabled`, `probe-faults-as-expected`).
std::vector<Finding> ProbeFindings(const PlatformInfo& info,
                                   const std::vector<ProbeResult>& probes);

}  // namespace dlcheck::detect
