#include "detect/cpuid_dump.h"

#include <fmt/format.h>
#include <lzma.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace dlcheck::detect {
namespace {

constexpr std::size_t kMaxDumpBytes = std::size_t{256} << 20;  // decompressed: refuse bombs

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

bool ParseDecimal(std::string_view s, int& out) {
  if (s.empty()) return false;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 10);
  return ec == std::errc() && ptr == s.data() + s.size();
}

// "CPUID 00000007: 00000001-239CA7EB-98C027AC-FC1CC410 [SL 00] [comment]"
bool ParseAidaLine(std::string_view line, std::uint32_t& leaf, std::uint32_t& subleaf,
                   CpuidRegs& regs) {
  line.remove_prefix(6);  // "CPUID "
  const std::size_t colon = line.find(':');
  if (colon == std::string_view::npos || !ParseHex(line.substr(0, colon), leaf)) return false;
  std::string_view rest = Trim(line.substr(colon + 1));
  std::uint32_t* out[4] = {&regs.eax, &regs.ebx, &regs.ecx, &regs.edx};
  for (int i = 0; i < 4; ++i) {
    const std::size_t end = rest.find_first_of(i < 3 ? "-" : " ");
    if (!ParseHex(rest.substr(0, end), *out[i])) return false;
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  subleaf = 0;
  rest = Trim(rest);
  if (rest.starts_with("[SL ")) {
    const std::size_t close = rest.find(']');
    if (close == std::string_view::npos || !ParseHex(Trim(rest.substr(4, close - 4)), subleaf)) {
      return false;
    }
  }
  return true;
}

// "basic_cpuid[7]=00000000 1c0d23ab 00000001 00000000"
bool ParseLegacyLine(std::string_view line, std::uint32_t& leaf, std::uint32_t& subleaf,
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
    return false;
  }
  const std::string_view name = line.substr(0, open);
  int index = 0;
  if (!ParseDecimal(line.substr(open + 1, close - open - 1), index) || index < 0 || index > 255) {
    return false;
  }
  const Array* array = nullptr;
  for (const Array& a : kArrays) {
    if (a.name == name) array = &a;
  }
  if (array == nullptr) return false;
  std::istringstream values{std::string(line.substr(close + 2))};
  std::string words[4];
  if (!(values >> words[0] >> words[1] >> words[2] >> words[3])) return false;
  std::uint32_t* out[4] = {&regs.eax, &regs.ebx, &regs.ecx, &regs.edx};
  for (int i = 0; i < 4; ++i) {
    if (!ParseHex(words[i], *out[i])) return false;
  }
  leaf = array->by_subleaf ? array->base : array->base + static_cast<std::uint32_t>(index);
  subleaf = array->by_subleaf ? static_cast<std::uint32_t>(index) : 0;
  return true;
}

// At most 60 characters of a bad line for an error message, control bytes shown as '?'.
std::string Snippet(std::string_view line) {
  std::string out(line.substr(0, 60));
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  }
  return out;
}

bool IsDashLine(std::string_view line) {
  return line.size() == 80 && line.find_first_not_of('-') == std::string_view::npos;
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
  while (!text.empty()) {
    const std::size_t eol = text.find('\n');
    const std::string_view raw_line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    ++line_number;
    const std::string_view line = Trim(raw_line);
    if (line.empty()) continue;
    if (IsDashLine(line)) break;  // the expected part of a libcpuid .test file follows
    if (line.starts_with("------[")) {
      const std::size_t at = line.find("Logical CPU #");
      int index = 0;
      if (at != std::string_view::npos) {
        std::string_view digits = line.substr(at + 13);
        digits = digits.substr(0, digits.find_first_not_of("0123456789"));
        if (ParseDecimal(digits, index)) {
          dump.cpus.push_back({index, {}});
          continue;
        }
      }
      return InputError(
          fmt::format("{}:{}: not a CPUID dump header: '{}'", origin, line_number, Snippet(line)));
    }
    if (line.starts_with("CPU#")) {
      int index = 0;
      const std::size_t space = line.find(' ');
      if (space != std::string_view::npos && line.substr(space).starts_with(" AffMask:") &&
          ParseDecimal(line.substr(4, space - 4), index)) {
        dump.cpus.push_back({index, {}});
        continue;
      }
      return InputError(
          fmt::format("{}:{}: not a CPUID dump header: '{}'", origin, line_number, Snippet(line)));
    }
    std::uint32_t leaf = 0;
    std::uint32_t subleaf = 0;
    CpuidRegs regs;
    const bool aida = line.starts_with("CPUID ");
    if (aida ? ParseAidaLine(line, leaf, subleaf, regs)
             : ParseLegacyLine(line, leaf, subleaf, regs)) {
      if (dump.cpus.empty()) dump.cpus.push_back({0, {}});
      // In a legacy dump, intel_fn4[N] etc. come after basic_cpuid[4] and hold the real subleaf.
      dump.cpus.back().leaves[{leaf, subleaf}] = regs;
      continue;
    }
    return InputError(
        fmt::format("{}:{}: not a CPUID dump line: '{}'", origin, line_number, Snippet(line)));
  }
  bool any = false;
  for (const LogicalCpuDump& cpu : dump.cpus) any = any || !cpu.leaves.empty();
  if (!any) {
    return InputError(
        fmt::format("{}: no CPUID data found (expected libcpuid's raw dump format, e.g. from "
                    "'dlcheck platform --save-raw DIR')",
                    origin));
  }
  // Drop headers with no lines under them (a truncated block says nothing).
  std::erase_if(dump.cpus, [](const LogicalCpuDump& cpu) { return cpu.leaves.empty(); });
  return dump;
}

StatusOr<std::string> ReadDumpText(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return InputError(fmt::format("cannot read CPUID dump '{}': it is a directory", path));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return InputError(fmt::format("cannot open CPUID dump '{}': {}", path, std::strerror(errno)));
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() > kMaxDumpBytes) {
    return InputError(fmt::format("CPUID dump '{}' is larger than 256 MiB", path));
  }
  const bool xz = bytes.size() >= 6 && std::memcmp(bytes.data(),
                                                   "\xFD"
                                                   "7zXZ\0",
                                                   6) == 0;
  if (!xz) return bytes;

  lzma_stream stream = LZMA_STREAM_INIT;
  if (lzma_stream_decoder(&stream, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
    return InputError(fmt::format("cannot decompress '{}': liblzma failed to start", path));
  }
  std::string text;
  char buffer[1 << 16];
  stream.next_in = reinterpret_cast<const std::uint8_t*>(bytes.data());
  stream.avail_in = bytes.size();
  lzma_ret ret = LZMA_OK;
  while (ret == LZMA_OK) {
    stream.next_out = reinterpret_cast<std::uint8_t*>(buffer);
    stream.avail_out = sizeof(buffer);
    ret = lzma_code(&stream, LZMA_FINISH);
    text.append(buffer, sizeof(buffer) - stream.avail_out);
    if (text.size() > kMaxDumpBytes) {
      lzma_end(&stream);
      return InputError(fmt::format("CPUID dump '{}' decompresses to more than 256 MiB", path));
    }
  }
  lzma_end(&stream);
  if (ret != LZMA_STREAM_END) {
    return InputError(
        fmt::format("cannot decompress '{}': the .xz data is corrupt or truncated", path));
  }
  return text;
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
