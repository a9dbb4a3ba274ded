// SPDX-License-Identifier: Apache-2.0
#include "profile/elf_image.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <gelf.h>
#include <libelf.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "profile/stack_scan.h"

namespace dlcheck::profile {
namespace {

// The longest call instruction: FF /2 with a SIB byte and a 32-bit displacement.
constexpr std::size_t kLongestCall = 7;

}  // namespace

std::string WithoutParameters(std::string_view demangled) {
  int angles = 0;
  for (std::size_t i = 0; i < demangled.size(); ++i) {
    const char c = demangled[i];
    if (c == '<') ++angles;
    if (c == '>' && angles > 0) --angles;
    if (c != '(' || angles > 0) continue;
    if (demangled.substr(i).starts_with("(anonymous namespace)")) continue;
    if (demangled.substr(0, i).ends_with("operator") && demangled.substr(i).starts_with("()")) {
      ++i;  // operator(): its parameters follow
      continue;
    }
    return std::string(demangled.substr(0, i));
  }
  return std::string(demangled);
}

std::vector<std::string_view> Identifiers(std::string_view name) {
  // The components between top-level "::" (not those inside <...> or (...)).
  std::vector<std::string_view> components;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    if (c == '<' || c == '(' || c == '{') ++depth;
    if ((c == '>' || c == ')' || c == '}') && depth > 0) --depth;
    if (depth == 0 && c == ':' && i + 1 < name.size() && name[i + 1] == ':') {
      components.push_back(name.substr(start, i - start));
      start = i + 2;
      ++i;
    }
  }
  components.push_back(name.substr(start));
  std::vector<std::string_view> identifiers;
  for (std::string_view component : components) {
    component = component.substr(0, std::min(component.find('<'), component.find('(')));
    const bool identifier =
        !component.empty() && !std::isdigit(static_cast<unsigned char>(component.front())) &&
        !component.starts_with("operator") &&
        std::all_of(component.begin(), component.end(),
                    [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
    if (identifier) identifiers.push_back(component);
  }
  return identifiers;
}

std::unique_ptr<ElfImage> ElfImage::Open(const std::string& path) {
  elf_version(EV_CURRENT);
  auto image = std::unique_ptr<ElfImage>(new ElfImage());
  return image->Load(path) ? std::move(image) : nullptr;
}

ElfImage::~ElfImage() {
  if (debug_elf_ != nullptr) elf_end(debug_elf_);
  if (debug_fd_ >= 0) close(debug_fd_);
  if (elf_ != nullptr) elf_end(elf_);
  if (bytes_ != nullptr) munmap(const_cast<std::uint8_t*>(bytes_), size_);
  if (fd_ >= 0) close(fd_);
}

bool ElfImage::CallEndsAt(std::uint64_t file_offset) const {
  if (file_offset < kLongestCall || file_offset > size_) return false;
  return EndsInCall({bytes_ + file_offset - kLongestCall, kLongestCall});
}

std::optional<std::string> ElfImage::FunctionAt(std::uint64_t file_offset,
                                                DemanglerBudget& budget) {
  const std::optional<std::uint64_t> vaddr = AddressOf(file_offset);
  if (!vaddr) return std::nullopt;
  auto it = std::upper_bound(symbols_.begin(), symbols_.end(), *vaddr,
                             [](std::uint64_t a, const Symbol& s) { return a < s.value; });
  if (it == symbols_.begin()) return std::nullopt;
  --it;
  if (*vaddr >= it->value + std::max<std::uint64_t>(it->size, 1)) return std::nullopt;
  auto [cached, fresh] = demangled_.try_emplace(it->name);
  if (fresh) cached->second = Demangle(it->name, budget);
  return cached->second;
}

void ElfImage::IndexNames(DemanglerBudget& budget, bool demangle) {
  for (std::size_t i = 0; i < symbols_.size(); ++i) {
    const std::string_view name = symbols_[i].name;
    if (name.starts_with("_Z") != demangle) continue;
    // Of several symbols under one name (a local "init" in two files, overloads without their
    // parameters), the first is kept: the caller cannot tell them apart by name either.
    if (!demangle) {
      by_name_.try_emplace(std::string(name), i);
      continue;
    }
    std::string demangled = Demangle(name, budget);
    by_name_.try_emplace(WithoutParameters(demangled), i);
    by_name_.try_emplace(std::move(demangled), i);
  }
}

std::optional<std::size_t> ElfImage::CppSymbolNamed(std::string_view perf_name,
                                                    DemanglerBudget& budget) {
  const std::vector<std::string_view> identifiers = Identifiers(perf_name);
  if (identifiers.empty()) {  // a global operator: every C++ name demangled, once
    if (!names_demangled_) IndexNames(budget, true);
    names_demangled_ = true;
    const auto it = by_name_.find(std::string(perf_name));
    return it == by_name_.end() ? std::nullopt : std::optional(it->second);
  }
  // Only the symbols whose mangled name holds every identifier as the mangling writes it
  // ("19InnerProductForward") are demangled.
  std::vector<std::string> needles;
  for (std::string_view identifier : identifiers) {
    needles.push_back(fmt::format("{}{}", identifier.size(), identifier));
  }
  const auto holds_all = [&](std::string_view name) {
    return std::all_of(needles.begin(), needles.end(), [&](const std::string& needle) {
      return name.find(needle) != std::string_view::npos;
    });
  };
  for (std::size_t i = 0; i < symbols_.size(); ++i) {
    const std::string_view name = symbols_[i].name;
    if (!name.starts_with("_Z") || !holds_all(name)) continue;
    auto [cached, fresh] = demangled_.try_emplace(symbols_[i].name);
    if (fresh) cached->second = Demangle(name, budget);
    if (cached->second == perf_name || WithoutParameters(cached->second) == perf_name) return i;
  }
  return std::nullopt;
}

std::optional<CodeRange> ElfImage::FunctionNamed(std::string_view perf_name,
                                                 DemanglerBudget& budget) {
  if (!names_indexed_) {
    IndexNames(budget, false);
    names_indexed_ = true;
  }
  std::optional<std::size_t> found;
  if (const auto it = by_name_.find(std::string(perf_name)); it != by_name_.end()) {
    found = it->second;
  } else if (perf_name.find('@') != std::string_view::npos) {
    // A versioned name as perf prints it ("clock_gettime@@GLIBC_2.17"): the symbol without it.
    const std::string_view unversioned = perf_name.substr(0, perf_name.find('@'));
    if (!unversioned.empty()) return FunctionNamed(unversioned, budget);
  } else {
    found = CppSymbolNamed(perf_name, budget);
  }
  if (!found) return std::nullopt;
  const Symbol& s = symbols_[*found];
  return CodeRange{s.value, s.size};
}

std::span<const std::uint8_t> ElfImage::Code(CodeRange range) const {
  for (const Segment& s : segments_) {
    if (range.address < s.vaddr || range.address - s.vaddr > s.size ||
        range.size > s.size - (range.address - s.vaddr)) {
      continue;
    }
    const std::uint64_t offset = range.address - s.vaddr + s.offset;
    if (offset > size_ || range.size > size_ - offset) return {};
    return {bytes_ + offset, static_cast<std::size_t>(range.size)};
  }
  return {};
}

// Of two names of one address, the one perf shows: global over weak over local, then fewer
// leading underscores ("clone3", not "__clone3"), then the shorter.
bool ElfImage::NameIsBetter(const Symbol& a, const Symbol& b) {
  if (a.binding != b.binding) return a.binding > b.binding;
  const auto underscores = [](const char* name) { return std::strspn(name, "_"); };
  if (underscores(a.name) != underscores(b.name)) return underscores(a.name) < underscores(b.name);
  return std::strlen(a.name) < std::strlen(b.name);
}

// A regular file only: a FIFO or a device named by a recording is never opened for reading
// (O_NONBLOCK: opening a FIFO does not wait for its writer).
int ElfImage::OpenRegular(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  struct stat st {};
  if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0)) {
    close(fd);
    return -1;
  }
  return fd;
}

