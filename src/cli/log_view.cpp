// SPDX-License-Identifier: Apache-2.0
#include "cli/log_view.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "cli/stats_view.h"
#include "verbose/diagnostic_words.h"

namespace dlcheck::cli {

verbose::DtypeUnits DtypeUnitsOf(const detect::PlatformInfo& platform, std::string subject) {
  return verbose::DtypeUnitsOfFeatures(
      [&platform](std::string_view name) { return platform.FeatureAvailable(name); },
      std::move(subject));
}

namespace {

using report::Value;
using namespace log_field;
namespace contract = report::contract;

constexpr std::array kHeadersColumns = {kFile, kLibraryVersion, kRuntime, kThreads,
                                        kIsa,  kIsaShort};
constexpr std::array kDiagnosticsColumns = {kOperation, kPrimitive, kImplementation, kMessage,
                                            kMeaning,   kCount,     kFirstLine};
// A share of the execution time, by the table's first column (a kind or a fallback class).
std::array<report::Field, 5> ShareColumns(const report::Field& first) {
  return {first, kRows, kExecs, kExecMs, kTimePct};
}

Value Text(std::string_view s) {
  if (s.empty()) return Value();
  return Value(ValidUtf8(s));
}

Value Ms(double ms) {
  return Value(ms, 4);
}

void AddShares(report::Section& section, const report::Part& part, const report::Field& first,
               const std::vector<verbose::TimeShare>& shares) {
  report::Table& t = section.AddTable(part, ShareColumns(first));
  for (const auto& s : shares) {
    t.AddRow()
        .Set(first, Text(s.name))
        .Set(kRows, s.rows)
        .Set(kExecs, s.execs)
        .Set(kExecMs, Ms(s.exec_ms))
        .Set(kTimePct, Value(s.pct, 2));
  }
}

}  // namespace

contract::Member InputMember(bool with_files) {
  std::vector<contract::Member> members;
  if (with_files) members.emplace_back(kFiles);
  return contract::Object(
      kInputSection, contract::Joined(std::move(members),
                                      {kLines, kEvents, kInfoLines, kSkipped, kSkippedByReason}));
}

contract::Member HeaderMember() {
  return contract::Object(kHeaderSection,
                          {kLibraryVersion, kRuntime, kThreads, kIsa, kIsaName, kZendnnVersion});
}

contract::Member HeadersMember() {
  return contract::Rows(kHeadersTable, contract::Members(kHeadersColumns));
}

contract::Member SummaryMember() {
  return contract::Object(
      kSummarySection,
      {kRows, kCreates, kCacheHits, kCacheHitRate, kCreateMs, kNestedCreates, kNestedCreateMs,
       kExecs, kExecMs, kReorderExecMs, kReorderPct, kFirstExecMsMean, kSteadyExecMsMean,
       kDiagnostics, kGraphPatternMatcherLines,
       contract::Rows(kByKindTable, contract::Members(ShareColumns(kPrimitive))),
       contract::Rows(kByFallbackTable, contract::Members(ShareColumns(kFallback))),
       contract::Rows(kByLibraryTable, contract::Members(ShareColumns(kLibrary)))});
}

contract::Member DiagnosticsMember() {
  return contract::Rows(kDiagnosticsTable, contract::Members(kDiagnosticsColumns));
}

void AddLogSummary(report::Report& report, const std::vector<std::string>& files,
                   const verbose::LogSession& session, const verbose::Summary& summary) {
  AddInputSection(report, &files, session.stats());
  AddHeaderSection(report, session.header());
  AddInputHeaders(report, session.input_headers());
  AddSummary(report, summary, session.aggregator().diagnostics());
}

void AddInputHeaders(report::Report& report,
                     const std::vector<std::pair<std::string, verbose::LogHeader>>& headers) {
  if (headers.size() < 2) return;  // one input: the header section is its header
  report::Table& t = report.AddTable(kHeadersTable, kHeadersColumns);
  for (const auto& [file, h] : headers) {
    t.AddRow()
        .Set(kFile, Text(file))
        .Set(kLibraryVersion, Text(h.library_version))
        .Set(kRuntime, Text(h.runtime))
        .Set(kThreads, h.threads ? Value(*h.threads) : Value())
        .Set(kIsa, Text(h.isa))
        .Set(kIsaShort, Text(h.isa_short));
  }
}

void AddInputSection(report::Report& report, const std::vector<std::string>* files,
                     const verbose::ParseStats& stats) {
  report::Section& input = report.AddSection(kInputSection);
  if (files != nullptr) {
    report::TextList names;
    for (const auto& f : *files) names.push_back(ValidUtf8(f));
    input.Add(kFiles, names.empty() ? Value() : Value(std::move(names)));
  }
  input.Add(kLines, stats.lines);
  input.Add(kEvents, stats.events);
  input.Add(kInfoLines, stats.info_lines);
  input.Add(kSkipped, stats.Skipped());
  report::Section& skipped = input.AddSection(kSkippedByReasonSection);
  for (const auto& [reason, count] : stats.skipped) {
    skipped.AddEntry(std::string(verbose::SkipReasonName(reason)), count);
  }
}

void AddHeaderSection(report::Report& report, const verbose::LogHeader& header) {
  report::Section& h = report.AddSection(kHeaderSection);
  h.Add(kLibraryVersion, Text(header.library_version));
  h.Add(kRuntime, Text(header.runtime));
  h.Add(kThreads, header.threads ? Value(*header.threads) : Value());
  h.Add(kIsa, Text(header.isa));
  h.Add(kIsaName, Text(header.isa_short));
  h.Add(kZendnnVersion, Text(header.zendnn_version));
}

std::string PrimitivesVerdict(const verbose::Summary& summary) {
  if (summary.execs == 0 && summary.rows == 0) return "no oneDNN primitive ran";
  // The libraries whose rows these are: oneDNN's, ZenDNN's, or both in a mixed log.
  std::string libraries;
  // ONNX Runtime's rows are its graph's operators (a row per node), not oneDNN's primitives.
  bool only_operators = !summary.by_library.empty();
  for (const verbose::TimeShare& share : summary.by_library) {
    libraries += (libraries.empty() ? "" : " and ") + share.name;
    only_operators =
        only_operators && share.name == verbose::LibraryName(verbose::Library::kOnnxRuntime);
  }
  if (libraries.empty()) libraries = "oneDNN";
  return fmt::format("{} ran {} {}{}: {} execution{}, {:.1f} ms", libraries, summary.rows,
                     only_operators ? "operator" : "primitive", summary.rows == 1 ? "" : "s",
                     summary.execs, summary.execs == 1 ? "" : "s", summary.exec_ms);
}

void AddSummary(report::Report& report, const verbose::Summary& summary,
                const std::vector<verbose::DiagnosticStats>& diagnostics) {
  report::Section& s = report.AddSection(kSummarySection);
  s.Add(kRows, summary.rows);
  s.Add(kCreates, summary.creates);
  s.Add(kCacheHits, summary.cache_hits);
  s.Add(kCacheHitRate, summary.cache_hit_rate ? Value(*summary.cache_hit_rate, 3) : Value());
  s.Add(kCreateMs, Ms(summary.create_ms));
  s.Add(kNestedCreates, summary.nested_creates);
  s.Add(kNestedCreateMs, Ms(summary.nested_create_ms));
  s.Add(kExecs, summary.execs);
  s.Add(kExecMs, Ms(summary.exec_ms));
  s.Add(kReorderExecMs, Ms(summary.reorder_exec_ms));
  s.Add(kReorderPct, Value(summary.reorder_pct, 2));
  s.Add(kFirstExecMsMean, summary.first_execs
                              ? Ms(summary.first_exec_ms / static_cast<double>(summary.first_execs))
                              : Value());
  s.Add(kSteadyExecMsMean, summary.steady_execs ? Ms(summary.steady_exec_ms /
                                                     static_cast<double>(summary.steady_execs))
                                                : Value());
  s.Add(kDiagnostics, summary.diagnostics);
  s.Add(kGraphPatternMatcherLines, summary.graph_dispatch);
  AddShares(s, kByKindTable, kPrimitive, summary.by_kind);
  report.charts.push_back({.title = "oneDNN execution time by primitive kind",
                           .table = std::string(kByKindTable.name),
                           .label = report::Names({kPrimitive}),
                           .value = std::string(kExecMs.name),
                           .unit = "ms"});
  AddShares(s, kByFallbackTable, kFallback, summary.by_fallback);
  AddShares(s, kByLibraryTable, kLibrary, summary.by_library);

  report::Table& d = report.AddTable(kDiagnosticsTable, kDiagnosticsColumns);
  for (const auto& diag : diagnostics) {
    d.AddRow()
        .Set(kOperation, Text(diag.operation))
        .Set(kPrimitive, Text(diag.primitive))
        .Set(kImplementation, Text(diag.implementation))
        .Set(kMessage, Text(diag.message))
        .Set(kMeaning, Text(verbose::PlainWords(diag.operation, diag.message)))
        .Set(kCount, diag.count)
        .Set(kFirstLine, diag.first_line);
  }
  report.findings.insert(report.findings.end(), summary.notes.begin(), summary.notes.end());
}

}  // namespace dlcheck::cli
