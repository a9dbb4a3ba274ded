// SPDX-License-Identifier: Apache-2.0
// The summary of a log and its notes ("why" findings): time by kind and class, scalar fallbacks,
// skipped faster kernels, reorders every step, cache thrash, a partial log (aggregate.h declares
// Aggregator::Summarize and the rules the callers share).
#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "common/finding_codes.h"
#include "common/onednn_isa.h"
#include "common/primitive_kinds.h"
#include "verbose/aggregate.h"
#include "verbose/diagnostic_words.h"
#include "verbose/exec_time.h"
#include "verbose/flops.h"
#include "verbose/isa.h"
#include "verbose/line_parser.h"
#include "verbose/rules.h"

namespace dlcheck::verbose {
namespace {

std::string Percent(double pct) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", pct);
  return buf;
}

std::string Ms(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f ms", ms);
  return buf;
}

std::vector<TimeShare> SortedShares(std::map<std::string, TimeShare> by_name, double total) {
  std::vector<TimeShare> out;
  for (auto& [name, share] : by_name) {
    share.name = name;
    share.pct = total > 0 ? 100.0 * share.exec_ms / total : 0;
    out.push_back(share);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const TimeShare& a, const TimeShare& b) { return a.exec_ms > b.exec_ms; });
  return out;
}

void AddShare(TimeShare& share, const PrimitiveStats& row) {
  ++share.rows;
  share.execs += row.execs;
  share.exec_ms += row.exec_ms_total;
}

// Counts, times and shares over the rows.
Summary Totals(const PrimitiveRows& rows) {
  Summary s;
  s.rows = rows.size();
  std::map<std::string, TimeShare> by_kind;
  std::map<std::string, TimeShare> by_fallback;
  std::map<std::string, TimeShare> by_library;
  for (const PrimitiveStats& row : rows) {
    s.creates += row.creates;
    s.cache_hits += row.cache_hits;
    s.create_ms += row.create_ms;
    s.nested_creates += row.nested_creates;
    s.nested_create_ms += row.nested_create_ms;
    s.execs += row.execs;
    s.exec_ms += row.exec_ms_total;
    if (IsReorder(row.primitive)) s.reorder_exec_ms += row.exec_ms_total;
    if (row.timed_execs > 0) {
      s.first_exec_ms += row.first_exec_ms;
      ++s.first_execs;
      s.steady_exec_ms += row.exec_ms_total - row.first_exec_ms;
      s.steady_execs += row.timed_execs - 1;
    }
    AddShare(by_kind[row.primitive.str()], row);
    AddShare(by_fallback[std::string(ImplClassName(row.impl_class))], row);
    AddShare(by_library[std::string(LibraryName(LibraryOf(row.era)))], row);
  }
  s.by_kind = SortedShares(std::move(by_kind), s.exec_ms);
  s.by_fallback = SortedShares(std::move(by_fallback), s.exec_ms);
  s.by_library = SortedShares(std::move(by_library), s.exec_ms);
  s.reorder_pct = s.exec_ms > 0 ? 100.0 * s.reorder_exec_ms / s.exec_ms : 0;
  if (s.creates > 0) {
    s.cache_hit_rate = static_cast<double>(s.cache_hits) / static_cast<double>(s.creates);
  }
  return s;
}

// "2 primitives ran scalar reference code: matmul ref:any (25.0% of exec time), ...", or "".
std::string ScalarFallbackText(const PrimitiveRows& rows, double exec_ms) {
  std::map<std::string, std::pair<std::uint64_t, double>> scalar;  // "kind impl" -> rows, ms
  for (const PrimitiveStats& row : rows) {
    if (!IsScalarFinding(row, ScalarScope::kEveryRow)) continue;
    auto& entry = scalar[row.primitive + " " + row.implementation];
    ++entry.first;
    entry.second += row.exec_ms_total;
  }
  if (scalar.empty()) return {};
  std::uint64_t count = 0;
  std::string list;
  for (const auto& [name, entry] : scalar) {
    count += entry.first;
    if (!list.empty()) list += ", ";
    list += name;
    if (exec_ms > 0) list += " (" + Percent(100.0 * entry.second / exec_ms) + " of exec time)";
  }
  return std::to_string(count) + (count == 1 ? " primitive ran" : " primitives ran") +
         " scalar reference code: " + list;
}

