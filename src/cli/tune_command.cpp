// SPDX-License-Identifier: Apache-2.0
// dlcheck tune [OPTIONS] -- CMD [ARGS...]: the settings around oneDNN measured on the unmodified
// program, each a variant with one change of its environment against the baseline, in
// interleaved rounds; ranked only beyond the baseline's range; the winners together measured as
// one more variant. The answer first (the best and its gain), then the line to apply, then the
// variants. The program's stdout and stderr go to dlcheck's stderr; the report to stdout.
#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <optional>
#include <regex>

#include "cli/commands.h"
#include "cli/model_options.h"
#include "cli/process_view.h"
#include "cli/stats_view.h"
#include "common/text.h"
#include "dispatch/noise.h"
#include "dispatch/process_audit.h"
#include "dispatch/run_fields.h"
#include "dispatch/tune.h"
#include "os/cpu_budget.h"
#include "os/signals.h"
#include "report/progress.h"
#include "report/report.h"

namespace dlcheck::cli {
namespace {

using report::Field;
using report::Type;
using report::Value;

namespace tune_field {
// clang-format off
inline constexpr Field kMetric{"metric"};  ///< "wall_s", or the --metric REGEX
inline constexpr Field kHigherIsBetter{"higher_is_better", Type::kBoolean};
inline constexpr Field kRunsAsked{"runs_asked", Type::kInteger};  ///< --runs: rounds asked
inline constexpr Field kRoundsDone{"rounds_done", Type::kInteger};
inline constexpr Field kBudgetS{"budget_s", Type::kNumber};
inline constexpr Field kElapsedS{"elapsed_s", Type::kNumber};
inline constexpr Field kGroups{"groups", Type::kText, report::Arity::kList};
inline constexpr Field kBest{"best"};  ///< the best variant's name; null: none beat the baseline
inline constexpr Field kBestSpeedup{"best_speedup", Type::kNumber};
inline constexpr Field kApply{"apply"};  ///< the line to run
inline constexpr Field kInterruptedBy{"interrupted_by"};
// clang-format on
}  // namespace tune_field

namespace tune_columns {
// clang-format off
inline constexpr Field kVariant = report::IdentityColumn("variant");
inline constexpr Field kGroup{"group"};
inline constexpr Field kEnvironment{"environment"};  ///< NAME=VALUE ..., as the program got it
inline constexpr Field kVerdict{"verdict"};
inline constexpr Field kRank{"rank", Type::kInteger};  ///< 1 for the best; null: not ranked
inline constexpr Field kRuns{"runs", Type::kInteger};
/// The wall time of all its runs together, failed ones included (tune's own cost is the rest).
inline constexpr Field kWallSTotal{"wall_s_total", Type::kNumber};
inline constexpr Field kMin{"min", Type::kNumber};
inline constexpr Field kMedian{"median", Type::kNumber};
inline constexpr Field kMax{"max", Type::kNumber};
inline constexpr Field kSpreadPct{"spread_pct", Type::kNumber};
inline constexpr Field kSpeedup{"speedup", Type::kNumber};  ///< over the baseline; > 1: better
inline constexpr Field kExitStatus{"exit_status", Type::kInteger};  ///< of a failed run
inline constexpr Field kStderrLastLine{"stderr_last_line"};  ///< of a failed run
inline constexpr Field kNote{"note"};
inline constexpr Field kAll[] = {kRank, kVariant, kVerdict, kSpeedup, kMedian, kMin, kMax,
                                 kSpreadPct, kRuns, kWallSTotal, kGroup, kEnvironment, kExitStatus,
                                 kStderrLastLine, kNote};
// clang-format on
}  // namespace tune_columns

constexpr report::Part kTunePart{"tune", "Tune"};
constexpr report::Part kVariantsTable{"variants", "Variants"};

struct TuneOptions {
  std::vector<std::string> command;
  std::vector<std::string> knobs;   ///< --knob NAME=VALUE
  std::vector<std::string> groups;  ///< --groups; empty: all
  int runs = 5;
  double budget_s = 600;
  std::string metric;
  bool higher_is_better = false;
  report::Format format = report::Format::kTable;
};

std::string EnvironmentText(const dispatch::EnvironmentChange& env) {
  std::vector<std::string> words;
  for (const auto& [name, value] : env) words.push_back(name + "=" + value);
  return CommandText(words);
}

// Where a variant stands in the table: the baseline, the ranked ones by speed-up, the rest.
int Order(const dispatch::Variant& v) {
  using dispatch::Verdict;
  switch (v.verdict) {
    case Verdict::kBaseline:
      return 0;
    case Verdict::kBetter:
      return 1;
    case Verdict::kWithinNoise:
      return 2;
    case Verdict::kWorse:
      return 3;
    case Verdict::kFailed:
      return 4;
    case Verdict::kNotRun:
      return 5;
    case Verdict::kNotApplicable:
      return 6;
  }
  return 7;
}

std::string NoteOf(const dispatch::Variant& v) {
  if (v.verdict == dispatch::Verdict::kNotApplicable) {
    for (const dispatch::Knob& k : v.knobs) {
      if (!k.applies()) return k.not_applicable;
    }
  }
  if (const dispatch::TuneRun* failure = v.Failure()) {
    std::string note = failure->outcome.ok() ? "printed no number that --metric matches"
                                             : failure->outcome.Describe();
    if (!failure->stderr_last_line.empty()) note += ": " + failure->stderr_last_line;
    return note;
  }
  if (v.combined) return "the winning knobs together";
  std::string note;
  if (v.verdict == dispatch::Verdict::kWithinNoise && v.spread.runs >= 2) {
    note = "its range overlaps the baseline's";
  }
  for (const dispatch::Knob& k : v.knobs) {
    if (k.changes_results.empty()) continue;
    note += (note.empty() ? "it changes the results: " : "; it changes the results: ") +
            std::string(k.changes_results);
  }
  return note;
}

double WallTotal(const dispatch::Variant& v) {
  double total = 0;
  for (const dispatch::TuneRun& run : v.runs) total += run.outcome.wall_s;
  return total;
}

void AddVariantsTable(report::Report& report, const std::vector<dispatch::Variant>& variants,
                      const dispatch::TuneMetric& metric) {
  using namespace tune_columns;
  std::vector<const dispatch::Variant*> rows;
  for (const dispatch::Variant& v : variants) rows.push_back(&v);
  std::stable_sort(rows.begin(), rows.end(), [](const auto* a, const auto* b) {
    if (Order(*a) != Order(*b)) return Order(*a) < Order(*b);
    return a->verdict == dispatch::Verdict::kBetter && *a->speedup > *b->speedup;
  });
  report::Table& t = report.AddTable(kVariantsTable, kAll);
  t.title = fmt::format(
      "Variants ({}: median, min, max of the runs; ranked only where the range does not overlap "
      "the baseline's)",
      metric.wall() ? "wall time in s"
                    : fmt::format("the program's figure, {} is better",
                                  metric.higher_is_better ? "higher" : "lower"));
  t.hidden_in_table = {std::string(kWallSTotal.name), std::string(kGroup.name),
                       std::string(kEnvironment.name), std::string(kExitStatus.name),
                       std::string(kStderrLastLine.name)};
  t.answer_columns = {std::string(kVariant.name), std::string(kVerdict.name),
                      std::string(kSpeedup.name)};
  int rank = 0;
  for (const dispatch::Variant* v : rows) {
    const bool measured = v->spread.runs > 0;
    const dispatch::TuneRun* failure = v->Failure();
    t.AddRow()
        .Set(kRank, v->verdict == dispatch::Verdict::kBetter ? Value(++rank) : Value())
        .Set(kVariant, ValidUtf8(v->Name()))
        .Set(kVerdict, dispatch::VerdictName(v->verdict, metric))
        .Set(kSpeedup, v->speedup ? Value(*v->speedup, 2) : Value())
        .Set(kMedian, measured ? Value(v->spread.median, 4) : Value())
        .Set(kMin, measured ? Value(v->spread.min, 4) : Value())
        .Set(kMax, measured ? Value(v->spread.max, 4) : Value())
        .Set(kSpreadPct, measured ? Value(100 * v->spread.Relative(), 1) : Value())
        .Set(kRuns, v->runs.size())
        .Set(kWallSTotal, Value(WallTotal(*v), 3))
        .Set(kGroup, v->combined     ? "combined"
                     : v->baseline() ? ""
                                     : v->knobs.front().group)
        .Set(kEnvironment, ValidUtf8(EnvironmentText(v->Environment())))
        .Set(kExitStatus, failure ? Value(failure->outcome.ShellStatus()) : Value())
        .Set(kStderrLastLine, failure && !failure->stderr_last_line.empty()
                                  ? Value(ValidUtf8(failure->stderr_last_line))
                                  : Value())
        .Set(kNote, ValidUtf8(NoteOf(*v)));
  }
}

struct TuneOutcome {
  std::vector<dispatch::Variant> variants;
  dispatch::ProcessAudit audit;
  int host_cpus = 1;  ///< os::CpuBudget::cpus: the audit's measure of crowded threads
  dispatch::TuneProgress progress;
  std::optional<dispatch::LoadAverage> load_start;
  std::optional<dispatch::LoadAverage> load_end;
};

report::Report BuildReport(const TuneOptions& o, const dispatch::TuneSettings& settings,
                           const TuneOutcome& done) {
  report::Report report(TuneDocument());
  const dispatch::Variant* best = dispatch::BestVariant(done.variants);
  report.apply_line = ValidUtf8(dispatch::ApplyLine(best, o.command));
  using namespace tune_field;
  namespace model_run_field = dispatch::model_run_field;
  report::Section& s = report.AddSection(kTunePart);
  s.Add(dispatch::program_run_field::kCommand, ValidUtf8(CommandText(o.command)));
  s.Add(kMetric, o.metric.empty() ? std::string("wall_s") : ValidUtf8(o.metric));
  s.Add(kHigherIsBetter, settings.metric.higher_is_better);
  s.Add(kGroups, Value(report::TextList(o.groups.empty()
                                            ? report::TextList(std::begin(dispatch::kKnobGroups),
                                                               std::end(dispatch::kKnobGroups))
                                            : o.groups)));
  s.Add(kRunsAsked, o.runs);
  s.Add(kRoundsDone, done.progress.rounds_done);
  s.Add(kBudgetS, Value(o.budget_s, 1));
  s.Add(kElapsedS, Value(done.progress.elapsed_s, 2));
  s.Add(kBest, best ? Value(ValidUtf8(best->Name())) : Value());
  s.Add(kBestSpeedup, best ? Value(*best->speedup, 2) : Value());
  s.Add(kApply, report.apply_line);
  auto load = [](const std::optional<dispatch::LoadAverage>& l) {
    return l ? Value(l->one, 2) : Value();
  };
  s.Add(model_run_field::kLoadStart, load(done.load_start));
  s.Add(model_run_field::kLoadEnd, load(done.load_end));
  const int sig = os::SignalForwarding::Received();
  s.Add(kInterruptedBy, sig != 0 ? Value(os::SignalName(sig)) : Value());
  AddProcessSection(report, done.audit, done.host_cpus);
  AddVariantsTable(report, done.variants, settings.metric);
  // The noise guard's busy-machine (no thread count of dlcheck's: the program keeps its own).
  for (Finding& f : dispatch::NoiseFindings({}, done.load_start, done.load_end)) {
    report.findings.push_back(std::move(f));
  }
  // Their messages quote the program's stderr and the knobs' values: valid UTF-8 only.
  for (Finding& f : dispatch::TuneFindings(done.variants, done.progress, settings)) {
    f.message = ValidUtf8(f.message);
    report.findings.push_back(std::move(f));
  }
  report::SetVerdict(report, ValidUtf8(dispatch::TuneAnswer(done.variants, settings.metric)));
  return report;
}

StatusOr<dispatch::TuneSettings> SettingsOf(const TuneOptions& o) {
  dispatch::TuneSettings settings{
      .argv = o.command,
      .metric = {.pattern = o.metric, .higher_is_better = o.higher_is_better},
      .rounds = o.runs,
      .budget_s = o.budget_s};
  if (o.higher_is_better && o.metric.empty()) {
    return UsageError("--higher-is-better: only with --metric REGEX (wall time is lower-better)");
  }
  if (!o.metric.empty()) {
    try {
      std::regex check(o.metric, std::regex::ECMAScript);
    } catch (const std::regex_error& error) {
      return UsageError(fmt::format("--metric '{}': not a regular expression ({})",
                                    ValidUtf8(o.metric), error.what()));
    }
  }
  return settings;
}

StatusOr<std::vector<dispatch::Knob>> KnobsOf(const TuneOptions& o) {
  if (Status groups = dispatch::CheckGroups(o.groups); !groups.ok()) return groups;
  dispatch::EnvironmentChange user;
  for (const std::string& text : o.knobs) {
    StatusOr<std::pair<std::string, std::string>> knob = dispatch::ParseKnob(text);
    if (!knob.ok()) return knob.status();
    user.push_back(std::move(*knob));
  }
  if (!o.knobs.empty() && !o.groups.empty() &&
      std::find(o.groups.begin(), o.groups.end(), "user") == o.groups.end()) {
    return UsageError("--knob: the group 'user' is not among --groups");
  }
  return dispatch::PlanKnobs(dispatch::LiveTuneHost(), o.groups, user);
}

StatusOr<int> RunTuneCommand(const TuneOptions& o) {
  StatusOr<dispatch::TuneSettings> settings = SettingsOf(o);
  if (!settings.ok()) return settings.status();
  StatusOr<std::vector<dispatch::Knob>> knobs = KnobsOf(o);
  if (!knobs.ok()) return knobs.status();
  TuneOutcome done{.variants = dispatch::VariantsOf(*knobs)};
  std::size_t running = 0;
  for (const dispatch::Variant& v : done.variants) running += v.runs_here();
  os::SignalForwarding forwarding;  // a signal between runs ends the tune with its report
  dispatch::AuditSampler sampler;
  settings->while_baseline_runs = sampler.Hook();
  settings->mapped_after_baseline = [&sampler]() -> std::optional<std::vector<std::string>> {
    const dispatch::ProcessAudit audit = sampler.Result();
    if (audit.samples == 0) return std::nullopt;
    std::vector<std::string> kinds;
    for (const dispatch::MappedLibrary& library : audit.libraries) {
      kinds.emplace_back(library.kind.name);
    }
    return kinds;
  };
  StatusOr<dispatch::TuneProgress> progress = [&] {
    report::Progress line("tune", running * static_cast<std::size_t>(o.runs));
    if (line.active()) {
      settings->on_run = [&line, &o](std::string_view variant, int round) {
        line.Step(fmt::format("{} (run {}/{})", variant, round, o.runs));
      };
      settings->on_output = [&line] { line.Clear(); };
      settings->on_chunk = [&line] { line.Tick(); };
    }
    return dispatch::RunTune(done.variants, *settings);
  }();
  if (!progress.ok()) return progress.status();
  done.progress = *progress;
  done.audit = sampler.Result();
  done.host_cpus = os::ReadCpuBudget().cpus;
  done.load_end = dispatch::ReadLoadAverage();
  report::Print(BuildReport(o, *settings, done), o.format, std::cout);
  std::cout.flush();
  if (const int sig = os::SignalForwarding::Received(); sig != 0) {
    PrintError(
        fmt::format("interrupted by {}; the report holds the runs done", os::SignalName(sig)));
    return os::ExitStatusForSignal(sig);
  }
  // A baseline that failed is the program's failure: its status, as `run` ends.
  const dispatch::Variant& baseline = done.variants.front();
  if (const dispatch::TuneRun* failure = baseline.Failure(); failure && !failure->outcome.ok()) {
    return failure->outcome.ShellStatus();
  }
  return 0;
}

}  // namespace

const report::contract::Document& TuneDocument() {
  static const report::contract::Document kTune = [] {
    using namespace tune_field;
    namespace contract = report::contract;
    namespace model_run_field = dispatch::model_run_field;
    return contract::Document{
        "tune",
        "the settings around oneDNN measured on a program, each against the baseline, ranked "
        "beyond the spread of the runs",
        {contract::Object(
             kTunePart, {dispatch::program_run_field::kCommand, kMetric, kHigherIsBetter, kGroups,
                         kRunsAsked, kRoundsDone, kBudgetS, kElapsedS, kBest, kBestSpeedup, kApply,
                         model_run_field::kLoadStart, model_run_field::kLoadEnd, kInterruptedBy}),
         ProcessMember(), contract::Rows(kVariantsTable, contract::Members(tune_columns::kAll))},
        std::string(kVariantsTable.name)};
  }();
  return kTune;
}

void SetupTune(CLI::App& subcommand, int& exit_code) {
  auto o = std::make_shared<TuneOptions>();
  CLI::App* const sub = &subcommand;
  sub->add_option("command", o->command, "the program and its arguments, after --")->required();
  sub->add_option("--runs", o->runs,
                  "runs of each variant, in interleaved rounds (default 5; fewer when the budget "
                  "ends first)")
      ->check(CLI::Range(2, 1000))
      ->type_name("N");
  sub->add_option("--budget", o->budget_s,
                  "seconds for the whole command (default 600): no round starts that the last "
                  "round's time says would not fit, and a run is killed at the end")
      ->check(Seconds())
      ->type_name("SECONDS");
  sub->add_option("--metric", o->metric,
                  "measure the number the program prints on its stdout (the first capture group "
                  "of REGEX, ECMAScript syntax; the last match of a run) instead of wall time")
      ->type_name("REGEX");
  sub->add_flag("--higher-is-better", o->higher_is_better,
                "with --metric: a higher figure is better (samples/s, tokens/s)");
  sub->add_option("--knob", o->knobs,
                  "one more variant: NAME=VALUE in the program's environment (repeatable)")
      ->type_name("NAME=VALUE");
  sub->add_option("--groups", o->groups,
                  "the knobs to measure, comma-separated: threads, openmp, placement, allocator, "
                  "blas, onednn, framework, user (default: all)")
      ->delimiter(',')
      ->type_name("LIST");
  AddFormatOption(*sub, o->format);
  AddOutputOption(*sub);
  sub->footer(
      "The program's own stdout and stderr go to dlcheck's stderr; the report to stdout. "
      "dlcheck ends with 0, the baseline's exit status when the program failed without any knob, "
      "or 128+N when signal N stopped it (the report holds the runs done).");
  sub->callback([o, &exit_code] { exit_code = EndCommand(RunTuneCommand(*o)); });
}

}  // namespace dlcheck::cli
