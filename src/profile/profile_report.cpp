// SPDX-License-Identifier: Apache-2.0
#include "profile/profile_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <utility>

#include "common/finding_codes.h"
#include "common/text.h"
#include "report/primitive_columns.h"
#include "report/printer.h"
#include "verbose/rules.h"

namespace dlcheck::profile {
namespace {

using report::Value;
using namespace profile_field;

constexpr std::array kClassColumns = {kClass, kSamples, kPct, kDescription};
constexpr std::array kKernelColumns = {kKernel,  kPrimitive, kImplementations,
                                       kSamples, kPct,       kPctOfJit};
constexpr std::array kByPrimitiveColumns = {kPrimitive,  kImplementations, kJitSamples,
                                            kSampledPct, kVerboseExecMs,   kVerbosePct};
constexpr std::array kOperatorColumns = {kOperator,      kSamples,     kPct,     kJitSamples,
                                         kOnednnSamples, kBlasSamples, kBeneath, kPrimitives};
constexpr std::array kOffCpuColumns = {kState, kSeconds, kPct, kSwitches, kWait, kStack};
constexpr std::array kBlasColumns = {kLibrary, kBlas, kSamples, kPct};

double Pct(double part, double whole) {
  return whole > 0 ? 100.0 * part / whole : 0.0;
}
double Pct(std::uint64_t part, std::uint64_t whole) {
  return Pct(static_cast<double>(part), static_cast<double>(whole));
}

void AddClassesTable(report::Report& report, const Profile& p) {
  report::Table& t = report.AddTable(kClassesTable, kClassColumns);
  for (CpuClass cls : kCpuClasses) {
    const std::uint64_t n = p.class_samples[static_cast<std::size_t>(cls)];
    t.AddRow()
        .Set(kClass, std::string(ClassName(cls)))
        .Set(kSamples, n)
        .Set(kPct, Value(Pct(n, p.samples), 1))
        .Set(kDescription, std::string(ClassDescription(cls)));
  }
  report.charts.push_back({.title = "CPU time by class (share of the samples)",
                           .table = std::string(kClassesTable.name),
                           .label = report::Names({kClass}),
                           .value = std::string(kPct.name),
                           .unit = "%"});
}

struct KernelRow {
  std::string kernel;
  std::string primitive;
  std::uint64_t samples = 0;
};

std::vector<KernelRow> KernelRows(const Profile& p,
                                  const std::vector<verbose::PrimitiveStats>& rows) {
  std::vector<KernelRow> kernels;
  for (const auto& [kernel, samples] : p.kernel_samples) {
    kernels.push_back({kernel, AttributeKernel(kernel, rows), samples});
  }
  std::stable_sort(kernels.begin(), kernels.end(),
                   [](const KernelRow& a, const KernelRow& b) { return a.samples > b.samples; });
  return kernels;
}

void AddKernelsTable(report::Report& report, const std::vector<KernelRow>& kernels,
                     const Profile& p, const std::vector<verbose::PrimitiveStats>& rows,
                     std::size_t top) {
  report::Table& t = report.AddTable(kKernelsTable, kKernelColumns);
  t.answer_columns = report::Names({kSamples, kPct});
  const std::uint64_t jit = p.class_samples[static_cast<std::size_t>(CpuClass::kJit)];
  for (const KernelRow& k : kernels) {
    if (top > 0 && t.rows.size() == top) break;
    const std::string impls = ImplementationsOf(k.primitive, rows);
    t.AddRow()
        .Set(kKernel, k.kernel)
        .Set(kPrimitive, k.primitive.empty() ? Value() : Value(k.primitive))
        .Set(kImplementations, impls.empty() ? Value() : Value(impls))
        .Set(kSamples, k.samples)
        .Set(kPct, Value(Pct(k.samples, p.samples), 1))
        .Set(kPctOfJit, Value(Pct(k.samples, jit), 1));
  }
}

void AddByPrimitiveTable(report::Report& report, const std::vector<KernelRow>& kernels,
                         const Profile& p, const std::vector<verbose::PrimitiveStats>& rows) {
  std::map<std::string, std::uint64_t> samples;
  std::map<std::string, double> exec_ms;
  double total_ms = 0;
  for (const KernelRow& k : kernels) samples[k.primitive] += k.samples;
  for (const auto& r : rows) {
    exec_ms[r.primitive] += r.exec_ms_total;
    samples.try_emplace(r.primitive, 0);
    total_ms += r.exec_ms_total;
  }
  report::Table& t = report.AddTable(kByPrimitiveTable, kByPrimitiveColumns);
  t.answer_columns = report::Names({kSampledPct, kVerbosePct});
  for (const auto& [primitive, n] : samples) {
    const auto ms = exec_ms.find(primitive);
    const std::string impls = ImplementationsOf(primitive, rows);
    const bool logged = ms != exec_ms.end();
    t.AddRow()
        .Set(kPrimitive, primitive.empty() ? Value("(unattributed)") : Value(primitive))
        .Set(kImplementations, impls.empty() ? Value() : Value(impls))
        .Set(kJitSamples, n)
        .Set(kSampledPct, Value(Pct(n, p.samples), 1))
        .Set(kVerboseExecMs, logged ? Value(ms->second, 3) : Value())
        .Set(kVerbosePct, logged ? Value(Pct(ms->second, total_ms), 1) : Value());
  }
}

std::uint64_t ClassCount(const std::array<std::uint64_t, kCpuClassCount>& counts, CpuClass cls) {
  return counts[static_cast<std::size_t>(cls)];
}

// "jit_avx512_common_conv_bwd_weights_kernel_f32 99, jit_uni_reorder_kernel_f32 4": the names
// counted, most samples first (ties by name), the first `shown` of them and how many more there
// are.
std::string MostSampled(const std::map<std::string, std::uint64_t>& counts, std::size_t shown) {
  std::vector<std::pair<std::string, std::uint64_t>> named(counts.begin(), counts.end());
  std::stable_sort(named.begin(), named.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  std::string text;
  for (std::size_t i = 0; i < named.size() && i < shown; ++i) {
    if (!text.empty()) text += ", ";
    text += fmt::format("{} {}", named[i].first, named[i].second);
  }
  if (named.size() > shown) text += fmt::format(", {} more", named.size() - shown);
  return text;
}

void AddOperatorsTable(report::Report& report, const Profile& p, std::size_t top) {
  std::vector<std::pair<std::string, OperatorSamples>> ops(p.operators.begin(), p.operators.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) {
    return a.second.samples > b.second.samples;
  });
  report::Table& t = report.AddTable(kOperatorsTable, kOperatorColumns);
  t.answer_columns = report::Names({kSamples, kPct});
  for (const auto& [op, o] : ops) {
    if (top > 0 && t.rows.size() == top) break;
    t.AddRow()
        .Set(kOperator, op)
        .Set(kSamples, o.samples)
        .Set(kPct, Value(Pct(o.samples, p.samples), 1))
        .Set(kJitSamples, ClassCount(o.class_samples, CpuClass::kJit))
        .Set(kOnednnSamples, ClassCount(o.class_samples, CpuClass::kOneDnn))
        .Set(kBlasSamples, ClassCount(o.class_samples, CpuClass::kBlas))
        .Set(kBeneath, MostSampled(o.beneath, kBeneathLeaves))
        .Set(kPrimitives, MostSampled(o.executions, kOperatorPrimitives));
  }
}

// The entries of `by_key` (each value with its `seconds`), the most seconds first.
template <typename Map>
std::vector<std::pair<typename Map::key_type, typename Map::mapped_type>> MostSecondsFirst(
    const Map& by_key) {
  std::vector<std::pair<typename Map::key_type, typename Map::mapped_type>> rows(by_key.begin(),
                                                                                 by_key.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a.second.seconds > b.second.seconds;
  });
  return rows;
}

// The off-CPU stacks merged by (state, wait) for the human table, the most time first: one row
// per place the program waited, with how many stacks led there.
void AddOffCpuByWaitView(report::Report& report, const Profile& p, std::size_t top, double total) {
  struct Merged {
    double seconds = 0;
    std::uint64_t switches = 0;
    std::uint64_t stacks = 0;
  };
  std::map<std::pair<std::string, std::string>, Merged> by_wait;
  for (const auto& [key, s] : p.off_cpu) {
    Merged& m = by_wait[{key.first, s.wait}];
    m.seconds += s.seconds;
    m.switches += s.switches;
    ++m.stacks;
  }
  const auto rows = MostSecondsFirst(by_wait);
  report::Table& t =
      report.AddView(std::string(kOffCpuByWaitView.name),
                     report::Names({kState, kSeconds, kPct, kSwitches, kStacks, kWait}),
                     std::string(kOffCpuByWaitView.title));
  t.only_in_table = true;
  t.answer_columns = report::Names({kSeconds, kPct});
  t.caption =
      "stacks alike in state and wait are one row (stacks: how many); JSON and CSV "
      "have each stack in the off_cpu table";
  for (const auto& [key, m] : rows) {
    if (top > 0 && t.rows.size() == top) break;
    t.AddRow()
        .Set(kState, key.first)
        .Set(kSeconds, Value(m.seconds, 4))
        .Set(kPct, Value(Pct(m.seconds, total), 1))
        .Set(kSwitches, m.switches)
        .Set(kStacks, m.stacks)
        .Set(kWait, key.second);
  }
}

void AddOffCpuTable(report::Report& report, const Profile& p, std::size_t top) {
  const auto stacks = MostSecondsFirst(p.off_cpu);
  const double total = OffCpuSeconds(p);
  report::Table& t = report.AddTable(kOffCpuTable, kOffCpuColumns);
  t.omit_in_table = true;  // the human table reads off_cpu_by_wait
  t.answer_columns = report::Names({kSeconds, kPct});
  for (const auto& [key, s] : stacks) {
    if (top > 0 && t.rows.size() == top) break;
    t.AddRow()
        .Set(kState, key.first)
        .Set(kSeconds, Value(s.seconds, 4))
        .Set(kPct, Value(Pct(s.seconds, total), 1))
        .Set(kSwitches, s.switches)
        .Set(kWait, s.wait)
        .Set(kStack, key.second);
  }
}

// Python's perf trampolines (3.12+, -X perf) name each Python function as "py::<function>:<file>";
// without them only the evaluation loop shows.
bool HasUnnamedPythonFrames(const Profile& p) {
  bool interpreter = false;
  for (const auto& [stack, n] : p.folded) {
    if (stack.find(";py::") != std::string::npos) return false;
    if (stack.find(";_PyEval_EvalFrameDefault") != std::string::npos) interpreter = true;
  }
  return interpreter;
}

// Why no sample was joined to a oneDNN execution by time; empty when some were, or when the run
// has no oneDNN or framework work to join.
std::string NoExecJoinReason(const Profile& p) {
  if (p.exec_joined_samples > 0) return {};
  const std::uint64_t onednn =
      ClassCount(p.class_samples, CpuClass::kJit) + ClassCount(p.class_samples, CpuClass::kOneDnn);
  if (onednn == 0) return {};
  if (p.exec_spans == 0) {
    return "verbose timed no execution with a timestamp (oneDNN before 2.1 prints none, and a "
           "program that sets ONEDNN_VERBOSE_TIMESTAMP=0 or its own verbose mode has none)";
  }
  return "no sample fell in a timed execution (perf's clock is not the wall clock oneDNN "
         "stamps its executions with, or verbose was off while the samples were taken)";
}

struct BlasRow {
  std::string library;  ///< the file, Debian's alternatives resolved
  std::string blas;
  std::uint64_t samples = 0;
};

// The BLAS samples by library file: the file perf named with its symlinks resolved (a
// libblas.so.3 that is still the alternative's link names what it stands for), most first.
std::vector<BlasRow> BlasRows(const Profile& p) {
  std::map<std::pair<std::string, std::string>, std::uint64_t> merged;
  for (const auto& [key, samples] : p.blas_samples) {
    std::error_code error;
    const std::filesystem::path resolved = std::filesystem::canonical(key.first, error);
    const std::string library = error ? key.first : resolved.string();
    std::string blas(BlasImplementation(library, ""));
    if (blas.empty()) blas = key.second;
    merged[{library, blas}] += samples;
  }
  std::vector<BlasRow> rows;
  for (const auto& [key, samples] : merged) rows.push_back({key.first, key.second, samples});
  std::stable_sort(rows.begin(), rows.end(),
                   [](const BlasRow& a, const BlasRow& b) { return a.samples > b.samples; });
  return rows;
}

void AddBlasTable(report::Report& report, const std::vector<BlasRow>& blas, const Profile& p) {
  report::Table& t = report.AddTable(kBlasTable, kBlasColumns);
  for (const BlasRow& r : blas) {
    t.AddRow()
        .Set(kLibrary, r.library)
        .Set(kBlas, r.blas.empty() ? Value() : Value(r.blas))
        .Set(kSamples, r.samples)
        .Set(kPct, Value(Pct(r.samples, p.samples), 1));
  }
}

void AddReferenceBlasFinding(report::Report& report, const std::vector<BlasRow>& blas,
                             const Profile& p) {
  std::uint64_t reference = 0;
  std::string library;
  for (const BlasRow& r : blas) {
    if (r.blas != kReferenceBlas) continue;
    reference += r.samples;
    if (library.empty()) library = r.library;
  }
  const double pct = Pct(reference, p.samples);
  if (reference == 0 || pct < kReferenceBlasFindingPct) return;
  report.AddFinding(
      report::Severity::kWarning, codes::kReferenceBlas,
      fmt::format("{:.0f} % of CPU time in the reference BLAS ({}), Debian's unoptimised "
                  "libblas.so.3: install {} (apt-get install {}), which takes libblas.so.3 "
                  "over through the alternatives system for every program linked with it, "
                  "with kernels for this CPU and threads",
                  pct, library, kOptimizedBlasPackage, kOptimizedBlasPackage));
}

void AddFindings(report::Report& report, const Profile& p, const ProfileReportOptions& o) {
  const double omp = Pct(p.class_samples[static_cast<std::size_t>(CpuClass::kOpenMp)], p.samples);
  if (omp >= kOpenMpFindingPct) {
    report.AddFinding(
        report::Severity::kWarning, codes::kOpenmpShare,
        fmt::format("{:.0f} % of CPU time in the OpenMP runtime: more threads than this work can "
                    "use; `dlcheck dispatch --thread-sets 1,all` compares one thread with all "
                    "(then profile again with --threads N)",
                    omp));
  }
  const std::uint64_t onednn = p.class_samples[static_cast<std::size_t>(CpuClass::kOneDnn)];
  if (p.kernel_samples.empty() && onednn > 0) {
    report.AddFinding(report::Severity::kWarning, codes::kNoJitNames,
                      "no sample fell in a named JIT kernel although oneDNN ran: its perf map "
                      "(/tmp/perf-<pid>.map) was not written (oneDNN built without "
                      "ONEDNN_ENABLE_JIT_PROFILING, or the program sets its own profiling "
                      "flags), or oneDNN ran no JIT code");
  }
  if (HasUnnamedPythonFrames(p)) {
    report.AddFinding(report::Severity::kInfo, codes::kNoPythonFrames,
                      "the Python interpreter's frames are not named by Python function "
                      "(_PyEval_EvalFrameDefault): only Python 3.12 and later tell perf their "
                      "functions (python3 -X perf, or PYTHONPERFSUPPORT=1); Debian 12's Python "
                      "3.11 cannot, so the stacks go from the interpreter straight to the "
                      "framework's operators");
  }
  if (!p.stack_scan_error.empty()) {
    report.AddFinding(report::Severity::kInfo, codes::kNoStackScan,
                      "the callers of JIT kernels were not recovered (perf.data could not be "
                      "scanned: " +
                          p.stack_scan_error + "): JIT samples name no operator");
  }
  if (!p.stack_scan_bounds.empty()) {
    report.AddFinding(report::Severity::kInfo, codes::kStackScanBounded,
                      "the stack scan reached its bounds and left part of the recording out (" +
                          Join(p.stack_scan_bounds, "; ") +
                          "): some JIT samples name fewer callers than they had");
  }
  if (const std::string why = NoExecJoinReason(p); !why.empty()) {
    report.AddFinding(report::Severity::kInfo, codes::kNoExecJoin,
                      "the operators table's `primitives` column is empty: " + why);
  }
  if (!o.off_cpu_reason.empty()) {
    report.AddFinding(report::Severity::kInfo, codes::kNoOffCpu,
                      "off-CPU time was not recorded: " + o.off_cpu_reason);
  }
}

}  // namespace

