// SPDX-License-Identifier: Apache-2.0
#pragma once
// A measured change said in the words of the framework the program runs (issue 46 item 5):
// beside the figure, never instead of it. Known where whatif captured the program and its audit
// saw the framework's library mapped (PyTorch's libtorch_cpu, TensorFlow's libtensorflow).
//
//   FrameworkAdvice("PyTorch", "layouts any", "convolution")
//     -> "model = model.to(memory_format=torch.channels_last), and the inputs likewise"

#include <string>
#include <string_view>

namespace dlcheck::whatif {

/// How `variant` ("layouts any", "dtype bf16", "threads 4", "isa avx2", ...) of a `primitive`
/// row is applied in `framework` (a lib::LibraryKind name: "PyTorch", "TensorFlow"); empty where
/// the framework has no word for it or is not one dlcheck knows.
std::string FrameworkAdvice(std::string_view framework, std::string_view variant,
                            std::string_view primitive);

}  // namespace dlcheck::whatif
