#pragma once
// The sections a verbose log's reading gives besides its rows: `input` (files, lines, skips by
// reason), `header` (what the info lines said), `headers` (each input's own, when several) and
// `summary` (totals, shares, notes) with the `diagnostics` table. Used by parse, run and verbose.

#include <string>
#include <utility>
#include <vector>

#include "report/report.h"
#include "verbose/aggregate.h"
#include "verbose/line_parser.h"
#include "verbose/log_session.h"

namespace dlcheck::cli {

/// The `input` section: files (when given), lines, events, skipped lines by reason.
void AddInputSection(report::Report& report, const std::vector<std::string>& files,
                     const verbose::ParseStats& stats);
/// The `header` section: what the log's info lines said (version, runtime, threads, ISA).
void AddHeaderSection(report::Report& report, const verbose::LogHeader& header);
/// The `summary` section, the `diagnostics` table and the findings.
void AddSummary(report::Report& report, const verbose::Summary& summary,
                const std::vector<verbose::DiagnosticStats>& diagnostics);
/// The `headers` table: each input's own header, when there are several (the header section
/// merges them: the first input that names a field wins).
void AddInputHeaders(report::Report& report,
                     const std::vector<std::pair<std::string, verbose::LogHeader>>& headers);
/// All of these for a whole log session: AddInputSection, AddHeaderSection, AddInputHeaders,
/// AddSummary.
void AddLogSummary(report::Report& report, const std::vector<std::string>& files,
                   const verbose::LogSession& session, const verbose::Summary& summary);

}  // namespace dlcheck::cli
