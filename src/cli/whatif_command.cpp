// dlcheck whatif [LOG...|-]: the hot primitives of a verbose log rebuilt with the linked oneDNN
// and measured as logged and under the changes an application could make (whatif/whatif.h),
// ranked by the step time each change would save.
#include <fmt/format.h>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/log_view.h"
#include "common/exit_code.h"
#include "common/status.h"
#include "common/text.h"
#include "detect/platform.h"
#include "dispatch/sweep.h"
#include "os/exit_status.h"
#include "os/signals.h"
#include "os/subprocess.h"
#include "report/primitive_columns.h"
#include "report/printer.h"
#include "report/progress.h"
#include "verbose/benchdnn.h"
#include "verbose/line_reader.h"
#include "verbose/log_session.h"
#include "whatif/whatif.h"

namespace dlcheck::cli {
namespace {

struct WhatifOptions {
  std::vector<std::string> files;
  report::Format format = report::Format::kTable;
  double cover_pct = 80;
  std::size_t top = 10;
  double time_s = 0.1;
  bool cold = false;
  int threads = 0;
  std::vector<std::string> variants = {"layouts", "impl", "threads", "dtype", "isa"};
  bool baseline_layouts_any = false;  ///< hidden: what an ISA worker measures
};

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
inline constexpr Field kFlopCount{"flop_count"};
inline constexpr Field kHotRows{"hot_rows", Type::kInteger};
inline constexpr Field kRebuilt{"rebuilt", Type::kInteger};
inline constexpr Field kCoveredPct{"covered_pct", Type::kNumber};
inline constexpr Field kImplementationAgreement{"implementation_agreement"};
inline constexpr Field kInterruptedBy{"interrupted_by"};
inline constexpr Field kVerdict{"verdict"};
// variants, changes
inline constexpr Field kHot{"hot", Type::kInteger};
inline constexpr Field kLoggedImplementation{"logged_implementation"};
inline constexpr Field kVariant{"variant"};
inline constexpr Field kMinMs{"min_ms", Type::kNumber};
inline constexpr Field kAvgMs{"avg_ms", Type::kNumber};
inline constexpr Field kRuns{"runs", Type::kInteger};
inline constexpr Field kSpeedup{"speedup", Type::kNumber};
inline constexpr Field kStepGainPct{"step_gain_pct", Type::kNumber};
inline constexpr Field kDeviation{"deviation"};
inline constexpr Field kNote{"note"};
inline constexpr Field kFromMs{"from_ms", Type::kNumber};
inline constexpr Field kToMs{"to_ms", Type::kNumber};
inline constexpr Field kChange{"change"};
// clang-format on
}  // namespace whatif_field

constexpr report::Part kOptionsSection{"options", "Options"};
constexpr report::Part kMeasurementSection{"measurement", "Measurement"};
constexpr report::Part kVariantsTable{"variants", "Variants of each hot primitive"};
constexpr report::Part kChangesTable{"changes", "Changes, by projected step gain"};

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
      kHot,    col::kPrimitive, col::kProblem, col::kTimePct, kVariant,
      kFromMs, kToMs,           kSpeedup,      kStepGainPct,  kChange};
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

std::vector<report::Value> VariantRow(const whatif::HotPrimitive& hot,
                                      const whatif::VariantResult& v) {
  const verbose::PrimitiveStats& r = hot.row;
  return {hot.rank,
          r.engine.str(),
          r.primitive.str(),
          r.implementation.str(),
          Text(r.isa.str()),
          r.prop_kind.str(),
          r.data_types.str(),
          r.layouts.str(),
          Text(r.attributes.str()),
          Text(r.auxiliary.str()),
          r.problem.str(),
          report::Value(hot.share_pct, 1),
          v.variant,
          v.threads > 0 ? report::Value(v.threads) : report::Value(),
          Number(v.min_ms, 4),
          Number(v.avg_ms, 4),
          v.min_ms ? report::Value(v.runs) : report::Value(),
          Number(v.create_ms),
          Text(v.implementation),
          Number(v.gflops, 1),
          Number(v.speedup, 2),
          Number(v.step_gain_pct, 1),
          Text(v.deviation),
          Text(v.benchdnn),
          Text(v.note)};
}

struct Change {
  const whatif::HotPrimitive* hot;
  const whatif::VariantResult* variant;
};

// The variants that run faster than their baseline, by projected step gain.
std::vector<Change> RankedChanges(const whatif::WhatifResult& result) {
  std::vector<Change> changes;
  for (const whatif::HotPrimitive& hot : result.hot) {
    for (std::size_t i = 1; i < hot.variants.size(); ++i) {
      const whatif::VariantResult& v = hot.variants[i];
      if (v.speedup && *v.speedup > 1.0 && v.step_gain_pct) changes.push_back({&hot, &v});
    }
  }
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return *a.variant->step_gain_pct > *b.variant->step_gain_pct;
  });
  return changes;
}

