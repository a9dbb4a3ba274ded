// SPDX-License-Identifier: Apache-2.0
#include "verbose/line_parser.h"

#include <gtest/gtest.h>

#include "common/primitive_kinds.h"
#include "verbose/fixture_lines.h"

namespace dlcheck::verbose {
namespace {

using testing::FixtureLine;

struct Parsed {
  ParseResult result;
  VerboseEvent event;
};

Parsed ParseOne(LineParser& parser, const std::string& line) {
  Parsed p;
  p.result = parser.Parse(line, p.event);
  return p;
}

Parsed ParseOne(const std::string& line) {
  LineParser parser;
  return ParseOne(parser, line);
}

TEST(LineParserTest, EraA_Mkldnn0WithoutEngine) {
  // source: tensorflow/serving#1272
  const Parsed p = ParseOne(
      FixtureLine("real_lines.txt",
                  "mkldnn_verbose,exec,convolution,jit:avx2,forward_training,fsrc:nChw8c "
                  "fwei:OIhw8i8o fbia:undef fdst:nChw8c,alg:convolution_direct,mb1_g1ic256"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  const VerboseEvent& e = p.event;
  EXPECT_EQ(e.era, Era::kMkldnn0);
  EXPECT_EQ(e.operation, Operation::kExec);
  EXPECT_EQ(e.engine, "cpu");
  EXPECT_EQ(e.primitive, "convolution");
  EXPECT_EQ(e.implementation, "jit:avx2");
  EXPECT_EQ(e.isa, "avx2");
  EXPECT_FALSE(e.isa_inferred);
  EXPECT_EQ(e.impl_class, ImplClass::kJit);
  EXPECT_EQ(e.prop_kind, "forward_training");
  EXPECT_EQ(e.memory_descriptors, "fsrc:nChw8c fwei:OIhw8i8o fbia:undef fdst:nChw8c");
  EXPECT_EQ(e.attributes, "");
  EXPECT_EQ(e.auxiliary, "alg:convolution_direct");
  EXPECT_EQ(e.problem, "mb1_g1ic256oc256_ih14oh14kh3sh1dh0ph1_iw14ow14kw3sw1dw0pw1");
  ASSERT_TRUE(e.time_ms);
  EXPECT_DOUBLE_EQ(*e.time_ms, 3.59302);
  EXPECT_FALSE(e.timestamp);
}

TEST(LineParserTest, EraA_CreateLineHasNoCacheState) {
  // source: PaddlePaddle/Paddle#14608
  const Parsed p = ParseOne(FixtureLine("real_lines.txt", "mkldnn_verbose,create,reorder,jit:uni"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.operation, Operation::kCreate);
  EXPECT_EQ(p.event.cache_state, "");
  EXPECT_EQ(p.event.primitive, "reorder");
  EXPECT_EQ(p.event.memory_descriptors, "in:f32_nchw out:f32_Ohwi8o");
  EXPECT_EQ(p.event.auxiliary, "num:1");
  EXPECT_EQ(p.event.problem, "64x3x7x7");
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.136963);
}

TEST(LineParserTest, EraB_Mkldnn1GluedToTestOutput) {
  // source: apache/mxnet#16184 (marker not at column 0, engine field, no attributes)
  LineParser parser;
  VerboseEvent e;
  const std::string line = FixtureLine("real_lines.txt", "test_large_array_mkldnn.test_pooling");
  ASSERT_EQ(parser.Parse(line, e).kind, LineKind::kEvent);
  EXPECT_EQ(e.era, Era::kMkldnn1);
  EXPECT_EQ(e.engine, "cpu");
  EXPECT_EQ(e.primitive, "pooling");
  EXPECT_EQ(e.implementation, "simple_nchw:any");
  EXPECT_EQ(e.impl_class, ImplClass::kScalar);
  EXPECT_EQ(e.isa, "");
  EXPECT_EQ(e.prop_kind, "forward_inference");
  EXPECT_EQ(e.memory_descriptors,
            "src_f32::blocked:abcd:f0 dst_f32::blocked:abcd:f0 ws_undef::undef::f0");
  EXPECT_EQ(e.attributes, "");
  EXPECT_EQ(e.auxiliary, "alg:pooling_avg_include_padding");
  EXPECT_EQ(e.problem, "mb10000ic200_ih43oh39kh5sh1ph0_iw43ow39kw5sw1pw0");
  EXPECT_DOUBLE_EQ(*e.time_ms, 3277.87);
}

TEST(LineParserTest, EraB_InfoLinesFillTheHeader) {
  LineParser parser;
  VerboseEvent e;
  EXPECT_EQ(
      parser.Parse(FixtureLine("real_lines.txt", "test_FullyConnected ... mkldnn_verbose,info"), e)
          .kind,
      LineKind::kInfo);
  EXPECT_EQ(parser.Parse(FixtureLine("real_lines.txt", "mkldnn_verbose,info,Detected ISA"), e).kind,
            LineKind::kInfo);
  EXPECT_EQ(parser.header().library_version,
            "Intel MKL-DNN v1.0.4 (commit a0a87d662edeef38d01db4ac5dd25f59a1f0881f)");
  EXPECT_EQ(parser.header().isa, "Intel AVX-512 with AVX512BW, AVX512VL, and AVX512DQ extensions");
  EXPECT_EQ(parser.header().isa_short, "avx512_core");
  // gemm:jit has no ISA in its name: it is inferred from the header.
  ASSERT_EQ(parser.Parse(FixtureLine("real_lines.txt", "mb100000000ic43oc43"), e).kind,
            LineKind::kEvent);
  EXPECT_EQ(e.implementation, "gemm:jit");
  EXPECT_EQ(e.impl_class, ImplClass::kGemm);
  EXPECT_EQ(e.isa, "avx512_core");
  EXPECT_TRUE(e.isa_inferred);
}

TEST(LineParserTest, EraC_DnnlCacheMissWithUndefBias) {
  // source: uxlfoundation/oneDNN#832
  const Parsed p =
      ParseOne(FixtureLine("real_lines.txt", "dnnl_verbose,create:cache_miss,cpu,convolution"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  const VerboseEvent& e = p.event;
  EXPECT_EQ(e.era, Era::kDnnl);
  EXPECT_EQ(e.operation, Operation::kCreate);
  EXPECT_EQ(e.cache_state, "cache_miss");
  EXPECT_EQ(e.engine, "cpu");
  EXPECT_EQ(e.implementation, "jit:avx512_common");
  EXPECT_EQ(e.isa, "avx512_common");
  EXPECT_EQ(e.prop_kind, "forward_inference");
  EXPECT_EQ(e.memory_descriptors,
            "src_f32::blocked:abcd:f0 wei_f32::blocked:Acdb16a:f0 bia_undef::undef::f0 "
            "dst_f32::blocked:aBcd16b:f0");
  EXPECT_EQ(e.attributes, "");
  EXPECT_EQ(e.auxiliary, "alg:convolution_direct");
  EXPECT_EQ(e.problem, "mb1_ic3oc64_ih224oh112kh7sh2dh0ph3_iw224ow112kw7sw2dw0pw3");
  EXPECT_DOUBLE_EQ(*e.time_ms, 0.573975);
}

TEST(LineParserTest, EraC_OldAttributeSyntax) {
  // source: uxlfoundation/oneDNN#1074
  const Parsed p = ParseOne(FixtureLine("real_lines.txt", "post_ops:'eltwise_bounded_relu:6;';"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.primitive, "matmul");
  EXPECT_EQ(p.event.implementation, "ref:any");
  EXPECT_EQ(p.event.impl_class, ImplClass::kScalar);
  EXPECT_EQ(p.event.attributes, "post_ops:'eltwise_bounded_relu:6;';");
  EXPECT_EQ(p.event.auxiliary, "");
  EXPECT_EQ(p.event.problem, "15x41:41x19:15x19");
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.253906);
}

TEST(LineParserTest, EraC_MultiEngineIndexAndTemplate) {
  // source: uxlfoundation/oneDNN#1196 (DPC++ build, engine cpu:0, prim_template header)
  LineParser parser;
  VerboseEvent e;
  EXPECT_EQ(parser.Parse(FixtureLine("real_lines.txt", "dnnl_verbose,info,prim_template:"), e).kind,
            LineKind::kInfo);
  EXPECT_TRUE(parser.has_template());
  ASSERT_EQ(
      parser.Parse(FixtureLine("real_lines.txt", "brdgmm_dw:avx512_core,forward_inference"), e)
          .kind,
      LineKind::kEvent);
  EXPECT_EQ(e.engine, "cpu:0");
  EXPECT_EQ(e.implementation, "brdgmm_dw:avx512_core");
  EXPECT_EQ(e.problem, "g32mb32_ic32oc32_ih112oh112kh3sh1dh0ph1_iw112ow112kw3sw1dw0pw1");
  EXPECT_DOUBLE_EQ(*e.time_ms, 2.27905);
}

TEST(LineParserTest, EraD_Generated263WithHeader) {
  LineParser parser;
  VerboseEvent e;
  for (const char* needle : {"onednn_verbose,info,oneDNN v2.6.3", "info,cpu,runtime:OpenMP,nthr:2",
                             "isa:Intel AVX-512 with Intel DL Boost and bfloat16 support",
                             "info,prim_template:operation"}) {
    EXPECT_EQ(parser.Parse(FixtureLine("generated_2.6.3.txt", needle), e).kind, LineKind::kInfo);
  }
  EXPECT_EQ(parser.header().library_version, "oneDNN v2.6.3 (commit N/A)");
  EXPECT_EQ(parser.header().runtime, "OpenMP");
  EXPECT_EQ(parser.header().threads, 2);
  EXPECT_EQ(parser.header().isa_short, "avx512_core_bf16");
  ASSERT_EQ(parser
                .Parse(FixtureLine("generated_2.6.3.txt",
                                   "create:cache_miss,cpu,convolution,jit_int8:avx512_core_vnni"),
                       e)
                .kind,
            LineKind::kEvent);
  EXPECT_EQ(e.era, Era::kOnednn);
  EXPECT_EQ(e.operation, Operation::kCreate);
  EXPECT_EQ(e.cache_state, "cache_miss");
  EXPECT_EQ(e.isa, "avx512_core_vnni");
  EXPECT_EQ(e.memory_descriptors,
            "src_u8::blocked:acdb:f0 wei_s8::blocked:ABcd4b16a4b:f8:zpm1 bia_undef::undef::f0 "
            "dst_s8::blocked:acdb:f0");
  EXPECT_EQ(e.attributes, "attr-oscale:0:0.500000 attr-zero-points:src:0:*");  // trailing blank cut
  EXPECT_EQ(e.problem, "mb1_ic16oc16_ih14oh14kh3sh1dh0ph1_iw14ow14kw3sw1dw0pw1");
  EXPECT_DOUBLE_EQ(*e.time_ms, 0.12793);
}

TEST(LineParserTest, EraD_TimestampBeforeOperation) {
  // source: uxlfoundation/oneDNN#1393
  const Parsed p =
      ParseOne(FixtureLine("real_lines.txt", "onednn_verbose,1654764777997.605957,exec"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.era, Era::kOnednn);
  ASSERT_TRUE(p.event.timestamp);
  EXPECT_DOUBLE_EQ(*p.event.timestamp, 1654764777997.605957);
  EXPECT_EQ(p.event.operation, Operation::kExec);
  EXPECT_EQ(p.event.implementation, "brgemm:avx512_core");
  EXPECT_EQ(p.event.problem, "mb200ic128oc64");
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.0400391);
}

TEST(LineParserTest, EraD_GemmApi27HasNoAuxiliaryField) {
  // source: uxlfoundation/oneDNN#1442
  const Parsed p = ParseOne(FixtureLine("real_lines.txt", "onednn_verbose,exec,cpu,gemm_api"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.primitive, "gemm_api");
  EXPECT_EQ(p.event.implementation, "");
  EXPECT_EQ(p.event.auxiliary, "");
  EXPECT_EQ(p.event.problem, "1x512:512x512");
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.359131);
}

TEST(LineParserTest, EraE_ComponentFieldAndTrailingBlankInAttributes) {
  // source: uxlfoundation/oneDNN#1847
  const Parsed p =
      ParseOne(FixtureLine("real_lines.txt", "onednn_verbose,primitive,exec,cpu,binary"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.era, Era::kOnednnComponent);
  EXPECT_EQ(p.event.component, "primitive");
  EXPECT_EQ(p.event.primitive, "binary");
  EXPECT_EQ(p.event.implementation, "jit:uni");
  EXPECT_EQ(p.event.attributes, "attr-post-ops:eltwise_hardswish:0.166667:0.5");
  EXPECT_EQ(p.event.auxiliary, "alg:binary_add");
  EXPECT_EQ(p.event.problem, "1x32x56x96:1x32x56x96");
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.24);
}

TEST(LineParserTest, EraE_CheckDiagnosticsWithWindowsPaths) {
  // source: uxlfoundation/oneDNN#1845
  Parsed p = ParseOne(FixtureLine("real_lines.txt", "create:check,convolution"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.operation, Operation::kDiagnostic);
  EXPECT_EQ(p.event.operation_text, "create:check");
  EXPECT_EQ(p.event.primitive, "convolution");
  EXPECT_EQ(p.event.message, "tensor weights has no elements,src\\common\\convolution.cpp:96");
  p = ParseOne(FixtureLine("real_lines.txt",
                           "exec:check,primitive,unused primitive execution argument (4113)"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.operation_text, "exec:check");
  EXPECT_EQ(p.event.message,
            "unused primitive execution argument (4113),src\\common\\primitive_exec_types.cpp:74");
  EXPECT_FALSE(p.event.time_ms);
}

TEST(LineParserTest, EraF_V1MatmulBf16) {
  // source: uxlfoundation/oneDNN#5511
  const Parsed p = ParseOne(FixtureLine("real_lines.txt", "brg_matmul:avx512_core_bf16"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  const VerboseEvent& e = p.event;
  EXPECT_EQ(e.era, Era::kOnednnV1);
  EXPECT_EQ(e.format_version, 1);
  EXPECT_EQ(e.component, "primitive");
  EXPECT_EQ(e.engine, "cpu");
  EXPECT_EQ(e.primitive, "matmul");
  EXPECT_EQ(e.isa, "avx512_core_bf16");
  EXPECT_EQ(e.prop_kind, "undef");
  EXPECT_EQ(e.memory_descriptors,
            "src:bf16::blocked:ab::f0 wei:bf16::blocked:BA16a64b2a::f0 dst:bf16::blocked:ab::f0");
  EXPECT_EQ(e.attributes, "attr-scratchpad:user");
  EXPECT_EQ(e.problem, "1x5120:5120x5120");
  EXPECT_DOUBLE_EQ(*e.time_ms, 0.151123);
}

TEST(LineParserTest, EraF_TimestampAfterVersionToken) {
  const Parsed p =
      ParseOne(FixtureLine("formats_3.13.1.txt", "onednn_verbose,v1,1795312886954.178955"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.era, Era::kOnednnV1);
  EXPECT_DOUBLE_EQ(*p.event.timestamp, 1795312886954.178955);
  EXPECT_EQ(p.event.primitive, "reorder");
  EXPECT_EQ(p.event.implementation, "jit:blk");
  EXPECT_EQ(p.event.problem, "2x16x7x7");
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.194092);
}

TEST(LineParserTest, EraF_CompositeDeconvolutionName) {
  const Parsed p =
      ParseOne(FixtureLine("formats_3.13.1.txt", "brg_deconv:avx2+brgconv_strided:avx2"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.isa, "avx2");
  EXPECT_EQ(p.event.impl_class, ImplClass::kJit);
  EXPECT_EQ(p.event.memory_descriptors,
            "src:f32:a:blocked:acdb::f0 wei:f32:a:blocked:Acdb8a::f0 bia:undef::undef::: "
            "dst:f32:a:blocked:acdb::f0");
}

TEST(LineParserTest, EraF_DispatchLongFormNamesTheSkippedImplementation) {
  // source: unslothai/unsloth#3292 (6 leading blanks)
  const Parsed p = ParseOne(FixtureLine("real_lines.txt", "create:dispatch,gemm,gpu,gemm"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.operation, Operation::kDiagnostic);
  EXPECT_EQ(p.event.operation_text, "create:dispatch");
  EXPECT_EQ(p.event.engine, "gpu");
  EXPECT_EQ(p.event.primitive, "gemm");
  EXPECT_EQ(p.event.implementation, "jit:xe_hp:gemm:any");
  EXPECT_EQ(p.event.problem, "22x8192:8192x2048");
  EXPECT_EQ(p.event.message,
            "skipping or dispatching to another implementation,"
            "src/gpu/intel/jit/gemm/xe_hp_systolic_gemm.cpp:86");
}

TEST(LineParserTest, EraF_DispatchShortFormKeepsCommasOfTheMessage) {
  const Parsed p = ParseOne(FixtureLine("formats_3.13.1.txt", "padding: f,t,l padding"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.primitive, "convolution");
  EXPECT_EQ(p.event.message,
            "unsupported feature for padding: f,t,l padding not supported,"
            "src/cpu/x64/jit_avx2_1x1_conv_kernel_f32.cpp:829");
}

TEST(LineParserTest, EraF_AclAndExternalKernelLines) {
  // source: uxlfoundation/oneDNN#2804 and #5311
  Parsed p = ParseOne(FixtureLine("real_lines.txt", "onednn_verbose,v1,cpu,acl,unsupported"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.operation, Operation::kDiagnostic);
  EXPECT_EQ(p.event.operation_text, "acl");
  EXPECT_EQ(p.event.message,
            "unsupported: Only Ab4a/Ab8a, BA8b4a/BA4b4a and Acdb8a/Acdb4a destination formats "
            "supported");
  p = ParseOne(FixtureLine("real_lines.txt", "sve_ffhybrid_fp16_mla_6x4VL"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.operation, Operation::kExec);
  EXPECT_EQ(p.event.primitive, "external");
  EXPECT_EQ(p.event.implementation, "CpuGemmAssemblyWrapperKernel/sve_ffhybrid_fp16_mla_6x4VL");
  EXPECT_EQ(p.event.impl_class, ImplClass::kAcl);
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.00610352);
}

TEST(LineParserTest, CreateStartCarriesTheDescriptorWithoutTime) {
  // source: uxlfoundation/oneDNN#5089 (dev build, proposed on-entry event)
  const Parsed p = ParseOne(FixtureLine("real_lines.txt", "create:start,cpu,inner_product"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.operation, Operation::kDiagnostic);
  EXPECT_EQ(p.event.operation_text, "create:start");
  EXPECT_EQ(p.event.primitive, "inner_product");
  EXPECT_EQ(p.event.implementation, "brg_matmul:avx2");
  EXPECT_EQ(p.event.problem, "mb2ic1oc1");
  EXPECT_EQ(p.event.message, "");
}

TEST(LineParserTest, ProseMentioningTheMarkerIsNotAnEvent) {
  // The provenance comments of real_lines.txt quote markers in prose.
  EXPECT_EQ(ParseOne("# source: x (oneDNN 3.3-3.5 'onednn_verbose,primitive,...'; trailing space)")
                .result.reason,
            SkipReason::kUnknownOperation);
  EXPECT_EQ(ParseOne("# source: y (oneDNN v1.6, dnnl_verbose, create:cache_miss)").result.reason,
            SkipReason::kForeign);
}

TEST(LineParserTest, GpuLineWithoutTimeIsAnExecWithoutTime) {
  // source: uxlfoundation/oneDNN#3205
  const Parsed p = ParseOne(FixtureLine("real_lines.txt", "msk:causal:bottom_right"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.engine, "gpu:0");
  EXPECT_EQ(p.event.primitive, "sdpa");
  EXPECT_EQ(p.event.problem, "1x2x384x128:1x2x128x384:1x2x384x128");
  EXPECT_FALSE(p.event.time_ms);
}

TEST(LineParserTest, DecimalCommaOfANonCLocale) {
  // source: uxlfoundation/oneDNN#406: "1,432" is 1.432 ms
  const Parsed p = ParseOne(FixtureLine("real_lines.txt", "48x192x16x16,1,432"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.problem, "48x192x16x16");
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 1.432);
}

TEST(LineParserTest, MarkdownBoldAndTrailingFullStopAroundTheTime) {
  // source: PaddlePaddle/Paddle#17268 and uxlfoundation/oneDNN#1758
  Parsed p = ParseOne(FixtureLine("real_lines.txt", "**15.856**"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 15.856);
  p = ParseOne(FixtureLine("real_lines.txt", "softmax_v2,ref:any"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.141846);
}

TEST(LineParserTest, LookAlikeFormatsAreForeign) {
  // source: apache/mxnet#11049 (MKL_VERBOSE) and openvinotoolkit/openvino#6390 (ov_cpu_verbose)
  for (const char* needle : {"MKL_VERBOSE SGEMM", "ov_cpu_verbose,exec"}) {
    const Parsed p = ParseOne(FixtureLine("real_lines.txt", needle));
    EXPECT_EQ(p.result.kind, LineKind::kSkipped) << needle;
    EXPECT_EQ(p.result.reason, SkipReason::kForeign) << needle;
  }
  EXPECT_EQ(ParseOne("xonednn_verbose,exec,cpu,reorder").result.reason, SkipReason::kForeign);
  EXPECT_EQ(ParseOne("onedal_verbose,exec,cpu").result.reason, SkipReason::kForeign);
}

TEST(LineParserTest, GraphExecLineIsAPartitionEvent) {
  // source: uxlfoundation/oneDNN RFC "Unify Primitive and Graph API Verbose" (3.3 format)
  const Parsed p = ParseOne(FixtureLine("graph_lines.txt", "onednn_verbose,graph,exec,cpu,100006"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  const VerboseEvent& e = p.event;
  EXPECT_EQ(e.operation, Operation::kExec);
  EXPECT_EQ(e.component, "graph");
  EXPECT_EQ(e.era, Era::kOnednnComponent);
  EXPECT_EQ(e.engine, "cpu");
  EXPECT_EQ(e.primitive, "convolution_post_ops");
  EXPECT_EQ(e.implementation, "dnnl_backend");
  EXPECT_EQ(e.problem, "partition:100006");
  ASSERT_TRUE(e.layer);
  EXPECT_EQ(*e.layer, "CONV_0;ELTWISE_1");
  EXPECT_EQ(e.auxiliary, "data:NCX; filter:OIX;;");
  EXPECT_EQ(e.attributes, "fpm:strict");
  EXPECT_TRUE(e.memory_descriptors.starts_with("in0_f32:0:strided:undef:2x32x112x112"));
  ASSERT_TRUE(e.time_ms);
  EXPECT_DOUBLE_EQ(*e.time_ms, 5.44092);
}

TEST(LineParserTest, GraphCompileLineIsACreateOfThePartition) {
  // source: uxlfoundation/oneDNN RFC "Unify Primitive and Graph API Verbose" (3.2 graph verbose)
  LineParser parser;
  const Parsed c = ParseOne(parser, FixtureLine("graph_lines.txt", "onednn_graph_verbose,compile"));
  ASSERT_EQ(c.result.kind, LineKind::kEvent);
  EXPECT_EQ(c.event.era, Era::kOnednnGraph);
  EXPECT_EQ(c.event.operation, Operation::kCreate);
  EXPECT_EQ(c.event.cache_state, "cache_miss");
  EXPECT_FALSE(c.event.IsCacheHit());
  EXPECT_EQ(c.event.primitive, "convolution_post_ops");
  EXPECT_EQ(*c.event.layer, "CONV_0;BINARY_1");
  EXPECT_DOUBLE_EQ(*c.event.time_ms, 66.7661);
  const Parsed x = ParseOne(parser, FixtureLine("graph_lines.txt", "onednn_graph_verbose,exec"));
  ASSERT_EQ(x.result.kind, LineKind::kEvent);
  EXPECT_EQ(x.event.operation, Operation::kExec);
  // The same partition: every field of the row's key agrees.
  EXPECT_EQ(x.event.problem, c.event.problem);
  EXPECT_EQ(x.event.memory_descriptors, c.event.memory_descriptors);
  EXPECT_EQ(x.event.implementation, c.event.implementation);
}

TEST(LineParserTest, GraphVerboseHeaderLinesFillTheHeader) {
  // source: uxlfoundation/oneDNN RFC "Unify Primitive and Graph API Verbose" (3.2 graph verbose)
  LineParser parser;
  VerboseEvent e;
  for (const char* needle :
       {"onednn_graph_verbose,info,oneDNN", "onednn_graph_verbose,info,cpu,isa"}) {
    EXPECT_EQ(parser.Parse(FixtureLine("graph_lines.txt", needle), e).kind, LineKind::kInfo);
  }
  EXPECT_EQ(parser.header().library_version,
            "oneDNN v3.2.0 (commit ce0e4a11be3fa932bdc24f67dceff4df134d0207)");
  EXPECT_EQ(parser.header().isa, "Intel AVX-512 with Intel DL Boost");
}

TEST(LineParserTest, InternalGraphExecutableLine) {
  // source: uxlfoundation/oneDNN#4849
  const Parsed p = ParseOne(FixtureLine("graph_lines.txt", "onednn_verbose,v1,graph,exec"));
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.engine, "gpu");
  EXPECT_EQ(p.event.primitive, "_gen_index(_gen_index)");
  EXPECT_EQ(p.event.problem, "partition:18446744073709551615");
  EXPECT_TRUE(p.event.memory_descriptors.starts_with("attrs:{axis:2},inputs:{f32:102"));
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.193115);
}

TEST(LineParserTest, GraphDispatchAndCheckLinesAreDiagnostics) {
  // source: uxlfoundation/oneDNN#5510 and #2273
  for (const char* needle : {"graph,create:dispatch,pattern_matcher",
                             "graph,create:dispatch,compile", "graph,create:check"}) {
    const Parsed p = ParseOne(FixtureLine("graph_lines.txt", needle));
    ASSERT_EQ(p.result.kind, LineKind::kEvent) << needle;
    EXPECT_EQ(p.event.operation, Operation::kDiagnostic) << needle;
    EXPECT_EQ(p.event.component, "graph") << needle;
  }
  const Parsed m = ParseOne(FixtureLine("graph_lines.txt", "op:Add (mask_add)"));
  EXPECT_EQ(m.event.operation_text, "create:dispatch");
  EXPECT_EQ(m.event.primitive, "pattern_matcher");
  EXPECT_TRUE(m.event.message.starts_with("op:Add (mask_add),node:DynamicDequantize0,"));
}

TEST(LineParserTest, OtherGraphLinesAreSkippedAsGraph) {
  // source: uxlfoundation/oneDNN#3822 and the RFC "Unify Primitive and Graph API Verbose"
  EXPECT_EQ(ParseOne(FixtureLine("graph_lines.txt", "graph,info,pattern")).result.kind,
            LineKind::kInfo);
  // An operation the graph component has no partition or diagnostic for.
  const Parsed p = ParseOne(FixtureLine("graph_lines.txt", "graph,graph:check"));
  EXPECT_EQ(p.result.kind, LineKind::kSkipped);
  EXPECT_EQ(p.result.reason, SkipReason::kGraph);
}

TEST(LineParserTest, TemplateLinePlacesTheFields) {
  LineParser parser;
  VerboseEvent e;
  // A template that lists the time before the problem: positions follow it.
  ASSERT_EQ(parser
                .Parse("onednn_verbose,info,prim_template:operation,engine,primitive,"
                       "implementation,prop_kind,memory_descriptors,attributes,auxiliary,"
                       "exec_time,problem_desc",
                       e)
                .kind,
            LineKind::kInfo);
  ASSERT_EQ(parser
                .Parse("onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
                       "dst_f32::blocked:ba:f0,,,0.5,8x8",
                       e)
                .kind,
            LineKind::kEvent);
  EXPECT_EQ(e.problem, "8x8");
  EXPECT_DOUBLE_EQ(*e.time_ms, 0.5);
}

TEST(LineParserTest, V1LineWithMoreFieldsThanItsTemplateIsSkipped) {
  LineParser parser;
  VerboseEvent e;
  parser.Parse(
      "onednn_verbose,v1,primitive,info,template:operation,engine,primitive,"
      "implementation,prop_kind,memory_descriptors,attributes,auxiliary,problem_desc,"
      "exec_time",
      e);
  const ParseResult r = parser.Parse(
      "onednn_verbose,v1,primitive,exec,cpu,reorder,jit:uni,undef,src:f32::blocked:ab::f0 "
      "dst:f32::blocked:ab::f0,,,extra,257x768,0.0368652",
      e);
  EXPECT_EQ(r.kind, LineKind::kSkipped);
  EXPECT_EQ(r.reason, SkipReason::kFieldCount);
  const ParseResult short_line =
      parser.Parse("onednn_verbose,v1,primitive,exec,cpu,reorder,jit:uni,undef", e);
  EXPECT_EQ(short_line.reason, SkipReason::kTruncated);
}

TEST(LineParserTest, NanNegativeAndTextTimesAreBadTime) {
  // 1e308 and anything above 10^12 ms (31 years): their sums would not be finite (issue 51).
  for (const char* time : {"nan", "-0.5", "inf", "abc", "", "1e308", "1.0000001e12"}) {
    const Parsed p = ParseOne(std::string("onednn_verbose,exec,cpu,reorder,jit:uni,undef,"
                                          "src_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,8x8,") +
                              time);
    EXPECT_EQ(p.result.kind, LineKind::kSkipped) << time;
    EXPECT_EQ(p.result.reason, SkipReason::kBadTime) << time;
  }
}

// The longest time a line may give is 10^12 ms; a timestamp above 10^15 ms is no timestamp.
TEST(LineParserTest, TimesUpToTheBoundAreRead) {
  const Parsed p = ParseOne(
      "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
      "dst_f32::blocked:ab:f0,,,8x8,1e12");
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 1e12);
  const Parsed stamped = ParseOne(
      "onednn_verbose,1" + std::string(300, '0') +
      ".5,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,8x8,0.5");
  ASSERT_EQ(stamped.result.kind, LineKind::kEvent);
  EXPECT_FALSE(stamped.event.timestamp);
}

TEST(LineParserTest, CrLfAndBlankLines) {
  const Parsed p = ParseOne(
      "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
      "dst_f32::blocked:ab:f0,,,8x8,0.25\r");
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.25);
  EXPECT_EQ(ParseOne("   \r").result.kind, LineKind::kBlank);
  EXPECT_EQ(ParseOne("").result.kind, LineKind::kBlank);
}

TEST(JoiningParserTest, RejoinsALineHardWrappedByTheTerminal) {
  // source: pytorch/pytorch#150514 (wrapped at ~125 columns)
  std::vector<std::pair<ParseResult, std::string>> seen;
  JoiningParser parser([&](const ParseResult& r, const VerboseEvent& e, std::uint64_t line) {
    seen.emplace_back(r, r.kind == LineKind::kEvent ? e.problem + "@" + std::to_string(line) : "");
  });
  const auto lines = testing::FixtureLines("real_lines.txt");
  std::size_t start = 0;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("pytorch/pytorch#150514") != std::string::npos) start = i + 1;
  }
  ASSERT_GT(start, 0u);
  for (std::size_t i = start; i < start + 10; ++i) parser.Feed(lines[i], i + 1);
  parser.Finish();
  std::vector<std::string> events;
  for (const auto& [r, text] : seen) {
    if (r.kind == LineKind::kEvent) events.push_back(text);
  }
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0], "16x256x512x512@" + std::to_string(start + 8));
}

TEST(JoiningParserTest, TruncatedLastLineIsCountedAndNeighboursKept) {
  std::vector<ParseResult> results;
  JoiningParser parser(
      [&](const ParseResult& r, const VerboseEvent&, std::uint64_t) { results.push_back(r); });
  const std::string good =
      "onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0 "
      "dst_f32::blocked:ab:f0,,,8x8,0.25";
  parser.Feed(good, 1);
  parser.Feed("onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blo", 2);
  parser.Feed(good, 3);  // a marker line: the held line is not joined with it
  parser.Feed("onednn_verbose,exec,cpu,convolution,jit", 4);
  parser.Finish();
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].kind, LineKind::kEvent);
  EXPECT_EQ(results[1].reason, SkipReason::kTruncated);
  EXPECT_EQ(results[2].kind, LineKind::kEvent);
  EXPECT_EQ(results[3].reason, SkipReason::kTruncated);
}

// ZenDNN's three generations (tests/data/engines, their sources in its README).
TEST(LineParserTest, ZendnnVerboseIsOneDnn2xShapedAndKeepsItsOwnVersion) {
  LineParser parser;
  VerboseEvent e;
  EXPECT_EQ(parser.Parse("zendnn_verbose,info,ZENDNN v5.0.0 (commit 3a1b2c4)", e).kind,
            LineKind::kInfo);
  EXPECT_EQ(parser.Parse("onednn_verbose,info,oneDNN v2.6.3 (commit N/A)", e).kind,
            LineKind::kInfo);
  EXPECT_EQ(parser.header().zendnn_version, "ZENDNN v5.0.0 (commit 3a1b2c4)");
  EXPECT_EQ(parser.header().library_version, "oneDNN v2.6.3 (commit N/A)");
  const Parsed p = ParseOne(
      parser,
      "zendnn_verbose,exec,cpu,inner_product,gemm:jit,forward_inference,src_f32::blocked:ab:f0 "
      "wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,mb16ic1024oc256,0.125");
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.era, Era::kZendnn);
  EXPECT_EQ(LibraryOf(p.event.era), Library::kZenDnn);
  EXPECT_EQ(p.event.primitive, "inner_product");
  EXPECT_EQ(p.event.problem, "mb16ic1024oc256");
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.125);
}

TEST(LineParserTest, ZendnnPluginLinesWithPluginOpAndCounters) {
  const Parsed p = ParseOne(
      "[PROF:I][0.118000] zendnn_primitive_execute,cpu,plugin_op:zentorch::zentorch_mm,matmul,"
      "ref:any,undef,src_f32::blocked:ab:f0 wei_f32::blocked:ab:f0 dst_f32::blocked:ab:f0,,,"
      "8x64:64x8:8x8,0.75,ms;IPC:1.2;LLC_MISS_RATE:0.03");
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  EXPECT_EQ(p.event.era, Era::kZendnnPrimitive);
  EXPECT_EQ(p.event.operation, Operation::kExec);
  EXPECT_EQ(p.event.engine, "cpu");
  EXPECT_EQ(p.event.layer, "zentorch::zentorch_mm");
  EXPECT_EQ(p.event.primitive, "matmul");
  EXPECT_EQ(p.event.impl_class, ImplClass::kScalar);
  EXPECT_EQ(p.event.problem, "8x64:64x8:8x8");
  EXPECT_DOUBLE_EQ(*p.event.time_ms, 0.75);
  const Parsed create = ParseOne(
      "[PROF:I][0.1] zendnn_primitive_create,cache_hit,cpu,convolution,jit:avx512_core,"
      "forward_inference,src_f32::blocked:aBcd16b:f0,,alg:convolution_direct,mb1_ic64oc64,1.5,ms");
  ASSERT_EQ(create.result.kind, LineKind::kEvent);
  EXPECT_TRUE(create.event.IsCacheHit());
  EXPECT_EQ(create.event.isa, "avx512_core");
  // Cut before its time, or with ZenDNN's timestamp glued to the engine: skipped.
  EXPECT_EQ(ParseOne("[PROF:I][0.1] zendnn_primitive_execute,cpu,matmul,x,undef").result.reason,
            SkipReason::kTruncated);
  EXPECT_EQ(ParseOne("zendnn_primitive_execute,,1607393146348.667969cpu,matmul,x,undef,s,,,"
                     "8x8,0.5,ms")
                .result.reason,
            SkipReason::kUnknownOperation);
}

TEST(LineParserTest, ZendnnProfilerLinesGiveKindKernelTensorsAndTime) {
  const Parsed p = ParseOne(
      "[PROF   ][verbose][1.204511]:MatMul operator execute - linear_0,kernel:aocl_dlp_blocked,"
      "matmul_input[32,4096]:bf16:contiguous,weights[4096,4096]:bf16:blocked,"
      "matmul_output[32,4096]:bf16:contiguous,alpha:1,beta:0,post-op:gelu_erf,"
      "weight_address:0x7f2a10000000,time:1.5ms");
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  const VerboseEvent& e = p.event;
  EXPECT_EQ(e.era, Era::kZendnnProfile);
  EXPECT_EQ(e.primitive, "MatMul");
  EXPECT_TRUE(onednn::IsKind(e.primitive, onednn::Kind::kMatmul));
  EXPECT_EQ(e.implementation, "aocl_dlp_blocked");
  EXPECT_EQ(e.impl_class, ImplClass::kExternal);
  EXPECT_EQ(e.memory_descriptors,
            "matmul_input:bf16::contiguous weights:bf16::blocked matmul_output:bf16::contiguous");
  EXPECT_EQ(e.problem, "32x4096:4096x4096:32x4096");
  EXPECT_EQ(e.attributes, "alpha:1 beta:0 post-op:gelu_erf");
  EXPECT_EQ(e.auxiliary, "name:linear_0");
  EXPECT_DOUBLE_EQ(*e.time_ms, 1.5);
  // The documented form names no kind: its operator's name does.
  const Parsed doc = ParseOne(
      "[PROF   ][info   ][0.017503]:Operator execute - matmul_f32,matmul_input[10,5]:f32:"
      "contiguous,matmul_output[10,4]:f32:contiguous,time:0.00321ms");
  ASSERT_EQ(doc.result.kind, LineKind::kEvent);
  EXPECT_EQ(doc.event.primitive, "matmul");
  EXPECT_EQ(ParseOne("[PROF   ][info   ][0.017474]:Operator context - weights[5,4]:f32:"
                     "contiguous,time:0.0009ms")
                .result.kind,
            LineKind::kInfo);
  EXPECT_EQ(ParseOne("[PROF   ][verbose][1.2]:MatMul operator execute - a,x[4,4:f32:c,time:1ms")
                .result.reason,
            SkipReason::kTruncated);
  EXPECT_EQ(ParseOne("[PROF   ][verbose][1.2]:MatMul operator execute - a,x[4]:f32:c,time:1e999ms")
                .result.reason,
            SkipReason::kBadTime);
}

// ONNX Runtime's profile (tests/data/engines: lines of onnxruntime#5617 and a recording made
// here with onnxruntime-node 1.31.1).
TEST(LineParserTest, OnnxRuntimeNodesGiveOperatorProviderShapesAndTime) {
  const Parsed p = ParseOne(
      R"({"cat" : "Node","pid" :11750,"tid" :11750,"dur" :194,"ts" :17009,"ph" : "X","name" :)"
      R"("fc1_kernel_time","args" : {"mem_in_use_delta" : "32768","input_type_shape" : )"
      R"([{"float":[64,256]}],"node_index" : "0","thread_scheduling_stats" : {"main_thread": )"
      R"({"thread_pool_name": "session-1-intra-op", "block_size": [1], "core": 0}},)"
      R"("provider" : "CPUExecutionProvider","output_type_shape" : [{"float":[64,128]}],)"
      R"("op_name" : "MatMul","parameter_size" : "0"}},)");
  ASSERT_EQ(p.result.kind, LineKind::kEvent);
  const VerboseEvent& e = p.event;
  EXPECT_EQ(e.era, Era::kOrtProfile);
  EXPECT_EQ(e.operation, Operation::kExec);
  EXPECT_EQ(e.engine, "cpu");
  EXPECT_EQ(e.primitive, "MatMul");
  EXPECT_TRUE(onednn::IsKind(e.primitive, onednn::Kind::kMatmul));
  EXPECT_EQ(e.implementation, "CPUExecutionProvider");
  EXPECT_EQ(e.impl_class, ImplClass::kExternal);
  EXPECT_EQ(e.memory_descriptors, "in0:f32:: out0:f32::");
  EXPECT_EQ(e.problem, "64x256");
  EXPECT_EQ(e.auxiliary, "name:fc1");
  EXPECT_DOUBLE_EQ(*e.time_ms, 0.194);
  // A GPU provider's node; a fence (the wait around a node) is no work.
  EXPECT_EQ(ParseOne(R"({"cat" : "Node","dur" :69,"name" :"/m/Shape_kernel_time","args" : )"
                     R"({"provider" : "DmlExecutionProvider","op_name" : "Shape"}},)")
                .event.engine,
            "gpu");
  EXPECT_EQ(ParseOne(R"({"cat" : "Node","pid" :8800,"dur" :0,"name" :"Add_27_fence_before",)"
                     R"("args" : {"op_name" : "Add"}},)")
                .result.kind,
            LineKind::kInfo);
  // Hostile: cut before its time or inside a list, a bad time, an escaped quote in the name.
  EXPECT_EQ(ParseOne(R"({"cat" : "Node","pid" :1,"tid" :1,)").result.reason,
            SkipReason::kTruncated);
  EXPECT_EQ(ParseOne(R"({"cat" : "Node","dur" :5,"name" :"a_kernel_time","args" : )"
                     R"({"input_type_shape" : [{"float":[64,)")
                .result.reason,
            SkipReason::kTruncated);
  EXPECT_EQ(ParseOne(R"({"cat" : "Node","dur" :-3,"name" :"a_kernel_time"},)").result.reason,
            SkipReason::kBadTime);
  EXPECT_EQ(ParseOne(R"({"cat" : "Node","dur" :1e999,"name" :"a_kernel_time"},)").result.reason,
            SkipReason::kBadTime);
  const Parsed quoted = ParseOne(
      R"({"cat" : "Node","dur" :7,"name" :"say \"hi\"_kernel_time","args" : {"op_name" : ""}},)");
  ASSERT_EQ(quoted.result.kind, LineKind::kEvent);
  EXPECT_EQ(quoted.event.primitive, "node");
  EXPECT_EQ(quoted.event.auxiliary, R"(name:say \"hi\")");
  EXPECT_EQ(ParseOne(R"({"cat" : "Node","dur" :7,"name" :"x_kernel_time","args" : )"
                     R"({"input_type_shape" : [{"float"}]}},)")
                .result.reason,
            SkipReason::kTruncated);
}

TEST(LineParserTest, DialectChoiceReadsOnlyItsLines) {
  LineParser parser;
  parser.RestrictTo(DialectChoice::kZendnnProfile);
  VerboseEvent e;
  EXPECT_EQ(parser
                .Parse("onednn_verbose,exec,cpu,reorder,jit:uni,undef,src_f32::blocked:ab:f0,,,"
                       "2x2,0.5",
                       e)
                .reason,
            SkipReason::kForeign);
  EXPECT_EQ(parser
                .Parse("[PROF   ][info   ][0.1]:Operator execute - matmul_f32,a[1,1]:f32:c,"
                       "time:0.5ms",
                       e)
                .kind,
            LineKind::kEvent);
}

TEST(MemoryDescTest, EverySyntax) {
  std::vector<MemoryDesc> mds;
  ParseMemoryDescs("src_layer_f32:a:any:any::f0 wei_s8::blocked:ABcd4b16a4b:f8:zpm1", mds);
  ASSERT_EQ(mds.size(), 2u);
  EXPECT_EQ(mds[0].name, "src_layer");
  EXPECT_EQ(mds[0].data_type, "f32");
  EXPECT_EQ(mds[0].properties, "a");
  EXPECT_EQ(mds[0].format_kind, "any");
  EXPECT_EQ(mds[0].tag, "any");
  EXPECT_EQ(mds[0].flags, "f0");
  EXPECT_EQ(mds[1].name, "wei");
  EXPECT_EQ(mds[1].tag, "ABcd4b16a4b");
  EXPECT_EQ(mds[1].flags, "f8:zpm1");
  ParseMemoryDescs(
      "bia:f32::blocked:abc::f0_mask4 stats:undef::undef::: wei:f32:p:blocked:AB16b16a:s1x2:f0",
      mds);
  ASSERT_EQ(mds.size(), 3u);
  EXPECT_EQ(mds[0].name, "bia");
  EXPECT_EQ(mds[0].data_type, "f32");
  EXPECT_EQ(mds[0].tag, "abc");
  EXPECT_EQ(mds[0].flags, "f0_mask4");
  EXPECT_EQ(mds[1].format_kind, "undef");
  EXPECT_EQ(mds[2].properties, "p");
  EXPECT_EQ(mds[2].strides, "s1x2");
  EXPECT_EQ(DataTypesText(mds), "bia:f32 wei:f32");
  EXPECT_EQ(LayoutsText(mds), "bia:abc wei:AB16b16a:padded");
  ParseMemoryDescs("fsrc:nChw8c in:f32_nchw", mds);
  ASSERT_EQ(mds.size(), 2u);
  EXPECT_EQ(mds[0].name, "fsrc");
  EXPECT_EQ(mds[0].tag, "nChw8c");
  EXPECT_EQ(mds[1].data_type, "f32");
  EXPECT_EQ(mds[1].tag, "nchw");
  ParseMemoryDescs("diff_wei_f8_e5m2::blocked:ab:f0", mds);
  ASSERT_EQ(mds.size(), 1u);
  EXPECT_EQ(mds[0].name, "diff_wei");
  EXPECT_EQ(mds[0].data_type, "f8_e5m2");
}

}  // namespace
}  // namespace dlcheck::verbose
