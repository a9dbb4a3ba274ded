// SPDX-License-Identifier: Apache-2.0
#pragma once
// A shared library loaded where it is first needed (dlopen), not linked: for a library few runs
// call, whose loading with its own dependencies every run of dlcheck would otherwise pay at its
// start. Never unloaded.
//
//   struct Archive {
//     LazyLibrary library{"libarchive.so.13"};
//     DLCHECK_LAZY_FUNCTION(archive_read_new);  // a member: the function, or nullptr
//   };
//   if (!archive.library.error().empty()) ...    // what could not be loaded or found

#include <dlfcn.h>

#include <string>

namespace dlcheck {

class LazyLibrary {
 public:
  explicit LazyLibrary(const char* soname) : handle_(dlopen(soname, RTLD_NOW | RTLD_LOCAL)) {
    if (handle_ == nullptr) {
      const char* why = dlerror();
      error_ = why != nullptr ? why : std::string("cannot load ") + soname;
    }
  }

  /// The library's function `name` as a `Function`, nullptr where the library or the name is
  /// missing (error() then says so).
  template <typename Function>
  Function Get(const char* name) {
    const auto function =
        handle_ != nullptr ? reinterpret_cast<Function>(dlsym(handle_, name)) : nullptr;
    if (function == nullptr && error_.empty()) error_ = std::string("it has no ") + name;
    return function;
  }

  /// Empty where the library was loaded and every name resolved so far was found.
  const std::string& error() const { return error_; }

 private:
  void* handle_;
  std::string error_;
};

}  // namespace dlcheck

/// A member of a struct that holds a LazyLibrary member named `library` before it: the pointer
/// to the C function `name` (whose declaration gives its type), looked up as the struct is made.
#define DLCHECK_LAZY_FUNCTION(name) decltype(&::name) name = library.Get<decltype(&::name)>(#name)
