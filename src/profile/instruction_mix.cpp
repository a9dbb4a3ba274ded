// SPDX-License-Identifier: Apache-2.0
#include "profile/instruction_mix.h"

#include <Zydis/Zydis.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <vector>

#include "profile/elf_image.h"
#include "profile/stack_scan.h"

namespace dlcheck::profile {
namespace {

// What the children of the demangler may take of a profile's post-processing, all together.
constexpr double kDemanglerSeconds = 0.25;

bool StartsWithAny(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(),
                     [&](std::string_view p) { return name.starts_with(p); });
}

// The class of an ISA set, by the name Zydis gives it (the rule in instruction_mix.h).
CodeClass ClassOfIsaSet(std::string_view set) {
  if (set.starts_with("AMX_")) return CodeClass::kAmx;
  if (StartsWithAny(set, {"AVX512_BF16", "AVX512_FP16"})) return CodeClass::kAvx512Bf16Fp16;
  if (StartsWithAny(set, {"AVX512_VNNI", "AVX512_4VNNIW"})) return CodeClass::kAvx512Vnni;
  if (set == "AVX_VNNI") return CodeClass::kAvxVnni;
  if (StartsWithAny(set, {"AVX512", "KNC"})) return CodeClass::kAvx512;
  if (StartsWithAny(set, {"AVX", "FMA", "F16C", "VAES", "VPCLMULQDQ", "XOP"})) {
    return CodeClass::kAvx;
  }
  if (set == "SSE_PREFETCH" || set == "SSEMXCSR") return CodeClass::kScalar;
  if (StartsWithAny(set, {"SSE", "SSSE3", "AES", "PCLMULQDQ", "SHA", "GFNI"})) {
    return CodeClass::kSse;
  }
  return CodeClass::kScalar;
}

// ClassOfIsaSet for every ISA set Zydis knows, computed once.
const std::array<CodeClass, ZYDIS_ISA_SET_MAX_VALUE + 1>& IsaSetClasses() {
  static const auto kClasses = [] {
    std::array<CodeClass, ZYDIS_ISA_SET_MAX_VALUE + 1> classes{};
    for (int set = 0; set <= ZYDIS_ISA_SET_MAX_VALUE; ++set) {
      const char* name = ZydisISASetGetString(static_cast<ZydisISASet>(set));
      classes[static_cast<std::size_t>(set)] =
          name == nullptr ? CodeClass::kScalar : ClassOfIsaSet(name);
    }
    return classes;
  }();
  return kClasses;
}

CodeClass InstructionClass(const ZydisDecodedInstruction& in) {
  const auto set = static_cast<std::size_t>(in.meta.isa_set);
  CodeClass cls = set < IsaSetClasses().size() ? IsaSetClasses()[set] : CodeClass::kScalar;
  const bool evex = in.encoding == ZYDIS_INSTRUCTION_ENCODING_EVEX ||
                    in.encoding == ZYDIS_INSTRUCTION_ENCODING_MVEX;
  if (evex) cls = std::max(cls, CodeClass::kAvx512);
  return cls;
}

}  // namespace

namespace {

// Each class's name in every output and its title in prose, in CodeClass's order.
struct CodeClassWords {
  std::string_view name;
  std::string_view title;
};
constexpr std::array<CodeClassWords, kCodeClassCount> kCodeClassWords = {{
    {"scalar", "scalar"},
    {"sse", "SSE"},
    {"avx", "AVX/AVX2"},
    {"avx_vnni", "AVX-VNNI"},
    {"avx512", "AVX-512"},
    {"avx512_vnni", "AVX-512 VNNI"},
    {"avx512_bf16_fp16", "AVX-512 BF16/FP16"},
    {"amx", "AMX"},
    {"unknown", "unknown"},
}};

static_assert(static_cast<std::size_t>(CodeClass::kUnknown) == kCodeClassCount - 1,
              "one row of words per class, unknown last");

const CodeClassWords& WordsOf(CodeClass cls) {
  const auto at = static_cast<std::size_t>(cls);
  return kCodeClassWords[at < kCodeClassWords.size() ? at : kCodeClassWords.size() - 1];
}

}  // namespace

