#include "cli/log_view.h"

#include <string>

#include "cli/stats_view.h"

namespace dlcheck::cli {
namespace {

using report::Value;

Value Text(std::string_view s) {
  if (s.empty()) return Value();
  return Value(ValidUtf8(s));
}

Value Ms(double ms) {
  return Value(ms, 4);
}

void AddShares(report::Section& section, std::string name, std::string first_column,
               std::string title, const std::vector<verbose::TimeShare>& shares) {
  report::Table& t = section.AddTable(
      std::move(name), {first_column, "rows", "execs", "exec_ms", "time_pct"}, std::move(title));
  for (const auto& s : shares) {
    t.rows.push_back({Text(s.name), s.rows, s.execs, Ms(s.exec_ms), Value(s.pct, 2)});
  }
}

}  // namespace

void AddLogSummary(report::Report& report, const std::vector<std::string>& files,
                   const verbose::LogSession& session, const verbose::Summary& summary) {
  AddInputSection(report, files, session.stats());
  AddHeaderSection(report, session.header());
  AddInputHeaders(report, session.input_headers());
  AddSummary(report, summary, session.aggregator().diagnostics());
}

void AddInputHeaders(report::Report& report,
                     const std::vector<std::pair<std::string, verbose::LogHeader>>& headers) {
  if (headers.size() < 2) return;  // one input: the header section is its header
  report::Table& t = report.AddTable(
      "headers", {"file", "library_version", "runtime", "threads", "isa", "isa_short"},
      "Log header of each input");
  for (const auto& [file, h] : headers) {
    t.rows.push_back({Text(file), Text(h.library_version), Text(h.runtime),
                      h.threads ? Value(*h.threads) : Value(), Text(h.isa), Text(h.isa_short)});
  }
}

void AddInputSection(report::Report& report, const std::vector<std::string>& files,
                     const verbose::ParseStats& stats) {
  report::Section& input = report.AddSection("input", "Input");
  if (!files.empty()) {
    report::TextList names;
    for (const auto& f : files) names.push_back(ValidUtf8(f));
    input.Add("files", Value(std::move(names)));
  }
  input.Add("lines", stats.lines);
  input.Add("events", stats.events);
  input.Add("info_lines", stats.info_lines);
  input.Add("skipped", stats.Skipped());
  report::Section& skipped = input.AddSection("skipped_by_reason", "Skipped lines by reason");
  for (const auto& [reason, count] : stats.skipped) {
    skipped.Add(std::string(verbose::SkipReasonName(reason)), count);
  }
}

void AddHeaderSection(report::Report& report, const verbose::LogHeader& header) {
  report::Section& h = report.AddSection("header", "Log header");
  h.Add("library_version", Text(header.library_version));
  h.Add("runtime", Text(header.runtime));
  h.Add("threads", header.threads ? Value(*header.threads) : Value());
  h.Add("isa", Text(header.isa));
  h.Add("isa_name", Text(header.isa_short));
}

void AddSummary(report::Report& report, const verbose::Summary& summary,
                const std::vector<verbose::DiagnosticStats>& diagnostics) {
  report::Section& s = report.AddSection("summary", "Summary");
  s.Add("rows", summary.rows);
  s.Add("creates", summary.creates);
  s.Add("cache_hits", summary.cache_hits);
  s.Add("cache_hit_rate", summary.cache_hit_rate ? Value(*summary.cache_hit_rate, 3) : Value());
  s.Add("create_ms", Ms(summary.create_ms));
  s.Add("nested_creates", summary.nested_creates);
  s.Add("nested_create_ms", Ms(summary.nested_create_ms));
  s.Add("execs", summary.execs);
  s.Add("exec_ms", Ms(summary.exec_ms));
  s.Add("reorder_exec_ms", Ms(summary.reorder_exec_ms));
  s.Add("reorder_pct", Value(summary.reorder_pct, 2));
  s.Add("first_exec_ms_mean",
        summary.first_execs ? Ms(summary.first_exec_ms / static_cast<double>(summary.first_execs))
                            : Value());
  s.Add("steady_exec_ms_mean", summary.steady_execs ? Ms(summary.steady_exec_ms /
                                                         static_cast<double>(summary.steady_execs))
                                                    : Value());
  s.Add("diagnostics", summary.diagnostics);
  s.Add("graph_pattern_matcher_lines", summary.graph_dispatch);
  AddShares(s, "by_kind", "primitive", "Execution time by primitive kind", summary.by_kind);
  AddShares(s, "by_fallback", "fallback", "Execution time by fallback class", summary.by_fallback);

  report::Table& d = report.AddTable(
      "diagnostics", {"operation", "primitive", "implementation", "message", "count", "first_line"},
      "Diagnostics");
  for (const auto& diag : diagnostics) {
    d.rows.push_back({Text(diag.operation), Text(diag.primitive), Text(diag.implementation),
                      Text(diag.message), diag.count, diag.first_line});
  }
  report.findings.insert(report.findings.end(), summary.notes.begin(), summary.notes.end());
}

}  // namespace dlcheck::cli
