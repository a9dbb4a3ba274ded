#include "detect/libcpuid_layer.h"

#include <fmt/format.h>
#include <libcpuid/libcpuid.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <string_view>

namespace dlcheck::detect {
namespace {

void IgnoreWarning(const char* /*message*/) {}

void Silence() {
  // libcpuid prints "not understood" and topology warnings on stderr; dlcheck reports instead.
  cpuid_set_warn_function(&IgnoreWarning);
}

struct FlagName {
  cpu_feature_t flag;
  const char* name;
};

// Every flag libcpuid 0.6.2 has for a feature dlcheck reports; the rest get no opinion.
constexpr FlagName kFlags[] = {
    {CPU_FEATURE_SSE4_1, "sse4_1"},
    {CPU_FEATURE_SSE4_2, "sse4_2"},
    {CPU_FEATURE_AVX, "avx"},
    {CPU_FEATURE_AVX2, "avx2"},
    {CPU_FEATURE_FMA3, "fma"},
    {CPU_FEATURE_F16C, "f16c"},
    {CPU_FEATURE_AVX512F, "avx512f"},
    {CPU_FEATURE_AVX512CD, "avx512cd"},
    {CPU_FEATURE_AVX512BW, "avx512bw"},
    {CPU_FEATURE_AVX512DQ, "avx512dq"},
    {CPU_FEATURE_AVX512VL, "avx512vl"},
    {CPU_FEATURE_AVX512PF, "avx512pf"},
    {CPU_FEATURE_AVX512ER, "avx512er"},
    {CPU_FEATURE_AVX512VNNI, "avx512_vnni"},
    {CPU_FEATURE_AVX512VBMI, "avx512vbmi"},
    {CPU_FEATURE_AVX512VBMI2, "avx512_vbmi2"},
};

LibcpuidLayer FromId(const cpu_id_t& id) {
  LibcpuidLayer layer;
  layer.available = true;
  for (const FlagName& f : kFlags) layer.flags[f.name] = id.flags[f.flag] != 0;
  layer.codename = id.cpu_codename;
  return layer;
}

LibcpuidLayer Unavailable(std::string note) {
  LibcpuidLayer layer;
  layer.note = std::move(note);
  return layer;
}

// A temporary file that is removed when this goes out of scope.
class TempFile {
 public:
  TempFile() {
    const char* dir = getenv("TMPDIR");
    path_ = std::string(dir != nullptr && *dir != '\0' ? dir : "/tmp") + "/dlcheck-cpuid-XXXXXX";
    fd_ = mkstemp(path_.data());
  }
  ~TempFile() {
    if (fd_ >= 0) {
      close(fd_);
      unlink(path_.c_str());
    }
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  bool Write(const std::string& text) {
    if (fd_ < 0) return false;
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = write(fd_, text.data() + done, text.size() - done);
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

// Identifies the first logical CPU of the dump at `path`; error text when libcpuid cannot.
std::string IdentifyFile(const std::string& path, cpu_id_t& id) {
  cpu_raw_data_array_t array;
  if (cpuid_deserialize_all_raw_data(&array, path.c_str()) == 0 && array.num_raw > 0) {
    const int ret = cpu_identify(&array.raw[0], &id);
    cpuid_free_raw_data_array(&array);
    if (ret == 0) return {};
    return fmt::format("libcpuid could not identify the CPU: {}", cpuid_error());
  }
  cpuid_free_raw_data_array(&array);
  // A legacy single-CPU dump (basic_cpuid[N]=...) is read by the single-CPU call.
  cpu_raw_data_t raw;
  if (cpuid_deserialize_raw_data(&raw, path.c_str()) != 0) {
    return fmt::format("libcpuid could not read the dump: {}", cpuid_error());
  }
  if (cpu_identify(&raw, &id) != 0) {
    return fmt::format("libcpuid could not identify the CPU: {}", cpuid_error());
  }
  return {};
}

// The first logical CPU's block of a dump, the one dlcheck asks libcpuid about: libcpuid parses
// with sscanf, and a 384-CPU dump costs it tens of milliseconds for CPUs it would not report.
// 0.6.2 does not know the "CPU#000 AffMask: ..." header; it is rewritten to the AIDA64 one.
std::string FirstCpuForLibcpuid(const std::string& text) {
  std::string out;
  int headers = 0;
  std::string_view rest = text;
  while (!rest.empty()) {
    const std::size_t eol = rest.find('\n');
    const std::string_view line = rest.substr(0, eol);
    rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    const std::size_t space = line.find(' ');
    const bool aff_mask = line.starts_with("CPU#") && space != std::string_view::npos &&
                          line.substr(space).starts_with(" AffMask:");
    if (aff_mask || line.starts_with("------[")) {
      if (++headers > 1) break;  // the second CPU starts here
    }
    if (aff_mask) {
      std::string_view digits = line.substr(4, space - 4);
      while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
      out += "------[ Logical CPU #";
      out += digits;
      out += " ]------\n";
    } else {
      out += line;
      out += '\n';
    }
  }
  return out;
}

}  // namespace

LibcpuidLayer LibcpuidLive() {
  Silence();
  if (!cpuid_present()) return Unavailable("libcpuid: the CPUID instruction is not available");
  cpu_id_t id;
  if (cpu_identify(nullptr, &id) != 0) {
    return Unavailable(fmt::format("libcpuid could not identify the CPU: {}", cpuid_error()));
  }
  return FromId(id);
}

LibcpuidLayer LibcpuidFromDump(const std::string& text, const CpuidDump& dump) {
  Silence();
  const std::string risk = LibcpuidOverflowRisk(dump);
  if (!risk.empty()) {
    return Unavailable("libcpuid " + std::string(cpuid_lib_version()) +
                       " not run on this dump: " + risk);
  }
  const std::string rewritten = FirstCpuForLibcpuid(text);
  TempFile file;
  if (!file.Write(rewritten)) {
    return Unavailable("libcpuid not run: cannot write a temporary file for it");
  }
  cpu_id_t id;
  const std::string error = IdentifyFile(file.path(), id);
  if (!error.empty()) return Unavailable(error);
  return FromId(id);
}

std::string LibcpuidCanRead(const std::string& path) {
  Silence();
  cpu_id_t id;
  return IdentifyFile(path, id);
}

}  // namespace dlcheck::detect