// "jit:uni, gemm:jit": the implementations whose ISA came from the header, or "".
std::string InferredIsaList(const PrimitiveRows& rows) {
  std::map<std::string, std::uint64_t> inferred;  // impl -> rows
  for (const PrimitiveStats& row : rows) {
    if (row.isa_inferred) ++inferred[row.implementation.str()];
  }
  std::string list;
  for (const auto& [impl, n] : inferred) {
    if (!list.empty()) list += ", ";
    list += impl;
  }
  return list;
}

// "3.2" when first executions took more than twice the steady-state mean, else "".
std::string FirstExecRatio(const Summary& s) {
  if (s.steady_execs == 0 || s.first_execs == 0) return {};
  const double first_mean = s.first_exec_ms / static_cast<double>(s.first_execs);
  const double steady_mean = s.steady_exec_ms / static_cast<double>(s.steady_execs);
  if (steady_mean <= 0 || first_mean <= 2 * steady_mean) return {};
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", first_mean / steady_mean);
  return buf;
}

// The share of all exec time a row took, in percent.
double SharePct(const PrimitiveStats& row, double exec_ms) {
  return exec_ms > 0 ? 100.0 * row.exec_ms_total / exec_ms : 0;
}

// "convolution jit:sse41": how a finding names a row.
std::string RowName(const PrimitiveStats& row) {
  return row.primitive + " " + row.implementation;
}

// skipped-faster-kernel: a hot row that ran below the ISA of an implementation oneDNN skipped.
void SkippedFasterKernels(const PrimitiveRows& rows, double exec_ms, std::vector<Finding>& out) {
  for (const PrimitiveStats& row : rows) {
    if (row.skipped.empty() || SharePct(row, exec_ms) < kHotSharePct) continue;
    const SkippedImpl* best = nullptr;
    for (const SkippedImpl& s : row.skipped) {
      if (onednn::Compare(s.isa, row.isa.view()) != onednn::IsaOrder::kAbove) continue;
      if (best == nullptr || onednn::Compare(s.isa, best->isa) == onednn::IsaOrder::kAbove) {
        best = &s;
      }
    }
    if (best == nullptr) continue;
    const DispatchKnob knob = KnobOf(best->reason);
    out.push_back({Severity::kWarning, codes::kSkippedFasterKernel,
                   RowName(row) + " " + row.problem + " (" + Percent(SharePct(row, exec_ms)) +
                       " of exec time) ran at " + row.isa + " because oneDNN skipped the " +
                       best->isa + " kernel " + best->implementation + ": \"" + best->reason +
                       "\" (" + std::string(knob.name) + "). " + std::string(knob.remedy) + "."});
  }
}

// dtype-no-native-path: hot compute rows in a data type the log's CPU has no (or only a slower)
// native unit for. The log is judged by its ISA line (what oneDNN ran under: a cap, or the
// recording CPU's level), else by the CPU the caller names; the findings then add what the
// named CPU, else this host, has.
void DtypeNoNativePaths(const PrimitiveRows& rows, double exec_ms, const LogHeader& header,
                        const RunContext& context, std::vector<Finding>& out) {
  std::optional<DtypeUnits> cpu = DtypeUnitsOfIsa(header.isa_short);
  std::optional<DtypeUnits> host = context.cpu ? context.cpu : context.host;
  if (!cpu) {
    cpu = context.cpu;
    host = context.cpu ? context.host : std::nullopt;
  }
  if (!cpu) return;
  for (const PrimitiveStats& row : rows) {
    const double share = SharePct(row, exec_ms);
    if (share < kHotSharePct || !IsComputePrimitive(row)) continue;
    if (auto finding = DtypePathFinding(row, share, *cpu, host)) {
      out.push_back(std::move(*finding));
    }
  }
}

