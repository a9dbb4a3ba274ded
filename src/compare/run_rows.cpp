// SPDX-License-Identifier: Apache-2.0
// Loading one run's rows: a verbose log through the log session, or a dlcheck JSON report.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <unordered_map>

#include "compare/row_diff.h"
#include "dispatch/run_fields.h"
#include "os/input_file.h"
#include "report/primitive_columns.h"
#include "verbose/aggregate.h"
#include "verbose/line_reader.h"
#include "verbose/log_session.h"
#include "verbose/parallel_feed.h"

namespace dlcheck::compare {
namespace {

using Json = nlohmann::json;

// A JSON report may be large (one row per distinct primitive), never gigabytes.
constexpr std::size_t kMaxReportBytes = std::size_t{256} << 20;

// Adds `row` to `rows`, merging it into an earlier row with the same key.
class RowMerger {
 public:
  explicit RowMerger(std::vector<RunRow>& rows) : rows_(rows) {}
  void Add(RunRow row) {
    const auto [it, fresh] = index_.emplace(row.key, rows_.size());
    if (fresh) {
      rows_.push_back(std::move(row));
      return;
    }
    RunRow& into = rows_[it->second];
    if (into.implementation.find(row.implementation) == std::string::npos) {
      into.implementation = into.implementation + " + " + row.implementation.str();
    }
    const std::optional<int> depth = FallbackDepthOf(row.fallback);
    const std::optional<int> into_depth = FallbackDepthOf(into.fallback);
    if (depth && (!into_depth || *depth > *into_depth)) into.fallback = row.fallback;
    if (into.isa != row.isa && !row.isa.empty()) into.isa = into.isa + " + " + row.isa.str();
    into.execs += row.execs;
    into.exec_ms += row.exec_ms;
    // The merged range spans both; a side that does not say leaves it unknown.
    if (into.exec_ms_min && row.exec_ms_min) {
      into.exec_ms_min = std::min(*into.exec_ms_min, *row.exec_ms_min);
    } else {
      into.exec_ms_min.reset();
    }
    if (into.exec_ms_max && row.exec_ms_max) {
      into.exec_ms_max = std::max(*into.exec_ms_max, *row.exec_ms_max);
    } else {
      into.exec_ms_max.reset();
    }
  }

