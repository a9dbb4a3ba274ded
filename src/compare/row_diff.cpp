// SPDX-License-Identifier: Apache-2.0
#include "compare/row_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <unordered_map>

#include "common/finding_codes.h"
#include "verbose/verbose_event.h"

namespace dlcheck::compare {
namespace {

std::optional<double> MeanMs(const RunRow& row) {
  if (row.execs == 0) return std::nullopt;
  return row.exec_ms / static_cast<double>(row.execs);
}

double TotalMs(const RunRows& run) {
  double total = 0;
  for (const RunRow& row : run.rows) total += row.exec_ms;
  return total;
}

// Judges a row both runs have: the implementation, the class, the time.
void JudgeMatched(DiffRow& row, const RowDiff& diff) {
  const RunRow& a = *row.a;
  const RunRow& b = *row.b;
  row.change = a.implementation == b.implementation ? Change::kSame : Change::kImplementation;
  const std::optional<int> depth_a = FallbackDepthOf(a.fallback);
  const std::optional<int> depth_b = FallbackDepthOf(b.fallback);
  row.worse_class = depth_a && depth_b && *depth_b > *depth_a;
  const auto mean_a = MeanMs(a);
  const auto mean_b = MeanMs(b);
  // A ratio that is no finite number (a time near the double's end) is no ratio.
  if (mean_a && mean_b && *mean_a > 0 && std::isfinite(*mean_b / *mean_a)) {
    row.ratio = *mean_b / *mean_a;
  }
  const double share_a = diff.a_exec_ms > 0 ? 100 * a.exec_ms / diff.a_exec_ms : 0;
  const double share_b = diff.b_exec_ms > 0 ? 100 * b.exec_ms / diff.b_exec_ms : 0;
  const bool counts = std::max(share_a, share_b) >= diff.options.min_share_pct;
  const bool beyond = counts && row.ratio && *row.ratio > 1 + diff.options.threshold_pct / 100;
  // Slower on the mean, yet b's fastest execution is no slower than a's slowest: within noise.
  row.within_noise = beyond && a.exec_ms_max && b.exec_ms_min && *b.exec_ms_min <= *a.exec_ms_max;
  row.slower = beyond && !row.within_noise;
}

// Regressions first, then the rows whose time moved most.
// Regressions first, then by time moved, ties in their order: the order is sorted as row
// numbers (4 bytes a row) and applied in place, so the rows are never held twice.
void SortForReading(std::vector<DiffRow>& rows) {
  const auto moved = [](const DiffRow& row) {
    return std::fabs((row.b ? row.b->exec_ms : 0) - (row.a ? row.a->exec_ms : 0));
  };
  std::vector<std::uint32_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
    if (rows[x].Regressed() != rows[y].Regressed()) return rows[x].Regressed();
    return moved(rows[x]) > moved(rows[y]);
  });
  // Position i takes row order[i]: follow each cycle of the permutation once.
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (order[start] == start) continue;
    DiffRow held = std::move(rows[start]);
    std::size_t at = start;
    while (order[at] != start) {
      const std::size_t from = order[at];
      rows[at] = std::move(rows[from]);
      order[at] = static_cast<std::uint32_t>(at);
      at = from;
    }
    rows[at] = std::move(held);
    order[at] = static_cast<std::uint32_t>(at);
  }
}

std::string_view ChangeName(Change change) {
  switch (change) {
    case Change::kSame:
      return "same";
    case Change::kImplementation:
      return "implementation";
    case Change::kNew:
      return "new";
    case Change::kVanished:
      return "vanished";
  }
  return "same";
}

report::Value OptionalText(const std::optional<RunRow>& row, RunRow::Text RunRow::*field) {
  return row ? report::Value(((*row).*field).str()) : report::Value();
}

report::Value MeanCell(const std::optional<RunRow>& row) {
  if (!row) return {};
  const auto mean = MeanMs(*row);
  return mean ? report::Value(*mean, 4) : report::Value();
}

