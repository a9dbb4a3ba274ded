// SPDX-License-Identifier: Apache-2.0
// dlcheck whatif [LOG...|-], whatif --model mlp|cnn, whatif -- CMD [ARGS]: the hot primitives of
// a verbose log rebuilt with the linked oneDNN and measured as logged and under the changes an
// application could make (whatif/whatif.h), ranked by the step time each change would save.
// dlcheck's model and a program are captured first, as `verbose` and `run` capture them; their
// log, and a log read from standard input or a pipe, is kept in a private scratch file that the
// ISA workers read again, removed at the end (on Ctrl-C and on an error too).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>
#include <iostream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/log_view.h"
#include "cli/model_options.h"
#include "cli/roofline_view.h"
#include "cli/run_view.h"
#include "cli/stats_view.h"
#include "common/exit_code.h"
#include "common/finding_codes.h"
#include "common/input_rules.h"
#include "common/library_kinds.h"
#include "common/status.h"
#include "common/text.h"
#include "detect/platform.h"
#include "dispatch/capture.h"
#include "dispatch/noise.h"
#include "dispatch/process_audit.h"
#include "dispatch/run_fields.h"
#include "dispatch/sweep.h"
#include "mlp/model.h"
#include "os/cpu_budget.h"
#include "os/exit_status.h"
#include "os/input_file.h"
#include "os/output_file.h"
#include "os/scratch_directory.h"
#include "os/signals.h"
#include "os/subprocess.h"
#include "report/primitive_columns.h"
#include "report/printer.h"
#include "report/progress.h"
#include "verbose/benchdnn.h"
#include "verbose/line_reader.h"
#include "verbose/log_session.h"
#include "whatif/environment.h"
#include "whatif/framework_advice.h"
#include "whatif/log_identity.h"
#include "whatif/whatif.h"

extern char** environ;

