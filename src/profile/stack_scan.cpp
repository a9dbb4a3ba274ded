// SPDX-License-Identifier: Apache-2.0
#include "profile/stack_scan.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "os/child_call.h"
#include "os/input_file.h"
#include "profile/elf_image.h"
#include "profile/perf_data.h"
#include "profile/perf_map.h"

namespace dlcheck::profile {
namespace {

// The most frames one sample's scan keeps: a 16 KiB stack copy holds 2048 words.
constexpr std::size_t kMaxScannedFrames = 256;
// The bounds of what one scan keeps, whatever the recording holds (stack_scan.h).
constexpr std::size_t kMaxDemangledBytes = 16384;   // a longer demangling stays mangled
constexpr std::size_t kMaxStoredFrames = 1 << 18;   // the distinct stacks' frames together
constexpr std::size_t kMaxMappings = 1 << 18;       // all processes' file mappings together
constexpr std::size_t kMaxImages = 512;             // ELF files open at once
constexpr std::size_t kMaxPerfMapBytes = 64 << 20;  // one perf map (a JIT kernel: ~80 bytes)
// A mangled name with more back references than this (S_, S0_, T_, ...) may expand
// exponentially (each reference prints what it names again): demangled in a bounded child.
constexpr int kMaxInProcessReferences = 8;
// The longest call instruction: FF /2 with a SIB byte and a 32-bit displacement.
constexpr std::size_t kLongestCall = 7;

// The back references of a mangled name: substitutions (S_, S0_, SA_, ...) and template
// parameters (T_, T0_, ...).
int BackReferences(std::string_view mangled) {
  int n = 0;
  for (std::size_t i = 0; i + 1 < mangled.size(); ++i) {
    if (mangled[i] != 'S' && mangled[i] != 'T') continue;
    std::size_t j = i + 1;
    const bool substitution = mangled[i] == 'S';
    while (j < mangled.size() &&
           (std::isdigit(static_cast<unsigned char>(mangled[j])) ||
            (substitution && std::isupper(static_cast<unsigned char>(mangled[j]))))) {
      ++j;
    }
    if (j < mangled.size() && mangled[j] == '_') ++n;
  }
  return n;
}

std::string DemangleInProcess(const std::string& mangled) {
  int status = 0;
  char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || out == nullptr) return {};
  std::string demangled(out);
  std::free(out);
  return demangled;
}

}  // namespace

std::optional<std::string> DemanglerBudget::CallChild(const std::function<std::string()>& demangle,
                                                      std::size_t max_output_bytes) {
  if (!stopped_ && stop_ && stop_()) stopped_ = true;
  if (stopped_ || left_s_ <= 0) {
    ++left_mangled_;
    return std::nullopt;
  }
  const auto start = std::chrono::steady_clock::now();
  std::optional<std::string> out =
      os::CallInChild(demangle, {.max_memory_bytes = kChildMemoryBytes,
                                 .timeout_s = std::min(kChildSeconds, left_s_),
                                 .max_output_bytes = max_output_bytes,
                                 .stop = stop_});
  left_s_ -= std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (stop_ && stop_()) stopped_ = true;
  return out;
}

std::string DemanglerBudget::BoundReached() const {
  if (left_s_ > 0 || left_mangled_ == 0) return {};
  return fmt::format(
      "the demangler's {:g} s (its children together) were spent: {} names that could demangle "
      "explosively left mangled",
      seconds_, left_mangled_);
}

std::string Demangle(std::string_view name) {
  DemanglerBudget budget;
  return Demangle(name, budget);
}

std::string Demangle(std::string_view name, DemanglerBudget& budget) {
  if (!name.starts_with("_Z") || name.size() > kMaxSymbolBytes) return std::string(name);
  const std::string mangled(name.substr(0, name.find('.')));
  std::optional<std::string> demangled;
  if (BackReferences(mangled) <= kMaxInProcessReferences) {
    demangled = DemangleInProcess(mangled);
  } else {
    demangled = budget.CallChild([&] { return DemangleInProcess(mangled); }, kMaxDemangledBytes);
  }
  if (!demangled || demangled->empty() || demangled->size() > kMaxDemangledBytes) {
    return std::string(name);
  }
  return std::move(*demangled);
}