void SetDiffCells(report::RowSetter& cells, const DiffRow& row) {
  using namespace diff_field;
  const RunRow& any = row.a ? *row.a : *row.b;
  cells.Set(kPrimitive, any.primitive.str())
      .Set(kPropKind, any.prop_kind.str())
      .Set(kProblem, any.problem.str())
      .Set(kLayer, any.layer.empty() ? report::Value() : report::Value(any.layer.str()))
      .Set(kChange, std::string(ChangeName(row.change)))
      .Set(kRegressed, row.Regressed())
      .Set(kImplementationA, OptionalText(row.a, &RunRow::implementation))
      .Set(kImplementationB, OptionalText(row.b, &RunRow::implementation))
      .Set(kIsaA, OptionalText(row.a, &RunRow::isa))
      .Set(kIsaB, OptionalText(row.b, &RunRow::isa))
      .Set(kFallbackA, OptionalText(row.a, &RunRow::fallback))
      .Set(kFallbackB, OptionalText(row.b, &RunRow::fallback))
      .Set(kExecsA, row.a ? report::Value(row.a->execs) : report::Value())
      .Set(kExecsB, row.b ? report::Value(row.b->execs) : report::Value())
      .Set(kExecMsMeanA, MeanCell(row.a))
      .Set(kExecMsMeanB, MeanCell(row.b))
      .Set(kRatio, row.ratio ? report::Value(*row.ratio, 2) : report::Value());
}

struct Counts {
  std::uint64_t matched = 0, changed = 0, worse_class = 0, slower = 0, faster = 0, added = 0,
                vanished = 0, within_noise = 0;
};

Counts CountRows(const RowDiff& diff) {
  Counts counts;
  for (const DiffRow& row : diff.rows) {
    if (row.change == Change::kNew) ++counts.added;
    if (row.change == Change::kVanished) ++counts.vanished;
    if (row.a && row.b) ++counts.matched;
    if (row.change == Change::kImplementation) ++counts.changed;
    if (row.worse_class) ++counts.worse_class;
    if (row.slower) ++counts.slower;
    if (row.within_noise) ++counts.within_noise;
    if (row.ratio && *row.ratio < 1 - diff.options.threshold_pct / 100) ++counts.faster;
  }
  return counts;
}

std::string RowName(const RunRow& row) {
  std::string name = row.primitive + " " + row.prop_kind.str() + " " + row.problem.str();
  if (!row.layer.empty()) name += " (" + row.layer.str() + ")";
  return name;
}

// "oneDNN and ZenDNN"; "" for none.
std::string LibrariesText(const std::vector<std::string>& libraries) {
  std::string text;
  for (const std::string& library : libraries) text += (text.empty() ? "" : " and ") + library;
  return text;
}

report::Value LibrariesValue(const std::vector<std::string>& libraries) {
  return libraries.empty() ? report::Value() : report::Value(LibrariesText(libraries));
}

// Two runs of different engines (oneDNN against ZenDNN, or ONNX Runtime): rows still match by
// what they compute, as each engine names and shapes it.
void EnginesDiffer(report::Report& report, const RowDiff& diff) {
  std::vector<std::string> a = diff.a_libraries, b = diff.b_libraries;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a.empty() || b.empty() || a == b) return;
  report.AddFinding(
      Severity::kInfo, codes::kDiffEnginesDiffer,
      fmt::format("a ran {}, b ran {}: rows are matched by what they compute (engine, kind, data "
                  "types, attributes, shape) as each library prints it; an operator the two "
                  "name or shape differently is new in b and vanished from a",
                  LibrariesText(diff.a_libraries), LibrariesText(diff.b_libraries)));
}

void AddFindings(report::Report& report, const RowDiff& diff, const Counts& counts) {
  EnginesDiffer(report, diff);
  for (const auto& [name, count] : {std::pair{&diff.a_name, diff.a_rows_without_numbers},
                                    std::pair{&diff.b_name, diff.b_rows_without_numbers}}) {
    if (count == 0) continue;
    report.AddFinding(Severity::kWarning, codes::kDiffRowsWithoutNumbers,
                      fmt::format("{}: {} row(s) left out: their execs or exec_ms_total is no "
                                  "number >= 0 (a string, a negative, beyond a double)",
                                  *name, count));
  }
  for (const DiffRow& row : diff.rows) {
    if (row.worse_class) {
      report.AddFinding(Severity::kWarning, codes::kDiffWorseImplementation,
                        fmt::format("{}: {} ({}) became {} ({})", RowName(*row.a),
                                    row.a->implementation.view(), row.a->fallback.view(),
                                    row.b->implementation.view(), row.b->fallback.view()));
    }
  }
  if (counts.within_noise > 0) {
    report.AddFinding(
        Severity::kInfo, codes::kDiffWithinNoise,
        fmt::format("{} row(s) more than {:g} % slower on the mean, but b's fastest execution is "
                    "no slower than a's slowest (their per-execution ranges overlap): within "
                    "noise, not regressions",
                    counts.within_noise, diff.options.threshold_pct));
  }
  if (diff.regressions == 0) {
    report.AddFinding(Severity::kInfo, codes::kDiffNoRegression,
                      fmt::format("no row regressed: none got a worse implementation class and "
                                  "none is more than {:g} % slower",
                                  diff.options.threshold_pct));
  } else if (counts.slower > 0) {
    report.AddFinding(
        Severity::kWarning, codes::kDiffSlower,
        fmt::format("{} row(s) more than {:g} % slower per execution (rows under "
                    "{:g} % of the exec time are not judged on time)",
                    counts.slower, diff.options.threshold_pct, diff.options.min_share_pct));
  }
}

