// SPDX-License-Identifier: Apache-2.0
#include "whatif/whatif.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "common/exit_code.h"
#include "common/finding_codes.h"
#include "common/onednn_isa.h"
#include "common/primitive_kinds.h"
#include "common/status.h"
#include "common/text.h"
#include "dispatch/noise.h"
#include "verbose/benchdnn.h"
#include "verbose/flops.h"
#include "verbose/isa.h"
#include "verbose/line_parser.h"
#include "verbose/rules.h"
#include "whatif/layout.h"
#include "whatif/measure.h"
#include "whatif/rebuild.h"

namespace dlcheck::whatif {
namespace {

using dnnl::memory;

constexpr std::size_t kMaxImplementations = 5;  // the first and the runner-ups worth timing
// Reference code runs at a fraction of a GFLOP/s: above this many FLOP per call one run would
// take seconds, so such an implementation is named, not timed.
constexpr double kMaxReferenceFlops = 1e7;

// Why `rebuilt` is not timed: reference code on a large problem (any variant, the baseline too:
// a log of blocked layouts replayed below its ISA lands there); nullopt when it can be.
std::optional<std::string> TooSlowToTime(const Rebuilt& rebuilt,
                                         const verbose::PrimitiveStats& row) {
  const std::optional<double> flops = verbose::FlopsOf(row.primitive.view(), row.problem.view(),
                                                       row.auxiliary.view(), row.prop_kind.view());
  if (!rebuilt.implementation().starts_with("ref") || !flops || *flops <= kMaxReferenceFlops) {
    return std::nullopt;
  }
  return fmt::format(
      "not measured: reference code on {:.0f} MFLOP per call would take seconds per run",
      *flops / 1e6);
}

bool Wants(const WhatifPlan& plan, std::string_view kind) {
  return std::find(plan.variants.begin(), plan.variants.end(), kind) != plan.variants.end();
}

bool Has(const std::vector<std::string>& features, std::string_view name) {
  return std::find(features.begin(), features.end(), name) != features.end();
}

std::string ArgName(int arg) {
  // The sources of a sum or concat.
  if (arg >= DNNL_ARG_MULTIPLE_SRC && arg < DNNL_ARG_MULTIPLE_DST) return "src";
  switch (arg) {
    case DNNL_ARG_SRC:  // also DNNL_ARG_FROM
    case DNNL_ARG_SRC_1:
    case DNNL_ARG_DIFF_SRC:
      return "src";
    case DNNL_ARG_WEIGHTS:
    case DNNL_ARG_DIFF_WEIGHTS:
      return "wei";
    case DNNL_ARG_BIAS:
    case DNNL_ARG_DIFF_BIAS:
      return "bia";
    default:
      return "dst";  // DNNL_ARG_DST (DNNL_ARG_TO), DNNL_ARG_DIFF_DST
  }
}

// The order 2.x verbose prints a primitive's tensors in: sources, weights, bias, destination.
int PrintOrder(int arg) {
  const std::string name = ArgName(arg);
  if (name == "src") return arg == DNNL_ARG_SRC_1 ? 1 : 0;
  if (name == "wei") return 2;
  if (name == "bia") return 3;
  return 4;
}

memory::desc ChosenDesc(const Rebuilt& rebuilt, int arg) {
  const dnnl::primitive_desc_base& pd = rebuilt.current();
  if (rebuilt.is_reorder) return arg == DNNL_ARG_FROM ? pd.src_desc() : pd.dst_desc();
  return pd.query_md(dnnl::query::exec_arg_md, arg);
}

std::string FlagsText(const memory::desc& md) {
  const dnnl_memory_extra_desc_t& extra = md.data.extra;
  std::string text = fmt::format("f{:x}", extra.flags);
  if (extra.flags & dnnl_memory_extra_flag_compensation_conv_s8s8) {
    text += fmt::format(":s8m{}", extra.compensation_mask);
  }
  if (extra.flags & dnnl_memory_extra_flag_compensation_conv_asymmetric_src) {
    text += fmt::format(":zpm{}", extra.asymm_compensation_mask);
  }
  return text;
}

// An rnn's tensor as 2.x verbose names it, and where it prints it (its gradients after the
// forward tensors, `diff_` before the name); an lstm's cell state and an augru's attention are
// not printed.
struct RnnTensorName {
  int order = 99;
  std::string name;
  bool printed = false;
};

RnnTensorName RnnArg(int arg) {
  static const std::map<int, RnnTensorName> kNames = {
      {DNNL_ARG_SRC_LAYER, {0, "src_layer", true}},
      {DNNL_ARG_SRC_ITER, {1, "src_iter", true}},
      {DNNL_ARG_SRC_ITER_C, {1, "src_iter_c", false}},
      {DNNL_ARG_AUGRU_ATTENTION, {1, "attention", false}},
      {DNNL_ARG_WEIGHTS_LAYER, {2, "wei_layer", true}},
      {DNNL_ARG_WEIGHTS_ITER, {3, "wei_iter", true}},
      {DNNL_ARG_WEIGHTS_PEEPHOLE, {4, "wei_peephole", true}},
      {DNNL_ARG_WEIGHTS_PROJECTION, {5, "wei_proj", true}},
      {DNNL_ARG_BIAS, {6, "bias", true}},
      {DNNL_ARG_DST_LAYER, {7, "dst_layer", true}},
      {DNNL_ARG_DST_ITER, {8, "dst_iter", true}},
      {DNNL_ARG_DST_ITER_C, {8, "dst_iter_c", false}}};
  const bool diff = arg >= DNNL_ARG_DIFF_SRC && arg < DNNL_ARG_ATTR_OUTPUT_SCALES;
  const auto it = kNames.find(diff ? arg - DNNL_ARG_DIFF_SRC + DNNL_ARG_SRC : arg);
  if (it == kNames.end()) return {};
  RnnTensorName name = it->second;
  if (diff) {
    name.order += 10;
    name.name = "diff_" + name.name;
  }
  return name;
}

// The name of a rebuilt primitive's argument in notes and verbose text.
std::string ArgLabel(const Rebuilt& rebuilt, int arg) {
  return rebuilt.kind == onednn::NameOf(onednn::Kind::kRnn) ? RnnArg(arg).name : ArgName(arg);
}

bool IsWeights(int arg) {
  return arg == DNNL_ARG_WEIGHTS || arg == DNNL_ARG_WEIGHTS_1 || arg == DNNL_ARG_WEIGHTS_2 ||
         arg == DNNL_ARG_WEIGHTS_3;
}

// The tensors the rebuilt primitive runs with, as 2.x verbose prints them.
std::string MemoryDescriptorsText(const Rebuilt& rebuilt) {
  const bool rnn = rebuilt.kind == onednn::NameOf(onednn::Kind::kRnn);
  const auto order = [&](int arg) { return rnn ? RnnArg(arg).order : PrintOrder(arg); };
  std::vector<int> args;
  for (const auto& [arg, md] : rebuilt.logged) {
    if (!rnn || RnnArg(arg).printed) args.push_back(arg);
  }
  std::stable_sort(args.begin(), args.end(), [&](int a, int b) { return order(a) < order(b); });
  std::string text;
  for (int arg : args) {
    const memory::desc md = ChosenDesc(rebuilt, arg);
    if (!text.empty()) text += ' ';
    text += ArgLabel(rebuilt, arg) + "_" + DataTypeName(md.data_type()) + "::blocked:" + TagOf(md) +
            ":" + FlagsText(md);
  }
  return text;
}

// The benchdnn line of a variant: the row with the variant's tensors and implementation, in
// benchdnn 2.x's syntax (what dlcheck links), with the thread count pinned.
std::string BenchdnnLine(const verbose::PrimitiveStats& row, const std::string& mds,
                         const std::string& implementation, int threads,
                         const std::vector<std::string>& skipped_impls) {
  verbose::PrimitiveStats copy = row;
  copy.memory_descriptors = verbose::InternedText(mds);
  copy.implementation = verbose::InternedText(implementation);
  copy.isa = verbose::InternedText(verbose::IsaOf(implementation));
  copy.isa_inferred = false;
  const std::optional<verbose::BenchdnnReproducer> line = verbose::MakeBenchdnnReproducer(
      copy, {.version = verbose::BenchdnnVersion::kV2, .library_version = "oneDNN v2.6.3"});
  if (!line) return {};
  std::string text = "OMP_NUM_THREADS=" + std::to_string(threads) + " " + line->command;
  if (!skipped_impls.empty()) {
    // benchdnn 2.6 has no --impl: the implementations before this one are skipped by name.
    std::string skip;
    for (const std::string& name : skipped_impls) skip += (skip.empty() ? "" : ":") + name;
    const std::size_t driver_end = text.find(' ', text.find("benchdnn --") + 11);
    text.insert(driver_end, " --skip-impl=" + skip);
  }
  return text;
}

std::optional<double> GflopsOf(const verbose::PrimitiveStats& row, double min_ms) {
  const std::optional<double> flops = verbose::FlopsOf(row.primitive.view(), row.problem.view(),
                                                       row.auxiliary.view(), row.prop_kind.view());
  if (!flops || min_ms <= 0) return std::nullopt;
  return *flops / (min_ms * 1e6);
}

// What runs each measurement: the engine, the plan's budget and the stop.
class Bench {
 public:
  explicit Bench(const WhatifPlan& plan) : plan_(plan) {
    settings_.budget_s = plan.time_s / kRounds;
    settings_.min_runs = 2;  // in each of kRounds rounds
    settings_.cold = plan.cold;
    settings_.cache_bytes = LastLevelCacheBytes();
    settings_.stop = plan.stop;
  }
  const dnnl::engine& engine() const { return engine_; }
  MeasureSettings Settings(bool keep_output = false, bool integer_inputs = false) const {
    MeasureSettings s = settings_;
    s.keep_output = keep_output;
    s.integer_inputs = integer_inputs;
    return s;
  }
  // Fills `v` from a measurement of `rebuilt` (`v.note` says why when it could not run).
  std::optional<Measurement> Run(const Rebuilt& rebuilt, const verbose::PrimitiveStats& row,
                                 VariantResult& v, const MeasureSettings& settings,
                                 const std::vector<std::string>& skipped = {}) const {
    if (std::optional<std::string> slow = TooSlowToTime(rebuilt, row)) {
      v.implementation = rebuilt.implementation();
      v.note = *slow;
      return std::nullopt;
    }
    StatusOr<Measurement> m = Measure(rebuilt, engine_, settings);
    if (!m.ok()) {
      v.note = m.status().message();
      return std::nullopt;
    }
    v.min_ms = m->min_ms;
    v.avg_ms = m->avg_ms;
    v.runs = m->runs;
    v.create_ms = m->create_ms;
    v.implementation = m->implementation;
    v.note = m->note;
    v.memory_descriptors = MemoryDescriptorsText(rebuilt);
    v.benchdnn = BenchdnnLine(row, v.memory_descriptors, v.implementation, v.threads, skipped);
    return std::move(*m);
  }

