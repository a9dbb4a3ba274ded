// SPDX-License-Identifier: Apache-2.0
#include "detect/topology.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

#include "detect/topology_report.h"
#include "detect/topology_xml_bounds.h"
#include "report/printer.h"
#include "support/run_dlcheck.h"

namespace dlcheck::detect {
namespace {

std::string HwlocData(const std::string& name) {
  return dlcheck::testing::DataPath("hwloc/" + name);
}

Topology MustLoad(const std::string& path) {
  StatusOr<Topology> topo = LoadTopologyXml(path);
  EXPECT_TRUE(topo.ok()) << path << ": " << topo.status().message();
  return topo.ok() ? *topo : Topology{};
}

// What tests/data/hwloc/INDEX.md records for each file (hwloc-info / lstopo of hwloc 2.9.0);
// smt_per_core from its "SMT on / off" lines, kinds from its cpukinds notes.
struct Expected {
  const char* file;
  int packages, numa_nodes, cores, pus, l3, smt_per_core, core_kinds;
};

constexpr Expected kFixtures[] = {
    {"Intel-RaptorLake-Corei7-1370P.xml", 1, 1, 14, 20, 1, 2, 2},
    {"Intel-ArrowLake-CoreUltra5-225U.xml", 1, 1, 12, 14, 1, 2, 3},
    {"Intel-KnightsLanding-XeonPhi-7210.xml", 1, 1, 64, 256, 0, 4, 0},
    {"Intel-Haswell-2xXeon-E5-2680v3.xml", 2, 1, 24, 24, 4, 1, 0},
    {"Intel-SapphireRapids-2xXeonMax9460.xml", 2, 1, 80, 160, 2, 2, 0},
    {"Intel-Penryn-4xXeon-X7460.xml", 4, 1, 24, 24, 4, 1, 0},
    {"AMD-17h-Zen-2xEpyc-7451.xml", 2, 8, 48, 96, 16, 2, 0},
    {"AMD-19h-Zen4-2xEpyc-9654.xml", 2, 2, 192, 384, 24, 2, 0},
    {"AMD-15h-Bulldozer-4xOpteron-6272.xml", 4, 8, 64, 64, 8, 1, 0},
    {"memorysidecaches.xml", 2, 4, 40, 80, 2, 2, 0},
    {"28intel64-2p2g7c-CoDgroups.v1tov2.xml", 2, 4, 28, 28, 0, 1, 0},
    {"24em64t-2n6c2t-pci.xml", 2, 2, 12, 24, 2, 2, 0},
    {"nvidiaDGX2.xml", 2, 2, 4, 4, 2, 1, 0},  // one cpukind: reported as none
    {"16amd64-4distances.xml", 8, 8, 16, 16, 0, 1, 0},
    {"192em64t-24n8c2t.xml", 24, 24, 192, 384, 24, 2, 0},
    {"Intel-EmeraldRapids-KVM16.xml", 1, 1, 16, 16, 1, 1, 0},  // one cpukind: reported as none
};

TEST(TopologyXmlTest, EveryFixtureHasTheCountsHwlocInfoReports) {
  for (const Expected& e : kFixtures) {
    SCOPED_TRACE(e.file);
    const Topology t = MustLoad(HwlocData(e.file));
    EXPECT_EQ(t.source, HwlocData(e.file));
    EXPECT_FALSE(t.is_this_system);
    EXPECT_EQ(t.packages, e.packages);
    EXPECT_EQ(t.numa_nodes, e.numa_nodes);
    EXPECT_EQ(t.cores, e.cores);
    EXPECT_EQ(t.pus, e.pus);
    EXPECT_EQ(t.l3_instances, e.l3);
    EXPECT_EQ(t.smt_per_core, e.smt_per_core);
    EXPECT_EQ(t.cpu_kinds.size(), static_cast<std::size_t>(e.core_kinds));
    EXPECT_EQ(t.numa.size(), static_cast<std::size_t>(e.numa_nodes));
    // Recorded files allow every PU (none was saved from a restricted process).
    EXPECT_EQ(t.allowed_pus, e.pus);
    EXPECT_FALSE(t.allowed_differs);
    EXPECT_TRUE(t.findings.empty());
  }
}

TEST(TopologyXmlTest, GroupsAndDiesAsIndexLists) {
  EXPECT_EQ(MustLoad(HwlocData("AMD-17h-Zen-2xEpyc-7451.xml")).groups, 8);
  EXPECT_EQ(MustLoad(HwlocData("memorysidecaches.xml")).groups, 4);
  EXPECT_EQ(MustLoad(HwlocData("28intel64-2p2g7c-CoDgroups.v1tov2.xml")).groups, 4);
  EXPECT_EQ(MustLoad(HwlocData("16amd64-4distances.xml")).groups, 2);
  const Topology genoa = MustLoad(HwlocData("AMD-19h-Zen4-2xEpyc-9654.xml"));
  EXPECT_EQ(genoa.dies, 24);
  EXPECT_EQ(genoa.groups, 0);
}

// lscpu -e's map and lscpu -C's geometry, from the recorded Genoa (2 x EPYC 9654, 2 nodes): 384
// PUs, two to a core, each on its package and node and under one of the 24 L3s (CCXs); 64-byte
// lines everywhere, the L1s and L2 8-way, the L3 16-way (the XML's cache attributes).
TEST(TopologyXmlTest, EveryPuIsMappedAsLscpuMapsIt) {
  const Topology genoa = MustLoad(HwlocData("AMD-19h-Zen4-2xEpyc-9654.xml"));
  ASSERT_EQ(genoa.cpus.size(), static_cast<std::size_t>(genoa.pus));
  std::set<int> cores, packages, nodes, l1ds, l2s, l3s;
  std::map<int, std::set<int>> l2s_of_core;
  for (std::size_t i = 0; i < genoa.cpus.size(); ++i) {
    const PuPlace& p = genoa.cpus[i];
    if (i > 0) {
      EXPECT_LT(genoa.cpus[i - 1].cpu, p.cpu);
    }
    EXPECT_TRUE(p.allowed);
    cores.insert(p.core);
    packages.insert(p.package);
    nodes.insert(p.node);
    l1ds.insert(p.l1d);
    l2s.insert(p.l2);
    l3s.insert(p.l3);
    l2s_of_core[p.core].insert(p.l2);
  }
  EXPECT_EQ(cores.size(), static_cast<std::size_t>(genoa.cores));
  EXPECT_EQ(packages, (std::set<int>{0, 1}));
  EXPECT_EQ(nodes.size(), genoa.numa.size());
  EXPECT_EQ(l1ds.size(), static_cast<std::size_t>(genoa.cores));
  EXPECT_EQ(l2s.size(), static_cast<std::size_t>(genoa.cores));
  EXPECT_EQ(l3s.size(), static_cast<std::size_t>(genoa.l3_instances));
  EXPECT_EQ(cores.count(-1) + packages.count(-1) + nodes.count(-1) + l3s.count(-1), 0u);
  for (const auto& [core, l2] : l2s_of_core) EXPECT_EQ(l2.size(), 1u) << "core " << core;
  for (const CacheInfo& c : genoa.caches) {
    EXPECT_EQ(c.line_bytes, 64) << "L" << c.level << " " << c.type;
    EXPECT_EQ(c.ways, c.level == 3 ? 16 : 8) << "L" << c.level << " " << c.type;
  }
}

bool SameCache(const CacheInfo& a, const CacheInfo& b) {
  return a.level == b.level && a.type == b.type && a.size_bytes == b.size_bytes &&
         a.instances == b.instances && a.cores_per_instance == b.cores_per_instance &&
         a.pus_per_instance == b.pus_per_instance;
}

std::string Describe(const std::vector<CacheInfo>& caches) {
  std::string text;
  for (const CacheInfo& c : caches) {
    text += "L" + std::to_string(c.level) + " " + c.type + " " + std::to_string(c.size_bytes) +
            " x" + std::to_string(c.instances) + " cores " + std::to_string(c.cores_per_instance) +
            " pus " + std::to_string(c.pus_per_instance) + "\n";
  }
  return text;
}

void ExpectCaches(const std::vector<CacheInfo>& actual, const std::vector<CacheInfo>& expected) {
  ASSERT_EQ(actual.size(), expected.size()) << Describe(actual);
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_TRUE(SameCache(actual[i], expected[i])) << "row " << i << "\nactual:\n"
                                                   << Describe(actual) << "expected:\n"
                                                   << Describe(expected);
  }
}

constexpr std::int64_t kKiB = 1024;

// Expected caches below are what `lstopo --input F --of console` shows for the file.
TEST(TopologyXmlTest, RaptorLakeHasHybridCachesAndTwoKinds) {
  const Topology t = MustLoad(HwlocData("Intel-RaptorLake-Corei7-1370P.xml"));
  ExpectCaches(t.caches, {
                             {1, "data", 32 * kKiB, 8, 1, 1},
                             {1, "data", 48 * kKiB, 6, 1, 2},
                             {1, "instruction", 32 * kKiB, 6, 1, 2},
                             {1, "instruction", 64 * kKiB, 8, 1, 1},
                             {2, "unified", 1280 * kKiB, 6, 1, 2},
                             {2, "unified", 2048 * kKiB, 2, 4, 4},
                             {3, "unified", 24576 * kKiB, 1, 14, 20},
                         });
  ASSERT_EQ(t.cpu_kinds.size(), 2u);
  EXPECT_EQ(t.cpu_kinds[0].name, "IntelAtom");
  EXPECT_EQ(t.cpu_kinds[0].infos, "CoreType=IntelAtom");
  EXPECT_EQ(t.cpu_kinds[0].efficiency, 0);
  EXPECT_EQ(t.cpu_kinds[0].cores, 8);
  EXPECT_EQ(t.cpu_kinds[0].pus, 8);
  EXPECT_EQ(t.cpu_kinds[1].name, "IntelCore");
  EXPECT_EQ(t.cpu_kinds[1].efficiency, 1);
  EXPECT_EQ(t.cpu_kinds[1].cores, 6);
  EXPECT_EQ(t.cpu_kinds[1].pus, 12);
  // CPUID-derived: one NUMA node, memory unknown.
  ASSERT_EQ(t.numa.size(), 1u);
  EXPECT_EQ(t.numa[0].memory_bytes, 0);
  EXPECT_EQ(t.numa[0].cores, 14);
  EXPECT_EQ(t.numa[0].pus, 20);
  EXPECT_EQ(t.memory_bytes, 0);
  EXPECT_EQ(t.allowed_cpuset, "0-19");
}

TEST(TopologyXmlTest, ArrowLakeHasThreeKinds) {
  const Topology t = MustLoad(HwlocData("Intel-ArrowLake-CoreUltra5-225U.xml"));
  ASSERT_EQ(t.cpu_kinds.size(), 3u);
  const std::pair<std::string, int> expected[] = {
      {"IntelLowPower", 2}, {"IntelAtom", 8}, {"IntelCore", 2}};
  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(t.cpu_kinds[i].name, expected[i].first);
    EXPECT_EQ(t.cpu_kinds[i].efficiency, i);
    EXPECT_EQ(t.cpu_kinds[i].cores, expected[i].second);
  }
  EXPECT_EQ(t.cpu_kinds[0].pus, 2);
  EXPECT_EQ(t.cpu_kinds[1].pus, 8);
  EXPECT_EQ(t.cpu_kinds[2].pus, 4);
}

