// SPDX-License-Identifier: Apache-2.0
// dlcheck check: the provisioning smoke check. Gathers the evidence on this node (the platform,
// probes of what CPUID claims, the topology, a short MLP pass on oneDNN against the scalar
// reference), has src/check evaluate it, and prints through the report printers: the human table
// starts with the monitoring-plugin line `DLCHECK OK - ... | perfdata`; the exit status is
// 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN. For a fleet: `--stable` prints only what identical
// nodes share (pdsh | dshbak -c), `--emit` writes what Slurm, NFD or Prometheus read,
// `--slurm-health-check` drains and resumes this node, `--config FILE` holds the options of a
// HealthCheckProgram (which runs without arguments).
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "check/check.h"
#include "check/check_report.h"
#include "cli/commands.h"
#include "cli/enum_option.h"
#include "cli/model_options.h"
#include "detect/platform.h"
#include "detect/platform_report.h"
#include "detect/probe.h"
#include "detect/topology.h"
#include "dispatch/capture.h"
#include "dispatch/onednn_info.h"
#include "fleet/node_outputs.h"
#include "fleet/slurm_health.h"
#include "os/input_file.h"
#include "os/output_file.h"
#include "os/signals.h"

namespace dlcheck::cli {
namespace {

// What `check` prints: its report, or one of the fleet engines' formats.
enum class Emit { kReport, kSlurmFeatures, kSlurmConf, kNfd, kPrometheus };

struct CheckOptions {
  std::vector<std::string> require;
  int min_sockets = 0;
  int min_cores = 0;
  std::string expect_isa;
  bool no_scalar_fallback = false;
  report::Format format = report::Format::kTable;
  double timeout_s = 0;  ///< 0: kDefaultTimeout, or kHealthCheckTimeout with --slurm-health-check
  bool stable = false;
  Emit emit = Emit::kReport;
  std::string output;
  long nfd_expiry_s = 0;
  std::string node_name;
  bool slurm_health_check = false;
  fleet::SlurmTools slurm;
  std::string config;
};

constexpr double kDefaultTimeout = 60;
// Slurm kills a HealthCheckProgram after 60 s: the model worker must end well before.
constexpr double kHealthCheckTimeout = 20;

// The short model pass every check runs: enough steps to time, one traced; under the cap the
// environment sets (ONEDNN_MAX_CPU_ISA), as any oneDNN program here would run.
check::ModelPass ModelPassOf(const CheckOptions& o) {
  check::ModelPass pass;
  dispatch::ModelRunOptions& run = pass.source.run;
  run.model.model = mlp::ModelKind::kMlp;
  run.model.batch = 100;
  run.warmup = 1;
  run.time_s = check::kModelPassSeconds;
  run.traced = 1;
  dispatch::CaptureSettings& settings = pass.settings;
  settings.timeout_s = o.timeout_s > 0        ? o.timeout_s
                       : o.slurm_health_check ? kHealthCheckTimeout
                                              : kDefaultTimeout;
  if (const std::string cap = dispatch::ConfiguredIsaCap(); !cap.empty()) {
    settings.config = dispatch::CapConfig{cap};
  }
  // A fixed thread count, whatever OMP_NUM_THREADS says, so that nodes compare (check.h).
  settings.threads = check::kModelPassThreads;
  // A check runs every few minutes on every node: OpenMP threads that spin while they wait
  // (GNU OpenMP's default) would double its CPU time. An explicit OMP_WAIT_POLICY is kept.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr) {
    settings.extra_env.emplace_back("OMP_WAIT_POLICY", "passive");
  }
  return pass;
}

check::Evidence GatherEvidence(const check::ModelPass& pass) {
  check::Evidence e;
  e.platform = detect::DetectLivePlatform();
  detect::SetOneDnnEffectiveIsa(e.platform, dispatch::OneDnnEffectiveIsa(),
                                dispatch::IsaCapOf(pass.settings.config).value_or(""));
  if (StatusOr<detect::Topology> topology = detect::LoadLiveTopology(); topology.ok()) {
    e.topology = std::move(*topology);
  } else {
    e.topology_error = topology.status().message();
  }
  e.probes = detect::RunProbes(e.platform, true, {});
  if (StatusOr<dispatch::Run> run = dispatch::Capture(pass.source, pass.settings); run.ok()) {
    e.run = std::move(*run);
  } else {
    e.run_error = run.status().message();
  }
  e.pmu = detect::ReadPmu();
  // The limits a `dlcheck roofline` stored for this CPU; none stored (or unreadable) is no
  // problem of the node's: the metrics are left out.
  if (StatusOr<std::string> path = roofline::StoredProfilePath(); path.ok()) {
    if (StatusOr<roofline::MachineProfile> p = roofline::LoadProfile(*path); p.ok()) {
      e.machine_profile = std::move(*p);
    }
  }
  return e;
}

// The node's name for Slurm: --node-name, else SLURMD_NODENAME (set for a HealthCheckProgram and
// in jobs), else the short host name; refused when it is not a valid node name, before it can
// enter slurm.conf, a report or an scontrol command.
StatusOr<std::string> NodeName(const CheckOptions& o) {
  if (!o.node_name.empty()) return fleet::CheckedNodeName(o.node_name, "--node-name");
  if (const char* slurmd = std::getenv("SLURMD_NODENAME"); slurmd && *slurmd) {
    return fleet::CheckedNodeName(slurmd, "SLURMD_NODENAME");
  }
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0) return std::string("localhost");
  std::string name = host;
  return fleet::CheckedNodeName(name.substr(0, name.find('.')), "the host name");
}

