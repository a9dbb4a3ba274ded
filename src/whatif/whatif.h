// SPDX-License-Identifier: Apache-2.0
#pragma once
// `dlcheck whatif`: the hot primitives of a log, each rebuilt with the linked oneDNN (rebuild.h)
// and measured (measure.h) as logged and under the changes an application could make: the
// layouts oneDNN prefers (with the reorders that implies), another implementation, another
// thread count, another data type, another ISA cap (measured by a worker per cap: see
// `isa_runner`). Each variant's speed-up over the baseline and its projected step gain:
//
//   step_gain_pct = share_pct * (1 - 1 / speedup)
//
// where share_pct is the row's share of the log's execution time.
//
//   WhatifPlan plan{.cover_pct = 80, .top = 10};
//   WhatifResult r = RunWhatif(rows, log_exec_ms, header, plan);
//   for (const HotPrimitive& hot : r.hot) for (const VariantResult& v : hot.variants) ...

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/finding.h"
#include "verbose/primitive_stats.h"
#include "verbose/verbose_event.h"

namespace dlcheck::whatif {

/// The rounds each variant is measured in: round 1 a variant after the other, the rounds after it
/// interleaved (every variant of a row once, then again), each with 1/kRounds of --time.
inline constexpr int kRounds = 3;

/// The variant kinds, as --variants names them.
inline constexpr std::string_view kVariantKinds[] = {"layouts", "impl", "threads", "dtype", "isa"};

/// What to measure and how.
struct WhatifPlan {
  double cover_pct = 80;  ///< the fewest rows that cover this share of the exec time ...
  std::size_t top = 10;   ///< ... and at most this many
  double time_s = 0.1;    ///< the time budget of each variant's timed loop
  bool cold = false;      ///< buffers rotated through more than the last-level cache
  int threads = 0;        ///< the baseline's threads; 0: the log's nthr (capped), else all
  int allowed_cpus = 1;   ///< the CPUs this process may use
  /// The variant kinds to measure (kVariantKinds); the baseline is always measured.
  std::vector<std::string> variants = {"layouts", "impl", "threads", "dtype", "isa"};
  /// CPU features (/proc/cpuinfo names) this host has: a data type without its native
  /// instructions is measured and labelled "emulated".
  std::vector<std::string> features;
  /// oneDNN's ISA level on this host (detect's), for the baselines' notes.
  std::string host_isa;
  /// The baselines at the layouts oneDNN prefers (what an ISA worker measures: a cap's kernels
  /// want their own layouts, and the log's would send most of them to reference code).
  bool baseline_layouts_any = false;
  /// The ISA caps to measure under (each in a worker): IsaVariantCaps; none: no isa rows.
  std::vector<std::string> isa_caps;
  /// The cap this process measures under (LogIsaCap: the log's ISA, below the host's), set
  /// before oneDNN's first primitive; empty: the host's own.
  std::string baseline_cap;
  /// Asked between measurements: true stops (Ctrl-C); the rows measured so far are kept.
  std::function<bool()> stop;
  /// Called as each measurement starts: "hot 3/10: convolution, layouts any".
  std::function<void(std::size_t hot, std::size_t of, const std::string& what)> progress;
};

/// One measured (or not measurable) variant of a hot primitive.
struct VariantResult {
  std::string
      variant;  ///< `as logged`, `layouts any`, `impl NAME`, `threads N`, `dtype T`, `isa CAP`
  int threads = 0;
  std::optional<double> min_ms;  ///< with the reorders a change implies, per call
  std::optional<double> avg_ms;
  std::uint64_t runs = 0;
  std::optional<double> create_ms;
  std::string implementation;
  std::optional<double> gflops;
  std::optional<double> speedup;        ///< baseline min / this min
  std::optional<double> step_gain_pct;  ///< share_pct * (1 - 1/speedup)
  std::string deviation;  ///< dtype: `max abs 0.0039, 0.78 % of the largest f32 output`
  std::string benchdnn;   ///< the line that measures the same, threads pinned
  std::string note;       ///< why it did not run, or what it includes
  /// The descriptors and data types it ran with, as 2.x verbose prints them (for benchdnn).
  std::string memory_descriptors;
  /// Each round's min (kRounds, interleaved with the row's other variants): min_ms is the least,
  /// round_max_ms the greatest; their range is the variant's noise.
  std::vector<double> round_ms;
  std::optional<double> round_max_ms;
  /// Its range overlaps its baseline's: not a change (CompareWithBaseline).
  bool within_noise = false;
};

/// A hot primitive: its log row and its variants (the baseline first), or why it was not rebuilt.
struct HotPrimitive {
  std::size_t rank = 0;  ///< 1 for the row with the most exec time
  verbose::PrimitiveStats row;
  double share_pct = 0;     ///< of the log's exec time
  std::string not_rebuilt;  ///< why, when the row could not be rebuilt
  std::vector<VariantResult> variants;
};

struct WhatifResult {
  std::vector<HotPrimitive> hot;
  int threads = 0;                       ///< the baseline's threads
  std::string threads_source;            ///< "--threads", "the log's nthr:1", "all allowed CPUs"
  double covered_pct = 0;                ///< the share of exec time the hot rows hold
  bool interrupted = false;              ///< stopped before every row was measured
  std::size_t hot_planned = 0;           ///< the hot rows chosen, measured or not
  std::string implementation_agreement;  ///< `5 of 6 baselines ran the log's implementation`
  /// The cap the baselines ran under (WhatifPlan::baseline_cap, once oneDNN took it); empty: none.
  std::string baseline_cap;
  std::string baseline_cap_note;  ///< why that cap, or why it could not be set
  /// oneDNN's execution time as a share of the captured program's wall time (`whatif -- CMD`);
  /// nullopt for a log, whose program's wall time is not known. Gains are also said on it.
  std::optional<double> onednn_wall_pct;
};

/// A gain on the step (oneDNN's execution time) as a gain on the program's wall time:
/// `step_gain_pct * onednn_wall_pct / 100`.
double ProgramGainPct(double step_gain_pct, double onednn_wall_pct);

/// The cap that makes `as logged` rerun the log's kernels: the log's ISA (its header's) as a cap
/// of the linked oneDNN 2.6, when this host's (`host_isa`) is above it; nullopt when the log
/// names no x86 ISA, or the host is not above it. A 3.x level 2.6 has no cap for is capped at the
/// highest 2.6 cap below it.
std::optional<std::string> LogIsaCap(const verbose::LogHeader& header, std::string_view host_isa);

/// The caps of the isa variants: `caps` (sse41 up to the host's own, in dispatch order) without
/// the baseline's (`baseline_cap`; empty: the host's, the last).
std::vector<std::string> IsaVariantCaps(std::vector<std::string> caps,
                                        const std::string& baseline_cap);

/// The indices of the hot rows of `rows`: by exec time, the fewest that reach `cover_pct` of
/// `total_ms`, at most `top`; rows without exec time are never hot.
std::vector<std::size_t> HotRows(const std::vector<verbose::PrimitiveStats>& rows, double total_ms,
                                 double cover_pct, std::size_t top);

/// The threads the baseline runs with: --threads, else the log's nthr capped at the allowed
/// CPUs, else the allowed CPUs; and the words that say which.
std::pair<int, std::string> BaselineThreads(const WhatifPlan& plan,
                                            const verbose::LogHeader& header);

/// Measures every hot row of `rows` as `plan` says. `isa_runner(cap, ranks)` measures the
/// baselines of the hot rows `ranks` under `cap` in a worker and returns a result per rank (an
/// empty function: no isa rows).
using IsaRunner = std::function<std::vector<VariantResult>(const std::string& cap,
                                                           const std::vector<std::size_t>& ranks)>;
WhatifResult RunWhatif(const std::vector<verbose::PrimitiveStats>& rows, double total_ms,
                       const verbose::LogHeader& header, const WhatifPlan& plan,
                       const IsaRunner& isa_runner = {});

/// Each variant of `hot` against its baseline (the first): speed-up, GFLOP/s, step gain, and
/// `within_noise` when both ran at least two rounds and their ranges overlap.
void CompareWithBaseline(HotPrimitive& hot);

/// A variant that runs faster than its baseline, beyond the noise.
struct Change {
  const HotPrimitive* hot = nullptr;
  const VariantResult* variant = nullptr;
};

/// Whether `variant` is a process-wide knob (`isa CAP`, `threads N`): it applies to every
/// primitive of the process, so it is judged on the whole step (StepKnobs), not per row.
bool ProcessWide(std::string_view variant);

/// A process-wide knob over all hot rows: the sum of their step gains, its range from the
/// rounds' ranges, and the rows that cannot run under it (which would make the program fail).
struct StepKnob {
  std::string variant;                  ///< `isa avx2`, `threads 2`
  std::size_t rows_measured = 0;        ///< hot rows measured under it
  std::vector<std::string> cannot_run;  ///< `#3 convolution` for each row it leaves without one
  double step_gain_pct = 0;             ///< the sum of the rows' step gains
  double step_gain_low_pct = 0;         ///< with each row's slowest round against its baseline's
  double step_gain_high_pct = 0;        ///< ... fastest against fastest's opposite
  bool within_noise = false;            ///< the range holds 0
  std::string confirm;                  ///< the dlcheck command that confirms it on the program
};
std::vector<StepKnob> StepKnobs(const WhatifResult& result);

/// The variants faster than their baseline and not within noise, by projected step gain
/// (process-wide knobs are not among them: StepKnobs).
std::vector<Change> RankedChanges(const WhatifResult& result);

/// The verdict: the best change's sentence (a per-row change or a knob that every hot row runs
/// under, beyond the noise), or why there is none.
std::string Verdict(const WhatifResult& result, const std::vector<Change>& changes,
                    const std::vector<StepKnob>& knobs = {});

/// The sentence of a knob: "threads 2 over the whole step: about 12 % of the step (8 to 15 %);
/// confirm on the program with `dlcheck dispatch ... -- CMD`".
std::string KnobSentence(const StepKnob& knob,
                         std::optional<double> onednn_wall_pct = std::nullopt);

/// `threads-above-cpus`: the baseline's threads (--threads) above the CPUs this process may
/// use (`usable_cpus`, described by `budget_text`): they wait for each other, so every figure is
/// slower than on a machine with that many; nullopt otherwise.
std::optional<Finding> ThreadsAboveCpusFinding(int threads, int usable_cpus,
                                               const std::string& budget_text);

/// Whether `type` (bf16, f16, int8) has native instructions on a host with `features`, and the
/// words that say so when it has not ("emulated: no avx512_bf16 or amx_bf16").
std::string EmulationNote(std::string_view type, const std::vector<std::string>& features);

/// The plain-words sentence of a change: "#1 convolution, 31 % of the step, runs 2.7x faster
/// with layouts any (0.48 -> 0.18 ms): about 19 % of the step".
std::string ChangeSentence(const HotPrimitive& hot, const VariantResult& variant,
                           std::optional<double> onednn_wall_pct = std::nullopt);

}  // namespace dlcheck::whatif