bool ElfImage::Load(const std::string& path) {
  fd_ = OpenRegular(path);
  struct stat st {};
  if (fd_ < 0 || fstat(fd_, &st) != 0) return false;
  size_ = static_cast<std::size_t>(st.st_size);
  modified_s_ = static_cast<std::int64_t>(st.st_mtime);
  void* map = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
  if (map == MAP_FAILED) return false;
  bytes_ = static_cast<const std::uint8_t*>(map);
  elf_ = elf_begin(fd_, ELF_C_READ_MMAP, nullptr);
  if (elf_ == nullptr || elf_kind(elf_) != ELF_K_ELF) return false;
  LoadSegments();
  LoadSymbols(elf_);
  LoadDebugSymbols();
  // By address, the preferred name of an address last: the one FunctionAt finds.
  std::sort(symbols_.begin(), symbols_.end(), [](const Symbol& a, const Symbol& b) {
    return a.value != b.value ? a.value < b.value : NameIsBetter(b, a);
  });
  return !segments_.empty();
}

// The GNU build id of the file, in hex; empty when it has none.
std::string ElfImage::BuildId() const {
  for (Elf_Scn* scn = elf_nextscn(elf_, nullptr); scn != nullptr; scn = elf_nextscn(elf_, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr || sh.sh_type != SHT_NOTE) continue;
    Elf_Data* data = elf_getdata(scn, nullptr);
    GElf_Nhdr note;
    std::size_t name_at = 0;
    std::size_t desc_at = 0;
    for (std::size_t at = 0;
         data != nullptr && (at = gelf_getnote(data, at, &note, &name_at, &desc_at)) != 0;) {
      if (note.n_type != NT_GNU_BUILD_ID || note.n_namesz != 4) continue;
      const auto* desc = static_cast<const std::uint8_t*>(data->d_buf) + desc_at;
      std::string hex;
      for (std::size_t i = 0; i < note.n_descsz; ++i) hex += fmt::format("{:02x}", desc[i]);
      return hex;
    }
  }
  return {};
}

