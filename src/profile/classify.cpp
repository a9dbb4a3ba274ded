// SPDX-License-Identifier: Apache-2.0
#include "profile/classify.h"

#include <array>

#include "common/library_kinds.h"
#include "common/primitive_kinds.h"
#include "profile/perf_map.h"

namespace dlcheck::profile {
namespace {

bool StartsWithAny(std::string_view text, std::span<const std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (text.starts_with(p)) return true;
  }
  return false;
}

bool IsKernel(std::string_view dso) {
  return dso.starts_with("[kernel.") || dso == "[guest.kernel.kallsyms]";
}

constexpr std::string_view kOneDnnSymbols[] = {"dnnl::", "dnnl_", "mkldnn::", "mkldnn_", "zendnn"};
// The same code linked into a framework (MKL inside a libtorch wheel, OpenBLAS inside numpy's
// wheels): its C interface, MKL's and BLIS's internals, OpenBLAS's kernels and thread server.
constexpr std::string_view kBlasSymbols[] = {"cblas_",    "mkl_blas_",          "mkl_serv_", "bli_",
                                             "openblas_", "blas_thread_server", "exec_blas"};
// The Fortran interface of the routines deep learning calls: sgemm_, dgemm_, sgemv_, ...
constexpr std::string_view kBlasRoutines[] = {"gemm_", "gemv_", "gemm3m_", "trsm_", "trmm_",
                                              "syrk_", "axpy_", "dot_",    "scal_", "ger_"};
constexpr std::string_view kOpenMpSymbols[] = {"gomp_", "GOMP_", "__kmp", "__kmpc", "omp_"};
// libtorch_cpu, libc10, libpython3.11, python3.11, _C.cpython-311-x86_64-linux-gnu.so,
// libmxnet, libtensorflow_framework, libonnxruntime, and dlcheck itself (its model worker).
constexpr std::string_view kFrameworkObjects[] = {
    "libtorch", "libc10",        "libpython",          "python",         "_C.cpython",
    "libmxnet", "libtensorflow", "_pywrap_tensorflow", "libonnxruntime", "dlcheck"};

// Implementation class fragments -> the primitive kind verbose names. More specific fragments
// first ("deconvolution" before "convolution", "layer_normalization" before "normalization").
struct KindFragment {
  std::string_view fragment;
  onednn::Kind kind;
};
constexpr KindFragment kKindFragments[] = {
    {"inner_product", onednn::Kind::kInnerProduct},
    {"deconvolution", onednn::Kind::kDeconvolution},
    {"convolution", onednn::Kind::kConvolution},
    {"_conv_", onednn::Kind::kConvolution},
    {"matmul", onednn::Kind::kMatmul},
    {"layer_normalization", onednn::Kind::kLayerNormalization},
    {"lnorm", onednn::Kind::kLayerNormalization},
    {"batch_normalization", onednn::Kind::kBatchNormalization},
    {"bnorm", onednn::Kind::kBatchNormalization},
    {"pooling", onednn::Kind::kPooling},
    {"_pool_", onednn::Kind::kPooling},
    {"eltwise", onednn::Kind::kEltwise},
    {"softmax", onednn::Kind::kSoftmax},
    {"reorder", onednn::Kind::kReorder},
    {"lrn", onednn::Kind::kLrn},
    {"binary", onednn::Kind::kBinary},
    {"resampling", onednn::Kind::kResampling},
    {"shuffle", onednn::Kind::kShuffle},
    {"concat", onednn::Kind::kConcat},
    {"prelu", onednn::Kind::kPrelu},
    {"reduction", onednn::Kind::kReduction},
    {"rnn", onednn::Kind::kRnn},
    {"_sum_", onednn::Kind::kSum},
};

// "ns::cls<T>::f(int, float) const" -> "ns::cls<T>::f": the argument list is the last balanced
// parenthesis group that is not inside a template argument list.
std::string_view WithoutArguments(std::string_view symbol) {
  if (symbol.ends_with(" const")) symbol.remove_suffix(6);
  if (symbol.empty() || symbol.back() != ')') return symbol;
  int depth = 0;
  for (std::size_t i = symbol.size(); i-- > 0;) {
    if (symbol[i] == ')') ++depth;
    if (symbol[i] == '(' && --depth == 0) return i == 0 ? symbol : symbol.substr(0, i);
  }
  return symbol;
}

bool IsBlasSymbol(std::string_view symbol) {
  if (StartsWithAny(symbol, kBlasSymbols)) return true;
  // OpenBLAS's per-CPU kernels and copy routines: sgemm_kernel_HASWELL, dgemm_kernel_SKYLAKEX.
  if (symbol.find("gemm_kernel") != std::string_view::npos) return true;
  if (symbol.size() < 2 || std::string_view("sdcz").find(symbol.front()) == std::string_view::npos)
    return false;
  for (std::string_view routine : kBlasRoutines) {
    if (symbol.substr(1) == routine) return true;
  }
  return false;
}

// The namespaces PyTorch puts its kernels in besides at::native: anonymous ones, and one per CPU
// capability the kernel was compiled for (DEFAULT, AVX2, AVX512, ZVECTOR).
constexpr std::string_view kKernelNamespaces[] = {
    "(anonymous namespace)::", "DEFAULT::", "AVX2::", "AVX512::", "ZVECTOR::", "CPU_CAPABILITY::"};

// The first name of a qualified name: "addmm" for "addmm::call", "f" for "f<float>::g" or "f(int)".
std::string_view FirstComponent(std::string_view name) {
  const std::size_t end = name.find_first_of(":<(");
  return name.substr(0, end);
}

std::string_view WithoutKernelNamespaces(std::string_view name) {
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view ns : kKernelNamespaces) {
      if (name.starts_with(ns)) {
        name.remove_prefix(ns.size());
        stripped = true;
      }
    }
  }
  return name;
}

}  // namespace

