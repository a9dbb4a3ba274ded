// dlcheck profile [--model mlp|cnn ...] | [OPTIONS] -- CMD [ARGS...]: where the CPU time goes.
// `perf record` wraps dlcheck's model worker (or CMD) while the verbose capture runs, with
// oneDNN's perf map on so that JIT kernels have names; `perf script` is then read back as a
// stream into classes, JIT kernels by primitive, off-CPU time and collapsed stacks. The report
// goes to stdout (or --output): table, CSV, JSON, folded stacks or an SVG flame graph.
#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "cli/model_options.h"
#include "cli/verbose_report.h"
#include "dispatch/capture.h"
#include "dispatch/program.h"
#include "dispatch/program_capture.h"
#include "profile/flame_graph.h"
#include "profile/perf.h"
#include "profile/perf_script.h"
#include "profile/profile.h"
#include "profile/profile_report.h"
#include "report/progress.h"
#include "verbose/log_session.h"
#include "verbose/output_splitter.h"

namespace dlcheck::cli {
namespace {

enum class ProfileFormat { kTable, kCsv, kJson, kFolded, kSvg };

constexpr std::pair<std::string_view, ProfileFormat> kProfileFormats[] = {
    {"table", ProfileFormat::kTable},
    {"csv", ProfileFormat::kCsv},
    {"json", ProfileFormat::kJson},
    {"folded", ProfileFormat::kFolded},
    {"svg", ProfileFormat::kSvg}};

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) ==
           std::tolower(static_cast<unsigned char>(y));
  });
}

std::vector<std::string> FormatNames() {
  std::vector<std::string> names;
  for (const auto& [name, format] : kProfileFormats) names.emplace_back(name);
  return names;
}

struct ProfileOptions {
  dispatch::CaptureOptions capture;   ///< the model run (without CMD)
  std::vector<std::string> command;   ///< CMD and its arguments; empty: the model
  std::string format_name = "table";  ///< --format, one of kProfileFormats
  ProfileFormat format = ProfileFormat::kTable;
  profile::PerfSettings perf;
  bool no_off_cpu = false;
  std::size_t top = 20;
  std::string perf_data_path;  ///< keep perf.data (and the perf maps) here; empty: a scratch dir
  std::string output_path;
  std::string folded_path;  ///< --folded FILE: collapsed stacks beside the report
  std::string svg_path;     ///< --svg FILE: the flame graph beside the report
};

// What was profiled, for the report: the verbose side of the run and how it ended.
struct Recording {
  std::vector<verbose::PrimitiveStats> rows;
  double verbose_exec_ms = 0;
  std::uint64_t verbose_lines = 0;
  int exit_status = 0;  ///< the program's (0 for the model)
  std::string ended;    ///< "exited with status 0"
  double wall_s = 0;
  std::optional<double> samples_per_s;  ///< the model's throughput with perf on
};

// A scratch directory for perf.data, removed with everything in it when done.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "dlcheck-profile-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string CommandLine(const std::vector<std::string>& argv) {
  std::string text;
  for (const auto& a : argv) text += (text.empty() ? "" : " ") + a;
  return ValidUtf8(text);
}

// CMD as perf will run it: looked up on PATH here, so that a missing program is named as
// `run` names it (perf would only say "Workload failed").
StatusOr<std::string> ResolveProgram(const std::string& program, std::string_view path_list) {
  if (program.find('/') != std::string::npos) {
    if (access(program.c_str(), X_OK) == 0) return program;
    const int err = errno;
    return Status(
        err == ENOENT || err == ENOTDIR ? ExitCode::kCommandNotFound : ExitCode::kCannotExecute,
        fmt::format("cannot run '{}': {}", ValidUtf8(program), std::strerror(err)));
  }
  if (std::optional<std::string> found = profile::FindOnPath(program, path_list)) return *found;
  return Status(ExitCode::kCommandNotFound,
                fmt::format("cannot run '{}': command not found", ValidUtf8(program)));
}