TEST(TopologyXmlTest, KnightsLandingHasNoL3) {
  const Topology t = MustLoad(HwlocData("Intel-KnightsLanding-XeonPhi-7210.xml"));
  EXPECT_EQ(t.l3_instances, 0);
  ExpectCaches(t.caches, {
                             {1, "data", 32 * kKiB, 64, 1, 4},
                             {1, "instruction", 32 * kKiB, 64, 1, 4},
                             {2, "unified", 1024 * kKiB, 32, 2, 8},
                         });
}

TEST(TopologyXmlTest, Epyc9654Has24L3OnePerDie) {
  const Topology t = MustLoad(HwlocData("AMD-19h-Zen4-2xEpyc-9654.xml"));
  ExpectCaches(t.caches, {
                             {1, "data", 32 * kKiB, 192, 1, 2},
                             {1, "instruction", 32 * kKiB, 192, 1, 2},
                             {2, "unified", 1024 * kKiB, 192, 1, 2},
                             {3, "unified", 32768 * kKiB, 24, 8, 16},
                         });
  EXPECT_TRUE(t.cpu_kinds.empty());
}

TEST(TopologyXmlTest, MemorySideCachesAndNumaMemory) {
  const Topology t = MustLoad(HwlocData("memorysidecaches.xml"));
  // From the file: 4 MemCache cache_size="103079215104" depth="1"; L3 cache_size="28835840".
  ExpectCaches(t.caches, {
                             {1, "memory-side", 103079215104, 4, 10, 20},
                             {2, "unified", 1024 * kKiB, 40, 1, 2},
                             {3, "unified", 28835840, 2, 20, 40},
                         });
  ASSERT_EQ(t.numa.size(), 4u);
  // local_memory of os_index 0, 1, 2, 3 in the file (which lists them as 0, 2, 1, 3).
  const std::int64_t memory[] = {397816131584, 399527780352, 399527772160, 399526719488};
  for (unsigned i = 0; i < 4; ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(t.numa[i].os_index, i);
    EXPECT_EQ(t.numa[i].memory_bytes, memory[i]);
    EXPECT_EQ(t.numa[i].cores, 10);
    EXPECT_EQ(t.numa[i].pus, 20);
  }
  EXPECT_EQ(t.memory_bytes, 1596398403584);
}

