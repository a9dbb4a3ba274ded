// SPDX-License-Identifier: Apache-2.0
#pragma once
// The machine's limits as `dlcheck roofline` measured them: memory bandwidth (the working-set
// sweep's cache plateaus at one thread, DRAM at 1..N threads) and the compute peak of each data
// type and unit this CPU and OS can run; what could not be measured here, and why. Stored as
// JSON in the user's cache directory under the CPU's identity, so that later commands (`parse`,
// `platform`) use it without measuring again.
//
//   MachineProfile profile = ...;                        // roofline/measure.h fills it
//   Status saved = StoreProfile(profile, ProfilePath(CacheDirectory(), profile.cpu_key));
//   StatusOr<MachineProfile> back = LoadProfile(path);   // InputError when absent or malformed
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"

namespace dlcheck::roofline {

/// The bandwidth kernels, by their names in every output. Bytes are counted as STREAM and
/// likwid-bench count them: what the kernel reads and writes, without the write-allocate reads.
///   read   s += a[i]              4 bytes per f32 element
///   copy   b[i] = a[i]            8
///   triad  a[i] = b[i] + s*c[i]  12
///   triad_nt  the triad with non-temporal stores (where the CPU has them: every x86-64)
inline constexpr const char* kRead = "read";
inline constexpr const char* kCopy = "copy";
inline constexpr const char* kTriad = "triad";
inline constexpr const char* kTriadNt = "triad_nt";

/// One point of the working-set sweep: one kernel at one size on one thread.
struct SweepPoint {
  std::string kernel;
  std::int64_t working_set_bytes = 0;  ///< all of the kernel's arrays together
  double gbps = 0;                     ///< 10^9 bytes per second
};

/// A memory level's bandwidth: the median of the sweep's points that lie in it.
struct Plateau {
  std::string level;             ///< "L1", "L2", "L3", "DRAM"
  std::int64_t cache_bytes = 0;  ///< the level's size (one instance); 0 for DRAM
  std::int64_t from_bytes = 0;   ///< the working sets of the points it is made of
  std::int64_t to_bytes = 0;
  std::optional<double> read_gbps;  ///< nullopt: no sweep point lay in the level
  std::optional<double> copy_gbps;
  std::optional<double> triad_gbps;
};

/// DRAM bandwidth at one thread count, the threads pinned one per core.
struct ThreadBandwidth {
  int threads = 0;
  std::string cpus;  ///< the CPUs they ran on, "0,1"
  double read_gbps = 0;
  double copy_gbps = 0;
  double triad_gbps = 0;
  double triad_nt_gbps = 0;
};

/// The peak of one data type on one unit at one thread count.
struct ComputePeak {
  std::string dtype;  ///< "f32", "bf16", "f16", "int8" (oneDNN's names: s8/u8 are int8)
  std::string unit;   ///< "avx2_fma" (ymm), "avx512_fma" (zmm), "avx512_bf16", "amx_bf16", ...
  std::string instruction;  ///< the instruction timed, "vfmadd231ps ymm"
  int threads = 0;
  double gflops = 0;  ///< 10^9 operations per second (int8: multiply-adds count 2, as benchdnn)
};

/// A figure this host cannot give, and why ("bf16 compute": "no avx512_bf16 ...").
struct Unmeasured {
  std::string what;
  std::string reason;
};

/// What one `dlcheck roofline` measured.
struct MachineProfile {
  static constexpr int kFormatVersion = 1;
  std::string cpu_key;  ///< the CPU's identity (CpuKey): the stored file's name
  std::string vendor;
  std::string brand;
  std::string microarchitecture;
  std::string measured_at;  ///< UTC, ISO 8601
  std::string dlcheck_version;
  bool quick = false;
  int usable_cpus = 0;               ///< affinity and cgroup quota (os::ReadCpuBudget)
  std::string cpu_budget;            ///< its words: "2 CPUs"
  std::optional<double> load_start;  ///< the 1-minute load average before and after
  std::optional<double> load_end;
  double seconds = 0;  ///< how long the measurements took
  std::string vector;  ///< the bandwidth kernels' registers: "zmm", "ymm", "xmm"
  std::vector<SweepPoint> sweep;
  std::vector<Plateau> plateaus;
  std::vector<ThreadBandwidth> threads;
  std::vector<ComputePeak> peaks;
  std::vector<Unmeasured> unmeasured;

  /// The DRAM bandwidth the roofline uses: the best of read and triad at the most threads.
  double MemoryGbps() const;
  /// The best peak of `dtype` (any unit) at the most threads measured; nullopt when none.
  std::optional<ComputePeak> BestPeak(const std::string& dtype) const;
};

/// Within this fraction of the most DRAM bandwidth, more threads add nothing.
inline constexpr double kSaturated = 0.9;

/// The fewest threads whose DRAM bandwidth (the best of read and triad) is within kSaturated of
/// the most any thread count reached, when that is fewer than the most threads measured
/// (`bandwidth-saturated-at-k`); nullopt otherwise (bandwidth still grows, or one row).
std::optional<int> SaturationThreads(const std::vector<ThreadBandwidth>& threads);

/// The CPU's identity as a file name: "AuthenticAMD-25-1-1-AMD_EPYC" (vendor, family, model,
/// stepping, brand with every character but letters, digits, '.' and '-' made '_').
std::string CpuKey(const std::string& vendor, int family, int model, int stepping,
                   const std::string& brand);

/// $XDG_CACHE_HOME/dlcheck, else $HOME/.cache/dlcheck; empty when neither is set (absolute).
std::string CacheDirectory();

/// Where the profile of `cpu_key` lives under `directory`: "DIR/roofline-KEY.json".
std::string ProfilePath(const std::string& directory, const std::string& cpu_key);

/// This CPU's CpuKey, from its CPUID.
std::string LiveCpuKey();

/// Where this CPU's stored profile is (ProfilePath of CacheDirectory and LiveCpuKey); an
/// InputError saying how to make one when there is none.
StatusOr<std::string> StoredProfilePath();

/// The profile as its stored JSON text (one document, fixed member order).
std::string ProfileJson(const MachineProfile& profile);
/// The profile in `text`; InputError naming `path` when it is not one (or of another format
/// version).
StatusOr<MachineProfile> ParseProfileJson(const std::string& text, const std::string& path);

/// Writes the profile whole (a temporary file renamed over `path`), creating its directory.
/// OutputFileError when it cannot.
Status StoreProfile(const MachineProfile& profile, const std::string& path);
/// Reads a stored profile; InputError when absent, unreadable or malformed.
StatusOr<MachineProfile> LoadProfile(const std::string& path);

}  // namespace dlcheck::roofline
