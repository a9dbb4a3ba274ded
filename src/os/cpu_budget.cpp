// SPDX-License-Identifier: Apache-2.0
#include "os/cpu_budget.h"

#include <fmt/format.h>
#include <sched.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "os/input_file.h"

namespace dlcheck::os {
namespace {

// The files of /proc and /sys are small; a cap keeps a strange one from being read whole.
constexpr std::size_t kMaxCgroupFileBytes = std::size_t{1} << 20;

std::string_view Trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t\r\n") - first + 1);
}

std::optional<long long> WholeNumber(std::string_view text) {
  text = Trim(text);
  long long value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> Cpus(long long quota_us, long long period_us) {
  if (quota_us <= 0 || period_us <= 0) return std::nullopt;
  return static_cast<double>(quota_us) / static_cast<double>(period_us);
}

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines = Split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  return lines;
}

// mountinfo writes a space, tab, newline and backslash in a path as \040, \011, \012, \134.
std::string Unescape(std::string_view field) {
  std::string out;
  for (std::size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size()) {
      const std::string_view digits = field.substr(i + 1, 3);
      if (std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '7'; })) {
        out +=
            static_cast<char>((digits[0] - '0') * 64 + (digits[1] - '0') * 8 + (digits[2] - '0'));
        i += 3;
        continue;
      }
    }
    out += field[i];
  }
  return out;
}

// One mount of a cgroup hierarchy: its root inside the hierarchy and where it is mounted.
struct CgroupMount {
  std::string root;
  std::string mount_point;
};

// The mount of the v2 hierarchy (`v2`) or of the v1 hierarchy with the cpu controller, from
// mountinfo's lines: "ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE SOURCE
// SUPER_OPTIONS".
std::optional<CgroupMount> FindMount(std::string_view mountinfo, bool v2) {
  for (std::string_view line : Lines(mountinfo)) {
    const std::size_t dash = line.find(" - ");
    if (dash == std::string_view::npos) continue;
    const std::vector<std::string_view> fields = Split(line.substr(0, dash), ' ');
    const std::vector<std::string_view> tail = Split(line.substr(dash + 3), ' ');
    if (fields.size() < 5 || tail.size() < 3) continue;
    if (v2 ? tail[0] != "cgroup2" : tail[0] != "cgroup") continue;
    if (!v2) {
      const std::vector<std::string_view> options = Split(tail[2], ',');
      if (std::find(options.begin(), options.end(), "cpu") == options.end()) continue;
    }
    return CgroupMount{Unescape(fields[3]), Unescape(fields[4])};
  }
  return std::nullopt;
}

// The cgroup path of the v2 line ("0::PATH") or of the v1 line whose controllers include cpu.
std::optional<std::string> FindCgroupPath(std::string_view proc_self_cgroup, bool v2) {
  for (std::string_view line : Lines(proc_self_cgroup)) {
    const std::size_t first = line.find(':');
    const std::size_t second = line.find(':', first + 1);
    if (first == std::string_view::npos || second == std::string_view::npos) continue;
    const std::string_view id = line.substr(0, first);
    const std::string_view controllers = line.substr(first + 1, second - first - 1);
    const std::vector<std::string_view> names = Split(controllers, ',');
    const bool matches = v2 ? id == "0" && controllers.empty()
                            : std::find(names.begin(), names.end(), "cpu") != names.end();
    if (matches) return std::string(line.substr(second + 1));
  }
  return std::nullopt;
}

// The directory of `path` (a cgroup path) under `mount`: the part of the path below the mount's
// root, appended to the mount point. A path outside the root (seen from another cgroup
// namespace) is read at the mount point, the highest level this process can see.
std::string DirectoryOf(const std::string& path, const CgroupMount& mount) {
  std::string below;
  if (mount.root == "/") {
    below = path;
  } else if (path.starts_with(mount.root) &&
             (path.size() == mount.root.size() || path[mount.root.size()] == '/')) {
    below = path.substr(mount.root.size());
  }
  // A cgroup outside this namespace's root reads "/../..": nothing below the mount is ours.
  if (below.find("/..") != std::string::npos) below.clear();
  while (!below.empty() && below.back() == '/') below.pop_back();
  std::string directory = mount.mount_point;
  while (directory.size() > 1 && directory.back() == '/') directory.pop_back();
  return directory + below;
}

// A cgroup or /proc file, by the bounded reader (os/input_file.h): a regular file only, so that
// a FIFO in its place (a crafted root, a container's odd mount) is refused without waiting for a
// writer, and at most kMaxCgroupFileBytes. /proc files report no size; they are read to their
// end. nullopt when it cannot be read.
std::optional<std::string> ReadSmallFile(const std::string& path) {
  StatusOr<std::string> text = ReadInputFile(
      path,
      {.what = "cgroup file", .hint = "", .max_bytes = kMaxCgroupFileBytes, .regular_only = true});
  if (!text.ok()) return std::nullopt;
  return std::move(*text);
}