namespace dlcheck::cli {
namespace {

struct WhatifOptions {
  std::vector<std::string> files;
  std::vector<std::string> command;  ///< CMD after --: captured, then measured
  dispatch::ModelSource model;       ///< with --model: dlcheck's model, captured, then measured
  bool model_given = false;          ///< --model was given (set when the command runs)
  /// The capture's threads (-t; also the baseline's) and limit (--timeout).
  dispatch::CaptureSettings capture{.timeout_s = dispatch::kWorkerTimeoutS};
  bool timeout_given = false;
  report::Format format = report::Format::kTable;
  double cover_pct = 80;
  std::size_t top = 10;
  double time_s = 0.1;
  bool cold = false;
  std::vector<std::string> variants = {"layouts", "impl", "threads", "dtype", "isa"};
  bool baseline_layouts_any = false;  ///< hidden: what an ISA worker measures
  /// The user's oneDNN and OpenMP variables, removed before the measurement (handed on to CMD).
  std::vector<whatif::EnvironmentVariable> environment_removed;
  /// The captured program's framework, as its audit saw it mapped ("PyTorch"); empty: not known.
  std::string framework;
  RooflineRequest roofline;  ///< --roofline, --machine-profile: the hot rows on the roofline
  std::optional<RooflineProfile> machine;  ///< the profile they name, read before any work
};

// The group of the model's options in --help: only with --model.
constexpr std::string_view kModelGroup = "Model options (with --model)";

// Set by dlcheck in the environment of a whatif it starts: by the restart, to the variables it
// removed (whatif::EncodeEnvironment); for an ISA worker, empty (its cap is dlcheck's own).
constexpr const char* kRemovedEnvironment = "DLCHECK_WHATIF_ENVIRONMENT_REMOVED";

// Set by dlcheck in an ISA worker's environment: the identities of its logs as the parent read
// them (whatif::EncodeIdentities); the worker refuses a log that changed since.
constexpr const char* kLogIdentities = "DLCHECK_WHATIF_LOG_IDENTITIES";

// Whether whatif runs what it measures (the model, or CMD) rather than read a log.
bool Captures(const WhatifOptions& o) {
  return o.model_given || !o.command.empty();
}

// The name of what was captured, in findings and messages: the program, or the model worker.
std::string CapturedName(const WhatifOptions& o) {
  return o.command.empty() ? std::string("the model worker") : ValidUtf8(o.command.front());
}

// The words of the whatif document, declared once.
namespace whatif_field {
using report::Arity;
using report::Field;
using report::Type;
// clang-format off
// options
inline constexpr Field kCoverPct{"cover_pct", Type::kNumber};
inline constexpr Field kTop{"top", Type::kInteger};
inline constexpr Field kTimeS{"time_s", Type::kNumber};
inline constexpr Field kCold{"cold", Type::kBoolean};
inline constexpr Field kVariants{"variants", Type::kText, Arity::kList};
// measurement
inline constexpr Field kMeasuredWith{"measured_with"};
inline constexpr Field kThreads{"threads", Type::kInteger};
inline constexpr Field kThreadsSource{"threads_source"};
inline constexpr Field kIsaCaps{"isa_caps", Type::kText, Arity::kList};
inline constexpr Field kIsaNote{"isa_note"};
// the cap the baselines ran under (the log's ISA, below this host's), and why
inline constexpr Field kBaselineIsa{"baseline_isa"};
inline constexpr Field kBaselineIsaNote{"baseline_isa_note"};
inline constexpr Field kFlopCount{"flop_count"};
inline constexpr Field kHotRows{"hot_rows", Type::kInteger};
inline constexpr Field kRebuilt{"rebuilt", Type::kInteger};
inline constexpr Field kCoveredPct{"covered_pct", Type::kNumber};
inline constexpr Field kImplementationAgreement{"implementation_agreement"};
inline constexpr Field kInterruptedBy{"interrupted_by"};
// the user's oneDNN and OpenMP variables, removed from the measurement: NAME=VALUE
inline constexpr Field kEnvironmentRemoved{"environment_removed", Type::kText, Arity::kList};
inline constexpr Field kVerdict{"verdict"};
// variants, changes
// the hot row's rank: with the variant, it names a row
inline constexpr Field kHot{"hot", Type::kInteger, Arity::kOne, report::Role::kIdentity};
inline constexpr Field kLoggedImplementation{"logged_implementation"};
inline constexpr Field kVariant{"variant"};
inline constexpr Field kMinMs{"min_ms", Type::kNumber};
// the slowest round's min: with min_ms, the variant's range over its rounds
inline constexpr Field kRoundMaxMs{"round_max_ms", Type::kNumber};
inline constexpr Field kRounds{"rounds", Type::kInteger};
inline constexpr Field kWithinNoise{"within_noise", Type::kBoolean};
// the 1-minute load average as the measurements started and ended
inline constexpr Field kLoadStart{"load_start", Type::kNumber};
inline constexpr Field kLoadEnd{"load_end", Type::kNumber};
inline constexpr Field kAvgMs{"avg_ms", Type::kNumber};
inline constexpr Field kRuns{"runs", Type::kInteger};
inline constexpr Field kSpeedup{"speedup", Type::kNumber};
inline constexpr Field kStepGainPct{"step_gain_pct", Type::kNumber};
// the step gain on the captured program's wall time (-- CMD, --model), and oneDNN's share of it
inline constexpr Field kProgramGainPct{"program_gain_pct", Type::kNumber};
inline constexpr Field kOnednnWallPct{"onednn_wall_pct", Type::kNumber};
/// The captured program's framework, as its audit saw it mapped; null for a log.
inline constexpr Field kFramework{"framework"};
inline constexpr Field kDeviation{"deviation"};
inline constexpr Field kNote{"note"};
inline constexpr Field kFromMs{"from_ms", Type::kNumber};
inline constexpr Field kToMs{"to_ms", Type::kNumber};
inline constexpr Field kChange{"change"};
// step_knobs
inline constexpr Field kRowsMeasured{"rows_measured", Type::kInteger};
inline constexpr Field kCannotRun{"cannot_run", Type::kText, Arity::kList};
inline constexpr Field kStepGainLowPct{"step_gain_low_pct", Type::kNumber};
inline constexpr Field kStepGainHighPct{"step_gain_high_pct", Type::kNumber};
inline constexpr Field kConfirm{"confirm"};
/// The change in the captured program's framework's words (whatif::FrameworkAdvice).
inline constexpr Field kInFramework{"in_framework"};
// clang-format on
}  // namespace whatif_field

constexpr report::Part kOptionsSection{"options", "Options"};
constexpr report::Part kMeasurementSection{"measurement", "Measurement"};
constexpr report::Part kVariantsTable{"variants", "Variants of each hot primitive"};
constexpr report::Part kChangesTable{"changes", "Changes, by projected step gain"};
constexpr report::Part kKnobsTable{"step_knobs",
                                   "Process-wide changes (isa, threads), over the whole step"};

namespace col = report::primitive_column;
using namespace whatif_field;

const std::vector<report::Field>& VariantColumns() {
  static const std::vector<report::Field> kColumns = {kHot,
                                                      col::kEngine,
                                                      col::kPrimitive,
                                                      kLoggedImplementation,
                                                      col::kIsa,
                                                      col::kPropKind,
                                                      col::kDataTypes,
                                                      col::kLayouts,
                                                      col::kAttributes,
                                                      col::kAuxiliary,
                                                      col::kProblem,
                                                      col::kTimePct,
                                                      kVariant,
                                                      kThreads,
                                                      kMinMs,
                                                      kRoundMaxMs,
                                                      kRounds,
                                                      kWithinNoise,
                                                      kAvgMs,
                                                      kRuns,
                                                      col::kCreateMs,
                                                      col::kImplementation,
                                                      col::kGflops,
                                                      kSpeedup,
                                                      kStepGainPct,
                                                      kDeviation,
                                                      col::kBenchdnn,
                                                      kNote};
  return kColumns;
}

const std::vector<report::Field>& ChangeColumns() {
  static const std::vector<report::Field> kColumns = {
      kHot,  col::kPrimitive, col::kProblem, col::kTimePct,   kVariant, kFromMs,
      kToMs, kSpeedup,        kStepGainPct,  kProgramGainPct, kChange,  kInFramework};
  return kColumns;
}

const std::vector<report::Field>& KnobColumns() {
  static const std::vector<report::Field> kColumns = {
      kVariant,         kRowsMeasured, kCannotRun, kStepGainPct, kStepGainLowPct,
      kStepGainHighPct, kWithinNoise,  kConfirm,   kChange,      kInFramework};
  return kColumns;
}

constexpr std::string_view kFlopCountText =
    "benchdnn's: a multiply-add counts 2, a convolution's kernel taps on padding left out";

report::Value Number(const std::optional<double>& v, int decimals = 3) {
  return v ? report::Value(*v, decimals) : report::Value();
}
report::Value Text(const std::string& text) {
  return text.empty() ? report::Value() : report::Value(text);
}

// A variants row of `hot`'s variant `v`, filled by field.
void AddVariantRow(report::Table& t, const whatif::HotPrimitive& hot,
                   const whatif::VariantResult& v) {
  const verbose::PrimitiveStats& r = hot.row;
  const bool measured = v.min_ms.has_value();
  t.AddRow()
      .Set(kHot, hot.rank)
      .Set(col::kEngine, r.engine.str())
      .Set(col::kPrimitive, r.primitive.str())
      .Set(kLoggedImplementation, r.implementation.str())
      .Set(col::kIsa, Text(r.isa.str()))
      .Set(col::kPropKind, r.prop_kind.str())
      .Set(col::kDataTypes, r.data_types.str())
      .Set(col::kLayouts, r.layouts.str())
      .Set(col::kAttributes, Text(r.attributes.str()))
      .Set(col::kAuxiliary, Text(r.auxiliary.str()))
      .Set(col::kProblem, r.problem.str())
      .Set(col::kTimePct, report::Value(hot.share_pct, 1))
      .Set(kVariant, v.variant)
      .Set(kThreads, v.threads > 0 ? report::Value(v.threads) : report::Value())
      .Set(kMinMs, Number(v.min_ms, 4))
      .Set(kRoundMaxMs, Number(v.round_max_ms, 4))
      .Set(kRounds, v.round_ms.empty() ? report::Value() : report::Value(v.round_ms.size()))
      .Set(kWithinNoise, measured ? report::Value(v.within_noise) : report::Value())
      .Set(kAvgMs, Number(v.avg_ms, 4))
      .Set(kRuns, measured ? report::Value(v.runs) : report::Value())
      .Set(col::kCreateMs, Number(v.create_ms))
      .Set(col::kImplementation, Text(v.implementation))
      .Set(col::kGflops, Number(v.gflops, 1))
      .Set(kSpeedup, Number(v.speedup, 2))
      .Set(kStepGainPct, Number(v.step_gain_pct, 1))
      .Set(kDeviation, Text(v.deviation))
      .Set(col::kBenchdnn, Text(v.benchdnn))
      .Set(kNote, Text(v.note));
}

report::Section OptionsSection(const WhatifOptions& o) {
  report::Section s;
  s.name = kOptionsSection.name;
  s.title = kOptionsSection.title;
  s.Add(kCoverPct, report::Value(o.cover_pct, 1));
  s.Add(kTop, o.top);
  s.Add(kTimeS, report::Value(o.time_s, 3));
  s.Add(kCold, o.cold);
  s.Add(kThreads, o.capture.threads > 0 ? report::Value(o.capture.threads) : report::Value());
  s.Add(kVariants, report::Value(report::TextList(o.variants)));
  // What was captured: the model (--model), or the program (-- CMD); null for a log.
  s.Add(dispatch::model_run_field::kModel,
        o.model_given ? report::Value(std::string(mlp::Name(o.model.run.model.model)))
                      : report::Value());
  s.Add(dispatch::program_run_field::kCommand,
        o.command.empty() ? report::Value() : report::Value(ValidUtf8(CommandText(o.command))));
  return s;
}

// What whatif measured in besides the plan: the user's variables it removed, and what the
// findings say of them and of the machine.
struct MeasurementEnvironment {
  std::vector<whatif::EnvironmentVariable> removed;
  /// The load averages around the measurement (its threads are the plan's: frame.threads is
  /// empty).
  dispatch::CaptureFrame frame;
  std::vector<Finding> findings;
};

struct IsaContext {
  std::vector<std::string> caps;
  std::string note;  // why there are none, when there are none
};

// `names`: the inputs as the user named them; empty for a captured run. `captured`: the model's
// or the program's run, whose end the report tells as `run` tells it (its findings, how it
// ended); nullptr for a log.
report::Report BuildReport(const WhatifOptions& options, const std::vector<std::string>& names,
                           const verbose::LogSession& session, const verbose::Summary& summary,
                           const whatif::WhatifResult& result, const IsaContext& isa,
                           const dispatch::Run* captured, const MeasurementEnvironment& env) {
  report::Report report(WhatifDocument());
  if (captured != nullptr)
    report.findings = dispatch::RunFindings(*captured, CapturedName(options));
  report.findings.insert(report.findings.end(), env.findings.begin(), env.findings.end());
  report.sections.push_back(OptionsSection(options));
  report::Section& m = report.AddSection(kMeasurementSection);
  std::size_t rebuilt = 0;
  for (const whatif::HotPrimitive& hot : result.hot) rebuilt += hot.not_rebuilt.empty() ? 1 : 0;
  const std::vector<whatif::Change> changes = whatif::RankedChanges(result);
  const std::vector<whatif::StepKnob> knobs = whatif::StepKnobs(result);
  const std::string verdict = whatif::Verdict(result, changes, knobs);
  // The verdict's one home on a terminal is the headline; JSON carries it as this field.
  m.Add(kVerdict, verdict);
  m.hidden_in_table = report::Names({kVerdict});
  m.Add(kMeasuredWith,
        "oneDNN 2.6.3 (dlcheck's) on this machine; a 3.x log's kernels are named "
        "differently there");
  m.Add(kThreads, result.threads);
  m.Add(kThreadsSource, result.threads_source);
  m.Add(kEnvironmentRemoved,
        report::Value(report::TextList(whatif::EnvironmentTexts(env.removed))));
  const auto load = [](const std::optional<dispatch::LoadAverage>& l) {
    return l ? report::Value(l->one, 2) : report::Value();
  };
  m.Add(kLoadStart, load(env.frame.load_start));
  m.Add(kLoadEnd, load(env.frame.load_end));
  m.Add(kBaselineIsa, Text(result.baseline_cap));
  m.Add(kBaselineIsaNote, Text(result.baseline_cap_note));
  m.Add(kIsaCaps, report::Value(report::TextList(isa.caps)));
  m.Add(kIsaNote, Text(isa.note));
  m.Add(kFlopCount, kFlopCountText);
  m.Add(kHotRows, result.hot.size());
  m.Add(kRebuilt, rebuilt);
  m.Add(kCoveredPct, report::Value(result.covered_pct, 1));
  m.Add(kImplementationAgreement, result.implementation_agreement);
  namespace program_run_field = dispatch::program_run_field;
  m.Add(program_run_field::kEnded,
        captured ? report::Value(captured->outcome.Describe()) : report::Value());
  m.Add(program_run_field::kExitStatus,
        captured ? report::Value(captured->outcome.ShellStatus()) : report::Value());
  const int sig = os::SignalForwarding::Received();
  m.Add(kInterruptedBy, sig != 0 ? report::Value(os::SignalName(sig)) : report::Value());
  m.Add(kOnednnWallPct, Number(result.onednn_wall_pct, 1));
  m.Add(kFramework, Text(options.framework));

  report::Table& changes_table = report.AddTable(kChangesTable, ChangeColumns());
  for (const whatif::Change& c : changes) {
    const report::Value program_gain =
        result.onednn_wall_pct
            ? report::Value(whatif::ProgramGainPct(c.variant->step_gain_pct.value_or(0),
                                                   *result.onednn_wall_pct),
                            2)
            : report::Value();
    changes_table.AddRow()
        .Set(kHot, c.hot->rank)
        .Set(col::kPrimitive, c.hot->row.primitive.str())
        .Set(col::kProblem, c.hot->row.problem.str())
        .Set(col::kTimePct, report::Value(c.hot->share_pct, 1))
        .Set(kVariant, c.variant->variant)
        .Set(kFromMs, Number(c.hot->variants.front().min_ms, 4))
        .Set(kToMs, Number(c.variant->min_ms, 4))
        .Set(kSpeedup, Number(c.variant->speedup, 2))
        .Set(kStepGainPct, Number(c.variant->step_gain_pct, 1))
        .Set(kProgramGainPct, program_gain)
        .Set(kChange, whatif::ChangeSentence(*c.hot, *c.variant, result.onednn_wall_pct))
        .Set(kInFramework, Text(whatif::FrameworkAdvice(options.framework, c.variant->variant,
                                                        c.hot->row.primitive.view())));
  }
  changes_table.answer_columns = report::Names({kStepGainPct, kVariant});
  changes_table.hidden_in_table = report::Names({kChange, col::kProblem});
  if (options.framework.empty()) changes_table.hidden_in_table.emplace_back(kInFramework.name);

  report::Table& knobs_table = report.AddTable(kKnobsTable, KnobColumns());
  for (const whatif::StepKnob& k : knobs) {
    knobs_table.AddRow()
        .Set(kVariant, k.variant)
        .Set(kRowsMeasured, k.rows_measured)
        .Set(kCannotRun, report::Value(report::TextList(k.cannot_run)))
        .Set(kStepGainPct, report::Value(k.step_gain_pct, 1))
        .Set(kStepGainLowPct, report::Value(k.step_gain_low_pct, 1))
        .Set(kStepGainHighPct, report::Value(k.step_gain_high_pct, 1))
        .Set(kWithinNoise, k.within_noise)
        .Set(kConfirm, k.confirm)
        .Set(kChange, whatif::KnobSentence(k, result.onednn_wall_pct))
        .Set(kInFramework, Text(whatif::FrameworkAdvice(options.framework, k.variant, "")));
  }
  knobs_table.answer_columns = report::Names({kStepGainPct, kVariant});
  knobs_table.hidden_in_table = report::Names({kChange, kStepGainLowPct, kStepGainHighPct});
  if (options.framework.empty()) knobs_table.hidden_in_table.emplace_back(kInFramework.name);

  report::Table& variants = report.AddTable(kVariantsTable, VariantColumns());
  for (const whatif::HotPrimitive& hot : result.hot) {
    if (!hot.not_rebuilt.empty()) {
      whatif::VariantResult none{.variant = "as logged", .note = "not rebuilt: " + hot.not_rebuilt};
      AddVariantRow(variants, hot, none);
      continue;
    }
    for (const whatif::VariantResult& v : hot.variants) AddVariantRow(variants, hot, v);
  }
  variants.answer_columns = report::Names({kVariant, kMinMs, kSpeedup});
  variants.hidden_in_table = report::Names({col::kEngine, col::kIsa, col::kDataTypes, col::kLayouts,
                                            col::kAttributes, col::kAuxiliary, col::kBenchdnn,
                                            col::kCreateMs, kAvgMs, kRuns, kRounds, kWithinNoise});
  variants.leave_out_first =
      report::Names({kDeviation, col::kProblem, col::kGflops, kLoggedImplementation, kRoundMaxMs});
  // The pictures (html, svg): each change's projected step gain, then every variant's time.
  report.charts.push_back({.title = "Projected step gain of each change",
                           .table = std::string(kChangesTable.name),
                           .label = report::Names({kHot, col::kPrimitive, kVariant}),
                           .value = std::string(kStepGainPct.name),
                           .unit = "% of the step",
                           .limit = 40});
  // Small multiples, one per hot primitive on its own scale (issue 47: 75 variants of 0.25-13 ms
  // on one axis showed none of them): each variant's speed-up over the row as logged (1).
  report.charts.push_back({.kind = report::Chart::Kind::kDiverging,
                           .title = "Speed-up of each variant over the row as logged",
                           .table = std::string(kVariantsTable.name),
                           .label = report::Names({kVariant}),
                           .value = std::string(kSpeedup.name),
                           .unit = "x",
                           .limit = 30,
                           .facet = report::Names({kHot, col::kPrimitive}),
                           .speedup = true});
  AddLogSummary(report, names, session, summary);  // no names: a captured run, files null
  // The verdict first, on a terminal, with the tally of the findings (the log's, the captured
  // run's), once the last is added.
  report::SetVerdict(report, verdict);
  return report;
}

// `line` with the cap's ONEDNN_MAX_CPU_ISA: the ceiling the worker ran under, in place of the
// one its implementation names (or where an implementation names none, `x64:gemm:jit`).
std::string PinnedToCap(std::string line, const std::string& cap) {
  if (line.empty()) return line;
  const std::string pin =
      "ONEDNN_MAX_CPU_ISA=" + verbose::MaxCpuIsaValue(cap, verbose::BenchdnnVersion::kV2);
  const std::size_t at = line.find("ONEDNN_MAX_CPU_ISA=");
  if (at != std::string::npos) {
    return line.replace(at, line.find(' ', at) - at, pin);
  }
  const std::size_t bench = line.find("benchdnn ");
  return bench == std::string::npos ? line : line.insert(bench, pin + " ");
}

// A log's path as a positional argument of whatif: one that starts with '-' as ./-name (after
// `--` it would be a command to run).
std::string PathArgument(const std::string& path) {
  return path.starts_with('-') ? "./" + path : path;
}

// The baselines of the hot rows `ranks`, measured by this dlcheck under ONEDNN_MAX_CPU_ISA=cap:
// `dlcheck whatif --variants none ... --format json PATHS` in a worker per cap; `paths` are
// files it can read again (a spooled or captured log's scratch file).
// ": <the last line of its stderr>" without dlcheck's prefix, or empty.
std::string LastWords(std::string tail) {
  while (!tail.empty() && tail.back() == '\n') tail.pop_back();
  const std::size_t start = tail.rfind('\n');
  std::string last = tail.substr(start == std::string::npos ? 0 : start + 1);
  if (last.starts_with("dlcheck: ")) last = last.substr(9);
  return last.empty() ? std::string() : ": " + last;
}

// What an ISA worker reads and how its rows are checked: the logs (files it can read again) and
// their identities as the parent read them, and the parent's row of each rank.
struct IsaWorkerInput {
  std::vector<std::string> paths;
  std::string identities;  // whatif::EncodeIdentities
  std::function<const verbose::PrimitiveStats*(std::size_t rank)> row_of;
};

// Whether the worker's variants row is the parent's hot row: the same primitive and problem.
bool SameRow(const nlohmann::json& row, const verbose::PrimitiveStats* parent) {
  return parent != nullptr && row[col::kPrimitive.name] == parent->primitive.str() &&
         row[col::kProblem.name] == parent->problem.str();
}

std::vector<whatif::VariantResult> RunIsaWorker(const WhatifOptions& options,
                                                const IsaWorkerInput& input, int threads,
                                                const std::string& cap,
                                                const std::vector<std::size_t>& ranks) {
  const std::vector<std::string>& paths = input.paths;
  os::Spec spec;
  spec.argv = {os::SelfExecutable(),
               "whatif",
               "--variants",
               "none",
               "--baseline-layouts-any",
               "--format",
               "json",
               "--threads",
               std::to_string(threads),
               "--time",
               fmt::format("{}", options.time_s),
               "--cover",
               fmt::format("{}", options.cover_pct),
               "--top",
               std::to_string(options.top)};
  if (options.cold) spec.argv.push_back("--cold");
  for (const std::string& path : paths) spec.argv.push_back(PathArgument(path));
  // A clean environment (CleanEnvironment), the cap dlcheck's own.
  spec.env = {{"ONEDNN_MAX_CPU_ISA", cap},
              {"DNNL_MAX_CPU_ISA", cap},
              {kRemovedEnvironment, ""},
              {kLogIdentities, input.identities}};
  for (const whatif::EnvironmentVariable& v : whatif::MeasurementVariables(environ)) {
    if (v.name != "ONEDNN_MAX_CPU_ISA" && v.name != "DNNL_MAX_CPU_ISA") {
      spec.unset_env.push_back(v.name);
    }
  }
  spec.read_to_end = true;
  spec.keep_stderr_tail = true;
  std::string out;
  StatusOr<os::Outcome> ended = os::RunProcess(spec, [&](std::string_view bytes) { out += bytes; });
  std::vector<whatif::VariantResult> results;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    whatif::VariantResult v{.variant = "isa " + cap, .threads = threads};
    if (!ended.ok() || !ended->ok()) {
      v.note = "the worker under this cap " +
               (ended.ok() ? ended->Describe() : ended.status().message());
      if (ended.ok()) v.note += LastWords(ended->stderr_tail);
    }
    results.push_back(std::move(v));
  }
  if (!ended.ok() || !ended->ok()) return results;
  const nlohmann::json doc = nlohmann::json::parse(out, nullptr, false);
  if (doc.is_discarded() || !doc.contains(kVariantsTable.name)) return results;
  for (const nlohmann::json& row : doc[kVariantsTable.name]) {
    if (!row[kVariant.name].is_string() || row[kVariant.name] != "as logged") continue;
    const std::size_t rank = row[kHot.name].get<std::size_t>();
    const auto at = std::find(ranks.begin(), ranks.end(), rank);
    if (at == ranks.end()) continue;
    whatif::VariantResult& v = results[at - ranks.begin()];
    if (!SameRow(row, input.row_of(rank))) {  // the log changed between the two reads
      v.note =
          "not used: the worker's hot row of this rank is another primitive (the log "
          "changed since whatif read it)";
      continue;
    }
    auto number = [&](const report::Field& f) -> std::optional<double> {
      const nlohmann::json& x = row[f.name];
      return x.is_number() ? std::optional<double>(x.get<double>()) : std::nullopt;
    };
    auto text = [&](const report::Field& f) -> std::string {
      const nlohmann::json& x = row[f.name];
      return x.is_string() ? x.get<std::string>() : std::string();
    };
    v.min_ms = number(kMinMs);
    v.round_max_ms = number(kRoundMaxMs);
    if (v.min_ms && v.round_max_ms && number(kRounds).value_or(0) >= 2) {
      v.round_ms = {*v.min_ms, *v.round_max_ms};  // the worker's range: its extremes
    }
    v.avg_ms = number(kAvgMs);
    v.runs = static_cast<std::uint64_t>(number(kRuns).value_or(0));
    v.create_ms = number(col::kCreateMs);
    v.implementation = text(col::kImplementation);
    v.benchdnn = PinnedToCap(text(col::kBenchdnn), cap);
    // The worker's own note compares its baseline with the log's implementation, which the
    // parent's baseline already does; only a failure's reason is kept.
    const std::string note = v.min_ms ? std::string() : text(kNote);
    v.note = "layouts chosen by oneDNN under this cap (no reorders counted)" +
             (note.empty() ? std::string() : "; " + note);
  }
  return results;
}

// The ISA caps up to this host's own but the baseline's (each measured by a worker), or why
// there are none.
IsaContext ChooseIsaCaps(const WhatifOptions& options, const detect::PlatformInfo& platform,
                         const std::string& baseline_cap) {
  IsaContext isa;
  if (std::find(options.variants.begin(), options.variants.end(), "isa") ==
      options.variants.end()) {
    return isa;
  }
  StatusOr<std::vector<std::string>> caps = dispatch::ChooseCaps({}, platform);
  if (!caps.ok() || caps->empty()) {
    isa.note = "no isa variants: " +
               (caps.ok() ? std::string("no cap below this host's ISA") : caps.status().message());
    return isa;
  }
  isa.caps = whatif::IsaVariantCaps(*caps, baseline_cap);
  if (isa.caps.empty()) isa.note = "no isa variants: no cap below this host's ISA";
  return isa;
}

// A log to read: the file read (a spooled or captured log's scratch file, or the user's own) and
// its name in the report (as the user named it; empty for a captured run).
struct LogInput {
  std::string path;
  std::string name;
};

Status ReadLogs(const std::vector<LogInput>& inputs, verbose::LogSession& session) {
  for (const LogInput& input : inputs) {
    verbose::LineReader reader;
    if (Status s = reader.Open(input.path); !s.ok()) return s;
    const std::string name = input.name.empty() ? "captured run" : input.name;
    if (Status s = session.FeedAll(reader, name == "-" ? "<stdin>" : name); !s.ok()) return s;
  }
  return {};
}

// This process's command line, as it was started.
StatusOr<std::vector<std::string>> OwnCommandLine() {
  const std::optional<std::string> cmdline = os::ReadProcFile("/proc/self/cmdline");
  if (!cmdline) return Status(ExitCode::kFailure, "cannot read /proc/self/cmdline");
  const std::string& text = *cmdline;
  std::vector<std::string> argv;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\0', at), text.size());
    argv.push_back(text.substr(at, end - at));
    at = end + 1;
  }
  if (argv.empty()) return Status(ExitCode::kFailure, "cannot read /proc/self/cmdline");
  return argv;
}