 private:
  const WhatifPlan& plan_;
  dnnl::engine engine_{dnnl::engine::kind::cpu, 0};
  MeasureSettings settings_;
};

// Caps this process at `cap` (a 2.6 ISA name) before its first primitive; an error says why not.
Status CapThisProcess(const std::string& cap) {
  static const std::map<std::string, dnnl::cpu_isa, std::less<>> kCaps = {
      {"sse41", dnnl::cpu_isa::sse41},
      {"avx", dnnl::cpu_isa::avx},
      {"avx2", dnnl::cpu_isa::avx2},
      {"avx2_vnni", dnnl::cpu_isa::avx2_vnni},
      {"avx512_core", dnnl::cpu_isa::avx512_core},
      {"avx512_core_vnni", dnnl::cpu_isa::avx512_core_vnni},
      {"avx512_core_bf16", dnnl::cpu_isa::avx512_core_bf16},
      {"avx512_core_amx", dnnl::cpu_isa::avx512_core_amx}};
  const auto it = kCaps.find(cap);
  if (it == kCaps.end()) return Status(ExitCode::kFailure, "oneDNN 2.6 has no cap named " + cap);
  if (dnnl::set_max_cpu_isa(it->second) != dnnl::status::success) {
    return Status(ExitCode::kFailure, "oneDNN refused the cap " + cap + " (set after first use)");
  }
  return {};
}

std::string LoggedImplementationNote(const verbose::PrimitiveStats& row, const std::string& ran,
                                     const verbose::LogHeader& header, std::string_view host_isa,
                                     const std::string& baseline_cap) {
  const std::string_view logged = row.implementation.view();
  if (logged == ran) return {};
  std::string note = "the log ran " + std::string(logged);
  if (!header.library_version.empty() &&
      header.library_version.find("v2.6.3") == std::string::npos) {
    return note + ", under " + header.library_version +
           " (rebuilt under dlcheck's oneDNN 2.6.3, whose kernel names may differ)";
  }
  const std::string_view logged_isa = row.isa.view();
  const std::string_view ran_isa = verbose::IsaOf(ran);
  if (!logged_isa.empty() && !ran_isa.empty() && logged_isa != ran_isa) {
    if (onednn::Compare(host_isa, logged_isa) == onednn::IsaOrder::kBelow) {
      return fmt::format("{} at {}; this CPU has no {} (it is at {}) and dispatches to {}", note,
                         logged_isa, logged_isa, host_isa, ran_isa);
    }
    return note + " at " + std::string(logged_isa) + "; this host dispatches to " +
           std::string(ran_isa) + (baseline_cap.empty() ? "" : " under the cap " + baseline_cap);
  }
  return note;
}

struct RowRun {
  const WhatifPlan& plan;
  const Bench& bench;
  HotPrimitive& hot;
  int threads;
  std::size_t of;
  std::string baseline_cap;  // the cap this process runs under, once taken
  DenseValues reference;     // the baseline's output, dense f32
  // Parallel to hot.variants: measures the variant again (a round's min, ms); empty: not again.
  std::vector<std::function<std::optional<double>()>> again;