StatusOr<Recording> RecordProgram(const ProfileOptions& o, std::vector<std::string> launcher) {
  verbose::LogSession session;
  launcher.insert(launcher.end(), o.command.begin(), o.command.end());
  dispatch::ProgramCaptureOptions capture{.spec = {.argv = launcher},
                                          .input_name = "<" + o.command.front() + ">"};
  for (const auto& kv : profile::JitProfileEnvironment()) capture.spec.env.push_back(kv);
  // Progress on a terminal, as `run` draws it: cleared before the program's own output.
  report::Progress progress("profile", 0);
  progress.Step(o.command.front());
  if (progress.active()) {
    capture.on_output = [&progress] { progress.Clear(); };
    capture.on_chunk = [&progress] { progress.Tick(); };
  }
  StatusOr<dispatch::ProgramCapture> ended = dispatch::CaptureProgram(capture, session);
  if (!ended.ok()) return ended.status();
  Recording r;
  r.verbose_exec_ms = session.Summarize().exec_ms;
  r.rows = session.TakeRows();
  r.verbose_lines = ended->verbose_lines;
  r.exit_status = ended->outcome.ShellStatus();
  r.ended = ended->outcome.Describe();
  r.wall_s = ended->outcome.wall_s;
  return r;
}

StatusOr<Recording> RecordModel(const ProfileOptions& o, std::vector<std::string> launcher) {
  dispatch::CaptureOptions capture = o.capture;
  capture.launcher = std::move(launcher);
  for (const auto& kv : profile::JitProfileEnvironment()) capture.extra_env.push_back(kv);
  // The worker's phases as progress on a terminal, as `verbose` draws them.
  report::Progress progress("profile", 0);
  if (progress.active()) {
    capture.on_phase = [&progress](std::string_view phase) { progress.Phase(std::string(phase)); };
  }
  StatusOr<dispatch::CapturedRun> run = dispatch::CaptureModelRun(capture);
  if (!run.ok()) return run.status();
  if (!run->outcome.ok()) {
    std::string err = run->outcome.stderr_tail;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    if (!err.empty()) std::cerr << err << '\n';
    return Status(ExitCode::kWorkerFailed, fmt::format("the model worker (under perf record) {}",
                                                       run->outcome.Describe(run->timeout_s)));
  }
  Recording r;
  r.rows = run->rows;
  r.verbose_exec_ms = run->summary.exec_ms;
  r.verbose_lines = run->verbose_lines;
  r.ended = run->outcome.Describe(run->timeout_s);
  r.samples_per_s = run->results.samples_per_s;
  return r;
}

StatusOr<profile::Profile> ReadProfile(const profile::PerfSettings& perf) {
  profile::ProfileBuilder builder;
  profile::PerfScriptParser parser([&](const profile::PerfRecord& r) { builder.Add(r); });
  if (Status read = profile::ReadPerfScript(perf, [&](std::string_view l) { parser.Feed(l); });
      !read.ok()) {
    return read;
  }
  parser.Finish();
  return builder.profile();
}

// oneDNN leaves its perf maps in /tmp; they are only needed beside a kept perf.data.
void RemovePerfMaps(const profile::Profile& p) {
  for (int pid : p.pids) unlink(fmt::format("/tmp/perf-{}.map", pid).c_str());
}

// The recording spans less than this: the program exited before it could be profiled.
constexpr double kShortestProfileS = 0.1;

// A program that exited at once, or a recording with nothing in it, is an error that says so.
Status TooShort(const ProfileOptions& o, const Recording& r, const profile::Profile& p) {
  const std::string what = o.command.empty() ? "the model worker" : ValidUtf8(o.command.front());
  const double span = p.last_s - p.first_s;
  if (span < kShortestProfileS) {
    return Status(ExitCode::kUnsupported,
                  fmt::format("{} {} after {:.3f} s, too soon to profile ({} samples at {} per "
                              "second); profile a run that lasts at least a second",
                              what, r.ended, span, p.samples, o.perf.frequency));
  }
  return Status(ExitCode::kUnsupported,
                fmt::format("perf recorded no sample of {} in {:.3f} s ({}): check that the "
                            "event samples here ('perf record -e {} -- {}')",
                            what, span, r.ended, o.perf.event, what));
}