// Runs this command again, in this process (the same command line and open files), without
// `found`: OpenMP reads its variables as it is loaded, before dlcheck could remove them. Returns
// only when it could not.
Status RestartWithout(const std::vector<whatif::EnvironmentVariable>& found) {
  const auto failed = [&](const std::string& why) {
    return Status(ExitCode::kFailure,
                  fmt::format("cannot restart without {} ({}): unset them to measure",
                              Join(whatif::EnvironmentTexts(found), " "), why));
  };
  StatusOr<std::vector<std::string>> args = OwnCommandLine();
  if (!args.ok()) return failed(args.status().message());
  std::vector<std::string> env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    if (!whatif::IsMeasurementVariable(name) && name != kRemovedEnvironment) env.emplace_back(text);
  }
  env.push_back(std::string(kRemovedEnvironment) + "=" + whatif::EncodeEnvironment(found));
  std::vector<char*> argv_pointers, env_pointers;
  for (std::string& a : *args) argv_pointers.push_back(a.data());
  argv_pointers.push_back(nullptr);
  for (std::string& e : env) env_pointers.push_back(e.data());
  env_pointers.push_back(nullptr);
  const std::string self = os::SelfExecutable();
  DiscardReportOutput();  // the restarted command opens -o again
  std::cout.flush();
  std::cerr.flush();
  ::execve(self.c_str(), argv_pointers.data(), env_pointers.data());
  return failed(std::strerror(errno));
}

