// SPDX-License-Identifier: Apache-2.0
#include "detect/aarch64.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <filesystem>
#include <sstream>

#include "common/finding_codes.h"
#include "common/text.h"
#include "detect/cpuid_dump.h"
#include "report/safe_text.h"

namespace dlcheck::detect {
namespace {

// Implementer codes (MIDR[31:24]) as Linux's cputype.h defines them, named as lscpu prints them.
struct Implementer {
  std::uint32_t code;
  std::string_view name;
};
constexpr std::array kImplementers = {
    Implementer{0x41, "ARM"},       Implementer{0x42, "Broadcom"},  Implementer{0x43, "Cavium"},
    Implementer{0x46, "Fujitsu"},   Implementer{0x48, "HiSilicon"}, Implementer{0x4e, "NVIDIA"},
    Implementer{0x50, "APM"},       Implementer{0x51, "Qualcomm"},  Implementer{0x61, "Apple"},
    Implementer{0x6d, "Microsoft"}, Implementer{0xc0, "Ampere"},
};

// The cores dlcheck names. Part numbers: Linux cputype.h (ARM_CPU_PART_NEOVERSE_N1 0xD0C, _V1
// 0xD40, _N2 0xD49, _V2 0xD4F, _V3 0xD84; AMPERE_CPU_PART_AMPERE1 0xAC3, _AMPERE1A 0xAC4;
// FUJITSU_CPU_PART_A64FX 0x001), TF-A's neoverse_n3.h (MIDR 0x410FD8E0). Parts: Graviton 2 and
// Ampere Altra are Neoverse N1; Graviton 3 is V1 (256-bit SVE); Cobalt 100 is N2; Graviton 4,
// Axion and Grace are V2 (128-bit SVE2); Graviton 5 (CPU part 0xd84, aws-graviton-getting-started
// #491) and Cobalt 200 are V3. SVE lengths: the cores' Technical Reference Manuals (V1 2x256-bit,
// N2, V2, V3 and N3 128-bit, A64FX 512-bit); N1 and AmpereOne have no SVE.
constexpr std::array kArmCores = {
    ArmCore{0x41, 0xd0c, "Neoverse N1", "Neoverse-N1", "AWS Graviton 2 or Ampere Altra",
            std::nullopt},
    ArmCore{0x41, 0xd40, "Neoverse V1", "Neoverse-V1", "AWS Graviton 3", 256},
    ArmCore{0x41, 0xd49, "Neoverse N2", "Neoverse-N2", "Microsoft Azure Cobalt 100", 128},
    ArmCore{0x41, 0xd4f, "Neoverse V2", "Neoverse-V2",
            "AWS Graviton 4, Google Axion or NVIDIA Grace", 128},
    ArmCore{0x41, 0xd84, "Neoverse V3", "Neoverse-V3",
            "AWS Graviton 5 or Microsoft Azure Cobalt 200", 128},
    ArmCore{0x41, 0xd8e, "Neoverse N3", "Neoverse-N3", "", 128},
    ArmCore{0xc0, 0xac3, "AmpereOne", "Ampere-1", "Ampere AmpereOne", std::nullopt},
    ArmCore{0xc0, 0xac4, "AmpereOne (Ampere-1a)", "Ampere-1a", "Ampere AmpereOne", std::nullopt},
    ArmCore{0x46, 0x001, "A64FX", "A64FX", "Fujitsu A64FX", 512},
};

// The reported features and their HWCAP bits (Linux arch/arm64/include/uapi/asm/hwcap.h).
struct HwcapBit {
  std::string_view name;
  bool second;  ///< AT_HWCAP2
  int bit;
};
constexpr std::array kHwcapBits = {
    HwcapBit{"asimd", false, 1},    HwcapBit{"fphp", false, 9},    HwcapBit{"asimdhp", false, 10},
    HwcapBit{"asimddp", false, 20}, HwcapBit{"sve", false, 22},    HwcapBit{"sve2", true, 1},
    HwcapBit{"bf16", true, 14},     HwcapBit{"svebf16", true, 12}, HwcapBit{"i8mm", true, 13},
    HwcapBit{"svei8mm", true, 9},   HwcapBit{"sme", true, 23},     HwcapBit{"sme2", true, 37},
};

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
    text.remove_prefix(1);
  }
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
    text.remove_suffix(1);
  }
  return text;
}

