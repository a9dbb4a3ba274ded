#pragma once
// Where a sampled instruction belongs: the classes of CPU time `dlcheck profile` reports, and the
// oneDNN primitive a JIT kernel worked for. The rules live here and nowhere else.
//
//   jit        oneDNN's JIT kernels: code in a perf map (/tmp/perf-<pid>.map)
//   onednn     oneDNN code that is not JIT (reference and simple implementations, reorders, the
//              JIT generator itself), in libdnnl or linked into a framework (dnnl:: symbols)
//   openmp     the OpenMP runtime (libgomp, libiomp5, libomp): spinning, barriers, fork/join
//   framework  the program around oneDNN: libtorch/libc10, the Python interpreter, dlcheck's own
//              model worker
//   kernel     the operating system kernel
//   other      everything else (libc, libm, the dynamic loader, unnamed code)

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "profile/perf_script.h"

namespace dlcheck::profile {

enum class CpuClass { kJit, kOneDnn, kOpenMp, kFramework, kKernel, kOther };
inline constexpr std::size_t kCpuClassCount = 6;
inline constexpr CpuClass kCpuClasses[] = {CpuClass::kJit,    CpuClass::kOneDnn,
                                           CpuClass::kOpenMp, CpuClass::kFramework,
                                           CpuClass::kKernel, CpuClass::kOther};

/// "jit", "onednn", "openmp", "framework", "kernel", "other".
std::string_view ClassName(CpuClass cls);
/// A sentence for people: "oneDNN JIT kernels", "the OpenMP runtime", ...
std::string_view ClassDescription(CpuClass cls);

/// The class of the code a frame is in.
CpuClass ClassOf(const Frame& frame);

/// "libgomp.so.1" for "/usr/lib/x86_64-linux-gnu/libgomp.so.1".
std::string_view BaseName(std::string_view path);

/// The oneDNN primitive kind (as verbose names it: "inner_product", "convolution", "reorder",
/// ...) a oneDNN symbol belongs to, from its implementation's class name
/// ("dnnl::impl::cpu::x64::brgemm_inner_product_fwd_t<...>::execute_forward"); empty when the
/// symbol names none.
std::string_view PrimitiveOfSymbol(std::string_view symbol);

/// Who ran a JIT kernel, as far as its name (from the perf map) says: a primitive kind
/// ("jit_uni_reorder_kernel_f32": reorder; "jit_uni_kernel": eltwise), or only the family of
/// implementations that use it ("jit_brgemm_kernel_t": brgemm, shared by inner product, matmul
/// and convolution; "jit_avx_gemm_f32": gemm). Call stacks cannot say more: JIT code keeps no
/// frame pointer and no unwind tables, so perf's call graph stops at the kernel.
struct KernelOwner {
  std::string primitive;       ///< a verbose primitive kind; empty when the name names none
  std::string implementation;  ///< "brgemm" or "gemm" when the name names only that;
                               ///< "barrier" for oneDNN's spin barrier ("jit_t")
};
KernelOwner OwnerOfKernel(std::string_view kernel);

/// A frame's name in stacks and flame graphs: the symbol without its argument list
/// ("dnnl::impl::cpu::x64::brgemm_inner_product_fwd_t<...>::execute_forward"), or the object's
/// name in brackets when perf found no symbol ("[libgomp.so.1]"); kernel frames end in "_[k]" and
/// JIT kernels in "_[j]", as flamegraph.pl and inferno expect.
std::string FrameName(const Frame& frame);

}  // namespace dlcheck::profile
