// SPDX-License-Identifier: Apache-2.0
// dlcheck run [OPTIONS] -- CMD [ARGS...]: the verbose report of a program dlcheck did not write.
// CMD runs with oneDNN's verbose mode switched on for every generation; its stdout is read as
// it is written: verbose lines go to the log session of `parse`, everything else is passed on,
// byte for byte, to dlcheck's stderr. The report goes to stdout (or --output); dlcheck ends with
// CMD's exit status, as `time` does.
#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "cli/commands.h"
#include "cli/log_view.h"
#include "cli/process_view.h"
#include "cli/run_view.h"
#include "cli/stats_view.h"
#include "common/text.h"
#include "detect/platform.h"
#include "dispatch/capture.h"
#include "dispatch/noise.h"
#include "dispatch/run_fields.h"
#include "os/cpu_budget.h"
#include "os/output_file.h"
#include "os/signals.h"
#include "os/subprocess.h"
#include "report/primitive_columns.h"
#include "report/progress.h"
#include "verbose/aggregate.h"

namespace dlcheck::cli {
namespace {

struct RunOptions {
  std::vector<std::string> command;
  report::Format format = report::Format::kTable;
  SortKey sort = SortKey::kTime;
  std::size_t top = 0;
  std::string raw_log_path;
  std::string output_path;
  RooflineRequest roofline;  ///< --roofline, --machine-profile: the hot rows on the roofline
};

report::Value TextOrNull(const std::string& text) {
  return text.empty() ? report::Value() : report::Value(ValidUtf8(text));
}

void AddRunSection(report::Report& report, const RunOptions& o, const dispatch::Run& run) {
  const os::Outcome& ended = run.outcome;
  const verbose::LogHeader& header = run.header;
  const verbose::Summary& summary = run.summary;
  using namespace dispatch::program_run_field;
  namespace model_run_field = dispatch::model_run_field;
  report::Section& s = report.AddSection(kProgramRunPart);
  s.Add(kCommand, ValidUtf8(CommandText(o.command)));
  s.Add(kExitStatus, ended.ShellStatus());
  s.Add(kEnded, ended.Ended());
  s.Add(kSignal, ended.signaled ? TextOrNull(os::SignalName(ended.signal)) : report::Value());
  s.Add(kForwardedSignal,
        ended.interrupted != 0 ? TextOrNull(os::SignalName(ended.interrupted)) : report::Value());
  s.Add(kWallS, report::Value(ended.wall_s, 3));
  s.Add(report::kTraceOrigin, report::Value(ended.start_unix_s, 6));
  s.Add(model_run_field::kOnednnVersion, TextOrNull(header.library_version));
  s.Add(kRuntime, TextOrNull(header.runtime));
  s.Add(model_run_field::kThreads,
        header.threads ? report::Value(*header.threads) : report::Value());
  s.Add(kIsa, TextOrNull(header.isa_short.empty() ? header.isa : header.isa_short));
  s.Add(kExecMs, report::Value(summary.exec_ms, 4));
  const std::optional<double> exec_pct = dispatch::ExecPctOfWall(run);
  s.Add(kExecPctOfWall, exec_pct ? report::Value(*exec_pct, 2) : report::Value());
  s.Add(kVerboseRequest, ValidUtf8(run.verbose_request.Text()));
  s.Add(kVerboseRequestFrom, run.verbose_request.from_user ? "environment" : "dlcheck");
  s.Add(kVerboseLines, run.verbose_lines);
  s.Add(kProgramLines, run.program_output.lines);
  s.Add(kProgramBytes, run.program_output.bytes);
}

report::Report BuildReport(const RunOptions& o, dispatch::Run& run,
                           const dispatch::ProcessAudit& audit,
                           const std::optional<RooflineProfile>& machine) {
  report::Report report(RunDocument());
  AddRunSection(report, o, run);
  AddProcessSection(report, audit, os::ReadCpuBudget().cpus);
  AddRunStream(report, run, o.sort, o.top, machine ? &*machine : nullptr);
  for (Finding& f : dispatch::RunFindings(run, ValidUtf8(o.command.front()))) {
    report.findings.push_back(std::move(f));
  }
  // A oneDNN 3.x program's compute against the level 3.x dispatches on this CPU.
  if (run.header.MajorVersion() >= 3) {
    const detect::PlatformInfo host = detect::DetectLivePlatform();
    if (auto below = dispatch::BelowHostIsaFinding(run, host.onednn3_max_isa.isa)) {
      report.findings.push_back(std::move(*below));
    }
  }
  // The program's threads (its log's nthr:, the OMP_NUM_THREADS it inherited, else OpenMP's
  // default) against the CPUs this machine lets it use; a program that ran no oneDNN has none.
  if (run.verbose_lines > 0) {
    const os::CpuBudget budget = os::ReadCpuBudget();
    const std::optional<dispatch::ProgramThreads> threads = dispatch::ThreadsOfProgram(
        run.header.threads, std::getenv("OMP_NUM_THREADS"), budget, /*assume_default=*/true);
    if (threads) {
      if (std::optional<Finding> over =
              dispatch::OversubscribedFinding(*threads, budget, "the program", "")) {
        report.findings.push_back(std::move(*over));
      }
    }
  }
  const double wall_ms = run.outcome.wall_s * 1e3;
  report::SetVerdict(
      report,
      fmt::format("{} {}; {}{}", ValidUtf8(o.command.front()), run.outcome.Ended(),
                  PrimitivesVerdict(run.summary),
                  wall_ms > 0 ? fmt::format(" ({:.1f} % of {:.2f} s wall)",
                                            100 * run.summary.exec_ms / wall_ms, run.outcome.wall_s)
                              : ""));
  return report;
}

// Runs the program with its stdout split between the capture and dlcheck's stderr.
StatusOr<dispatch::Run> Capture(const RunOptions& o, os::OutputFile& raw_log,
                                dispatch::AuditSampler& sampler) {
  // Progress on a terminal: cleared before the program's own output, drawn again after it.
  report::Progress progress("run", 0);
  progress.Step(o.command.front());
  dispatch::CaptureSettings settings{.raw_log = raw_log.is_open() ? &raw_log.stream() : nullptr,
                                     .while_running = sampler.Hook()};
  if (progress.active()) {
    settings.on_output = [&progress] { progress.Clear(); };
    settings.on_chunk = [&progress] { progress.Tick(); };
  }
  return dispatch::Capture(dispatch::ProgramSource{o.command}, settings);
}

StatusOr<int> RunRun(const RunOptions& o) {
  // The machine profile of --roofline and the files, all before the program runs, so that a
  // missing profile or a bad path fails before anything is run.
  const StatusOr<std::optional<RooflineProfile>> machine = LoadRooflineProfile(o.roofline);
  if (!machine.ok()) return machine.status();
  os::OutputFile raw_log;
  if (!o.raw_log_path.empty()) {
    if (Status opened = raw_log.Open(o.raw_log_path); !opened.ok()) return opened;
  }
  os::OutputFile output;
  if (!o.output_path.empty()) {
    if (Status opened = output.Open(o.output_path); !opened.ok()) return opened;
  }
  dispatch::AuditSampler sampler;
  StatusOr<dispatch::Run> run = Capture(o, raw_log, sampler);
  if (!run.ok()) return run.status();
  // The program has run: its report is printed even when the raw log could not be kept.
  const Status raw_log_kept = raw_log.is_open() ? raw_log.Commit() : Status();
  std::ostream& out = output.is_open() ? output.stream() : std::cout;
  report::Print(BuildReport(o, *run, sampler.Result(), *machine), o.format, out);
  out.flush();
  if (output.is_open()) {
    if (Status written = output.Commit(); !written.ok()) return written;
  }
  if (!raw_log_kept.ok()) return raw_log_kept;
  // dlcheck itself was stopped (the program's own end may be 0: one that catches the signal, or
  // that joined dlcheck's group and sent it): 128 + N, never a success.
  if (run->outcome.interrupted != 0) return os::ExitStatusForSignal(run->outcome.interrupted);
  return run->outcome.ShellStatus();
}

}  // namespace

const report::contract::Document& RunDocument() {
  static const report::contract::Document kRun = [] {
    using namespace dispatch::program_run_field;
    namespace model_run_field = dispatch::model_run_field;
    namespace contract = report::contract;
    return contract::Document{
        "run",
        "a program run with oneDNN verbose on, and the per-primitive report of its log",
        {contract::Object(
             kProgramRunPart,
             {kCommand, kExitStatus, kEnded, kSignal, kForwardedSignal, kWallS,
              report::kTraceOrigin, model_run_field::kOnednnVersion, kRuntime,
              model_run_field::kThreads, kIsa, kExecMs, kExecPctOfWall, kVerboseRequest,
              kVerboseRequestFrom, kVerboseLines, kProgramLines, kProgramBytes}),
         ProcessMember(), InputMember(/*with_files=*/false), HeaderMember(), SummaryMember(),
         PrimitivesMember(/*with_layer=*/false, /*with_file=*/false), DiagnosticsMember(),
         report::TraceMember(), roofline::RowRooflineMember()},
        std::string(report::kPrimitivesTable.name)};
  }();
  return kRun;
}

void SetupRun(CLI::App& subcommand, int& exit_code) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* const sub = &subcommand;
  sub->add_option("command", o->command, "the program and its arguments, after --")->required();
  AddFormatOption(*sub, o->format, {"trace", "benchdnn"},
                  "output format: table (default), csv, json, xlsx, html (a web page with charts), "
                  "trace (Chrome trace) or "
                  "benchdnn (a command line per distinct primitive)");
  AddRowOptions(*sub, o->sort, o->top);
  AddRooflineOptions(*sub, o->roofline);
  sub->add_option("--raw-log", o->raw_log_path, "keep the program's verbose lines in FILE")
      ->type_name("FILE");
  sub->add_option("-o,--output", o->output_path, "write the report to FILE instead of stdout")
      ->type_name("FILE");
  sub->footer(
      "The program's own stdout goes to dlcheck's stderr, byte for byte; its stderr is "
      "inherited. dlcheck ends with the program's exit status (128+N for signal N; 127: not "
      "found; 126: not executable).");
  sub->callback([o, &exit_code] { exit_code = EndCommand(RunRun(*o)); });
}

}  // namespace dlcheck::cli
