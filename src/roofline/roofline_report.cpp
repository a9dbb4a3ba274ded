// SPDX-License-Identifier: Apache-2.0
#include "roofline/roofline_report.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/finding_codes.h"
#include "detect/machine_profile_fields.h"

namespace dlcheck::roofline {
namespace {

using report::Value;

constexpr int kGbpsDecimals = 1;

Value Number(const std::optional<double>& value, int decimals = kGbpsDecimals) {
  return value ? Value(*value, decimals) : Value();
}

Value Kib(std::int64_t bytes) {
  return bytes > 0 ? Value(bytes / 1024) : Value();
}

void AddSummary(const MachineProfile& p, const ProfileOrigin& origin, report::Report& r) {
  using namespace roofline_field;
  r.AddSection(kRooflineSection)
      .Add(kCpuKey, p.cpu_key)
      .Add(kBrand, p.brand)
      .Add(kMicroarchitecture, p.microarchitecture)
      .Add(kMeasuredAt, p.measured_at)
      .Add(kQuick, p.quick)
      .Add(kUsableCpus, p.usable_cpus)
      .Add(kCpuBudget, p.cpu_budget)
      .Add(kLoadStart, Number(p.load_start, 2))
      .Add(kLoadEnd, Number(p.load_end, 2))
      .Add(kSeconds, Value(p.seconds, 1))
      .Add(kVector, p.vector.empty() ? Value() : Value(p.vector))
      .Add(kMemoryGbps, Value(p.MemoryGbps(), kGbpsDecimals))
      .Add(kProfile, origin.path.empty() ? Value() : Value(origin.path))
      .Add(kStored, origin.stored)
      .Add(kInterruptedBy, origin.interrupted_by.empty() ? Value() : Value(origin.interrupted_by));
}

void AddTables(const MachineProfile& p, report::Report& r) {
  report::Table& plateaus = r.AddTable(kPlateausTable, kPlateauColumns);
  for (const Plateau& l : p.plateaus) {
    plateaus.AddRow()
        .Set(rf::kLevel, l.level)
        .Set(rf::kCacheKib, Kib(l.cache_bytes))
        .Set(rf::kFromKib, Kib(l.from_bytes))
        .Set(rf::kToKib, Kib(l.to_bytes))
        .Set(rf::kReadGbps, Number(l.read_gbps))
        .Set(rf::kCopyGbps, Number(l.copy_gbps))
        .Set(rf::kTriadGbps, Number(l.triad_gbps));
  }
  report::Table& threads = r.AddTable(kThreadsTable, kThreadColumns);
  for (const ThreadBandwidth& t : p.threads) {
    threads.AddRow()
        .Set(rf::kThreads, t.threads)
        .Set(rf::kCpus, t.cpus)
        .Set(rf::kReadGbps, Value(t.read_gbps, kGbpsDecimals))
        .Set(rf::kCopyGbps, Value(t.copy_gbps, kGbpsDecimals))
        .Set(rf::kTriadGbps, Value(t.triad_gbps, kGbpsDecimals))
        .Set(rf::kTriadNtGbps, Value(t.triad_nt_gbps, kGbpsDecimals));
  }
  report::Table& peaks = r.AddTable(kPeaksTable, kPeakColumns);
  for (const ComputePeak& c : p.peaks) {
    peaks.AddRow()
        .Set(rf::kDtype, c.dtype)
        .Set(rf::kUnit, c.unit)
        .Set(rf::kInstruction, c.instruction)
        .Set(rf::kThreads, c.threads)
        .Set(rf::kGflops, Value(c.gflops, 1));
  }
  // One row per working set: the read point's size (read and copy use it exactly; the triad's
  // three arrays are rounded down to whole 256-byte steps).
  report::Table& sweep = r.AddTable(kSweepTable, kSweepColumns);
  for (const SweepPoint& s : p.sweep) {
    if (s.kernel != kRead) continue;
    std::optional<double> copy;
    std::optional<double> triad;
    const auto at =
        std::find_if(p.sweep.begin(), p.sweep.end(), [&](const SweepPoint& x) { return &x == &s; });
    for (auto it = at + 1; it != p.sweep.end() && it->kernel != kRead; ++it) {
      if (it->kernel == kCopy) copy = it->gbps;
      if (it->kernel == kTriad) triad = it->gbps;
    }
    sweep.AddRow()
        .Set(rf::kWorkingSetKib, Kib(s.working_set_bytes))
        .Set(rf::kReadGbps, Value(s.gbps, kGbpsDecimals))
        .Set(rf::kCopyGbps, Number(copy))
        .Set(rf::kTriadGbps, Number(triad));
  }
  report::Table& unmeasured = r.AddTable(kUnmeasuredTable, kUnmeasuredColumns);
  for (const Unmeasured& u : p.unmeasured) {
    unmeasured.AddRow().Set(rf::kWhat, u.what).Set(rf::kReason, u.reason);
  }
}

// A DRAM plateau that starts below the size of a cache the CPU reports (PlateausOf took it from
// where the bandwidth stopped falling): the cache this process is served is smaller than the
// one reported, as in a guest whose hypervisor reports the host's whole L3.
void AddDramBelowReportedCacheFinding(const MachineProfile& p, report::Report& r) {
  if (p.plateaus.empty() || !p.plateaus.back().read_gbps) return;
  const Plateau& dram = p.plateaus.back();
  const Plateau* largest = nullptr;
  for (const Plateau& level : p.plateaus) {
    if (level.cache_bytes > 0 && (largest == nullptr || level.cache_bytes > largest->cache_bytes))
      largest = &level;
  }
  if (largest == nullptr || dram.from_bytes >= largest->cache_bytes) return;
  constexpr double kMiB = 1 << 20;
  r.AddFinding(
      report::Severity::kInfo, codes::kDramBelowReportedCache,
      fmt::format("one thread's read bandwidth stopped falling at {:.0f} MiB ({:.1f} GB/s from "
                  "there to {:.0f} MiB), below the {:.0f} MiB {} the CPU reports: the DRAM "
                  "plateau is those points, and the {} serving this process is smaller than "
                  "reported (a hypervisor may report its host's whole cache)",
                  static_cast<double>(dram.from_bytes) / kMiB, *dram.read_gbps,
                  static_cast<double>(dram.to_bytes) / kMiB,
                  static_cast<double>(largest->cache_bytes) / kMiB, largest->level,
                  largest->level));
}

void AddFindings(const MachineProfile& p, const ProfileOrigin& origin, report::Report& r) {
  if (!origin.interrupted_by.empty()) {
    r.AddFinding(report::Severity::kWarning, codes::kInterrupted,
                 origin.interrupted_by +
                     " stopped the measurements: the figures are partial and were not stored");
  }
  const double load = std::max(p.load_start.value_or(0), p.load_end.value_or(0));
  if (load >= 1.0) {
    r.AddFinding(report::Severity::kWarning, codes::kBusyMachine,
                 fmt::format("the 1-minute load average was {:.2f} at the start and {:.2f} at the "
                             "end: other work shared the CPUs, so the figures may be low; measure "
                             "again on an idle machine",
                             p.load_start.value_or(0), p.load_end.value_or(0)));
  }
  if (const std::optional<int> k = SaturationThreads(p.threads)) {
    const ThreadBandwidth& most = p.threads.back();
    r.AddFinding(report::Severity::kInfo, codes::kBandwidthSaturatedAt + std::to_string(*k),
                 fmt::format("DRAM bandwidth saturates at {} thread{} (within {:.0f}% of the most "
                             "measured; {} threads: {:.1f} GB/s): threads beyond {} add nothing "
                             "to a memory-bound row",
                             *k, *k == 1 ? "" : "s", 100 * kSaturated, most.threads,
                             std::max(most.read_gbps, most.triad_gbps), *k));
  }
  AddDramBelowReportedCacheFinding(p, r);
  if (origin.stored) {
    r.AddFinding(report::Severity::kInfo, codes::kProfileStored,
                 "stored as " + origin.path +
                     ": `parse --roofline` and `platform` read it without measuring again");
  }
}

std::string Verdict(const MachineProfile& p) {
  std::string verdict = p.brand.empty() ? std::string("this CPU") : p.brand;
  const int most = p.threads.empty() ? 0 : p.threads.back().threads;
  if (most > 0) {
    verdict += fmt::format(": DRAM {:.1f} GB/s at {} thread{}", p.MemoryGbps(), most,
                           most == 1 ? "" : "s");
  }
  for (const char* dtype : {"f32", "bf16", "f16", "int8"}) {
    if (const std::optional<ComputePeak> peak = p.BestPeak(dtype)) {
      verdict += fmt::format("; {} {:.0f} GFLOP/s ({})", dtype, peak->gflops, peak->unit);
    }
  }
  return verdict;
}

}  // namespace

const report::contract::Document& RooflineDocument() {
  static const report::contract::Document kRoofline = [] {
    using namespace roofline_field;
    namespace contract = report::contract;
    return contract::Document{
        "roofline",
        "the machine's limits: bandwidth by memory level and threads, the peak of each data type",
        {contract::Object(kRooflineSection,
                          {kCpuKey, kBrand, kMicroarchitecture, kMeasuredAt, kQuick, kUsableCpus,
                           kCpuBudget, kLoadStart, kLoadEnd, kSeconds, kVector, kMemoryGbps,
                           kProfile, kStored, kInterruptedBy}),
         contract::Rows(kPlateausTable, contract::Members(kPlateauColumns)),
         contract::Rows(kThreadsTable, contract::Members(kThreadColumns)),
         contract::Rows(kPeaksTable, contract::Members(kPeakColumns)),
         contract::Rows(kSweepTable, contract::Members(kSweepColumns)),
         contract::Rows(kUnmeasuredTable, contract::Members(kUnmeasuredColumns))},
        std::string(kThreadsTable.name)};
  }();
  return kRoofline;
}

void AddMachineProfileSection(const MachineProfile& profile, const std::string& path,
                              report::Report& report) {
  using namespace detect::machine_profile_field;
  report::Section& section = report.AddSection(detect::kMachineProfileSection);
  section.Add(kProfile, path)
      .Add(kMeasuredAt, profile.measured_at)
      .Add(kQuick, profile.quick)
      .Add(kMemoryGbps, Value(profile.MemoryGbps(), kGbpsDecimals));
  report::Section& peaks = section.AddSection(detect::kPeakGflopsSection);
  for (const char* dtype : {"f32", "bf16", "f16", "int8"}) {
    if (const std::optional<ComputePeak> peak = profile.BestPeak(dtype)) {
      peaks.AddEntry(dtype, Value(peak->gflops, 1));
    }
  }
}

report::Report RooflineReport(const MachineProfile& profile, const ProfileOrigin& origin) {
  report::Report r(RooflineDocument());
  AddSummary(profile, origin, r);
  AddTables(profile, r);
  AddFindings(profile, origin, r);
  r.charts.push_back({.kind = report::Chart::Kind::kBars,
                      .title = "DRAM triad GB/s by threads",
                      .table = std::string(kThreadsTable.name),
                      .label = {std::string(roofline_field::kThreads.name)},
                      .value = std::string(roofline_field::kTriadGbps.name),
                      .unit = "GB/s"});
  r.charts.push_back(
      {.kind = report::Chart::Kind::kBars,
       .title = "compute peaks, GFLOP/s",
       .table = std::string(kPeaksTable.name),
       .label = {std::string(roofline_field::kDtype.name), std::string(roofline_field::kUnit.name),
                 std::string(roofline_field::kThreads.name)},
       .value = std::string(roofline_field::kGflops.name),
       .unit = "GFLOP/s"});
  report::SetVerdict(r, Verdict(profile));
  return r;
}

}  // namespace dlcheck::roofline