// The number of elements of a problem's weights: inner product `oc*ic*id*ih*iw`, convolution
// `oc*ic/g*kd*kh*kw`, matmul the second operand of `MxK:KxN:MxN`; nullopt for other kinds.
std::optional<double> WeightElements(std::string_view primitive, std::string_view problem) {
  using onednn::Kind;
  const std::optional<Kind> kind = onednn::KindOf(primitive);
  if (kind == Kind::kMatmul) {
    const std::size_t a = problem.find(':');
    if (a == std::string_view::npos) return std::nullopt;
    std::string_view b = problem.substr(a + 1);
    b = b.substr(0, b.find(':'));
    double n = 1;
    for (std::size_t at = 0; at <= b.size();) {
      std::size_t x = b.find('x', at);
      if (x == std::string_view::npos) x = b.size();
      double d = 0;
      const auto [ptr, ec] = std::from_chars(b.data() + at, b.data() + x, d);
      if (ec != std::errc() || ptr != b.data() + x) return std::nullopt;
      n *= d;
      at = x + 1;
    }
    return n;
  }
  const bool ip = kind == Kind::kInnerProduct;
  if (!ip && kind != Kind::kConvolution && kind != Kind::kDeconvolution) return std::nullopt;
  // Letters then digits, e.g. `mb2_g1ic16oc32_ih13oh13kh3...`: the value after each key.
  std::map<std::string, double, std::less<>> value;
  for (std::size_t i = 0; i < problem.size();) {
    const std::size_t key = i;
    while (i < problem.size() && std::isalpha(static_cast<unsigned char>(problem[i]))) ++i;
    const std::size_t digits = i;
    while (i < problem.size() && std::isdigit(static_cast<unsigned char>(problem[i]))) ++i;
    if (digits > key && i > digits) {
      double d = 0;
      std::from_chars(problem.data() + digits, problem.data() + i, d);
      value[std::string(problem.substr(key, digits - key))] = d;
    } else if (i == key) {
      ++i;
    }
  }
  auto get = [&value](std::string_view k, double none) {
    const auto it = value.find(k);
    return it == value.end() ? none : it->second;
  };
  if (get("oc", 0) == 0 || get("ic", 0) == 0) return std::nullopt;
  if (ip) return get("oc", 0) * get("ic", 0) * get("id", 1) * get("ih", 1) * get("iw", 1);
  const double g = get("g", 1);
  return get("oc", 0) * get("ic", 0) / g * get("kd", 1) * get("kh", 1) * get("kw", 1);
}

double DimsProduct(std::string_view dims) {
  double n = 1;
  for (std::size_t at = 0; at <= dims.size();) {
    std::size_t x = dims.find('x', at);
    if (x == std::string_view::npos) x = dims.size();
    double d = 0;
    const auto [ptr, ec] = std::from_chars(dims.data() + at, dims.data() + x, d);
    if (ec != std::errc() || ptr != dims.data() + x) return 0;
    n *= d;
    at = x + 1;
  }
  return n;
}

const MemoryDesc* FindMd(const std::vector<MemoryDesc>& mds, std::string_view name) {
  for (const MemoryDesc& md : mds) {
    if (md.name == name) return &md;
  }
  return nullptr;
}

