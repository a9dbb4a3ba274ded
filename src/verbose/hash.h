// SPDX-License-Identifier: Apache-2.0
#pragma once
// A fast non-cryptographic hash for the parser's lookup tables (four 8-byte lanes per step,
// multiply-rotate mixing). Keys are verbose-line texts of ~100-300 bytes, hashed once per line.

#include <cstdint>
#include <cstring>
#include <string_view>

namespace dlcheck::verbose {

inline std::uint64_t HashMix(std::uint64_t h, std::uint64_t w) {
  h ^= w;
  h *= 0x517cc1b727220a95ULL;
  return (h << 31) | (h >> 33);
}

/// Four independent lanes over 32-byte blocks (no long multiply chain), then the tail.
inline std::size_t FullHash(std::string_view s) {
  const char* p = s.data();
  std::size_t n = s.size();
  std::uint64_t a = 0x9e3779b97f4a7c15ULL ^ n, b = 0xc2b2ae3d27d4eb4fULL, c = 0x165667b19e3779f9ULL,
                d = 0x27d4eb2f165667c5ULL;
  while (n >= 32) {
    std::uint64_t w[4];
    std::memcpy(w, p, 32);
    a = HashMix(a, w[0]);
    b = HashMix(b, w[1]);
    c = HashMix(c, w[2]);
    d = HashMix(d, w[3]);
    p += 32;
    n -= 32;
  }
  std::uint64_t h = a ^ ((b << 17) | (b >> 47)) ^ ((c << 29) | (c >> 35)) ^ ((d << 43) | (d >> 21));
  while (n >= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = HashMix(h, w);
    p += 8;
    n -= 8;
  }
  if (n > 0) {
    // The last 8 bytes of the key (overlapping what was hashed) when it has that many: one load
    // instead of a variable-length copy.
    std::uint64_t w = 0;
    if (s.size() >= 8) {
      std::memcpy(&w, s.data() + s.size() - 8, 8);
    } else {
      std::memcpy(&w, p, n);
    }
    h = HashMix(h, w ^ (std::uint64_t{n} << 56));
  }
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  return static_cast<std::size_t>(h ^ (h >> 32));
}

/// Keys longer than 128 bytes are hashed by their length, their first 32 and last 96 bytes
/// (4 blocks): verbose lines differ in their heads (operation, kind, implementation) and tails
/// (descriptors, problem). A collision only costs a longer probe, never a wrong match: the tables
/// compare whole keys.
inline std::size_t FastHash(std::string_view s) {
  if (s.size() <= 128) return FullHash(s);
  char sample[128];
  std::memcpy(sample, s.data(), 32);
  std::memcpy(sample + 32, s.data() + s.size() - 96, 96);
  return FullHash(std::string_view(sample, 128)) ^ (s.size() * 0x9e3779b97f4a7c15ULL);
}

}  // namespace dlcheck::verbose
