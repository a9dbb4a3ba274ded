// SPDX-License-Identifier: Apache-2.0
// dlcheck parse [FILE...|-]: the per-primitive report from a oneDNN verbose log written by any
// program and any oneDNN/MKL-DNN version. Streams: memory grows with the distinct primitives.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/enum_option.h"
#include "cli/log_view.h"
#include "cli/roofline_view.h"
#include "cli/run_view.h"
#include "cli/stats_view.h"
#include "common/exit_code.h"
#include "common/input_rules.h"
#include "common/status.h"
#include "dispatch/capture.h"
#include "dispatch/noise.h"
#include "report/primitive_columns.h"
#include "report/printer.h"
#include "roofline/row_roofline.h"
#include "verbose/benchdnn.h"
#include "verbose/line_reader.h"
#include "verbose/log_session.h"
#include "verbose/parallel_feed.h"
#include "verbose/timeline.h"

namespace dlcheck::cli {
namespace {

struct ParseOptions {
  std::vector<std::string> files;
  report::Format format = report::Format::kTable;
  bool events = false;
  SortKey sort = SortKey::kTime;
  std::size_t top = 0;
  bool strict = false;
  verbose::DialectChoice dialect = verbose::DialectChoice::kAuto;  ///< --dialect
  verbose::BenchdnnVersion benchdnn_version = verbose::BenchdnnVersion::kLogs;
  std::string benchdnn_batch;  ///< a driver: print its --batch file instead of the report
  std::string cpuid_dump;      ///< a CPU for dtype-no-native-path; "": the log's header, this host
  int jobs = 0;                ///< threads that read a large log file (0: LogJobs())
  RooflineRequest roofline;    ///< --roofline, --machine-profile: the hot rows on the roofline
};

// --dialect's names, each with what it reads.
const std::vector<std::pair<std::string, verbose::DialectChoice>>& DialectChoices() {
  static const std::vector<std::pair<std::string, verbose::DialectChoice>> kChoices = {
      {"auto", verbose::DialectChoice::kAuto},
      {"onednn", verbose::DialectChoice::kOneDnn},
      {"zendnn", verbose::DialectChoice::kZendnn},
      {"zendnn_primitive", verbose::DialectChoice::kZendnnPrimitive},
      {"zendnnl_profile", verbose::DialectChoice::kZendnnProfile},
      {"onnxruntime_profile", verbose::DialectChoice::kOrtProfile}};
  return kChoices;
}

std::string_view DialectName(verbose::DialectChoice choice) {
  for (const auto& [name, value] : DialectChoices()) {
    if (value == choice) return name;
  }
  return "auto";
}

std::string_view BenchdnnVersionName(verbose::BenchdnnVersion version) {
  switch (version) {
    case verbose::BenchdnnVersion::kV2:
      return "2";
    case verbose::BenchdnnVersion::kV3:
      return "3";
    case verbose::BenchdnnVersion::kLogs:
      break;
  }
  return "log";
}

// The drivers --benchdnn-batch takes, as benchdnn names them.
std::vector<std::pair<std::string, std::string>> BatchDrivers() {
  std::vector<std::pair<std::string, std::string>> drivers;
  for (std::string_view name : verbose::BenchdnnDrivers()) drivers.emplace_back(name, name);
  return drivers;
}

// Checks every named file before any output, so an unreadable input fails cleanly.
Status CheckReadable(const std::string& path) {
  if (path == "-") return {};
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return InputError("cannot open '" + path + "': " + std::strerror(errno));
  }
  // The reader's own rule (common/input_rules.h), told without opening: a FIFO stays unopened.
  if (const std::string_view refused = RefusedInputType(st, false); !refused.empty()) {
    const std::string_view not_file = S_ISDIR(st.st_mode) ? "" : ", not a regular file or a pipe";
    return InputError("cannot read '" + path + "': it is " + std::string(refused) +
                      std::string(not_file) + " (give a log file, or - for standard input)");
  }
  if (access(path.c_str(), R_OK) != 0) {
    return InputError("cannot open '" + path + "': " + std::strerror(errno));
  }
  return {};
}

// The options section's words: what the report was asked for.
namespace option_field {
using report::Field;
using report::Type;
constexpr Field kSort{"sort"};
constexpr Field kTop{"top", Type::kInteger};
constexpr Field kEvents{"events", Type::kBoolean};
constexpr Field kStrict{"strict", Type::kBoolean};
constexpr Field kDialect{"dialect"};
constexpr Field kBenchdnnVersion{"benchdnn_version"};
constexpr Field kBenchdnnBatch{"benchdnn_batch"};
constexpr Field kCpuidDump{"cpuid_dump"};
}  // namespace option_field
constexpr report::Part kOptionsSection{"options", "Options"};

report::Section OptionsSection(const ParseOptions& o) {
  using namespace option_field;
  report::Section s;
  s.name = kOptionsSection.name;
  s.title = kOptionsSection.title;
  s.Add(kSort, SortName(o.sort));
  s.Add(kTop, o.top);
  s.Add(kEvents, o.events);
  s.Add(kStrict, o.strict);
  s.Add(kDialect, DialectName(o.dialect));
  s.Add(kBenchdnnVersion, BenchdnnVersionName(o.benchdnn_version));
  s.Add(kBenchdnnBatch,
        o.benchdnn_batch.empty() ? report::Value() : report::Value(o.benchdnn_batch));
  s.Add(kCpuidDump, o.cpuid_dump.empty() ? report::Value() : report::Value(o.cpuid_dump));
  return s;
}

// Streams each event as a row of the `events` table (--events).
class EventRowListener : public verbose::EventListener {
 public:
  EventRowListener(report::RowStream& stream, const ColumnOptions& columns)
      : stream_(stream), columns_(columns) {}
  void OnEvent(const verbose::VerboseEvent& event, std::size_t) override {
    stream_.Row(EventRow(event, columns_));
  }