std::string Verdict(const whatif::WhatifResult& result, const std::vector<Change>& changes) {
  if (result.hot.empty()) return "the log has no execution time to measure";
  if (changes.empty() || *changes.front().variant->step_gain_pct < 1.0) {
    return "no measured change saves 1 % of the step: the hot primitives already run as fast as "
           "this oneDNN makes them here";
  }
  return whatif::ChangeSentence(*changes.front().hot, *changes.front().variant);
}

report::Section OptionsSection(const WhatifOptions& o) {
  report::Section s;
  s.name = kOptionsSection.name;
  s.title = kOptionsSection.title;
  s.Add(kCoverPct, report::Value(o.cover_pct, 1));
  s.Add(kTop, o.top);
  s.Add(kTimeS, report::Value(o.time_s, 3));
  s.Add(kCold, o.cold);
  s.Add(kThreads, o.threads > 0 ? report::Value(o.threads) : report::Value());
  s.Add(kVariants, report::Value(report::TextList(o.variants)));
  return s;
}

struct IsaContext {
  std::vector<std::string> caps;
  std::string note;  // why there are none, when there are none
};

report::Report BuildReport(const WhatifOptions& options, const std::vector<std::string>& files,
                           const verbose::LogSession& session, const verbose::Summary& summary,
                           const whatif::WhatifResult& result, const IsaContext& isa) {
  report::Report report(WhatifDocument());
  report.sections.push_back(OptionsSection(options));
  report::Section& m = report.AddSection(kMeasurementSection);
  std::size_t rebuilt = 0;
  for (const whatif::HotPrimitive& hot : result.hot) rebuilt += hot.not_rebuilt.empty() ? 1 : 0;
  const std::vector<Change> changes = RankedChanges(result);
  const std::string verdict = Verdict(result, changes);
  m.Add(kVerdict, verdict);
  m.Add(kMeasuredWith,
        "oneDNN 2.6.3 (dlcheck's) on this machine; a 3.x log's kernels are named "
        "differently there");
  m.Add(kThreads, result.threads);
  m.Add(kThreadsSource, result.threads_source);
  m.Add(kIsaCaps, report::Value(report::TextList(isa.caps)));
  m.Add(kIsaNote, Text(isa.note));
  m.Add(kFlopCount, kFlopCountText);
  m.Add(kHotRows, result.hot.size());
  m.Add(kRebuilt, rebuilt);
  m.Add(kCoveredPct, report::Value(result.covered_pct, 1));
  m.Add(kImplementationAgreement, result.implementation_agreement);
  const int sig = os::SignalForwarding::Received();
  m.Add(kInterruptedBy, sig != 0 ? report::Value(os::SignalName(sig)) : report::Value());
  // The verdict first, on a terminal.
  report.headline = verdict;

  report::Table& changes_table = report.AddTable(kChangesTable, ChangeColumns());
  for (const Change& c : changes) {
    changes_table.rows.push_back({c.hot->rank, c.hot->row.primitive.str(), c.hot->row.problem.str(),
                                  report::Value(c.hot->share_pct, 1), c.variant->variant,
                                  Number(c.hot->variants.front().min_ms, 4),
                                  Number(c.variant->min_ms, 4), Number(c.variant->speedup, 2),
                                  Number(c.variant->step_gain_pct, 1),
                                  whatif::ChangeSentence(*c.hot, *c.variant)});
  }
  changes_table.answer_columns = report::Names({kStepGainPct, kVariant});
  changes_table.hidden_in_table = report::Names({kChange, col::kProblem});

  report::Table& variants = report.AddTable(kVariantsTable, VariantColumns());
  for (const whatif::HotPrimitive& hot : result.hot) {
    if (!hot.not_rebuilt.empty()) {
      whatif::VariantResult none{.variant = "as logged", .note = "not rebuilt: " + hot.not_rebuilt};
      variants.rows.push_back(VariantRow(hot, none));
      continue;
    }
    for (const whatif::VariantResult& v : hot.variants) variants.rows.push_back(VariantRow(hot, v));
  }
  variants.answer_columns = report::Names({kVariant, kMinMs, kSpeedup});
  variants.hidden_in_table =
      report::Names({col::kEngine, col::kIsa, col::kDataTypes, col::kLayouts, col::kAttributes,
                     col::kAuxiliary, col::kBenchdnn, col::kCreateMs, kAvgMs, kRuns});
  variants.leave_out_first =
      report::Names({kDeviation, col::kProblem, col::kGflops, kLoggedImplementation});
  report.primary_table = kVariantsTable.name;
  // The pictures (html, svg): each change's projected step gain, then every variant's time.
  report.charts.push_back({.title = "Projected step gain of each change",
                           .table = std::string(kChangesTable.name),
                           .label = report::Names({kHot, col::kPrimitive, kVariant}),
                           .value = std::string(kStepGainPct.name),
                           .unit = "% of the step",
                           .limit = 40});
  report.charts.push_back({.title = "Time of each variant, per hot primitive (min, whisker to avg)",
                           .table = std::string(kVariantsTable.name),
                           .label = report::Names({kHot, col::kPrimitive, kVariant}),
                           .value = std::string(kMinMs.name),
                           .low = std::string(kMinMs.name),
                           .high = std::string(kAvgMs.name),
                           .unit = "ms",
                           .limit = 60});
  AddLogSummary(report, files, session, summary);
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

// The baselines of the hot rows `ranks`, measured by this dlcheck under ONEDNN_MAX_CPU_ISA=cap:
// `dlcheck whatif FILES --variants none ... --format json` in a worker per cap.
std::vector<whatif::VariantResult> RunIsaWorker(const WhatifOptions& options, int threads,
                                                const std::string& cap,
                                                const std::vector<std::size_t>& ranks) {
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
  spec.argv.push_back("--");
  for (const std::string& f : options.files) spec.argv.push_back(f);
  spec.env = {{"ONEDNN_MAX_CPU_ISA", cap}, {"DNNL_MAX_CPU_ISA", cap}};
  spec.unset_env = {"ONEDNN_VERBOSE", "DNNL_VERBOSE"};
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
    auto number = [&](const report::Field& f) -> std::optional<double> {
      const nlohmann::json& x = row[f.name];
      return x.is_number() ? std::optional<double>(x.get<double>()) : std::nullopt;
    };
    auto text = [&](const report::Field& f) -> std::string {
      const nlohmann::json& x = row[f.name];
      return x.is_string() ? x.get<std::string>() : std::string();
    };
    v.min_ms = number(kMinMs);
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

// The ISA caps below this host's own (each measured by a worker), or why there are none.
IsaContext ChooseIsaCaps(const WhatifOptions& options, const detect::PlatformInfo& platform) {
  IsaContext isa;
  if (std::find(options.variants.begin(), options.variants.end(), "isa") ==
      options.variants.end()) {
    return isa;
  }
  if (std::find(options.files.begin(), options.files.end(), "-") != options.files.end()) {
    isa.note = "no isa variants: a worker rereads the log, and standard input cannot be read twice";
    return isa;
  }
  StatusOr<std::vector<std::string>> caps = dispatch::ChooseCaps({}, platform);
  if (!caps.ok() || caps->empty()) {
    isa.note = "no isa variants: " +
               (caps.ok() ? std::string("no cap below this host's ISA") : caps.status().message());
    return isa;
  }
  isa.caps = *caps;
  isa.caps.pop_back();  // the host's own ISA is the baseline
  return isa;
}

Status ReadLogs(const std::vector<std::string>& files, verbose::LogSession& session) {
  for (const std::string& file : files) {
    verbose::LineReader reader;
    if (Status s = reader.Open(file); !s.ok()) return s;
    if (Status s = session.FeedAll(reader, file == "-" ? "<stdin>" : file); !s.ok()) return s;
  }
  return {};
}

std::vector<std::string> UsableFeatures(const detect::PlatformInfo& platform) {
  std::vector<std::string> names;
  for (const detect::FeatureLayers& f : platform.features) {
    if (f.usable.value_or(f.cpuid)) names.push_back(f.name);
  }
  return names;
}

StatusOr<int> RunWhatifCommand(WhatifOptions options) {
  if (options.files.empty()) options.files.push_back("-");
  if (options.variants.size() == 1 && options.variants.front() == "none") options.variants.clear();
  for (const std::string& v : options.variants) {
    if (std::find(std::begin(whatif::kVariantKinds), std::end(whatif::kVariantKinds), v) ==
        std::end(whatif::kVariantKinds)) {
      return UsageError("--variants: '" + v +
                        "' is not one of layouts, impl, threads, dtype, isa, none "
                        "(see 'dlcheck whatif --help')");
    }
  }
  verbose::LogSession session;
  if (Status s = ReadLogs(options.files, session); !s.ok()) return s;
  const verbose::Summary summary = session.Summarize();
  const verbose::LogHeader header = session.header();
  std::vector<verbose::PrimitiveStats> rows = session.TakeRows();

  const detect::PlatformInfo platform = detect::DetectLivePlatform();
  whatif::WhatifPlan plan{.cover_pct = options.cover_pct,
                          .top = options.top,
                          .time_s = options.time_s,
                          .cold = options.cold,
                          .threads = options.threads,
                          .allowed_cpus = std::max(platform.logical_cpus, 1),
                          .variants = options.variants,
                          .features = UsableFeatures(platform),
                          .baseline_layouts_any = options.baseline_layouts_any};
  const IsaContext isa = ChooseIsaCaps(options, platform);
  plan.isa_caps = isa.caps;
  os::SignalForwarding forwarding;
  plan.stop = [] { return os::SignalForwarding::Received() != 0; };
  report::Progress progress("whatif", 0);
  plan.progress = [&](std::size_t hot, std::size_t of, const std::string& what) {
    progress.Phase(hot > 0 ? fmt::format("hot {}/{}: {}", hot, of, what) : what);
  };
  const int threads = whatif::BaselineThreads(plan, header).first;
  const whatif::WhatifResult result =
      whatif::RunWhatif(rows, summary.exec_ms, header, plan,
                        [&](const std::string& cap, const std::vector<std::size_t>& ranks) {
                          return RunIsaWorker(options, threads, cap, ranks);
                        });
  progress.Clear();
  const report::Report report = BuildReport(options, options.files, session, summary, result, isa);
  report::Print(report, options.format, std::cout);
  std::cout.flush();
  if (const int sig = os::SignalForwarding::Received(); sig != 0)
    return os::ExitStatusForSignal(sig);
  return ToInt(ExitCode::kOk);
}

}  // namespace

const report::contract::Document& WhatifDocument() {
  static const report::contract::Document kWhatif = [] {
    namespace contract = report::contract;
    return contract::Document{
        "whatif",
        "the measured gain of a change, for each hot primitive of a verbose log",
        {contract::Object(kOptionsSection, {kCoverPct, kTop, kTimeS, kCold, kThreads, kVariants}),
         contract::Object(
             kMeasurementSection,
             {kVerdict, kMeasuredWith, kThreads, kThreadsSource, kIsaCaps, kIsaNote, kFlopCount,
              kHotRows, kRebuilt, kCoveredPct, kImplementationAgreement, kInterruptedBy}),
         contract::Rows(kChangesTable, contract::Members(ChangeColumns())),
         contract::Rows(kVariantsTable, contract::Members(VariantColumns())),
         InputMember(/*with_files=*/true), HeaderMember(), SummaryMember(), HeadersMember(),
         DiagnosticsMember()}};
  }();
  return kWhatif;
}

void SetupWhatif(CLI::App& subcommand, int& exit_code) {
  auto options = std::make_shared<WhatifOptions>();
  CLI::App* const sub = &subcommand;
  sub->add_option("files", options->files,
                  "log files (plain, gzip, xz, zstd or bzip2); - or nothing reads standard input");
  AddFormatOption(*sub, options->format, {"svg"},
                  "output format: table (default), csv, json, xlsx, html (a page with the charts "
                  "and tables) or svg (the charts: each change's projected step gain, each "
                  "variant's time)");
  AddOutputOption(*sub);
  sub->add_option("--cover", options->cover_pct,
                  "the hot primitives: the fewest rows that cover this percentage of the exec time "
                  "(default 80)")
      ->check(CLI::Range(1.0, 100.0));
  sub->add_option("--top", options->top, "at most this many hot primitives (default 10)")
      ->check(CLI::Range(1, 1000));
  sub->add_option("--time", options->time_s,
                  "seconds of timed executions per variant, at least 5 run (default 0.1)")
      ->check(CLI::Range(0.0, 60.0));
  sub->add_flag("--cold", options->cold,
                "rotate buffers through more memory than the last-level cache (an application "
                "rarely sees hot caches)");
  sub->add_option("-t,--threads", options->threads,
                  "threads of the baseline (default: the log's nthr, capped at the allowed CPUs)")
      ->check(CLI::Range(1, 4096));
  sub->add_option("--variants", options->variants,
                  "the changes to measure: layouts, impl, threads, dtype, isa (default all), or "
                  "none for the baselines only")
      ->delimiter(',');
  // Named by dlcheck itself, for the worker of each ISA cap: hidden from --help.
  sub->add_flag("--baseline-layouts-any", options->baseline_layouts_any,
                "measure the baselines at the layouts oneDNN prefers")
      ->group("");
  sub->callback([options, &exit_code] { exit_code = EndCommand(RunWhatifCommand(*options)); });
}

}  // namespace dlcheck::cli
