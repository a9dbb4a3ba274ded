// SPDX-License-Identifier: Apache-2.0
// dlcheck profile [--model mlp|cnn ...] | [OPTIONS] -- CMD [ARGS...]: where the CPU time goes.
// `perf record` wraps dlcheck's model worker (or CMD) while the verbose capture runs, with
// oneDNN's perf map on so that JIT kernels have names; `perf script` is then read back as a
// stream into classes, JIT kernels by primitive, off-CPU time and collapsed stacks. The report
// goes to stdout (or --output): table, CSV, JSON, folded stacks, an SVG flame graph or a
// speedscope file.
#include <fmt/format.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "cli/model_options.h"
#include "cli/process_view.h"
#include "cli/run_view.h"
#include "cli/stats_view.h"
#include "common/text.h"
#include "dispatch/capture.h"
#include "dispatch/noise.h"
#include "dispatch/process_audit.h"
#include "dispatch/run_fields.h"
#include "os/cpu_budget.h"
#include "os/exit_status.h"
#include "os/output_file.h"
#include "os/scratch_directory.h"
#include "os/signals.h"
#include "os/subprocess.h"
#include "profile/exec_join.h"
#include "profile/perf.h"
#include "profile/perf_map.h"
#include "profile/perf_script.h"
#include "profile/profile.h"
#include "profile/profile_report.h"
#include "profile/verdict.h"
#include "report/primitive_columns.h"
#include "report/progress.h"

