// SPDX-License-Identifier: Apache-2.0
#include "cli/stats_view.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>

#include "detect/platform.h"
#include "report/primitive_columns.h"
#include "report/printer.h"
#include "report/safe_text.h"
#include "verbose/benchdnn.h"

namespace dlcheck::cli {
namespace {

using report::Value;
namespace col = report::primitive_column;

// What ColumnOptions::input_names points at when only the columns matter.
const std::vector<std::string> kNoNames;

Value Text(std::string_view s) {
  if (s.empty()) return Value();
  return Value(ValidUtf8(s));
}

Value IsaValue(std::string_view isa) {
  if (isa.empty()) return Value();
  return Value(ValidUtf8(isa));
}

// Where the `isa` column's value came from: the implementation's name, or the log header's ISA
// for a name that holds none (`gemm:jit`, `jit:uni`); null without an ISA.
Value IsaSourceValue(std::string_view isa, bool inferred) {
  if (isa.empty()) return Value();
  return Value(inferred ? "log header" : "name");
}

Value Ms(double ms) {
  return Value(ms, 4);
}

// `v5.0.0` of `ZENDNN v5.0.0 (commit ...)`, `oneDNN v3.10.2 (commit ...)`; "" without one.
std::string_view VersionWord(std::string_view line) {
  const std::size_t v = line.find(" v");
  if (v == std::string_view::npos) return {};
  const std::string_view word = line.substr(v + 1);
  return word.substr(0, word.find(' '));
}

// The `library` cell: the library's name, and its version where its header line says it.
Value LibraryValue(verbose::Era era, const verbose::LogHeader* header) {
  const verbose::Library library = verbose::LibraryOf(era);
  std::string text(verbose::LibraryName(library));
  // ONNX Runtime's profile says no version: its rows name the library alone.
  if (header != nullptr && library != verbose::Library::kOnnxRuntime) {
    const std::string_view version = VersionWord(
        library == verbose::Library::kZenDnn ? header->zendnn_version : header->library_version);
    if (!version.empty()) text += " " + std::string(version);
  }
  return Text(text);
}

}  // namespace

std::string ValidUtf8(std::string_view text) {
  return report::ValidUtf8Text(text, "?", /*controls=*/true);  // the rule's one home
}

// The header that speaks for a row: its own input's when inputs are labelled, else the log's.
const verbose::LogHeader* HeaderOf(const verbose::PrimitiveStats& s, const ColumnOptions& options) {
  if (options.input_headers != nullptr && s.input >= 1 &&
      s.input <= options.input_headers->size()) {
    return &(*options.input_headers)[s.input - 1].second;
  }
  return options.header;
}

// The highest ISA of the host that runs the benchdnn lines: DLCHECK_HOST_ISA where set (lines
// made for another machine), else this CPU's (oneDNN 3.x's level, from CPUID), read once.
std::string_view HostIsa() {
  static const std::string kHostIsa = [] {
    const char* set = std::getenv("DLCHECK_HOST_ISA");
    return set != nullptr && *set != '\0' ? std::string(set) : detect::LiveOneDnn3MaxIsa();
  }();
  return kHostIsa;
}

// What a row's reproducer needs besides the row: the version asked for, its log's header (its
// ISA and thread count), the host's ISA.
verbose::BenchdnnContext BenchdnnContextOf(const verbose::PrimitiveStats& s,
                                           const ColumnOptions& options) {
  verbose::BenchdnnContext context{.version = options.benchdnn_version, .host_isa = HostIsa()};
  if (const verbose::LogHeader* header = HeaderOf(s, options); header != nullptr) {
    context.library_version = header->library_version;
    context.header_isa = header->isa_short;
    context.threads = header->threads;
  }
  return context;
}

// `# no benchdnn reproducer for <primitive> <problem>: <why>`, the log's text made safe inside
// a comment (a line break in it would end the comment and start a command).
std::string NoReproducerComment(const verbose::PrimitiveStats& s,
                                const verbose::BenchdnnContext& context) {
  return "# no benchdnn reproducer for " + verbose::BenchdnnCommentText(s.primitive) + " " +
         verbose::BenchdnnCommentText(s.problem) + ": " +
         std::string(verbose::BenchdnnMissingReason(s, context));
}

// The benchdnn command that reproduces the row, with ` # untranslated: ...` for attributes it
// cannot spell, or `# no benchdnn reproducer: <why>`: a line a shell can run or ignore.
Value BenchdnnCell(const verbose::PrimitiveStats& s, const ColumnOptions& options) {
  const verbose::BenchdnnContext context = BenchdnnContextOf(s, options);
  const std::optional<verbose::BenchdnnReproducer> reproducer =
      verbose::MakeBenchdnnReproducer(s, context);
  if (!reproducer) {
    return Text(NoReproducerComment(s, context));
  }
  std::string line = reproducer->command;
  if (!reproducer->host_note.empty()) line += "  # " + reproducer->host_note;
  for (std::size_t i = 0; i < reproducer->untranslated.size(); ++i) {
    line += (i > 0                           ? ", "
             : reproducer->host_note.empty() ? "  # untranslated: "
                                             : "; untranslated: ") +
            reproducer->untranslated[i];
  }
  return Text(line);
}

std::vector<report::Field> PrimitiveColumns(const ColumnOptions& options) {
  std::vector<report::Field> columns(report::kPrimitiveColumns.begin(),
                                     report::kPrimitiveColumns.end());
  if (options.include_layer) columns.push_back(report::primitive_column::kLayer);
  if (options.input_names != nullptr) columns.push_back(report::primitive_column::kFile);
  return columns;
}

std::vector<report::Field> EventColumns(const ColumnOptions& options) {
  using namespace event_column;
  std::vector<report::Field> columns = {kLine,
                                        kEra,
                                        kOperation,
                                        kCache,
                                        col::kEngine,
                                        col::kPrimitive,
                                        col::kImplementation,
                                        col::kIsa,
                                        col::kIsaSource,
                                        col::kFallback,
                                        col::kPropKind,
                                        kMemoryDescriptors,
                                        col::kAttributes,
                                        col::kAuxiliary,
                                        col::kProblem,
                                        kTimeMs,
                                        kTimestamp,
                                        kMessage,
                                        col::kLibrary};
  if (options.include_layer) columns.push_back(col::kLayer);
  return columns;
}

report::Table EventTable(const ColumnOptions& options) {
  using namespace event_column;
  report::Table table = report::DeclaredTable(kEventsTable, EventColumns(options));
  table.answer_columns = report::Names({kOperation, col::kImplementation, col::kIsa, kTimeMs});
  table.leave_out_first = report::Names({kMemoryDescriptors, col::kAttributes, col::kAuxiliary,
                                         col::kIsaSource, kTimestamp, kMessage, col::kLibrary, kEra,
                                         col::kEngine, kCache, col::kFallback, col::kProblem});
  return table;
}

report::contract::Member PrimitivesMember(bool with_layer, bool with_file) {
  return report::contract::Rows(
      report::kPrimitivesTable,
      report::contract::Members(PrimitiveColumns(
          {.include_layer = with_layer, .input_names = with_file ? &kNoNames : nullptr})));
}

report::contract::Member EventsMember() {
  return report::contract::Rows(kEventsTable, report::contract::Members(EventColumns()));
}

void SetPrimitiveCells(report::RowSetter& row, const verbose::PrimitiveStats& s,
                       double total_exec_ms, const ColumnOptions& options) {
  const std::optional<double> mean = s.ExecMsMean();
  const std::optional<double> gflops = s.Gflops();
  const bool timed = s.timed_execs > 0;
  row.Set(col::kLibrary, LibraryValue(s.era, HeaderOf(s, options)))
      .Set(col::kEngine, Text(s.engine))
      .Set(col::kPrimitive, Text(s.primitive))
      .Set(col::kImplementation, Text(s.implementation))
      .Set(col::kIsa, IsaValue(s.isa))
      .Set(col::kIsaSource, IsaSourceValue(s.isa, s.isa_inferred))
      .Set(col::kFallback, Text(verbose::ImplClassName(s.impl_class)))
      .Set(col::kPropKind, Text(s.prop_kind))
      .Set(col::kDataTypes, Text(s.data_types))
      .Set(col::kLayouts, Text(s.layouts))
      .Set(col::kAttributes, Text(s.attributes))
      .Set(col::kAuxiliary, Text(s.auxiliary))
      .Set(col::kProblem, Text(s.problem))
      .Set(col::kCreates, s.creates)
      .Set(col::kCacheHits, s.cache_hits)
      .Set(col::kCreateMs, Ms(s.create_ms))
      .Set(col::kNestedCreates, s.nested_creates)
      .Set(col::kNestedCreateMs, Ms(s.nested_create_ms))
      .Set(col::kExecs, s.execs)
      .Set(col::kExecMsTotal, Ms(s.exec_ms_total))
      .Set(col::kExecMsMean, mean ? Ms(*mean) : Value())
      .Set(col::kExecMsMin, timed ? Ms(s.exec_ms_min) : Value())
      .Set(col::kExecMsMax, timed ? Ms(s.exec_ms_max) : Value())
      .Set(col::kTimePct,
           Value(total_exec_ms > 0 ? 100.0 * s.exec_ms_total / total_exec_ms : 0.0, 2))
      .Set(col::kGflops, gflops ? Value(*gflops, 2) : Value())
      .Set(col::kBenchdnn, BenchdnnCell(s, options))
      .Set(col::kSkipped, Text(verbose::SkippedText(s)));
  if (options.include_layer) row.Set(col::kLayer, s.layer ? Text(*s.layer) : Value());
  if (options.input_names != nullptr) {
    const std::vector<std::string>& names = *options.input_names;
    row.Set(col::kFile,
            s.input >= 1 && s.input <= names.size() ? Text(names[s.input - 1]) : Value());
  }
}

std::vector<Value> EventRow(const verbose::VerboseEvent& e, const ColumnOptions& options) {
  std::vector<Value> row = {
      e.line,
      Text(verbose::EraName(e.era)),
      Text(verbose::OperationName(e.operation)),
      Text(e.cache_state.empty() ? e.operation_text : e.cache_state),  // the `cache` column
      Text(e.engine),
      Text(e.primitive),
      Text(e.implementation),
      IsaValue(e.isa),
      IsaSourceValue(e.isa, e.isa_inferred),
      e.operation == verbose::Operation::kDiagnostic && e.implementation.empty()
          ? Value()
          : Text(verbose::ImplClassName(e.impl_class)),
      Text(e.prop_kind),
      Text(e.memory_descriptors),
      Text(e.attributes),
      Text(e.auxiliary),
      Text(e.problem),
      e.time_ms ? Value(*e.time_ms, 6) : Value(),
      e.timestamp ? Value(*e.timestamp, 6) : Value(),
      Text(e.message),
      Text(verbose::LibraryName(verbose::LibraryOf(e.era))),
  };
  if (options.include_layer) row.push_back(e.layer ? Text(*e.layer) : Value());
  return row;
}

std::string_view SortName(SortKey key) {
  for (const auto& [name, value] : kSortKeys) {
    if (value == key) return name;
  }
  return {};
}

void SortRows(std::vector<verbose::PrimitiveStats>& rows, SortKey key) {
  auto by = [key](const verbose::PrimitiveStats& a, const verbose::PrimitiveStats& b) {
    switch (key) {
      case SortKey::kTime:
        if (a.exec_ms_total != b.exec_ms_total) return a.exec_ms_total > b.exec_ms_total;
        if (a.create_ms != b.create_ms) return a.create_ms > b.create_ms;
        break;
      case SortKey::kExecs:
        if (a.execs != b.execs) return a.execs > b.execs;
        break;
      case SortKey::kCreates:
        if (a.creates != b.creates) return a.creates > b.creates;
        break;
      case SortKey::kName:
        if (a.primitive != b.primitive) return a.primitive < b.primitive;
        if (a.implementation != b.implementation) return a.implementation < b.implementation;
        if (a.problem != b.problem) return a.problem < b.problem;
        break;
    }
    // Then first seen first: a total order (a line holds one primitive of one input), so an
    // in-place sort gives what a stable one would, without its buffer of half the rows.
    if (a.first_line != b.first_line) return a.first_line < b.first_line;
    return a.input < b.input;
  };
  std::sort(rows.begin(), rows.end(), by);
}

namespace {

// What the primitives table's rows are made from when printed: its own copy of everything, so
// that no caller's data can end before the report is printed.
struct PrimitiveRowSource {
  std::vector<verbose::PrimitiveStats> rows;
  std::vector<std::string> input_names;  ///< what `columns.input_names` points to
  verbose::LogHeader header;             ///< what `columns.header` points to
  std::vector<std::pair<std::string, verbose::LogHeader>> input_headers;  ///< and this
  ColumnOptions columns;
  std::vector<std::string> column_names;  ///< the table's, which each made row fills
  double total_exec_ms = 0;
};

// A header without an ISA line (a pasted or trimmed log) takes, for the benchdnn column, the
// highest ISA its own rows' implementations name: the cap that log ran under, as far as it tells.
void FillImpliedIsas(PrimitiveRowSource& source, const std::vector<verbose::PrimitiveStats>& rows) {
  auto implied = [&rows](std::uint32_t input) {
    std::vector<const verbose::PrimitiveStats*> of_input;
    for (const verbose::PrimitiveStats& row : rows) {
      if (input == 0 || row.input == input) of_input.push_back(&row);
    }
    return std::string(verbose::HighestIsaOf(of_input));
  };
  if (source.header.isa_short.empty()) source.header.isa_short = implied(0);
  for (std::size_t i = 0; i < source.input_headers.size(); ++i) {
    verbose::LogHeader& header = source.input_headers[i].second;
    if (header.isa_short.empty()) header.isa_short = implied(static_cast<std::uint32_t>(i + 1));
  }
}

}  // namespace

void AddPrimitivesTable(report::Report& report, std::vector<verbose::PrimitiveStats> rows,
                        double total_exec_ms, std::size_t top, const ColumnOptions& options) {
  auto source = std::make_shared<PrimitiveRowSource>();
  // oneDNN Graph partitions carry the framework's op names as their layer: the column appears
  // whenever a row has one (of all rows, not only the first `top`).
  source->columns = options;
  source->columns.include_layer =
      options.include_layer ||
      std::any_of(rows.begin(), rows.end(), [](const auto& row) { return row.layer.has_value(); });
  if (options.input_names != nullptr) {
    source->input_names = *options.input_names;
    source->columns.input_names = &source->input_names;
  }
  source->columns.header = &source->header;  // an empty one when not given: rows imply an ISA
  if (options.header != nullptr) source->header = *options.header;
  if (options.input_headers != nullptr) {
    source->input_headers = *options.input_headers;
    source->columns.input_headers = &source->input_headers;
  }
  FillImpliedIsas(*source, rows);
  if (top != 0 && rows.size() > top)
    rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(top), rows.end());
  source->rows = std::move(rows);
  source->total_exec_ms = total_exec_ms;
  report::Table& t = report.AddTable(report::kPrimitivesTable, PrimitiveColumns(source->columns));
  source->column_names = t.columns;
  t.hidden_in_table =
      report::Names({col::kLayouts, col::kAttributes, col::kAuxiliary, col::kCacheHits,
                     col::kExecMsMin, col::kExecMsMax, col::kNestedCreateMs, col::kBenchdnn});
  // Which kernel ran (its name holds its ISA, `jit:avx512_core`) and its time: what the table is
  // for, at any width. The isa column, which says it again, goes last of the others.
  t.answer_columns = report::Names({col::kImplementation, col::kExecMsTotal, col::kTimePct});
  t.leave_out_first =
      report::Names({col::kSkipped, col::kLibrary, col::kCreates, col::kGflops, col::kExecMsMean,
                     col::kCreateMs, col::kFallback, col::kDataTypes, col::kIsaSource, col::kIsa});
  // A row of cells (1.5-2 KB with their text) is made only while a printer reads it.
  t.generated = {
      .count = source->rows.size(),
      .make = [source =
                   std::shared_ptr<const PrimitiveRowSource>(std::move(source))](std::size_t i) {
        std::vector<Value> cells(source->column_names.size());
        report::RowSetter row(source->column_names, cells, report::kPrimitivesTable.name);
        SetPrimitiveCells(row, source->rows[i], source->total_exec_ms, source->columns);
        return cells;
      }};
  // Drawn where the rows name their layers (a model's, a Graph partition's op).
  report.charts.push_back({.title = "oneDNN execution time by layer (the table's rows)",
                           .table = std::string(report::kPrimitivesTable.name),
                           .label = report::Names({col::kLayer}),
                           .value = std::string(col::kExecMsTotal.name),
                           .unit = "ms",
                           .limit = 40});
}