// The quota set at one level `directory` of a hierarchy, read below `root`.
std::optional<CpuQuota> QuotaAt(const std::string& root, const std::string& directory, bool v2) {
  if (v2) {
    const std::string file = directory + "/cpu.max";
    const std::optional<std::string> text = ReadSmallFile(root + file);
    if (!text) return std::nullopt;
    const std::optional<double> cpus = ParseCpuMax(*text);
    if (!cpus) return std::nullopt;
    return CpuQuota{*cpus, file};
  }
  const std::string file = directory + "/cpu.cfs_quota_us";
  const std::optional<std::string> quota = ReadSmallFile(root + file);
  const std::optional<std::string> period = ReadSmallFile(root + directory + "/cpu.cfs_period_us");
  if (!quota || !period) return std::nullopt;
  const std::optional<double> cpus = ParseCfsQuota(*quota, *period);
  if (!cpus) return std::nullopt;
  return CpuQuota{*cpus, file};
}

std::string Parent(const std::string& directory) {
  const std::size_t slash = directory.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : directory.substr(0, slash);
}

int AffinityCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

std::string CpuCount(double cpus) {
  return fmt::format("{:.2f} CPU{}", cpus, cpus == 1.0 ? "" : "s");
}

}  // namespace

std::optional<double> ParseCpuMax(std::string_view text) {
  const std::vector<std::string_view> words = Split(Trim(text), ' ');
  if (words.size() != 2 || words[0] == "max") return std::nullopt;
  const std::optional<long long> quota = WholeNumber(words[0]);
  const std::optional<long long> period = WholeNumber(words[1]);
  if (!quota || !period) return std::nullopt;
  return Cpus(*quota, *period);
}

std::optional<double> ParseCfsQuota(std::string_view quota, std::string_view period) {
  const std::optional<long long> quota_us = WholeNumber(quota);
  const std::optional<long long> period_us = WholeNumber(period);
  if (!quota_us || !period_us) return std::nullopt;
  return Cpus(*quota_us, *period_us);
}

std::vector<CpuCgroup> FindCpuCgroups(std::string_view proc_self_cgroup,
                                      std::string_view mountinfo) {
  std::vector<CpuCgroup> cgroups;
  for (const bool v2 : {false, true}) {
    const std::optional<std::string> path = FindCgroupPath(proc_self_cgroup, v2);
    const std::optional<CgroupMount> mount = FindMount(mountinfo, v2);
    if (!path || !mount) continue;
    cgroups.push_back({DirectoryOf(*path, *mount), mount->mount_point, v2});
  }
  return cgroups;
}

std::optional<CpuQuota> ReadCpuQuota(const std::string& root) {
  const std::optional<std::string> proc_self_cgroup = ReadSmallFile(root + "/proc/self/cgroup");
  const std::optional<std::string> mountinfo = ReadSmallFile(root + "/proc/self/mountinfo");
  if (!proc_self_cgroup || !mountinfo) return std::nullopt;
  std::optional<CpuQuota> smallest;
  for (const CpuCgroup& cgroup : FindCpuCgroups(*proc_self_cgroup, *mountinfo)) {
    for (std::string directory = cgroup.directory;; directory = Parent(directory)) {
      std::optional<CpuQuota> quota = QuotaAt(root, directory, cgroup.v2);
      if (quota && (!smallest || quota->cpus < smallest->cpus)) smallest = std::move(quota);
      if (directory.size() <= cgroup.mount_point.size() || directory == "/") break;
    }
  }
  return smallest;
}

std::string CpuBudget::Text() const {
  const std::string count = fmt::format("{} CPU{}", cpus, cpus == 1 ? "" : "s");
  if (!quota) return count;
  return fmt::format("{} (a cgroup CPU quota of {}; {} in the affinity mask)", count,
                     CpuCount(quota->cpus), affinity);
}

CpuBudget BudgetOf(int affinity, std::optional<CpuQuota> quota) {
  CpuBudget budget{.affinity = std::max(1, affinity), .quota = std::move(quota)};
  budget.cpus = budget.affinity;
  if (budget.quota) {
    const double whole = std::ceil(budget.quota->cpus);
    budget.cpus = std::clamp(static_cast<int>(std::min(whole, 1e6)), 1, budget.affinity);
  }
  return budget;
}

CpuBudget ReadCpuBudget() {
  return BudgetOf(AffinityCpus(), ReadCpuQuota());
}

int UsableCpus() {
  return ReadCpuBudget().cpus;
}

}  // namespace dlcheck::os