// Physical memory in MiB as slurmd measures it (sysconf), for RealMemory; 0 when unknown.
long PhysicalMemoryMib() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page_size <= 0) return 0;
  return static_cast<long>(static_cast<long long>(pages) * page_size / (1024 * 1024));
}

// The node line's hardware fields; without a topology, the line has only NodeName and Features,
// and stderr says why.
std::optional<fleet::SlurmNodeHardware> SlurmHardware(const check::Evidence& evidence) {
  std::optional<fleet::SlurmNodeHardware> hardware;
  if (evidence.topology) hardware = fleet::NodeHardware(*evidence.topology, PhysicalMemoryMib());
  if (!hardware) {
    PrintError("the topology is unknown (" + evidence.topology_error +
               "): the node line has no CPUs, sockets, cores, threads or RealMemory");
  }
  return hardware;
}

std::string Emitted(const CheckOptions& o, std::string_view node, const check::CheckResult& result,
                    const check::Evidence& evidence, const check::ModelPass& capture) {
  switch (o.emit) {
    case Emit::kSlurmFeatures:
      return fleet::SlurmFeatureList(fleet::SlurmFeatures(result, evidence)) + "\n";
    case Emit::kSlurmConf:
      return fleet::SlurmNodeLine(node, SlurmHardware(evidence),
                                  fleet::SlurmFeatures(result, evidence)) +
             "\n";
    case Emit::kNfd:
      return fleet::NfdFeatureFile(result, evidence,
                                   o.nfd_expiry_s > 0 ? fleet::ExpiryTime(o.nfd_expiry_s) : "");
    case Emit::kPrometheus:
      return fleet::PrometheusTextfile(result, evidence);
    case Emit::kReport:
      break;
  }
  report::Report report;
  check::AddCheckReport(result, evidence, capture, report, o.stable);
  // Which node this is, for `dlcheck fleet`; left out of --stable output, where it would keep
  // identical nodes apart.
  if (!o.stable) {
    const report::Value host{std::string(node)};
    for (report::Section& section : report.sections) {
      if (section.name == check::kCheckSection.name) section.Add(check::check_field::kHost, host);
    }
  }
  detect::AddPlatform(evidence.platform, report, evidence.probes);
  std::ostringstream out;
  report::Print(report, o.format, out);
  return out.str();
}

// The output goes to stdout, or whole to --output (a dot-file renamed over it: NFD, the textfile
// collector and Ansible never read half a file).
Status Deliver(const CheckOptions& o, const std::string& text) {
  if (!o.output.empty()) return os::WriteFileReplacing(o.output, text);
  std::cout << text << std::flush;
  return {};
}

