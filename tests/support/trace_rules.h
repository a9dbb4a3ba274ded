// SPDX-License-Identifier: Apache-2.0
#pragma once
// The rules DevTools' trace engine holds a Chrome trace to, checked on a parsed file: the JSON
// object format (`traceEvents`, `displayTimeUnit`), numeric ts/pid/tid, process and thread
// names for every thread that has events, metadata before every other event and at or before
// the earliest of them (no event outside the trace's bounds), ts > 0 (0 reads as unset), and
// no negative duration. Returns the complete ("X") events, in file order.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>
#include <vector>

namespace dlcheck::testing {

inline std::vector<nlohmann::json> ExpectDevToolsTrace(const nlohmann::json& doc) {
  std::vector<nlohmann::json> complete;
  EXPECT_TRUE(doc.is_object()) << "the JSON object format, not a bare array";
  EXPECT_TRUE(doc.contains("displayTimeUnit") && doc["displayTimeUnit"].is_string());
  if (!doc.contains("traceEvents") || !doc["traceEvents"].is_array()) {
    ADD_FAILURE() << "no traceEvents array";
    return complete;
  }
  std::set<std::int64_t> named_processes;
  std::set<std::pair<std::int64_t, std::int64_t>> named_threads, used_threads;
  double metadata_ts = std::numeric_limits<double>::infinity();
  for (const nlohmann::json& e : doc["traceEvents"]) {
    EXPECT_TRUE(e["ph"].is_string() && e["ts"].is_number() && e["pid"].is_number_integer() &&
                e["tid"].is_number_integer())
        << e.dump();
    if (!e["ts"].is_number() || !e["pid"].is_number_integer() || !e["tid"].is_number_integer()) {
      continue;
    }
    const auto pid = e["pid"].get<std::int64_t>(), tid = e["tid"].get<std::int64_t>();
    const double ts = e["ts"].get<double>();
    if (e["ph"] == "M") {
      EXPECT_TRUE(complete.empty()) << "metadata after an event: " << e.dump();
      EXPECT_FALSE(e["args"]["name"].get<std::string>().empty()) << e.dump();
      if (e["name"] == "process_name") named_processes.insert(pid);
      if (e["name"] == "thread_name") named_threads.insert({pid, tid});
      metadata_ts = std::min(metadata_ts, ts);
      continue;
    }
    EXPECT_EQ(e["ph"], "X") << e.dump();
    EXPECT_GT(ts, 0) << "ts 0 reads as unset: " << e.dump();
    EXPECT_GE(ts, metadata_ts) << "an event before the trace's start: " << e.dump();
    EXPECT_TRUE(e["dur"].is_number() && e["dur"].get<double>() >= 0) << e.dump();
    used_threads.insert({pid, tid});
    complete.push_back(e);
  }
  for (const auto& [pid, tid] : used_threads) {
    EXPECT_TRUE(named_processes.count(pid)) << "process " << pid << " has no process_name";
    EXPECT_TRUE(named_threads.count({pid, tid})) << "thread " << tid << " has no thread_name";
  }
  return complete;
}

}  // namespace dlcheck::testing
