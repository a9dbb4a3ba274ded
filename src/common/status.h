// SPDX-License-Identifier: Apache-2.0
#pragma once
// Expected failures are values: a Status carries the exit code the command ends with and one
// line for the user. StatusOr<T> is a T or the Status that says why there is none.
//
//   StatusOr<Dump> dump = LoadDump(path);
//   if (!dump.ok()) return dump.status();
//   Use(*dump);

#include <string>
#include <utility>
#include <variant>

#include "common/exit_code.h"

namespace dlcheck {

/// Success, or an exit code with one line that says what went wrong and what to do.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(ExitCode code, std::string message) : code_(code), message_(std::move(message)) {}

  bool ok() const { return code_ == ExitCode::kOk; }
  ExitCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  ExitCode code_ = ExitCode::kOk;
  std::string message_;
};

inline Status InputError(std::string message) {
  return Status(ExitCode::kInputError, std::move(message));
}
inline Status UsageError(std::string message) {
  return Status(ExitCode::kUsage, std::move(message));
}
/// A file or directory dlcheck was asked to write could not be written (full disk, no
/// permission). Not report::OutputError, the exception a printer throws.
inline Status OutputFileError(std::string message) {
  return Status(ExitCode::kOutputError, std::move(message));
}

/// A value, or the Status that explains its absence. Never holds an ok Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(T value) : data_(std::move(value)) {}         // NOLINT: implicit by design
  StatusOr(Status status) : data_(std::move(status)) {}  // NOLINT: implicit by design

  bool ok() const { return std::holds_alternative<T>(data_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(data_);
  }
  T& value() & { return std::get<T>(data_); }
  const T& value() const& { return std::get<T>(data_); }
  T&& value() && { return std::get<T>(std::move(data_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace dlcheck