std::string OperatorOfFrame(const Frame& frame) {
  constexpr std::string_view kDispatcher = "at::_ops::";
  constexpr std::string_view kNative = "at::native::";
  const std::string_view symbol = frame.symbol;
  if (symbol.starts_with(kDispatcher)) {
    const std::string_view op = FirstComponent(symbol.substr(kDispatcher.size()));
    return op.empty() ? std::string() : "aten::" + std::string(op);
  }
  if (symbol.starts_with(kNative)) {
    const std::string_view op =
        FirstComponent(WithoutKernelNamespaces(symbol.substr(kNative.size())));
    return op.empty() ? std::string() : std::string(kNative) + std::string(op);
  }
  return {};
}

std::string OperatorOf(const std::vector<Frame>& frames) {
  std::string native;
  for (const Frame& f : frames) {
    std::string op = OperatorOfFrame(f);
    if (op.starts_with("aten::")) return op;
    if (native.empty()) native = std::move(op);
  }
  return native;
}

std::string_view ClassName(CpuClass cls) {
  static constexpr std::array<std::string_view, kCpuClassCount> kNames = {
      "jit", "onednn", "blas", "openmp", "framework", "kernel", "other"};
  return kNames[static_cast<std::size_t>(cls)];
}

std::string_view ClassDescription(CpuClass cls) {
  static constexpr std::array<std::string_view, kCpuClassCount> kDescriptions = {
      "oneDNN JIT kernels",
      "oneDNN code that is not JIT (reference, simple and reorder code, the JIT generator)",
      "a BLAS library (OpenBLAS, BLIS, MKL, the reference BLAS, or one inside the framework)",
      "the OpenMP runtime (spinning, barriers, fork/join)",
      "the framework (libtorch, the Python interpreter, dlcheck's model worker)",
      "the operating system kernel",
      "everything else (libc, libm, the loader, unnamed code)"};
  return kDescriptions[static_cast<std::size_t>(cls)];
}

std::string_view BaseName(std::string_view path) {
  return lib::BaseName(path);
}

CpuClass ClassOf(const Frame& frame) {
  if (IsPerfMapPath(frame.dso)) return CpuClass::kJit;
  if (IsKernel(frame.dso)) return CpuClass::kKernel;
  const std::string_view object = BaseName(frame.dso);
  const std::optional<lib::LibraryKind> library = lib::KindOfLibrary(frame.dso);
  const auto is = [&library](lib::Role role) { return library && library->role == role; };
  if (is(lib::Role::kOneDnn) || StartsWithAny(frame.symbol, kOneDnnSymbols)) {
    return CpuClass::kOneDnn;
  }
  if (is(lib::Role::kBlas) || IsBlasSymbol(frame.symbol)) return CpuClass::kBlas;
  if (is(lib::Role::kOpenMp) || StartsWithAny(frame.symbol, kOpenMpSymbols)) {
    return CpuClass::kOpenMp;
  }
  if (StartsWithAny(object, kFrameworkObjects)) return CpuClass::kFramework;
  return CpuClass::kOther;
}

std::string_view BlasImplementation(std::string_view path, std::string_view symbol) {
  if (const std::optional<lib::LibraryKind> library = lib::KindOfLibrary(path);
      library && library->role == lib::Role::kBlas) {
    return library->name;
  }
  // Linked into a framework (MKL in a libtorch wheel, OpenBLAS in numpy's wheels).
  if (symbol.starts_with("mkl_")) return "MKL";
  if (symbol.starts_with("bli_")) return "BLIS";
  if (symbol.starts_with("openblas_") || symbol.starts_with("exec_blas") ||
      symbol.starts_with("blas_thread_server") ||
      symbol.find("gemm_kernel") != std::string_view::npos) {
    return "OpenBLAS";
  }
  return {};
}

std::string_view PrimitiveOfSymbol(std::string_view symbol) {
  symbol = WithoutArguments(symbol);
  for (const KindFragment& k : kKindFragments) {
    if (symbol.find(k.fragment) != std::string_view::npos) return onednn::NameOf(k.kind);
  }
  return {};
}

KernelOwner OwnerOfKernel(std::string_view kernel) {
  // "jit_t" is oneDNN's spin barrier (simple_barrier), which threads of one primitive wait in.
  if (kernel == "jit_t") return {"", "barrier"};
  // oneDNN's eltwise kernel calls itself plain "jit_uni_kernel" (jit_uni_eltwise.cpp).
  if (kernel == "jit_uni_kernel" || kernel.starts_with("jit_uni_kernel_fwd"))
    return {std::string(onednn::NameOf(onednn::Kind::kEltwise)), ""};
  if (std::string_view kind = PrimitiveOfSymbol(kernel); !kind.empty())
    return {std::string(kind), ""};
  if (kernel.find("brgemm") != std::string_view::npos) return {"", "brgemm"};
  if (kernel.find("gemm") != std::string_view::npos) return {"", "gemm"};
  return {};
}

std::string FrameName(const Frame& frame) {
  std::string name = frame.symbol == "[unknown]" ? "[" + std::string(BaseName(frame.dso)) + "]"
                                                 : std::string(WithoutArguments(frame.symbol));
  for (char& c : name) {
    if (c == ';') c = ':';  // the folded format's frame separator
  }
  if (IsKernel(frame.dso)) name += "_[k]";
  if (IsPerfMapPath(frame.dso)) name += "_[j]";
  if (frame.scanned) name += "_[s]";
  return name;
}

}  // namespace dlcheck::profile