const report::contract::Document& ProfileDocument() {
  static const report::contract::Document kProfile = [] {
    namespace contract = report::contract;
    return contract::Document{
        "profile",
        "where the CPU time goes: classes, JIT kernels by primitive, off-CPU time",
        {contract::Object(kProfileSection, {kCommand,
                                            kEnded,
                                            kEvent,
                                            kFrequencyHz,
                                            kCallGraph,
                                            kSamples,
                                            kDurationS,
                                            kProcesses,
                                            kThreads,
                                            kJitKernels,
                                            kOperatorAttributedPct,
                                            kScannedSamples,
                                            kTimedExecutions,
                                            kExecJoinedSamples,
                                            kSamplesPerS,
                                            kTimedS,
                                            kVerboseLines,
                                            kVerboseExecMs,
                                            kOffCpuRecorded,
                                            kOffCpuS,
                                            kBlockedS,
                                            kPreemptedS,
                                            kPerfData,
                                            kVerdict,
                                            kInstructionMix,
                                            kReadS,
                                            kDecodeS,
                                            kThreadsFrom,
                                            kLoadStart,
                                            kLoadEnd}),
         contract::Rows(kClassesTable, contract::Members(kClassColumns)),
         contract::Rows(kKernelsTable, contract::Members(kKernelColumns)),
         contract::Rows(kByPrimitiveTable, contract::Members(kByPrimitiveColumns)),
         contract::Rows(kOperatorsTable, contract::Members(kOperatorColumns)),
         contract::Rows(kOffCpuTable, contract::Members(kOffCpuColumns)),
         contract::Rows(kBlasTable, contract::Members(kBlasColumns)),
         contract::Rows(kInstructionMixTable, contract::Members(InstructionMixColumns())),
         contract::Rows(kInstructionMixFunctionsTable,
                        contract::Members(InstructionMixFunctionColumns())),
         report::PrimitivesMember()},
        std::string(kKernelsTable.name)};
  }();
  return kProfile;
}