void AddProfileSection(report::Report& report, const ProfileOptions& o, const Recording& r,
                       const profile::Profile& p, const profile::PerfProbe& probe) {
  report::Section& s = report.AddSection("profile", "Profile");
  s.Add("command", o.command.empty()
                       ? report::Value(fmt::format("dlcheck worker --model {}",
                                                   mlp::Name(o.capture.run.model.model)))
                       : report::Value(CommandLine(o.command)));
  s.Add("ended", r.ended);
  s.Add("event", p.event);
  s.Add("frequency_hz", o.perf.frequency);
  s.Add("samples", p.samples);
  s.Add("duration_s", report::Value(p.last_s - p.first_s, 3));
  s.Add("processes", p.pids.size());
  s.Add("threads", p.tids.size());
  s.Add("jit_kernels", p.kernel_samples.size());
  s.Add("samples_per_s", r.samples_per_s ? report::Value(*r.samples_per_s, 1) : report::Value());
  s.Add("verbose_lines", r.verbose_lines);
  s.Add("verbose_exec_ms", report::Value(r.verbose_exec_ms, 3));
  const bool off_cpu = probe.off_cpu && !o.no_off_cpu;
  s.Add("off_cpu_recorded", off_cpu);
  s.Add("off_cpu_s", off_cpu ? report::Value(profile::OffCpuSeconds(p), 4) : report::Value());
  s.Add("blocked_s",
        off_cpu ? report::Value(profile::OffCpuSeconds(p, {"S", "D"}), 4) : report::Value());
  s.Add("preempted_s",
        off_cpu ? report::Value(profile::OffCpuSeconds(p, {"R"}), 4) : report::Value());
  s.Add("perf_data", o.perf_data_path.empty() ? report::Value() : report::Value(o.perf_data_path));
}

report::Report BuildReport(const ProfileOptions& o, const Recording& r, const profile::Profile& p,
                           const profile::PerfProbe& probe) {
  report::Report report;
  report.command = "profile";
  AddProfileSection(report, o, r, p, probe);
  std::string off_cpu_reason = probe.off_cpu_reason;
  if (o.no_off_cpu) off_cpu_reason = "--no-off-cpu was given";
  profile::AddProfileTables(report, p, r.rows, {.top = o.top, .off_cpu_reason = off_cpu_reason});
  std::vector<verbose::PrimitiveStats> rows = r.rows;
  SortRows(rows, SortKey::kTime);
  AddPrimitivesTable(report, std::move(rows), r.verbose_exec_ms, o.top);
  report.tables.back().hidden_in_table = {"engine",      "prop_kind", "data_types", "layouts",
                                          "attributes",  "auxiliary", "problem",    "exec_ms_min",
                                          "exec_ms_max", "create_ms", "cache_hits"};
  report.primary_table = "kernels";
  return report;
}

profile::FlameGraphOptions SvgOptions(const ProfileOptions& o, const profile::Profile& p) {
  const std::vector<std::string> what =
      o.command.empty()
          ? std::vector<std::string>{"--model", std::string(mlp::Name(o.capture.run.model.model))}
          : o.command;
  return {.title = "dlcheck profile " + CommandLine(what),
          .subtitle = fmt::format("{} samples of {} at {} Hz; JIT kernels green, OS kernel blue",
                                  p.samples, p.event, o.perf.frequency)};
}

void Print(const ProfileOptions& o, const Recording& r, const profile::Profile& p,
           const profile::PerfProbe& probe, std::ostream& out) {
  switch (o.format) {
    case ProfileFormat::kFolded:
      profile::WriteFolded(p.folded, out);
      return;
    case ProfileFormat::kSvg:
      profile::WriteFlameGraphSvg(p.folded, SvgOptions(o, p), out);
      return;
    case ProfileFormat::kTable:
      report::Print(BuildReport(o, r, p, probe), report::Format::kTable, out);
      return;
    case ProfileFormat::kCsv:
      report::Print(BuildReport(o, r, p, probe), report::Format::kCsv, out);
      return;
    case ProfileFormat::kJson:
      report::Print(BuildReport(o, r, p, probe), report::Format::kJson, out);
      return;
  }
}

