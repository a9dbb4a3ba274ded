// dlcheck parse [FILE...|-]: the per-primitive report from a oneDNN verbose log written by any
// program and any oneDNN/MKL-DNN version. Streams: memory grows with the distinct primitives.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/verbose_report.h"
#include "common/exit_code.h"
#include "common/status.h"
#include "report/printer.h"
#include "verbose/aggregate.h"
#include "verbose/line_parser.h"
#include "verbose/line_reader.h"

namespace dlcheck::cli {
namespace {

struct ParseOptions {
  std::vector<std::string> files;
  report::Format format = report::Format::kTable;
  bool events = false;
  SortKey sort = SortKey::kTime;
  std::size_t top = 0;
  bool strict = false;
};

std::string_view SortName(SortKey key) {
  switch (key) {
    case SortKey::kTime:
      return "time";
    case SortKey::kExecs:
      return "execs";
    case SortKey::kCreates:
      return "creates";
    case SortKey::kName:
      return "name";
  }
  return "time";
}

// Checks every named file before any output, so an unreadable input fails cleanly.
Status CheckReadable(const std::string& path) {
  if (path == "-") return {};
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return InputError("cannot open '" + path + "': " + std::strerror(errno));
  }
  if (S_ISDIR(st.st_mode)) {
    return InputError("cannot read '" + path +
                      "': it is a directory (give a log file, or - for standard input)");
  }
  if (access(path.c_str(), R_OK) != 0) {
    return InputError("cannot open '" + path + "': " + std::strerror(errno));
  }
  return {};
}

void MergeHeader(verbose::LogHeader& into, const verbose::LogHeader& from) {
  if (into.library_version.empty()) into.library_version = from.library_version;
  if (into.runtime.empty()) into.runtime = from.runtime;
  if (!into.threads) into.threads = from.threads;
  if (into.isa.empty()) {
    into.isa = from.isa;
    into.isa_short = from.isa_short;
  }
}

report::Section OptionsSection(const ParseOptions& o) {
  report::Section s;
  s.name = "options";
  s.title = "Options";
  s.Add("sort", SortName(o.sort));
  s.Add("top", o.top);
  s.Add("events", o.events);
  s.Add("strict", o.strict);
  return s;
}

int RunParse(const ParseOptions& options) {
  std::vector<std::string> files = options.files;
  if (files.empty()) files.push_back("-");
  for (const auto& f : files) {
    if (Status s = CheckReadable(f); !s.ok()) {
      PrintError(s.message());
      return ToInt(s.code());
    }
  }

  InputCounts counts;
  counts.files = files;
  verbose::Aggregator aggregator;
  verbose::LogHeader header;
  const ColumnOptions columns;

  report::Report head;
  head.command = "parse";
  head.sections.push_back(OptionsSection(options));
  std::unique_ptr<report::RowStream> stream;
  report::Table event_table;
  if (options.events) {
    event_table.name = "events";
    event_table.title = "Events";
    event_table.columns = EventColumns(columns);
    stream = report::StartRowStream(options.format, std::cout, head, event_table);
  }

  Status failure;
  std::string strict_error;
  verbose::LineMemo memo;
  const bool use_memo = !options.events;  // events need every line parsed in full
  for (const auto& file : files) {
    verbose::LineReader reader;
    if (Status s = reader.Open(file); !s.ok()) {
      failure = s;
      break;
    }
    const std::string display = file == "-" ? "<stdin>" : file;
    // The last create/exec the parser produced, to remember its line in the memo.
    struct Last {
      std::uint64_t line = 0;
      std::size_t row = verbose::Aggregator::kNoRow;
      bool exec = false;
      bool cache_hit = false;
      std::optional<double> ms;
      bool timestamped = false;
    } last;
    std::uint64_t last_foreign = 0;
    verbose::JoiningParser parser([&](const verbose::ParseResult& r,
                                      const verbose::VerboseEvent& event, std::uint64_t line) {
      switch (r.kind) {
        case verbose::LineKind::kEvent: {
          ++counts.events;
          const std::size_t row = aggregator.Add(event);
          if (stream) stream->Row(EventRow(event, columns));
          last = {line,
                  row,
                  event.operation == verbose::Operation::kExec,
                  event.cache.find("hit") != std::string::npos,
                  event.time_ms,
                  event.timestamp.has_value()};
          break;
        }
        case verbose::LineKind::kInfo:
          ++counts.info_lines;
          break;
        case verbose::LineKind::kSkipped:
          ++counts.skipped[r.reason];
          if (r.reason == verbose::SkipReason::kForeign) last_foreign = line;
          if (options.strict && strict_error.empty() && r.reason != verbose::SkipReason::kForeign &&
              r.reason != verbose::SkipReason::kGraph) {
            strict_error = display + ":" + std::to_string(line) + ": " +
                           std::string(verbose::SkipReasonText(r.reason));
          }
          break;
        case verbose::LineKind::kBlank:
          break;
      }
    });
    aggregator.SetHeader(&parser.header());
    memo.Clear();
    std::string_view line;
    while (strict_error.empty()) {
      const verbose::LineReader::Next next = reader.Read(line);
      if (next == verbose::LineReader::Next::kEnd) break;
      ++counts.lines;
      if (next == verbose::LineReader::Next::kTooLong) {
        parser.FeedSkip(verbose::SkipReason::kTooLong, reader.line_number());
        continue;
      }
      // Fast path: a line seen before (all but its time) feeds its row without parsing.
      verbose::LineMemo::Entry entry;
      double ms = 0;
      if (use_memo && !parser.has_pending()) {
        const verbose::LineMemo::Match m = memo.Lookup(parser.state_id(), line, entry, ms);
        if (m == verbose::LineMemo::Match::kEvent) {
          ++counts.events;
          aggregator.AddRepeat(entry, ms);
          continue;
        }
        if (m == verbose::LineMemo::Match::kForeign) {
          ++counts.skipped[verbose::SkipReason::kForeign];
          continue;
        }
      }
      last.line = 0;
      parser.Feed(line, reader.line_number());
      if (use_memo && last.line == reader.line_number() &&
          last.row != verbose::Aggregator::kNoRow && last.ms && !last.timestamped &&
          !parser.has_pending()) {
        memo.Remember(parser.state_id(), line, {last.row, last.exec, last.cache_hit}, *last.ms);
      } else if (use_memo && last_foreign == reader.line_number() && !parser.has_pending()) {
        memo.RememberForeign(line);
      }
    }
    if (strict_error.empty()) parser.Finish();
    MergeHeader(header, parser.header());
    aggregator.SetHeader(&header);
    if (!reader.status().ok()) {
      failure = reader.status();
      break;
    }
    if (!strict_error.empty()) break;
  }

  const verbose::Summary summary = aggregator.Summarize();
  report::Report tail;
  tail.command = "parse";
  AddLogSummary(tail, counts, header, summary, aggregator.diagnostics());
  if (stream) {
    stream->Finish(tail);
  }
  if (!strict_error.empty()) {
    PrintError(strict_error);
    return ToInt(ExitCode::kStrictParse);
  }
  if (!failure.ok()) {
    PrintError(failure.message());
    return ToInt(failure.code());
  }
  if (!stream) {
    report::Report full;
    full.command = "parse";
    full.sections.push_back(OptionsSection(options));
    std::vector<verbose::PrimitiveStats> rows = aggregator.rows();
    SortRows(rows, options.sort);
    AddPrimitivesTable(full, rows, summary.exec_ms, options.top, columns);
    for (auto& s : tail.sections) full.sections.push_back(std::move(s));
    for (auto& t : tail.tables) full.tables.push_back(std::move(t));
    full.findings = std::move(tail.findings);
    report::Print(full, options.format, std::cout);
  }
  std::cout.flush();
  if (const std::uint64_t skipped = counts.Skipped(); skipped > 0) {
    std::string text =
        "skipped " + std::to_string(skipped) + " of " + std::to_string(counts.lines) + " lines:";
    bool first = true;
    for (const auto& [reason, count] : counts.skipped) {
      text += (first ? " " : ", ") + std::string(verbose::SkipReasonName(reason)) + " " +
              std::to_string(count);
      first = false;
    }
    PrintError(text);
  }
  return ToInt(ExitCode::kOk);
}

}  // namespace

void SetupParse(CLI::App& app, int& exit_code) {
  auto options = std::make_shared<ParseOptions>();
  auto* sub = app.add_subcommand(
      "parse", "the per-primitive report from a oneDNN/MKL-DNN verbose log (any version)");
  sub->add_option("files", options->files,
                  "log files (plain or gzip); - or nothing reads standard input");
  AddFormatOption(*sub, options->format);
  sub->add_flag("--events", options->events, "one row per event instead of per primitive");
  static const std::map<std::string, SortKey> kSorts = {{"time", SortKey::kTime},
                                                        {"execs", SortKey::kExecs},
                                                        {"creates", SortKey::kCreates},
                                                        {"name", SortKey::kName}};
  sub->add_option("--sort", options->sort, "row order: time (default), execs, creates, name")
      ->transform(CLI::CheckedTransformer(kSorts, CLI::ignore_case))
      ->default_str("time");
  sub->add_option("--top", options->top, "print only the first N rows (0: all)")
      ->check(CLI::NonNegativeNumber);
  sub->add_flag("--strict", options->strict,
                "stop at the first marker line that cannot be parsed (exit status 4)");
  sub->callback([options, &exit_code] { exit_code = RunParse(*options); });
}

}  // namespace dlcheck::cli