// reorder-every-step: a reorder into a primitive's weights layout, run about once per
// execution of that primitive (inference, where the weights do not change between calls).
void ReordersEveryStep(const PrimitiveRows& rows, double exec_ms, std::vector<Finding>& out) {
  // The possible consumers, their weights read once: inference rows that compute.
  struct Consumer {
    const PrimitiveStats* row;
    std::string tag, data_type;
    std::optional<double> elements;
  };
  std::vector<Consumer> consumers;
  std::vector<MemoryDesc> mds;
  bool any_reorder = false;
  for (const PrimitiveStats& row : rows) {
    if (IsReorder(row.primitive) && row.execs >= 2) any_reorder = true;
  }
  if (!any_reorder) return;
  for (const PrimitiveStats& row : rows) {
    if (row.execs == 0 || !IsComputePrimitive(row) ||
        (row.prop_kind != "forward_inference" &&
         !onednn::IsKind(row.primitive, onednn::Kind::kMatmul))) {
      continue;
    }
    ParseMemoryDescs(row.memory_descriptors, mds);
    if (const MemoryDesc* wei = FindMd(mds, "wei"); wei != nullptr && !wei->tag.empty()) {
      consumers.push_back(
          {&row, wei->tag, wei->data_type, WeightElements(row.primitive, row.problem)});
    }
  }
  if (consumers.empty()) return;
  for (const PrimitiveStats& reorder : rows) {
    if (!IsReorder(reorder.primitive) || reorder.execs < 2) continue;
    ParseMemoryDescs(reorder.memory_descriptors, mds);
    const MemoryDesc* src = FindMd(mds, "src");
    const MemoryDesc* dst = FindMd(mds, "dst");
    if (src == nullptr || dst == nullptr || dst->tag.empty() || src->tag == dst->tag) continue;
    const std::string src_tag = src->tag, tag = dst->tag, data_type = dst->data_type;
    const double elements = DimsProduct(reorder.problem);
    const PrimitiveStats* consumer = nullptr;
    std::uint64_t consumer_execs = 0;
    for (const Consumer& c : consumers) {
      if (c.tag != tag || c.data_type != data_type) continue;
      if (c.elements && elements > 0 && *c.elements != elements) continue;
      consumer_execs += c.row->execs;
      if (consumer == nullptr || c.row->exec_ms_total > consumer->exec_ms_total) consumer = c.row;
    }
    if (consumer == nullptr || consumer_execs < 2) continue;
    const double ratio = static_cast<double>(reorder.execs) / static_cast<double>(consumer_execs);
    if (ratio < 0.75 || ratio > 1.25) continue;
    out.push_back(
        {Severity::kWarning, codes::kReorderEveryStep,
         "reorder " + reorder.implementation + " " + src_tag + "->" + tag + " " + reorder.problem +
             " ran " + std::to_string(reorder.execs) + " times for " +
             std::to_string(consumer_execs) + " executions of " + RowName(*consumer) + " " +
             consumer->problem + ": its weights are reordered on every call (" +
             Percent(SharePct(reorder, exec_ms)) + " of exec time, beside its " +
             Percent(SharePct(*consumer, exec_ms)) +
             "). Keep the weights in the layout the primitive wants: cache or prepack them "
             "(torch.jit.freeze, ipex.optimize(weights_prepack=True), TensorFlow's oneDNN "
             "weight caching), and create the primitive with format `any` so the layout "
             "propagates"});
  }
}