// --- errors: a clear one-line message and InputError ------------------------------------------

void ExpectInputError(const std::string& path, const std::string& message) {
  StatusOr<Topology> topo = LoadTopologyXml(path);
  ASSERT_FALSE(topo.ok()) << path;
  EXPECT_EQ(topo.status().code(), ExitCode::kInputError);
  EXPECT_EQ(topo.status().message(), message);
}

TEST(TopologyErrorTest, MissingFile) {
  const std::string path = HwlocData("invalid/no-such-file.xml");
  ExpectInputError(path, "cannot open topology file '" + path +
                             "': No such file or directory; give an hwloc XML file (lstopo "
                             "--of xml)");
}

TEST(TopologyErrorTest, Directory) {
  const std::string path = HwlocData("invalid");
  ExpectInputError(path, "cannot read topology file '" + path +
                             "': it is a directory; give an hwloc XML file (lstopo --of xml)");
}

TEST(TopologyErrorTest, ACharacterDeviceIsRefusedBeforeReading) {
  ExpectInputError("/dev/zero",
                   "cannot read topology file '/dev/zero': it is a character device, not a "
                   "regular file or a pipe");
}

// hwloc's own complaint ("hwloc: Topology does not contain any NUMA node, aborting!" on stderr)
// becomes the reason in dlcheck's one line; nothing reaches stderr from the load itself.
TEST(TopologyErrorTest, NoNumaNodeGivesHwlocsReasonInOneLine) {
  const std::string path = HwlocData("invalid/no-numa-node.xml");
  ::testing::internal::CaptureStderr();
  StatusOr<Topology> topo = LoadTopologyXml(path);
  const std::string printed = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(printed, "");
  ASSERT_FALSE(topo.ok());
  EXPECT_EQ(topo.status().code(), ExitCode::kInputError);
  EXPECT_EQ(topo.status().message(),
            "'" + path +
                "' is not an hwloc XML topology: hwloc could not load it (Topology does not "
                "contain any NUMA node, aborting); write one with hwloc 2.x (lstopo --of xml)");
}