// The full symbol table of a stripped file from its detached debug file, where one is
// installed (Debian's -dbg and -dbgsym packages: /usr/lib/debug/.build-id/ab/cdef....debug),
// as perf finds it.
void ElfImage::LoadDebugSymbols() {
  const std::string id = BuildId();
  if (id.size() < 3) return;
  const std::string path =
      fmt::format("/usr/lib/debug/.build-id/{}/{}.debug", id.substr(0, 2), id.substr(2));
  debug_fd_ = OpenRegular(path);
  if (debug_fd_ < 0) return;
  debug_elf_ = elf_begin(debug_fd_, ELF_C_READ_MMAP, nullptr);
  if (debug_elf_ != nullptr && elf_kind(debug_elf_) == ELF_K_ELF) LoadSymbols(debug_elf_);
}

void ElfImage::LoadSegments() {
  std::size_t count = 0;
  if (elf_getphdrnum(elf_, &count) != 0) return;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Phdr ph;
    if (gelf_getphdr(elf_, static_cast<int>(i), &ph) == nullptr) continue;
    if (ph.p_type == PT_LOAD) segments_.push_back({ph.p_offset, ph.p_vaddr, ph.p_filesz});
  }
}

void ElfImage::LoadSymbols(Elf* elf) {
  for (Elf_Scn* scn = elf_nextscn(elf, nullptr); scn != nullptr; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (gelf_getshdr(scn, &sh) == nullptr) continue;
    if (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM) {
      AddSymbols(elf, scn, sh.sh_entsize, sh.sh_size, sh.sh_link);
    }
  }
}

void ElfImage::AddSymbols(Elf* elf, Elf_Scn* scn, std::uint64_t entry_size, std::uint64_t size,
                          std::size_t link) {
  Elf_Data* data = elf_getdata(scn, nullptr);
  if (data == nullptr || entry_size == 0) return;
  const std::size_t count = size / entry_size;
  for (std::size_t i = 0; i < count; ++i) {
    GElf_Sym sym;
    if (gelf_getsym(data, static_cast<int>(i), &sym) == nullptr) continue;
    const int type = GELF_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
        sym.st_value == 0) {
      continue;
    }
    const char* name = elf_strptr(elf, link, sym.st_name);
    const int bind = GELF_ST_BIND(sym.st_info);
    const int binding = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
    if (name != nullptr && *name != '\0' && strnlen(name, kMaxSymbolBytes + 1) <= kMaxSymbolBytes) {
      symbols_.push_back({sym.st_value, sym.st_size, name, binding});
    }
  }
}

std::optional<std::uint64_t> ElfImage::AddressOf(std::uint64_t file_offset) const {
  for (const Segment& s : segments_) {
    if (file_offset >= s.offset && file_offset < s.offset + s.size) {
      return file_offset - s.offset + s.vaddr;
    }
  }
  return std::nullopt;
}

}  // namespace dlcheck::profile