// The user's oneDNN and OpenMP variables this whatif measures without: those the restart removed
// (handed on by it), else, when there are any, this command restarted without them.
StatusOr<std::vector<whatif::EnvironmentVariable>> CleanEnvironment() {
  if (const char* handed = std::getenv(kRemovedEnvironment)) {
    std::vector<whatif::EnvironmentVariable> removed = whatif::DecodeEnvironment(handed);
    ::unsetenv(kRemovedEnvironment);
    return removed;
  }
  std::vector<whatif::EnvironmentVariable> found = whatif::MeasurementVariables(environ);
  if (found.empty()) return found;
  return RestartWithout(found);
}

// The removed variables a captured program gets back: its run is the user's (their verbose
// settings aside, which the capture sets).
std::vector<std::pair<std::string, std::string>> ProgramEnvironment(
    const std::vector<whatif::EnvironmentVariable>& removed) {
  std::vector<std::pair<std::string, std::string>> env;
  for (const whatif::EnvironmentVariable& v : removed) {
    if (v.name.find("VERBOSE") == std::string::npos) env.emplace_back(v.name, v.value);
  }
  return env;
}

// An ISA worker's logs against the identities its parent read (`expected`, from kLogIdentities):
// an InputError (3) that says which changed.
Status CheckUnchanged(const std::vector<LogInput>& inputs, const char* expected) {
  const std::optional<std::vector<whatif::LogIdentity>> identities =
      whatif::DecodeIdentities(expected);
  if (!identities || identities->size() != inputs.size()) {
    return InputError(std::string(kLogIdentities) + " does not describe the logs given");
  }
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string changed = whatif::ChangedSince(inputs[i].path, (*identities)[i]);
    if (!changed.empty()) {
      return InputError("the log changed since whatif read it: " + changed +
                        "; measure a log that is no longer written");
    }
  }
  return {};
}