std::string BenchdnnBatch(std::vector<verbose::PrimitiveStats> rows, std::string_view driver,
                          const ColumnOptions& options) {
  PrimitiveRowSource source;
  source.columns = options;
  source.columns.header = &source.header;
  if (options.header != nullptr) source.header = *options.header;
  if (options.input_headers != nullptr) {
    source.input_headers = *options.input_headers;
    source.columns.input_headers = &source.input_headers;
  }
  FillImpliedIsas(source, rows);
  struct BatchLine {
    std::string cap;             // the ISA cap the log ran it at
    std::optional<int> threads;  // the threads it ran with
    std::string text;            // the line, or a comment
  };
  std::vector<BatchLine> lines;
  std::vector<std::pair<std::string, std::size_t>> caps;  // in order of first appearance
  std::vector<std::pair<std::optional<int>, std::size_t>> thread_counts;  // likewise
  std::set<std::string> seen;
  for (const verbose::PrimitiveStats& row : rows) {
    if (verbose::BenchdnnDriverOf(row.primitive) != driver) continue;
    const verbose::BenchdnnContext context = BenchdnnContextOf(row, source.columns);
    const auto reproducer = verbose::MakeBenchdnnReproducer(row, context);
    if (!reproducer) {
      lines.push_back({.text = NoReproducerComment(row, context)});
      continue;
    }
    // The words after the driver, less the --mode=P the file's first line gives every line.
    std::string line = "--reset";
    for (const std::string& option : reproducer->options) {
      if (option != "--mode=P") line += " " + option;
    }
    if (!seen.insert(line).second) continue;
    for (const std::string& piece : reproducer->untranslated) {
      lines.push_back({.text = "# untranslated in the next line: " + piece});
    }
    if (!reproducer->host_note.empty()) {
      lines.push_back({.text = "# the next line: " + reproducer->host_note});
    }
    auto cap = std::find_if(caps.begin(), caps.end(), [&](const auto& entry) {
      return entry.first == reproducer->max_cpu_isa;
    });
    if (cap == caps.end()) cap = caps.emplace(caps.end(), reproducer->max_cpu_isa, 0);
    ++cap->second;
    auto threads = std::find_if(thread_counts.begin(), thread_counts.end(), [&](const auto& entry) {
      return entry.first == reproducer->threads;
    });
    if (threads == thread_counts.end()) {
      threads = thread_counts.emplace(thread_counts.end(), reproducer->threads, 0);
    }
    ++threads->second;
    lines.push_back({reproducer->max_cpu_isa, reproducer->threads, std::move(line)});
  }
  // The cap and the thread count most lines ran with go on the command (ties: the first line's);
  // a line the log ran with others is told.
  std::string cap;
  std::size_t most = 0;
  for (const auto& [name, count] : caps) {
    if (count > most) std::tie(cap, most) = std::tie(name, count);
  }
  std::optional<int> threads;
  most = 0;
  for (const auto& [n, count] : thread_counts) {
    if (count > most) std::tie(threads, most) = std::tie(n, count);
  }
  const auto threads_text = [](const std::optional<int>& n) {
    return n ? "OMP_NUM_THREADS=" + std::to_string(*n) : std::string();
  };
  std::string text = "# " + (cap.empty() ? std::string() : "ONEDNN_MAX_CPU_ISA=" + cap + " ") +
                     (threads ? threads_text(threads) + " " : std::string()) + "benchdnn --" +
                     std::string(driver) + " --mode=P --batch=THIS_FILE\n";
  for (const BatchLine& line : lines) {
    if (line.text.front() != '#' && line.cap != cap) {
      text += "# the log ran the next line at ONEDNN_MAX_CPU_ISA=" +
              (line.cap.empty() ? std::string("(no cap: no ISA in the log)") : line.cap) + "\n";
    }
    if (line.text.front() != '#' && line.threads != threads) {
      text += "# the log ran the next line with " +
              (line.threads ? threads_text(line.threads)
                            : std::string("(no thread count: the log does not say)")) +
              "\n";
    }
    text += line.text + "\n";
  }
  return text;
}

}  // namespace dlcheck::cli
