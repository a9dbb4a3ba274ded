// SPDX-License-Identifier: Apache-2.0
#pragma once
// A report held against its declared document, both ways: what it writes that the document does
// not declare (or declares with another shape or type), and which declared members it writes.
// The contract test builds every command's document from constructed inputs with these: every
// written member must be declared, and every declared member written by some input.
//
//   for (const std::string& problem : contract::Undeclared(report)) ADD_FAILURE() << problem;
//   contract::AddWrittenPaths(report, written);   // "topology.caches.level", ...

#include <set>
#include <string>
#include <vector>

#include "report/contract.h"
#include "report/report.h"

namespace dlcheck::report::contract {

/// Whether `value` may be the value of a member of `type`: null always; an integer where a number
/// is declared (JSON does not tell them apart).
bool Fits(Type type, const Value& value);

/// One line per member `report` writes that its document does not declare, declares with
/// another shape, or whose value is of another type ("cpu.family: string where integer
/// is declared"). Empty when the report keeps its contract; a report without a document has no
/// contract to keep.
std::vector<std::string> Undeclared(const Report& report);

/// Adds the path of every member `report` writes: a section's fields ("cpu.vendor"), a table's
/// columns ("topology.caches.level"), a map or a list as one member.
void AddWrittenPaths(const Report& report, std::set<std::string>& paths);

/// The path of every member `document` declares, in the same spelling.
std::set<std::string> DeclaredPaths(const Document& document);

}  // namespace dlcheck::report::contract