constexpr std::string_view kScratchPrefix = "dlcheck-whatif-";

Status MakeScratch(os::ScratchDirectory& scratch) {
  return scratch.path().empty() ? scratch.Create(kScratchPrefix) : Status();
}

// Whether `file` is read once only (standard input, a pipe): the ISA workers could not read it
// again. Anything LineReader refuses is left to it, to say why.
bool ReadOnce(const std::string& file) {
  struct stat info {};
  const bool standard_input = file == "-";
  if ((standard_input ? ::fstat(STDIN_FILENO, &info) : ::stat(file.c_str(), &info)) != 0) {
    return false;
  }
  if (!RefusedInputType(info, standard_input).empty()) return false;
  return standard_input || S_ISFIFO(info.st_mode);
}

// The user's logs, for the isa variants: those read once spooled into the scratch directory
// first (as they are: compressed data stays compressed), so that every reader (this process,
// each ISA worker) reads a file. Errors: a log larger than os::kMaxSpoolBytes, a full temporary
// directory.
StatusOr<std::vector<LogInput>> SpoolLogs(const std::vector<std::string>& files,
                                          os::ScratchDirectory& scratch) {
  std::vector<LogInput> inputs;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string& file = files[i];
    if (!ReadOnce(file)) {
      inputs.push_back({file, file});
      continue;
    }
    if (Status made = MakeScratch(scratch); !made.ok()) return made;
    const std::string path = scratch.File(fmt::format("input{}.log", i + 1));
    const bool standard_input = file == "-";
    const std::string what = standard_input ? "standard input" : "'" + file + "'";
    Status spooled = [&] {
      if (standard_input) return os::SpoolInput(STDIN_FILENO, what, path);
      const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
      if (fd < 0)
        return InputError(fmt::format("cannot open '{}': {}", file, std::strerror(errno)));
      Status copied = os::SpoolInput(fd, what, path);
      ::close(fd);
      return copied;
    }();
    if (!spooled.ok()) {
      return Status(spooled.code(),
                    fmt::format("{} is kept in a scratch file for the ISA workers to read again: "
                                "{}; give the log as a file{}",
                                what, spooled.message(),
                                spooled.code() == ExitCode::kOutputError
                                    ? ", or set TMPDIR to a directory with room"
                                    : ""));
    }
    inputs.push_back({path, file});
  }
  return inputs;
}