// hwloc's XML reader expands no entities: a file that declares an external one is refused, and
// the entity's file is never read into the report.
TEST(TopologyErrorTest, AnExternalEntityIsRefused) {
  const std::string path = HwlocData("invalid/external-entity.xml");
  ExpectInputError(path, "'" + path +
                             "' is not an hwloc XML topology: hwloc could not load it; write one "
                             "with hwloc 2.x (lstopo --of xml)");
}

// Half of a real file: an input error said before hwloc sees it (hwloc 2.9 leaks what it had
// built when a file ends early, and the sanitizer build would report it).
TEST(TopologyErrorTest, ATruncatedFileIsAnInputError) {
  const std::string path = HwlocData("invalid/truncated.xml");
  ExpectInputError(path, "'" + path +
                             "' is cut short: its <topology> element has no closing </topology>; "
                             "write the whole file again (lstopo --of xml)");
}

// Strings from the XML reach the report only as text safe for a terminal and for JSON.
TEST(TopologyTest, ControlBytesInAnXmlStringAreReplaced) {
  const Topology t = MustLoad(HwlocData("invalid/control-bytes-in-cpukind.xml"));
  ASSERT_EQ(t.cpu_kinds.size(), 2u);
  EXPECT_EQ(t.cpu_kinds[1].name, "Intel?[31mCore?");
  EXPECT_EQ(t.cpu_kinds[1].infos, "CoreType=Intel?[31mCore?");
}

TEST(TopologyErrorTest, NotXml) {
  const std::string path = HwlocData("invalid/not-xml.txt");
  ExpectInputError(path, "'" + path +
                             "' is not an hwloc XML topology: hwloc could not load it; write one "
                             "with hwloc 2.x (lstopo --of xml)");
}

TEST(TopologyErrorTest, XmlThatIsNoTopology) {
  const std::string path = HwlocData("invalid/other-xml.xml");
  ExpectInputError(path, "'" + path +
                             "' is not an hwloc XML topology: hwloc could not load it; write one "
                             "with hwloc 2.x (lstopo --of xml)");
}

// dlcheck builds on Debian 12's hwloc 2.9.0, which the message names.
TEST(TopologyErrorTest, XmlVersion3) {
  const std::string path = HwlocData("invalid/xml-v3.xml");
  ExpectInputError(path, "'" + path +
                             "' was written by hwloc 3.x (XML version 3.0); hwloc 2.9 reads only "
                             "version 2: export it with hwloc 2.x (lstopo --of xml)");
}

// Hostile topologies, generated here: what hwloc would crash on (a stack overflow in its
// recursive import) or size its memory by (an index's bitmap, a distances matrix) is refused
// before hwloc reads it, with the bound and the line; a large but real shape still loads.
std::string Bitmap(unsigned long bit) {
  std::string words = fmt::format("0x{:08x}", 1u << (bit % 32));
  for (unsigned long i = 0; i < bit / 32; ++i) words += ",0x00000000";
  return words;
}

