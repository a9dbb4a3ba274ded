// SPDX-License-Identifier: Apache-2.0
#pragma once
// What dlcheck lets hwloc read of an XML topology, checked on the text before hwloc sees it.
// hwloc 2.9's XML import recurses once per nesting level (200,000 levels overflow the stack:
// SIGSEGV), keeps every object, sizes bitmaps by the highest index they name (an os_index of
// 2^32 allocates 512 MiB, twice) and allocates an nbobjs x nbobjs distances matrix. The largest
// machines hwloc describes stay far inside these bounds: Linux has at most 8192 CPUs and 1024
// NUMA nodes, a topology nests under 20 levels and holds tens of thousands of objects.
//
//   if (Status s = CheckTopologyXmlBounds(xml, path); !s.ok()) return s;  // before hwloc

#include <cstddef>
#include <string>
#include <string_view>

#include "common/status.h"

namespace dlcheck::detect {

inline constexpr int kMaxTopologyXmlDepth = 64;               ///< nested elements
inline constexpr std::size_t kMaxTopologyObjects = 1u << 17;  ///< <object> elements (131072)
inline constexpr unsigned long kMaxTopologyIndex = 65535;     ///< os_index, a bitmap's bits
inline constexpr unsigned long kMaxTopologyDistances = 1024;  ///< a distances matrix's nbobjs

/// Ok when `xml` stays within the bounds above and its root object has a cpuset, a
/// complete_cpuset, a nodeset and a complete_nodeset (hwloc 2.9 crashes on a root without one:
/// SIGSEGV); else an InputError naming the file, the rule and the line where it was broken. A cheap
/// scan of the text (tags and their attributes), not a validation: what it lets through, hwloc
/// still judges.
Status CheckTopologyXmlBounds(std::string_view xml, const std::string& path);

}  // namespace dlcheck::detect