std::string AttributeKernel(const std::string& kernel,
                            const std::vector<verbose::PrimitiveStats>& rows) {
  const KernelOwner owner = OwnerOfKernel(kernel);
  if (owner.implementation == "barrier") return std::string(kSpinBarrier);
  if (!owner.primitive.empty()) {
    // The name says "softmax"; verbose may say "softmax_v2" (oneDNN 2.x's second version).
    for (const auto& r : rows) {
      if (r.primitive.starts_with(owner.primitive + "_v")) return r.primitive;
    }
    return owner.primitive;
  }
  if (owner.implementation.empty()) return {};
  std::set<std::string> kinds;
  for (const auto& r : rows) {
    // "gemm" must not take brgemm's rows: the family is the implementation's first word.
    const std::string& impl = r.implementation;
    const bool brgemm = impl.find("brg") != std::string::npos;
    const bool gemm = !brgemm && impl.find("gemm") != std::string::npos;
    if ((owner.implementation == "brgemm" && brgemm) || (owner.implementation == "gemm" && gemm)) {
      if (!verbose::IsReorder(r.primitive)) kinds.insert(r.primitive);
    }
  }
  return Join(kinds, "+");
}

std::string ImplementationsOf(const std::string& primitive,
                              const std::vector<verbose::PrimitiveStats>& rows) {
  std::set<std::string> impls;
  for (const auto& r : rows) {
    const bool match = r.primitive == primitive ||
                       ("+" + primitive + "+").find("+" + r.primitive + "+") != std::string::npos;
    if (match && !r.implementation.empty()) impls.insert(r.implementation);
  }
  return Join(impls, " ");
}

