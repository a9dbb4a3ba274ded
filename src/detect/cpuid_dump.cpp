// SPDX-License-Identifier: Apache-2.0
#include "detect/cpuid_dump.h"

#include <fmt/format.h>
#include <lzma.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <set>
#include <sstream>

#include "common/input_rules.h"
#include "os/input_file.h"
#include "report/safe_text.h"

namespace dlcheck::detect {
namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

bool ParseHex(std::string_view s, std::uint32_t& out) {
  if (s.empty() || s.size() > 8) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// The largest logical CPU number a dump may name (Linux's NR_CPUS is at most 8192).
constexpr int kMaxCpuIndex = 65535;

// A CPU number or an array index: digits only (no sign), at most kMaxCpuIndex.
bool ParseDecimal(std::string_view s, int& out) {
  if (s.empty() || s.front() < '0' || s.front() > '9') return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 10);
  return ec == std::errc() && ptr == s.data() + s.size() && out <= kMaxCpuIndex;
}

// How a line that should hold one CPUID query was read.
enum class LineParse {
  kOk,
  kNotALine,  // not one of the known formats
  kCutShort,  // a known format whose line ends early or has a register of fewer than 8 digits
};

// One register: exactly 8 hex digits. Fewer (the line was cut inside it) sets `cut`.
bool ParseRegister(std::string_view s, std::uint32_t& out, bool& cut) {
  if (s.size() < 8 &&
      (s.empty() || s.find_first_not_of("0123456789abcdefABCDEF") == std::string_view::npos)) {
    cut = true;
    return false;
  }
  return s.size() == 8 && ParseHex(s, out);
}

LineParse RegistersResult(bool ok, bool cut) {
  if (ok) return LineParse::kOk;
  return cut ? LineParse::kCutShort : LineParse::kNotALine;
}

// "CPUID 00000007: 00000001-239CA7EB-98C027AC-FC1CC410 [SL 00] [comment]"
LineParse ParseAidaLine(std::string_view line, std::uint32_t& leaf, std::uint32_t& subleaf,
                        CpuidRegs& regs) {
  line.remove_prefix(6);  // "CPUID "
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || !ParseHex(line.substr(0, colon), leaf)) {
    return LineParse::kNotALine;
  }
  std::string_view rest = Trim(line.substr(colon + 1));
  std::uint32_t* out[4] = {&regs.eax, &regs.ebx, &regs.ecx, &regs.edx};
  bool cut = false;
  for (int i = 0; i < 4; ++i) {
    const std::size_t end = rest.find_first_of(i < 3 ? "-" : " ");
    if (!ParseRegister(rest.substr(0, end), *out[i], cut)) return RegistersResult(false, cut);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  subleaf = 0;
  rest = Trim(rest);
  if (rest.starts_with("[SL ")) {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos || !ParseHex(Trim(rest.substr(4, close - 4)), subleaf)) {
      return LineParse::kNotALine;
    }
  }
  return LineParse::kOk;
}

// "   0x00000007 0x00: eax=0x00000001 ebx=0xf1bb03a9 ecx=0x18005f42 edx=0x00000110"
// (Todd Allen's `cpuid -r`; the caller has trimmed the indentation.)
LineParse ParseCpuidToolLine(std::string_view line, std::uint32_t& leaf, std::uint32_t& subleaf,
                             CpuidRegs& regs) {
  const std::size_t space = line.find(' ');
  const std::size_t colon = line.find(':');
  if (space == std::string_view::npos || colon == std::string_view::npos || colon < space ||
      !line.substr(space + 1).starts_with("0x") || !ParseHex(line.substr(2, space - 2), leaf) ||
      !ParseHex(line.substr(space + 3, colon - space - 3), subleaf)) {
    return LineParse::kNotALine;
  }
  std::string_view rest = Trim(line.substr(colon + 1));
  static constexpr std::string_view kNames[4] = {"eax=0x", "ebx=0x", "ecx=0x", "edx=0x"};
  std::uint32_t* out[4] = {&regs.eax, &regs.ebx, &regs.ecx, &regs.edx};
  bool cut = false;
  for (int i = 0; i < 4; ++i) {
    if (!rest.starts_with(kNames[i])) {
      cut = kNames[i].starts_with(rest);  // the line ends inside the register's name
      return RegistersResult(false, cut);
    }
    rest.remove_prefix(kNames[i].size());
    const std::size_t end = rest.find(' ');
    if (!ParseRegister(rest.substr(0, end), *out[i], cut)) return RegistersResult(false, cut);
    rest = end == std::string_view::npos ? std::string_view() : Trim(rest.substr(end + 1));
  }
  return rest.empty() ? LineParse::kOk : LineParse::kNotALine;
}

