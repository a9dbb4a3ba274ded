#pragma once
// What one node's check says, in the words each fleet engine reads: Slurm node features, a
// Kubernetes Node Feature Discovery (NFD) local feature file, and a Prometheus textfile for
// node_exporter's textfile collector. Pure functions of a check's result and evidence: the
// caller prints them or writes them atomically (detect::WriteFileReplacing).
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

/// The node's Slurm features, sorted: every usable ISA feature (its /proc/cpuinfo name),
/// `onednn_<isa>` (the ISA oneDNN dispatches to), `amx_permission` when the process may use AMX
/// tiles, and `dlcheck_<state>` (dlcheck_ok, dlcheck_warning, dlcheck_critical, dlcheck_unknown).
std::vector<std::string> SlurmFeatures(const check::CheckResult& result,
                                       const check::Evidence& evidence);

/// The features comma-separated: the value of `Features=` in slurm.conf and of `Feature=` in
/// `slurmd -Z --conf`.
std::string SlurmFeatureList(const std::vector<std::string>& features);

/// A slurm.conf NodeName fragment: `NodeName=<node> Features=<list>`.
std::string SlurmConfFragment(std::string_view node, const std::vector<std::string>& features);

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

/// What NFD's cpu source lacks: the check status, the oneDNN ISA levels, the OS state of AMX
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
