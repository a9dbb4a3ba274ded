// SPDX-License-Identifier: Apache-2.0
#include "report/report.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <type_traits>

namespace dlcheck::report {

std::string ValueText(const Value& value, std::string_view null_text, std::string_view yes,
                      std::string_view no) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return std::string(null_text);
        } else if constexpr (std::is_same_v<T, bool>) {
          return std::string(v ? yes : no);
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          return fmt::format("{}", v);
        } else if constexpr (std::is_same_v<T, double>) {
          if (!std::isfinite(v)) return std::string(null_text);
          return fmt::format("{:.{}f}", v, value.precision);
        } else if constexpr (std::is_same_v<T, TextList>) {
          return fmt::format("{}", fmt::join(v, " "));
        } else {
          return v;
        }
      },
      value.data);
}

namespace {

std::vector<std::string> NamesOf(std::span<const Field> columns) {
  std::vector<std::string> names;
  names.reserve(columns.size());
  for (const Field& column : columns) names.emplace_back(column.name);
  return names;
}

std::vector<std::string> IdentityOf(std::span<const Field> columns) {
  std::vector<std::string> names;
  for (const Field& column : columns) {
    if (column.role == Role::kIdentity) names.emplace_back(column.name);
  }
  return names;
}

Section MakeSection(const Part& part) {
  return {.name = std::string(part.name), .title = std::string(part.title)};
}

Table MakeTable(std::string name, std::vector<std::string> columns, std::string title) {
  return {.name = std::move(name), .title = std::move(title), .columns = std::move(columns)};
}

}  // namespace

Section& Section::AddSection(const Part& part) {
  sections.push_back(MakeSection(part));
  return sections.back();
}

RowSetter Table::AddRow() {
  rows.emplace_back(columns.size());
  return RowSetter(columns, rows.back(), name);
}

RowSetter& RowSetter::Set(std::string_view column, Value value) {
  std::size_t at =
      next_ < columns_.size() && columns_[next_] == column
          ? next_
          : static_cast<std::size_t>(std::find(columns_.begin(), columns_.end(), column) -
                                     columns_.begin());
  if (at == columns_.size()) {
    throw std::logic_error("table '" + std::string(table_) + "' has no column '" +
                           std::string(column) + "'");
  }
  row_[at] = std::move(value);
  next_ = at + 1;
  return *this;
}

Table DeclaredTable(const Part& part, std::span<const Field> columns) {
  Table table = MakeTable(std::string(part.name), NamesOf(columns), std::string(part.title));
  table.identity_columns = IdentityOf(columns);
  table.short_forms = ShortForms(columns);
  return table;
}

Table& Section::AddTable(const Part& part, std::span<const Field> table_columns) {
  tables.push_back(DeclaredTable(part, table_columns));
  return tables.back();
}

Table& Section::AddView(std::string table_name, std::vector<std::string> table_columns,
                        std::string table_title) {
  tables.push_back(
      MakeTable(std::move(table_name), std::move(table_columns), std::move(table_title)));
  return tables.back();
}

const Value* Section::Find(std::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return &v;
  }
  return nullptr;
}

std::vector<std::pair<std::string, Value>> Section::ShownFields() const {
  std::vector<std::pair<std::string, Value>> shown;
  for (const auto& field : fields) {
    if (std::find(hidden_in_table.begin(), hidden_in_table.end(), field.first) ==
        hidden_in_table.end()) {
      shown.push_back(field);
    }
  }
  return shown;
}

Section& Report::AddSection(const Part& part) {
  sections.push_back(MakeSection(part));
  return sections.back();
}

Table& Report::AddTable(const Part& part, std::span<const Field> columns) {
  tables.push_back(DeclaredTable(part, columns));
  return tables.back();
}

Table& Report::AddView(std::string name, std::vector<std::string> columns, std::string title) {
  tables.push_back(MakeTable(std::move(name), std::move(columns), std::move(title)));
  return tables.back();
}

const Table* Report::FindTable(std::string_view name) const {
  for (const auto& t : tables) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

const Table* Report::Primary() const {
  if (document != nullptr && !document->main_table.empty()) {
    return FindTable(document->main_table);
  }
  return tables.empty() ? nullptr : &tables.front();
}

namespace {

// "2 warnings: scalar-fallback, busy-machine", or "" when none has `severity`.
std::string Tally(const std::vector<Finding>& findings, Severity severity) {
  std::size_t count = 0;
  std::vector<std::string_view> codes;
  for (const Finding& f : findings) {
    if (f.severity != severity) continue;
    ++count;
    if (std::find(codes.begin(), codes.end(), f.code) == codes.end()) codes.push_back(f.code);
  }
  if (count == 0) return {};
  std::string text = std::to_string(count) + " " + std::string(SeverityName(severity)) +
                     (count == 1 ? "" : "s") + ":";
  for (std::size_t i = 0; i < codes.size(); ++i) text += (i ? ", " : " ") + std::string(codes[i]);
  return text;
}

}  // namespace

std::string FindingsTally(const std::vector<Finding>& findings) {
  const std::string errors = Tally(findings, Severity::kError);
  const std::string warnings = Tally(findings, Severity::kWarning);
  if (errors.empty() && warnings.empty()) return "no warnings";
  if (errors.empty()) return warnings;
  return warnings.empty() ? errors : errors + "; " + warnings;
}

void SetVerdict(Report& report, std::string_view answer) {
  report.headline = std::string(answer) + "; " + FindingsTally(report.findings);
}

}  // namespace dlcheck::report
