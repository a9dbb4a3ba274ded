// SPDX-License-Identifier: Apache-2.0
// The classes of CPU time, the owners of JIT kernels, and the flame graph's SVG and folded text.
#include "profile/classify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "profile/perf.h"
#include "profile/profile_report.h"
#include "support/test_files.h"

namespace dlcheck::profile {
namespace {

TEST(ClassifyTest, ClassesByObjectAndSymbol) {
  EXPECT_EQ(ClassOf({"jit_brgemm_kernel_t", "/tmp/perf-4411.map"}), CpuClass::kJit);
  EXPECT_EQ(ClassOf({"[unknown]", "/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0"}),
            CpuClass::kOpenMp);
  EXPECT_EQ(ClassOf({"dnnl::impl::cpu::ref_softmax_fwd_t::execute", "/usr/lib/libtorch_cpu.so"}),
            CpuClass::kOneDnn);  // oneDNN linked into a framework is still oneDNN
  EXPECT_EQ(ClassOf({"[unknown]", "/usr/lib/x86_64-linux-gnu/libdnnl.so.2.6"}), CpuClass::kOneDnn);
  EXPECT_EQ(ClassOf({"_PyEval_EvalFrameDefault", "/usr/bin/python3.11"}), CpuClass::kFramework);
  EXPECT_EQ(ClassOf({"clear_page_erms", "[kernel.kallsyms]"}), CpuClass::kKernel);
  EXPECT_EQ(ClassOf({"memcpy", "/usr/lib/x86_64-linux-gnu/libc.so.6"}), CpuClass::kOther);
}

TEST(ClassifyTest, BlasLibrariesAndBlasInsideFrameworksAreBlas) {
  // Debian's alternatives: the reference BLAS and OpenBLAS both as libblas.so.3.
  EXPECT_EQ(ClassOf({"sgemm_", "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3.11.0"}),
            CpuClass::kBlas);
  EXPECT_EQ(ClassOf({"[unknown]", "/usr/lib/x86_64-linux-gnu/openblas-pthread/libblas.so.3"}),
            CpuClass::kBlas);
  EXPECT_EQ(ClassOf({"sgemm_kernel_HASWELL", "/usr/lib/x86_64-linux-gnu/libopenblasp-r0.3.21.so"}),
            CpuClass::kBlas);
  EXPECT_EQ(ClassOf({"bli_sgemm_haswell_asm_6x16", "/usr/lib/x86_64-linux-gnu/libblis.so.4"}),
            CpuClass::kBlas);
  EXPECT_EQ(ClassOf({"[unknown]", "/opt/intel/oneapi/mkl/lib/libmkl_avx2.so.2"}), CpuClass::kBlas);
  // A BLAS linked into the framework is still BLAS; the framework's own gemm wrapper is not.
  EXPECT_EQ(ClassOf({"mkl_blas_avx2_sgemm_kernel_0", "/opt/torch/lib/libtorch_cpu.so"}),
            CpuClass::kBlas);
  EXPECT_EQ(ClassOf({"cblas_sgemm", "/opt/torch/lib/libtorch_cpu.so"}), CpuClass::kBlas);
  EXPECT_EQ(ClassOf({"dgemm_", "/opt/torch/lib/libtorch_cpu.so"}), CpuClass::kBlas);
  EXPECT_EQ(ClassOf({"at::native::cpublas::gemm(...)", "/opt/torch/lib/libtorch_cpu.so"}),
            CpuClass::kFramework);
  // oneDNN's own gemm stays oneDNN's, its JIT gemm kernels JIT.
  EXPECT_EQ(ClassOf({"dnnl_sgemm", "/usr/lib/x86_64-linux-gnu/libdnnl.so.2.6"}), CpuClass::kOneDnn);
  EXPECT_EQ(ClassOf({"jit_avx512_core_gemm_smalln_tn_f32_kern", "/tmp/perf-1.map"}),
            CpuClass::kJit);
  EXPECT_EQ(ClassName(CpuClass::kBlas), "blas");
  EXPECT_NE(ClassDescription(CpuClass::kBlas).find("BLAS"), std::string_view::npos);
}

TEST(ClassifyTest, OperatorsAreDispatcherEntriesElseKernelFunctions) {
  const std::string torch = "/usr/lib/x86_64-linux-gnu/libtorch_cpu.so.1.13.0";
  EXPECT_EQ(OperatorOfFrame({"at::_ops::addmm::call(at::Tensor const&, at::Tensor const&)", torch}),
            "aten::addmm");
  EXPECT_EQ(OperatorOfFrame({"at::_ops::convolution_backward::redispatch", torch}),
            "aten::convolution_backward");
  EXPECT_EQ(
      OperatorOfFrame({"at::native::(anonymous namespace)::max_pool2d_kernel_impl(int)", torch}),
      "at::native::max_pool2d_kernel_impl");
  EXPECT_EQ(
      OperatorOfFrame({"at::native::AVX2::(anonymous namespace)::cpu_kernel_vec<float>", torch}),
      "at::native::cpu_kernel_vec");
  EXPECT_EQ(OperatorOfFrame({"at::native::structured_addmm_out_cpu::impl", torch}),
            "at::native::structured_addmm_out_cpu");
  EXPECT_EQ(OperatorOfFrame({"dnnl_primitive_execute", "/usr/lib/libdnnl.so.2.6"}), "");
  EXPECT_EQ(OperatorOfFrame({"c10::Dispatcher::call", torch}), "");
  // Leaf first: the dispatcher entry nearest the leaf wins over kernel functions nearer still.
  const std::vector<Frame> stack = {{"sgemm_", "/usr/lib/libblas.so.3"},
                                    {"at::native::cpublas::gemm", torch},
                                    {"at::native::addmm_impl_cpu_", torch},
                                    {"at::_ops::addmm::call", torch},
                                    {"at::_ops::linear::call", torch}};
  EXPECT_EQ(OperatorOf(stack), "aten::addmm");
  EXPECT_EQ(OperatorOf({stack.begin(), stack.begin() + 3}), "at::native::cpublas");
  // A C++ program calling oneDNN itself has no operator.
  EXPECT_EQ(OperatorOf({{"jit_brgemm_kernel_t", "/tmp/perf-1.map"},
                        {"dnnl_primitive_execute", "/usr/lib/libdnnl.so.2.6"},
                        {"main", "/usr/bin/mlp"}}),
            "");
}

TEST(PerfCommandTest, CallGraphModeIsPassedToPerfRecord) {
  EXPECT_EQ(CallGraphArgument("dwarf"), "dwarf," + std::to_string(kDwarfStackBytes));
  EXPECT_EQ(CallGraphArgument("fp"), "fp");
  EXPECT_EQ(CallGraphArgument("lbr"), "lbr");
  PerfSettings s{.perf = "perf", .event = "cycles", .frequency = 999, .data_path = "p.data"};
  EXPECT_EQ(s.call_graph, kDefaultCallGraph);
  s.call_graph = "fp";
  const std::vector<std::string> argv = RecordCommand(s, false);
  const auto flag = std::find(argv.begin(), argv.end(), "--call-graph");
  ASSERT_NE(flag, argv.end());
  ASSERT_NE(flag + 1, argv.end());
  EXPECT_EQ(*(flag + 1), "fp");
  // Samples on the monotonic clock, which oneDNN's verbose timestamps are moved to (exec_join.h).
  const auto clock = std::find(argv.begin(), argv.end(), "--clockid");
  ASSERT_NE(clock, argv.end());
  ASSERT_NE(clock + 1, argv.end());
  EXPECT_EQ(*(clock + 1), "CLOCK_MONOTONIC");
}

TEST(ClassifyTest, KernelOwnersFromTheirNames) {
  EXPECT_EQ(OwnerOfKernel("jit_uni_reorder_kernel_f32").primitive, "reorder");
  EXPECT_EQ(OwnerOfKernel("jit_uni_kernel").primitive, "eltwise");
  EXPECT_EQ(OwnerOfKernel("jit_avx2_conv_fwd_kernel_f32").primitive, "convolution");
  EXPECT_EQ(OwnerOfKernel("jit_uni_pool_kernel").primitive, "pooling");
  const KernelOwner brgemm = OwnerOfKernel("jit_brgemm_kernel_t");
  EXPECT_EQ(brgemm.primitive, "");
  EXPECT_EQ(brgemm.implementation, "brgemm");
  EXPECT_EQ(OwnerOfKernel("jit_avx_gemm_f32_xbyak_gemm").implementation, "gemm");
  EXPECT_EQ(OwnerOfKernel("jit_t").primitive, "");  // oneDNN's spin barrier
  EXPECT_EQ(OwnerOfKernel("jit_t").implementation, "barrier");
  EXPECT_EQ(OwnerOfKernel("jit_something_new").implementation, "");
}

TEST(ClassifyTest, BrgemmKernelsGoToThePrimitivesThatRanBrgemm) {
  verbose::PrimitiveStats ip, relu, reorder;
  ip.primitive = "inner_product";
  ip.implementation = "brgemm:avx512_core";
  relu.primitive = "eltwise";
  relu.implementation = "jit:avx512_core";
  reorder.primitive = "reorder";
  reorder.implementation = "jit:uni";
  const std::vector<verbose::PrimitiveStats> rows = {ip, relu, reorder};
  EXPECT_EQ(AttributeKernel("jit_brgemm_kernel_t", rows), "inner_product");
  EXPECT_EQ(AttributeKernel("jit_avx_gemm_f32", rows), "");  // no gemm row ran
  EXPECT_EQ(ImplementationsOf("inner_product", rows), "brgemm:avx512_core");
  EXPECT_EQ(AttributeKernel("jit_t", rows), "(spin barrier)");
  verbose::PrimitiveStats softmax;
  softmax.primitive = "softmax_v2";
  EXPECT_EQ(AttributeKernel("jit_uni_softmax_kernel", {softmax}), "softmax_v2");
}

TEST(ClassifyTest, FrameNamesDropArgumentsAndMarkKernelAndJit) {
  EXPECT_EQ(FrameName({"dnnl::impl::f<int>(int, float) const", "/x/libdnnl.so"}),
            "dnnl::impl::f<int>");
  EXPECT_EQ(FrameName({"do_nanosleep", "[kernel.kallsyms]"}), "do_nanosleep_[k]");
  EXPECT_EQ(FrameName({"jit_brgemm_kernel_t", "/tmp/perf-7.map"}), "jit_brgemm_kernel_t_[j]");
  EXPECT_EQ(FrameName({"[unknown]", "/usr/lib/libgomp.so.1"}), "[libgomp.so.1]");
  EXPECT_EQ(FrameName({"a;b", "/x"}), "a:b");  // ';' separates folded frames
}

}  // namespace
}  // namespace dlcheck::profile