  bool Stopped() const { return plan.stop && plan.stop(); }
  // `v`, its first round (its min), and how to measure it again.
  void Add(VariantResult v, std::function<std::optional<double>()> measure_again = {}) {
    if (v.min_ms) v.round_ms.push_back(*v.min_ms);
    const bool measured = !v.round_ms.empty();
    hot.variants.push_back(std::move(v));
    again.push_back(measured ? std::move(measure_again) : nullptr);
  }
  // A round of `settings` on the row rebuilt with `rebuild` (after `next_impls` implementations)
  // at `n` threads, plus `added_ms` (the reorders measured once).
  std::function<std::optional<double>()> Again(RebuildSettings rebuild, int n, int next_impls = 0,
                                               bool integer_inputs = false,
                                               double added_ms = 0) const {
    const Bench* b = &bench;
    const verbose::PrimitiveStats* row = &hot.row;
    return [=]() -> std::optional<double> {
      SetThreads(n);
      StatusOr<Rebuilt> rebuilt = Rebuild(*row, b->engine(), rebuild);
      if (!rebuilt.ok()) return std::nullopt;
      for (int i = 0; i < next_impls; ++i) {
        try {
          if (!rebuilt->pd.next_impl()) return std::nullopt;
        } catch (const dnnl::error&) {
          return std::nullopt;
        }
      }
      StatusOr<Measurement> m = Measure(*rebuilt, b->engine(), b->Settings(false, integer_inputs));
      if (!m.ok()) return std::nullopt;
      return m->min_ms + added_ms;
    };
  }
  void Progress(const std::string& what) const {
    if (plan.progress)
      plan.progress(hot.rank, of, std::string(hot.row.primitive.view()) + ", " + what);
  }
};

void MeasureBaseline(RowRun& r, const verbose::LogHeader& header) {
  r.Progress("as logged");
  SetThreads(r.threads);
  StatusOr<Rebuilt> rebuilt = Rebuild(
      r.hot.row, r.bench.engine(),
      {.layouts_any = r.plan.baseline_layouts_any && !verbose::IsReorder(r.hot.row.primitive)});
  if (!rebuilt.ok()) {
    r.hot.not_rebuilt = rebuilt.status().message();
    return;
  }
  const RebuildSettings as_logged{.layouts_any = r.plan.baseline_layouts_any &&
                                                 !verbose::IsReorder(r.hot.row.primitive)};
  VariantResult v{.variant = "as logged", .threads = r.threads};
  // The output is kept as the reference of the data types, and only for them: on a large
  // tensor its copy takes seconds that a signal cannot stop.
  std::optional<Measurement> m =
      r.bench.Run(*rebuilt, r.hot.row, v, r.bench.Settings(Wants(r.plan, "dtype")));
  if (m) {
    r.reference = std::move(m->output);
    const std::string logged = LoggedImplementationNote(r.hot.row, v.implementation, header,
                                                        r.plan.host_isa, r.baseline_cap);
    v.note = v.note.empty() ? logged : logged.empty() ? v.note : logged + "; " + v.note;
  }
  r.Add(std::move(v), r.Again(as_logged, r.threads));
}

// `layouts any`, with the reorders from and to the log's layouts the change implies.
void MeasureLayoutsAny(RowRun& r) {
  if (verbose::IsReorder(r.hot.row.primitive)) return;
  r.Progress("layouts any");
  SetThreads(r.threads);
  VariantResult v{.variant = "layouts any", .threads = r.threads};
  StatusOr<Rebuilt> rebuilt = Rebuild(r.hot.row, r.bench.engine(), {.layouts_any = true});
  if (!rebuilt.ok()) {
    v.note = rebuilt.status().message();
    r.Add(std::move(v));
    return;
  }
  if (!r.bench.Run(*rebuilt, r.hot.row, v, r.bench.Settings())) {
    r.Add(std::move(v));
    return;
  }
  double reorders_ms = 0;  // per call, measured once: the rounds after the first add them
  const bool inference = r.hot.row.prop_kind.view() == "forward_inference";
  std::vector<std::string> per_call, once;
  for (const auto& [arg, logged] : rebuilt->logged) {
    const memory::desc chosen = ChosenDesc(*rebuilt, arg);
    if (chosen == logged) continue;
    const bool output = arg == rebuilt->output_arg;
    const std::optional<Rebuilt> reorder = output
                                               ? ReorderBetween(chosen, logged, r.bench.engine())
                                               : ReorderBetween(logged, chosen, r.bench.engine());
    const std::string what =
        ArgLabel(*rebuilt, arg) + " " +
        (output ? TagOf(chosen) + ">" + TagOf(logged) : TagOf(logged) + ">" + TagOf(chosen));
    if (!reorder) {
      per_call.push_back(what + " (no reorder)");
      continue;
    }
    StatusOr<Measurement> m = Measure(*reorder, r.bench.engine(), r.bench.Settings());
    if (!m.ok()) continue;
    // Weights change every step of training, so their reorder is per call there too.
    if (IsWeights(arg) && inference) {
      once.push_back(fmt::format("{} {:.3f} ms", what, m->min_ms));
      continue;
    }
    per_call.push_back(fmt::format("{} {:.3f} ms", what, m->min_ms));
    *v.min_ms += m->min_ms;
    *v.avg_ms += m->avg_ms;
    reorders_ms += m->min_ms;
  }
  const std::string measured_note = v.note;
  if (per_call.empty() && once.empty()) {
    v.note = "no reorder: the log's layouts are the ones this implementation prefers";
  } else {
    v.note = "includes reorders per call: " +
             (per_call.empty() ? std::string("none") : Join(per_call, ", "));
    if (!once.empty()) v.note += "; weights once (not included): " + Join(once, ", ");
  }
  if (!measured_note.empty()) v.note += "; " + measured_note;
  r.Add(std::move(v), r.Again({.layouts_any = true}, r.threads, 0, false, reorders_ms));
}

// `impl NAME` for each implementation after the one oneDNN picks (next_impl()).
void MeasureImplementations(RowRun& r) {
  if (verbose::IsReorder(r.hot.row.primitive)) return;
  SetThreads(r.threads);
  StatusOr<Rebuilt> rebuilt = Rebuild(r.hot.row, r.bench.engine());
  if (!rebuilt.ok()) return;
  std::vector<std::string> before = {rebuilt->implementation()};
  for (std::size_t i = 1; i < kMaxImplementations && !r.Stopped(); ++i) {
    bool more = false;
    try {
      more = rebuilt->pd.next_impl();
    } catch (const dnnl::error&) {
      more = false;
    }
    if (!more) break;
    const std::string name = rebuilt->implementation();
    const auto repeats = std::count(before.begin(), before.end(), name);
    const std::string label =
        "impl " + name + (repeats > 0 ? " #" + std::to_string(repeats + 1) : "");
    r.Progress(label);
    VariantResult v{.variant = label, .threads = r.threads};
    if (r.bench.Run(*rebuilt, r.hot.row, v, r.bench.Settings(), before) && repeats > 0) {
      // benchdnn 2.6 skips implementations by name: it cannot reach a second one of a name.
      v.benchdnn.clear();
      v.note =
          "no benchdnn line: benchdnn 2.6 skips implementations by name, and an earlier "
          "one has this name";
    }
    before.push_back(name);
    r.Add(std::move(v), r.Again({}, r.threads, static_cast<int>(i)));
  }
}

void MeasureThreads(RowRun& r, const verbose::LogHeader& header) {
  std::set<int> counts = {1, r.plan.allowed_cpus};
  if (header.threads) counts.insert(std::min(*header.threads, r.plan.allowed_cpus));
  counts.erase(r.threads);
  for (int n : counts) {
    if (r.Stopped() || n < 1) break;
    r.Progress("threads " + std::to_string(n));
    SetThreads(n);
    VariantResult v{.variant = "threads " + std::to_string(n), .threads = n};
    StatusOr<Rebuilt> rebuilt = Rebuild(r.hot.row, r.bench.engine());
    if (rebuilt.ok()) r.bench.Run(*rebuilt, r.hot.row, v, r.bench.Settings());
    r.Add(std::move(v), r.Again({}, n));
  }
  SetThreads(r.threads);
}

bool AllTypes(const verbose::PrimitiveStats& row, std::string_view type) {
  std::vector<verbose::MemoryDesc> mds;
  verbose::ParseMemoryDescs(row.memory_descriptors.view(), mds);
  bool any = false;
  for (const verbose::MemoryDesc& md : mds) {
    if (md.data_type.empty() || md.data_type == "undef" || md.format_kind == "undef") continue;
    if (md.name.starts_with("bia")) continue;
    if (md.data_type != type) return false;
    any = true;
  }
  return any;
}

void MeasureDataTypes(RowRun& r) {
  if (!onednn::IsComputeKind(r.hot.row.primitive.view())) return;
  const bool f32_log = AllTypes(r.hot.row, "f32");
  for (const char* type : {"bf16", "f16", "int8"}) {
    if (r.Stopped()) break;
    if (AllTypes(r.hot.row, type) || (std::string_view(type) == "int8" &&
                                      (AllTypes(r.hot.row, "s8") || AllTypes(r.hot.row, "u8"))))
      continue;
    if (std::string_view(type) == "int8" && !r.hot.row.prop_kind.view().starts_with("forward"))
      continue;
    r.Progress(std::string("dtype ") + type);
    SetThreads(r.threads);
    VariantResult v{.variant = std::string("dtype ") + type, .threads = r.threads};
    const std::string emulation = EmulationNote(type, r.plan.features);
    StatusOr<Rebuilt> rebuilt = Rebuild(r.hot.row, r.bench.engine(), {.data_type = type});
    if (!rebuilt.ok()) {
      v.note = rebuilt.status().message();
      r.Add(std::move(v));
      continue;
    }
    const bool integer = std::string_view(type) == "int8";
    std::optional<Measurement> m =
        r.bench.Run(*rebuilt, r.hot.row, v, r.bench.Settings(true, integer));
    if (m && f32_log) {
      const DenseValues* reference = &r.reference;
      DenseValues integer_reference;
      if (integer) {  // an f32 reference on the same integer inputs
        StatusOr<Rebuilt> base = Rebuild(r.hot.row, r.bench.engine());
        MeasureSettings once = r.bench.Settings(true, true);
        once.budget_s = 0;
        once.min_runs = 1;
        once.cold = false;
        StatusOr<Measurement> ref = base.ok() ? Measure(*base, r.bench.engine(), once)
                                              : StatusOr<Measurement>(base.status());
        if (ref.ok()) integer_reference = std::move(ref->output);
        reference = &integer_reference;
      }
      if (!reference->empty() && reference->size == m->output.size) {
        const std::optional<Deviation> d =
            DeviationOf(m->output.view(), reference->view(), r.plan.stop);
        v.deviation = d ? fmt::format("max abs {:.3g}, {:.3g} % of the largest f32 output",
                                      d->max_abs, 100 * d->relative_to_largest)
                        : "not computed: stopped by a signal";
      }
    } else if (m) {
      v.deviation = "no f32 reference: the log's types are not all f32";
    }
    std::string note = "layouts chosen by oneDNN for " + std::string(type);
    if (!emulation.empty()) note = emulation + "; " + note;
    v.note = v.note.empty() ? note : note + "; " + v.note;
    r.Add(std::move(v), r.Again({.data_type = type}, r.threads, 0, integer));
  }
}

// The rounds after the first: every variant of the row once, in turn, then again (so that a
// change of the machine's load falls on all of them); each variant's min and range from its
// rounds' minima.
void MeasureRounds(RowRun& r) {
  for (int round = 2; round <= kRounds && !r.Stopped(); ++round) {
    r.Progress(fmt::format("round {}/{}", round, kRounds));
    for (std::size_t i = 0; i < r.again.size() && !r.Stopped(); ++i) {
      if (!r.again[i]) continue;
      if (std::optional<double> ms = r.again[i]()) r.hot.variants[i].round_ms.push_back(*ms);
    }
  }
  SetThreads(r.threads);
  for (VariantResult& v : r.hot.variants) {
    if (v.round_ms.empty()) continue;
    const auto [least, most] = std::minmax_element(v.round_ms.begin(), v.round_ms.end());
    v.min_ms = *least;
    v.round_max_ms = *most;
  }
}

}  // namespace

void CompareWithBaseline(HotPrimitive& hot) {
  if (hot.variants.empty() || !hot.variants.front().min_ms) return;
  const VariantResult& baseline = hot.variants.front();
  const double base = *baseline.min_ms;
  const dispatch::Spread base_spread = dispatch::SpreadOf(baseline.round_ms);
  for (std::size_t i = 0; i < hot.variants.size(); ++i) {
    VariantResult& v = hot.variants[i];
    if (!v.min_ms || *v.min_ms <= 0) continue;
    v.gflops = GflopsOf(hot.row, *v.min_ms);
    v.speedup = base / *v.min_ms;
    v.step_gain_pct = hot.share_pct * (1 - 1 / *v.speedup);
    const dispatch::Spread spread = dispatch::SpreadOf(v.round_ms);
    if (i > 0 && spread.runs >= 2 && base_spread.runs >= 2 &&
        !dispatch::Separated(spread, base_spread) && !v.within_noise) {
      v.within_noise = true;
      // The ranges are the variant's min_ms to round_max_ms, and the baseline's.
      const std::string noise = "within noise: its rounds' range overlaps the baseline's";
      v.note = v.note.empty() ? noise : noise + "; " + v.note;
    }
  }
}

double ProgramGainPct(double step_gain_pct, double onednn_wall_pct) {
  return step_gain_pct * onednn_wall_pct / 100;
}

namespace {
// "; at most 0.8 % of the program's wall time, where oneDNN took 5.7 % of it"; empty for a log.
std::string OnTheProgram(double step_gain_pct, std::optional<double> onednn_wall_pct) {
  if (!onednn_wall_pct) return {};
  return fmt::format(
      "; about {:.1f} % of the program's wall time, where oneDNN took {:.1f} % of it",
      ProgramGainPct(step_gain_pct, *onednn_wall_pct), *onednn_wall_pct);
}
}  // namespace

bool ProcessWide(std::string_view variant) {
  return variant.starts_with("isa ") || variant.starts_with("threads ");
}

std::vector<StepKnob> StepKnobs(const WhatifResult& result) {
  std::vector<StepKnob> knobs;
  const auto knob_of = [&](const std::string& variant) -> StepKnob& {
    for (StepKnob& k : knobs) {
      if (k.variant == variant) return k;
    }
    StepKnob k{.variant = variant};
    if (variant.starts_with("isa ")) {
      k.confirm = "dlcheck dispatch --isa " + variant.substr(4) + " -- CMD";
    } else {
      k.confirm = "dlcheck dispatch --threads " + variant.substr(8) + " -- CMD";
    }
    knobs.push_back(std::move(k));
    return knobs.back();
  };
  for (const HotPrimitive& hot : result.hot) {
    if (hot.variants.empty() || !hot.variants.front().min_ms) continue;
    const VariantResult& base = hot.variants.front();
    for (std::size_t i = 1; i < hot.variants.size(); ++i) {
      const VariantResult& v = hot.variants[i];
      if (!ProcessWide(v.variant)) continue;
      StepKnob& k = knob_of(v.variant);
      if (!v.min_ms || *v.min_ms <= 0) {
        k.cannot_run.push_back(fmt::format("#{} {}", hot.rank, hot.row.primitive.view()));
        continue;
      }
      ++k.rows_measured;
      k.step_gain_pct += v.step_gain_pct.value_or(0);
      // A row's gain is share * (1 - variant / baseline); its range from the rounds' extremes.
      const double base_min = *base.min_ms, base_max = base.round_max_ms.value_or(base_min);
      const double v_min = *v.min_ms, v_max = v.round_max_ms.value_or(v_min);
      k.step_gain_low_pct += hot.share_pct * (1 - v_max / base_min);
      k.step_gain_high_pct += hot.share_pct * (1 - v_min / base_max);
    }
  }
  for (StepKnob& k : knobs) {
    k.within_noise = k.step_gain_low_pct <= 0 && k.step_gain_high_pct >= 0;
  }
  std::stable_sort(knobs.begin(), knobs.end(), [](const StepKnob& a, const StepKnob& b) {
    return a.step_gain_pct > b.step_gain_pct;
  });
  return knobs;
}

std::string KnobSentence(const StepKnob& k, std::optional<double> onednn_wall_pct) {
  std::string text = fmt::format(
      "{} over the whole step: about {:.0f} % of the step ({:.0f} to {:.0f} % over the rounds) "
      "on {} hot rows",
      k.variant, k.step_gain_pct, k.step_gain_low_pct, k.step_gain_high_pct, k.rows_measured);
  text += OnTheProgram(k.step_gain_pct, onednn_wall_pct);
  if (!k.cannot_run.empty()) {
    text +=
        fmt::format("; {} cannot run under it (the program would fail)", Join(k.cannot_run, ", "));
  }
  return text + "; confirm on the program with `" + k.confirm + "`";
}

std::vector<Change> RankedChanges(const WhatifResult& result) {
  std::vector<Change> changes;
  for (const HotPrimitive& hot : result.hot) {
    for (std::size_t i = 1; i < hot.variants.size(); ++i) {
      const VariantResult& v = hot.variants[i];
      if (v.within_noise || ProcessWide(v.variant)) continue;
      if (v.speedup && *v.speedup > 1.0 && v.step_gain_pct) changes.push_back({&hot, &v});
    }
  }
  std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return *a.variant->step_gain_pct > *b.variant->step_gain_pct;
  });
  return changes;
}