// dlcheck's model (in a worker, with the threads `verbose` chooses) or CMD, captured as
// `verbose` and `run` capture them, its verbose lines written to `log_path` (a private scratch
// file). Errors: it could not be started (127, 126; the worker 5), the log could not be written.
StatusOr<dispatch::Run> CaptureRun(const WhatifOptions& o, const std::string& log_path,
                                   dispatch::AuditSampler& sampler) {
  os::OutputFile log;
  if (Status opened = log.Open(log_path, os::OutputFile::Access::kPrivate); !opened.ok()) {
    return opened;
  }
  dispatch::CaptureSettings settings = o.capture;
  settings.raw_log = &log.stream();
  settings.while_running = sampler.Hook();  // which framework the program runs
  settings.max_timeline = 0;                // the measurements read the rows, not the timeline
  report::Progress progress("whatif", 0);
  dispatch::RunSource source = dispatch::ProgramSource{o.command};
  if (o.command.empty()) {
    StatusOr<dispatch::CaptureFrame> frame = dispatch::StartCaptureFrame(o.capture.threads);
    if (!frame.ok()) return frame.status();
    settings.threads = frame->threads.threads;
    source = o.model;
  } else {
    settings.timeout_s = o.timeout_given ? o.capture.timeout_s : 0;  // CMD: no limit unless asked
    for (auto& variable : ProgramEnvironment(o.environment_removed)) {
      settings.extra_env.push_back(std::move(variable));
    }
    progress.Step(o.command.front());
  }
  if (progress.active()) {
    settings.on_phase = [&progress](std::string_view phase) { progress.Phase(std::string(phase)); };
    settings.on_output = [&progress] { progress.Clear(); };
    settings.on_chunk = [&progress] { progress.Tick(); };
  }
  StatusOr<dispatch::Run> run = dispatch::Capture(source, settings);
  progress.Clear();
  if (!run.ok()) return run.status();
  if (Status kept = log.Commit(); !kept.ok()) {
    return Status(kept.code(), "the captured log could not be kept for the measurements: " +
                                   kept.message() + "; set TMPDIR to a directory with room");
  }
  return run;
}

// Whether a captured run can be measured. The model worker's refusal, memory and crash end the
// command as they end `verbose`; a run interrupted before any execution, with 128 + N; a run
// without an execution (a program that failed first, that never loaded oneDNN, whose oneDNN
// refused everything) is an InputError (3) that says why in `run`'s words.
Status CheckCaptured(const dispatch::Run& run, const std::string& who) {
  if (run.model) {
    if (run.Refused()) return EndRefused(run).status();
    // Interrupted, the worker ends as asked: what it captured is measured (below).
    if (run.OutOfMemory() || run.outcome.interrupted == 0) {
      if (Status failed = WorkerFailure(run); !failed.ok()) return failed;
    }
  }
  if (run.summary.execs > 0) return {};
  if (const int sig = run.outcome.interrupted; sig != 0) {
    return Status(static_cast<ExitCode>(os::ExitStatusForSignal(sig)),
                  fmt::format("interrupted by {} before {} executed a oneDNN primitive: nothing "
                              "to measure",
                              os::SignalName(sig), who));
  }
  for (const Finding& f : dispatch::RunFindings(run, who)) {
    if (f.code == codes::kProgramEndedEarly || f.code == codes::kOnednnNotLoaded ||
        f.code == codes::kOnednnErrorsOnly) {
      return InputError("nothing to measure: " + f.message);
    }
  }
  return InputError(fmt::format(
      "nothing to measure: {} executed no oneDNN primitive ({} verbose lines, no exec line)", who,
      run.verbose_lines));
}

std::vector<std::string> UsableFeatures(const detect::PlatformInfo& platform) {
  std::vector<std::string> names;
  for (const detect::FeatureLayers& f : platform.features) {
    if (f.Available()) names.push_back(f.name);
  }
  return names;
}

// A command line that names two inputs, or options of an input it does not name: a usage error.
Status CheckInputChoice(const CLI::App& sub, const WhatifOptions& o) {
  if (const CLI::Option* model = GivenOptionOf(sub, kModelGroup);
      model != nullptr && !o.model_given) {
    return UsageError(
        fmt::format("{}: a model option; give --model mlp or --model cnn to measure "
                    "dlcheck's model",
                    model->get_name()));
  }
  if (o.model_given && !o.files.empty()) {
    return UsageError("--model: measures dlcheck's model; give it without a log file");
  }
  if (o.model_given && !o.command.empty()) {
    return UsageError("--model: measures dlcheck's model; give it without -- CMD");
  }
  if (o.timeout_given && !Captures(o)) {
    return UsageError("--timeout: only with --model or -- CMD, which whatif runs");
  }
  return {};
}

Status CheckVariants(const std::vector<std::string>& variants) {
  for (const std::string& v : variants) {
    if (std::find(std::begin(whatif::kVariantKinds), std::end(whatif::kVariantKinds), v) ==
        std::end(whatif::kVariantKinds)) {
      return UsageError("--variants: '" + v +
                        "' is not one of layouts, impl, threads, dtype, isa, none "
                        "(see 'dlcheck whatif --help')");
    }
  }
  return {};
}

// The exit status after the report: 128 + N when a signal stopped the measurements or the
// captured run; a program's own failure, as `run` ends; else 0.
int EndStatus(const std::optional<dispatch::Run>& captured) {
  if (const int sig = os::SignalForwarding::Received(); sig != 0) {
    return os::ExitStatusForSignal(sig);
  }
  if (!captured) return ToInt(ExitCode::kOk);
  if (const int sig = captured->outcome.interrupted; sig != 0) {
    PrintError(fmt::format("interrupted by {}; the report measures what was captured before it",
                           os::SignalName(sig)));
    return os::ExitStatusForSignal(sig);
  }
  return captured->model ? ToInt(ExitCode::kOk) : captured->outcome.ShellStatus();
}