namespace {

// The length of an FF /2 call whose ModRM byte is `modrm` (and SIB byte `sib`, when it has one).
std::size_t IndirectCallLength(std::uint8_t modrm, std::uint8_t sib) {
  const int mod = modrm >> 6;
  const int rm = modrm & 7;
  const bool has_sib = mod != 3 && rm == 4;
  std::size_t length = 2 + (has_sib ? 1 : 0);
  if (mod == 1) length += 1;
  if (mod == 2) length += 4;
  if (mod == 0 && rm == 5) length += 4;                    // RIP-relative
  if (mod == 0 && has_sib && (sib & 7) == 5) length += 4;  // no base, disp32
  return length;
}

struct Mapping {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint64_t file_offset = 0;
  std::string path;
};

using Ranges = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

bool InRanges(const Ranges& ranges, std::uint64_t address) {
  auto it = std::upper_bound(ranges.begin(), ranges.end(), address,
                             [](std::uint64_t a, const auto& r) { return a < r.first; });
  return it != ranges.begin() && address < std::prev(it)->second;
}

// A caller that no live stack above JIT code has: the dynamic loader resolves symbols and runs
// initialisers, but no call of its leads to oneDNN's kernels (its `check_match` and
// `do_lookup_x` are stale words of the lazy binding that ran before), so a return address into
// it is left over, never a frame.
bool IsImpossibleCaller(const Frame& frame) {
  const std::string_view dso = frame.dso;
  const std::string_view object = dso.substr(std::min(dso.size(), dso.rfind('/') + 1));
  return object.starts_with("ld-linux") || object.starts_with("ld64.so") ||
         object.starts_with("ld.so");
}

// A file mapping worth scanning into: a file on disk, not "//anon", "[vdso]" or a deleted one.
bool IsScannableFile(const PerfDataMmap& m) {
  return m.executable && m.filename.starts_with('/') && !m.filename.starts_with("//") &&
         !m.filename.ends_with(" (deleted)");
}

// A perf map's ranges; none when it is missing, not a regular file (a FIFO, /dev/zero) or past
// kMaxPerfMapBytes, `why` then saying so (empty for a missing map: a process without JIT code).
Ranges ReadPerfMapRanges(const std::string& path, std::string& why) {
  if (access(path.c_str(), F_OK) != 0) return {};
  StatusOr<std::string> text = os::ReadInputFile(
      path, {.what = "perf map", .max_bytes = kMaxPerfMapBytes, .regular_only = true});
  if (!text.ok()) {
    why = text.status().message();
    return {};
  }
  return ParsePerfMapRanges(*text);
}

}  // namespace

struct ReturnAddressScanner::State {
  std::map<std::uint32_t, std::map<std::uint64_t, Mapping>> maps;
  std::size_t mappings = 0;  // in `maps`, all processes together
  std::map<std::string, std::unique_ptr<ElfImage>> images;
  std::set<std::string> bounds_reached;
  DemanglerBudget demangler;
  std::string last_demangler_bound;  // its count changes as more names are left mangled

  explicit State(std::function<bool()> stop) : demangler(std::move(stop)) {}

  ElfImage* ImageOf(const std::string& path) {
    auto found = images.find(path);
    if (found != images.end()) return found->second.get();
    if (images.size() >= kMaxImages) {
      bounds_reached.insert(
          fmt::format("more than {} mapped files: the others not read", kMaxImages));
      return nullptr;
    }
    auto [it, fresh] = images.try_emplace(path);
    it->second = ElfImage::Open(path);
    return it->second.get();
  }

  // Room for `n` more mappings; past kMaxMappings the bound is named and nothing is added.
  bool Room(std::size_t n) {
    if (mappings + n <= kMaxMappings) {
      mappings += n;
      return true;
    }
    bounds_reached.insert(fmt::format(
        "more than {} file mappings (processes together): the others left out", kMaxMappings));
    return false;
  }