// "basic_cpuid[7]=00000000 1c0d23ab 00000001 00000000"
LineParse ParseLegacyLine(std::string_view line, std::uint32_t& leaf, std::uint32_t& subleaf,
                          CpuidRegs& regs) {
  struct Array {
    std::string_view name;
    std::uint32_t base;  // leaf = base + index, or the fixed leaf when by_subleaf
    bool by_subleaf;
  };
  static constexpr Array kArrays[] = {
      {"basic_cpuid", 0, false},
      {"ext_cpuid", 0x80000000u, false},
      {"intel_fn4", 4, true},
      {"intel_fn11", 0xB, true},
      {"intel_fn12h", 0x12, true},
      {"intel_fn14h", 0x14, true},
      {"amd_fn8000001dh", 0x8000001Du, true},
  };
  const std::size_t open = line.find('[');
  const std::size_t close = line.find("]=");
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return LineParse::kNotALine;
  }
  const std::string_view name = line.substr(0, open);
  int index = 0;
  if (!ParseDecimal(line.substr(open + 1, close - open - 1), index) || index < 0 || index > 255) {
    return LineParse::kNotALine;
  }
  const Array* array = nullptr;
  for (const Array& a : kArrays) {
    if (a.name == name) array = &a;
  }
  if (array == nullptr) return LineParse::kNotALine;
  std::istringstream values{std::string(line.substr(close + 2))};
  std::string words[4];
  std::uint32_t* out[4] = {&regs.eax, &regs.ebx, &regs.ecx, &regs.edx};
  bool cut = false;
  for (int i = 0; i < 4; ++i) {
    values >> words[i];  // a missing word stays empty: the line was cut before it
    if (!ParseRegister(words[i], *out[i], cut)) return RegistersResult(false, cut);
  }
  leaf = array->by_subleaf ? array->base : array->base + static_cast<std::uint32_t>(index);
  subleaf = array->by_subleaf ? static_cast<std::uint32_t>(index) : 0;
  return LineParse::kOk;
}

LineParse ParseQueryLine(std::string_view line, std::uint32_t& leaf, std::uint32_t& subleaf,
                         CpuidRegs& regs) {
  if (line.starts_with("CPUID ")) return ParseAidaLine(line, leaf, subleaf, regs);
  if (line.starts_with("0x")) return ParseCpuidToolLine(line, leaf, subleaf, regs);
  return ParseLegacyLine(line, leaf, subleaf, regs);
}

// At most 60 characters of a bad line for an error message, control bytes shown as '?'.
// A line quoted in a message: the one sanitizer of log text (report/safe_text.h: C0 and C1
// controls, bidi controls and bytes that are not UTF-8 as '?'), 60 bytes at most.
std::string Snippet(std::string_view line) {
  return report::SafeText(line, 60);
}

bool IsDashLine(std::string_view line) {
  return line.size() == 80 && line.find_first_not_of('-') == std::string_view::npos;
}

enum class HeaderParse { kNotAHeader, kHeader, kOtherSection, kBadHeader };

// The name of an AIDA64 section header `------[ NAME ]------`, or "" for another line.
std::string_view SectionName(std::string_view line) {
  if (!line.starts_with("------[ ") || !line.ends_with(" ]------")) return {};
  return line.substr(8, line.size() - 16);
}

// The line that starts one logical CPU's block, in any of the formats; `index` is its number.
//   ------[ Logical CPU #0 ]------      CPU#000 AffMask: 0x...      CPU 0:  (cpuid -r)
// Another section of an AIDA64 report (`------[ Versions ]------`, `------[ MSR Registers /
// Logical CPU #0 ]------`) is kOtherSection: its lines are not CPUID data.
HeaderParse ParseHeader(std::string_view line, int& index) {
  if (line.starts_with("------[")) {
    const std::string_view name = SectionName(line);
    const bool cpuid_block =
        name.starts_with("Logical CPU #") || name.starts_with("CPUID Registers / Logical CPU #");
    if (!cpuid_block) return name.empty() ? HeaderParse::kBadHeader : HeaderParse::kOtherSection;
    const std::size_t at = line.find("Logical CPU #");
    std::string_view digits = line.substr(at + 13);
    digits = digits.substr(0, digits.find_first_not_of("0123456789"));
    return ParseDecimal(digits, index) ? HeaderParse::kHeader : HeaderParse::kBadHeader;
  }
  if (line.starts_with("CPU#")) {
    const std::size_t space = line.find(' ');
    const bool ok = space != std::string_view::npos &&
                    line.substr(space).starts_with(" AffMask:") &&
                    ParseDecimal(line.substr(4, space - 4), index);
    return ok ? HeaderParse::kHeader : HeaderParse::kBadHeader;
  }
  if (line.starts_with("CPU ") && line.ends_with(':')) {
    return ParseDecimal(line.substr(4, line.size() - 5), index) ? HeaderParse::kHeader
                                                                : HeaderParse::kBadHeader;
  }
  if (line == "CPU:") {  // `cpuid -r -1`: the one CPU it ran on
    index = 0;
    return HeaderParse::kHeader;
  }
  return HeaderParse::kNotAHeader;
}