namespace dlcheck::profile {
namespace {

std::string ReadData(const std::string& name) {
  return dlcheck::testing::ReadFile(dlcheck::testing::DataPath("profile/" + name));
}

// perf's own verdict ("Error:" line) is the reason given, from its real stderr.
TEST(PerfMessagesTest, OffCpuReasonIsPerfsErrorLine) {
  EXPECT_EQ(FirstLine(ReadData("perf_stderr_tracefs_denied.txt")),
            "No permissions to read /sys/kernel/tracing/events/sched/sched_switch");
  EXPECT_EQ(FirstLine("  first\nsecond\n"), "first");
}

TEST(PerfMessagesTest, NotPermittedSaysTheValueAndTheSysctl) {
  EXPECT_EQ(NotPermittedMessage("Error:\tAccess to performance monitoring and observability "
                                "operations is limited.\n",
                                3, false),
            "perf may not record here (Access to performance monitoring and observability "
            "operations is limited.): kernel.perf_event_paranoid is 3 (only privileged users may "
            "use perf at all); run dlcheck as root, or allow sampling your own programs with "
            "'sudo sysctl kernel.perf_event_paranoid=2' (1 includes the kernel's stacks)");
  EXPECT_NE(NotPermittedMessage("", std::nullopt, true).find("could not be read"),
            std::string::npos);
}

// perf's warnings about fields it ignores come before its reason: the reason is given.
TEST(PerfMessagesTest, WarningsAboutIgnoredFieldsAreNotTheReason) {
  EXPECT_EQ(FirstLine(ReadData("perf_script_stderr_empty.txt")),
            "zero-sized data (empty.data), nothing to do!");
  EXPECT_EQ(FirstLine("'trace' not valid for hardware events. Ignoring.\n"), "");
}

// Each event type is asked only for fields it has: every field list names its type, and the
// `trace` field (tracepoints only) is in the trace list alone.
TEST(PerfCommandTest, ScriptFieldsAreAskedPerEventType) {
  const std::vector<std::string> argv =
      ScriptCommand({.perf = "perf", .event = "cycles", .frequency = 999, .data_path = "p.data"});
  std::vector<std::string> types;
  for (std::size_t i = 0; i + 1 < argv.size(); ++i) {
    if (argv[i] != "--fields") continue;
    const std::string& list = argv[i + 1];
    const std::string type = list.substr(0, list.find(':'));
    ASSERT_NE(list.find(':'), std::string::npos) << list;
    types.push_back(type);
    EXPECT_EQ(list.find("trace", type.size()) != std::string::npos, type == "trace") << list;
  }
  EXPECT_EQ(types, (std::vector<std::string>{"hw", "sw", "raw", "trace"}));
  EXPECT_EQ(argv[1], "script");
}

}  // namespace
}  // namespace dlcheck::profile
