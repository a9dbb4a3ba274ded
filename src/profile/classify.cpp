#include "profile/classify.h"

#include <array>

namespace dlcheck::profile {
namespace {

bool StartsWithAny(std::string_view text, std::span<const std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (text.starts_with(p)) return true;
  }
  return false;
}

bool IsPerfMap(std::string_view dso) {
  return dso.starts_with("/tmp/perf-") && dso.ends_with(".map");
}

bool IsKernel(std::string_view dso) {
  return dso.starts_with("[kernel.") || dso == "[guest.kernel.kallsyms]";
}

constexpr std::string_view kOneDnnLibraries[] = {"libdnnl", "libmkldnn", "libonednn"};
constexpr std::string_view kOneDnnSymbols[] = {"dnnl::", "dnnl_", "mkldnn::", "mkldnn_", "zendnn"};
constexpr std::string_view kOpenMpLibraries[] = {"libgomp", "libiomp", "libomp"};
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
  std::string_view kind;
};
constexpr KindFragment kKindFragments[] = {
    {"inner_product", "inner_product"},
    {"deconvolution", "deconvolution"},
    {"convolution", "convolution"},
    {"_conv_", "convolution"},
    {"matmul", "matmul"},
    {"layer_normalization", "layer_normalization"},
    {"lnorm", "layer_normalization"},
    {"batch_normalization", "batch_normalization"},
    {"bnorm", "batch_normalization"},
    {"pooling", "pooling"},
    {"_pool_", "pooling"},
    {"eltwise", "eltwise"},
    {"softmax", "softmax"},
    {"reorder", "reorder"},
    {"lrn", "lrn"},
    {"binary", "binary"},
    {"resampling", "resampling"},
    {"shuffle", "shuffle"},
    {"concat", "concat"},
    {"prelu", "prelu"},
    {"reduction", "reduction"},
    {"rnn", "rnn"},
    {"_sum_", "sum"},
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

}  // namespace

std::string_view ClassName(CpuClass cls) {
  static constexpr std::array<std::string_view, kCpuClassCount> kNames = {
      "jit", "onednn", "openmp", "framework", "kernel", "other"};
  return kNames[static_cast<std::size_t>(cls)];
}

std::string_view ClassDescription(CpuClass cls) {
  static constexpr std::array<std::string_view, kCpuClassCount> kDescriptions = {
      "oneDNN JIT kernels",
      "oneDNN code that is not JIT (reference, simple and reorder code, the JIT generator)",
      "the OpenMP runtime (spinning, barriers, fork/join)",
      "the framework (libtorch, the Python interpreter, dlcheck's model worker)",
      "the operating system kernel",
      "everything else (libc, libm, the loader, unnamed code)"};
  return kDescriptions[static_cast<std::size_t>(cls)];
}

std::string_view BaseName(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

CpuClass ClassOf(const Frame& frame) {
  if (IsPerfMap(frame.dso)) return CpuClass::kJit;
  if (IsKernel(frame.dso)) return CpuClass::kKernel;
  const std::string_view object = BaseName(frame.dso);
  if (StartsWithAny(object, kOneDnnLibraries) || StartsWithAny(frame.symbol, kOneDnnSymbols)) {
    return CpuClass::kOneDnn;
  }
  if (StartsWithAny(object, kOpenMpLibraries) || StartsWithAny(frame.symbol, kOpenMpSymbols)) {
    return CpuClass::kOpenMp;
  }
  if (StartsWithAny(object, kFrameworkObjects)) return CpuClass::kFramework;
  return CpuClass::kOther;
}

std::string_view PrimitiveOfSymbol(std::string_view symbol) {
  symbol = WithoutArguments(symbol);
  for (const KindFragment& k : kKindFragments) {
    if (symbol.find(k.fragment) != std::string_view::npos) return k.kind;
  }
  return {};
}

KernelOwner OwnerOfKernel(std::string_view kernel) {
  // "jit_t" is oneDNN's spin barrier (simple_barrier), which threads of one primitive wait in.
  if (kernel == "jit_t") return {"", "barrier"};
  // oneDNN's eltwise kernel calls itself plain "jit_uni_kernel" (jit_uni_eltwise.cpp).
  if (kernel == "jit_uni_kernel" || kernel.starts_with("jit_uni_kernel_fwd"))
    return {"eltwise", ""};
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
  if (IsPerfMap(frame.dso)) name += "_[j]";
  return name;
}

}  // namespace dlcheck::profile
