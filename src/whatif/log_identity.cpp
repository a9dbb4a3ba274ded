// SPDX-License-Identifier: Apache-2.0
#include "whatif/log_identity.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "common/exit_code.h"

namespace dlcheck::whatif {

StatusOr<LogIdentity> IdentityOf(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return Status(ExitCode::kInputError,
                  fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  }
  return LogIdentity{.size = static_cast<std::uint64_t>(info.st_size),
                     .mtime_ns = static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1000000000 +
                                 info.st_mtim.tv_nsec};
}

std::string ChangedSince(const std::string& path, const LogIdentity& expected) {
  StatusOr<LogIdentity> now = IdentityOf(path);
  if (!now.ok()) return now.status().message();
  if (now->size != expected.size) {
    return fmt::format("'{}' {} from {} to {} bytes", path,
                       now->size > expected.size ? "grew" : "shrank", expected.size, now->size);
  }
  if (now->mtime_ns != expected.mtime_ns) return fmt::format("'{}' was modified", path);
  return {};
}

std::string EncodeIdentities(const std::vector<LogIdentity>& identities) {
  std::string text;
  for (const LogIdentity& id : identities) {
    text += fmt::format("{}{}:{}", text.empty() ? "" : ",", id.size, id.mtime_ns);
  }
  return text;
}

std::optional<std::vector<LogIdentity>> DecodeIdentities(std::string_view text) {
  std::vector<LogIdentity> identities;
  while (!text.empty()) {
    const std::size_t end = std::min(text.find(','), text.size());
    const std::string_view entry = text.substr(0, end);
    const std::size_t colon = entry.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    LogIdentity id;
    const auto size = std::from_chars(entry.data(), entry.data() + colon, id.size);
    const auto mtime =
        std::from_chars(entry.data() + colon + 1, entry.data() + entry.size(), id.mtime_ns);
    if (size.ec != std::errc() || size.ptr != entry.data() + colon || mtime.ec != std::errc() ||
        mtime.ptr != entry.data() + entry.size()) {
      return std::nullopt;
    }
    identities.push_back(id);
    text.remove_prefix(std::min(end + 1, text.size()));
  }
  return identities;
}

}  // namespace dlcheck::whatif