// Lines AIDA64 writes inside a CPUID block that are not CPUID data: the topology of the CPU
// (`allcpu: Package 0 / Core 0 / Thread 0: Valid, Intel Core`) and the caches it decoded
// (`L1    Data Cache:    48 KB, 12-way Associative, 64-byte Line`, `L0+L1    Data Cache: ...`).
enum class Annotation { kNone, kAllcpu, kCache };
Annotation AnnotationOf(std::string_view line) {
  if (line.starts_with("allcpu:")) return Annotation::kAllcpu;
  if (line.size() > 3 && line[0] == 'L' && line[1] >= '0' && line[1] <= '4' &&
      line.find(" Cache:") != std::string_view::npos) {
    return Annotation::kCache;
  }
  return Annotation::kNone;
}

// "sections: Versions, CPU Info, MSR Registers x14; 14 allcpu lines, 56 cache lines"
std::string LeftOutText(const std::map<std::string, int, std::less<>>& sections, int allcpu,
                        int cache) {
  std::vector<std::string> names;
  for (const auto& [name, count] : sections) {
    names.push_back(count > 1 ? fmt::format("{} x{}", name, count) : name);
  }
  std::vector<std::string> parts;
  if (!names.empty()) parts.push_back(fmt::format("sections {}", fmt::join(names, ", ")));
  if (allcpu > 0) parts.push_back(fmt::format("{} allcpu lines", allcpu));
  if (cache > 0) parts.push_back(fmt::format("{} cache description lines", cache));
  return fmt::format("{}", fmt::join(parts, "; "));
}

Status LineError(const std::string& origin, int line_number, std::string_view what,
                 std::string_view line) {
  return InputError(fmt::format("{}:{}: {}: '{}'", origin, line_number, what, Snippet(line)));
}

// An .xz file's text, at most os::kMaxInputBytes of it.
StatusOr<std::string> DecompressXz(const std::string& bytes, const std::string& path) {
  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, kMaxXzDecoderBytes, LZMA_CONCATENATED) != LZMA_OK) {
    return InputError(fmt::format("cannot decompress '{}': liblzma failed to start", path));
  }
  std::string text;
  char buffer[1 << 16];
  stream.next_in = reinterpret_cast<const std::uint8_t*>(bytes.data());
  stream.avail_in = bytes.size();
  lzma_ret ret = LZMA_OK;
  while (ret == LZMA_OK && text.size() <= os::kMaxInputBytes) {
    stream.next_out = reinterpret_cast<std::uint8_t*>(buffer);
    stream.avail_out = sizeof(buffer);
    ret = lzma_code(&stream, LZMA_FINISH);
    text.append(buffer, sizeof(buffer) - stream.avail_out);
  }
  lzma_end(&stream);
  if (ret == LZMA_MEMLIMIT_ERROR) {
    return InputError(fmt::format(
        "cannot decompress '{}': it needs more than {} of memory to decompress, the most dlcheck "
        "gives",
        path, os::ByteCountText(kMaxXzDecoderBytes)));
  }
  if (text.size() > os::kMaxInputBytes) {
    return InputError(
        fmt::format("CPUID dump '{}' decompresses to more than {}, the most dlcheck "
                    "reads",
                    path, os::ByteCountText(os::kMaxInputBytes)));
  }
  if (ret != LZMA_STREAM_END) {
    return InputError(
        fmt::format("cannot decompress '{}': the .xz data is corrupt or truncated", path));
  }
  return text;
}

}  // namespace

bool IsSubleafIndexed(std::uint32_t leaf) {
  switch (leaf) {
    case 0x4:
    case 0x7:
    case 0xB:
    case 0xD:
    case 0xF:
    case 0x10:
    case 0x12:
    case 0x14:
    case 0x17:
    case 0x18:
    case 0x1D:
    case 0x1F:
    case 0x20:
    case 0x23:
    case 0x24:
    case 0x8000001Du:
    case 0x80000020u:
    case 0x80000026u:
      return true;
    default:
      return false;
  }
}