std::optional<Finding> ThreadsAboveCpusFinding(int threads, int usable_cpus,
                                               const std::string& budget_text) {
  if (threads <= usable_cpus) return std::nullopt;
  return Finding{.severity = Severity::kWarning,
                 .code = codes::kThreadsAboveCpus,
                 .message = fmt::format(
                     "--threads {} asked, but this process may use {}: the threads wait for "
                     "each other, so every figure is slower than on a machine with {} CPUs; give "
                     "at most {}",
                     threads, budget_text, threads, usable_cpus)};
}

namespace {
// The verdict of the rows measured.
std::string WholeVerdict(const WhatifResult& result, const std::vector<Change>& changes,
                         const std::vector<StepKnob>& knobs);
}  // namespace

std::string Verdict(const WhatifResult& result, const std::vector<Change>& changes,
                    const std::vector<StepKnob>& knobs) {
  if (!result.interrupted) return WholeVerdict(result, changes, knobs);
  return fmt::format("partial, interrupted after {} of {} hot rows (no isa variants): {}",
                     result.hot.size(), std::max(result.hot_planned, result.hot.size()),
                     WholeVerdict(result, changes, knobs));
}

namespace {
std::string WholeVerdict(const WhatifResult& result, const std::vector<Change>& changes,
                         const std::vector<StepKnob>& knobs) {
  if (result.hot.empty()) return "the log has no execution time to measure";
  const StepKnob* best_knob = nullptr;
  for (const StepKnob& k : knobs) {
    if (k.within_noise || !k.cannot_run.empty() || k.step_gain_pct < 1.0) continue;
    if (best_knob == nullptr || k.step_gain_pct > best_knob->step_gain_pct) best_knob = &k;
  }
  const bool change = !changes.empty() && *changes.front().variant->step_gain_pct >= 1.0;
  if (best_knob != nullptr &&
      (!change || best_knob->step_gain_pct > *changes.front().variant->step_gain_pct)) {
    return KnobSentence(*best_knob, result.onednn_wall_pct);
  }
  if (!change) {
    return "no measured change saves 1 % of the step beyond the noise: the hot primitives "
           "already run as fast as this oneDNN makes them here";
  }
  return ChangeSentence(*changes.front().hot, *changes.front().variant, result.onednn_wall_pct);
}
}  // namespace