// "0x41" (hex) or "1" (decimal); nullopt for anything else.
std::optional<std::uint64_t> ParseNumber(std::string_view text) {
  text = TrimSpaces(text);
  int base = 10;
  if (text.starts_with("0x") || text.starts_with("0X")) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::set<std::string, std::less<>> Words(std::string_view text) {
  std::set<std::string, std::less<>> words;
  std::istringstream stream{std::string(text)};
  for (std::string word; stream >> word;) words.insert(word);
  return words;
}

std::string Normalised(std::string_view name) {
  std::string out = Lower(TrimSpaces(name));
  std::replace(out.begin(), out.end(), '-', ' ');
  return out;
}

// The reader of one recording's lines: cpuinfo's processor blocks or lscpu's key lines.
class CpuinfoReader {
 public:
  CpuinfoReader(Aarch64Recording& rec, const std::string& origin) : rec_(rec), origin_(origin) {}

  Status Line(std::string_view line, int number) {
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return {};
    const std::string_view key = TrimSpaces(line.substr(0, colon));
    const std::string_view value = TrimSpaces(line.substr(colon + 1));
    if (key == "vendor_id" || key == "flags") x86_ = true;
    if (key == "processor") return Processor();
    if (key == "Features") return CpuFeatures(value);
    if (key == "Flags") {
      lscpu_ = true;
      rec_.features = Words(value);
      has_features_ = true;
      return {};
    }
    return Field(key, value, number);
  }

  StatusOr<Aarch64Recording> Finish() {
    if (x86_ && !has_features_) {
      return InputError(origin_ +
                        " is an x86 /proc/cpuinfo: replay an x86 machine from its raw CPUID dump "
                        "with --cpuid-dump (record one with 'dlcheck platform --save-raw DIR')");
    }
    if (!has_features_) {
      return InputError(origin_ +
                        " is neither an AArch64 /proc/cpuinfo nor lscpu output: it has no "
                        "'Features' (cpuinfo) or 'Flags' (lscpu) line; record it with "
                        "'cat /proc/cpuinfo' on the machine");
    }
    rec_.format = lscpu_ ? "lscpu" : "cpuinfo";
    if (!lscpu_) rec_.logical_cpus = std::max(processors_, 1);
    FlushCore();  // the last processor block's core
    return std::move(rec_);
  }

 private:
  Status Processor() {
    FlushCore();
    ++processors_;
    return {};
  }

  Status CpuFeatures(std::string_view value) {
    std::set<std::string, std::less<>> words = Words(value);
    if (!has_features_) {
      rec_.features = std::move(words);
      has_features_ = true;
    } else if (words != rec_.features) {
      rec_.cpus_differ_in_features = true;
    }
    return {};
  }

  Status Field(std::string_view key, std::string_view value, int number) {
    static constexpr std::array kHexKeys = {"CPU implementer", "CPU variant", "CPU part"};
    const bool hex_key = std::find(kHexKeys.begin(), kHexKeys.end(), key) != kHexKeys.end();
    if (key == "CPU architecture") {
      // "8"; some kernels print "AArch64": the architecture is then left at its default.
      if (const std::optional<std::uint64_t> n = ParseNumber(value); n && *n < 100) {
        if (processors_ <= 1) rec_.architecture = static_cast<int>(*n);
      }
      return {};
    }
    if (hex_key || key == "CPU revision") {
      const std::optional<std::uint64_t> n = ParseNumber(value);
      if (!n || *n > 0xfff) {
        return InputError(fmt::format("{} line {}: '{}' is not a number ({}: {})", origin_, number,
                                      report::SafeText(std::string(value)), key,
                                      "cpuinfo writes it as 0x41 or 8"));
      }
      const auto v = static_cast<std::uint32_t>(*n);
      if (key == "CPU implementer") block_implementer_ = v;
      if (key == "CPU part") block_part_ = v;
      if (processors_ > 1) return {};  // CPU 0's identity is the record's
      if (key == "CPU implementer") rec_.implementer = v;
      if (key == "CPU variant") rec_.variant = v;
      if (key == "CPU part") rec_.part = v;
      if (key == "CPU revision") rec_.revision = v;
      return {};
    }
    LscpuField(key, value);
    return {};
  }

  void LscpuField(std::string_view key, std::string_view value) {
    const auto count = [&]() -> std::optional<int> {
      const std::optional<std::uint64_t> n = ParseNumber(value);
      if (!n || *n > 1'000'000) return std::nullopt;
      return static_cast<int>(*n);
    };
    if (key == "CPU(s)") {
      if (auto n = count()) rec_.logical_cpus = *n;
    } else if (key == "Vendor ID") {
      for (const Implementer& i : kImplementers) {
        if (i.name == value) rec_.implementer = i.code;
      }
    } else if (key == "Model name") {
      rec_.model_name = std::string(value);
    } else if (key == "Socket(s)") {
      rec_.sockets = count();
    } else if (key == "Core(s) per socket") {
      rec_.cores_per_socket = count();
    } else if (key == "Thread(s) per core") {
      rec_.threads_per_core = count();
    } else if (key == "Stepping" && value.size() >= 4 && value[0] == 'r') {
      // "r0p1": variant 0, revision 1.
      const std::size_t p = value.find('p');
      if (p == std::string_view::npos) return;
      const auto variant = ParseNumber(value.substr(1, p - 1));
      const auto revision = ParseNumber(value.substr(p + 1));
      if (variant && revision) {
        rec_.variant = static_cast<std::uint32_t>(*variant);
        rec_.revision = static_cast<std::uint32_t>(*revision);
      }
    }
  }

  // Counts the finished block's core.
  void FlushCore() {
    if (!block_implementer_ || !block_part_) return;
    auto& seen = rec_.cores_seen;
    if (seen.empty() || seen.back().implementer != *block_implementer_ ||
        seen.back().part != *block_part_) {
      const auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& c) {
        return c.implementer == *block_implementer_ && c.part == *block_part_;
      });
      if (it == seen.end()) {
        seen.push_back({*block_implementer_, *block_part_, 0});
        ++seen.back().logical_cpus;
      } else {
        ++it->logical_cpus;
      }
    } else {
      ++seen.back().logical_cpus;
    }
    block_implementer_.reset();
    block_part_.reset();
  }

  Aarch64Recording& rec_;
  const std::string& origin_;
  int processors_ = 0;
  bool has_features_ = false;
  bool lscpu_ = false;
  bool x86_ = false;
  std::optional<std::uint32_t> block_implementer_;
  std::optional<std::uint32_t> block_part_;
};

