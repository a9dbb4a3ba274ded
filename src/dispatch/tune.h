// SPDX-License-Identifier: Apache-2.0
#pragma once
// `dlcheck tune -- CMD`: the settings around oneDNN (threads, OpenMP waiting and placement, the
// allocator, oneDNN's own variables, the user's) measured on the unmodified program, each as a
// variant with one change against the baseline, the runs interleaved (every variant once per
// round, in turn), and ranked only where a variant's range of runs does not overlap the
// baseline's (noise.h: Separated). The winners together are measured as a variant of their own.
//
//   std::vector<Knob> knobs = PlanKnobs(LiveTuneHost(), {}, {{"TUNE_TEST_FAST", "1"}});
//   std::vector<Variant> variants = VariantsOf(knobs);           // the baseline first
//   StatusOr<TuneProgress> done = RunTune(variants, {.argv = {"python3", "train.py"}});
//   const Variant* best = BestVariant(variants);                 // judged: verdicts, speed-ups
//   std::cout << TuneAnswer(variants, {}) << '\n' << ApplyLine(best, argv);

#include <functional>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/finding.h"
#include "common/status.h"
#include "dispatch/noise.h"
#include "os/subprocess.h"

namespace dlcheck::dispatch {

using EnvironmentChange = std::vector<std::pair<std::string, std::string>>;

/// The groups of knobs, in the order they are planned and listed (`--groups`).
inline constexpr std::string_view kKnobGroups[] = {"threads", "openmp", "placement", "allocator",
                                                   "blas",    "onednn", "framework", "user"};

/// One setting around the program: a change of its environment, or why it cannot apply here.
struct Knob {
  std::string group;           ///< one of kKnobGroups
  std::string name;            ///< "threads=1", "OMP_WAIT_POLICY=PASSIVE", "jemalloc"
  EnvironmentChange env;       ///< the variables it sets (LD_PRELOAD, OMP_NUM_THREADS, ...)
  std::string not_applicable;  ///< why it is not run on this host; empty: it runs
  /// The library kinds (lib::LibraryKind names, "Intel OpenMP") whose variable it sets: where
  /// the baseline's first run mapped none of them, it acts on nothing and is not run. Empty:
  /// any program.
  std::vector<std::string_view> read_by;
  /// What it changes in the program's results (f32 math done in bf16); empty: they stay the
  /// same. Such a knob is measured and named, never joined into the combined variant.
  std::string_view changes_results;
  bool applies() const { return not_applicable.empty(); }
};

/// What the knobs depend on, read once from the host (LiveTuneHost) or given by a test.
struct TuneHost {
  int usable_cpus = 1;     ///< os::CpuBudget::cpus: the affinity mask and the cgroup quota
  int physical_cores = 1;  ///< the cores among the usable CPUs (one thread per core)
  bool avx512 = false;     ///< AVX-512 usable: ONEDNN_CPU_ISA_HINTS=PREFER_YMM changes kernels
  bool bf16 = false;       ///< AVX512-BF16 or AMX-BF16 usable: f32 math in bf16 can be faster
  /// The kernel's transparent huge page mode (/sys/kernel/mm/transparent_hugepage/enabled, the
  /// bracketed word: "always", "madvise", "never"); empty: unknown.
  std::string transparent_hugepages;
  std::string library_dir;  ///< the multiarch library directory (/usr/lib/x86_64-linux-gnu)
  /// The file library_dir/libblas.so.3 resolves to (Debian's selected alternative); "" if none.
  std::string selected_blas;
  /// True when the file exists (the allocators' libraries); a test passes its own.
  std::function<bool(const std::string& path)> exists;
  /// This process's environment (std::getenv); a test passes its own.
  std::function<const char*(const char* name)> getenv;
};

/// This host: its CPU budget, cores (hwloc), usable features and library directory. The library
/// directory is DLCHECK_TUNE_LIBRARY_DIR where set (a test hook: a folder of stand-in
/// libraries), else the multiarch directory dlcheck was built for.
TuneHost LiveTuneHost();

/// A preloadable allocator Debian packages, where it is installed.
struct AllocatorLibrary {
  std::string_view name;     ///< "jemalloc"
  std::string_view file;     ///< "libjemalloc.so.2", in the multiarch directory
  std::string_view package;  ///< "libjemalloc2": what makes it possible
};
inline constexpr AllocatorLibrary kAllocators[] = {
    {"jemalloc", "libjemalloc.so.2", "libjemalloc2"},
    {"tcmalloc", "libtcmalloc_minimal.so.4", "libtcmalloc-minimal4"}};

/// The BLAS knobs: each optimised alternative of libblas.so.3 that Debian installed (in its
/// directory under the multiarch one, lib::kBlasDirectories) put first on LD_LIBRARY_PATH, so
/// that a program linked with libblas.so.3 (numpy, PyTorch's Debian build) loads it; not
/// applicable where it is the alternative the system selects already, or not installed.

/// The oneDNN primitive cache capacity of the oneDNN knob: above oneDNN's default of 1024.
inline constexpr int kRaisedPrimitiveCache = 4096;

/// The knobs of `groups` (empty: all of kKnobGroups), in group order, each applicable or not with
/// its reason: threads (1, the physical cores, all usable CPUs, with OMP_NUM_THREADS,
/// MKL_NUM_THREADS and OPENBLAS_NUM_THREADS alike), OpenMP waiting (OMP_WAIT_POLICY ACTIVE,
/// PASSIVE; KMP_BLOCKTIME=1, read by Intel's and LLVM's OpenMP only), placement
/// (OMP_PROC_BIND=close OMP_PLACES=cores), the allocators (LD_PRELOAD), the BLAS alternatives
/// (LD_LIBRARY_PATH), oneDNN (ONEDNN_PRIMITIVE_CACHE_CAPACITY raised,
/// ONEDNN_CPU_ISA_HINTS=PREFER_YMM) and the user's `user_knobs` (NAME=VALUE each). A knob whose
/// every variable the environment already sets to its value is the baseline itself: not applicable.
std::vector<Knob> PlanKnobs(const TuneHost& host, const std::vector<std::string>& groups,
                            const EnvironmentChange& user_knobs);

/// `NAME=VALUE` of `--knob`, split; a UsageError for text without `=`, an empty or malformed
/// name (letters, digits and `_`, not starting with a digit).
StatusOr<std::pair<std::string, std::string>> ParseKnob(std::string_view text);
/// `--groups`: each a name of kKnobGroups, else a UsageError naming them.
Status CheckGroups(const std::vector<std::string>& groups);

/// What is measured: wall time, or the program's own figure (--metric).
struct TuneMetric {
  std::string pattern;  ///< --metric REGEX; empty: wall time
  bool higher_is_better = false;
  bool wall() const { return pattern.empty(); }
};

/// The figure of `--metric` in one line: its first capture group (the whole match without one)
/// read as a number; nullopt when the line does not match or the capture is no number.
std::optional<double> MetricOf(const std::regex& pattern, std::string_view line);

/// One run of a variant.
struct TuneRun {
  os::Outcome outcome;
  std::optional<double> value;   ///< the wall time or the metric; nullopt: none (failed)
  std::string stderr_last_line;  ///< its stderr's last non-empty line
  /// Ended well and gave its figure.
  bool ok() const { return outcome.ok() && value.has_value(); }
};

/// How a variant compares with the baseline.
enum class Verdict {
  kBaseline,       ///< the baseline itself
  kBetter,         ///< its range beyond the baseline's, better: ranked
  kWorse,          ///< its range beyond the baseline's, worse
  kWithinNoise,    ///< its range overlaps the baseline's: never ranked
  kFailed,         ///< the program failed under it (or gave no figure): never ranked
  kNotApplicable,  ///< not run: the knob cannot apply here
  kNotRun,         ///< not run: the budget or a signal ended the tune first
};
/// "baseline", "better", "worse", "within noise", "failed", "not applicable", "not run".
std::string_view VerdictName(Verdict verdict, const TuneMetric& metric);

/// A variant: the baseline (no knob), one knob, or the combined best (the winners together).
struct Variant {
  std::vector<Knob> knobs;
  bool combined = false;
  std::vector<TuneRun> runs;
  Spread spread;  ///< of the runs' values, when every run ended well
  Verdict verdict = Verdict::kNotRun;
  std::optional<double> speedup;  ///< over the baseline's median, > 1: better (JudgeVariants)