std::string PuXml(unsigned long index, const std::string& os_index = "") {
  const std::string set = Bitmap(index);
  return fmt::format(R"(<object type="PU" os_index="{}" cpuset="{}" complete_cpuset="{}"/>)",
                     os_index.empty() ? std::to_string(index) : os_index, set, set);
}

std::string TopologyXml(const std::string& inside, unsigned long pus = 1,
                        const std::string& after = "") {
  std::string all = "0x00000001";
  if (pus > 1) {
    all.clear();
    for (unsigned long word = (pus + 31) / 32; word-- > 0;) {
      const unsigned long bits = std::min(32ul, pus - word * 32);
      if (!all.empty()) all += ",";
      all += fmt::format("0x{:08x}", bits == 32 ? 0xffffffffu : (1u << bits) - 1);
    }
  }
  return fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE topology SYSTEM \"hwloc2.dtd\">\n"
      "<topology version=\"2.0\">\n<object type=\"Machine\" os_index=\"0\" cpuset=\"{0}\" "
      "complete_cpuset=\"{0}\" allowed_cpuset=\"{0}\" nodeset=\"0x1\" complete_nodeset=\"0x1\" "
      "allowed_nodeset=\"0x1\">\n<object type=\"NUMANode\" os_index=\"0\" cpuset=\"{0}\" "
      "complete_cpuset=\"{0}\" nodeset=\"0x1\" complete_nodeset=\"0x1\" local_memory=\"4096\"/>\n"
      "{1}</object>\n{2}</topology>\n",
      all, inside, after);
}

class HostileTopologyTest : public ::testing::Test {
 protected:
  std::string Write(const std::string& name, const std::string& xml) {
    const std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
    std::ofstream(path, std::ios::binary) << xml;
    return path;
  }
  std::string Refusal(const std::string& path, const std::string& what, int line) {
    return fmt::format(
        "topology file '{}' {} (line {}), more than dlcheck reads; give an hwloc "
        "XML file of a real machine (lstopo --of xml)",
        path, what, line);
  }
};

TEST_F(HostileTopologyTest, DeepNestingIsRefusedBeforeHwlocRecurses) {
  std::string nested;
  const int depth = 200000;
  for (int i = 0; i < depth; ++i) {
    nested += R"(<object type="Group" cpuset="0x00000001" complete_cpuset="0x00000001">)";
  }
  nested += PuXml(0);
  for (int i = 0; i < depth; ++i) nested += "</object>";
  const std::string path = Write("deep.xml", TopologyXml(nested));
  ExpectInputError(path, Refusal(path, "nests elements deeper than 64 levels", 6));
}

TEST_F(HostileTopologyTest, HugeIndexesAndMatricesAreRefusedBeforeHwlocAllocates) {
  const std::string index = Write("index.xml", TopologyXml(PuXml(0, "4294967296")));
  ExpectInputError(index, Refusal(index, "has an os_index above 65535", 6));
  const std::string negative = Write("negative.xml", TopologyXml(PuXml(0, "99999999999999999999")));
  ExpectInputError(negative, Refusal(negative, "has an os_index above 65535", 6));
  const std::string bitmap = Write("bitmap.xml", TopologyXml(PuXml(70000, "0")));
  ExpectInputError(bitmap, Refusal(bitmap, "has a cpuset with indexes above 65535", 6));
  const std::string matrix =
      Write("matrix.xml", TopologyXml(PuXml(0), 1,
                                      "<distances2 type=\"NUMANode\" nbobjs=\"4294967295\" "
                                      "kind=\"5\" indexing=\"os\">\n</distances2>\n"));
  ExpectInputError(matrix, Refusal(matrix, "has a distances matrix of more than 1024 objects", 7));
  std::string many;
  for (std::size_t i = 0; i <= kMaxTopologyObjects; ++i) many += "<object type=\"Misc\"/>";
  const std::string objects = Write("objects.xml", TopologyXml(PuXml(0) + many));
  ExpectInputError(objects, Refusal(objects, "holds more than 131072 objects", 6));
}