 private:
  report::RowStream& stream_;
  const ColumnOptions& columns_;
};

// A timeline to print needs the log's own timestamps: without any, a usage error saying how to
// record them.
Status CheckTimestamps(const std::vector<verbose::ExecRecord>& execs) {
  const bool stamped = std::any_of(execs.begin(), execs.end(),
                                   [](const verbose::ExecRecord& e) { return e.stamp_ms; });
  if (stamped) return {};
  return UsageError(
      "--format trace needs a log with timestamps, and this one has no exec line with one; "
      "record it with ONEDNN_VERBOSE_TIMESTAMP=1 (DNNL_VERBOSE_TIMESTAMP=1 before oneDNN 3.0), "
      "or use --format json");
}

// The executions the timeline kept, as the `trace` table only the trace printer reads (parse's
// JSON document has no timeline); nothing when none was kept.
void AddParseTimeline(report::Report& report, const std::vector<verbose::ExecRecord>& execs) {
  // Without the log's timestamps there is no timeline to draw (the trace format refused it).
  if (!CheckTimestamps(execs).ok()) return;
  AddTimeline(report, execs);  // a capped trace is said on stderr: a trace has no findings
  report.tables.back().format_input = true;
}

// Feeds one file to the session, until its end or a --strict stop.
Status FeedFile(verbose::LogSession& session, const std::string& file, int jobs) {
  verbose::LineReader reader;
  if (Status s = reader.Open(file); !s.ok()) return s;
  return verbose::FeedLog(session, reader, file == "-" ? "<stdin>" : file,
                          verbose::ParallelOptionsFor(jobs));
}

// "skipped 3 of 120 lines: foreign 2, truncated 1", or "" when none was skipped.
std::string SkippedText(const verbose::ParseStats& stats) {
  const std::uint64_t skipped = stats.Skipped();
  if (skipped == 0) return {};
  std::string text =
      "skipped " + std::to_string(skipped) + " of " + std::to_string(stats.lines) + " lines:";
  bool first = true;
  for (const auto& [reason, count] : stats.skipped) {
    text += (first ? " " : ", ") + std::string(verbose::SkipReasonName(reason)) + " " +
            std::to_string(count);
    first = false;
  }
  return text;
}

// The primitives table's columns: several logs get a `file` column and their own headers.
ColumnOptions PrimitiveColumnsOf(const ParseOptions& options, const std::vector<std::string>& files,
                                 const verbose::LogSession& session,
                                 const verbose::LogHeader& header) {
  return {.input_names = files.size() > 1 ? &session.input_names() : nullptr,
          .benchdnn_version = options.benchdnn_version,
          .header = &header,
          .input_headers = files.size() > 1 ? &session.input_headers() : nullptr};
}

// --benchdnn-batch DRIVER: that driver's benchdnn --batch file instead of the report.
void PrintBenchdnnBatch(const ParseOptions& options, const std::vector<std::string>& files,
                        verbose::LogSession& session) {
  std::vector<verbose::PrimitiveStats> rows = session.TakeRows();
  SortRows(rows, options.sort);
  const verbose::LogHeader header = session.header();
  std::cout << BenchdnnBatch(std::move(rows), options.benchdnn_batch,
                             PrimitiveColumnsOf(options, files, session, header));
}

// The whole report (options, primitives, input, header, summary), printed at the end.
void PrintFullReport(const ParseOptions& options, const std::vector<std::string>& files,
                     verbose::LogSession& session, const verbose::Summary& summary,
                     const std::vector<verbose::ExecRecord>& execs, const os::CpuBudget& budget,
                     const std::optional<RooflineProfile>& machine) {
  report::Report full(ParseDocument());
  full.sections.push_back(OptionsSection(options));
  std::vector<verbose::PrimitiveStats> rows = session.TakeRows();
  SortRows(rows, options.sort);
  // Several logs: a row per (input, primitive), and a `file` column naming the input.
  const verbose::LogHeader header = session.header();
  const ColumnOptions columns = PrimitiveColumnsOf(options, files, session, header);
  std::vector<roofline::PlacedRow> placed;
  if (machine) placed = roofline::PlaceHotRows(rows, machine->profile);
  AddPrimitivesTable(full, std::move(rows), summary.exec_ms, options.top, columns);
  if (machine) AddRowRoofline(placed, *machine, full);
  AddLogSummary(full, files, session, summary);
  // A log's nthr: against this machine's CPU budget: said for a log that may be recorded here.
  const std::optional<dispatch::ProgramThreads> threads =
      dispatch::ThreadsOfProgram(header.threads, nullptr, budget, /*assume_default=*/false);
  if (threads) {
    if (std::optional<Finding> over = dispatch::OversubscribedFinding(
            *threads, budget, "the log's program", " (if the log was recorded on this machine)")) {
      full.findings.push_back(std::move(*over));
    }
  }
  AddParseTimeline(full, execs);
  report::SetVerdict(full, PrimitivesVerdict(summary));
  report::Print(full, options.format, std::cout);
}

// The checks made before reading: formats --events cannot go with, and a hint on a terminal.
Status CheckFormat(const ParseOptions& options, const std::vector<std::string>& files) {
  // On a terminal, say why nothing happens: standard input is being read.
  if (std::find(files.begin(), files.end(), "-") != files.end() && isatty(STDIN_FILENO)) {
    PrintError(
        "reading a verbose log from standard input; paste it and end with Ctrl-D, or give a "
        "file: dlcheck parse FILE");
  }

  if (options.events && options.format == report::Format::kTrace) {
    return UsageError(
        "--format trace is already one event per execution; drop --events (see 'dlcheck parse "
        "--help')");
  }
  if (options.roofline.asked() && (options.events || !options.benchdnn_batch.empty())) {
    return UsageError(
        "--roofline places the distinct primitives of the report, which --events and "
        "--benchdnn-batch do not print; drop one (see 'dlcheck parse --help')");
  }
  if (!options.benchdnn_batch.empty() && options.events) {
    return UsageError(
        "--benchdnn-batch prints distinct primitives, which --events cannot stream; "
        "drop --events (see 'dlcheck parse --help')");
  }
  if (!options.benchdnn_batch.empty() && options.format != report::Format::kTable) {
    return UsageError(
        "--benchdnn-batch is a format of its own; drop --format (see 'dlcheck "
        "parse --help')");
  }
  if (options.events &&
      (options.format == report::Format::kXlsx || options.format == report::Format::kBenchdnn)) {
    return UsageError(
        "--events streams one row per line, which a workbook or a list of distinct primitives "
        "cannot hold; use --format csv, json or html with --events (see 'dlcheck parse "
        "--help')");
  }
  return {};
}

StatusOr<int> RunParse(const ParseOptions& options) {
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  for (const auto& f : files) {
    if (Status s = CheckReadable(f); !s.ok()) return s;
  }
  if (Status s = CheckFormat(options, files); !s.ok()) return s;
  // The machine profile of --roofline, read before the log so that a missing one fails first.
  const StatusOr<std::optional<RooflineProfile>> machine = LoadRooflineProfile(options.roofline);
  if (!machine.ok()) return machine.status();
  // This machine's CPU budget, read before the log fills the memory (a log's nthr: is held to
  // it).
  const os::CpuBudget budget = os::ReadCpuBudget();
  // The CPU the log ran on: a replayed dump, read before the log so that a bad one fails first.
  verbose::RunContext context;
  if (!options.cpuid_dump.empty()) {
    StatusOr<detect::PlatformInfo> cpu = detect::DetectRecordedPlatform(options.cpuid_dump);
    if (!cpu.ok()) return cpu.status();
    context.cpu = DtypeUnitsOf(*cpu, "the CPU of the CPUID dump " + options.cpuid_dump);
  }
  context.host = dispatch::HostDtypeUnits();
  // Events need every line parsed in full: no memo with --events.
  verbose::LogSession session(
      {.strict = options.strict, .memo = !options.events, .dialect = options.dialect});
  std::unique_ptr<report::RowStream> stream;
  std::optional<EventRowListener> events;
  const ColumnOptions columns;
  if (options.events) {
    report::Report head(ParseDocument());
    head.sections.push_back(OptionsSection(options));
    stream = report::StartRowStream(options.format, std::cout, head, EventTable(columns));
    session.AddListener(&events.emplace(*stream, columns));
  }
  // Every log passes the timeline; it keeps the executions only for a format that prints them.
  std::vector<verbose::ExecRecord> execs;
  verbose::Timeline timeline(session, execs, verbose::kMaxTraceTimeline);
  const bool timeline_printed = report::FormatReads(options.format, report::kTraceTable);
  timeline.set_recording(timeline_printed);
  session.AddListener(&timeline);

  if (files.size() > 1) session.LabelInputs();
  Status failure;
  for (const auto& file : files) {
    failure = FeedFile(session, file, options.jobs > 0 ? options.jobs : LogJobs());
    if (!failure.ok() || session.stopped()) break;
  }

  const verbose::Summary summary = session.Summarize(context);
  if (stream) {
    report::Report tail(ParseDocument());
    AddLogSummary(tail, files, session, summary);
    stream->Finish(tail);
  }
  if (session.stopped()) return Status(ExitCode::kStrictParse, session.strict_error());
  if (!failure.ok()) return failure;
  if (options.format == report::Format::kTrace) {  // a page draws a log without them as it is
    if (Status stamped = CheckTimestamps(execs); !stamped.ok()) return stamped;
  }
  if (!options.benchdnn_batch.empty()) {
    PrintBenchdnnBatch(options, files, session);
  } else if (!stream) {
    PrintFullReport(options, files, session, summary, execs, budget, *machine);
  }
  std::cout.flush();
  if (timeline.dropped() > 0) {
    PrintError(verbose::TimelineCappedText(execs.size(), timeline.dropped()));
  }
  // A notice, not a failure: the report above is complete for the lines that were read.
  if (const std::string text = SkippedText(session.stats()); !text.empty()) PrintError(text);
  return ToInt(ExitCode::kOk);
}

}  // namespace

