#include "report/report.h"

namespace dlcheck::report {

Section& Section::AddSection(std::string section_name, std::string section_title) {
  sections.push_back({.name = std::move(section_name), .title = std::move(section_title)});
  return sections.back();
}

Table& Section::AddTable(std::string table_name, std::vector<std::string> table_columns,
                         std::string table_title) {
  tables.push_back({.name = std::move(table_name),
                    .title = std::move(table_title),
                    .columns = std::move(table_columns)});
  return tables.back();
}

const Value* Section::Find(std::string_view key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return &v;
  }
  return nullptr;
}

Section& Report::AddSection(std::string name, std::string title) {
  sections.push_back({.name = std::move(name), .title = std::move(title)});
  return sections.back();
}

Table& Report::AddTable(std::string name, std::vector<std::string> columns, std::string title) {
  tables.push_back(
      {.name = std::move(name), .title = std::move(title), .columns = std::move(columns)});
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
