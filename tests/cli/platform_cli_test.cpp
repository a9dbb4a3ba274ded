// SPDX-License-Identifier: Apache-2.0
// `dlcheck platform` end to end: errors word for word, formats, --save-raw round trip.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/exit_code.h"
#include "support/run_dlcheck.h"

namespace dlcheck {
namespace {

using testing::DataPath;
using testing::RunDlcheck;

TEST(PlatformCliTest, MissingDumpIsOneInputErrorLine) {
  const auto r = RunDlcheck({"platform", "--cpuid-dump", "/nonexistent/cpu.test"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(r.err,
            "dlcheck: cannot open CPUID dump '/nonexistent/cpu.test': No such file or directory\n");
  EXPECT_TRUE(r.out.empty());
}

TEST(PlatformCliTest, MalformedDumpIsOneInputErrorLine) {
  const std::string path = DataPath("platform/malformed.test");
  const auto r = RunDlcheck({"platform", "--cpuid-dump", path});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(r.err, "dlcheck: " + path + ":1: not a CPUID dump line: 'hello world'\n");
  EXPECT_TRUE(r.out.empty());
}

TEST(PlatformCliTest, DirectoryAsDumpIsOneInputErrorLine) {
  const std::string dir = DataPath("platform");
  const auto r = RunDlcheck({"platform", "--cpuid-dump", dir});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(r.err, "dlcheck: cannot read CPUID dump '" + dir + "': it is a directory\n");
  EXPECT_TRUE(r.out.empty());
}

TEST(PlatformCliTest, SaveRawWithCpuidDumpIsAUsageError) {
  const auto r = RunDlcheck(
      {"platform", "--cpuid-dump", DataPath("platform/unknown-cpu.test"), "--save-raw", "/tmp/x"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(r.err,
            "dlcheck: --save-raw records this machine and cannot be combined with --cpuid-dump "
            "or --topology\n");
}

// A dump whose brand leaves hold non-ASCII and control bytes still gives valid JSON and a table
// without escape sequences.
TEST(PlatformCliTest, BadBrandBytesGiveValidJsonAndAPlainTable) {
  std::ifstream in(DataPath("cpuid/intel-core-i7-4770-cpu.test"));
  std::string dump;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("CPUID 80000002:", 0) == 0) {
      line = "CPUID 80000002: FFFEFDFC-1B5B3331-6D414141-41414141";
    } else if (line.rfind("CPUID 80000003:", 0) == 0 || line.rfind("CPUID 80000004:", 0) == 0) {
      line = line.substr(0, 16) + "00000000-00000000-00000000-00000000";
    }
    dump += line + "\n";
  }
  const std::string path =
      ::testing::TempDir() + "dlcheck_bad_brand_" + std::to_string(getpid()) + ".test";
  std::ofstream(path, std::ios::binary) << dump;
  const auto json = RunDlcheck({"platform", "--cpuid-dump", path, "--format", "json"});
  const auto table = RunDlcheck({"platform", "--cpuid-dump", path});
  std::filesystem::remove(path);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_EQ(nlohmann::json::parse(json.out)["cpu"]["brand"], "????13[?AAAmAAAA");
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("  brand              ????13[?AAAmAAAA\n"), std::string::npos)
      << table.out;
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos);
}

TEST(PlatformCliTest, JsonOfARecordingHasTheDocumentedShape) {
  const auto r = RunDlcheck({"platform", "--cpuid-dump",
                             DataPath("cpuid/amd-epyc-9654-96-core-processor-dual.test.xz"),
                             "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["schema_version"], 1);
  EXPECT_EQ(j["cpu"]["vendor"], "AuthenticAMD");
  EXPECT_EQ(j["cpu"]["brand"], "AMD EPYC 9654 96-Core Processor");
  EXPECT_EQ(j["cpu"]["family"], 25);
  EXPECT_EQ(j["cpu"]["model"], 17);
  EXPECT_EQ(j["cpu"]["microarchitecture"], "Zen 4");
  EXPECT_EQ(j["cpu"]["hypervisor"], false);
  EXPECT_EQ(j["features"]["avx512f"]["cpuid"], true);
  EXPECT_EQ(j["features"]["avx512f"]["libcpuid"], false);
  EXPECT_TRUE(j["features"]["avx512f"]["os"].is_null());
  EXPECT_TRUE(j["features"]["avx512f"]["kernel"].is_null());
  EXPECT_TRUE(j["features"]["avx512f"]["usable"].is_null());
  EXPECT_TRUE(j["features"]["avx512_bf16"]["libcpuid"].is_null());
  EXPECT_EQ(j["levels"]["x86_64"], "x86-64-v4");
  EXPECT_EQ(j["levels"]["onednn_max_isa"], "avx512_core_bf16");
  EXPECT_TRUE(j["levels"]["onednn_effective_isa"].is_null());
  bool libcpuid_finding = false;
  for (const auto& f : j["findings"]) libcpuid_finding |= f["code"] == "libcpuid-no-avx512";
  EXPECT_TRUE(libcpuid_finding) << r.out;
}

// On AMD the human table leaves out what the vendor has none of (10 AMX rows, CPUID leaf 1Ah's
// Intel hybrid table) and says so; --all shows them; JSON keeps them. Intel keeps its AMX rows.
// libcpuid's AVX-512 gap is information, and Zen 4 is said to run AVX-512 on 256-bit units.
TEST(PlatformCliTest, AmdTableLeavesOutIntelFurnitureAndSaysSo) {
  const std::string zen4 = DataPath("cpuid/amd-epyc-9654-96-core-processor-dual.test.xz");
  const auto table = RunDlcheck({"platform", "--cpuid-dump", zen4});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.find("amx_tile"), std::string::npos) << table.out;
  EXPECT_EQ(table.out.find("CPUID leaf 1Ah"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("10 AMX rows left out: AuthenticAMD has no AMX (--all shows them"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("  info: libcpuid 0.6.2 reports no AVX-512"), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("  info: Zen 4 runs AVX-512 on 256-bit units"), std::string::npos)
      << table.out;
  const auto all = RunDlcheck({"platform", "--all", "--cpuid-dump", zen4});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_NE(all.out.find("amx_tile"), std::string::npos) << all.out;
  EXPECT_NE(all.out.find("CPUID leaf 1Ah"), std::string::npos) << all.out;
  EXPECT_EQ(all.out.find("rows left out"), std::string::npos) << all.out;
  const auto json = RunDlcheck({"platform", "--format", "json", "--cpuid-dump", zen4});
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_TRUE(j["features"].contains("amx_tile"));
  EXPECT_EQ(j["features"].size(), nlohmann::json::parse(RunDlcheck({"platform", "--format", "json",
                                                                    "--all", "--cpuid-dump", zen4})
                                                            .out)["features"]
                                      .size());
  EXPECT_FALSE(j["cpu"]["core_kinds"].empty());
  const auto csv = RunDlcheck({"platform", "--format", "csv", "--cpuid-dump", zen4});
  EXPECT_NE(csv.out.find("\namx_tile,"), std::string::npos) << csv.out;
  // Intel: its AMX rows are a fact of its silicon, shown by default.
  const auto emerald =
      RunDlcheck({"platform", "--cpuid-dump",
                  DataPath("cpuid/aida64/GenuineIntel00C06F2_EmeraldRapids_03_CPUID.txt.xz")});
  ASSERT_EQ(emerald.exit_code, 0) << emerald.err;
  EXPECT_NE(emerald.out.find("amx_tile"), std::string::npos);
  EXPECT_EQ(emerald.out.find("rows left out"), std::string::npos);
  EXPECT_EQ(emerald.out.find("256-bit units"), std::string::npos);
}

TEST(PlatformCliTest, CsvHasOneRowPerFeature) {
  const auto r = RunDlcheck(
      {"platform", "--cpuid-dump", DataPath("platform/unknown-cpu.test"), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "feature,cpuid,os,libcpuid,kernel,usable,probe,hidden\r");
  int rows = 0;
  bool avx512f = false;
  while (std::getline(in, line)) {
    ++rows;
    avx512f |= line == "avx512f,true,,true,,,,false\r";  // libcpuid decodes AVX-512 on Intel
  }
  EXPECT_EQ(rows, 40);  // 27, and the 13 bits of 2023-26 (new_isa_bits_test.cpp)
  EXPECT_TRUE(avx512f) << r.out;
}

TEST(PlatformCliTest, LiveJsonLayersAreConsistent) {
  const auto r = RunDlcheck({"platform", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["features"].size(), 40u);
  for (const auto& [name, f] : j["features"].items()) {
    ASSERT_TRUE(f["os"].is_boolean()) << name;
    EXPECT_EQ(f["usable"], f["cpuid"].get<bool>() && f["os"].get<bool>()) << name;
  }
  EXPECT_TRUE(j["levels"]["onednn_effective_isa"].is_string());
}

TEST(PlatformCliTest, SaveRawRoundTripGivesTheSameFeatures) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dlcheck-save-raw-" + std::to_string(getpid()));
  const auto saved = RunDlcheck({"platform", "--save-raw", dir.string(), "--format", "json"});
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const auto replay =
      RunDlcheck({"platform", "--cpuid-dump", (dir / "cpuid.test").string(), "--topology",
                  (dir / "topology.xml").string(), "--format", "json"});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(replay.exit_code, 0) << replay.err;
  const nlohmann::json live = nlohmann::json::parse(saved.out);
  const nlohmann::json again = nlohmann::json::parse(replay.out);
  EXPECT_EQ(again["cpu"]["brand"], live["cpu"]["brand"]);
  EXPECT_EQ(again["cpu"]["logical_cpus"], live["cpu"]["logical_cpus"]);
  for (const auto& [name, f] : live["features"].items()) {
    EXPECT_EQ(again["features"][name]["cpuid"], f["cpuid"]) << name;
    EXPECT_EQ(again["features"][name]["libcpuid"], f["libcpuid"]) << name;
  }
  // The topology replays too: every count and the caches are the same.
  for (const char* key : {"packages", "numa_nodes", "dies", "groups", "cores", "pus",
                          "smt_per_core", "l3_instances", "memory_mib", "allowed_pus"}) {
    EXPECT_EQ(again["topology"][key], live["topology"][key]) << key;
  }
  EXPECT_EQ(again["topology"]["caches"], live["topology"]["caches"]);
  EXPECT_EQ(again["topology"]["source"], (dir / "topology.xml").string());
  EXPECT_EQ(live["topology"]["source"], "live");
}

TEST(PlatformCliTest, RecordingWithoutTopologyHasANullTopology) {
  const auto r = RunDlcheck(
      {"platform", "--cpuid-dump", DataPath("platform/unknown-cpu.test"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["topology"]["source"].is_null());
  bool finding = false;
  for (const auto& f : j["findings"]) finding |= f["code"] == "no-topology";
  EXPECT_TRUE(finding) << r.out;
}

TEST(PlatformCliTest, RecordedCpuAndTopologyReplayTogether) {
  const auto r = RunDlcheck(
      {"platform", "--cpuid-dump", DataPath("cpuid/amd-epyc-9654-96-core-processor-dual.test.xz"),
       "--topology", DataPath("hwloc/AMD-19h-Zen4-2xEpyc-9654.xml"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  // The two recordings are of the same machine type: 2 sockets, 384 hardware threads.
  EXPECT_EQ(j["cpu"]["logical_cpus"], 384);
  EXPECT_EQ(j["topology"]["packages"], 2);
  EXPECT_EQ(j["topology"]["pus"], 384);
}

// The Emerald Rapids KVM guest the test suite was also run on (tests/data/cpuid/INDEX.md and
// tests/data/hwloc/INDEX.md, "Recorded for this project"), both recordings of the same machine.
TEST(PlatformCliTest, EmeraldRapidsRecordingReplaysWithAmxAndFp16) {
  const auto r = RunDlcheck({"platform", "--cpuid-dump",
                             DataPath("cpuid/intel-xeon-emerald-rapids-kvm16.test"), "--topology",
                             DataPath("hwloc/Intel-EmeraldRapids-KVM16.xml"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cpu"]["vendor"], "GenuineIntel");
  EXPECT_EQ(j["cpu"]["family"], 6);
  EXPECT_EQ(j["cpu"]["model"], 207);
  EXPECT_EQ(j["cpu"]["microarchitecture"], "Emerald Rapids");
  EXPECT_EQ(j["cpu"]["hypervisor"], true);
  EXPECT_EQ(j["cpu"]["logical_cpus"], 16);
  for (const char* feature :
       {"avx512f", "avx512_fp16", "avx512_bf16", "avx_vnni", "amx_tile", "amx_bf16", "amx_int8"}) {
    EXPECT_EQ(j["features"][feature]["cpuid"], true) << feature;
  }
  for (const char* feature : {"amx_fp16", "avx512er", "avx512pf"}) {
    EXPECT_EQ(j["features"][feature]["cpuid"], false) << feature;
  }
  EXPECT_EQ(j["levels"]["onednn_max_isa"], "avx512_core_amx");
  EXPECT_EQ(j["levels"]["x86_64"], "x86-64-v4");
  EXPECT_EQ(j["topology"]["packages"], 1);
  EXPECT_EQ(j["topology"]["numa_nodes"], 1);
  EXPECT_EQ(j["topology"]["cores"], 16);
  EXPECT_EQ(j["topology"]["pus"], 16);
}

TEST(PlatformCliTest, MissingTopologyFileIsAnInputError) {
  const auto r = RunDlcheck({"platform", "--topology", "/nonexistent/topo.xml"});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(r.err.rfind("dlcheck: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/topo.xml"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
  EXPECT_TRUE(r.out.empty());
}

// --- the edges: empty arguments, devices, foreign messages, links, full disks
// ---------------------

TEST(PlatformCliTest, EmptyPathsAreUsageErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"--cpuid-dump", "file"}, {"--topology", "file"}, {"--save-raw", "directory"}};
  for (const auto& [option, what] : cases) {
    const auto r = RunDlcheck({"platform", option, ""});
    EXPECT_EQ(r.exit_code, ToInt(ExitCode::kUsage)) << option;
    EXPECT_EQ(r.err, std::string("dlcheck: platform: ") + option + ": an empty " + what +
                         " name was given: give a path (see 'dlcheck platform --help')\n");
    EXPECT_TRUE(r.out.empty());
  }
}

TEST(PlatformCliTest, ADeviceIsRefusedNotReadForever) {
  const auto dump = RunDlcheck({"platform", "--cpuid-dump", "/dev/zero"});
  EXPECT_EQ(dump.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(dump.err,
            "dlcheck: cannot read CPUID dump '/dev/zero': it is a character device, not a "
            "regular file or a pipe\n");
  const auto topology = RunDlcheck({"platform", "--topology", "/dev/zero"});
  EXPECT_EQ(topology.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(topology.err,
            "dlcheck: cannot read topology file '/dev/zero': it is a character device, not a "
            "regular file or a pipe\n");
}

TEST(PlatformCliTest, HwlocsOwnComplaintBecomesOneDlcheckLine) {
  const std::string path = DataPath("hwloc/invalid/no-numa-node.xml");
  const auto r = RunDlcheck({"platform", "--topology", path});
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_EQ(r.err, "dlcheck: '" + path +
                       "' is not an hwloc XML topology: hwloc could not load it (Topology does "
                       "not contain any NUMA node, aborting); write one with hwloc 2.x (lstopo "
                       "--of xml)\n");
}

TEST(PlatformCliTest, ACpuidToolDumpReplaysLikeSaveRawOfTheSameMachine) {
  const std::string machine = "cpuid/cpuid-r/oxide-virtual-turin-like-processor";
  const auto tool =
      RunDlcheck({"platform", "--cpuid-dump", DataPath(machine + ".txt"), "--format", "json"});
  const auto saved = RunDlcheck(
      {"platform", "--cpuid-dump", DataPath(machine + ".save-raw.test"), "--format", "json"});
  ASSERT_EQ(tool.exit_code, 0) << tool.err;
  ASSERT_EQ(saved.exit_code, 0) << saved.err;
  const nlohmann::json a = nlohmann::json::parse(tool.out);
  const nlohmann::json b = nlohmann::json::parse(saved.out);
  EXPECT_EQ(a["features"], b["features"]);
  EXPECT_EQ(a["levels"], b["levels"]);
  EXPECT_EQ(a["cpu"]["brand"], "Oxide Virtual Turin-like Processor");
  EXPECT_EQ(a["cpu"]["hypervisor_vendor"], b["cpu"]["hypervisor_vendor"]);
  EXPECT_EQ(a["cpu"]["logical_cpus"], 2);
}

TEST(PlatformCliTest, SaveRawReplacesAPlantedSymlinkInsteadOfWritingThroughIt) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dlcheck-planted-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path victim = dir / "victim";
  std::ofstream(victim) << "keep me\n";
  std::filesystem::create_symlink(victim, dir / "cpuid.test");
  std::filesystem::create_symlink(victim, dir / "topology.xml");
  const auto r = RunDlcheck({"platform", "--save-raw", dir.string(), "--format", "csv"});
  std::stringstream victim_text;
  victim_text << std::ifstream(victim).rdbuf();
  const bool links_left = std::filesystem::is_symlink(dir / "cpuid.test") ||
                          std::filesystem::is_symlink(dir / "topology.xml");
  const auto replay = RunDlcheck({"platform", "--cpuid-dump", (dir / "cpuid.test").string(),
                                  "--topology", (dir / "topology.xml").string()});
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(victim_text.str(), "keep me\n");
  EXPECT_FALSE(links_left);
  EXPECT_EQ(replay.exit_code, 0) << replay.err;
}

// A write that fails (here: past a file size limit of 1 KiB, EFBIG, as a full disk gives ENOSPC)
// ends with its own exit code, never 0.
TEST(PlatformCliTest, SaveRawThatCannotWriteIsAnOutputError) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("dlcheck-efbig-" + std::to_string(getpid()));
  struct rlimit old_limit {};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);  // the child inherits both
  struct rlimit small = old_limit;
  small.rlim_cur = 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  const auto r = RunDlcheck({"platform", "--save-raw", dir.string(), "--format", "csv"});
  setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  const auto entries = std::distance(std::filesystem::directory_iterator(dir),
                                     std::filesystem::directory_iterator());
  std::filesystem::remove_all(dir);
  EXPECT_EQ(r.exit_code, ToInt(ExitCode::kOutputError));
  EXPECT_EQ(r.err,
            "dlcheck: cannot write '" + (dir / "cpuid.test").string() + "': File too large\n");
  EXPECT_EQ(entries, 0);  // no temporary file left behind
}

// Strings from a recorded file (an hwloc CPU kind's infos, the file's own path) reach the report
// as valid UTF-8 without control characters: JSON parses, the table carries no escape sequence.
TEST(PlatformCliTest, RecordedStringsGiveValidJsonAndAPlainTable) {
  const std::string xml = DataPath("hwloc/invalid/control-bytes-in-cpukind.xml");
  const std::string dump =
      ::testing::TempDir() + "dlcheck_\x1b[2J_\xff_" + std::to_string(getpid()) + ".test";
  std::filesystem::copy_file(DataPath("platform/unknown-cpu.test"), dump);
  const auto json =
      RunDlcheck({"platform", "--cpuid-dump", dump, "--topology", xml, "--format", "json"});
  const auto table = RunDlcheck({"platform", "--cpuid-dump", dump, "--topology", xml});
  std::filesystem::remove(dump);
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json j = nlohmann::json::parse(json.out);
  EXPECT_EQ(j["topology"]["core_kinds"][1]["name"], "Intel?[31mCore?");
  const std::string source = j["cpu"]["source"];
  EXPECT_NE(source.find("dlcheck_?[2J_?_"), std::string::npos) << source;
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_EQ(table.out.find('\x1b'), std::string::npos);
  EXPECT_NE(table.out.find("Intel?[31mCore?"), std::string::npos) << table.out;
}

TEST(PlatformCliTest, AReportToAFullDiskIsAnOutputError) {
  if (access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full here";
  const std::string command = std::string(DLCHECK_BINARY) + " platform --cpuid-dump " +
                              DataPath("platform/unknown-cpu.test") + " >/dev/full 2>/dev/null";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), ToInt(ExitCode::kOutputError));
}

}  // namespace
}  // namespace dlcheck

namespace dlcheck {
namespace {

using testing::DataPath;
using testing::RunDlcheck;

// A public Graviton 4 recording through the binary: the aarch64 section, the levels, the
// x86-only fields, the verdict; and the errors of the option.
TEST(PlatformAarch64CliTest, AGraviton4RecordingReplaysThroughTheBinary) {
  const auto r = RunDlcheck(
      {"platform", "--cpuinfo-dump", DataPath("aarch64/graviton4.cpuinfo"), "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["aarch64"]["core"], "Neoverse V2");
  EXPECT_EQ(j["aarch64"]["parts"], "AWS Graviton 4, Google Axion or NVIDIA Grace");
  EXPECT_EQ(j["aarch64"]["implementer"], "0x41");
  EXPECT_EQ(j["aarch64"]["part"], "0xd4f");
  EXPECT_EQ(j["aarch64"]["sve_vector_bits"], 128);
  EXPECT_EQ(j["aarch64"]["sve_vector_bits_basis"], "core");
  EXPECT_EQ(j["levels"]["onednn_max_isa"], "asimd");
  EXPECT_EQ(j["levels"]["onednn3_max_isa"], "sve_128");
  EXPECT_EQ(j["levels"]["x86_64"], "not on AArch64");
  EXPECT_EQ(j["cpu"]["xcr0"], "not on AArch64");
  EXPECT_EQ(j["features"]["sve2"]["cpuid"], true);
  EXPECT_EQ(j["features"]["sme"]["cpuid"], false);
  EXPECT_FALSE(j["features"].contains("avx512f"));
  EXPECT_EQ(j["topology"]["pus"], 2);  // the recording's two processor blocks
  const auto table =
      RunDlcheck({"platform", "--cpuinfo-dump", DataPath("aarch64/graviton4.cpuinfo")});
  EXPECT_EQ(table.out.substr(0, table.out.find('\n')),
            "Neoverse V2 (AWS Graviton 4, Google Axion or NVIDIA Grace): SVE 128 bits; oneDNN 2.6 "
            "would dispatch asimd, 3.x sve_128; no warnings");
  // No x86 furniture in the human table: CPUID leaf 1Ah's core kinds is Intel's hybrid leaf.
  EXPECT_EQ(table.out.find("leaf 1Ah"), std::string::npos) << table.out;
}

TEST(PlatformAarch64CliTest, AnX86DumpGivenAsCpuinfoAndOptionClashesAreOneLine) {
  const auto x86 =
      RunDlcheck({"platform", "--cpuinfo-dump", DataPath("platform/unknown-cpu.test")});
  EXPECT_EQ(x86.exit_code, ToInt(ExitCode::kInputError));
  EXPECT_NE(x86.err.find("neither an AArch64 /proc/cpuinfo nor lscpu output"), std::string::npos)
      << x86.err;
  EXPECT_EQ(std::count(x86.err.begin(), x86.err.end(), '\n'), 1);
  const auto both = RunDlcheck({"platform", "--cpuinfo-dump", DataPath("aarch64/graviton3.cpuinfo"),
                                "--cpuid-dump", DataPath("platform/unknown-cpu.test")});
  EXPECT_EQ(both.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(both.err,
            "dlcheck: --cpuid-dump (an x86 machine) and --cpuinfo-dump (an AArch64 machine) "
            "replay one machine each: give one of them\n");
  const auto probe =
      RunDlcheck({"platform", "--probe", "--cpuinfo-dump", DataPath("aarch64/graviton3.cpuinfo")});
  EXPECT_EQ(probe.exit_code, ToInt(ExitCode::kUsage));
  EXPECT_EQ(probe.err,
            "dlcheck: --cpuinfo-dump replays a recorded AArch64 machine and cannot be combined "
            "with --probe, which runs instructions on this machine\n");
}

}  // namespace
}  // namespace dlcheck
