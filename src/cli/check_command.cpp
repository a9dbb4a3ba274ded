// dlcheck check: the provisioning smoke check. Gathers the evidence on this node (the platform,
// probes of what CPUID claims, the topology, a short MLP pass on oneDNN against the scalar
// reference), has src/check evaluate it, and prints through the report printers: the human table
// starts with the monitoring-plugin line `DLCHECK OK - ... | perfdata`; the exit status is
// 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN.
#include <cstdlib>
#include <iostream>

#include "check/check.h"
#include "check/check_report.h"
#include "cli/commands.h"
#include "detect/platform.h"
#include "detect/platform_report.h"
#include "detect/probe.h"
#include "detect/topology.h"
#include "dispatch/capture.h"
#include "dispatch/onednn_info.h"

namespace dlcheck::cli {
namespace {

struct CheckOptions {
  std::vector<std::string> require;
  int min_sockets = 0;
  int min_cores = 0;
  std::string expect_isa;
  bool no_scalar_fallback = false;
  report::Format format = report::Format::kTable;
  double timeout_s = 60;
};

// A node configured with ONEDNN_MAX_CPU_ISA is checked as configured: the worker gets the cap.
std::string ConfiguredIsaCap() {
  for (const char* name : {"ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA"}) {
    if (const char* value = std::getenv(name)) return value;
  }
  return {};
}

// The short model pass every check runs: enough steps to time, one traced.
dispatch::CaptureOptions ModelPass(const CheckOptions& o, const std::string& cap) {
  dispatch::CaptureOptions capture;
  capture.run.model.model = mlp::ModelKind::kMlp;
  capture.run.model.batch = 100;
  capture.run.warmup = 1;
  capture.run.iters = 5;
  capture.run.traced = 1;
  capture.timeout_s = o.timeout_s;
  capture.max_cpu_isa = cap;
  return capture;
}

check::Evidence GatherEvidence(const dispatch::CaptureOptions& capture) {
  check::Evidence e;
  e.platform = detect::DetectLivePlatform();
  detect::SetOneDnnEffectiveIsa(e.platform, dispatch::OneDnnEffectiveIsa(), capture.max_cpu_isa);
  if (StatusOr<detect::Topology> topology = detect::LoadLiveTopology(); topology.ok()) {
    e.topology = std::move(*topology);
  } else {
    e.topology_error = topology.status().message();
  }
  e.probes = detect::RunProbes(e.platform, true, {});
  if (StatusOr<dispatch::CapturedRun> run = dispatch::CaptureModelRun(capture); run.ok()) {
    e.run = std::move(*run);
  } else {
    e.run_error = run.status().message();
  }
  return e;
}

StatusOr<int> RunCheck(const CheckOptions& o) {
  StatusOr<check::Requirements> requirements = check::ParseRequirements(
      o.require, o.min_sockets, o.min_cores, o.expect_isa, o.no_scalar_fallback);
  if (!requirements.ok()) return requirements.status();
  const dispatch::CaptureOptions capture = ModelPass(o, ConfiguredIsaCap());
  const check::Evidence evidence = GatherEvidence(capture);
  const check::CheckResult result = check::Evaluate(*requirements, evidence);

  report::Report report;
  check::AddCheckReport(result, evidence, capture, report);
  detect::AddPlatform(evidence.platform, report, evidence.probes);
  report.primary_table = "checks";  // AddPlatform makes its features table the primary one
  report::Print(report, o.format, std::cout);
  return check::ToInt(result.state);
}

}  // namespace

void SetupCheck(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<CheckOptions>();
  auto* sub = app.add_subcommand(
      "check",
      "provisioning smoke check: requirements, probes and a short MLP pass; exit 0 OK, "
      "1 WARNING, 2 CRITICAL, 3 UNKNOWN");
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
  sub->add_option("--timeout", o->timeout_s,
                  "kill the model worker after this many seconds (default 60)")
      ->check(CLI::PositiveNumber)
      ->type_name("SECONDS");
  AddFormatOption(*sub, o->format, {"text"},
                  "output format: table or text (the status line, then details; default), csv "
                  "(the checks) or json");
  const int unknown = check::ToInt(check::State::kUnknown);
  // A monitoring system reads the status: once `check` is named, a bad command line is UNKNOWN,
  // and so is any failure of the check itself.
  sub->preparse_callback([&exit_code, unknown](std::size_t) { exit_code = unknown; });
  sub->callback([o, &exit_code, unknown] { exit_code = EndCommand(RunCheck(*o), unknown); });
}

}  // namespace dlcheck::cli