void AddFinding(PlatformInfo& info, Severity severity, std::string code, std::string message) {
  info.findings.push_back({severity, std::move(code), std::move(message), Topic::kGeneral});
}

// The core the recording names: MIDR_EL1 first, then cpuinfo's implementer and part, then
// lscpu's model name.
const ArmCore* RecordedCore(const Aarch64Recording& rec) {
  if (rec.midr) {
    return FindArmCore(static_cast<std::uint32_t>((*rec.midr >> 24) & 0xff),
                       static_cast<std::uint32_t>((*rec.midr >> 4) & 0xfff));
  }
  if (rec.implementer && rec.part) return FindArmCore(*rec.implementer, *rec.part);
  if (!rec.model_name.empty()) return FindArmCoreByLscpuName(rec.model_name);
  return nullptr;
}

CpuIdentity Aarch64Identity(const Aarch64Recording& rec, const ArmCore* core) {
  CpuIdentity id;
  std::optional<std::uint32_t> implementer = rec.implementer;
  std::optional<std::uint32_t> part = rec.part;
  std::optional<std::uint32_t> revision = rec.revision;
  if (rec.midr) {
    implementer = static_cast<std::uint32_t>((*rec.midr >> 24) & 0xff);
    part = static_cast<std::uint32_t>((*rec.midr >> 4) & 0xfff);
    revision = static_cast<std::uint32_t>(*rec.midr & 0xf);
  }
  if (implementer) id.vendor = std::string(ArmImplementerName(*implementer));
  if (id.vendor.empty() && implementer) id.vendor = fmt::format("{:#04x}", *implementer);
  // family: the architecture (8); model: the part number; stepping: the revision.
  id.family = rec.architecture.value_or(8);
  id.model = static_cast<int>(part.value_or(core != nullptr ? core->part : 0));
  id.stepping = static_cast<int>(revision.value_or(0));
  id.microarchitecture = core != nullptr ? std::string(core->name) : std::string("unknown");
  if (core != nullptr) {
    id.brand = core->parts.empty() ? std::string(core->name)
                                   : fmt::format("{} ({})", core->name, core->parts);
  } else if (!rec.model_name.empty()) {
    id.brand = rec.model_name;
  }
  return id;
}