std::string_view CodeClassName(CodeClass cls) {
  return WordsOf(cls).name;
}

std::string_view CodeClassTitle(CodeClass cls) {
  return WordsOf(cls).title;
}

bool IsAvx512(CodeClass cls) {
  return cls == CodeClass::kAvx512 || cls == CodeClass::kAvx512Vnni ||
         cls == CodeClass::kAvx512Bf16Fp16;
}

DecodedCode DecodeCode(std::span<const std::uint8_t> code) {
  ZydisDecoder decoder;
  ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
  DecodedCode decoded;
  ZydisDecodedInstruction in;
  for (std::size_t at = 0; at < code.size();) {
    if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&decoder, nullptr, code.data() + at,
                                                    code.size() - at, &in))) {
      ++decoded.undecoded_bytes;
      ++at;
      continue;
    }
    ++decoded.instructions;
    decoded.cls = std::max(decoded.cls, InstructionClass(in));
    at += in.length;
  }
  return decoded;
}

struct CodeClassifier::State {
  std::map<std::string, std::unique_ptr<ElfImage>> images;
  // Names that could demangle explosively are demangled in children (DemanglerBudget), each a
  // fork: a lookup spends at most kDemanglerSeconds on them, past which they stay mangled.
  DemanglerBudget demangler{{}, kDemanglerSeconds};

  // The image of `path`, opened once; nullptr (and `why`) when it cannot be.
  ElfImage* ImageOf(const std::string& path, std::string& why) {
    auto found = images.find(path);
    if (found == images.end()) {
      if (images.size() >= kMaxClassifiedFiles) {
        why = fmt::format("more than {} files: the others not read", kMaxClassifiedFiles);
        return nullptr;
      }
      found = images.emplace(path, ElfImage::Open(path)).first;
    }
    if (found->second == nullptr) why = "the file is gone or is no ELF file with code";
    return found->second.get();
  }
};

CodeClassifier::CodeClassifier(std::optional<std::int64_t> recorded_s)
    : recorded_s_(recorded_s), state_(std::make_unique<State>()) {}

CodeClassifier::~CodeClassifier() = default;

const LeafCode& CodeClassifier::ClassOf(const std::string& dso, const std::string& symbol) {
  auto [it, fresh] = cache_.try_emplace({dso, symbol});
  if (fresh) it->second = Classify(dso, symbol);
  return it->second;
}

LeafCode CodeClassifier::Classify(const std::string& dso, const std::string& symbol) {
  if (!dso.starts_with('/')) return {.why_unknown = "not a file on disk"};
  if (symbol.empty() || symbol == "[unknown]") {
    return {.why_unknown = "no symbol (a stripped file)"};
  }
  std::string why;
  ElfImage* image = state_->ImageOf(dso, why);
  if (image == nullptr) return {.why_unknown = why};
  if (recorded_s_ && image->modified_s() > *recorded_s_) {
    return {.why_unknown = "the file changed after the recording"};
  }
  const std::optional<CodeRange> range = image->FunctionNamed(symbol, state_->demangler);
  if (!range) return {.why_unknown = "no symbol of that name in the file"};
  if (range->size == 0) return {.why_unknown = "the symbol has no size"};
  if (range->size > kMaxFunctionBytes) {
    return {.why_unknown = fmt::format("the function is over {} MiB", kMaxFunctionBytes >> 20)};
  }
  const std::span<const std::uint8_t> code = image->Code(*range);
  if (code.empty()) return {.why_unknown = "the function's bytes are not in the file"};
  ++decoded_;
  return {.cls = DecodeCode(code).cls};
}

}  // namespace dlcheck::profile
