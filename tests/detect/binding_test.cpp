// SPDX-License-Identifier: Apache-2.0
// Thread sets and binding on the live machine: invariants of the topology, not its values.
#include "detect/binding.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <set>
#include <sstream>
#include <string>

#include "detect/topology.h"

namespace dlcheck::detect {
namespace {

// "0-2,5" -> {0,1,2,5}
std::set<int> Cpus(const std::string& list) {
  std::set<int> cpus;
  std::istringstream in(list);
  for (std::string part; std::getline(in, part, ',');) {
    const auto dash = part.find('-');
    const int first = std::stoi(part.substr(0, dash));
    const int last = dash == std::string::npos ? first : std::stoi(part.substr(dash + 1));
    for (int c = first; c <= last; ++c) cpus.insert(c);
  }
  return cpus;
}

TEST(BindingTest, ThreadSetsAreOneAllowedPuPerCore) {
  StatusOr<Topology> topology = LoadLiveTopology();
  ASSERT_TRUE(topology.ok()) << topology.status().message();
  StatusOr<std::vector<ThreadSet>> sets = LiveThreadSets({"1", "socket", "all"});
  ASSERT_TRUE(sets.ok()) << sets.status().message();
  ASSERT_EQ(sets->size(), 3u);
  const ThreadSet& one = (*sets)[0];
  const ThreadSet& socket = (*sets)[1];
  const ThreadSet& all = (*sets)[2];
  EXPECT_EQ(one.name, "1");
  EXPECT_EQ(one.threads, 1);
  EXPECT_GE(socket.threads, 1);
  EXPECT_GE(all.threads, socket.threads);
  EXPECT_LE(all.threads, topology->cores);        // one thread per core, never per PU
  EXPECT_LE(all.threads, topology->allowed_pus);  // only CPUs this process may use
  const std::set<int> allowed = Cpus(topology->allowed_cpuset);
  for (const ThreadSet* set : {&one, &socket, &all}) {
    const std::set<int> cpus = Cpus(set->cpuset);
    EXPECT_EQ(static_cast<int>(cpus.size()), set->threads) << set->cpuset;
    for (int c : cpus) EXPECT_TRUE(allowed.count(c)) << c << " in " << set->cpuset;
  }
  for (int c : Cpus(socket.cpuset)) EXPECT_TRUE(Cpus(all.cpuset).count(c));
}

TEST(BindingTest, CountBeyondTheCoresIsAUsageError) {
  StatusOr<std::vector<ThreadSet>> all = LiveThreadSets({"all"});
  ASSERT_TRUE(all.ok());
  const int too_many = (*all)[0].threads + 1;
  StatusOr<std::vector<ThreadSet>> sets = LiveThreadSets({std::to_string(too_many)});
  ASSERT_FALSE(sets.ok());
  EXPECT_EQ(sets.status().code(), ExitCode::kUsage);
  EXPECT_EQ(sets.status().message(), "--thread-sets: " + std::to_string(too_many) +
                                         " threads asked, but this process may use " +
                                         std::to_string(too_many - 1) +
                                         " cores (one thread per core)");
}

TEST(BindingTest, BindProcessPinsTheCallingProcess) {
  StatusOr<std::vector<ThreadSet>> one = LiveThreadSets({"1"});
  ASSERT_TRUE(one.ok());
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof(before), &before), 0);
  ASSERT_TRUE(BindProcess((*one)[0].cpuset).ok());
  cpu_set_t after;
  ASSERT_EQ(sched_getaffinity(0, sizeof(after), &after), 0);
  EXPECT_EQ(CPU_COUNT(&after), 1);
  EXPECT_TRUE(CPU_ISSET(*Cpus((*one)[0].cpuset).begin(), &after));
  sched_setaffinity(0, sizeof(before), &before);  // leave the test process as it was
}

TEST(BindingTest, MalformedCpusetIsAnInputError) {
  const Status s = BindProcess("zero");
  EXPECT_EQ(s.code(), ExitCode::kInputError);
  EXPECT_EQ(s.message(), "--cpuset: 'zero' is not a CPU list such as 0-3,8");
}

}  // namespace
}  // namespace dlcheck::detect