report::Value Number(std::optional<double> value, int decimals) {
  return value ? report::Value(*value, decimals) : report::Value();
}

// "; wall 12.40 s -> 11.90 s (0.96x), oneDNN 12.6 % -> 13.1 % of it" for two `run` reports:
// the program's time beside oneDNN's, so a faster oneDNN in a slower program is seen.
std::string WallText(const RowDiff& diff) {
  if (!diff.a_wall_s || !diff.b_wall_s) return {};
  std::string text = fmt::format("; wall {:.2f} s -> {:.2f} s", *diff.a_wall_s, *diff.b_wall_s);
  if (*diff.a_wall_s > 0) text += fmt::format(" ({:.2f}x)", *diff.b_wall_s / *diff.a_wall_s);
  if (diff.a_exec_pct_of_wall && diff.b_exec_pct_of_wall) {
    text += fmt::format(", oneDNN {:.1f} % -> {:.1f} % of it", *diff.a_exec_pct_of_wall,
                        *diff.b_exec_pct_of_wall);
  }
  return text;
}

}  // namespace

std::optional<int> FallbackDepthOf(std::string_view fallback) {
  return verbose::FallbackDepth(verbose::ImplClassFromName(fallback));
}

RowDiff CompareRuns(const RunRows& a, const RunRows& b, const DiffOptions& options) {
  RowDiff diff{a.name, b.name, options, {}, TotalMs(a), TotalMs(b), 0};
  diff.a_rows_without_numbers = a.rows_without_numbers;
  diff.b_rows_without_numbers = b.rows_without_numbers;
  diff.a_wall_s = a.wall_s;
  diff.b_wall_s = b.wall_s;
  diff.a_exec_pct_of_wall = a.exec_pct_of_wall;
  diff.b_exec_pct_of_wall = b.exec_pct_of_wall;
  diff.a_libraries = a.libraries;
  diff.b_libraries = b.libraries;
  // At most every row of both; capacity never touched costs no memory.
  diff.rows.reserve(a.rows.size() + b.rows.size());
  std::unordered_map<RunRow::Key, std::size_t, RunRow::KeyHash> b_index;
  for (std::size_t i = 0; i < b.rows.size(); ++i) b_index.emplace(b.rows[i].key, i);
  std::vector<bool> b_matched(b.rows.size(), false);
  for (const RunRow& row : a.rows) {
    DiffRow& out = diff.rows.emplace_back();
    out.a = row;
    const auto it = b_index.find(row.key);
    if (it == b_index.end()) {
      out.change = Change::kVanished;
      continue;
    }
    b_matched[it->second] = true;
    out.b = b.rows[it->second];
    JudgeMatched(out, diff);
  }
  for (std::size_t i = 0; i < b.rows.size(); ++i) {
    if (!b_matched[i]) diff.rows.push_back({std::nullopt, b.rows[i], Change::kNew});
  }
  for (const DiffRow& row : diff.rows) diff.regressions += row.Regressed() ? 1 : 0;
  SortForReading(diff.rows);
  return diff;
}

