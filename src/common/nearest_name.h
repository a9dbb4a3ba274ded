// SPDX-License-Identifier: Apache-2.0
#pragma once
// The "did you mean" of every usage error: the known name nearest to a mistyped one.
//
//   NearestName("verison", {"version", "help"})  ->  "version"
//   DidYouMean("avx512bww", features)           ->  "; did you mean 'avx512bw'?"

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck {

/// Levenshtein distance: single-character insertions, deletions and substitutions.
inline std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j < row.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] != b[j - 1] ? 1 : 0)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

/// The candidate nearest to `word` by edit distance, when it is close enough to be a typo
/// (at most a third of the word's length, and at least 2, edits); empty otherwise.
template <typename Names>
std::string NearestName(std::string_view word, const Names& candidates) {
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (const auto& candidate : candidates) {
    const std::size_t distance = EditDistance(word, candidate);
    if (distance < best_distance) {
      best = std::string(candidate);
      best_distance = distance;
    }
  }
  return best;
}

/// "; did you mean 'NAME'?" for the nearest candidate, or "" when none is near.
template <typename Names>
std::string DidYouMean(std::string_view word, const Names& candidates) {
  const std::string nearest = NearestName(word, candidates);
  return nearest.empty() ? std::string() : "; did you mean '" + nearest + "'?";
}

}  // namespace dlcheck