std::vector<std::size_t> HotRows(const std::vector<verbose::PrimitiveStats>& rows, double total_ms,
                                 double cover_pct, std::size_t top) {
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return rows[a].exec_ms_total > rows[b].exec_ms_total;
  });
  std::vector<std::size_t> hot;
  double covered = 0;
  for (std::size_t i : order) {
    if (hot.size() >= top || rows[i].exec_ms_total <= 0 || total_ms <= 0) break;
    if (covered >= cover_pct) break;
    hot.push_back(i);
    covered += 100.0 * rows[i].exec_ms_total / total_ms;
  }
  return hot;
}

std::pair<int, std::string> BaselineThreads(const WhatifPlan& plan,
                                            const verbose::LogHeader& header) {
  if (plan.threads > 0) return {plan.threads, "--threads"};
  if (header.threads && *header.threads > 0) {
    if (*header.threads > plan.allowed_cpus) {
      return {plan.allowed_cpus,
              fmt::format("the log's nthr:{}, capped at the {} CPUs allowed here", *header.threads,
                          plan.allowed_cpus)};
    }
    return {*header.threads, fmt::format("the log's nthr:{}", *header.threads)};
  }
  return {plan.allowed_cpus, "all allowed CPUs (the log says no nthr)"};
}

std::optional<std::string> LogIsaCap(const verbose::LogHeader& header, std::string_view host_isa) {
  // Ranked in the host's architecture's order: a log of another architecture has no cap here.
  const onednn::IsaArch arch = onednn::ArchOf(host_isa);
  const std::optional<int> log_rank = onednn::RankIn(arch, header.isa_short);
  const std::optional<int> host_rank = onednn::RankIn(arch, host_isa);
  if (!log_rank || !host_rank || *log_rank < 1 || *log_rank >= *host_rank) return std::nullopt;
  std::optional<std::string> cap;
  for (std::string_view c : onednn::SweepCaps(arch)) {
    const std::optional<int> rank = onednn::RankIn(arch, c);
    if (rank && *rank <= *log_rank && (!cap || *rank > *onednn::RankIn(arch, *cap)))
      cap = std::string(c);
  }
  return cap;
}

