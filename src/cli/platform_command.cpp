// SPDX-License-Identifier: Apache-2.0
// dlcheck platform: what this CPU machine can do, layer by layer, or what a recorded one could.
#include <filesystem>
#include <iostream>
#include <system_error>

#include "cli/commands.h"
#include "common/exit_code.h"
#include "common/finding_codes.h"
#include "common/status.h"
#include "detect/aarch64.h"
#include "detect/cpuid_dump.h"
#include "detect/cpuid_source.h"
#include "detect/platform.h"
#include "detect/platform_report.h"
#include "detect/pmu.h"
#include "detect/probe.h"
#include "detect/topology.h"
#include "detect/topology_report.h"
#include "dispatch/onednn_info.h"
#include "os/output_file.h"
#include "roofline/machine_profile.h"
#include "roofline/roofline_report.h"

namespace dlcheck::cli {
namespace {

struct PlatformOptions {
  report::Format format = report::Format::kTable;
  std::string cpuid_dump;    ///< replay this raw CPUID dump instead of the live CPU
  std::string cpuinfo_dump;  ///< replay this AArch64 /proc/cpuinfo, lscpu or raw directory
  std::string topology;      ///< replay this hwloc XML topology instead of the live one
  std::string save_raw;      ///< write this machine's raw evidence into this directory
  bool probe = false;        ///< --probe given: probe what CPUID claims
  bool all = false;          ///< --all: every row and table in the human table
  std::vector<std::string> probe_forced;  ///< --probe FEATURE: probe these whatever CPUID says
};

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

Status SaveRaw(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    return OutputFileError("cannot create directory '" + dir + "' for --save-raw: " + ec.message());
  }
  StatusOr<detect::CpuidDump> dump = detect::DumpLiveCpuid();
  if (!dump.ok()) return dump.status();
  const std::string path = (std::filesystem::path(dir) / "cpuid.test").string();
  const Status written = os::WriteFileReplacing(path, detect::FormatCpuidDump(*dump));
  if (!written.ok()) return written;
  const std::string xml = (std::filesystem::path(dir) / "topology.xml").string();
  const Status topology = detect::SaveLiveTopologyXml(xml);
  if (!topology.ok()) return topology;
  PrintError("wrote " + path + " (" + std::to_string(dump->cpus.size()) + " logical CPUs) and " +
             xml + "; replay with --cpuid-dump " + path + " --topology " + xml);
  return {};
}

// The topology section: from --topology, else live; a recorded CPU without --topology has none
// (this machine's topology would describe the wrong machine) but what its recording says.
Status AddTopologySection(const PlatformOptions& options, const detect::PlatformInfo& info,
                          report::Report& report) {
  if (options.topology.empty() && info.aarch64() != nullptr) {
    detect::AddRecordedAarch64Topology(*info.aarch64(), info.logical_cpus, report);
    return {};
  }
  if (options.topology.empty() && !options.cpuid_dump.empty()) {
    report.AddSection(detect::kTopologySection)
        .Add(detect::topology_field::kSource, report::Value());
    report.AddFinding(report::Severity::kInfo, codes::kNoTopology,
                      "the topology of the recorded machine is unknown: pass its hwloc XML with "
                      "--topology FILE");
    return {};
  }
  StatusOr<detect::Topology> topology = options.topology.empty()
                                            ? detect::LoadLiveTopology()
                                            : detect::LoadTopologyXml(options.topology);
  if (!topology.ok()) {
    if (!options.topology.empty()) return topology.status();
    // The CPU part stands on its own: a live hwloc failure is a finding, not the end.
    report.AddSection(detect::kTopologySection)
        .Add(detect::topology_field::kSource, report::Value());
    report.AddFinding(
        report::Severity::kWarning, codes::kTopologyUnavailable,
        "hwloc could not read this machine's topology: " + topology.status().message());
    return {};
  }
  detect::AddTopology(*topology, report, options.all);
  return {};
}

// What only the live machine can say: its hardware counters, and the machine profile
// `dlcheck roofline` stored for this CPU (a profile that cannot be read is said, not fatal).
void AddLiveMachine(const detect::PlatformInfo& info, report::Report& report) {
  if (std::optional<Finding> no_pmu = detect::NoPmuFinding(detect::ReadPmu(), info.cpu)) {
    report.findings.push_back(std::move(*no_pmu));
  }
  StatusOr<std::string> path = roofline::StoredProfilePath();
  if (!path.ok()) return;
  StatusOr<roofline::MachineProfile> profile = roofline::LoadProfile(*path);
  if (!profile.ok()) {
    report.AddFinding(report::Severity::kWarning, codes::kMachineProfileUnreadable,
                      profile.status().message());
    return;
  }
  roofline::AddMachineProfileSection(*profile, *path, report);
}

StatusOr<int> RunPlatform(const PlatformOptions& options) {
  if (!options.cpuid_dump.empty() && !options.cpuinfo_dump.empty()) {
    return UsageError(
        "--cpuid-dump (an x86 machine) and --cpuinfo-dump (an AArch64 machine) replay one "
        "machine each: give one of them");
  }
  const bool recorded = !options.cpuid_dump.empty() || !options.cpuinfo_dump.empty();
  if (!options.cpuinfo_dump.empty() && (!options.save_raw.empty() || options.probe)) {
    return UsageError(
        "--cpuinfo-dump replays a recorded AArch64 machine and cannot be combined with " +
        std::string(options.probe ? "--probe" : "--save-raw") + ", which " +
        (options.probe ? "runs instructions on" : "records") + " this machine");
  }
  if (!options.save_raw.empty() && (!options.cpuid_dump.empty() || !options.topology.empty())) {
    return UsageError(
        "--save-raw records this machine and cannot be combined with --cpuid-dump or "
        "--topology");
  }
  if (options.probe && !options.cpuid_dump.empty()) {
    return UsageError(
        "--probe runs instructions on this machine and cannot be combined with --cpuid-dump "
        "(the recorded machine is not this one)");
  }
  for (const auto& name : options.probe_forced) {
    if (auto error = detect::CheckProbeName(name)) return UsageError(*error);
  }
  detect::PlatformInfo info;
  if (!options.cpuid_dump.empty()) {
    StatusOr<detect::PlatformInfo> replayed = detect::DetectRecordedPlatform(options.cpuid_dump);
    if (!replayed.ok()) return replayed.status();
    info = std::move(*replayed);
  } else if (!options.cpuinfo_dump.empty()) {
    StatusOr<detect::PlatformInfo> replayed =
        detect::DetectRecordedAarch64Platform(options.cpuinfo_dump);
    if (!replayed.ok()) return replayed.status();
    info = std::move(*replayed);
  } else {
    info = detect::DetectLivePlatform();
    std::string cap = EnvOrEmpty("ONEDNN_MAX_CPU_ISA");
    if (cap.empty()) cap = EnvOrEmpty("DNNL_MAX_CPU_ISA");
    detect::SetOneDnnEffectiveIsa(info, dispatch::OneDnnEffectiveIsa(), cap);
  }
  if (!options.save_raw.empty()) {
    if (Status saved = SaveRaw(options.save_raw); !saved.ok()) return saved;
  }
  std::vector<detect::ProbeResult> probes;
  if (options.probe) {
    probes = detect::RunProbes(info, options.probe_forced.empty(), options.probe_forced);
  }
  report::Report report = detect::PlatformReport(info, probes, {.all = options.all});
  if (options.probe) {
    detect::AddProbesTable(info, probes, report);
    detect::AddProbeFindings(info, probes, report);
  }
  if (Status topology = AddTopologySection(options, info, report); !topology.ok()) {
    return topology;
  }
  if (!recorded) AddLiveMachine(info, report);
  report::SetVerdict(report, detect::PlatformVerdict(info));
  // A report lost on a full disk or a closed stdout is a write error: main checks it for every
  // command.
  report::Print(report, options.format, std::cout);
  return ToInt(ExitCode::kOk);
}

}  // namespace

