// SPDX-License-Identifier: Apache-2.0
#pragma once
// The identity of a log file as whatif read it (its size and modification time), so that an ISA
// worker, which reads the log again and names its rows by rank, refuses a file that changed in
// between (a log still being written would give rank k to another primitive).
//
//   StatusOr<LogIdentity> id = IdentityOf(path);
//   std::string text = EncodeIdentities({*id});  // handed to the worker
//   if (std::string changed = ChangedSince(path, *id); !changed.empty()) refuse(changed);

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace dlcheck::whatif {

struct LogIdentity {
  std::uint64_t size = 0;
  std::int64_t mtime_ns = 0;
  bool operator==(const LogIdentity&) const = default;
};

/// The identity of the file at `path` now; an error when it cannot be read.
StatusOr<LogIdentity> IdentityOf(const std::string& path);

/// Why `path` is no longer the file `expected` describes ("grew from 100 to 180 bytes", "was
/// modified", "cannot be read: ..."); empty when it is the same.
std::string ChangedSince(const std::string& path, const LogIdentity& expected);

/// The identities of a command's logs, in its order, as one text for a child's environment, and
/// back; nullopt for a text that is not one.
std::string EncodeIdentities(const std::vector<LogIdentity>& identities);
std::optional<std::vector<LogIdentity>> DecodeIdentities(std::string_view text);

}  // namespace dlcheck::whatif
