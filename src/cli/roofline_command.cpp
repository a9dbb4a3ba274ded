// SPDX-License-Identifier: Apache-2.0
// dlcheck roofline: the machine's limits measured (bandwidth by memory level and thread count,
// the compute peak of each data type this CPU and OS can run) and stored as the machine profile
// in the user's cache directory; or a stored profile shown again (--from).
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "common/exit_code.h"
#include "detect/binding.h"
#include "detect/cpu_features.h"
#include "detect/cpuid_source.h"
#include "detect/platform.h"
#include "detect/topology.h"
#include "dispatch/noise.h"
#include "dlcheck/version.h"
#include "os/cpu_budget.h"
#include "os/signals.h"
#include "report/progress.h"
#include "roofline/kernels.h"
#include "roofline/machine_profile.h"
#include "roofline/measure.h"
#include "roofline/roofline_report.h"

namespace dlcheck::cli {
namespace {

struct RooflineOptions {
  report::Format format = report::Format::kTable;
  bool quick = false;
  bool no_store = false;
  std::string from;  ///< show this stored profile instead of measuring
};

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

std::optional<double> OneMinuteLoad() {
  const std::optional<dispatch::LoadAverage> load = dispatch::ReadLoadAverage();
  if (!load) return std::nullopt;
  return load->one;
}

// The data caches one thread sees, L1 to L3, from hwloc's list.
std::vector<roofline::CacheSize> DataCaches(const detect::Topology& topology) {
  std::vector<roofline::CacheSize> caches;
  for (int level = 1; level <= 3; ++level) {
    for (const detect::CacheInfo& c : topology.caches) {
      if (c.level != level || c.type == "instruction" || c.type == "memory-side") continue;
      if (c.size_bytes <= 0) continue;
      caches.push_back({"L" + std::to_string(level), c.size_bytes, std::max(1, c.instances)});
      break;
    }
  }
  return caches;
}

// One CPU per allowed core (hwloc), at most as many as the CPU budget allows (the quota).
std::vector<int> MeasuringCpus(int budget) {
  std::vector<int> cpus;
  if (StatusOr<std::vector<detect::ThreadSet>> sets = detect::LiveThreadSets({"all"});
      sets.ok() && !sets->empty()) {
    cpus = sets->front().cpus;
  }
  if (cpus.empty()) cpus.push_back(0);
  if (static_cast<int>(cpus.size()) > budget) cpus.resize(static_cast<std::size_t>(budget));
  return cpus;
}

// What this host cannot give: units it lacks, per-node and per-L3 figures, a quota's cap.
std::vector<roofline::Unmeasured> Unmeasurable(const detect::FeatureSet& usable,
                                               const std::optional<detect::Topology>& topology,
                                               const os::CpuBudget& budget) {
  std::vector<roofline::Unmeasured> list;
  for (const roofline::MissingUnit& m : roofline::MissingUnitsFor(usable)) {
    list.push_back({m.what, m.reason});
  }
  if (!topology) {
    list.push_back({"cache plateaus",
                    "hwloc could not read the topology: the levels' sizes "
                    "are unknown (the sweep is still shown)"});
  } else {
    list.push_back({"bandwidth per NUMA node",
                    topology->numa_nodes <= 1
                        ? std::string("one NUMA node here: the DRAM figures are its own")
                        : std::to_string(topology->numa_nodes) +
                              " NUMA nodes: this version measures with the threads' local "
                              "memory only, not node by node"});
    list.push_back({"bandwidth per L3 domain",
                    topology->l3_instances <= 1
                        ? std::string("one L3 domain here: the DRAM figures are its own")
                        : std::to_string(topology->l3_instances) +
                              " L3 domains: this version does not measure them one by one"});
  }
  if (budget.QuotaBinds()) {
    list.push_back({"threads beyond the CPU quota",
                    "the thread sweep stops at " + budget.Text() +
                        ": more threads would wait for each other under the cgroup quota"});
  }
  list.push_back({"hardware memory counters",
                  "not used: the figures are bytes the kernels move over time (STREAM's and "
                  "likwid-bench's count, without write-allocate reads)"});
  return list;
}

// The sweep's DRAM plateau where the caches the CPU reports are too large for the sweep to leave
// (an L3 of hundreds of MiB: AMD's 3D V-Cache, or what a hypervisor reports) and its bandwidth had
// not stopped falling by its end either: said, not guessed.
std::optional<roofline::Unmeasured> DramPlateauOutOfReach(
    const roofline::MeasurePlan& plan, const std::vector<roofline::Plateau>& plateaus) {
  const std::int64_t from = roofline::DramFrom(plan.caches);
  if (from <= plan.dram_bytes || plateaus.empty() || plateaus.back().read_gbps) return std::nullopt;
  constexpr double kMiB = 1 << 20;
  return roofline::Unmeasured{
      "the sweep's DRAM plateau",
      fmt::format("the caches the CPU reports need working sets of {:.0f} MiB to leave them, more "
                  "than the sweep's largest ({:.0f} MiB{}), and the one-thread bandwidth had not "
                  "stopped falling by then: the DRAM figures are the threads table's, at that "
                  "size, which caches this large may still serve in part",
                  static_cast<double>(from) / kMiB, static_cast<double>(plan.dram_bytes) / kMiB,
                  plan.quick ? ", --quick" : "")};
}

StatusOr<int> ShowStored(const RooflineOptions& o) {
  StatusOr<roofline::MachineProfile> profile = roofline::LoadProfile(o.from);
  if (!profile.ok()) return profile.status();
  report::Print(roofline::RooflineReport(*profile, {.path = o.from}), o.format, std::cout);
  return ToInt(ExitCode::kOk);
}

StatusOr<int> RunRoofline(const RooflineOptions& o) {
  if (!o.from.empty()) {
    if (o.quick || o.no_store) {
      return UsageError(
          "--from shows a stored profile and measures nothing: leave out "
          "--quick and --no-store");
    }
    return ShowStored(o);
  }
  const detect::LiveCpuidSource source;
  const detect::CpuIdentity identity = detect::DecodeIdentity(source);
  const detect::FeatureSet usable = detect::LiveUsableFeatures();
  std::optional<detect::Topology> topology;
  if (StatusOr<detect::Topology> live = detect::LoadLiveTopology(); live.ok()) {
    topology = std::move(*live);
  }
  const os::CpuBudget budget = os::ReadCpuBudget();

  roofline::MachineProfile profile;
  profile.cpu_key = roofline::CpuKey(identity.vendor, identity.family, identity.model,
                                     identity.stepping, identity.brand);
  profile.vendor = identity.vendor;
  profile.brand = identity.brand;
  profile.microarchitecture = identity.microarchitecture;
  profile.measured_at = UtcNow();
  profile.dlcheck_version = kVersion;
  profile.quick = o.quick;
  profile.usable_cpus = budget.cpus;
  profile.cpu_budget = budget.Text();
  profile.unmeasured = Unmeasurable(usable, topology, budget);
  profile.vector = roofline::BandwidthKernelsFor(usable).vector;

  const roofline::MeasurePlan plan = roofline::PlanMeasurements(
      {.quick = o.quick,
       .cpus = MeasuringCpus(budget.cpus),
       .caches = topology ? DataCaches(*topology) : std::vector<roofline::CacheSize>{},
       .memory_bytes = topology ? topology->memory_bytes : 0});
  report::Progress progress("roofline", roofline::StepCount(plan, usable));
  os::SignalForwarding signals;
  profile.load_start = OneMinuteLoad();
  const auto start = std::chrono::steady_clock::now();
  roofline::Measured measured =
      roofline::Measure(plan, usable,
                        {.stop = [] { return os::SignalForwarding::Received() != 0; },
                         .step = [&progress](const std::string& name) { progress.Step(name); }});
  profile.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  profile.load_end = OneMinuteLoad();
  progress.Clear();
  profile.sweep = std::move(measured.sweep);
  profile.threads = std::move(measured.threads);
  profile.peaks = std::move(measured.peaks);
  profile.plateaus = roofline::PlateausOf(profile.sweep, plan.caches);
  if (std::optional<roofline::Unmeasured> dram = DramPlateauOutOfReach(plan, profile.plateaus)) {
    profile.unmeasured.insert(profile.unmeasured.begin(), std::move(*dram));
  }

  const int signal = os::SignalForwarding::Received();
  roofline::ProfileOrigin origin;
  if (signal != 0) origin.interrupted_by = os::SignalName(signal);
  const std::string directory = roofline::CacheDirectory();
  if (!directory.empty()) origin.path = roofline::ProfilePath(directory, profile.cpu_key);
  if (signal == 0 && !o.no_store) {
    if (directory.empty()) {
      return OutputFileError(
          "no cache directory to store the machine profile in: set "
          "XDG_CACHE_HOME or HOME, or give --no-store");
    }
    if (Status stored = roofline::StoreProfile(profile, origin.path); !stored.ok()) return stored;
    origin.stored = true;
  }
  report::Print(roofline::RooflineReport(profile, origin), o.format, std::cout);
  if (signal != 0) return 128 + signal;
  return ToInt(ExitCode::kOk);
}

}  // namespace

void SetupRoofline(CLI::App& subcommand, int& exit_code) {
  auto o = std::make_shared<RooflineOptions>();
  CLI::App* const sub = &subcommand;
  AddFormatOption(*sub, o->format);
  AddOutputOption(*sub);
  sub->add_flag("--quick", o->quick,
                "shorter samples and a coarser working-set sweep: a few seconds instead of about "
                "half a minute");
  sub->add_flag("--no-store", o->no_store,
                "measure and report, but leave the stored machine profile as it is");
  sub->add_option("--from", o->from,
                  "show this stored machine profile (a roofline-*.json of the cache directory) "
                  "instead of measuring")
      ->check(NotEmpty("file"))
      ->option_text("FILE");
  sub->callback([o, &exit_code] { exit_code = EndCommand(RunRoofline(*o)); });
}

}  // namespace dlcheck::cli