std::optional<double> OperatorAttributedPct(const Profile& profile) {
  std::uint64_t all = 0;
  std::uint64_t attributed = 0;
  for (const auto& [op, o] : profile.operators) {
    const std::uint64_t n =
        ClassCount(o.class_samples, CpuClass::kJit) + ClassCount(o.class_samples, CpuClass::kBlas);
    all += n;
    if (op != kNoOperator) attributed += n;
  }
  if (all == 0) return std::nullopt;
  return Pct(attributed, all);
}

namespace {

std::string_view ClassShortName(CpuClass cls) {
  static constexpr std::array<std::string_view, kCpuClassCount> kNames = {
      "oneDNN JIT kernels", "oneDNN code that is not JIT",
      "a BLAS library",     "the OpenMP runtime",
      "the framework",      "the OS kernel",
      "other code"};
  return kNames[static_cast<std::size_t>(cls)];
}

// What the largest class's time went to: its top kernel (jit), its top BLAS (blas); "" else.
std::string VerdictDetail(CpuClass top, const Profile& p,
                          const std::vector<verbose::PrimitiveStats>& rows) {
  const std::uint64_t in_class = p.class_samples[static_cast<std::size_t>(top)];
  if (top == CpuClass::kJit) {
    const std::vector<KernelRow> kernels = KernelRows(p, rows);
    if (kernels.empty()) return {};
    const KernelRow& k = kernels.front();
    return fmt::format(", {:.0f} % of them {}{}", Pct(k.samples, in_class), k.kernel,
                       k.primitive.empty() ? "" : " (" + k.primitive + ")");
  }
  if (top == CpuClass::kBlas) {
    const std::vector<BlasRow> blas = BlasRows(p);
    if (blas.empty() || blas.front().blas.empty()) return {};
    return fmt::format(
        ", {:.0f} % of it {}", Pct(blas.front().samples, in_class),
        blas.front().blas == kReferenceBlas ? "the reference BLAS" : blas.front().blas);
  }
  return {};
}

}  // namespace

