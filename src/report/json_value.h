// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one conversion of a Value to JSON, shared by the JSON and trace printers (private to
// src/report: no other module sees nlohmann).

#include <nlohmann/json.hpp>

#include "report/report.h"

namespace dlcheck::report {

using Json = nlohmann::ordered_json;

/// null, true/false, an integer, a real rounded to the Value's precision (non-finite: null), or
/// a string (its invalid UTF-8 is replaced when the document is dumped: see DumpJson).
Json ToJson(const Value& value);

/// The document as text; byte sequences that are not valid UTF-8 become U+FFFD instead of an
/// exception, so that no input (a CPU brand from a dump, a log line) can stop a report.
std::string DumpJson(const Json& doc, int indent);

}  // namespace dlcheck::report
