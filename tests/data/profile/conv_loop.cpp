// A oneDNN convolution run in a loop for a given time: the program behind jit_conv.data.
#include <chrono>
#include <cstdlib>
#include <dnnl.hpp>

int main(int argc, char** argv) {
  const double seconds = argc > 1 ? std::atof(argv[1]) : 0.3;
  using tag = dnnl::memory::format_tag;
  using dt = dnnl::memory::data_type;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const dnnl::memory::desc src({8, 32, 28, 28}, dt::f32, tag::any);
  const dnnl::memory::desc wei({64, 32, 3, 3}, dt::f32, tag::any);
  const dnnl::memory::desc dst({8, 64, 26, 26}, dt::f32, tag::any);
  const dnnl::convolution_forward::primitive_desc pd({dnnl::prop_kind::forward_inference,
                                                      dnnl::algorithm::convolution_direct,
                                                      src,
                                                      wei,
                                                      dst,
                                                      {1, 1},
                                                      {0, 0},
                                                      {0, 0}},
                                                     engine);
  const dnnl::convolution_forward conv(pd);
  dnnl::memory s(pd.src_desc(), engine), w(pd.weights_desc(), engine), d(pd.dst_desc(), engine);
  const auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
         seconds) {
    conv.execute(stream, {{DNNL_ARG_SRC, s}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_DST, d}});
    stream.wait();
  }
  return 0;
}