std::string ProfileVerdict(const Profile& p, const std::vector<verbose::PrimitiveStats>& rows) {
  if (p.samples == 0) return {};
  CpuClass top = CpuClass::kJit;
  for (CpuClass cls : kCpuClasses) {
    if (p.class_samples[static_cast<std::size_t>(cls)] >
        p.class_samples[static_cast<std::size_t>(top)]) {
      top = cls;
    }
  }
  return fmt::format("{:.0f} % in {}{}",
                     Pct(p.class_samples[static_cast<std::size_t>(top)], p.samples),
                     ClassShortName(top), VerdictDetail(top, p, rows));
}

double OffCpuSeconds(const Profile& profile, const std::vector<std::string>& states) {
  double seconds = 0;
  for (const auto& [key, s] : profile.off_cpu) {
    if (states.empty() || std::find(states.begin(), states.end(), key.first) != states.end()) {
      seconds += s.seconds;
    }
  }
  return seconds;
}

void AddProfileTables(report::Report& report, const Profile& profile,
                      const std::vector<verbose::PrimitiveStats>& rows,
                      const ProfileReportOptions& options) {
  AddClassesTable(report, profile);
  const std::vector<KernelRow> kernels = KernelRows(profile, rows);
  AddKernelsTable(report, kernels, profile, rows, options.top);
  AddByPrimitiveTable(report, kernels, profile, rows);
  AddOperatorsTable(report, profile, options.top);
  if (options.off_cpu_reason.empty()) {
    AddOffCpuTable(report, profile, options.top);
    AddOffCpuByWaitView(report, profile, options.top, OffCpuSeconds(profile));
  }
  const std::vector<BlasRow> blas = BlasRows(profile);
  AddBlasTable(report, blas, profile);
  AddInstructionMixTables(report, profile, options.top);
  AddFindings(report, profile, options);
  AddReferenceBlasFinding(report, blas, profile);
}