// Issue 51: a root object without its complete_cpuset (or complete_nodeset) crashed hwloc's
// import (SIGSEGV, status 139). Each of the root's four sets left out is refused, naming it; an
// object below the root without its complete set, and a root without its allowed sets, load.
TEST_F(HostileTopologyTest, ARootWithoutItsSetsIsRefusedBeforeHwlocCrashes) {
  const std::string whole = TopologyXml(PuXml(0));
  for (const auto& [attribute, pair] : std::vector<std::pair<std::string, std::string>>{
           {" complete_cpuset=\"0x00000001\"", "a cpuset and a complete_cpuset"},
           {" cpuset=\"0x00000001\"", "a cpuset and a complete_cpuset"},
           {" complete_nodeset=\"0x1\"", "a nodeset and a complete_nodeset"},
           {" nodeset=\"0x1\"", "a nodeset and a complete_nodeset"}}) {
    std::string xml = whole;
    const std::size_t root = xml.find("<object type=\"Machine\"");
    const std::size_t at = xml.find(attribute, root);
    ASSERT_LT(at, xml.find('>', root)) << attribute;
    xml.erase(at, attribute.size());
    const std::string path = Write("root_sets.xml", xml);
    ExpectInputError(path, fmt::format("topology file '{}' has a root object without both {} "
                                       "(line 4): hwloc cannot load that; give an hwloc XML file "
                                       "of a real machine (lstopo --of xml)",
                                       path, pair));
  }
  std::string allowed = whole;
  allowed.erase(allowed.find(" allowed_cpuset="),
                std::string(" allowed_cpuset=\"0x00000001\"").size());
  EXPECT_TRUE(LoadTopologyXml(Write("no_allowed.xml", allowed)).ok());
  std::string pu = whole;
  const std::size_t pu_at = pu.find("<object type=\"PU\"");
  pu.erase(pu.find(" complete_cpuset=", pu_at),
           std::string(" complete_cpuset=\"0x00000001\"").size());
  EXPECT_TRUE(LoadTopologyXml(Write("pu.xml", pu)).ok());
}

TEST_F(HostileTopologyTest, TwoHundredFiftySixPackagesLoad) {
  std::string packages;
  for (unsigned long p = 0; p < 256; ++p) {
    const std::string set = Bitmap(p);
    packages += fmt::format(
        R"(<object type="Package" os_index="{0}" cpuset="{1}" complete_cpuset="{1}">)"
        R"(<object type="Core" os_index="0" cpuset="{1}" complete_cpuset="{1}">{2}</object>)"
        "</object>\n",
        p, set, PuXml(p));
  }
  const Topology topology = MustLoad(Write("packages.xml", TopologyXml(packages, 256)));
  EXPECT_EQ(topology.packages, 256);
  EXPECT_EQ(topology.cores, 256);
  EXPECT_EQ(topology.pus, 256);
}

TEST(TopologyErrorTest, SaveToMissingDirectory) {
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "no-such-dir" / "topology.xml").string();
  const Status status = SaveLiveTopologyXml(path);
  EXPECT_EQ(status.code(), ExitCode::kOutputError);
  EXPECT_EQ(status.message(), "cannot write '" + path + "': No such file or directory");
}

// --- the live host: invariants only ---------------------------------------------------------

// `lscpu -p=CPU,CORE,SOCKET`: one line per online CPU, comments start with '#'.
struct LscpuCounts {
  int pus = 0;
  int cores = 0;
  int packages = 0;
};

LscpuCounts RunLscpu() {
  LscpuCounts counts;
  FILE* pipe = popen("lscpu -p=CPU,CORE,SOCKET", "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot run lscpu";
    return counts;
  }
  std::set<std::pair<int, int>> cores;
  std::set<int> sockets;
  char line[256];
  while (fgets(line, sizeof line, pipe) != nullptr) {
    if (line[0] == '#') continue;
    int cpu = 0, core = 0, socket = 0;
    if (std::sscanf(line, "%d,%d,%d", &cpu, &core, &socket) != 3) continue;
    ++counts.pus;
    cores.insert({socket, core});
    sockets.insert(socket);
  }
  EXPECT_EQ(pclose(pipe), 0) << "lscpu failed";
  counts.cores = static_cast<int>(cores.size());
  counts.packages = static_cast<int>(sockets.size());
  return counts;
}

