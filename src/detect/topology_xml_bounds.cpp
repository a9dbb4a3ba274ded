// SPDX-License-Identifier: Apache-2.0
#include "detect/topology_xml_bounds.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

namespace dlcheck::detect {
namespace {

// The attributes whose values hwloc turns into a bitmap (a cpuset or a nodeset).
bool IsBitmapAttribute(std::string_view name) {
  return name == "cpuset" || name == "complete_cpuset" || name == "allowed_cpuset" ||
         name == "online_cpuset" || name == "nodeset" || name == "complete_nodeset" ||
         name == "allowed_nodeset";
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// The decimal value of `text`, saturated above kMaxTopologyIndex (no overflow whatever its
// length); hwloc reads these with strtoul, so leading blanks and a sign are read as it would.
unsigned long DecimalValue(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t' || text.front() == '+')) {
    text.remove_prefix(1);
  }
  unsigned long value = 0;
  for (char c : text) {
    if (!IsDigit(c)) break;
    value = std::min(value * 10 + static_cast<unsigned long>(c - '0'), kMaxTopologyIndex + 1);
  }
  return value;
}

// The first index past the bits a bitmap string can name: hwloc's `0xffffffff,0x00000001`
// holds 32 bits per comma-separated word (a leading `0xf...f,` repeats the rest: no more).
unsigned long BitmapBits(std::string_view text) {
  const auto words = static_cast<unsigned long>(std::count(text.begin(), text.end(), ',')) + 1;
  return std::min(words, kMaxTopologyIndex) * 32;
}

std::size_t LineOf(std::string_view xml, std::size_t at) {
  return static_cast<std::size_t>(std::count(xml.begin(), xml.begin() + at, '\n')) + 1;
}

class Scanner {
 public:
  Scanner(std::string_view xml, const std::string& path) : xml_(xml), path_(path) {}

  Status Run() {
    std::size_t at = 0;
    int depth = 0;
    std::size_t objects = 0;
    while ((at = xml_.find('<', at)) != std::string_view::npos) {
      const std::string_view rest = xml_.substr(at);
      if (rest.starts_with("<!--")) {
        at = Skip(at, "-->");
      } else if (rest.starts_with("<![CDATA[")) {
        at = Skip(at, "]]>");
      } else if (rest.starts_with("<?")) {
        at = Skip(at, "?>");
      } else if (rest.starts_with("<!")) {
        at = Skip(at, ">");  // <!DOCTYPE ...>: hwloc's files hold no internal subset
      } else if (rest.starts_with("</")) {
        depth = std::max(0, depth - 1);
        at = Skip(at, ">");
      } else {
        const std::size_t start = at;
        std::size_t name_end = at + 1;
        while (name_end < xml_.size() && !IsBlank(xml_[name_end]) && xml_[name_end] != '>' &&
               xml_[name_end] != '/') {
          ++name_end;
        }
        const std::string_view name = xml_.substr(at + 1, name_end - at - 1);
        bool empty_element = false;
        sets_ = 0;
        if (Status s = Attributes(name, name_end, at, empty_element); !s.ok()) return s;
        if (name == "object" && ++objects > kMaxTopologyObjects) {
          return Error(start, fmt::format("holds more than {} objects", kMaxTopologyObjects));
        }
        if (name == "object" && objects == 1) {
          if (Status s = CheckRootSets(start); !s.ok()) return s;
        }
        if (!empty_element && ++depth > kMaxTopologyXmlDepth) {
          return Error(start,
                       fmt::format("nests elements deeper than {} levels", kMaxTopologyXmlDepth));
        }
      }
      if (at == std::string_view::npos) break;
    }
    return Status();
  }

 private:
  static bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

  // The sets an object names, as bits: hwloc 2.9's import dereferences the root's sets
  // unchecked (a root without its complete_cpuset: SIGSEGV in hwloc_bitmap_set, issue 51).
  enum SetBit : unsigned { kCpuset = 1, kCompleteCpuset = 2, kNodeset = 4, kCompleteNodeset = 8 };
  static unsigned SetBitOf(std::string_view name) {
    if (name == "cpuset") return kCpuset;
    if (name == "complete_cpuset") return kCompleteCpuset;
    if (name == "nodeset") return kNodeset;
    if (name == "complete_nodeset") return kCompleteNodeset;
    return 0;
  }