// cache-thrash: primitives missed in the cache more than once, or more distinct missed ones
// than the cache holds.
// "convolution jit:avx2 mb1_ic3oc16_ih32kh3, 4 creations; ...; and 2 more": the rows created
// again, the costliest first (their extra creation time), at most kNamed of them.
std::string CreatedAgainNames(std::vector<std::pair<double, const PrimitiveStats*>> again) {
  constexpr std::size_t kNamed = 3;
  std::sort(again.begin(), again.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string names;
  for (std::size_t i = 0; i < again.size() && i < kNamed; ++i) {
    const PrimitiveStats& row = *again[i].second;
    names += (i ? "; " : "") + RowName(row) + " " + row.problem + ", " +
             std::to_string(row.CacheMisses()) + " creations";
  }
  if (again.size() > kNamed) names += "; and " + std::to_string(again.size() - kNamed) + " more";
  return names;
}

void CacheThrash(const PrimitiveRows& rows, const Summary& s, std::vector<Finding>& out) {
  std::uint64_t extra = 0, missed = 0;
  double extra_ms = 0;
  std::vector<std::pair<double, const PrimitiveStats*>> again;  // extra ms, row
  for (const PrimitiveStats& row : rows) {
    const std::uint64_t misses = row.CacheMisses();
    if (misses >= 1) ++missed;
    if (misses < 2) continue;
    extra += misses - 1;
    const double row_extra_ms =
        row.create_ms * static_cast<double>(misses - 1) / static_cast<double>(misses);
    extra_ms += row_extra_ms;
    again.emplace_back(row_extra_ms, &row);
  }
  const bool over = missed > kDefaultCacheCapacity;
  if (again.empty() && !over) return;
  std::string message;
  if (!again.empty()) {
    const std::size_t count = again.size();
    message = std::to_string(count) + (count == 1 ? " primitive was" : " primitives were") +
              " created again after a cache miss (" + CreatedAgainNames(std::move(again)) + "; " +
              std::to_string(extra) + " extra creations, about " + Ms(extra_ms) + " of the " +
              Ms(s.create_ms) + " of creation time)";
  }
  if (over) {
    if (!message.empty()) message += "; ";
    message += std::to_string(missed) + " distinct primitives missed the cache, more than its " +
               std::to_string(kDefaultCacheCapacity) + " entries (the default)";
  }
  message +=
      ": the primitive cache evicts them, or shapes change from call to call. Raise "
      "ONEDNN_PRIMITIVE_CACHE_CAPACITY above the number of distinct primitives, and keep "
      "shapes stable (a fixed batch size, padded or bucketed sequence lengths)";
  out.push_back({Severity::kWarning, codes::kCacheThrash, std::move(message)});
}

// partial-log: a log that holds only part of what ran, and what its percentages cover.
void PartialLog(const PrimitiveRows& rows, const Summary& s, const LogHeader& header,
                bool caller_says_why, std::vector<Finding>& out) {
  for (const std::string& line : header.other) {
    if (line.find("filter format is enabled") != std::string::npos) {
      out.push_back({Severity::kWarning, codes::kPartialLog,
                     "oneDNN's verbose filter was on (ONEDNN_VERBOSE=...,filter=): only the "
                     "components it matched were logged, so every total and percentage covers "
                     "those lines only, not the whole run"});
      return;
    }
  }
  if (rows.empty() && !header.library_version.empty()) {
    if (caller_says_why) return;
    out.push_back({Severity::kWarning, codes::kPartialLog,
                   "the log holds oneDNN's header" +
                       std::string(s.diagnostics > 0 ? " and diagnostic lines" : "") +
                       " but no primitive line: verbose output was off or at the error level "
                       "(ONEDNN_VERBOSE=error is oneDNN 3.x's default); set ONEDNN_VERBOSE=2 "
                       "(DNNL_VERBOSE=2 before 2.5)"});
    return;
  }
  // oneDNN's own lines only: the engines around it (ZenDNN's profilers, ONNX Runtime's profile)
  // print no creation, whatever their setting.
  double onednn_exec_ms = 0;
  bool onednn_execs = false;
  for (const PrimitiveStats& row : rows) {
    if (LibraryOf(row.era) != Library::kOneDnn) continue;
    if (row.creates > 0 || row.nested_creates > 0) return;
    onednn_execs = onednn_execs || row.execs > 0;
    onednn_exec_ms += row.exec_ms_total;
  }
  if (onednn_execs) {
    out.push_back({Severity::kInfo, codes::kPartialLog,
                   "the log has no create lines (ONEDNN_VERBOSE=1 or profile_exec): the "
                   "percentages cover the " +
                       Ms(onednn_exec_ms) +
                       " of execution it holds; creation time and cache behaviour are not in "
                       "it (ONEDNN_VERBOSE=2 adds them)"});
  }
}

}  // namespace

// ONNX Runtime's provider that runs what no other requested provider takes.
constexpr std::string_view kOrtCpuProvider = "CPUExecutionProvider";