void AddStacksTable(report::Report& report, const Profile& profile, std::string title,
                    std::string caption) {
  report::Table& t = report.AddView(std::string(report::kStacksTable),
                                    report::Names({kStack, kSamples}), std::move(title));
  t.caption = std::move(caption);
  t.format_input = true;
  for (const auto& [stack, samples] : profile.folded) {
    t.AddRow().Set(kStack, stack).Set(kSamples, samples);
  }
}

std::string ProfileVerdict(const Profile& profile) {
  if (profile.samples == 0) return "no on-CPU sample";
  const auto pct = [&](CpuClass cls) {
    return 100.0 * static_cast<double>(profile.class_samples[static_cast<std::size_t>(cls)]) /
           static_cast<double>(profile.samples);
  };
  CpuClass top = CpuClass::kJit;
  for (const CpuClass cls : kCpuClasses) {
    if (pct(cls) > pct(top)) top = cls;
  }
  return fmt::format(
      "{} {} samples: {:.1f} % in oneDNN JIT kernels, {:.1f} % other oneDNN code; "
      "the most in {} ({:.1f} %)",
      profile.samples, profile.event, pct(CpuClass::kJit), pct(CpuClass::kOneDnn),
      ClassDescription(top), pct(top));
}

}  // namespace dlcheck::profile
