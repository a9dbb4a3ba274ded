// SPDX-License-Identifier: Apache-2.0
#pragma once
// What really executes: the instruction class of the code each on-CPU sample ran in, for code in
// ELF files on disk (JIT code is not decoded yet). The rule: a sample's leaf function (the symbol
// perf resolved, looked up by name in the file's .symtab or .dynsym, its whole address range
// decoded with Zydis) is classed by the widest vector work among its instructions:
//
//   scalar < sse < avx < avx_vnni < avx512 < avx512_vnni < avx512_bf16_fp16 < amx
//
// by each instruction's ISA set as Zydis names it: AMX_* is amx; AVX512_BF16_* and
// AVX512_FP16_* avx512_bf16_fp16; AVX512_VNNI_* and AVX512_4VNNIW avx512_vnni; AVX_VNNI
// avx_vnni; any other AVX512* (zmm, EVEX-encoded xmm/ymm, the mask register instructions) and
// EVEX or MVEX encoding avx512; AVX, AVX2, FMA, F16C, VAES, VPCLMULQDQ and XOP avx; SSE* (but
// prefetches and MXCSR loads), SSSE3, AES, PCLMULQDQ, SHA, GFNI sse (x86-64's scalar floating
// point is SSE code: addsd is sse); everything else scalar. A function is decoded once, however
// many samples fell in it. What cannot be decoded is `unknown`, with the reason: no symbol (a
// stripped file), a symbol of no size or over kMaxFunctionBytes, a file that is gone, not ELF,
// or changed after the recording.
//
//   CodeClassifier classifier(recorded_at_s);
//   LeafCode code = classifier.ClassOf("/usr/lib/x86_64-linux-gnu/libm.so.6", "sin");

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace dlcheck::profile {

/// The widest vector work in a piece of code, narrowest first.
enum class CodeClass : std::uint8_t {
  kScalar,
  kSse,
  kAvx,
  kAvxVnni,
  kAvx512,
  kAvx512Vnni,
  kAvx512Bf16Fp16,
  kAmx,
  kUnknown,  ///< not decoded
};
inline constexpr std::size_t kCodeClassCount = 9;
inline constexpr std::array<CodeClass, kCodeClassCount> kCodeClasses = {
    CodeClass::kScalar,         CodeClass::kSse,    CodeClass::kAvx,
    CodeClass::kAvxVnni,        CodeClass::kAvx512, CodeClass::kAvx512Vnni,
    CodeClass::kAvx512Bf16Fp16, CodeClass::kAmx,    CodeClass::kUnknown};

/// "scalar", "sse", "avx", "avx_vnni", "avx512", "avx512_vnni", "avx512_bf16_fp16", "amx",
/// "unknown".
std::string_view CodeClassName(CodeClass cls);
/// For people: "scalar", "SSE", "AVX/AVX2", "AVX-VNNI", "AVX-512", "AVX-512 VNNI",
/// "AVX-512 BF16/FP16", "AMX", "unknown".
std::string_view CodeClassTitle(CodeClass cls);
/// Whether the class is one of the AVX-512 ones (avx512, avx512_vnni, avx512_bf16_fp16).
bool IsAvx512(CodeClass cls);

/// The largest function decoded; a larger one is `unknown` (no function is; a symbol that
/// claims it is names something else).
inline constexpr std::uint64_t kMaxFunctionBytes = std::uint64_t{4} << 20;
/// The most ELF files a classifier keeps open; the code of others is `unknown`.
inline constexpr std::size_t kMaxClassifiedFiles = 512;

/// What decoding a piece of code found.
struct DecodedCode {
  CodeClass cls = CodeClass::kScalar;
  std::uint64_t instructions = 0;
  std::uint64_t undecoded_bytes = 0;  ///< bytes no instruction starts at (data, padding)
};

/// Decodes `code` (x86-64) instruction by instruction, from its first byte; a byte that starts
/// no instruction is passed over. Empty code is scalar with no instruction.
DecodedCode DecodeCode(std::span<const std::uint8_t> code);

/// The class of a sample's leaf function, or unknown and why.
struct LeafCode {
  CodeClass cls = CodeClass::kUnknown;
  std::string why_unknown;  ///< empty unless cls is kUnknown
};

/// Classes the functions samples ran in, each (file, symbol) decoded once.
class CodeClassifier {
 public:
  /// `recorded_s`: when the recording was written (seconds since the epoch); a file modified
  /// after it is `unknown` (its bytes may not be those that ran). nullopt: not checked.
  explicit CodeClassifier(std::optional<std::int64_t> recorded_s = std::nullopt);
  ~CodeClassifier();
  CodeClassifier(const CodeClassifier&) = delete;
  CodeClassifier& operator=(const CodeClassifier&) = delete;

  /// The class of `symbol` (as perf prints it) in the ELF file `dso`.
  const LeafCode& ClassOf(const std::string& dso, const std::string& symbol);
  /// Functions decoded (not counting those found in the cache).
  std::uint64_t decoded() const { return decoded_; }

 private:
  struct State;
  LeafCode Classify(const std::string& dso, const std::string& symbol);

  std::optional<std::int64_t> recorded_s_;
  std::unique_ptr<State> state_;
  std::map<std::pair<std::string, std::string>, LeafCode> cache_;
  std::uint64_t decoded_ = 0;
};

}  // namespace dlcheck::profile