// ONNX Runtime's nodes by the execution provider that ran them (a row's implementation): where
// another provider ran some and the CPU provider the rest, the CPU provider got what the other
// could not run (ONNX Runtime gives such a node to it, onnxruntime#5434); where the CPU provider
// ran every node, a requested DNNL, ZenDNN or OpenVINO provider took none of the graph, which the
// profile cannot tell from a session that asked for none.
void OrtProviders(const PrimitiveRows& rows, std::vector<Finding>& out) {
  std::map<std::string, TimeShare> by_provider;
  double ort_ms = 0;
  for (const PrimitiveStats& row : rows) {
    if (LibraryOf(row.era) != Library::kOnnxRuntime || row.implementation.empty()) continue;
    AddShare(by_provider[std::string(row.implementation)], row);
    ort_ms += row.exec_ms_total;
  }
  const auto cpu = by_provider.find(std::string(kOrtCpuProvider));
  if (cpu == by_provider.end()) return;
  if (by_provider.size() == 1) {
    out.push_back({Severity::kInfo, codes::kProviderCpuOnly,
                   "every ONNX Runtime node ran on CPUExecutionProvider: if the session asked "
                   "for another provider (DNNL, ZenDNN, OpenVINO), it took none of the graph"});
    return;
  }
  std::string others;
  for (const auto& [provider, share] : by_provider) {
    if (provider == kOrtCpuProvider) continue;
    others += (others.empty() ? "" : ", ") + provider;
  }
  const double pct = ort_ms > 0 ? 100.0 * cpu->second.exec_ms / ort_ms : 0;
  out.push_back({pct >= 10.0 ? Severity::kWarning : Severity::kInfo, codes::kProviderFallback,
                 std::to_string(cpu->second.rows) + " ONNX Runtime node" +
                     (cpu->second.rows == 1 ? "" : "s") + " (" + Percent(pct) +
                     " of its time) ran on CPUExecutionProvider beside " + others +
                     ": the other provider did not take them (ONNX Runtime runs a node no "
                     "other provider supports on the CPU one)"});
}

bool DiagnosticsOnly(const Summary& s, const std::vector<DiagnosticStats>& diagnostics) {
  return s.creates + s.nested_creates + s.execs == 0 && !diagnostics.empty();
}

bool CallerSaysWhyNoPrimitive(const RunContext& context, const Summary& s,
                              const std::vector<DiagnosticStats>& diagnostics) {
  return context.recorded_verbose_lines &&
         (*context.recorded_verbose_lines == 0 || DiagnosticsOnly(s, diagnostics));
}

bool NeedsAWholeRun(std::string_view code) {
  return code == codes::kNoExec || code == codes::kCreateDominates || code == codes::kFirstExecSlow;
}

