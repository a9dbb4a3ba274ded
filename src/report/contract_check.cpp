// SPDX-License-Identifier: Apache-2.0
#include "report/contract_check.h"

#include <fmt/format.h>

namespace dlcheck::report::contract {
namespace {

const char* ValueWord(const Value& value) {
  switch (value.data.index()) {
    case 1:
      return "boolean";
    case 2:
      return "integer";
    case 3:
      return "number";
    case 4:
      return "string";
    case 5:
      return "list";
    default:
      return "null";
  }
}

std::string Path(const std::string& parent, std::string_view name) {
  return parent.empty() ? std::string(name) : parent + "." + std::string(name);
}

class Checker {
 public:
  std::vector<std::string> problems;

  void Scalar(const Member& member, const Value& value, const std::string& path) {
    if (member.shape == Shape::kList) {
      const bool list = std::holds_alternative<TextList>(value.data) || value.is_null();
      if (!list || member.type != Type::kText) Mismatch(path, value, "a list of string");
      return;
    }
    if (member.shape != Shape::kScalar) {
      problems.push_back(
          fmt::format("{}: a value where a {} is declared", path, ShapeWord(member)));
      return;
    }
    if (!Fits(member.type, value)) Mismatch(path, value, TypeName(member.type));
  }

  void Map(const Member& member, const Section& section, const std::string& path) {
    for (const auto& [key, value] : section.fields) {
      if (!Fits(member.type, value)) Mismatch(path + "." + key, value, TypeName(member.type));
    }
    if (!section.sections.empty() || !section.tables.empty()) {
      problems.push_back(path + ": a map holds sections or tables");
    }
  }

  void Object(const std::vector<Member>& declared, const Section& section,
              const std::string& path) {
    for (const auto& [key, value] : section.fields) {
      const Member* member = FindMember(declared, key);
      if (member == nullptr) {
        problems.push_back(Path(path, key) + ": written, not declared");
      } else {
        Scalar(*member, value, Path(path, key));
      }
    }
    for (const Section& child : section.sections) Child(declared, child, Path(path, child.name));
    for (const Table& table : section.tables) Rows(declared, table, Path(path, table.name));
  }

  void Child(const std::vector<Member>& declared, const Section& child, const std::string& path) {
    const Member* member = FindMember(declared, child.name);
    if (member == nullptr) {
      problems.push_back(path + ": a section written, not declared");
    } else if (member->shape == Shape::kMap) {
      Map(*member, child, path);
    } else if (member->shape != Shape::kObject) {
      problems.push_back(
          fmt::format("{}: a section where a {} is declared", path, ShapeWord(*member)));
    } else {
      Object(member->members, child, path);
    }
  }

  void Rows(const std::vector<Member>& declared, const Table& table, const std::string& path) {
    if (!CarriedInDocuments(table)) return;
    const Member* member = FindMember(declared, table.name);
    if (member == nullptr) {
      problems.push_back(path + ": a table written, not declared");
      return;
    }
    const bool keyed = member->shape == Shape::kKeyedRows;
    if (!keyed && member->shape != Shape::kRows) {
      problems.push_back(
          fmt::format("{}: a table where a {} is declared", path, ShapeWord(*member)));
      return;
    }
    if (keyed != table.keyed_by_first_column) {
      problems.push_back(path + ": keyed by its first column in one and not the other");
      return;
    }
    std::vector<const Member*> columns;
    for (std::size_t i = 0; i < table.columns.size(); ++i) {
      const Member* column =
          keyed && i == 0 ? nullptr : FindMember(member->members, table.columns[i]);
      if (column == nullptr && !(keyed && i == 0)) {
        problems.push_back(Path(path, table.columns[i]) + ": a column written, not declared");
      }
      columns.push_back(column);
    }
    ForEachRow(table, [&](const std::vector<Value>& row) {
      if (row.size() != columns.size()) {
        problems.push_back(fmt::format("{}: a row of {} cells in a table of {} columns", path,
                                       row.size(), columns.size()));
        return;
      }
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (columns[i] != nullptr) Scalar(*columns[i], row[i], Path(path, table.columns[i]));
      }
    });
  }

 private:
  static const char* ShapeWord(const Member& member) {
    switch (member.shape) {
      case Shape::kScalar:
        return "value";
      case Shape::kObject:
        return "section";
      case Shape::kRows:
        return "table";
      case Shape::kKeyedRows:
        return "keyed table";
      case Shape::kMap:
        return "map";
      case Shape::kList:
        return "list";
    }
    return "value";
  }

  void Mismatch(const std::string& path, const Value& value, std::string_view declared) {
    const std::string problem =
        fmt::format("{}: {} where {} is declared", path, ValueWord(value), declared);
    // One line per member, however many rows repeat it.
    for (const std::string& p : problems) {
      if (p == problem) return;
    }
    problems.push_back(problem);
  }
};

void AddSectionPaths(const Section& section, const std::string& path, std::set<std::string>& paths);

void AddTablePaths(const Table& table, const std::string& path, std::set<std::string>& paths) {
  if (!CarriedInDocuments(table)) return;
  paths.insert(path);
  for (std::size_t i = table.keyed_by_first_column ? 1 : 0; i < table.columns.size(); ++i) {
    paths.insert(Path(path, table.columns[i]));
  }
}

void AddSectionPaths(const Section& section, const std::string& path,
                     std::set<std::string>& paths) {
  paths.insert(path);
  for (const auto& field : section.fields) paths.insert(Path(path, field.first));
  for (const Section& child : section.sections) {
    AddSectionPaths(child, Path(path, child.name), paths);
  }
  for (const Table& table : section.tables) AddTablePaths(table, Path(path, table.name), paths);
}

void AddDeclaredPaths(const std::vector<Member>& members, const std::string& path,
                      std::set<std::string>& paths) {
  for (const Member& m : members) {
    const std::string here = Path(path, m.name);
    paths.insert(here);
    if (m.shape == Shape::kObject || m.shape == Shape::kRows || m.shape == Shape::kKeyedRows) {
      AddDeclaredPaths(m.members, here, paths);
    }
  }
}

}  // namespace

bool Fits(Type type, const Value& value) {
  if (value.is_null()) return true;
  switch (type) {
    case Type::kText:
      return std::holds_alternative<std::string>(value.data);
    case Type::kInteger:
      return std::holds_alternative<std::int64_t>(value.data);
    case Type::kNumber:
      return std::holds_alternative<double>(value.data) ||
             std::holds_alternative<std::int64_t>(value.data);
    case Type::kBoolean:
      return std::holds_alternative<bool>(value.data);
  }
  return false;
}

std::vector<std::string> Undeclared(const Report& report) {
  if (report.document == nullptr) return {};
  Checker checker;
  const std::vector<Member>& declared = report.document->members;
  for (const Section& section : report.sections) checker.Child(declared, section, section.name);
  for (const Table& table : report.tables) checker.Rows(declared, table, table.name);
  return checker.problems;
}

void AddWrittenPaths(const Report& report, std::set<std::string>& paths) {
  for (const Section& section : report.sections) AddSectionPaths(section, section.name, paths);
  for (const Table& table : report.tables) AddTablePaths(table, table.name, paths);
}

std::set<std::string> DeclaredPaths(const Document& document) {
  std::set<std::string> paths;
  AddDeclaredPaths(document.members, "", paths);
  return paths;
}

}  // namespace dlcheck::report::contract