 private:
  std::vector<RunRow>& rows_;
  std::unordered_map<RunRow::Key, std::size_t, RunRow::KeyHash> index_;
};

// Adds `library` (its version left out: `oneDNN v2.6.3` -> `oneDNN`) where not yet there.
void AddLibrary(std::vector<std::string>& libraries, std::string_view library) {
  for (std::size_t at = library.find(" v"); at != std::string_view::npos;
       at = library.find(" v", at + 1)) {
    if (at + 2 < library.size() && library[at + 2] >= '0' && library[at + 2] <= '9') {
      library = library.substr(0, at);
      break;
    }
  }
  if (library.empty()) return;
  if (std::find(libraries.begin(), libraries.end(), library) == libraries.end())
    libraries.emplace_back(library);
}

RunRow FromStats(const verbose::PrimitiveStats& stats) {
  RunRow row;
  const std::string_view layer = stats.LayerOr("");
  row.key = {stats.engine,     stats.primitive, stats.prop_kind, stats.data_types,
             stats.attributes, stats.auxiliary, stats.problem,   RunRow::Text(layer)};
  row.primitive = stats.primitive;
  row.prop_kind = stats.prop_kind;
  row.problem = stats.problem;
  row.layer = layer;
  row.implementation = stats.implementation;
  row.isa = stats.isa;
  row.fallback = verbose::ImplClassName(stats.impl_class);
  row.execs = stats.execs;
  row.exec_ms = stats.exec_ms_total;
  if (stats.execs > 0) {
    row.exec_ms_min = stats.exec_ms_min;
    row.exec_ms_max = stats.exec_ms_max;
  }
  return row;
}

StatusOr<RunRows> LoadLog(verbose::LineReader& reader, const std::string& path, int jobs) {
  verbose::LogSession session;
  if (Status fed = verbose::FeedLog(session, reader, path, verbose::ParallelOptionsFor(jobs));
      !fed.ok()) {
    return fed;
  }
  RunRows run{path, "verbose log", {}};
  run.rows.reserve(session.aggregator().rows().size());
  RowMerger merger(run.rows);
  for (const verbose::PrimitiveStats& stats : session.aggregator().rows()) {
    merger.Add(FromStats(stats));
    AddLibrary(run.libraries, verbose::LibraryName(verbose::LibraryOf(stats.era)));
  }
  return run;
}

RunRow::Text TextOf(const Json& row, std::string_view name) {
  const auto it = row.find(std::string(name));
  if (it == row.end() || it->is_null()) return {};
  return RunRow::Text(it->is_string() ? it->get<std::string>() : it->dump());
}

// A count or a time of a row: absent or null is 0 (a row without timed executions); anything
// else but a finite number >= 0 (a string, a bool, 1e400, a negative) is no number: nullopt.
std::optional<double> NumberOf(const Json& row, std::string_view name) {
  const auto it = row.find(std::string(name));
  if (it == row.end() || it->is_null()) return 0.0;
  if (!it->is_number()) return std::nullopt;
  const double value = it->get<double>();
  if (!std::isfinite(value) || value < 0) return std::nullopt;
  return value;
}

bool IsPrimitivesTable(const Json& value) {
  return value.is_array() && !value.empty() && value.front().is_object() &&
         value.front().contains(std::string(report::primitive_column::kPrimitive.name)) &&
         value.front().contains(std::string(report::primitive_column::kImplementation.name));
}

// The first primitives table of a report, wherever a command put it (`primitives`, `rows`, or
// inside a section).
const Json* FindPrimitivesTable(const Json& node) {
  if (!node.is_object()) return nullptr;
  for (const std::string_view name : {report::kPrimitivesTable.name, std::string_view("rows")}) {
    const auto it = node.find(std::string(name));
    if (it != node.end() && IsPrimitivesTable(*it)) return &*it;
  }
  for (const auto& item : node.items()) {
    if (const Json* found = FindPrimitivesTable(item.value())) return found;
  }
  return nullptr;
}

std::optional<RunRow> FromJsonRow(const Json& row) {
  RunRow out;
  namespace column = report::primitive_column;
  out.primitive = TextOf(row, column::kPrimitive.name);
  out.prop_kind = TextOf(row, column::kPropKind.name);
  out.problem = TextOf(row, column::kProblem.name);
  out.layer = TextOf(row, column::kLayer.name);
  out.key = {TextOf(row, column::kEngine.name),
             out.primitive,
             out.prop_kind,
             TextOf(row, column::kDataTypes.name),
             TextOf(row, column::kAttributes.name),
             TextOf(row, column::kAuxiliary.name),
             out.problem,
             out.layer};
  out.implementation = TextOf(row, column::kImplementation.name);
  out.isa = TextOf(row, column::kIsa.name);
  out.fallback = TextOf(row, column::kFallback.name);
  const std::optional<double> execs = NumberOf(row, column::kExecs.name);
  const std::optional<double> exec_ms = NumberOf(row, column::kExecMsTotal.name);
  // Below 2^53 a count converts exactly, and never out of range (the cast of a negative or huge
  // double is undefined).
  if (!execs || !exec_ms || *execs > 9007199254740992.0) return std::nullopt;
  out.execs = static_cast<std::uint64_t>(*execs);
  out.exec_ms = *exec_ms;
  // The range only where both ends are numbers of a row that executed.
  const auto min = row.find(std::string(column::kExecMsMin.name));
  const auto max = row.find(std::string(column::kExecMsMax.name));
  if (out.execs > 0 && min != row.end() && max != row.end() && min->is_number() &&
      max->is_number()) {
    const double low = min->get<double>(), high = max->get<double>();
    if (std::isfinite(low) && std::isfinite(high) && 0 <= low && low <= high) {
      out.exec_ms_min = low;
      out.exec_ms_max = high;
    }
  }
  return out;
}

// The reports whose primitives table diff compares: the commands that make one from a log.
bool IsLogReport(std::string_view command) {
  return command == "parse" || command == "verbose" || command == "run";
}

// A `run` report's program: its wall time and oneDNN's share, where they are numbers.
void ReadProgramRun(const Json& document, RunRows& run) {
  namespace field = dispatch::program_run_field;
  const auto command = document.find(std::string(report::contract::identity_field::kCommand.name));
  if (command == document.end() || *command != "run") return;
  const auto section = document.find(std::string(field::kProgramRunPart.name));
  if (section == document.end() || !section->is_object()) return;
  const auto number = [&](std::string_view name) -> std::optional<double> {
    const auto it = section->find(std::string(name));
    if (it == section->end() || !it->is_number()) return std::nullopt;
    const double value = it->get<double>();
    if (!std::isfinite(value) || value < 0) return std::nullopt;
    return value;
  };
  run.wall_s = number(field::kWallS.name);
  run.exec_pct_of_wall = number(field::kExecPctOfWall.name);
}

StatusOr<RunRows> LoadReport(const std::string& path, const std::string& text) {
  // The bound keeps the parser's and FindPrimitivesTable's recursion off a deeply nested file.
  if (Status bounded = os::CheckJsonBounds(text, "report", path, {}); !bounded.ok()) {
    return bounded;
  }
  const Json document = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    return Status(ExitCode::kInputError,
                  path + ": not valid JSON; give a dlcheck --format json report or a verbose log");
  }
  const Json* table = FindPrimitivesTable(document);
  if (table == nullptr) {
    return Status(ExitCode::kInputError,
                  path +
                      ": this JSON has no primitives table; give the --format json output of "
                      "'dlcheck parse', 'verbose' or 'run', or a verbose log");
  }
  // Another command's table of primitives (dispatch's, profile's) holds other numbers: refused,
  // not read as a log's.
  const auto command = document.find(std::string(report::contract::identity_field::kCommand.name));
  if (command != document.end() &&
      (!command->is_string() || !IsLogReport(command->get_ref<const std::string&>()))) {
    return Status(
        ExitCode::kInputError,
        fmt::format("{}: a dlcheck {} report; diff reads verbose logs and the --format "
                    "json reports of 'dlcheck parse', 'verbose' and 'run'",
                    path, command->is_string() ? command->get<std::string>() : command->dump()));
  }
  RunRows run{path,
              "dlcheck " + TextOf(document, report::contract::identity_field::kCommand.name).str() +
                  " report",
              {}};
  ReadProgramRun(document, run);
  RowMerger merger(run.rows);
  for (const Json& row : *table) {
    if (!row.is_object()) continue;
    if (std::optional<RunRow> read = FromJsonRow(row)) {
      merger.Add(std::move(*read));
      const auto library = row.find(std::string(report::primitive_column::kLibrary.name));
      if (library != row.end() && library->is_string()) {
        AddLibrary(run.libraries, library->get_ref<const std::string&>());
      }
    } else {
      ++run.rows_without_numbers;
    }
  }
  return run;
}

}  // namespace

std::size_t RunRow::KeyHash::operator()(const Key& key) const noexcept {
  std::size_t hash = 0;
  for (const Text& part : key.parts) {
    hash = (hash ^ std::hash<Text>()(part)) * 0x9e3779b97f4a7c15ULL;
  }
  return hash;
}

// The input is opened once and told apart by its first byte (a JSON report opens an object), so a
// pipe (`diff <(zcat a.gz) <(zcat b.gz)`) is read whole and compressed reports work too.
StatusOr<RunRows> LoadRunRows(const std::string& path, int jobs) {
  verbose::LineReader reader;
  if (Status opened = reader.Open(path); !opened.ok()) return opened;
  if (reader.PeekFirstNonBlank() == '{') {
    std::string text;
    if (Status read = reader.ReadRest(text, kMaxReportBytes); !read.ok()) return read;
    return LoadReport(path, text);
  }
  return LoadLog(reader, path, jobs);
}

}  // namespace dlcheck::compare
