// SPDX-License-Identifier: Apache-2.0
#pragma once
// Text kept once per process: an 8-byte handle to an immutable std::string in a process-wide
// pool.
// The rows of a log hold a dozen texts each (engine, kind, implementation, descriptors, ...),
// and most of them repeat across rows: a log of 100,000 distinct shapes differs in the problem
// field alone. Interning stores each distinct text once, so a row costs its counters and a
// handle per text instead of a dozen heap strings.
//
//   InternedText kind("convolution");     // found or added under a lock (only when a row is made)
//   kind == "convolution";                // compares text; reading needs no lock
//   kind == other_kind;                   // one pointer compare: equal texts share one entry
//   std::string_view v = kind;            // valid until the process ends
//
// Texts are never freed: the pool grows with the distinct texts a process meets (bounded, since
// rows are: kMaxRows in aggregate.h), not with the lines it reads.

#include <compare>
#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

namespace dlcheck::verbose {

class InternedText {
 public:
  InternedText() = default;  ///< the empty text
  explicit InternedText(std::string_view text);
  /// As above, and adds to `stored_bytes` what the pool took for the text (0 when it held it
  /// already): a caller bounds the memory its own texts take with it.
  InternedText(std::string_view text, std::size_t& stored_bytes);
  InternedText& operator=(std::string_view text) { return *this = InternedText(text); }

  const std::string& str() const { return entry_ == nullptr ? Empty() : *entry_; }
  std::string_view view() const { return str(); }
  // Reads as the text it holds, where a string or a view of one is wanted.
  operator const std::string&() const { return str(); }  // NOLINT
  operator std::string_view() const { return str(); }    // NOLINT
  bool empty() const { return entry_ == nullptr; }
  std::size_t size() const { return str().size(); }
  std::size_t find(std::string_view needle, std::size_t from = 0) const {
    return view().find(needle, from);
  }
  bool starts_with(std::string_view prefix) const { return view().starts_with(prefix); }

  friend bool operator==(InternedText a, InternedText b) { return a.entry_ == b.entry_; }
  friend bool operator==(InternedText a, std::string_view b) { return a.view() == b; }
  friend std::strong_ordering operator<=>(InternedText a, InternedText b) {
    return a.view() <=> b.view();
  }
  friend std::strong_ordering operator<=>(InternedText a, std::string_view b) {
    return a.view() <=> b;
  }
  friend std::string operator+(const std::string& a, InternedText b) {
    return a + std::string(b.view());
  }
  friend std::string operator+(InternedText a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const char* a, InternedText b) { return a + b.str(); }
  friend std::string operator+(InternedText a, const char* b) { return a.str() + b; }
  friend std::ostream& operator<<(std::ostream& out, InternedText text) {
    return out << text.str();
  }

  /// Distinct texts held and the bytes the pool has taken, for tests and benchmarks.
  static std::size_t PoolTexts();
  static std::size_t PoolBytes();

 private:
  static const std::string& Empty();
  const std::string* entry_ = nullptr;  // in the pool; nullptr for the empty text
};

}  // namespace dlcheck::verbose

/// Equal texts are one entry: hashing the handle is hashing the text, in O(1).
template <>
struct std::hash<dlcheck::verbose::InternedText> {
  std::size_t operator()(dlcheck::verbose::InternedText text) const noexcept {
    return std::hash<const void*>()(&text.str());
  }
};
