#pragma once
// A fast non-cryptographic hash for the parser's lookup tables (8 bytes per step, FxHash-style
// mixing). Keys are verbose-line texts of ~100-300 bytes, hashed once per line.

#include <cstdint>
#include <cstring>
#include <string_view>

namespace dlcheck::verbose {

inline std::size_t FastHash(std::string_view s) {
  constexpr std::uint64_t kMul = 0x517cc1b727220a95ULL;
  std::uint64_t h = s.size() * kMul;
  const char* p = s.data();
  std::size_t n = s.size();
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = ((h << 5) | (h >> 59)) ^ w;
    h *= kMul;
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = ((h << 5) | (h >> 59)) ^ w;
    h *= kMul;
  }
  return static_cast<std::size_t>(h ^ (h >> 32));
}

}  // namespace dlcheck::verbose