// Measures `inputs` (read by `session`, the logs the ISA workers read again) and prints the
// report; `captured`: the run that made the log, nullopt for the user's logs.
void MeasureAndReport(const WhatifOptions& options, const std::vector<LogInput>& inputs,
                      const std::string& identities, verbose::LogSession& session,
                      const std::optional<dispatch::Run>& captured) {
  const verbose::Summary summary = session.Summarize({.host = dispatch::HostDtypeUnits()});
  const verbose::LogHeader header = session.header();
  std::vector<verbose::PrimitiveStats> rows = session.TakeRows();
  // The log's hot rows under the machine's roofs (--roofline), as the log timed them.
  const std::vector<roofline::PlacedRow> placed =
      options.machine ? roofline::PlaceHotRows(rows, options.machine->profile)
                      : std::vector<roofline::PlacedRow>{};

  const detect::PlatformInfo platform = detect::DetectLivePlatform();
  const os::CpuBudget budget = os::ReadCpuBudget();  // the CPUs this process may use
  whatif::WhatifPlan plan{.cover_pct = options.cover_pct,
                          .top = options.top,
                          .time_s = options.time_s,
                          .cold = options.cold,
                          .threads = options.capture.threads,
                          .allowed_cpus = budget.cpus,
                          .variants = options.variants,
                          .features = UsableFeatures(platform),
                          .baseline_layouts_any = options.baseline_layouts_any};
  MeasurementEnvironment env{.removed = options.environment_removed};
  if (std::optional<Finding> f =
          whatif::ThreadsAboveCpusFinding(options.capture.threads, budget.cpus, budget.Text())) {
    env.findings.push_back(std::move(*f));
  }
  if (std::optional<Finding> f =
          whatif::RemovedEnvironmentFinding(env.removed, platform.onednn_max_isa)) {
    env.findings.push_back(std::move(*f));
  }
  plan.host_isa = platform.onednn_max_isa;
  // An ISA worker measures under the cap it was given; the parent under the log's ISA.
  if (!options.baseline_layouts_any) {
    plan.baseline_cap = whatif::LogIsaCap(header, plan.host_isa).value_or("");
  }
  const IsaContext isa = ChooseIsaCaps(options, platform, plan.baseline_cap);
  plan.isa_caps = isa.caps;
  plan.stop = [] { return os::SignalForwarding::Received() != 0; };
  report::Progress progress("whatif", 0);
  plan.progress = [&](std::size_t hot, std::size_t of, const std::string& what) {
    progress.Phase(hot > 0 ? fmt::format("hot {}/{}: {}", hot, of, what) : what);
  };
  std::vector<std::string> paths;
  std::vector<std::string> names;
  for (const LogInput& input : inputs) {
    paths.push_back(input.path);
    if (!input.name.empty()) names.push_back(input.name);
  }
  const int threads = whatif::BaselineThreads(plan, header).first;
  const std::vector<std::size_t> hot_rows =
      whatif::HotRows(rows, summary.exec_ms, plan.cover_pct, plan.top);
  const IsaWorkerInput worker_input{
      .paths = paths,
      .identities = identities,
      .row_of = [&](std::size_t rank) -> const verbose::PrimitiveStats* {
        return rank >= 1 && rank <= hot_rows.size() ? &rows[hot_rows[rank - 1]] : nullptr;
      }};
  env.frame.load_start = dispatch::ReadLoadAverage();
  whatif::WhatifResult result =
      whatif::RunWhatif(rows, summary.exec_ms, header, plan,
                        [&](const std::string& cap, const std::vector<std::size_t>& ranks) {
                          return RunIsaWorker(options, worker_input, threads, cap, ranks);
                        });
  progress.Clear();
  dispatch::EndCaptureFrame(env.frame);
  if (captured && captured->outcome.wall_s > 0) {  // the program's wall time is known
    result.onednn_wall_pct = std::min(100.0, summary.exec_ms / (captured->outcome.wall_s * 10));
  }
  for (Finding& f : dispatch::NoiseFindings(env.frame)) {
    env.findings.push_back(std::move(f));
  }
  report::Report report = BuildReport(options, names, session, summary, result, isa,
                                      captured ? &*captured : nullptr, env);
  if (options.machine) AddRowRoofline(placed, *options.machine, report);
  report::Print(report, options.format, std::cout);
  std::cout.flush();
}

StatusOr<int> RunWhatifCommand(const CLI::App& sub, WhatifOptions options) {
  options.model_given = sub.count("--model") > 0;
  options.timeout_given = sub.count("--timeout") > 0;
  if (Status s = CheckInputChoice(sub, options); !s.ok()) return s;
  if (options.variants.size() == 1 && options.variants.front() == "none") options.variants.clear();
  if (Status s = CheckVariants(options.variants); !s.ok()) return s;
  // The machine profile of --roofline, before the capture and the measurements.
  StatusOr<std::optional<RooflineProfile>> machine = LoadRooflineProfile(options.roofline);
  if (!machine.ok()) return machine.status();
  options.machine = std::move(*machine);
  StatusOr<std::vector<whatif::EnvironmentVariable>> removed = CleanEnvironment();
  if (!removed.ok()) return removed.status();
  options.environment_removed = std::move(*removed);
  if (options.model_given) {
    if (Status valid = mlp::Validate(options.model.run.model); !valid.ok()) return valid;
  }
  // The scratch directory holds the captured or spooled log until the end: removed when this
  // returns, and on a signal that ends dlcheck before (SIGINT, SIGTERM, SIGHUP).
  os::ScratchDirectory scratch;
  std::vector<LogInput> inputs;
  std::optional<dispatch::Run> captured;
  if (Captures(options)) {
    if (Status made = MakeScratch(scratch); !made.ok()) return made;
    const std::string log = scratch.File("captured.log");
    dispatch::AuditSampler sampler;
    StatusOr<dispatch::Run> run = CaptureRun(options, log, sampler);
    if (!run.ok()) return run.status();
    const dispatch::ProcessAudit audit = sampler.Result();
    if (const auto frameworks = audit.Of(lib::Role::kFramework); !frameworks.empty()) {
      options.framework = std::string(frameworks.front()->kind.name);
    }
    if (Status can = CheckCaptured(*run, CapturedName(options)); !can.ok()) return can;
    captured = std::move(*run);
    inputs.push_back({log, ""});
  } else if (std::find(options.variants.begin(), options.variants.end(), "isa") !=
             options.variants.end()) {
    if (options.files.empty()) options.files.push_back("-");
    StatusOr<std::vector<LogInput>> spooled = SpoolLogs(options.files, scratch);
    if (!spooled.ok()) return spooled.status();
    inputs = std::move(*spooled);
  } else {
    if (options.files.empty()) options.files.push_back("-");
    for (const std::string& file : options.files) inputs.push_back({file, file});
  }
  // An ISA worker reads the logs its parent read: refused if they changed since (before and
  // after this read), as its rows are named by rank.
  const char* expected = std::getenv(kLogIdentities);
  if (expected != nullptr) {
    if (Status same = CheckUnchanged(inputs, expected); !same.ok()) return same;
  }
  verbose::LogSession session;
  if (Status s = ReadLogs(inputs, session); !s.ok()) return s;
  if (expected != nullptr) {
    if (Status same = CheckUnchanged(inputs, expected); !same.ok()) return same;
  }
  std::string identities;
  if (expected == nullptr && std::find(options.variants.begin(), options.variants.end(), "isa") !=
                                 options.variants.end()) {
    std::vector<whatif::LogIdentity> read;
    for (const LogInput& input : inputs) {
      StatusOr<whatif::LogIdentity> id = whatif::IdentityOf(input.path);
      if (!id.ok()) return id.status();
      read.push_back(*id);
    }
    identities = whatif::EncodeIdentities(read);
  }
  // From here a signal stops the measurements (the report holds the rows done); one received
  // while the captured run ran is its outcome's.
  os::SignalForwarding forwarding;
  MeasureAndReport(options, inputs, identities, session, captured);
  return EndStatus(captured);
}

}  // namespace

