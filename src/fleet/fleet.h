// SPDX-License-Identifier: Apache-2.0
#pragma once
// `dlcheck fleet`: many hosts' JSON reports (`platform` or `check`, one file per host) merged
// into groups of hosts that can do the same things, what each group lacks against the best
// one, the hosts that stand out, and the files that could not be used: counted and named,
// never fatal.
//
//   FleetReader reader;
//   for (const std::string& path : paths) reader.Add(path);   // a file, or a directory of *.json
//   Fleet fleet = reader.Finish();
//   fleet.groups[0].hosts;   // {"node1", "node2", "node3"}, CompressHostlist() gives node[1-3]

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "os/input_file.h"

namespace dlcheck::fleet {

/// A host's topology as the fleet compares it: counts from the report's `topology` section.
struct TopologyShape {
  long sockets = 0;
  long numa_nodes = 0;
  long cores = 0;
  long pus = 0;
  auto operator<=>(const TopologyShape&) const = default;
};

/// What one host's report says, reduced to what the fleet compares.
struct HostReport {
  std::string host;  ///< the report's `host` or `check.host`, else the file name less `.json`
  std::string file;
  std::string command;                    ///< "platform" or "check"
  std::string dlcheck_version;            ///< of the dlcheck that wrote the report
  std::string cpu;                        ///< brand, else vendor
  std::string microarchitecture;          ///< cpu.microarchitecture ("" when absent)
  std::vector<std::string> usable;        ///< usable features, sorted
  std::vector<std::string> hidden;        ///< features this host's hypervisor hides
  std::vector<std::string> cpuid_only;    ///< in CPUID but not enabled by the OS
  std::vector<std::string> faulted;       ///< usable per CPUID and OS, but the probe faulted
  std::string onednn_isa;                 ///< effective, else maximum
  std::optional<TopologyShape> topology;  ///< nullopt: the report has no topology
  std::string check_status;               ///< OK, WARNING, ...; "" for a platform report
  std::string check_summary;
  bool amx_permission = false;  ///< cpu.amx_permission: the process may use AMX tiles
  long memory_mib = 0;          ///< topology.memory_mib (hwloc's NUMA memory); 0: unknown
};

/// A file that was not used, and why.
struct SkippedReport {
  std::string file;
  std::string reason;
};

/// Hosts with one capability signature: usable features, oneDNN ISA, topology shape, check
/// status, AMX permission (what a Slurm node line of the group says, less its memory).
struct FleetGroup {
  std::vector<std::string> hosts;  ///< sorted
  /// The distinct CPUs (brands, else vendors) of its hosts, sorted: hosts of different CPUs
  /// that can do the same things share a group (a Sapphire and an Emerald Rapids).
  std::vector<std::string> cpus;
  /// The distinct known microarchitectures of its hosts, sorted (none: unknown).
  std::vector<std::string> microarchitectures;
  std::vector<std::string> usable;
  std::string onednn_isa;
  std::optional<TopologyShape> topology;
  std::string check_status;
  bool amx_permission = false;
  long memory_mib = 0;              ///< the least of the hosts' (hwloc's NUMA memory); 0: unknown
  std::vector<std::string> lacks;   ///< features the best group has and this one does not
  std::vector<std::string> hidden;  ///< features a hypervisor hides on some of its hosts, sorted
  bool best = false;
};

/// One host as the fleet placed it: the per-host table.
struct FleetHost {
  std::string host;
  std::size_t group = 0;  ///< its group's number (1 for Fleet::groups[0])
  std::string cpu;
  std::string microarchitecture;  ///< "" when the report has none
  std::string onednn_isa;
  std::string check_status;  ///< "" for a platform report
  std::string dlcheck_version;
  std::string file;
};

/// A host that stands out: "avx512_bf16 in CPUID but not OS-enabled".
struct Outlier {
  std::string host;
  std::string problem;
};

struct Fleet {
  std::size_t files = 0;  ///< report files looked at
  /// "groups 1 and 2 are both Emerald Rapids; group 2 lacks amx_tile ...": one note per
  /// microarchitecture whose groups expose different features (a hypervisor, BIOS or kernel
  /// setting, not a different CPU), naming its first kSameSiliconGroupsNamed groups and what each
  /// lacks of the features the others have, and how many more there are.
  std::vector<std::string> same_silicon;
  std::vector<FleetGroup> groups;    ///< largest first, then by first host
  std::vector<FleetHost> host_rows;  ///< every host used, by name
  std::vector<Outlier> outliers;     ///< by host
  std::vector<SkippedReport> skipped;
  /// dlcheck version -> hosts whose report it wrote (more than one version: a mixed fleet).
  std::map<std::string, std::vector<std::string>> versions;
  std::size_t hosts() const;
};

/// How many groups a same-silicon note names (the others are counted): a note stays one
/// sentence however many groups one microarchitecture falls into.
inline constexpr std::size_t kSameSiliconGroupsNamed = 8;

/// The report schema `dlcheck fleet` reads (Report::kSchemaVersion of this dlcheck).
inline constexpr int kReadableSchema = 1;
/// A report file larger than this is skipped, not read (real reports are under 64 KiB).
inline constexpr std::size_t kMaxReportBytes = std::size_t{4} << 20;
/// A report nesting deeper or holding more JSON values than this is skipped before it is parsed:
/// a real one nests 6 deep and holds a few thousand values, while 4 MiB of `[[],[],...]` would
/// take memory out of proportion to its size (one document per thread).
inline constexpr os::JsonBounds kReportJsonBounds{.max_depth = 32, .max_values = 50000};

/// Reads reports, keeping only their HostReport: files are read and parsed on every CPU, one
/// document per thread at a time, and merged in the order given.
class FleetReader {
 public:
  /// A report file, or a directory whose `*.json` files (not recursive) are read in name order.
  /// Anything unreadable is recorded as skipped. Files are read by the next AddText or Finish.
  void Add(const std::string& path);
  /// One report's text, as if read from `file` (after the files added before it).
  void AddText(const std::string& file, std::string_view text);
  /// Groups, outliers, versions.
  Fleet Finish();

 private:
  struct Pending {
    std::string file;
    std::string error;  ///< why it is skipped before reading (a directory not listed)
  };
  struct Parsed {
    HostReport report;
    std::string skip_reason;  ///< empty: usable
  };
  static Parsed Parse(const std::string& file, std::string_view text);
  static Parsed ReadAndParse(const Pending& pending);
  void Flush();
  void Merge(Parsed parsed);
  std::vector<Pending> pending_;
  std::vector<HostReport> reports_;
  std::map<std::string, std::string, std::less<>> file_of_host_;
  Fleet fleet_;
};

}  // namespace dlcheck::fleet