TEST(TopologyLiveTest, AgreesWithLscpuAndIsConsistent) {
  StatusOr<Topology> live = LoadLiveTopology();
  ASSERT_TRUE(live.ok()) << live.status().message();
  const Topology& t = *live;
  const LscpuCounts lscpu = RunLscpu();
  ASSERT_GT(lscpu.pus, 0);
  EXPECT_EQ(t.source, "live");
  EXPECT_TRUE(t.is_this_system);
  EXPECT_EQ(t.packages, lscpu.packages);
  EXPECT_EQ(t.cores, lscpu.cores);
  EXPECT_EQ(t.pus, lscpu.pus);
  EXPECT_GE(t.numa_nodes, 1);
  EXPECT_GE(t.smt_per_core, 1);
  EXPECT_GE(t.cores * t.smt_per_core, t.pus);
  EXPECT_LE(t.cores, t.pus);
  EXPECT_GE(t.allowed_pus, 1);
  EXPECT_LE(t.allowed_pus, t.pus);
  EXPECT_EQ(t.allowed_differs, t.allowed_pus != t.pus);
  EXPECT_FALSE(t.allowed_cpuset.empty());
  // A cgroup CPU quota, where there is one, is a positive number of CPUs, with its file.
  if (t.cpu_quota) {
    EXPECT_GT(*t.cpu_quota, 0);
    EXPECT_FALSE(t.cpu_quota_file.empty());
  }
  int numa_pus = 0;
  for (const NumaNodeInfo& n : t.numa) numa_pus += n.pus;
  EXPECT_EQ(numa_pus, t.pus) << "NUMA nodes must partition the PUs";
  for (const CacheInfo& c : t.caches) {
    EXPECT_GT(c.instances, 0);
    EXPECT_LE(c.instances, t.pus) << "L" << c.level << " " << c.type;
    EXPECT_GE(c.pus_per_instance, 1) << "L" << c.level << " " << c.type;
    EXPECT_LE(c.pus_per_instance, t.pus) << "L" << c.level << " " << c.type;
  }
}

TEST(TopologyLiveTest, SaveThenLoadGivesTheSameMachine) {
  StatusOr<Topology> live = LoadLiveTopology();
  ASSERT_TRUE(live.ok()) << live.status().message();
  const std::string path =
      (std::filesystem::path(::testing::TempDir()) / "dlcheck-topology-roundtrip.xml").string();
  const Status saved = SaveLiveTopologyXml(path);
  ASSERT_TRUE(saved.ok()) << saved.message();
  const Topology replay = MustLoad(path);
  std::filesystem::remove(path);
  EXPECT_EQ(replay.source, path);
  EXPECT_FALSE(replay.is_this_system);
  EXPECT_EQ(replay.packages, live->packages);
  EXPECT_EQ(replay.numa_nodes, live->numa_nodes);
  EXPECT_EQ(replay.cores, live->cores);
  EXPECT_EQ(replay.pus, live->pus);
  EXPECT_EQ(replay.smt_per_core, live->smt_per_core);
  EXPECT_EQ(replay.l3_instances, live->l3_instances);
  EXPECT_EQ(replay.memory_bytes, live->memory_bytes);
  ExpectCaches(replay.caches, live->caches);
  EXPECT_EQ(replay.cpu_kinds.size(), live->cpu_kinds.size());
}

// --- the report section --------------------------------------------------------------------

nlohmann::json Json(const report::Report& r) {
  std::ostringstream out;
  report::PrintJson(r, out);
  return nlohmann::json::parse(out.str());
}

TEST(TopologyReportTest, SectionHasFieldsAndTables) {
  report::Report r;
  r.command = "platform";
  AddTopology(MustLoad(HwlocData("Intel-RaptorLake-Corei7-1370P.xml")), r);
  const nlohmann::json doc = Json(r);
  ASSERT_TRUE(doc.contains("topology")) << doc.dump(2);
  const nlohmann::json& t = doc["topology"];
  EXPECT_EQ(t["source"], HwlocData("Intel-RaptorLake-Corei7-1370P.xml"));
  EXPECT_EQ(t["is_this_system"], false);
  EXPECT_EQ(t["packages"], 1);
  EXPECT_EQ(t["numa_nodes"], 1);
  EXPECT_EQ(t["cores"], 14);
  EXPECT_EQ(t["pus"], 20);
  EXPECT_EQ(t["smt_per_core"], 2);
  EXPECT_EQ(t["l3_instances"], 1);
  EXPECT_TRUE(t["memory_mib"].is_null()) << "unknown memory must be null, not 0";
  EXPECT_EQ(t["allowed_pus"], 20);
  EXPECT_EQ(t["allowed_cpuset"], "0-19");
  EXPECT_EQ(t["allowed_differs"], false);

  ASSERT_TRUE(t["caches"].is_array());
  ASSERT_EQ(t["caches"].size(), 7u);
  EXPECT_EQ(t["caches"][5], nlohmann::json({{"level", 2},
                                            {"type", "unified"},
                                            {"size_kib", 2048},
                                            {"instances", 2},
                                            {"cores_per_instance", 4},
                                            {"pus_per_instance", 4},
                                            {"line_bytes", 64},
                                            {"ways", 16}}));
  // lscpu -e's map: a row a PU.
  ASSERT_EQ(t["cpus"].size(), 20u);
  EXPECT_EQ(t["cpus"][0]["cpu"], 0);
  EXPECT_EQ(t["cpus"][0]["allowed"], true);
  ASSERT_EQ(t["numa"].size(), 1u);
  EXPECT_EQ(t["numa"][0],
            nlohmann::json({{"os_index", 0}, {"memory_mib", nullptr}, {"cores", 14}, {"pus", 20}}));
  ASSERT_EQ(t["core_kinds"].size(), 2u);
  EXPECT_EQ(t["core_kinds"][1], nlohmann::json({{"name", "IntelCore"},
                                                {"efficiency", 1},
                                                {"cores", 6},
                                                {"pus", 12},
                                                {"infos", "CoreType=IntelCore"}}));
  EXPECT_TRUE(doc["findings"].empty()) << doc["findings"].dump();
}