// Features by layer: cpu from HWCAP where recorded, else the kernel's Features names (the same
// HWCAP bits); kernel from the text.
std::vector<FeatureLayers> Aarch64Layers(const Aarch64Recording& rec) {
  std::optional<FeatureSet> hwcap;
  if (rec.hwcap) hwcap = Aarch64FeaturesFromHwcap(*rec.hwcap, rec.hwcap2.value_or(0));
  std::vector<FeatureLayers> layers;
  for (const std::string& name : Aarch64ReportedFeatures()) {
    FeatureLayers f;
    f.name = name;
    const bool listed = rec.features.count(name) > 0;
    f.kernel = listed;
    f.cpu = hwcap ? hwcap->at(name) : listed;
    layers.push_back(std::move(f));
  }
  return layers;
}

// The SVE length the levels are derived from: recorded, else fixed by the core; the Aarch64Part
// keeps only a recorded one, the findings say which.
std::optional<int> LevelSveBits(const Aarch64Recording& rec, const ArmCore* core) {
  if (rec.sve_vector_bits) return rec.sve_vector_bits;
  if (core != nullptr) return core->sve_bits;
  return std::nullopt;
}

void Aarch64Findings(PlatformInfo& info, const Aarch64Recording& rec, const ArmCore* core,
                     std::optional<int> sve_bits) {
  const bool sve = info.FeatureAvailable("sve");
  if (core == nullptr) {
    AddFinding(info, Severity::kInfo, codes::kUnknownMicroarchitecture,
               rec.implementer && rec.part
                   ? fmt::format("dlcheck's table does not know the core of CPU implementer "
                                 "{:#04x} part {:#05x}; the features are still read from the "
                                 "recording, and the cloud part stays unknown",
                                 *rec.implementer, *rec.part)
                   : "the recording names no core dlcheck knows (no CPU implementer and part, "
                     "or an unknown lscpu model name); the features are still read from it");
  } else if (std::string_view(core->parts).find(" or ") != std::string_view::npos ||
             std::string_view(core->parts).find(", ") != std::string_view::npos) {
    AddFinding(info, Severity::kInfo, codes::kCoreOfSeveralParts,
               fmt::format("{} is the core of {}: the MIDR names the core, not the part, so "
                           "the recording alone cannot tell which",
                           core->name, core->parts));
  }
  if (sve && rec.sve_vector_bits) {
    // Recorded: nothing to say beyond the levels.
  } else if (sve && sve_bits) {
    AddFinding(info, Severity::kInfo, codes::kSveLengthFromCore,
               fmt::format("the recording holds no SVE vector length; every {} has {}-bit SVE "
                           "vectors, and the oneDNN levels are derived from that",
                           core->name, *sve_bits));
  } else if (sve) {
    AddFinding(info, Severity::kWarning, codes::kSveLengthUnknown,
               "the CPU has SVE but the recording holds no vector length and the core does not "
               "fix one: the oneDNN levels (sve_128, sve_256 or sve_512) cannot be told; record "
               "the length (an 'sve_vl' file of bits in the recording's directory)");
  }
  if (rec.cpus_differ_in_features || rec.cores_seen.size() > 1) {
    AddFinding(info, Severity::kWarning, codes::kCoreKindsDiffer,
               "the recording's processors are not all alike (other cores or other Features "
               "lines than CPU 0): code that moves between cores may meet instructions it "
               "cannot run; the features shown are CPU 0's");
  }
  AddFinding(info, Severity::kInfo, codes::kNotOnAarch64,
             "x86-only parts are not on AArch64: AVX-512, AMX, AVX10, XCR0, the AMX permission, "
             "the x86-64 levels and libcpuid; their fields say so rather than 'absent'");
  AddFinding(info, Severity::kInfo, codes::kRecording,
             fmt::format("replayed from an AArch64 {} recording{}: the os and oneDNN layers "
                         "cannot be known and are null; the levels assume the kernel enables "
                         "every feature the recording lists",
                         rec.format == "lscpu" ? "lscpu" : "/proc/cpuinfo",
                         rec.hwcap ? " with HWCAP" : ""));
}

std::vector<CpuidCoreType> Aarch64CoreTypes(const Aarch64Recording& rec) {
  std::vector<CpuidCoreType> types;
  for (const auto& seen : rec.cores_seen) {
    const ArmCore* core = FindArmCore(seen.implementer, seen.part);
    types.push_back(
        {core != nullptr ? std::string(core->name) : fmt::format("part {:#05x}", seen.part),
         seen.logical_cpus, !rec.cpus_differ_in_features});
  }
  if (types.empty()) types.push_back({"general", rec.logical_cpus, !rec.cpus_differ_in_features});
  return types;
}