// --folded FILE and --svg FILE: the flame graph beside the report, from the same recording.
Status WriteExtraOutputs(const ProfileOptions& o, const profile::Profile& p) {
  for (const auto& [path, svg] : {std::pair{o.folded_path, false}, std::pair{o.svg_path, true}}) {
    if (path.empty()) continue;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    if (svg) {
      profile::WriteFlameGraphSvg(p.folded, SvgOptions(o, p), out);
    } else {
      profile::WriteFolded(p.folded, out);
    }
    out.flush();
    if (!out) {
      return Status(ExitCode::kOutputError,
                    fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    }
  }
  return {};
}

StatusOr<int> RunProfile(ProfileOptions& o) {
  for (const auto& [name, format] : kProfileFormats) {
    if (EqualsIgnoringCase(name, o.format_name)) o.format = format;
  }
  if (o.command.empty()) {
    if (Status valid = mlp::Validate(o.capture.run.model); !valid.ok()) return valid;
  }
  const char* path = std::getenv("PATH");
  const std::string path_list = path != nullptr ? path : "/usr/bin:/bin";
  StatusOr<std::string> perf = profile::FindPerf(path_list);
  if (!perf.ok()) return perf.status();
  std::ofstream output;
  if (!o.output_path.empty()) {
    output.open(o.output_path, std::ios::binary | std::ios::trunc);
    if (!output) {
      return Status(ExitCode::kOutputError,
                    fmt::format("cannot write '{}': {}", o.output_path, std::strerror(errno)));
    }
  }
  ScratchDir scratch;
  if (scratch.path().empty()) {
    return Status(ExitCode::kOutputError,
                  fmt::format("cannot create a scratch directory in {}: {}",
                              std::filesystem::temp_directory_path().string(), strerror(errno)));
  }
  if (!o.command.empty()) {
    StatusOr<std::string> program = ResolveProgram(o.command.front(), path_list);
    if (!program.ok()) return program.status();
  }
  o.perf.perf = *perf;
  o.perf.data_path = o.perf_data_path.empty() ? scratch.path() + "/perf.data" : o.perf_data_path;
  StatusOr<profile::PerfProbe> probe = profile::ProbePerf(o.perf, scratch.path());
  if (!probe.ok()) return probe.status();
  const auto launcher = profile::RecordCommand(o.perf, probe->off_cpu && !o.no_off_cpu);
  StatusOr<Recording> rec =
      o.command.empty() ? RecordModel(o, launcher) : RecordProgram(o, launcher);
  if (!rec.ok()) return rec.status();
  StatusOr<profile::Profile> p = ReadProfile(o.perf);
  if (!p.ok()) return p.status();
  if (o.perf_data_path.empty()) RemovePerfMaps(*p);
  const bool empty = p->samples == 0 && p->off_cpu.empty();
  if (empty || p->last_s - p->first_s < kShortestProfileS) return TooShort(o, *rec, *p);
  if (Status extra = WriteExtraOutputs(o, *p); !extra.ok()) return extra;
  std::ostream& out = output.is_open() ? static_cast<std::ostream&>(output) : std::cout;
  Print(o, *rec, *p, *probe, out);
  out.flush();
  if (!out) return Status(ExitCode::kOutputError, "the report could not be written");
  return rec->exit_status;
}

}  // namespace

void SetupProfile(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<ProfileOptions>();
  auto* sub = app.add_subcommand(
      "profile",
      "sample the model (or -- CMD) with perf: CPU time by class, JIT kernels by "
      "primitive, off-CPU time, flame graphs");
  AddModelOptions(*sub, o->capture.run);
  sub->add_option("-t,--threads", o->capture.threads,
                  "OpenMP threads for the model worker (default: OMP_NUM_THREADS or all)")
      ->check(CLI::Range(1, 4096));
  sub->add_option("--timeout", o->capture.timeout_s,
                  "kill the model worker after this many seconds (default 600)")
      ->check(Seconds());
  sub->add_option("-f,--format", o->format_name,
                  "output format: table (default), csv (the kernels table), json, folded "
                  "(collapsed stacks) or svg (a flame graph)")
      ->check(CLI::IsMember(FormatNames(), CLI::ignore_case))
      ->type_name("FORMAT");
  sub->add_option("-F,--frequency", o->perf.frequency, "samples per second and CPU (default 999)")
      ->check(CLI::Range(1, 100000));
  sub->add_option("-e,--event", o->perf.event,
                  "perf event to sample (default cycles; perf uses cpu-clock where the machine "
                  "has no hardware counters)");
  sub->add_flag("--no-off-cpu", o->no_off_cpu, "do not record off-CPU time (sched_switch)");
  sub->add_option("--top", o->top,
                  "rows of the kernels, off-CPU and primitives tables "
                  "(default 20; 0: all)");
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
