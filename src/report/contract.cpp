// SPDX-License-Identifier: Apache-2.0
#include "report/contract.h"

#include <algorithm>

#include "report/json_value.h"

namespace dlcheck::report::contract {

namespace {

Shape ShapeOf(Arity arity) {
  switch (arity) {
    case Arity::kList:
      return Shape::kList;
    case Arity::kMap:
      return Shape::kMap;
    case Arity::kOne:
      break;
  }
  return Shape::kScalar;
}

}  // namespace

Member::Member(const Field& field)
    : name(field.name), shape(ShapeOf(field.arity)), type(field.type) {}

std::vector<Member> Members(std::span<const Field> fields) {
  return {fields.begin(), fields.end()};
}

std::vector<Member> Joined(std::vector<Member> first, std::vector<Member> then) {
  for (Member& m : then) first.push_back(std::move(m));
  return first;
}

Member Object(const Part& part, std::vector<Member> members) {
  return {std::string(part.name), Shape::kObject, Type::kText, std::move(members)};
}
Member Rows(const Part& part, std::vector<Member> columns) {
  return {std::string(part.name), Shape::kRows, Type::kText, std::move(columns)};
}
Member KeyedRows(const Part& part, std::vector<Member> columns) {
  return {std::string(part.name), Shape::kKeyedRows, Type::kText, std::move(columns)};
}

const char* TypeName(Type type) {
  switch (type) {
    case Type::kText:
      return "string";
    case Type::kInteger:
      return "integer";
    case Type::kNumber:
      return "number";
    case Type::kBoolean:
      return "boolean";
  }
  return "string";
}

const Member* FindMember(const std::vector<Member>& members, std::string_view name) {
  const auto it =
      std::find_if(members.begin(), members.end(), [&](const Member& m) { return m.name == name; });
  return it == members.end() ? nullptr : &*it;
}

namespace {

// Any value may be null: something the machine could not measure, a field a log did not carry.
Json Nullable(Json schema) {
  if (schema.contains("type")) {
    schema["type"] = Json::array({schema["type"], "null"});
  } else {
    schema = Json{{"anyOf", Json::array({std::move(schema), Json{{"type", "null"}}})}};
  }
  return schema;
}

Json ScalarSchema(Type type) {
  return Json{{"type", TypeName(type)}};
}

Json MemberSchema(const Member& member);

// An object whose members are all present (null when unknown), and which may gain members in
// later versions.
Json ObjectSchema(const std::vector<Member>& members, bool all_required) {
  Json properties = Json::object();
  Json required = Json::array();
  for (const Member& m : members) {
    properties[m.name] = MemberSchema(m);
    required.push_back(m.name);
  }
  Json schema{{"type", "object"}, {"properties", std::move(properties)}};
  if (all_required && !required.empty()) schema["required"] = std::move(required);
  return schema;
}

Json MemberSchema(const Member& member) {
  switch (member.shape) {
    case Shape::kScalar:
      return Nullable(ScalarSchema(member.type));
    case Shape::kObject:
      return Nullable(ObjectSchema(member.members, /*all_required=*/true));
    case Shape::kRows:
      // Row objects carry the table's columns, all of them unless --columns chose some: none is
      // required, each has its type.
      return Nullable(
          Json{{"type", "array"}, {"items", ObjectSchema(member.members, /*all_required=*/false)}});
    case Shape::kKeyedRows:
      return Nullable(
          Json{{"type", "object"},
               {"additionalProperties", ObjectSchema(member.members, /*all_required=*/false)}});
    case Shape::kMap:
      return Nullable(
          Json{{"type", "object"}, {"additionalProperties", Nullable(ScalarSchema(member.type))}});
    case Shape::kList:
      return Nullable(Json{{"type", "array"}, {"items", Nullable(ScalarSchema(member.type))}});
  }
  return Json::object();
}

Json FindingsSchema() {
  const Json text{{"type", "string"}};
  return Json{
      {"type", "array"},
      {"items", Json{{"type", "object"},
                     {"properties",
                      Json{{"severity", Json{{"enum", Json::array({"info", "warning", "error"})}}},
                           {"code", text},
                           {"message", text}}},
                     {"required", Json::array({"severity", "code", "message"})}}}};
}

}  // namespace

std::string SchemaText(const Document& document) {
  Json properties = Json::object();
  properties["schema_version"] = Json{{"const", 1}};
  properties["command"] = Json{{"const", document.command}};
  properties["dlcheck_version"] = Json{{"type", "string"}};
  Json required = Json::array({"schema_version", "command", "dlcheck_version"});
  for (const Member& m : document.members) {
    properties[m.name] = MemberSchema(m);
    required.push_back(m.name);
  }
  properties["findings"] = FindingsSchema();
  required.push_back("findings");
  const Json schema{
      {"$schema", "https://json-schema.org/draft/2020-12/schema"},
      {"$id", "https://github.com/dlcheck/dlcheck/schemas/" + document.command + ".schema.json"},
      {"title", "dlcheck " + document.command + " --format json"},
      {"description", document.title},
      {"type", "object"},
      {"properties", std::move(properties)},
      {"required", std::move(required)}};
  return schema.dump(1) + "\n";
}

}  // namespace dlcheck::report::contract