std::vector<std::string> IsaVariantCaps(std::vector<std::string> caps,
                                        const std::string& baseline_cap) {
  if (baseline_cap.empty()) {
    if (!caps.empty()) caps.pop_back();
    return caps;
  }
  caps.erase(std::remove(caps.begin(), caps.end(), baseline_cap), caps.end());
  return caps;
}

std::string EmulationNote(std::string_view type, const std::vector<std::string>& features) {
  if (type == "bf16" && !Has(features, "avx512_bf16") && !Has(features, "amx_bf16")) {
    return "emulated: no avx512_bf16 or amx_bf16 on this CPU";
  }
  if (type == "f16" && !Has(features, "avx512_fp16") && !Has(features, "amx_fp16")) {
    return "emulated: no avx512_fp16 or amx_fp16 on this CPU";
  }
  if (type == "int8" && !Has(features, "avx512_vnni") && !Has(features, "avx_vnni") &&
      !Has(features, "amx_int8")) {
    return "no VNNI on this CPU: int8 runs without its dot-product instructions";
  }
  return {};
}

std::string ChangeSentence(const HotPrimitive& hot, const VariantResult& v,
                           std::optional<double> onednn_wall_pct) {
  const double base = hot.variants.front().min_ms.value_or(0);
  std::string what = v.variant;
  if (v.variant == "layouts any")
    what = "layouts chosen by oneDNN";
  else if (v.variant.starts_with("impl "))
    what = "implementation " + v.variant.substr(5);
  else if (v.variant.starts_with("threads "))
    what = v.variant.substr(8) + " threads";
  else if (v.variant.starts_with("dtype "))
    what = v.variant.substr(6);
  else if (v.variant.starts_with("isa "))
    what = "ISA capped at " + v.variant.substr(4);
  return fmt::format(
             "#{} {}, {:.0f} % of the step, runs {:.1f}x faster with {} ({:.3f} -> {:.3f} ms): "
             "about {:.0f} % of the step",
             hot.rank, hot.row.primitive.view(), hot.share_pct, v.speedup.value_or(1), what, base,
             v.min_ms.value_or(0), v.step_gain_pct.value_or(0)) +
         OnTheProgram(v.step_gain_pct.value_or(0), onednn_wall_pct);
}

