#pragma once
// A benchdnn command line that reproduces one distinct primitive of a verbose log, as oneDNN's
// own verbose converter does: the driver, direction, data types, tags, algorithm, attributes
// and the problem, for the benchdnn of oneDNN 3.x (`--dt=src:wei:dst`, `--attr-scales=`).
//
//   onednn_verbose,exec,cpu,inner_product,brgemm:avx512_core,forward_inference,
//     src_f32::blocked:ab:f0 wei_f32::blocked:AB16b64a:f0 bia_f32::blocked:a:f0
//     dst_f32::blocked:ab:f0,attr-post-ops:eltwise_relu ,,mb200ic128oc64,0.04
//   -> benchdnn --ip --mode=P --dir=FWD_I --dt=f32 --stag=ab --wtag=AB16b64a --dtag=ab
//        --attr-post-ops=relu mb200ic128oc64
//
// Values a log does not hold (the run-time scale and zero-point values) are set to 1; attribute
// pieces with no benchdnn spelling are listed in `untranslated`, never dropped silently.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck::verbose {

struct PrimitiveStats;

struct BenchdnnReproducer {
  std::string command;                    ///< `benchdnn --conv --mode=P ... <problem>`
  std::vector<std::string> untranslated;  ///< attribute pieces benchdnn has no knob for
};

/// The reproducer of `row`, or nullopt when benchdnn has no driver for its primitive kind or
/// the log does not say enough (MKL-DNN 0.x lines carry no data types; a row without a problem).
std::optional<BenchdnnReproducer> MakeBenchdnnReproducer(const PrimitiveStats& row);

/// Why a row has no reproducer, for the report's note ("" when it has one).
std::string_view BenchdnnMissingReason(const PrimitiveStats& row);

}  // namespace dlcheck::verbose
