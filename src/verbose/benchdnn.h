// SPDX-License-Identifier: Apache-2.0
#pragma once
// A benchdnn command line that reproduces one distinct primitive of a verbose log, as oneDNN's
// own verbose converter does: the driver, direction, data types, tags, algorithm, attributes
// and the problem, in the syntax of the benchdnn of the log's version (or of the one asked for):
//
//   onednn_verbose,exec,cpu,convolution,jit:avx512_core,forward_training,
//     src_f32::blocked:abcd:f0 wei_f32:p:blocked:Acdb16a:f0 bia_f32::blocked:a:f0
//     dst_f32:p:blocked:aBcd16b:f0,attr-scratchpad:user ,alg:convolution_direct,mb64_ic1oc20_...
//   -> 2.x: ONEDNN_MAX_CPU_ISA=AVX512_CORE benchdnn --conv --mode=P --dir=FWD_B --cfg=f32 ...
//   -> 3.x: ONEDNN_MAX_CPU_ISA=AVX512_CORE benchdnn --conv --mode=P --dir=FWD_B --dt=f32 ...
//
// The ISA the log ran at is pinned with ONEDNN_MAX_CPU_ISA (the implementation's ISA, else the
// header's), so a machine with a newer ISA runs the log's kernel, not its own best one; the
// threads it ran with (the header's nthr) with OMP_NUM_THREADS; a host below the log's ISA is
// told in a note, since oneDNN would run the line lower without a word. Values a
// log does not hold (the run-time scale and zero-point values) are set to 1; attribute pieces
// with no benchdnn spelling are listed in `untranslated`, never dropped silently.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dlcheck::verbose {

struct PrimitiveStats;

/// Whose benchdnn syntax a line speaks: 2 for the benchdnn of oneDNN 1.x-2.x (`--cfg=u8s8s32`,
/// checked with 2.6.3), 3 for oneDNN 3.x (`--dt=u8:s8:s32`, `--bia-dt`; checked with 3.10.2).
enum class BenchdnnVersion { kLogs, kV2, kV3 };

/// What a reproducer needs besides the row: the version asked for and the log's header.
struct BenchdnnContext {
  BenchdnnVersion version = BenchdnnVersion::kLogs;  ///< kLogs: the version of the row's log
  std::string_view library_version;  ///< the header's `oneDNN v2.6.3 (commit N/A)`, or ""
  /// The header's ISA name (`avx512_core_bf16`); without a header, the highest ISA the log's
  /// implementations name (HighestIsaOf); "" when neither says.
  std::string_view header_isa;
  /// The thread count the log ran with (its header's `nthr:`): the line sets OMP_NUM_THREADS to
  /// it, so that a line from a 1-thread log does not run on every core; nullopt: the log does not
  /// say, and none is set.
  std::optional<int> threads;
  /// The highest ISA the host that will run the line has (an onednn_isa.h name, e.g. `avx2`); ""
  /// when unknown. A line pinned above it gets `host_note`: oneDNN would run it lower, silently.
  std::string_view host_isa;
};

/// The version a row's line speaks: the one asked for, else the log's (the header's version,
/// else the line format: `dnnl_verbose`/`mkldnn_verbose` and 2.x `onednn_verbose` lines 2, the
/// 3.3+ formats 3). kLogs is never returned.
BenchdnnVersion BenchdnnVersionOf(const PrimitiveStats& row, const BenchdnnContext& context);

/// Every value on the line was checked against what its option takes (a data type name, a memory
/// tag, benchdnn's attribute syntax, a problem descriptor): a log field holding shell syntax
/// (`$(...)`, quotes, `;`) or another option (` --batch=FILE`) is left out and named in
/// `untranslated` instead, never written.
struct BenchdnnReproducer {
  /// For a shell: `[ONEDNN_MAX_CPU_ISA=X ][OMP_NUM_THREADS=N ]benchdnn --conv --mode=P ...
  /// <problem>`, each word shell-quoted where it needs it (`'--attr-zero-points=src:common:1*'`).
  std::string command;
  /// For a --batch file (benchdnn splits it at blanks, no quotes): `--conv --mode=P ... <problem>`.
  std::string arguments;
  std::vector<std::string> options;  ///< the words after the driver: `--mode=P`, ..., the problem
  std::string max_cpu_isa;           ///< the ONEDNN_MAX_CPU_ISA value pinned, or ""
  std::optional<int> threads;        ///< the OMP_NUM_THREADS value set, or nullopt
  /// Where the host (BenchdnnContext::host_isa) lacks the row's ISA: `this host's highest ISA
  /// is avx2, below the log's avx512_core_amx: benchdnn here runs a lower kernel`, as comment text
  /// (printable ASCII); "" otherwise.
  std::string host_note;
  /// Attribute pieces benchdnn has no knob for and values left out, as comment text (printable
  /// ASCII only: no line break, no control character).
  std::vector<std::string> untranslated;
};

/// The reproducer of `row`, or nullopt when benchdnn has no driver for its primitive kind or
/// the log does not say enough (MKL-DNN 0.x lines carry no data types; a row without a problem).
std::optional<BenchdnnReproducer> MakeBenchdnnReproducer(const PrimitiveStats& row,
                                                         const BenchdnnContext& context = {});

/// Why a row has no reproducer, for the report's note ("" when it has one).
std::string_view BenchdnnMissingReason(const PrimitiveStats& row,
                                       const BenchdnnContext& context = {});

/// `text` made safe inside a `#` comment of a shell script or a --batch file: each byte that is
/// not printable ASCII (a line break, a control character) becomes '?'; cut after `max_bytes`.
std::string BenchdnnCommentText(std::string_view text, std::size_t max_bytes = 200);

/// The benchdnn drivers dlcheck writes lines for, each once, in the order of its table.
std::vector<std::string_view> BenchdnnDrivers();

/// The benchdnn driver of a primitive kind (`convolution` -> `conv`), "" when benchdnn has none.
std::string_view BenchdnnDriverOf(std::string_view primitive);

/// The highest ISA the rows' implementation names carry (`jit:avx2`, `brg:avx512_core`), or "":
/// the ISA a log without a header line ran at, as far as its lines tell.
std::string_view HighestIsaOf(const std::vector<const PrimitiveStats*>& rows);

/// The ONEDNN_MAX_CPU_ISA value of an ISA name (`avx512_core_bf16` -> `AVX512_CORE_BF16`), in
/// the spelling of that benchdnn's oneDNN; "" for names that are no cap (`uni`, `any`, ...).
std::string MaxCpuIsaValue(std::string_view isa, BenchdnnVersion version);

}  // namespace dlcheck::verbose