WhatifResult RunWhatif(const std::vector<verbose::PrimitiveStats>& rows, double total_ms,
                       const verbose::LogHeader& header, const WhatifPlan& plan,
                       const IsaRunner& isa_runner) {
  WhatifResult result;
  std::tie(result.threads, result.threads_source) = BaselineThreads(plan, header);
  const std::vector<std::size_t> hot_rows = HotRows(rows, total_ms, plan.cover_pct, plan.top);
  if (!plan.baseline_cap.empty()) {
    if (Status capped = CapThisProcess(plan.baseline_cap); capped.ok()) {
      result.baseline_cap = plan.baseline_cap;
      result.baseline_cap_note = fmt::format(
          "the log's ISA ({}) as a cap, so that `as logged` reruns the log's kernels; "
          "isa variants above it measure this host's",
          header.isa_short);
    } else {
      result.baseline_cap_note = "not capped at the log's ISA: " + capped.message();
    }
  }
  Bench bench(plan);
  const int threads_before = MaxThreads();
  for (std::size_t i = 0; i < hot_rows.size(); ++i) {
    HotPrimitive hot{.rank = i + 1, .row = rows[hot_rows[i]]};
    hot.share_pct = total_ms > 0 ? 100.0 * hot.row.exec_ms_total / total_ms : 0;
    result.covered_pct += hot.share_pct;
    result.hot.push_back(std::move(hot));
  }
  result.hot_planned = result.hot.size();
  std::size_t measured = 0;
  for (HotPrimitive& hot : result.hot) {
    if (plan.stop && plan.stop()) {
      result.interrupted = true;
      break;
    }
    RowRun r{plan, bench, hot, result.threads, result.hot.size(), result.baseline_cap, {}};
    MeasureBaseline(r, header);
    ++measured;
    if (!hot.not_rebuilt.empty() || hot.variants.empty() || !hot.variants.front().min_ms) continue;
    if (Wants(plan, "layouts") && !r.Stopped()) MeasureLayoutsAny(r);
    if (Wants(plan, "impl") && !r.Stopped()) MeasureImplementations(r);
    if (Wants(plan, "threads") && !r.Stopped()) MeasureThreads(r, header);
    if (Wants(plan, "dtype") && !r.Stopped()) MeasureDataTypes(r);
    MeasureRounds(r);
  }
  if (plan.stop && plan.stop()) result.interrupted = true;
  if (measured < result.hot.size()) {
    result.interrupted = true;
    result.hot.resize(measured);
  }
  if (Wants(plan, "isa") && isa_runner && !result.interrupted) {
    std::vector<std::size_t> ranks;
    for (const HotPrimitive& hot : result.hot) {
      if (hot.not_rebuilt.empty() && !hot.variants.empty() && hot.variants.front().min_ms)
        ranks.push_back(hot.rank);
    }
    for (const std::string& cap : plan.isa_caps) {
      if (ranks.empty() || (plan.stop && plan.stop())) break;
      if (plan.progress) plan.progress(0, result.hot.size(), "isa " + cap + " (a worker)");
      const std::vector<VariantResult> capped = isa_runner(cap, ranks);
      for (std::size_t k = 0; k < ranks.size() && k < capped.size(); ++k) {
        result.hot[ranks[k] - 1].variants.push_back(capped[k]);
      }
    }
  }
  SetThreads(threads_before);
  std::size_t agree = 0, baselines = 0;
  for (HotPrimitive& hot : result.hot) {
    CompareWithBaseline(hot);
    if (!hot.variants.empty() && hot.variants.front().min_ms) {
      ++baselines;
      if (hot.variants.front().implementation == hot.row.implementation.view()) ++agree;
    }
  }
  result.implementation_agreement =
      fmt::format("{} of {} baselines ran the log's implementation", agree, baselines);
  return result;
}

}  // namespace dlcheck::whatif
