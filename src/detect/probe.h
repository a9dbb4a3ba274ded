#pragma once
// Execution probes: run one instruction of an ISA feature in a child process and see whether it
// faults. A CPUID bit is a claim; the probe is the evidence. A SIGILL in the child is a result
// ("the hypervisor or kernel hides it"), never a crash of dlcheck.
//
//   ProbeResult r = RunProbe("avx512f");
//   if (r.state == ProbeState::kFaulted) ...  // r.detail: "SIGILL"

#include <string>
#include <string_view>
#include <vector>

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

}  // namespace dlcheck::detect