// A check stopped by a signal before its verdict: UNKNOWN (check's failure exit), the node left
// as it was.
Status Stopped(int signal) {
  return Status(ExitCode::kFailure,
                fmt::format("check stopped by {} before it could judge this node; the node is "
                            "left as it was",
                            os::SignalName(signal)));
}

StatusOr<int> RunCheck(const CheckOptions& o) {
  if (o.nfd_expiry_s > 0 && o.emit != Emit::kNfd) {
    return UsageError("--nfd-expiry goes with --emit nfd (the NFD feature file's expiry)");
  }
  StatusOr<check::Requirements> requirements = check::ParseRequirements(
      o.require, o.min_sockets, o.min_cores, o.expect_isa, o.no_scalar_fallback);
  if (!requirements.ok()) return requirements.status();
  const StatusOr<std::string> node = NodeName(o);
  if (!node.ok()) return node.status();
  const check::ModelPass capture = ModelPassOf(o);
  // SIGINT, SIGTERM and SIGHUP are kept from here to the end: being stopped is UNKNOWN, never a
  // verdict on the node (a worker killed by the signal is no failed model run), and a health
  // check stopped on the way never drains or resumes it.
  const os::SignalForwarding interrupts;
  const check::Evidence evidence = GatherEvidence(capture);
  if (const int sig = os::SignalForwarding::Received(); sig != 0) return Stopped(sig);
  const check::CheckResult result = check::Evaluate(*requirements, evidence);
  if (Status delivered = Deliver(o, Emitted(o, *node, result, evidence, capture));
      !delivered.ok()) {
    return delivered;
  }
  if (o.slurm_health_check) {
    if (const int sig = os::SignalForwarding::Received(); sig != 0) return Stopped(sig);
    StatusOr<fleet::HealthAction> action = fleet::ApplyHealthCheck(o.slurm, *node, result);
    if (const int sig = os::SignalForwarding::Received(); sig != 0) return Stopped(sig);
    if (!action.ok()) return action.status();
    if (*action != fleet::HealthAction::kNone) {
      PrintError("node " + *node + " " + std::string(fleet::HealthActionName(*action)));
    }
  }
  return check::ToInt(result.state);
}

// Options from --config FILE: `key = value` lines (INI/TOML, as CLI11 reads them), each key a
// long option of `check` without its dashes. The command line wins over the file.
// The file is read whole through the bounded reader: a directory, a device or a file over 1 MiB
// is an input error, never an empty configuration or a read without end.
Status ApplyConfig(CLI::App& sub, const std::string& path) {
  StatusOr<std::string> text = os::ReadInputFile(path, {"--config file", "", std::size_t{1} << 20});
  if (!text.ok()) return text.status();
  std::istringstream in(*text);
  std::vector<CLI::ConfigItem> items;
  try {
    items = CLI::ConfigINI().from_config(in);
  } catch (const CLI::Error& e) {
    return UsageError(fmt::format("--config {}: {}", path, e.what()));
  }
  for (const CLI::ConfigItem& item : items) {
    if (item.name == "++" || item.name == "--") continue;  // section markers
    CLI::Option* option = sub.get_option_no_throw("--" + item.name);
    if (option == nullptr || item.name == "config" || !item.parents.empty()) {
      std::vector<std::string> keys;
      for (const CLI::Option* known : sub.get_options()) {
        for (const auto& name : known->get_lnames()) {
          if (name != "config" && name != "help") keys.push_back(name);
        }
      }
      const std::string nearest = NearestName(item.fullname(), keys);
      return UsageError(fmt::format("--config {}: '{}' is not an option of dlcheck check{}", path,
                                    item.fullname(),
                                    nearest.empty() ? "" : "; did you mean '" + nearest + "'?"));
    }
    if (option->count() > 0) continue;
    try {
      option->add_result(item.inputs);
      option->run_callback();
    } catch (const CLI::Error& e) {
      return UsageError(fmt::format("--config {}: {}", path, e.what()));
    }
  }
  return {};
}

