// SPDX-License-Identifier: Apache-2.0
#include "os/scratch_directory.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace dlcheck::os {

ScratchDirectory::~ScratchDirectory() {
  if (path_.empty()) return;
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

Status ScratchDirectory::Create(std::string_view prefix, const std::string& parent) {
  std::error_code error;
  const std::string dir =
      parent.empty() ? std::filesystem::temp_directory_path(error).string() : parent;
  if (error) {
    return Status(ExitCode::kOutputError,
                  fmt::format("cannot find a temporary directory: {}", error.message()));
  }
  std::string tmpl = fmt::format("{}/{}XXXXXX", dir, prefix);
  if (mkdtemp(tmpl.data()) == nullptr) {
    return Status(ExitCode::kOutputError, fmt::format("cannot create a scratch directory in {}: {}",
                                                      dir, std::strerror(errno)));
  }
  path_ = tmpl;
  directory_guard_.Reset(path_, /*directory=*/true);
  return {};
}

std::string ScratchDirectory::File(std::string_view name) {
  std::string path = fmt::format("{}/{}", path_, name);
  file_guards_.emplace_back(path);
  return path;
}

}  // namespace dlcheck::os