  // The root object has the four sets (hwloc always writes them; without one its import
  // crashes instead of failing).
  Status CheckRootSets(std::size_t at) const {
    for (const auto& [set, complete, set_name, complete_name] :
         {std::tuple{kCpuset, kCompleteCpuset, "cpuset", "complete_cpuset"},
          std::tuple{kNodeset, kCompleteNodeset, "nodeset", "complete_nodeset"}}) {
      if ((sets_ & set) == 0 || (sets_ & complete) == 0) {
        return Unreadable(at, fmt::format("has a root object without both a {} and a {}", set_name,
                                          complete_name));
      }
    }
    return Status();
  }

  // Past the next `end` after `at`, or npos (a file cut short: hwloc says so).
  std::size_t Skip(std::size_t at, std::string_view end) const {
    const std::size_t found = xml_.find(end, at + 1);
    return found == std::string_view::npos ? found : found + end.size();
  }

  // Reads the attributes of the tag from `at` to its `>`, checking the ones hwloc sizes memory
  // by; `at` ends past the tag.
  Status Attributes(std::string_view element, std::size_t from, std::size_t& at,
                    bool& empty_element) {
    std::size_t i = from;
    while (i < xml_.size() && xml_[i] != '>') {
      if (xml_[i] == '/') {
        empty_element = true;
        ++i;
        continue;
      }
      if (IsBlank(xml_[i])) {
        ++i;
        continue;
      }
      const std::size_t name_start = i;
      while (i < xml_.size() && xml_[i] != '=' && !IsBlank(xml_[i]) && xml_[i] != '>') ++i;
      const std::string_view name = xml_.substr(name_start, i - name_start);
      while (i < xml_.size() && (IsBlank(xml_[i]) || xml_[i] == '=')) ++i;
      if (i >= xml_.size() || (xml_[i] != '"' && xml_[i] != '\'')) continue;
      const char quote = xml_[i];
      const std::size_t close = xml_.find(quote, i + 1);
      if (close == std::string_view::npos) break;
      const std::string_view value = xml_.substr(i + 1, close - i - 1);
      if (Status s = Value(element, name, value, name_start); !s.ok()) return s;
      if (element == "object") sets_ |= SetBitOf(name);
      empty_element = false;
      i = close + 1;
    }
    at = i >= xml_.size() ? std::string_view::npos : i + 1;
    return Status();
  }

  Status Value(std::string_view element, std::string_view name, std::string_view value,
               std::size_t at) const {
    if (name == "os_index" && DecimalValue(value) > kMaxTopologyIndex) {
      return Error(at, fmt::format("has an os_index above {}", kMaxTopologyIndex));
    }
    if (IsBitmapAttribute(name) && BitmapBits(value) > kMaxTopologyIndex + 1) {
      return Error(at, fmt::format("has a {} with indexes above {}", name, kMaxTopologyIndex));
    }
    if (element.starts_with("distances") && name == "nbobjs" &&
        DecimalValue(value) > kMaxTopologyDistances) {
      return Error(
          at, fmt::format("has a distances matrix of more than {} objects", kMaxTopologyDistances));
    }
    return Status();
  }

  Status Error(std::size_t at, std::string what) const {
    return InputError(
        fmt::format("topology file '{}' {} (line {}), more than dlcheck reads; "
                    "give an hwloc XML file of a real machine (lstopo --of xml)",
                    path_, what, LineOf(xml_, at)));
  }

  // A file hwloc would crash on rather than refuse.
  Status Unreadable(std::size_t at, std::string what) const {
    return InputError(
        fmt::format("topology file '{}' {} (line {}): hwloc cannot load that; "
                    "give an hwloc XML file of a real machine (lstopo --of xml)",
                    path_, what, LineOf(xml_, at)));
  }

  std::string_view xml_;
  const std::string& path_;
  unsigned sets_ = 0;  ///< SetBit of the element being read
};

}  // namespace

Status CheckTopologyXmlBounds(std::string_view xml, const std::string& path) {
  return Scanner(xml, path).Run();
}

}  // namespace dlcheck::detect