  std::optional<Frame> ReturnFrame(const std::map<std::uint64_t, Mapping>& of_pid,
                                   std::uint64_t address) {
    auto it = of_pid.upper_bound(address);
    if (it == of_pid.begin()) return std::nullopt;
    const Mapping& m = std::prev(it)->second;
    if (address >= m.end) return std::nullopt;
    ElfImage* image = ImageOf(m.path);
    const std::uint64_t offset = address - m.start + m.file_offset;
    if (image == nullptr || !image->CallEndsAt(offset)) return std::nullopt;
    // The call, not what follows it: a call may be a function's last instruction.
    std::optional<std::string> name = image->FunctionAt(offset - 1, demangler);
    if (std::string bound = demangler.BoundReached(); !bound.empty()) {
      bounds_reached.erase(last_demangler_bound);
      bounds_reached.insert(bound);
      last_demangler_bound = std::move(bound);
    }
    return Frame{.symbol = name ? std::move(*name) : "[unknown]", .dso = m.path, .scanned = true};
  }
};

ReturnAddressScanner::ReturnAddressScanner(std::function<bool()> stop)
    : state_(std::make_unique<State>(std::move(stop))) {
  elf_version(EV_CURRENT);
}

ReturnAddressScanner::~ReturnAddressScanner() = default;

void ReturnAddressScanner::AddMapping(const PerfDataMmap& m) {
  if (!IsScannableFile(m)) return;
  auto& of_pid = state_->maps[m.pid];
  if (of_pid.count(m.start) == 0 && !state_->Room(1)) return;
  of_pid[m.start] = {m.start, m.start + m.length, m.file_offset, m.filename};
}

void ReturnAddressScanner::Fork(const PerfDataFork& f) {
  if (f.pid == f.ppid) return;  // a thread shares its process's mappings
  const auto parent = state_->maps.find(f.ppid);
  if (parent == state_->maps.end()) return;
  // A fork storm copies the parent's mappings again and again: counted against one bound.
  auto& child = state_->maps[f.pid];
  state_->mappings -= std::min(state_->mappings, child.size());
  child.clear();
  if (state_->Room(parent->second.size())) child = parent->second;
}

std::vector<Frame> ReturnAddressScanner::Scan(std::uint32_t pid,
                                              std::span<const std::uint8_t> stack) {
  const auto maps = state_->maps.find(pid);
  if (maps == state_->maps.end()) return {};
  std::vector<Frame> frames;
  std::uint64_t previous = 0;
  for (std::size_t at = 0; at + 8 <= stack.size() && frames.size() < kMaxScannedFrames; at += 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, stack.data() + at, 8);
    if (word == previous) continue;  // the same address twice in a row is a stale copy
    std::optional<Frame> frame = state_->ReturnFrame(maps->second, word);
    if (!frame || IsImpossibleCaller(*frame)) continue;
    previous = word;
    frames.push_back(std::move(*frame));
  }
  return frames;
}

const std::set<std::string>& ReturnAddressScanner::bounds_reached() const {
  return state_->bounds_reached;
}

std::uint64_t ReturnAddressScanner::files_unreadable() const {
  std::uint64_t n = 0;
  for (const auto& [path, image] : state_->images) n += image == nullptr;
  return n;
}

void ScannedStacks::Add(SampleKey sample, const std::vector<Frame>& callers) {
  if (callers.size() > kMaxScannedFrames) return;
  std::string joined;
  for (const Frame& f : callers) {
    joined += f.symbol;
    joined += '\0';
    joined += f.dso;
    joined += '\0';
  }
  auto it = index_.find(joined);
  if (it == index_.end()) {
    // Distinct stacks are kept whole: bounded by their frames together, past which a sample
    // with a new stack keeps only its unwound frames and the bound is named.
    if (stored_frames_ + callers.size() > kMaxStoredFrames) {
      bounds_reached.insert(fmt::format(
          "more than {} frames in distinct caller stacks: the samples of the others got no "
          "callers",
          kMaxStoredFrames));
      return;
    }
    stored_frames_ += callers.size();
    it = index_.emplace(std::move(joined), static_cast<std::uint32_t>(stacks_.size())).first;
    stacks_.push_back(callers);
  }
  if (!samples_.empty() && !(samples_.back().first < sample)) sorted_ = false;
  samples_.emplace_back(sample, it->second);
}

