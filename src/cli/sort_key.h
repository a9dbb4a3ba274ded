// SPDX-License-Identifier: Apache-2.0
#pragma once
// The --sort keys of the commands that print a primitives table (parse, verbose, run), by name:
// the one list the option, its help and the report's `sort` read.

#include <array>
#include <string_view>
#include <utility>

namespace dlcheck::cli {

enum class SortKey { kTime, kExecs, kCreates, kName };

/// The --sort keys by name, the one list: the option, its help and the report's `sort` read it.
inline constexpr std::array<std::pair<std::string_view, SortKey>, 4> kSortKeys = {{
    {"time", SortKey::kTime},
    {"execs", SortKey::kExecs},
    {"creates", SortKey::kCreates},
    {"name", SortKey::kName},
}};

/// The name of `key` in kSortKeys.
std::string_view SortName(SortKey key);

}  // namespace dlcheck::cli