TEST(TopologyReportTest, NumaMemoryInMib) {
  report::Report r;
  AddTopology(MustLoad(HwlocData("memorysidecaches.xml")), r);
  const nlohmann::json t = Json(r)["topology"];
  EXPECT_EQ(t["memory_mib"], 1596398403584 / (1024 * 1024));
  EXPECT_EQ(t["numa"][0]["memory_mib"], 397816131584 / (1024 * 1024));
  EXPECT_EQ(t["caches"][0]["type"], "memory-side");
  EXPECT_EQ(t["caches"][0]["size_kib"], 96 * 1024 * 1024);
  EXPECT_TRUE(t["core_kinds"].empty());
}

Topology Restricted(std::string source) {
  Topology t;
  t.source = std::move(source);
  t.packages = 2;
  t.cores = 32;
  t.pus = 64;
  t.allowed_pus = 4;
  t.allowed_cpuset = "0-3";
  t.allowed_differs = true;
  t.findings = TopologyFindings(t);  // as the loaders do
  return t;
}

TEST(TopologyFindingsTest, OnlyARestrictedProcessHasOne) {
  Topology whole = Restricted("live");
  whole.allowed_pus = whole.pus;
  whole.allowed_cpuset = "0-63";
  whole.allowed_differs = false;
  EXPECT_TRUE(TopologyFindings(whole).empty());
  const std::vector<Finding> live = TopologyFindings(Restricted("live"));
  ASSERT_EQ(live.size(), 1u);
  EXPECT_EQ(live[0].code, "restricted-cpus");
  EXPECT_EQ(live[0].severity, Severity::kWarning);
  const std::vector<Finding> recorded = TopologyFindings(Restricted("saved/topology.xml"));
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].severity, Severity::kInfo);
}

// A quota below the cpuset's PUs is a warning naming its file and the thread count to use; one
// at or above them says nothing; a replayed topology has none.
TEST(TopologyFindingsTest, ACpuQuotaBelowTheCpusetIsAWarning) {
  Topology t = Restricted("live");
  t.cpu_quota = 2.5;
  t.cpu_quota_file = "/sys/fs/cgroup/job/cpu.max";
  const std::vector<Finding> findings = TopologyFindings(t);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[1].code, "cpu-quota");
  EXPECT_EQ(findings[1].severity, Severity::kWarning);
  EXPECT_EQ(findings[1].message,
            "this process's cgroup may use 2.50 CPUs of time (/sys/fs/cgroup/job/cpu.max) but "
            "its cpuset has 4 CPUs: OpenMP and oneDNN start one thread per CPU of the cpuset, and "
            "the threads wait for each other and for the quota; run programs with "
            "OMP_NUM_THREADS=3 (dlcheck's own thread defaults use 3)");
  t.cpu_quota = 4;
  EXPECT_EQ(TopologyFindings(t).size(), 1u);
  report::Report r;
  t.cpu_quota = 0.5;
  AddTopology(t, r);
  const report::Value* quota = r.sections.back().Find(topology_field::kCpuQuota.name);
  ASSERT_NE(quota, nullptr);
  EXPECT_EQ(std::get<double>(quota->data), 0.5);
}

TEST(TopologyReportTest, RestrictedLiveProcessIsAWarning) {
  report::Report r;
  AddTopology(Restricted("live"), r);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].severity, report::Severity::kWarning);
  EXPECT_EQ(r.findings[0].code, "restricted-cpus");
  EXPECT_EQ(r.findings[0].message,
            "this process may use 4 of 64 PUs (cpuset 0-3): affinity or cgroup limits apply; "
            "benchmarks here see only those");
}

TEST(TopologyReportTest, RestrictedRecordingIsInfo) {
  report::Report r;
  AddTopology(Restricted("saved/topology.xml"), r);
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].severity, report::Severity::kInfo);
  EXPECT_EQ(r.findings[0].message,
            "the recorded topology allows 4 of 64 PUs (cpuset 0-3): cgroup limits applied where "
            "it was recorded");
}

}  // namespace
}  // namespace dlcheck::detect
