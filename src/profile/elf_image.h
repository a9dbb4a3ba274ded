// SPDX-License-Identifier: Apache-2.0
#pragma once
// One ELF file on disk, mapped for reading with libelf: its bytes, its loadable segments and its
// function symbols (.symtab and .dynsym, and those of its detached debug file under
// /usr/lib/debug/.build-id when one is installed). Stack scanning names return addresses with
// it (stack_scan.h); the instruction mix decodes the functions samples ran in (instruction_mix.h).
//
//   std::unique_ptr<ElfImage> image = ElfImage::Open("/usr/lib/x86_64-linux-gnu/libm.so.6");
//   std::optional<CodeRange> f = image->FunctionNamed("sin", budget);
//   std::span<const std::uint8_t> code = image->Code(*f);

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct Elf;      // libelf's
struct Elf_Scn;  // libelf's

namespace dlcheck::profile {

class DemanglerBudget;

/// The longest ELF symbol read; a longer one is no function's name.
inline constexpr std::size_t kMaxSymbolBytes = 4096;

/// A function's code: its address in the file's address space (st_value) and its size.
struct CodeRange {
  std::uint64_t address = 0;
  std::uint64_t size = 0;
};

/// A demangled name without its parameter list, as perf prints C++ names
/// ("ns::Class::Run(int) const" -> "ns::Class::Run"; "(anonymous namespace)" and operator()
/// kept).
std::string WithoutParameters(std::string_view demangled);
/// The plain identifiers among the "::" components of a name as perf prints it ("ns", "Class",
/// "Run" of "ns::Class<int>::Run"; not an operator, a lambda or "(anonymous namespace)").
std::vector<std::string_view> Identifiers(std::string_view name);

class ElfImage {
 public:
  /// The file at `path`, a regular one only (a FIFO or a device is never opened); nullptr when
  /// it is not one, cannot be read, or is no ELF file with loadable segments.
  static std::unique_ptr<ElfImage> Open(const std::string& path);
  ~ElfImage();
  ElfImage(const ElfImage&) = delete;
  ElfImage& operator=(const ElfImage&) = delete;

  /// Whether the bytes just before `file_offset` end in a call instruction (EndsInCall).
  bool CallEndsAt(std::uint64_t file_offset) const;
  /// The demangled name of the function containing the byte at `file_offset`; nullopt when no
  /// symbol covers it.
  std::optional<std::string> FunctionAt(std::uint64_t file_offset, DemanglerBudget& budget);
  /// The function whose name, as perf prints it (Demangle, with or without its parameters,
  /// with or without a symbol version "@@GLIBC_2.17"), is `perf_name`; nullopt when none is.
  /// Of C++ names only those that hold its identifiers are demangled (all of them, once, for
  /// a name with none: a global operator).
  std::optional<CodeRange> FunctionNamed(std::string_view perf_name, DemanglerBudget& budget);
  /// The file's bytes of `range`; empty when they do not lie whole in one loadable segment's
  /// file bytes.
  std::span<const std::uint8_t> Code(CodeRange range) const;
  /// The file's modification time when it was opened (seconds since the epoch).
  std::int64_t modified_s() const { return modified_s_; }

 private:
  struct Segment {
    std::uint64_t offset = 0;
    std::uint64_t vaddr = 0;
    std::uint64_t size = 0;
  };
  struct Symbol {
    std::uint64_t value = 0;
    std::uint64_t size = 0;
    const char* name = nullptr;
    int binding = 0;  ///< 2 global, 1 weak, 0 local
  };

  ElfImage() = default;
  static bool NameIsBetter(const Symbol& a, const Symbol& b);
  static int OpenRegular(const std::string& path);
  bool Load(const std::string& path);
  std::string BuildId() const;
  void LoadDebugSymbols();
  void LoadSegments();
  void LoadSymbols(Elf* elf);
  void AddSymbols(Elf* elf, Elf_Scn* scn, std::uint64_t entry_size, std::uint64_t size,
                  std::size_t link);
  std::optional<std::uint64_t> AddressOf(std::uint64_t file_offset) const;
  void IndexNames(DemanglerBudget& budget, bool demangle);
  std::optional<std::size_t> CppSymbolNamed(std::string_view perf_name, DemanglerBudget& budget);

  int fd_ = -1;
  const std::uint8_t* bytes_ = nullptr;
  std::size_t size_ = 0;
  std::int64_t modified_s_ = 0;
  Elf* elf_ = nullptr;
  int debug_fd_ = -1;
  Elf* debug_elf_ = nullptr;
  std::vector<Segment> segments_;
  std::vector<Symbol> symbols_;
  std::unordered_map<const char*, std::string> demangled_;
  // Perf's name of each symbol -> its index in symbols_: plain names; C++ names too (with and
  // without parameters) once an operator or a lambda was asked for (names_demangled_).
  std::unordered_map<std::string, std::size_t> by_name_;
  bool names_indexed_ = false;
  bool names_demangled_ = false;
};

}  // namespace dlcheck::profile