// A raw directory's small file: trimmed text, nullopt when absent.
StatusOr<std::optional<std::uint64_t>> ReadNumberFile(const std::filesystem::path& dir,
                                                      const char* name) {
  const std::filesystem::path path = dir / name;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::optional<std::uint64_t>();
  StatusOr<std::string> text = ReadDumpText(path.string());
  if (!text.ok()) return text.status();
  const std::optional<std::uint64_t> value = ParseNumber(*text);
  if (!value) {
    return InputError(fmt::format("{}: '{}' is not a number (write it as 0x... or in decimal)",
                                  report::SafeText(path.string()),
                                  report::SafeText(std::string(TrimSpaces(*text)).substr(0, 40))));
  }
  return std::optional<std::uint64_t>(*value);
}

StatusOr<Aarch64Recording> ReadRawDirectory(const std::string& dir) {
  const std::filesystem::path root(dir);
  const std::filesystem::path cpuinfo = root / "cpuinfo";
  std::error_code ec;
  if (!std::filesystem::exists(cpuinfo, ec)) {
    return InputError(fmt::format(
        "the directory {} holds no 'cpuinfo' file: an AArch64 recording's directory holds "
        "cpuinfo (cat /proc/cpuinfo) and, where recorded, hwcap, hwcap2, midr_el1 and sve_vl",
        report::SafeText(dir)));
  }
  StatusOr<std::string> text = ReadDumpText(cpuinfo.string());
  if (!text.ok()) return text.status();
  StatusOr<Aarch64Recording> rec = ParseAarch64Cpuinfo(*text, report::SafeText(cpuinfo.string()));
  if (!rec.ok()) return rec.status();
  const std::array<std::pair<const char*, std::optional<std::uint64_t>*>, 3> kRegisters = {
      {{"hwcap", &rec->hwcap}, {"hwcap2", &rec->hwcap2}, {"midr_el1", &rec->midr}}};
  for (const auto& [name, slot] : kRegisters) {
    StatusOr<std::optional<std::uint64_t>> value = ReadNumberFile(root, name);
    if (!value.ok()) return value.status();
    *slot = *value;
  }
  StatusOr<std::optional<std::uint64_t>> vl = ReadNumberFile(root, "sve_vl");
  if (!vl.ok()) return vl.status();
  if (*vl) {
    // SVE lengths are multiples of 128 bits up to 2048 (Arm ARM, ZCR_ELx.LEN).
    if (**vl == 0 || **vl > 2048 || **vl % 128 != 0) {
      return InputError(
          fmt::format("{}: {} is not an SVE vector length in bits (128, 256, ... "
                      "2048)",
                      report::SafeText((root / "sve_vl").string()), **vl));
    }
    rec->sve_vector_bits = static_cast<int>(**vl);
  }
  return rec;
}

}  // namespace

StatusOr<Aarch64Recording> ParseAarch64Cpuinfo(std::string_view text, const std::string& origin) {
  Aarch64Recording rec;
  CpuinfoReader reader(rec, origin);
  int number = 0;
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (Status status = reader.Line(line, ++number); !status.ok()) return status;
  }
  return reader.Finish();
}

const ArmCore* FindArmCore(std::uint32_t implementer, std::uint32_t part) {
  for (const ArmCore& core : kArmCores) {
    if (core.implementer == implementer && core.part == part) return &core;
  }
  return nullptr;
}

const ArmCore* FindArmCoreByLscpuName(std::string_view model_name) {
  const std::string wanted = Normalised(model_name);
  for (const ArmCore& core : kArmCores) {
    if (Normalised(core.lscpu_name) == wanted) return &core;
  }
  return nullptr;
}

std::string_view ArmImplementerName(std::uint32_t implementer) {
  for (const Implementer& i : kImplementers) {
    if (i.code == implementer) return i.name;
  }
  return {};
}

const std::vector<std::string>& Aarch64ReportedFeatures() {
  static const std::vector<std::string> kNames = [] {
    std::vector<std::string> names;
    for (const HwcapBit& b : kHwcapBits) names.emplace_back(b.name);
    return names;
  }();
  return kNames;
}

