// SPDX-License-Identifier: Apache-2.0
// profile's instruction_mix tables and verdict (profile_report.h), from Profile::leaf_code.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

#include "profile/classify.h"
#include "profile/profile_report.h"

namespace dlcheck::profile {
namespace {

using report::Value;
using namespace profile_field;

constexpr std::array<report::Field, 4 + kCodeClassCount> kMixColumns = {
    kLibrary,         kSamples,         kPct,
    kWidest,          kCodeClassPct[0], kCodeClassPct[1],
    kCodeClassPct[2], kCodeClassPct[3], kCodeClassPct[4],
    kCodeClassPct[5], kCodeClassPct[6], kCodeClassPct[7],
    kCodeClassPct[8]};
constexpr std::array kMixFunctionColumns = {kFunction, kLibrary, kInstructionClass,
                                            kSamples,  kPct,     kWhyUnknown};

double Pct(std::uint64_t part, std::uint64_t whole) {
  return whole > 0 ? 100.0 * static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

// A file's samples by class.
struct LibraryMix {
  std::string library;
  std::uint64_t samples = 0;
  std::array<std::uint64_t, kCodeClassCount> class_samples{};

  // The widest class its decoded samples ran; unknown when none was decoded.
  CodeClass Widest() const {
    CodeClass widest = CodeClass::kUnknown;
    for (CodeClass cls : kCodeClasses) {
      if (cls != CodeClass::kUnknown && class_samples[static_cast<std::size_t>(cls)] > 0) {
        widest = cls;
      }
    }
    return widest;
  }
};

CodeClass LeafClass(const Profile& p, const std::pair<std::string, std::string>& leaf) {
  const auto it = p.leaf_code.find(leaf);
  return it == p.leaf_code.end() ? CodeClass::kUnknown : it->second.cls;
}

std::vector<LibraryMix> LibraryMixes(const Profile& p) {
  std::map<std::string, LibraryMix> by_library;
  for (const auto& [leaf, samples] : p.file_leaf_samples) {
    LibraryMix& mix = by_library[leaf.first];
    mix.library = leaf.first;
    mix.samples += samples;
    mix.class_samples[static_cast<std::size_t>(LeafClass(p, leaf))] += samples;
  }
  std::vector<LibraryMix> mixes;
  for (auto& [library, mix] : by_library) mixes.push_back(std::move(mix));
  std::stable_sort(mixes.begin(), mixes.end(),
                   [](const LibraryMix& a, const LibraryMix& b) { return a.samples > b.samples; });
  return mixes;
}

}  // namespace

std::span<const report::Field> InstructionMixColumns() {
  return kMixColumns;
}

std::span<const report::Field> InstructionMixFunctionColumns() {
  return kMixFunctionColumns;
}

void AddInstructionMixTables(report::Report& report, const Profile& p, std::size_t top) {
  report::Table& libraries = report.AddTable(kInstructionMixTable, kMixColumns);
  for (const LibraryMix& mix : LibraryMixes(p)) {
    report::RowSetter row = libraries.AddRow();
    row.Set(kLibrary, mix.library)
        .Set(kSamples, mix.samples)
        .Set(kPct, Value(Pct(mix.samples, p.samples), 1))
        .Set(kWidest, std::string(CodeClassName(mix.Widest())));
    for (CodeClass cls : kCodeClasses) {
      const std::size_t i = static_cast<std::size_t>(cls);
      row.Set(kCodeClassPct[i], Value(Pct(mix.class_samples[i], mix.samples), 1));
    }
  }
  std::vector<std::pair<std::pair<std::string, std::string>, std::uint64_t>> functions(
      p.file_leaf_samples.begin(), p.file_leaf_samples.end());
  std::stable_sort(functions.begin(), functions.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (top > 0 && functions.size() > top) functions.resize(top);
  report::Table& t = report.AddTable(kInstructionMixFunctionsTable, kMixFunctionColumns);
  for (const auto& [leaf, samples] : functions) {
    const auto code = p.leaf_code.find(leaf);
    const bool known = code != p.leaf_code.end() && code->second.cls != CodeClass::kUnknown;
    t.AddRow()
        .Set(kFunction, leaf.second)
        .Set(kLibrary, leaf.first)
        .Set(kInstructionClass, std::string(CodeClassName(LeafClass(p, leaf))))
        .Set(kSamples, samples)
        .Set(kPct, Value(Pct(samples, p.samples), 1))
        .Set(kWhyUnknown, known ? Value()
                                : Value(code == p.leaf_code.end() ? std::string("not classified")
                                                                  : code->second.why_unknown));
  }
}

std::string InstructionMixVerdict(const Profile& p) {
  if (p.samples == 0) return {};
  std::uint64_t avx512 = 0;
  std::uint64_t amx = 0;
  std::uint64_t decoded = 0;
  for (const auto& [leaf, samples] : p.file_leaf_samples) {
    const CodeClass cls = LeafClass(p, leaf);
    if (IsAvx512(cls)) avx512 += samples;
    if (cls == CodeClass::kAmx) amx += samples;
    if (cls != CodeClass::kUnknown) decoded += samples;
  }
  std::string verdict = fmt::format("{:.0f} % of CPU time in AVX-512 code, {:.0f} % in AMX",
                                    Pct(avx512, p.samples), Pct(amx, p.samples));
  if (decoded < p.samples) {
    verdict += fmt::format(", {:.0f} % not decoded (JIT code, the OS kernel, unknown code)",
                           Pct(p.samples - decoded, p.samples));
  }
  std::vector<std::string> libraries;
  for (const LibraryMix& mix : LibraryMixes(p)) {
    if (libraries.size() == 3) break;
    const CodeClass widest = mix.Widest();
    if (widest == CodeClass::kUnknown) continue;
    libraries.push_back(
        fmt::format("{} ran {} at most", BaseName(mix.library), CodeClassTitle(widest)));
  }
  if (!libraries.empty()) verdict += "; " + fmt::format("{}", fmt::join(libraries, ", "));
  return verdict;
}

}  // namespace dlcheck::profile