const report::contract::Document& WhatifDocument() {
  static const report::contract::Document kWhatif = [] {
    namespace contract = report::contract;
    return contract::Document{
        "whatif",
        "the measured gain of a change, for each hot primitive of a verbose log",
        {contract::Object(kOptionsSection, {kCoverPct, kTop, kTimeS, kCold, kThreads, kVariants,
                                            dispatch::model_run_field::kModel,
                                            dispatch::program_run_field::kCommand}),
         contract::Object(kMeasurementSection, {kVerdict,
                                                kMeasuredWith,
                                                kThreads,
                                                kThreadsSource,
                                                kEnvironmentRemoved,
                                                kBaselineIsa,
                                                kBaselineIsaNote,
                                                kLoadStart,
                                                kLoadEnd,
                                                kIsaCaps,
                                                kIsaNote,
                                                kFlopCount,
                                                kHotRows,
                                                kRebuilt,
                                                kCoveredPct,
                                                kImplementationAgreement,
                                                dispatch::program_run_field::kEnded,
                                                dispatch::program_run_field::kExitStatus,
                                                kInterruptedBy,
                                                kOnednnWallPct,
                                                kFramework}),
         contract::Rows(kChangesTable, contract::Members(ChangeColumns())),
         contract::Rows(kKnobsTable, contract::Members(KnobColumns())),
         contract::Rows(kVariantsTable, contract::Members(VariantColumns())),
         InputMember(/*with_files=*/true), HeaderMember(), SummaryMember(), HeadersMember(),
         DiagnosticsMember(), roofline::RowRooflineMember()},
        std::string(kVariantsTable.name)};
  }();
  return kWhatif;
}

// Whether `sub`'s command line has reached `--` (CLI11 keeps the mark among what is left): a
// positional after it is CMD, not a log.
bool AfterPositionalMark(const CLI::App& sub) {
  const std::vector<std::string> left = sub.remaining();
  return std::find(left.begin(), left.end(), "--") != left.end();
}

// The model's options, only with --model (listed in their own group): those of `verbose`, less
// the timed phase's (whatif reads the traced steps; the timed phase is one step) and --backend
// (whatif measures oneDNN).
void AddWhatifModelOptions(CLI::App& sub, dispatch::ModelRunOptions& run) {
  AddModelOptions(sub, run);
  for (const char* name : {"--time", "--iters", "--backend"}) {
    sub.remove_option(sub.get_option(name));
  }
  run.iters = 1;
  for (CLI::Option* option : sub.get_options()) {
    if (option->get_name() != "--help" && option->get_name() != "--help-all") {
      option->group(std::string(kModelGroup));
    }
  }
}

void SetupWhatif(CLI::App& subcommand, int& exit_code) {
  auto options = std::make_shared<WhatifOptions>();
  CLI::App* const sub = &subcommand;
  AddWhatifModelOptions(*sub, options->model.run);
  // A positional before `--` is a log, one after it CMD; a log given with CMD fails the check
  // again when the logs are validated, after the whole line is read.
  sub->validate_positionals();
  sub->add_option("files", options->files,
                  "log files (plain, gzip, xz, zstd or bzip2); - or nothing reads standard input")
      ->check(CLI::Validator(
          [sub](std::string&) -> std::string {
            return AfterPositionalMark(*sub) ? "a log file and -- CMD: give one or the other"
                                             : std::string();
          },
          ""))
      // CLI11 takes one positional without a limit (CMD); a command line holds fewer files.
      ->expected(0, 1 << 20);
  sub->add_option("command", options->command,
                  "a program to capture and measure instead of a log, after --");
  AddFormatOption(*sub, options->format, {"svg"},
                  "output format: table (default), csv, json, xlsx, html (a page with the charts "
                  "and tables) or svg (the charts: each change's projected step gain, each "
                  "variant's time)");
  AddOutputOption(*sub);
  sub->add_option("--cover", options->cover_pct,
                  "the hot primitives: the fewest rows that cover this percentage of the exec time "
                  "(default 80)")
      ->check(RealRange(1.0, 100.0));
  sub->add_option("--top", options->top, "at most this many hot primitives (default 10)")
      ->check(CLI::Range(1, 1000));
  sub->add_option(
         "--time", options->time_s,
         "seconds of timed executions per variant, in 3 rounds of at least 2 runs (default 0.1)")
      ->check(RealRange(0.0, 60.0));
  sub->add_flag("--cold", options->cold,
                "rotate buffers through more memory than the last-level cache (an application "
                "rarely sees hot caches)");
  AddCaptureOptions(
      *sub,
      {.threads = &options->capture.threads,
       .threads_help = fmt::format(
           "threads of the baseline (default: the log's nthr, capped at the allowed CPUs); with "
           "--model or CMD also the captured run's OpenMP threads (default: {})",
           dispatch::kThreadDefaultRule),
       .timeout_s = &options->capture.timeout_s,
       .timeout_help =
           "kill the model worker after this many seconds (default 600; CMD: no limit)"});
  sub->add_option("--variants", options->variants,
                  "the changes to measure: layouts, impl, threads, dtype, isa (default all), or "
                  "none for the baselines only")
      ->delimiter(',');
  AddRooflineOptions(*sub, options->roofline);
  // Named by dlcheck itself, for the worker of each ISA cap: hidden from --help.
  sub->add_flag("--baseline-layouts-any", options->baseline_layouts_any,
                "measure the baselines at the layouts oneDNN prefers")
      ->group("");
  sub->footer(
      "With --model or -- CMD, the run is captured first as `verbose` and `run` capture it (a "
      "program's own stdout goes to dlcheck's stderr); its log, and a log from standard input or "
      "a pipe, is kept in a private scratch file under TMPDIR until whatif ends.");
  sub->callback(
      [options, sub, &exit_code] { exit_code = EndCommand(RunWhatifCommand(*sub, *options)); });
}

}  // namespace dlcheck::cli
