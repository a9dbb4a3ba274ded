// SPDX-License-Identifier: Apache-2.0
#pragma once
// The one table of the shared libraries around oneDNN, by what they do in a process: OpenMP
// runtimes, BLAS, allocators, oneDNN itself, other engines, frameworks. Read by profile (the class
// of a sampled library) and by tune's audit of a running program (the libraries it mapped).
// Header-only and constexpr, like common/primitive_kinds.h.
//
//   lib::KindOfLibrary("/usr/lib/x86_64-linux-gnu/libgomp.so.1")  -> {kOpenMp, "GNU OpenMP"}
//   lib::KindOfLibrary(".../torch/lib/libgomp-a34b3233.so.1")     -> {kOpenMp, "GNU OpenMP"}
//   lib::KindOfLibrary("/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0")
//                                                                 -> {kBlas, "reference BLAS"}
//   lib::KindOfLibrary("/usr/lib/x86_64-linux-gnu/libc.so.6")     -> std::nullopt
//
// Sources: Debian 12's file lists (libgomp1, libomp5-14, libopenblas0-pthread, libblas3,
// libblis4-*, libjemalloc2, libtcmalloc-minimal4, libmimalloc2.0, libdnnl2); PyTorch's and
// numpy's wheels vendor renamed copies (libgomp-<hash>.so.1, libopenblas64_p-r0-<hash>.so).

#include <optional>
#include <string_view>

namespace dlcheck::lib {

enum class Role { kOpenMp, kBlas, kAllocator, kOneDnn, kEngine, kFramework };

/// "openmp", "blas", "allocator", "onednn", "engine", "framework".
constexpr std::string_view RoleName(Role role) {
  switch (role) {
    case Role::kOpenMp:
      return "openmp";
    case Role::kBlas:
      return "blas";
    case Role::kAllocator:
      return "allocator";
    case Role::kOneDnn:
      return "onednn";
    case Role::kEngine:
      return "engine";
    case Role::kFramework:
      return "framework";
  }
  return "";
}

/// What a library is: its role and the name people know it by.
struct LibraryKind {
  Role role;
  std::string_view name;  ///< "GNU OpenMP", "OpenBLAS", "reference BLAS", "jemalloc", ...
};

/// The reference BLAS's name (Netlib's, Debian's libblas3 in blas/), and the Debian package that
/// replaces it through the libblas.so.3 alternative for every program linked with libblas.so.3.
inline constexpr std::string_view kReferenceBlas = "reference BLAS";
inline constexpr std::string_view kOptimizedBlasPackage = "libopenblas0-pthread";

/// A file name's start (its base name) and what a library of that name is.
struct LibraryPrefix {
  std::string_view prefix;
  LibraryKind kind;
};
// Longer prefixes of one family first (libiomp before libomp is not needed: no shared start).
inline constexpr LibraryPrefix kLibraryPrefixes[] = {
    {"libgomp", {Role::kOpenMp, "GNU OpenMP"}},
    {"libiomp", {Role::kOpenMp, "Intel OpenMP"}},
    {"libomp", {Role::kOpenMp, "LLVM OpenMP"}},
    {"libdnnl", {Role::kOneDnn, "oneDNN"}},
    {"libmkldnn", {Role::kOneDnn, "oneDNN"}},
    {"libonednn", {Role::kOneDnn, "oneDNN"}},
    {"libopenblas", {Role::kBlas, "OpenBLAS"}},
    {"libblis", {Role::kBlas, "BLIS"}},
    {"libmkl_", {Role::kBlas, "MKL"}},
    {"libatlas", {Role::kBlas, "ATLAS"}},
    {"libflexiblas", {Role::kBlas, "FlexiBLAS"}},
    {"libjemalloc", {Role::kAllocator, "jemalloc"}},
    {"libtcmalloc", {Role::kAllocator, "tcmalloc"}},
    {"libmimalloc", {Role::kAllocator, "mimalloc"}},
    {"libggml", {Role::kEngine, "ggml"}},
    {"libllama", {Role::kEngine, "llama.cpp"}},
    {"libonnxruntime", {Role::kEngine, "ONNX Runtime"}},
    {"libzendnn", {Role::kEngine, "ZenDNN"}},
    {"libopenvino", {Role::kEngine, "OpenVINO"}},
    {"libtorch_cpu", {Role::kFramework, "PyTorch"}},
    {"libtensorflow", {Role::kFramework, "TensorFlow"}},
    {"libmxnet", {Role::kFramework, "MXNet"}},
};

/// Debian's alternatives of libblas.so.3: the directory a BLAS's libblas.so.3 lives in (under
/// the multiarch directory) and what it is.
struct BlasDirectory {
  std::string_view directory;  ///< "openblas-pthread"
  std::string_view name;       ///< "OpenBLAS"
  std::string_view package;    ///< "libopenblas0-pthread"
};
inline constexpr BlasDirectory kBlasDirectories[] = {
    {"openblas-pthread", "OpenBLAS", "libopenblas0-pthread"},
    {"openblas-openmp", "OpenBLAS", "libopenblas0-openmp"},
    {"openblas-serial", "OpenBLAS", "libopenblas0-serial"},
    {"blis-pthread", "BLIS", "libblis4-pthread"},
    {"blis-openmp", "BLIS", "libblis4-openmp"},
    {"blis-serial", "BLIS", "libblis4-serial"},
    {"atlas", "ATLAS", "libatlas3-base"},
    {"blas", kReferenceBlas, "libblas3"},
};

/// "libgomp.so.1" for "/usr/lib/x86_64-linux-gnu/libgomp.so.1".
constexpr std::string_view BaseName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

/// What the library at `path` is (Debian's alternatives resolved, as /proc/PID/maps and perf
/// name them: .../blas/libblas.so.3.11.0); nullopt for the rest (libc, libstdc++, ...).
constexpr std::optional<LibraryKind> KindOfLibrary(std::string_view path) {
  const std::string_view object = BaseName(path);
  if (object.starts_with("libblas") || object.starts_with("libcblas")) {
    // libblas.so.3 is whichever alternative installed it: its directory says which.
    for (const BlasDirectory& d : kBlasDirectories) {
      const std::size_t at = path.find(d.directory);
      if (at != std::string_view::npos && at > 0 && path[at - 1] == '/' &&
          path.size() > at + d.directory.size() && path[at + d.directory.size()] == '/') {
        return LibraryKind{Role::kBlas, d.name};
      }
    }
    return LibraryKind{Role::kBlas, kReferenceBlas};
  }
  for (const LibraryPrefix& p : kLibraryPrefixes) {
    if (object.starts_with(p.prefix)) return p.kind;
  }
  return std::nullopt;
}

}  // namespace dlcheck::lib