void AddFleetOptions(CLI::App& sub, CheckOptions& o) {
  sub.add_flag("--stable", o.stable,
               "print only what identical nodes share: no perfdata, timings, deviations or "
               "host name (for pdsh/srun | dshbak -c)");
  AddEnumOption(
      sub, "--emit", o.emit,
      {{"report", Emit::kReport},
       {"slurm-features", Emit::kSlurmFeatures},
       {"slurm-conf", Emit::kSlurmConf},
       {"nfd", Emit::kNfd},
       {"prometheus", Emit::kPrometheus}},
      "print instead of the report: slurm-features (Features= list), slurm-conf "
      "(a complete node line, as slurmd -C), nfd (NFD feature file), prometheus (textfile)",
      "KIND");
  sub.add_option("-o,--output", o.output,
                 "write the output to FILE (a dot-file renamed over FILE), not stdout")
      ->type_name("FILE");
  sub.add_option("--nfd-expiry", o.nfd_expiry_s,
                 "with --emit nfd: labels expire after N seconds (# +expiry-time)")
      ->check(CLI::Range(1L, 366L * 86400))
      ->type_name("N");
  sub.add_option("--node-name", o.node_name,
                 "the Slurm node name (default: SLURMD_NODENAME, else the short host name)")
      ->type_name("NAME");
  sub.add_flag("--slurm-health-check", o.slurm_health_check,
               "as Slurm's HealthCheckProgram: drain this node on CRITICAL (reason 'dlcheck: "
               "...'), resume it once dlcheck's reason no longer holds");
  sub.add_option("--scontrol", o.slurm.scontrol, "the scontrol program (default: scontrol)")
      ->type_name("PATH");
  sub.add_option("--slurm-conf", o.slurm.slurm_conf, "SLURM_CONF for scontrol")->type_name("FILE");
  sub.add_option("--config", o.config,
                 "read options from FILE: 'key = value' lines, keys are long options "
                 "(require = avx512bw,avx512vl); the command line wins")
      ->type_name("FILE");
}

}  // namespace

void SetupCheck(CLI::App& subcommand, int& exit_code) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* const sub = &subcommand;
  sub->add_option("--require", o->require,
                  "features (/proc/cpuinfo names) or oneDNN ISA levels this node must have, "
                  "comma-separated (e.g. avx512bw,avx512vl,avx512dq or avx512_core_bf16)")
      ->delimiter(',')
      ->type_name("LIST");
  sub->add_option("--min-sockets", o->min_sockets, "at least N sockets (packages)")
      ->check(CLI::Range(1, 4096))
      ->type_name("N");
  sub->add_option("--min-cores", o->min_cores, "at least N cores")
      ->check(CLI::Range(1, 1 << 20))
      ->type_name("N");
  sub->add_option("--expect-isa", o->expect_isa,
                  "the model's compute primitives must dispatch at least this oneDNN ISA")
      ->type_name("ISA");
  sub->add_flag("--no-scalar-fallback", o->no_scalar_fallback,
                "a scalar fallback is CRITICAL, not a WARNING");
  AddCaptureOptions(*sub, {.timeout_s = &o->timeout_s,
                           .timeout_help = "kill the model worker after this many seconds "
                                           "(default 60; 20 with --slurm-health-check)"});
  AddFormatOption(*sub, o->format, {"text"},
                  "output format: table or text (the status line, then details; default), csv "
                  "(the checks), json, xlsx or html (a web page)");
  AddFleetOptions(*sub, *o);
  // Every failure of the check itself is UNKNOWN (the command table's row says so for the
  // failures main ends: a bad command line, memory, a report that cannot be written).
  const int unknown = check::ToInt(check::State::kUnknown);
  sub->callback([sub, o, &exit_code, unknown] {
    if (!o->config.empty()) {
      if (Status applied = ApplyConfig(*sub, o->config); !applied.ok()) {
        exit_code = EndCommand(applied, unknown);
        return;
      }
    }
    exit_code = EndCommand(RunCheck(*o), unknown);
  });
}

}  // namespace dlcheck::cli