const report::contract::Document& DiffDocument() {
  static const report::contract::Document kDiff = [] {
    using namespace diff_field;
    namespace contract = report::contract;
    return contract::Document{"diff",
                              "two runs compared primitive by primitive",
                              {contract::Object(kDiffSummarySection, {kA,
                                                                      kB,
                                                                      kRowsMatched,
                                                                      kChangedImplementation,
                                                                      kWorseClass,
                                                                      kSlower,
                                                                      kFaster,
                                                                      kNew,
                                                                      kVanished,
                                                                      kExecMsA,
                                                                      kExecMsB,
                                                                      kExecTimeRatio,
                                                                      kThresholdPct,
                                                                      kRegressions,
                                                                      kWithinNoise,
                                                                      kWallSA,
                                                                      kWallSB,
                                                                      kExecPctOfWallA,
                                                                      kExecPctOfWallB,
                                                                      kLibrariesA,
                                                                      kLibrariesB}),
                               contract::Rows(kDiffRowsTable, contract::Members(kDiffColumns))},
                              std::string(kDiffRowsTable.name)};
  }();
  return kDiff;
}

report::Report DiffReport(RowDiff diff) {
  using namespace diff_field;
  report::Report report(DiffDocument());
  const Counts counts = CountRows(diff);
  const double total_ratio = diff.a_exec_ms > 0 && std::isfinite(diff.b_exec_ms / diff.a_exec_ms)
                                 ? diff.b_exec_ms / diff.a_exec_ms
                                 : 0;
  report.headline = fmt::format(
      "{} regression(s): {} rows matched, {} changed implementation ({} to a worse class), {} "
      "slower and {} faster beyond {:g} %, {} new, {} vanished; exec time {:.2f}x",
      diff.regressions, counts.matched, counts.changed, counts.worse_class, counts.slower,
      counts.faster, diff.options.threshold_pct, counts.added, counts.vanished, total_ratio);
  if (counts.within_noise > 0) {
    report.headline += fmt::format("; {} within noise", counts.within_noise);
  }
  report.headline += WallText(diff);
  report::Section& summary = report.AddSection(kDiffSummarySection);
  summary.Add(kA, diff.a_name).Add(kB, diff.b_name);
  summary.Add(kRowsMatched, counts.matched).Add(kChangedImplementation, counts.changed);
  summary.Add(kWorseClass, counts.worse_class).Add(kSlower, counts.slower);
  summary.Add(kFaster, counts.faster).Add(kNew, counts.added).Add(kVanished, counts.vanished);
  summary.Add(kExecMsA, report::Value(diff.a_exec_ms, 3));
  summary.Add(kExecMsB, report::Value(diff.b_exec_ms, 3));
  summary.Add(kExecTimeRatio, report::Value(total_ratio, 3));
  summary.Add(kThresholdPct, report::Value(diff.options.threshold_pct, 1));
  summary.Add(kRegressions, diff.regressions);
  summary.Add(kWithinNoise, counts.within_noise);
  summary.Add(kWallSA, Number(diff.a_wall_s, 3)).Add(kWallSB, Number(diff.b_wall_s, 3));
  summary.Add(kExecPctOfWallA, Number(diff.a_exec_pct_of_wall, 2));
  summary.Add(kExecPctOfWallB, Number(diff.b_exec_pct_of_wall, 2));
  summary.Add(kLibrariesA, LibrariesValue(diff.a_libraries));
  summary.Add(kLibrariesB, LibrariesValue(diff.b_libraries));
  report::Table& table = report.AddTable(kDiffRowsTable, kDiffColumns);
  table.hidden_in_table = report::Names({kPropKind, kIsaA, kIsaB, kExecsA, kExecsB});
  table.answer_columns = report::Names({kRegressed, kRatio});
  table.leave_out_first = report::Names({kFallbackA, kFallbackB});
  report.charts.push_back({.kind = report::Chart::Kind::kDiverging,
                           .title = "Time per execution, b over a, per row",
                           .table = std::string(kDiffRowsTable.name),
                           .label = report::Names({kLayer, kPrimitive, kPropKind, kProblem}),
                           .value = std::string(kRatio.name),
                           .unit = "\u00d7",
                           .limit = 60});
  AddFindings(report, diff, counts);
  // The rows' cells are made as they are printed (a diff of two large logs is large).
  auto rows = std::make_shared<const std::vector<DiffRow>>(std::move(diff.rows));
  table.generated = {rows->size(), [rows, columns = table.columns](std::size_t i) {
                       std::vector<report::Value> cells(columns.size());
                       report::RowSetter setter(columns, cells, kDiffRowsTable.name);
                       SetDiffCells(setter, (*rows)[i]);
                       return cells;
                     }};
  return report;
}

}  // namespace dlcheck::compare