namespace dlcheck::cli {
namespace {
namespace col = report::primitive_column;

struct ProfileOptions {
  dispatch::ModelSource model;  ///< the model run (without CMD)
  dispatch::CaptureSettings capture{.timeout_s = dispatch::kWorkerTimeoutS};
  std::vector<std::string> command;  ///< CMD and its arguments; empty: the model
  report::Format format = report::Format::kTable;
  profile::PerfSettings perf;
  bool no_off_cpu = false;
  std::size_t top = 20;
  std::string perf_data_path;  ///< keep perf.data (and the perf maps) here; empty: a scratch dir
  std::string output_path;
  std::string folded_path;  ///< --folded FILE: collapsed stacks beside the report
  std::string svg_path;     ///< --svg FILE: the flame graph beside the report
  // The noise guard, as `verbose` keeps it: the thread count and why, the load before and after.
  dispatch::CaptureFrame frame;
  dispatch::ProcessAudit audit;  ///< what was sampled of the recorded processes while they ran
};

// The noise guard's fields are verbose's (dispatch::model_run_field), declared again in profile's
// document because dispatch depends on profile.
static_assert(profile::profile_field::kThreadsFrom.name ==
              dispatch::model_run_field::kThreadsFrom.name);
static_assert(profile::profile_field::kLoadStart.name ==
              dispatch::model_run_field::kLoadStart.name);
static_assert(profile::profile_field::kLoadEnd.name == dispatch::model_run_field::kLoadEnd.name);

}  // namespace

// profile's own tables (profile::ProfileDocument) and the process section of the commands that
// run a program (cli/process_view.h), declared here because the profile module knows no cli.
const report::contract::Document& ProfileCommandDocument() {
  static const report::contract::Document kDocument = [] {
    report::contract::Document document = profile::ProfileDocument();
    document.members.insert(document.members.begin() + 1, ProcessMember());
    return document;
  }();
  return kDocument;
}

namespace {

// The status profile ends with after its report: CMD's (as `run` ends), 0 for the model.
int ExitStatusOf(const dispatch::Run& r) {
  return r.model ? 0 : r.outcome.ShellStatus();
}

// The model worker or CMD under perf record (`launcher`), with oneDNN's perf maps on and the
// timeline kept for the join; progress on a terminal as `verbose` and `run` draw it.
StatusOr<dispatch::Run> Record(const ProfileOptions& o, std::vector<std::string> launcher) {
  dispatch::CaptureSettings settings = o.capture;
  settings.launcher = std::move(launcher);
  settings.max_timeline = verbose::kMaxJoinedTimeline;
  for (const auto& kv : profile::JitProfileEnvironment()) settings.extra_env.push_back(kv);
  report::Progress progress("profile", 0);
  if (!o.command.empty()) {
    settings.timeout_s = 0;  // CMD runs as long as it runs
    progress.Step(o.command.front());
  }
  if (progress.active()) {
    settings.on_phase = [&progress](std::string_view phase) { progress.Phase(std::string(phase)); };
    settings.on_output = [&progress] { progress.Clear(); };
    settings.on_chunk = [&progress] { progress.Tick(); };
  }
  const dispatch::RunSource source = o.command.empty()
                                         ? dispatch::RunSource(o.model)
                                         : dispatch::RunSource(dispatch::ProgramSource{o.command});
  StatusOr<dispatch::Run> run = dispatch::Capture(source, settings);
  if (!run.ok()) return run.status();
  // Stopped on the user's word (the signal dlcheck passed on): what perf recorded is reported.
  if (run->model && !run->outcome.ok() && run->outcome.interrupted == 0) {
    if (const std::string err = run->WorkerError(); !err.empty()) std::cerr << err << '\n';
    return Status(ExitCode::kWorkerFailed,
                  fmt::format("the model worker (under perf record) {}", run->outcome.Describe()));
  }
  return run;
}

// Removes the perf maps of the processes the recording saw, sampled or not, and of no other: a
// map of a process that ended is another run's as much as this one's (two profiles side by
// side, a JIT engine of the user's), and removing it would cost that run its JIT names. When the
// recording could not be read whole, its task events are read alone; a recording that cannot be
// read at all leaves its maps (/tmp/perf-PID.map) where oneDNN wrote them.
void RemoveTheRunsPerfMaps(const profile::PerfSettings& perf, const StatusOr<profile::Profile>& p) {
  if (p.ok()) {
    profile::RemovePerfMaps(p->pids);
    profile::RemovePerfMaps(p->recorded_pids);
    return;
  }
  if (profile::CheckRecordingWritten(perf).ok()) {
    if (StatusOr<std::set<int>> pids = profile::ReadRecordedPids(perf); pids.ok()) {
      profile::RemovePerfMaps(*pids);
    }
  }
}

// When perf.data was last written (the end of the recording); nullopt when it cannot be told.
std::optional<std::int64_t> RecordingWrittenAt(const std::string& perf_data_path) {
  struct stat st {};
  if (stat(perf_data_path.c_str(), &st) != 0) return std::nullopt;
  return static_cast<std::int64_t>(st.st_mtime);
}

StatusOr<profile::Profile> ReadProfile(const profile::PerfSettings& perf,
                                       const profile::ExecTimeline& timeline) {
  const auto start = std::chrono::steady_clock::now();
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  profile::ProfileBuilder builder;
  builder.UseExecTimeline(&timeline);
  // The callers of JIT kernels, from the stack copies in perf.data (while oneDNN's perf maps are
  // still there): not fatal when perf.data cannot be scanned, the report says why. A signal
  // received from here on (not one that stopped the recording) stops the reading at once.
  const int signals_before = os::SignalForwarding::ReceivedCount();
  const auto signalled = [signals_before] {
    return os::SignalForwarding::ReceivedCount() != signals_before;
  };
  StatusOr<profile::ScannedStacks> scanned =
      profile::ScanJitStacks(perf.data_path, profile::kPerfMapDir, signalled);
  if (signalled()) {
    return Status(ExitCode::kFailure, "stopped while its stacks were scanned");
  }
  if (scanned.ok()) builder.UseScannedStacks(&*scanned);
  profile::PerfScriptParser parser([&](const profile::PerfRecord& r) { builder.Add(r); });
  if (Status read = profile::ReadPerfScript(perf, [&](std::string_view l) { parser.Feed(l); });
      !read.ok()) {
    return read;
  }
  parser.Finish();
  profile::Profile p = builder.profile();
  p.read_s = seconds_since(start);
  // The code the samples ran in, decoded from files as they were when the recording ended.
  const auto decode_start = std::chrono::steady_clock::now();
  profile::CodeClassifier classifier(RecordingWrittenAt(perf.data_path));
  profile::ClassifyLeafCode(p, classifier);
  p.decode_s = seconds_since(decode_start);
  if (!scanned.ok()) p.stack_scan_error = scanned.status().message();
  if (scanned.ok()) p.stack_scan_bounds = scanned->bounds_reached;
  return p;
}

// The model's timed phase under perf: about 3,000 samples at perf's default 999 Hz, whatever the
// CPU's speed (the step count is derived from the time, not fixed).
constexpr double kProfileTimedSeconds = 3.0;

// A signal (Ctrl-C, SIGTERM, SIGHUP) stopped the profile before anything could be reported:
// one line saying so, and the status the signal gives.
int NothingRecorded(int signal, const std::string& why) {
  PrintError(fmt::format("profile interrupted by {}: {}", os::SignalName(signal), why));
  return os::ExitStatusForSignal(signal);
}

void AddProfileSection(report::Report& report, const ProfileOptions& o, const dispatch::Run& r,
                       const profile::Profile& p, const profile::PerfProbe& probe) {
  using namespace profile::profile_field;
  report::Section& s = report.AddSection(profile::kProfileSection);
  s.Add(kCommand, o.command.empty() ? report::Value(fmt::format("dlcheck worker --model {}",
                                                                mlp::Name(o.model.run.model.model)))
                                    : report::Value(ValidUtf8(CommandText(o.command))));
  s.Add(kEnded, r.outcome.Describe());
  s.Add(kEvent, p.event);
  s.Add(kFrequencyHz, o.perf.frequency);
  s.Add(kCallGraph, profile::CallGraphArgument(o.perf.call_graph));
  s.Add(kSamples, p.samples);
  s.Add(kDurationS, report::Value(p.last_s - p.first_s, 3));
  s.Add(kProcesses, p.pids.size());
  s.Add(kThreads, p.tids.size());
  s.Add(kJitKernels, p.kernel_samples.size());
  const std::optional<double> attributed = profile::OperatorAttributedPct(p);
  s.Add(kOperatorAttributedPct, attributed ? report::Value(*attributed, 1) : report::Value());
  s.Add(kScannedSamples, p.scanned_samples);
  s.Add(kTimedExecutions, p.exec_spans);
  s.Add(kExecJoinedSamples, p.exec_joined_samples);
  const std::optional<double> samples_per_s = r.Number(dispatch::result_key::kSamplesPerS);
  s.Add(kSamplesPerS, samples_per_s ? report::Value(*samples_per_s, 1) : report::Value());
  const std::optional<double> budget =
      o.command.empty() ? dispatch::TimedBudget(o.model.run) : std::nullopt;
  s.Add(kTimedS, budget ? report::Value(*budget, 3) : report::Value());
  s.Add(kVerboseLines, r.verbose_lines);
  s.Add(kVerboseExecMs, report::Value(r.summary.exec_ms, 3));
  const bool off_cpu = probe.off_cpu && !o.no_off_cpu;
  s.Add(kOffCpuRecorded, off_cpu);
  s.Add(kOffCpuS, off_cpu ? report::Value(profile::OffCpuSeconds(p), 4) : report::Value());
  s.Add(kBlockedS,
        off_cpu ? report::Value(profile::OffCpuSeconds(p, {"S", "D"}), 4) : report::Value());
  s.Add(kPreemptedS,
        off_cpu ? report::Value(profile::OffCpuSeconds(p, {"R"}), 4) : report::Value());
  s.Add(kPerfData, o.perf_data_path.empty() ? report::Value() : report::Value(o.perf_data_path));
  const std::string verdict = profile::ProfileVerdict(p, r.rows);
  s.Add(kVerdict, verdict.empty() ? report::Value() : report::Value(verdict));
  const std::string mix = profile::InstructionMixVerdict(p);
  s.Add(kInstructionMix, mix.empty() ? report::Value() : report::Value(mix));
  s.Add(kReadS, report::Value(p.read_s, 3));
  s.Add(kDecodeS, report::Value(p.decode_s, 3));
  AddNoiseGuard(report, s, o.frame);
}

// The collapsed stacks that --format folded and svg print, with the flame graph's two lines.
void AddStacksTable(report::Report& report, const ProfileOptions& o, const profile::Profile& p) {
  const std::vector<std::string> what =
      o.command.empty()
          ? std::vector<std::string>{"--model", std::string(mlp::Name(o.model.run.model.model))}
          : o.command;
  profile::AddStacksTable(
      report, p, "dlcheck profile " + ValidUtf8(CommandText(what)),
      fmt::format("{} samples of {} at {} Hz; JIT kernels green, OS kernel blue", p.samples,
                  p.event, o.perf.frequency));
}

report::Report BuildReport(const ProfileOptions& o, const dispatch::Run& r,
                           const profile::Profile& p, const profile::PerfProbe& probe) {
  report::Report report(ProfileCommandDocument());
  AddProfileSection(report, o, r, p, probe);
  AddProcessSection(report, o.audit, os::ReadCpuBudget().cpus);
  std::string off_cpu_reason = probe.off_cpu_reason;
  if (o.no_off_cpu) off_cpu_reason = "--no-off-cpu was given";
  profile::AddProfileTables(report, p, r.rows, {.top = o.top, .off_cpu_reason = off_cpu_reason});
  std::vector<verbose::PrimitiveStats> rows = r.rows;
  SortRows(rows, SortKey::kTime);
  AddPrimitivesTable(report, std::move(rows), r.summary.exec_ms, o.top);
  report.tables.back().hidden_in_table =
      report::Names({col::kEngine, col::kPropKind, col::kDataTypes, col::kLayouts, col::kAttributes,
                     col::kAuxiliary, col::kProblem, col::kExecMsMin, col::kExecMsMax,
                     col::kCreateMs, col::kCacheHits});
  AddStacksTable(report, o, p);
  if (auto kept = dispatch::VerboseKeptFinding(r.verbose_request)) {
    report.findings.push_back(std::move(*kept));
  }
  report::SetVerdict(report, profile::ProfileVerdict(p));
  return report;
}

// --folded FILE and --svg FILE: the flame graph beside the report, from the same recording.
Status WriteExtraOutputs(const ProfileOptions& o, const report::Report& report) {
  for (const auto& [path, format] : {std::pair{o.folded_path, report::Format::kFolded},
                                     std::pair{o.svg_path, report::Format::kSvg}}) {
    if (path.empty()) continue;
    os::OutputFile out;
    if (Status opened = out.Open(path); !opened.ok()) return opened;
    report::Print(report, format, out.stream());
    if (Status written = out.Commit(); !written.ok()) return written;
  }
  return {};
}

// The report (and --folded, --svg); a signal received while perf recorded is said after it.
StatusOr<int> WriteReport(const ProfileOptions& o, const dispatch::Run& r,
                          const profile::Profile& p, const profile::PerfProbe& probe,
                          os::OutputFile& output) {
  const report::Report report = BuildReport(o, r, p, probe);
  if (Status extra = WriteExtraOutputs(o, report); !extra.ok()) return extra;
  std::ostream& out = output.is_open() ? output.stream() : std::cout;
  report::Print(report, o.format, out);
  out.flush();
  if (output.is_open()) {
    if (Status written = output.Commit(); !written.ok()) return written;
  }
  if (const int sig = os::SignalForwarding::Received(); sig != 0) {
    PrintError(fmt::format("interrupted by {}; the report holds what perf recorded before",
                           os::SignalName(sig)));
    return os::ExitStatusForSignal(sig);
  }
  return ExitStatusOf(r);
}

// The recording and its report. A signal stops the recording (passed on to perf and what it
// records), never the report of what was recorded.
StatusOr<int> RecordAndReport(ProfileOptions& o, const std::string& perf,
                              os::ScratchDirectory& scratch, os::OutputFile& output) {
  using os::SignalForwarding;
  o.perf.perf = perf;
  o.perf.data_path = o.perf_data_path.empty() ? scratch.File("perf.data") : o.perf_data_path;
  StatusOr<profile::PerfProbe> probe = profile::ProbePerf(o.perf, scratch.path());
  if (const int sig = SignalForwarding::Received(); sig != 0) {
    return NothingRecorded(sig, "perf had not started recording; nothing to report");
  }
  if (!probe.ok()) return probe.status();
  const auto launcher = profile::RecordCommand(o.perf, probe->off_cpu && !o.no_off_cpu);
  // verbose's thread policy: --threads, else OMP_NUM_THREADS, else the idle cores, never an
  // oversubscribed run profiled as if it were the program's own.
  StatusOr<dispatch::CaptureFrame> frame = dispatch::StartCaptureFrame(o.capture.threads);
  if (!frame.ok()) return frame.status();
  o.frame = std::move(*frame);
  o.capture.threads = o.frame.threads.threads;
  // The audit samples perf and the program it started (its descendants) while they run.
  dispatch::AuditSampler sampler;
  o.capture.while_running = sampler.Hook();
  StatusOr<dispatch::Run> rec = Record(o, launcher);
  o.capture.while_running = nullptr;
  o.audit = sampler.Result();
  dispatch::EndCaptureFrame(o.frame);
  if (!rec.ok() && SignalForwarding::Received() == 0) return rec.status();
  const profile::ExecTimeline timeline(
      rec.ok() ? profile::ExecSpans(rec->execs, profile::WallClockAheadOfMonotonicS())
               : std::vector<profile::ExecSpan>{});
  StatusOr<profile::Profile> p = rec.status();
  if (rec.ok()) {
    if (Status written = profile::CheckRecordingWritten(o.perf); !written.ok()) {
      p = written;
    } else {
      p = ReadProfile(o.perf, timeline);
    }
  }
  const int interrupted = SignalForwarding::Received();
  if (o.perf_data_path.empty()) RemoveTheRunsPerfMaps(o.perf, p);
  if (interrupted != 0) {
    if (std::optional<std::string> why = profile::NothingToReport(p))
      return NothingRecorded(interrupted, *why);
  }
  if (!p.ok()) return p.status();
  const std::string what = o.command.empty() ? "the model worker" : ValidUtf8(o.command.front());
  if (Status reportable = profile::CheckReportable(*p, what, rec->outcome.Describe(), o.perf);
      !reportable.ok()) {
    return reportable;
  }
  return WriteReport(o, *rec, *p, *probe, output);
}

// --perf-data FILE: perf writes it, so it is a regular file or a new name; a device, a FIFO or
// a directory is refused before anything runs (perf would write into /dev/null and leave
// nothing to read).
Status CheckPerfDataPath(const std::string& path) {
  struct stat info {};
  if (path.empty() || ::stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return {};
  return OutputFileError(fmt::format(
      "--perf-data '{}' is not a regular file: perf writes its recording to a file that it can "
      "read back",
      ValidUtf8(path)));
}

StatusOr<int> RunProfile(ProfileOptions& o) {
  if (o.command.empty()) {
    if (Status valid = mlp::Validate(o.model.run.model); !valid.ok()) return valid;
  }
  const char* path = std::getenv("PATH");
  const std::string path_list = path != nullptr ? path : "/usr/bin:/bin";
  StatusOr<std::string> perf = profile::FindPerf(path_list);
  if (!perf.ok()) return perf.status();
  os::OutputFile output;
  if (!o.output_path.empty()) {
    if (Status opened = output.Open(o.output_path); !opened.ok()) return opened;
  }
  if (Status kept = CheckPerfDataPath(o.perf_data_path); !kept.ok()) return kept;
  // CMD looked up here, so that a missing program is named as `run` names it (perf would only
  // say "Workload failed").
  if (!o.command.empty()) {
    StatusOr<std::string> program = os::FindProgram(o.command.front(), path_list);
    if (!program.ok()) {
      return Status(program.status().code(), ValidUtf8(program.status().message()));
    }
  }
  // SIGINT, SIGTERM and SIGHUP are kept from here to the end (and passed on to perf and what it
  // records): none is lost between the steps, and the scratch directory is always removed.
  const os::SignalForwarding interrupts;
  os::ScratchDirectory scratch;
  if (Status made = scratch.Create("dlcheck-profile-"); !made.ok()) return made;
  return RecordAndReport(o, *perf, scratch, output);
}

}  // namespace

void SetupProfile(CLI::App& subcommand, int& exit_code) {
  auto o = std::make_shared<ProfileOptions>();
  o->model.run.time_s = kProfileTimedSeconds;
  CLI::App* const sub = &subcommand;
  AddModelOptions(*sub, o->model.run);
  AddCaptureOptions(
      *sub, {.threads = &o->capture.threads,
             .threads_help = fmt::format("OpenMP threads (OMP_NUM_THREADS; MKL_NUM_THREADS too "
                                         "for CMD) for the model worker or CMD (default: {})",
                                         dispatch::kThreadDefaultRule),
             .timeout_s = &o->capture.timeout_s,
             .timeout_help = "kill the model worker after this many seconds (default 600; CMD: "
                             "no limit)"});
  AddFormatOption(
      *sub, o->format, {"folded", "svg", "speedscope"},
      "output format: table (default), csv (the kernels table), json, xlsx, html (a "
      "web page with the flame graph), folded (collapsed stacks), svg (a flame graph) or "
      "speedscope (a file speedscope opens)");
  sub->add_option("-F,--frequency", o->perf.frequency, "samples per second and CPU (default 999)")
      ->check(CLI::Range(1, 100000));
  sub->add_option("-e,--event", o->perf.event,
                  "perf event to sample (default cycles; perf uses cpu-clock where the machine "
                  "has no hardware counters)");
  sub->add_option("-g,--call-graph", o->perf.call_graph,
                  fmt::format("how perf finds each sample's callers: fp (frame pointers), "
                              "dwarf (unwinds a {}-byte copy of the stack; default) or lbr",
                              profile::kDwarfStackBytes))
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(profile::kCallGraphModes),
                                                     std::end(profile::kCallGraphModes))))
      ->type_name("MODE");
  sub->add_flag("--no-off-cpu", o->no_off_cpu, "do not record off-CPU time (sched_switch)");
  sub->add_option("--top", o->top,
                  "rows of the kernels, operators, off-CPU and primitives tables "
                  "(default 20; 0: all)")
      ->check(CLI::NonNegativeNumber.description(""))
      ->type_name("N");
  sub->add_option("--perf-data", o->perf_data_path,
                  "keep perf's recording in FILE (and oneDNN's perf maps in /tmp) for perf "
                  "report")
      ->type_name("FILE");
  sub->add_option("-o,--output", o->output_path, "write the report to FILE instead of stdout")
      ->type_name("FILE");
  sub->add_option("--folded", o->folded_path,
                  "also write the collapsed stacks to FILE (the same recording as the report)")
      ->type_name("FILE");
  sub->add_option("--svg", o->svg_path,
                  "also write the flame graph to FILE (the same recording as the report)")
      ->type_name("FILE");
  sub->add_option("command", o->command, "a program to profile instead of the model, after --");
  sub->footer(
      "With -- CMD, the program's own stdout goes to dlcheck's stderr and dlcheck ends with its "
      "exit status, as `dlcheck run` does.");
  sub->callback([o, &exit_code] { exit_code = EndCommand(RunProfile(*o)); });
}

}  // namespace dlcheck::cli