  bool baseline() const { return knobs.empty(); }
  bool runs_here() const;  ///< no knob that cannot apply
  /// "baseline", the knob's name, or the knobs' names joined with " + ".
  std::string Name() const;
  /// The variables it sets, in order (later knobs win).
  EnvironmentChange Environment() const;
  /// The first run that failed, if any.
  const TuneRun* Failure() const;
};

/// The baseline, then one variant per knob, in order.
std::vector<Variant> VariantsOf(const std::vector<Knob>& knobs);

/// Each variant's spread (of runs that all ended well), verdict and speed-up against the
/// baseline (variants[0]): failed when a run failed; within noise when its range overlaps the
/// baseline's (or either has fewer than 2 runs); else better or worse. The speed-up is the
/// baseline's median over the variant's (wall time, a lower-is-better metric) or the variant's
/// over the baseline's (--higher-is-better).
void JudgeVariants(std::vector<Variant>& variants, const TuneMetric& metric);

/// The knobs of the better single variants, best first: what the combined variant joins.
std::vector<Knob> WinningKnobs(const std::vector<Variant>& variants);

/// The ranked variant with the highest speed-up; nullptr when none is better than the baseline.
const Variant* BestVariant(const std::vector<Variant>& variants);

/// What a tune run shares besides its variants.
struct TuneSettings {
  std::vector<std::string> argv;
  TuneMetric metric;
  int rounds = 5;         ///< --runs: each variant once per round
  double budget_s = 600;  ///< --budget: the whole command
  /// Called before each run with its variant's name and the run's number.
  std::function<void(std::string_view variant, int round)> on_run;
  /// Before the program's own bytes are written to stderr, and after each piece of its stdout.
  std::function<void()> on_output;
  std::function<void()> on_chunk;
  /// Called with the program's process id while the baseline's first run goes on (between
  /// reads of its output): the audit samples it there (process_audit.h).
  std::function<void(int pid)> while_baseline_runs;
  /// Asked once the baseline's first run ended: the names of the library kinds the program
  /// mapped (the audit's), or nullopt when nothing was sampled; knobs `read_by` other libraries
  /// are then not run. Unset: every knob runs.
  std::function<std::optional<std::vector<std::string>>()> mapped_after_baseline;
};

/// What the tune did besides its variants' runs.
struct TuneProgress {
  int rounds_done = 0;        ///< rounds every running variant finished
  bool budget_ended = false;  ///< the budget stopped it before --runs rounds
  double elapsed_s = 0;
};

/// Runs the variants in interleaved rounds: each variant that runs here once per round, in turn,
/// until `rounds` are done, the next round would pass the budget (its estimate: the last round's
/// time), or a signal arrives (os::SignalForwarding: the variant runs stop, the report holds the
/// runs done). A variant whose program failed runs no more. Then, when two or more single
/// variants are better than the baseline, the combined best runs as many rounds, interleaved
/// with further baseline runs, within what is left of the budget. Each run is killed at the
/// budget's end. Errors: the program cannot be started (127, 126).
StatusOr<TuneProgress> RunTune(std::vector<Variant>& variants, const TuneSettings& settings);

/// `variant-failed` (warning) for each variant whose program failed: its exit status and its
/// stderr's last line; `knob-not-applicable` (info) once, naming the knobs and why;
/// `budget-ended` (info) when the budget cut the rounds.
std::vector<Finding> TuneFindings(const std::vector<Variant>& variants,
                                  const TuneProgress& progress, const TuneSettings& settings);

/// The line to apply: `env NAME=VALUE ... CMD` for `variant` (nullptr: the command as it is),
/// every word quoted for a POSIX shell.
std::string ApplyLine(const Variant* variant, const std::vector<std::string>& argv);

/// The answer: "OMP_WAIT_POLICY=PASSIVE: 1.31x faster (wall 12.4 -> 9.5 s, 5 runs each, spread
/// 2 %)", or why nothing is: "no knob beat the baseline beyond its spread (...)".
std::string TuneAnswer(const std::vector<Variant>& variants, const TuneMetric& metric);

}  // namespace dlcheck::dispatch
