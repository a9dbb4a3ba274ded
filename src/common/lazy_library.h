#pragma once
// A shared library loaded where it is first needed (dlopen), not linked: for a library few runs
// call, whose loading with its own dependencies every run of dlcheck would otherwise pay at its
// start. Never unloaded.
//
//   LazyLibrary library("libarchive.so.13");
//   library.Resolve("archive_read_new", read_new);  // nullptr where it is missing
//   if (!library.error().empty()) ...               // what could not be loaded or found

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

  /// Sets `function` to the library's function `name`, nullptr where the library or the name is
  /// missing (error() then says so).
  template <typename Function>
  void Resolve(const char* name, Function& function) {
    function = handle_ != nullptr ? reinterpret_cast<Function>(dlsym(handle_, name)) : nullptr;
    if (function == nullptr && error_.empty()) error_ = std::string("it has no ") + name;
  }

  /// Empty where the library was loaded and every name resolved so far was found.
  const std::string& error() const { return error_; }

 private:
  void* handle_;
  std::string error_;
};

}  // namespace dlcheck
