// SPDX-License-Identifier: Apache-2.0
#pragma once
// What one node's check says, in the words each fleet engine reads: Slurm node features, a
// Kubernetes Node Feature Discovery (NFD) local feature file, and a Prometheus textfile for
// node_exporter's textfile collector. Pure functions of a check's result and evidence: the
// caller prints them or writes them atomically (os::WriteFileReplacing).
//
//   SlurmFeatures(result, evidence)   {"avx2", ..., "avx512_bf16", "onednn_avx512_core_bf16",
//                                      "amx_permission", "dlcheck_ok"}
//   NfdFeatureFile(result, evidence, "")
//     dlcheck.feature.node.kubernetes.io/onednn-isa=avx512_core_bf16
//     dlcheck.feature.node.kubernetes.io/check-status=ok
//   PrometheusTextfile(result, evidence)
//     # HELP dlcheck_check_status The check's state: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
//     # TYPE dlcheck_check_status gauge
//     dlcheck_check_status 0

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "check/check.h"

namespace dlcheck::fleet {

/// `name` when it is a node name that may enter slurm.conf, a report and an scontrol command: 1
/// to 64 letters, digits, '-', '_' and '.', starting with a letter or digit. Else a UsageError
/// naming `source` (--node-name, SLURMD_NODENAME) and the name made safe to print.
StatusOr<std::string> CheckedNodeName(std::string_view name, std::string_view source);

/// A Slurm feature token slurmd and `srun -C` accept: a letter, then letters, digits and `_`
/// (never `& | * [ ] ( ) ! ,` or spaces, which are constraint syntax or separators).
bool IsSlurmFeatureToken(std::string_view token);

/// Every oneDNN ISA level the node meets, lowest first, ending with the one oneDNN dispatches
/// to (effective, else the maximum the features allow): the sweep caps of onednn_isa.h ranked
/// below it, less avx2_vnni where AVX-VNNI is not usable (it is beside, not below, AVX-512).
///   Sapphire Rapids: {"sse41", "avx", "avx2", "avx2_vnni", "avx512_core", "avx512_core_vnni",
///                     "avx512_core_bf16", "avx512_core_amx"}
///   Haswell:         {"sse41", "avx", "avx2"}
/// Empty when the ISA has no x86 rank or is "none".
std::vector<std::string> OneDnnLevelsMet(const detect::PlatformInfo& platform);
/// The same from the node's oneDNN ISA and whether AVX-VNNI is usable (for `dlcheck fleet`,
/// which has them from the reports).
std::vector<std::string> OneDnnLevelsMet(std::string_view isa, bool avx_vnni_usable);

/// The one rule of the Slurm features, from a node's facts: `usable` features (lower-cased),
/// `onednn_<level>` for each of OneDnnLevelsMet, `amx_permission`, `dlcheck_<state>` (when
/// `state` is not empty); tokens Slurm would not take left out; sorted.
std::vector<std::string> SlurmFeatureTokens(const std::vector<std::string>& usable,
                                            std::string_view onednn_isa, bool amx_permission,
                                            std::string_view state);

/// The node's Slurm features, sorted: every usable ISA feature (its /proc/cpuinfo name),
/// `onednn_<level>` for every oneDNN level the node meets (OneDnnLevelsMet: cumulative, so
/// `srun -C onednn_avx512_core_bf16` means "at least"), `amx_permission` when the process may use
/// AMX tiles, and `dlcheck_<state>` (dlcheck_ok, dlcheck_warning, dlcheck_critical,
/// dlcheck_unknown).
std::vector<std::string> SlurmFeatures(const check::CheckResult& result,
                                       const check::Evidence& evidence);

/// The features comma-separated: the value of `Features=` in slurm.conf and of `Feature=` in
/// `slurmd -Z --conf`.
std::string SlurmFeatureList(const std::vector<std::string>& features);

/// A node's hardware as `slurmd -C` prints it (one board: slurmd's own default on x86).
struct SlurmNodeHardware {
  int cpus = 0;  ///< hardware threads (PUs)
  int boards = 1;
  int sockets_per_board = 0;
  int cores_per_socket = 0;
  int threads_per_core = 0;
  long real_memory_mib = 0;  ///< what slurmd measures: physical memory, MiB
};

/// The most of each count slurm.conf takes (CPUs, Boards, SocketsPerBoard, CoresPerSocket and
/// ThreadsPerCore are 16-bit in Slurm, 0xfffe and 0xffff reserved), and of RealMemory (1 EiB).
inline constexpr long kMaxSlurmCount = 65533;
inline constexpr long kMaxSlurmMemoryMib = 1L << 40;

/// Why counts read from a report are no machine's, for a node line ("" when they are one): each
/// 1 to kMaxSlurmCount, sockets <= cores <= PUs, memory 0 to kMaxSlurmMemoryMib.
std::string SlurmHardwareProblem(long packages, long cores, long pus, long memory_mib);

/// The hardware fields from the hwloc topology and the physical memory in MiB (as slurmd
/// measures it: a RealMemory above slurmd's own figure would drain the node). nullopt when the
/// topology has no packages, cores or PUs.
std::optional<SlurmNodeHardware> NodeHardware(const detect::Topology& topology, long memory_mib);
/// The same from the counts (for `dlcheck fleet`, which has them from the reports); nullopt
/// where SlurmHardwareProblem names one.
std::optional<SlurmNodeHardware> NodeHardware(long packages, long cores, long pus, long memory_mib);

/// A complete slurm.conf node line in `slurmd -C`'s shape, with Features:
/// `NodeName=n1 CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1
/// RealMemory=24105 Features=<list>` (without `hardware`: `NodeName=n1 Features=<list>`). It
/// replaces the node's definition; slurmctld refuses a second line for the same host.
std::string SlurmNodeLine(std::string_view nodes, const std::optional<SlurmNodeHardware>& hardware,
                          const std::vector<std::string>& features);

/// NFD's label rules (Kubernetes): a name of at most 63 characters of [A-Za-z0-9._-] that
/// starts and ends with a letter or digit; a value the same or empty.
bool IsValidLabelName(std::string_view name);
bool IsValidLabelValue(std::string_view value);

/// The NFD label prefix (namespace) dlcheck writes under: a sub-namespace of
/// feature.node.kubernetes.io, which NFD always allows.
inline constexpr std::string_view kNfdPrefix = "dlcheck.feature.node.kubernetes.io";

/// One NFD label: `<kNfdPrefix>/<name>=<value>`.
struct NfdLabel {
  std::string name;
  std::string value;
};

/// What NFD's cpu source lacks: the check status, the oneDNN ISA levels (`onednn-isa`,
/// `onednn-max-isa`, and `onednn.<level>=true` for each of OneDnnLevelsMet), the OS state of AMX
/// tiles (XCR0 bits 17-18) and the per-process AMX permission, AMX usability, and the
/// execution probes. Nothing NFD already labels (CPUID flags) is repeated.
std::vector<NfdLabel> NfdLabels(const check::CheckResult& result, const check::Evidence& evidence);

/// The NFD local feature file: a comment naming dlcheck, then `# +expiry-time=<expiry>` when
/// `expiry` (RFC 3339, UTC) is not empty, then one `<prefix>/<name>=<value>` line per label.
std::string NfdFeatureFile(const check::CheckResult& result, const check::Evidence& evidence,
                           std::string_view expiry);

/// `seconds` from now as RFC 3339 UTC (`2026-11-23T01:02:03Z`), for NfdFeatureFile.
std::string ExpiryTime(long seconds);

/// The Prometheus text exposition: every metric with HELP and TYPE, base units, no timestamps,
/// `dlcheck_info{...} 1` for the text facts.
std::string PrometheusTextfile(const check::CheckResult& result, const check::Evidence& evidence);

}  // namespace dlcheck::fleet