StatusOr<CpuidDump> ParseCpuidDump(std::string_view text, const std::string& origin) {
  CpuidDump dump;
  int line_number = 0;
  bool in_other_section = false;  // an AIDA64 report's section that holds no CPUID data
  std::map<std::string, int, std::less<>> other_sections;
  int allcpu_lines = 0;
  int cache_lines = 0;
  std::set<int> seen_cpus;
  bool in_repeated_block = false;  // the block of a CPU whose header came before
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view line = Trim(text.substr(0, eol));
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_number;
    if (line.empty()) continue;
    if (IsDashLine(line)) break;  // the expected part of a libcpuid .test file follows
    int index = 0;
    switch (ParseHeader(line, index)) {
      case HeaderParse::kHeader:
        in_other_section = false;
        // A CPU named twice is one CPU: its later blocks are left out, and said.
        in_repeated_block = !seen_cpus.insert(index).second;
        if (in_repeated_block) {
          if (std::find(dump.repeated_cpus.begin(), dump.repeated_cpus.end(), index) ==
              dump.repeated_cpus.end()) {
            dump.repeated_cpus.push_back(index);
          }
          continue;
        }
        dump.cpus.push_back({index, {}});
        continue;
      case HeaderParse::kOtherSection: {
        in_other_section = true;
        in_repeated_block = false;
        std::string_view name = SectionName(line);
        name = name.substr(0, name.find(" / Logical CPU #"));  // one entry for every CPU's
        ++other_sections[std::string(name)];
        continue;
      }
      case HeaderParse::kBadHeader:
        return LineError(origin, line_number, "not a CPUID dump header", line);
      case HeaderParse::kNotAHeader:
        break;
    }
    if (in_other_section || in_repeated_block) continue;
    switch (AnnotationOf(line)) {
      case Annotation::kAllcpu:
        ++allcpu_lines;
        continue;
      case Annotation::kCache:
        ++cache_lines;
        continue;
      case Annotation::kNone:
        break;
    }
    std::uint32_t leaf = 0;
    std::uint32_t subleaf = 0;
    CpuidRegs regs;
    switch (ParseQueryLine(line, leaf, subleaf, regs)) {
      case LineParse::kOk:
        if (dump.cpus.empty()) dump.cpus.push_back({0, {}});
        // In a legacy dump, intel_fn4[N] etc. come after basic_cpuid[4] and hold the subleaf.
        dump.cpus.back().leaves[{leaf, subleaf}] = regs;
        continue;
      case LineParse::kCutShort:
        return LineError(origin, line_number,
                         "CPUID line cut short (each of EAX EBX ECX EDX has 8 hex digits)", line);
      case LineParse::kNotALine:
        return LineError(origin, line_number, "not a CPUID dump line", line);
    }
  }
  bool any = false;
  for (const LogicalCpuDump& cpu : dump.cpus) any = any || !cpu.leaves.empty();
  if (!any) {
    return InputError(
        fmt::format("{}: no CPUID data found (expected libcpuid's raw dump format, e.g. from "
                    "'dlcheck platform --save-raw DIR', or the output of 'cpuid -r')",
                    origin));
  }
  // Drop headers with no lines under them (a truncated block says nothing).
  std::erase_if(dump.cpus, [](const LogicalCpuDump& cpu) { return cpu.leaves.empty(); });
  dump.left_out = LeftOutText(other_sections, allcpu_lines, cache_lines);
  return dump;
}

StatusOr<std::string> ReadDumpText(const std::string& path) {
  StatusOr<std::string> bytes = os::ReadInputFile(path, {"CPUID dump", "", os::kMaxInputBytes});
  if (!bytes.ok()) return bytes.status();
  const bool xz = bytes->size() >= 6 && std::memcmp(bytes->data(),
                                                    "\xFD"
                                                    "7zXZ\0",
                                                    6) == 0;
  if (!xz) return bytes;
  return DecompressXz(*bytes, path);
}

StatusOr<CpuidDump> LoadCpuidDump(const std::string& path) {
  StatusOr<std::string> text = ReadDumpText(path);
  if (!text.ok()) return text.status();
  return ParseCpuidDump(*text, path);
}

std::string FormatCpuidDump(const CpuidDump& dump) {
  std::string out;
  for (const LogicalCpuDump& cpu : dump.cpus) {
    out += fmt::format("------[ Logical CPU #{} ]------\n", cpu.index);
    for (const auto& [key, r] : cpu.leaves) {
      out += fmt::format("CPUID {:08X}: {:08X}-{:08X}-{:08X}-{:08X}", key.first, r.eax, r.ebx,
                         r.ecx, r.edx);
      if (IsSubleafIndexed(key.first)) out += fmt::format(" [SL {:02X}]", key.second);
      out += '\n';
    }
  }
  return out;
}

}  // namespace dlcheck::detect
