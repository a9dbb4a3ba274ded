#include "report/report.h"

namespace dlcheck::report {
namespace {

std::vector<std::string> NamesOf(std::span<const Field> columns) {
  std::vector<std::string> names;
  names.reserve(columns.size());
  for (const Field& column : columns) names.emplace_back(column.name);
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

Table& Section::AddTable(const Part& part, std::span<const Field> table_columns) {
  return AddView(std::string(part.name), NamesOf(table_columns), std::string(part.title));
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

Section& Report::AddSection(const Part& part) {
  sections.push_back(MakeSection(part));
  return sections.back();
}

Table& Report::AddTable(const Part& part, std::span<const Field> columns) {
  return AddView(std::string(part.name), NamesOf(columns), std::string(part.title));
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
  if (!primary_table.empty()) return FindTable(primary_table);
  return tables.empty() ? nullptr : &tables.front();
}

}  // namespace dlcheck::report