const report::contract::Document& ParseDocument() {
  static const report::contract::Document kParse = [] {
    using namespace option_field;
    namespace contract = report::contract;
    return contract::Document{
        "parse",
        "the per-primitive report of oneDNN verbose logs",
        {contract::Object(kOptionsSection, {kSort, kTop, kEvents, kStrict, kDialect,
                                            kBenchdnnVersion, kBenchdnnBatch, kCpuidDump}),
         InputMember(/*with_files=*/true), HeaderMember(), SummaryMember(),
         PrimitivesMember(/*with_layer=*/true, /*with_file=*/true), HeadersMember(),
         DiagnosticsMember(), EventsMember(), roofline::RowRooflineMember()},
        std::string(report::kPrimitivesTable.name)};
  }();
  return kParse;
}

void SetupParse(CLI::App& subcommand, int& exit_code) {
  auto options = std::make_shared<ParseOptions>();
  CLI::App* const sub = &subcommand;
  sub->add_option("files", options->files,
                  "log files (plain, gzip, xz, zstd or bzip2); - or nothing reads standard input");
  AddFormatOption(*sub, options->format, {"trace", "benchdnn"},
                  "output format: table (default), csv, json, xlsx, html (a web page with charts), "
                  "trace (Chrome trace of the "
                  "executions, for logs with timestamps) or benchdnn (a benchdnn command line "
                  "per distinct primitive)");
  AddOutputOption(*sub);
  sub->add_flag("--events", options->events, "one row per event instead of per primitive");
  AddRowOptions(*sub, options->sort, options->top);
  AddJobsOption(*sub, options->jobs);
  sub->add_flag("--strict", options->strict,
                "stop at the first marker line that cannot be parsed (exit status 4)");
  AddEnumOption(*sub, "--dialect", options->dialect, DialectChoices(),
                "the log lines read: auto (default: every dialect, told by the content), onednn "
                "(MKL-DNN, DNNL, oneDNN and Graph lines), zendnn (zendnn_verbose), "
                "zendnn_primitive (ZenDNN's zendnn_primitive_execute lines), zendnnl_profile "
                "(ZenDNN 5.1+'s [PROF] lines) or onnxruntime_profile (ONNX Runtime's profile "
                "JSON); the others count as foreign",
                "DIALECT");
  AddEnumOption(*sub, "--benchdnn-version", options->benchdnn_version,
                {{"log", verbose::BenchdnnVersion::kLogs},
                 {"2", verbose::BenchdnnVersion::kV2},
                 {"3", verbose::BenchdnnVersion::kV3}},
                "the benchdnn whose syntax the benchdnn column speaks: log (default: each log's "
                "own oneDNN version), 2 (oneDNN 1.x-2.x, --cfg=) or 3 (oneDNN 3.x, --dt=)",
                "VERSION");
  sub->add_option("--cpuid-dump", options->cpuid_dump,
                  "a CPU to judge the log by, as a raw CPUID dump (as platform --cpuid-dump "
                  "takes): which data types it has native units for; a log's ISA line still "
                  "judges the log, and this CPU is then said beside it (default: this host)")
      ->check(NotEmpty("file"))
      ->option_text("FILE");
  AddEnumOption(*sub, "--benchdnn-batch", options->benchdnn_batch, BatchDrivers(),
                "print a benchdnn --batch file of the log's lines for this driver instead of the "
                "report (benchdnn --DRIVER --batch=FILE reruns them; its first line says how)",
                "DRIVER");
  AddRooflineOptions(*sub, options->roofline);
  sub->callback([options, &exit_code] { exit_code = EndCommand(RunParse(*options)); });
}

}  // namespace dlcheck::cli
