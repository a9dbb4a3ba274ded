// SPDX-License-Identifier: Apache-2.0
#include "whatif/framework_advice.h"

namespace dlcheck::whatif {
namespace {

bool Convolution(std::string_view primitive) {
  return primitive == "convolution" || primitive == "deconvolution";
}

// PyTorch's words (its CPU documentation): channels_last, CPU autocast, set_num_threads, and
// quantization, whose default engine on x86 is FBGEMM rather than oneDNN.
std::string PyTorchAdvice(std::string_view variant, std::string_view primitive) {
  if (variant == "layouts any") {
    return Convolution(primitive)
               ? "model = model.to(memory_format=torch.channels_last), and the inputs likewise"
               : std::string();
  }
  if (variant == "dtype bf16") return "with torch.autocast(\"cpu\", dtype=torch.bfloat16): ...";
  if (variant == "dtype f16") return "with torch.autocast(\"cpu\", dtype=torch.float16): ...";
  if (variant == "dtype int8") {
    return "quantize the model (torch.ao.quantization, calibrated) with "
           "torch.backends.quantized.engine = \"onednn\": PyTorch's default quantized engine on "
           "x86 is FBGEMM, not oneDNN";
  }
  if (variant.starts_with("threads ")) {
    return "torch.set_num_threads(" + std::string(variant.substr(8)) + ")";
  }
  return {};
}

// TensorFlow's words: its threading and mixed-precision settings.
std::string TensorFlowAdvice(std::string_view variant) {
  if (variant == "dtype bf16") {
    return "tf.keras.mixed_precision.set_global_policy(\"mixed_bfloat16\")";
  }
  if (variant.starts_with("threads ")) {
    return "tf.config.threading.set_intra_op_parallelism_threads(" +
           std::string(variant.substr(8)) + ")";
  }
  return {};
}

}  // namespace

std::string FrameworkAdvice(std::string_view framework, std::string_view variant,
                            std::string_view primitive) {
  // An ISA cap is the environment's in every framework.
  if (variant.starts_with("isa ") && (framework == "PyTorch" || framework == "TensorFlow")) {
    std::string cap(variant.substr(4));
    for (char& c : cap) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c);
    return "ONEDNN_MAX_CPU_ISA=" + cap + " in the program's environment";
  }
  if (framework == "PyTorch") return PyTorchAdvice(variant, primitive);
  if (framework == "TensorFlow") return TensorFlowAdvice(variant);
  return {};
}

}  // namespace dlcheck::whatif