namespace {

// caller-checks: oneDNN's check and error lines, in plain words where dlcheck knows the message.
void CallerChecks(const std::vector<DiagnosticStats>& diagnostics, std::vector<Finding>& out) {
  constexpr std::size_t kListed = 3;
  std::string list;
  std::size_t lines = 0, listed = 0;
  for (const DiagnosticStats& d : diagnostics) {
    if (d.operation != "create:check" && d.operation != "exec:check" && d.operation != "error") {
      continue;
    }
    lines += d.count;
    if (listed++ >= kListed) continue;
    std::string words = PlainWords(d.operation, d.message);
    if (!list.empty()) list += "; ";
    list += (d.primitive.empty() ? std::string() : d.primitive + ": ") +
            (words.empty() ? "\"" + d.message + "\"" : words) +
            (d.count > 1 ? " (x" + std::to_string(d.count) + ")" : std::string());
  }
  if (lines == 0) return;
  if (listed > kListed)
    list += "; " + std::to_string(listed - kListed) + " more in the diagnostics table";
  out.push_back({Severity::kWarning, codes::kCallerChecks,
                 "oneDNN's checks found " + std::to_string(lines) +
                     (lines == 1 ? " thing" : " things") + " the caller passed wrong: " + list});
}

// The plain-language conclusions about a log, in a fixed order.
std::vector<Finding> Notes(const Summary& s, const PrimitiveRows& rows, const LogHeader& header,
                           const RunContext& context,
                           const std::vector<DiagnosticStats>& diagnostics) {
  std::vector<Finding> notes;
  auto note = [&notes, &context](Severity level, std::string code, std::string message) {
    if (!context.whole_run && NeedsAWholeRun(code)) return;
    notes.push_back({level, std::move(code), std::move(message)});
  };
  const bool caller_says_why = CallerSaysWhyNoPrimitive(context, s, diagnostics);
  if (s.execs == 0 && !caller_says_why) {
    note(Severity::kWarning, codes::kNoExec,
         "no oneDNN primitive executed \u2014 is ONEDNN_VERBOSE set? for oneDNN before 2.5 the "
         "variable is DNNL_VERBOSE");
  }
  if (std::string text = ScalarFallbackText(rows, s.exec_ms); !text.empty()) {
    // Under 1 % of the execution time a fallback costs nothing worth acting on: said, not warned.
    double scalar_ms = 0;
    for (const PrimitiveStats& row : rows) {
      if (IsScalarFinding(row, ScalarScope::kEveryRow)) scalar_ms += row.exec_ms_total;
    }
    const bool negligible = s.exec_ms > 0 && scalar_ms < 0.01 * s.exec_ms;
    note(negligible ? Severity::kInfo : Severity::kWarning, codes::kScalarFallback,
         std::move(text));
  }
  if (s.exec_ms > 0 && s.reorder_pct >= 10.0) {
    note(Severity::kWarning, codes::kReorderShare,
         "reorders took " + Percent(s.reorder_pct) +
             " of execution time: memory layouts change between primitives");
  }
  if (const std::string list = InferredIsaList(rows); !list.empty()) {
    note(Severity::kInfo, codes::kIsaInferred,
         "the ISA of " + list +
             " is not in the implementation name; it was inferred from the log's ISA line (" +
             header.isa_short + ")");
  }
  // Creation against the whole timed phase where the log traced only part of it (the model's).
  if (s.create_ms > 0 && s.create_ms > std::max(s.exec_ms, context.timed_ms.value_or(0))) {
    note(Severity::kInfo, codes::kCreateDominates,
         "creating primitives took longer than running them (" + Ms(s.create_ms) + " vs " +
             Ms(std::max(s.exec_ms, context.timed_ms.value_or(0))) +
             "): short runs are dominated by JIT compilation");
  }
  if (const std::string ratio = FirstExecRatio(s); !ratio.empty()) {
    note(Severity::kInfo, codes::kFirstExecSlow,
         "first executions took " + ratio +
             "x the steady-state mean: warm-up (page faults, caches) inflates short runs");
  }
  if (s.other_events > 0) {
    note(Severity::kWarning, codes::kRowLimit,
         "more than " + std::to_string(kMaxRows) + " distinct primitives (or " +
             std::to_string(kMaxRowTextBytes >> 20) + " MiB of their texts): the " +
             std::to_string(s.other_events) +
             " events of the primitives beyond them are counted in one row named 'other'");
  }
  SkippedFasterKernels(rows, s.exec_ms, notes);
  DtypeNoNativePaths(rows, s.exec_ms, header, context, notes);
  ReordersEveryStep(rows, s.exec_ms, notes);
  if (context.whole_run) CacheThrash(rows, s, notes);
  PartialLog(rows, s, header, caller_says_why, notes);
  OrtProviders(rows, notes);
  CallerChecks(diagnostics, notes);
  if (s.graph_dispatch > 0) {
    note(Severity::kInfo, codes::kGraphPatternMatcher,
         std::to_string(s.graph_dispatch) +
             " oneDNN Graph pattern-matcher lines (graph,create:dispatch): the fusion passes "
             "that did not match; counted, not listed");
  }
  if (s.diagnostics > 0) {
    note(Severity::kInfo, codes::kDiagnostics,
         std::to_string(s.diagnostics) +
             " diagnostic lines (dispatch reasons, checks, errors): see the diagnostics table");
  }
  return notes;
}

}  // namespace

Summary Aggregator::Summarize(const LogHeader& header, const RunContext& context) const {
  Summary s = Totals(rows_);
  s.diagnostics = diagnostic_events_;
  s.graph_dispatch = graph_dispatch_events_;
  s.other_events = other_events_;
  s.notes = Notes(s, rows_, header, context, diagnostics_);
  return s;
}

}  // namespace dlcheck::verbose
