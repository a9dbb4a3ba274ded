// SPDX-License-Identifier: Apache-2.0
#pragma once
// Where a sampled instruction belongs: the classes of CPU time `dlcheck profile` reports, and the
// oneDNN primitive a JIT kernel worked for. The rules live here and nowhere else.
//
//   jit        oneDNN's JIT kernels: code in a perf map (/tmp/perf-<pid>.map)
//   onednn     oneDNN code that is not JIT (reference and simple implementations, reorders, the
//              JIT generator itself), in libdnnl or linked into a framework (dnnl:: symbols)
//   blas       a BLAS library: OpenBLAS, BLIS, MKL, the reference BLAS, or a BLAS linked into the
//              framework (sgemm_, cblas_*, *gemm_kernel*, mkl_blas_*, bli_* symbols)
//   openmp     the OpenMP runtime (libgomp, libiomp5, libomp): spinning, barriers, fork/join
//   framework  the program around oneDNN: libtorch/libc10, the Python interpreter, dlcheck's own
//              model worker
//   kernel     the operating system kernel
//   other      everything else (libc, libm, the dynamic loader, unnamed code)

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/library_kinds.h"
#include "profile/perf_script.h"

namespace dlcheck::profile {

enum class CpuClass { kJit, kOneDnn, kBlas, kOpenMp, kFramework, kKernel, kOther };
inline constexpr std::size_t kCpuClassCount = 7;
inline constexpr CpuClass kCpuClasses[] = {
    CpuClass::kJit,       CpuClass::kOneDnn, CpuClass::kBlas, CpuClass::kOpenMp,
    CpuClass::kFramework, CpuClass::kKernel, CpuClass::kOther};

/// "jit", "onednn", "blas", "openmp", "framework", "kernel", "other".
std::string_view ClassName(CpuClass cls);
/// A sentence for people: "oneDNN JIT kernels", "the OpenMP runtime", ...
std::string_view ClassDescription(CpuClass cls);

/// The class of the code a frame is in.
CpuClass ClassOf(const Frame& frame);

/// "libgomp.so.1" for "/usr/lib/x86_64-linux-gnu/libgomp.so.1".
std::string_view BaseName(std::string_view path);

/// The BLAS a library file is (its path with Debian's alternatives already resolved: realpath
/// of /usr/lib/x86_64-linux-gnu/libblas.so.3), or the BLAS a symbol linked into a framework
/// belongs to: "OpenBLAS", "BLIS", "MKL", "ATLAS", "FlexiBLAS", kReferenceBlas (Netlib's, Debian's
/// libblas3 in blas/), or "" when neither says.
std::string_view BlasImplementation(std::string_view path, std::string_view symbol);
/// The reference BLAS's name in BlasImplementation (common/library_kinds.h holds the rule).
using lib::kOptimizedBlasPackage;
using lib::kReferenceBlas;

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

/// The framework operator a frame is, as the framework's profiler names it: "aten::addmm" for
/// PyTorch's dispatcher entry ("at::_ops::addmm::call(...)"), "at::native::max_pool2d_kernel_impl"
/// for a PyTorch kernel function ("at::native::(anonymous namespace)::max_pool2d_kernel_impl"
/// with its cpu-capability namespace left out); empty for any other frame.
std::string OperatorOfFrame(const Frame& frame);

/// The framework operator a sample served: the leaf-nearest dispatcher frame (at::_ops::), else
/// the leaf-nearest kernel function (at::native::); empty when its stack has neither (a program
/// that calls oneDNN itself, or a stack cut short by frame pointers).
std::string OperatorOf(const std::vector<Frame>& frames);

/// A frame's name in stacks and flame graphs: the symbol without its argument list
/// ("dnnl::impl::cpu::x64::brgemm_inner_product_fwd_t<...>::execute_forward"), or the object's
/// name in brackets when perf found no symbol ("[libgomp.so.1]"); kernel frames end in "_[k]" and
/// JIT kernels in "_[j]", as flamegraph.pl and inferno expect, and frames found by stack scanning
/// in "_[s]" (dlcheck's own mark: drawn hatched).
std::string FrameName(const Frame& frame);

}  // namespace dlcheck::profile