const std::vector<Frame>* ScannedStacks::CallersOf(SampleKey sample) const {
  if (!sorted_) {
    std::sort(samples_.begin(), samples_.end());
    sorted_ = true;
  }
  auto it = std::lower_bound(samples_.begin(), samples_.end(), sample,
                             [](const auto& entry, SampleKey key) { return entry.first < key; });
  if (it == samples_.end() || it->first != sample) return nullptr;
  return &stacks_[it->second];
}

bool EndsInCall(std::span<const std::uint8_t> before) {
  const std::size_t n = before.size();
  if (n >= 5 && before[n - 5] == 0xE8) return true;  // call rel32
  for (std::size_t length = 2; length <= std::min(n, kLongestCall); ++length) {
    const std::size_t at = n - length;
    if (before[at] != 0xFF) continue;
    const std::uint8_t modrm = before[at + 1];
    const std::uint8_t sib = length >= 3 ? before[at + 2] : 0;
    if (((modrm >> 3) & 7) == 2 && IndirectCallLength(modrm, sib) == length) return true;
  }
  return false;
}

std::vector<std::pair<std::uint64_t, std::uint64_t>> ParsePerfMapRanges(std::string_view text) {
  Ranges ranges;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    const std::string line(text.substr(0, nl));
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    char* end = nullptr;
    const std::uint64_t start = std::strtoull(line.c_str(), &end, 16);
    if (end == line.c_str() || *end != ' ') continue;
    char* size_end = nullptr;
    const std::uint64_t size = std::strtoull(end + 1, &size_end, 16);
    if (size_end == end + 1 || size == 0) continue;
    ranges.emplace_back(start, start + size);
  }
  std::sort(ranges.begin(), ranges.end());
  return ranges;
}

StatusOr<ScannedStacks> ScanJitStacks(const std::string& perf_data_path,
                                      std::string_view perf_map_dir,
                                      const std::function<bool()>& stop) {
  // A regular file only (O_NONBLOCK: a FIFO is refused, not waited on).
  const int fd = open(perf_data_path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat st {};
  const bool regular = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (fd >= 0) close(fd);
  if (fd < 0) return InputError(fmt::format("cannot read {}", perf_data_path));
  if (!regular)
    return InputError(fmt::format("cannot read {}: not a regular file", perf_data_path));
  std::ifstream in(perf_data_path, std::ios::binary);
  if (!in) return InputError(fmt::format("cannot read {}", perf_data_path));
  ReturnAddressScanner scanner(stop);
  std::map<std::uint32_t, Ranges> jit;  // by pid, read when its first sample comes
  ScannedStacks result;
  const auto on_sample = [&](const PerfDataSample& s) {
    auto [ranges, fresh] = jit.try_emplace(s.pid);
    if (fresh) {
      std::string why;
      ranges->second = ReadPerfMapRanges(PerfMapPath(static_cast<int>(s.pid), perf_map_dir), why);
      if (!why.empty()) result.bounds_reached.insert(why);
    }
    // In JIT code, or in the kernel entered from it (a page fault on the kernel's first touch of
    // fresh memory).
    if (!InRanges(ranges->second, s.has_user_regs ? s.user_ip : s.ip)) return;
    ++result.jit_samples;
    if (!s.has_user_regs || s.stack.size() < 8) return;
    ++result.jit_with_stack;
    std::vector<Frame> callers = scanner.Scan(s.pid, s.stack);
    if (!callers.empty()) result.Add({s.tid, s.time_ns}, callers);
  };
  const PerfDataVisitor visitor{.on_sample = on_sample,
                                .on_mmap = [&](const PerfDataMmap& m) { scanner.AddMapping(m); },
                                .on_fork = [&](const PerfDataFork& f) { scanner.Fork(f); },
                                .stop = stop};
  StatusOr<PerfDataCounts> read = ReadPerfData(in, visitor);
  if (!read.ok()) return read.status();
  result.stopped = read->stopped;
  result.files_unreadable = scanner.files_unreadable();
  result.bounds_reached.insert(scanner.bounds_reached().begin(), scanner.bounds_reached().end());
  return result;
}

}  // namespace dlcheck::profile