// Refuses an empty FILE or DIR (`--cpuid-dump ''`), which would otherwise mean "not given".
CLI::Validator NotEmpty(const std::string& what) {
  return CLI::Validator(
      [what](std::string& value) {
        return value.empty() ? "an empty " + what + " name was given: give a path" : std::string();
      },
      "", "not empty");
}

void SetupPlatform(CLI::App& subcommand, int& exit_code) {
  auto options = std::make_shared<PlatformOptions>();
  CLI::App* const sub = &subcommand;
  AddFormatOption(*sub, options->format);
  AddOutputOption(*sub);
  sub->add_option("--cpuid-dump", options->cpuid_dump,
                  "replay a raw CPUID dump (libcpuid .test or .test.xz, or `cpuid -r` output) "
                  "instead of this CPU")
      ->check(NotEmpty("file"))
      ->option_text("FILE");
  sub->add_option("--cpuinfo-dump", options->cpuinfo_dump,
                  "replay an AArch64 machine: its /proc/cpuinfo or lscpu output, or a directory "
                  "holding cpuinfo and, where recorded, hwcap, hwcap2, midr_el1 and sve_vl")
      ->check(NotEmpty("file or directory"))
      ->option_text("FILE|DIR");
  sub->add_option("--topology", options->topology,
                  "replay an hwloc XML topology (lstopo --of xml) instead of this machine's")
      ->check(NotEmpty("file"))
      ->option_text("FILE");
  sub->add_flag("--all", options->all,
                "show every row and table in the human table: the per-CPU map, and AMX features "
                "and CPUID leaf 1Ah's core kinds on AMD (CSV and JSON always have them)");
  sub->add_option("--save-raw", options->save_raw,
                  "write this machine's raw CPUID dump (cpuid.test) and hwloc topology "
                  "(topology.xml) into DIR, to replay later")
      ->check(NotEmpty("directory"))
      ->option_text("DIR");
  auto* probe =
      sub->add_option("--probe", options->probe_forced,
                      "execute one instruction of each feature CPUID claims, in a child process; "
                      "--probe FEATURE probes just that one, even if CPUID denies it")
          ->expected(0, 1)
          ->option_text("[FEATURE]");
  sub->callback([options, probe, &exit_code] {
    options->probe = probe->count() > 0;
    // A bare --probe leaves one empty value behind.
    std::erase(options->probe_forced, std::string());
    for (auto& name : options->probe_forced) name = CLI::detail::to_lower(name);
    exit_code = EndCommand(RunPlatform(*options));
  });
}

}  // namespace dlcheck::cli