FeatureSet Aarch64FeaturesFromHwcap(std::uint64_t hwcap, std::uint64_t hwcap2) {
  FeatureSet set;
  for (const HwcapBit& b : kHwcapBits) {
    set[std::string(b.name)] = (((b.second ? hwcap2 : hwcap) >> b.bit) & 1u) != 0;
  }
  return set;
}

std::string OneDnn26Aarch64Isa(const FeatureSet& features, std::optional<int> sve_bits) {
  const auto has = [&](std::string_view name) {
    const auto it = features.find(name);
    return it != features.end() && it->second;
  };
  if (has("sve")) {
    if (!sve_bits) return {};
    if (*sve_bits == 512) return "sve_512";
  }
  return has("asimd") ? "asimd" : "none";
}

OneDnn3Level OneDnn3Aarch64Isa(const FeatureSet& features, std::optional<int> sve_bits) {
  const auto has = [&](std::string_view name) {
    const auto it = features.find(name);
    return it != features.end() && it->second;
  };
  std::string isa = has("asimd") ? "asimd" : "none";
  if (has("sve")) {
    if (!sve_bits) return {};
    if (*sve_bits >= 512) {
      isa = "sve_512";
    } else if (*sve_bits >= 256) {
      isa = "sve_256";
    } else if (*sve_bits >= 128) {
      isa = "sve_128";
    }
  }
  return {isa, isa};
}

PlatformInfo BuildAarch64PlatformInfo(const Aarch64Recording& rec) {
  PlatformInfo info;
  const ArmCore* core = RecordedCore(rec);
  info.cpu = Aarch64Identity(rec, core);
  info.logical_cpus = rec.logical_cpus;
  info.core_types = Aarch64CoreTypes(rec);
  info.features = Aarch64Layers(rec);
  FeatureSet effective;
  for (const FeatureLayers& f : info.features) effective[f.name] = f.cpu;
  const std::optional<int> sve_bits = LevelSveBits(rec, core);
  info.levels_basis = rec.hwcap ? "hwcap" : "cpuinfo";
  info.onednn_max_isa = OneDnn26Aarch64Isa(effective, sve_bits);
  info.onednn3_max_isa = OneDnn3Aarch64Isa(effective, sve_bits);
  info.libcpuid_note = "libcpuid reads x86 CPUID only: not on AArch64";
  Aarch64Part part{.hwcap = rec.hwcap, .hwcap2 = rec.hwcap2, .midr = rec.midr};
  part.sve_vector_bits = effective["sve"] ? sve_bits : std::nullopt;
  part.sve_vector_bits_from_core = effective["sve"] && !rec.sve_vector_bits && sve_bits;
  if (rec.midr) {
    part.implementer = static_cast<std::uint32_t>((*rec.midr >> 24) & 0xff);
    part.variant = static_cast<std::uint32_t>((*rec.midr >> 20) & 0xf);
    part.part = static_cast<std::uint32_t>((*rec.midr >> 4) & 0xfff);
    part.revision = static_cast<std::uint32_t>(*rec.midr & 0xf);
  } else {
    part.implementer = rec.implementer.has_value()
                           ? rec.implementer
                           : (core != nullptr ? std::optional(core->implementer) : std::nullopt);
    part.part = rec.part.has_value() ? rec.part
                                     : (core != nullptr ? std::optional(core->part) : std::nullopt);
    part.variant = rec.variant;
    part.revision = rec.revision;
  }
  if (core != nullptr) part.parts = std::string(core->parts);
  part.packages = rec.sockets;
  part.cores_per_package = rec.cores_per_socket;
  part.threads_per_core = rec.threads_per_core;
  info.arch = std::move(part);
  Aarch64Findings(info, rec, core, sve_bits);
  return info;
}

StatusOr<PlatformInfo> DetectRecordedAarch64Platform(const std::string& path) {
  std::error_code ec;
  StatusOr<Aarch64Recording> rec = Aarch64Recording{};
  if (std::filesystem::is_directory(path, ec)) {
    rec = ReadRawDirectory(path);
  } else {
    StatusOr<std::string> text = ReadDumpText(path);
    if (!text.ok()) return text.status();
    rec = ParseAarch64Cpuinfo(*text, report::SafeText(path));
  }
  if (!rec.ok()) return rec.status();
  PlatformInfo info = BuildAarch64PlatformInfo(*rec);
  info.source = report::SafeText(path);
  return info;
}

}  // namespace dlcheck::detect
