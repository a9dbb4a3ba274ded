// SPDX-License-Identifier: Apache-2.0
#include "dispatch/tune.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "common/finding_codes.h"
#include "common/library_kinds.h"
#include "common/text.h"
#include "detect/binding.h"
#include "detect/platform.h"
#include "os/cpu_budget.h"
#include "os/input_file.h"
#include "os/signals.h"

#ifndef DLCHECK_MULTIARCH_DIR
#define DLCHECK_MULTIARCH_DIR "/usr/lib"
#endif

namespace dlcheck::dispatch {
namespace {

using Clock = std::chrono::steady_clock;

constexpr const char* kThreadVariables[] = {"OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                            "OPENBLAS_NUM_THREADS"};

EnvironmentChange ThreadEnvironment(int threads) {
  EnvironmentChange env;
  for (const char* name : kThreadVariables) env.emplace_back(name, std::to_string(threads));
  return env;
}

bool Wanted(const std::vector<std::string>& groups, std::string_view group) {
  return groups.empty() || std::find(groups.begin(), groups.end(), group) != groups.end();
}

// A knob whose every variable the environment already holds at its value is the baseline.
void MarkAlreadySet(Knob& knob, const TuneHost& host) {
  if (!knob.applies() || knob.env.empty() || !host.getenv) return;
  for (const auto& [name, value] : knob.env) {
    const char* now = host.getenv(name.c_str());
    if (now == nullptr || value != now) return;
  }
  knob.not_applicable = "the environment already sets it: the baseline runs with it";
}

void AddThreadKnobs(const TuneHost& host, std::vector<Knob>& knobs) {
  const int all = std::max(host.usable_cpus, 1);
  const int cores = std::clamp(host.physical_cores, 1, all);
  Knob one{.group = "threads", .name = "threads=1", .env = ThreadEnvironment(1)};
  if (all == 1) {
    one.not_applicable = "1 usable CPU: OpenMP's default is 1 thread already";
  }
  knobs.push_back(std::move(one));
  Knob physical{.group = "threads",
                .name = fmt::format("threads={} (physical cores)", cores),
                .env = ThreadEnvironment(cores)};
  if (cores == all) {
    physical.not_applicable = fmt::format(
        "the {} usable CPU{} {} {} core{} (no SMT sibling among them): the same as "
        "all CPUs",
        all, all == 1 ? "" : "s", all == 1 ? "is" : "are", cores, cores == 1 ? "" : "s");
  } else if (cores == 1) {
    physical.not_applicable = "1 physical core: the same as threads=1";
  }
  knobs.push_back(std::move(physical));
  knobs.push_back({.group = "threads",
                   .name = fmt::format("threads={} (all CPUs)", all),
                   .env = ThreadEnvironment(all)});
}

void AddOpenMpKnobs(std::vector<Knob>& knobs) {
  for (const char* policy : {"ACTIVE", "PASSIVE"}) {
    knobs.push_back({.group = "openmp",
                     .name = fmt::format("OMP_WAIT_POLICY={}", policy),
                     .env = {{"OMP_WAIT_POLICY", policy}}});
  }
  // How long a thread of Intel's or LLVM's OpenMP spins after a parallel region (200 ms by
  // default): 1 ms is what PyTorch's and IPEX's launchers set. GNU OpenMP does not read it.
  knobs.push_back({.group = "openmp",
                   .name = "KMP_BLOCKTIME=1",
                   .env = {{"KMP_BLOCKTIME", "1"}},
                   .read_by = {"Intel OpenMP", "LLVM OpenMP"}});
}

void AddPlacementKnobs(const TuneHost& host, std::vector<Knob>& knobs) {
  Knob close{.group = "placement",
             .name = "OMP_PROC_BIND=close OMP_PLACES=cores",
             .env = {{"OMP_PROC_BIND", "close"}, {"OMP_PLACES", "cores"}}};
  if (host.usable_cpus <= 1) close.not_applicable = "1 usable CPU: nothing to place";
  knobs.push_back(std::move(close));
}

void AddAllocatorKnobs(const TuneHost& host, std::vector<Knob>& knobs) {
  const char* preloaded = host.getenv ? host.getenv("LD_PRELOAD") : nullptr;
  for (const AllocatorLibrary& allocator : kAllocators) {
    const std::string path = host.library_dir + "/" + std::string(allocator.file);
    Knob knob{.group = "allocator", .name = std::string(allocator.name)};
    if (host.exists && host.exists(path)) {
      // The user's own preloads stay, after the allocator.
      const std::string value =
          preloaded != nullptr && *preloaded != '\0' ? path + " " + preloaded : path;
      knob.env = {{"LD_PRELOAD", value}};
    } else {
      knob.not_applicable = fmt::format("{} is not installed in {}: install the Debian package {}",
                                        allocator.file, host.library_dir, allocator.package);
    }
    knobs.push_back(std::move(knob));
  }
}

void AddOneDnnKnobs(const TuneHost& host, std::vector<Knob>& knobs) {
  const std::string capacity = std::to_string(kRaisedPrimitiveCache);
  knobs.push_back({.group = "onednn",
                   .name = "ONEDNN_PRIMITIVE_CACHE_CAPACITY=" + capacity,
                   .env = {{"ONEDNN_PRIMITIVE_CACHE_CAPACITY", capacity}}});
  Knob hints{.group = "onednn",
             .name = "ONEDNN_CPU_ISA_HINTS=PREFER_YMM",
             .env = {{"ONEDNN_CPU_ISA_HINTS", "PREFER_YMM"}}};
  if (!host.avx512) {
    hints.not_applicable = "no AVX-512 on this host: PREFER_YMM changes only AVX-512 kernels";
  }
  knobs.push_back(std::move(hints));
  // f32 primitives allowed to compute in bf16 (oneDNN reads it from 2.4 on, any case; 2.6.3
  // marks the primitives attr-fpmath_mode but keeps its f32 matmul kernel, newer releases move
  // them to AMX or AVX512-BF16 kernels): a faster program whose numbers change.
  Knob fpmath{.group = "onednn",
              .name = "ONEDNN_DEFAULT_FPMATH_MODE=BF16",
              .env = {{"ONEDNN_DEFAULT_FPMATH_MODE", "BF16"}},
              .read_by = {"oneDNN"},
              .changes_results =
                  "f32 primitives may compute in bf16 (8 bits of mantissa): "
                  "check the program's results under it"};
  if (!host.bf16) {
    fpmath.not_applicable = "no AVX512-BF16 or AMX-BF16 on this host: no bf16 kernel to use";
  }
  knobs.push_back(std::move(fpmath));
}

void AddBlasKnobs(const TuneHost& host, std::vector<Knob>& knobs) {
  const char* path = host.getenv ? host.getenv("LD_LIBRARY_PATH") : nullptr;
  bool any = false;
  for (const lib::BlasDirectory& blas : lib::kBlasDirectories) {
    if (blas.name == lib::kReferenceBlas) continue;  // never faster than the others
    const std::string dir = host.library_dir + "/" + std::string(blas.directory);
    if (!host.exists || !host.exists(dir + "/libblas.so.3")) continue;
    any = true;
    Knob knob{.group = "blas", .name = fmt::format("blas={}", blas.directory)};
    if (host.selected_blas.starts_with(dir + "/")) {
      knob.not_applicable = fmt::format(
          "libblas.so.3 is {} already (the alternative this system selects)", blas.name);
    } else {
      // The user's own library path stays, after it.
      knob.env = {{"LD_LIBRARY_PATH", path != nullptr && *path != '\0' ? dir + ":" + path : dir}};
    }
    knobs.push_back(std::move(knob));
  }
  if (!any) {
    knobs.push_back({.group = "blas",
                     .name = "blas=openblas-pthread",
                     .not_applicable = fmt::format(
                         "no optimised BLAS is installed in {}: install the Debian package {}",
                         host.library_dir, lib::kOptimizedBlasPackage)});
  }
}

bool ValidVariableName(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

std::string LastLine(std::string_view text) {
  while (!text.empty()) {
    const std::size_t end = text.find_last_not_of("\r\n");
    if (end == std::string_view::npos) return "";
    text = text.substr(0, end + 1);
    const std::size_t start = text.find_last_of('\n');
    std::string_view line = start == std::string_view::npos ? text : text.substr(start + 1);
    if (line.find_first_not_of(" \t\r") != std::string_view::npos) return std::string(line);
    text = start == std::string_view::npos ? std::string_view() : text.substr(0, start);
  }
  return "";
}

void WriteToStderr(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t put = write(STDERR_FILENO, bytes.data(), bytes.size());
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return;  // stderr closed: the program's output has nowhere to go
    bytes.remove_prefix(static_cast<std::size_t>(put));
  }
}

// The program's stdout, passed on to dlcheck's stderr as it comes, and read line by line for
// --metric: the last figure wins.
class MetricReader {
 public:
  explicit MetricReader(const std::optional<std::regex>& pattern) : pattern_(pattern) {}
  void Feed(std::string_view bytes) {
    if (!pattern_) return;
    pending_.append(bytes);
    std::size_t start = 0;
    for (std::size_t end; (end = pending_.find('\n', start)) != std::string::npos;
         start = end + 1) {
      Take(std::string_view(pending_).substr(start, end - start));
    }
    pending_.erase(0, start);
    // A line longer than this is no figure's line: its head is read, the rest dropped.
    if (pending_.size() > kMaxLine) {
      Take(pending_);
      pending_.clear();
    }
  }
  std::optional<double> Finish() {
    if (!pending_.empty()) Take(pending_);
    pending_.clear();
    return value_;
  }

 private:
  static constexpr std::size_t kMaxLine = 1 << 16;
  void Take(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (std::optional<double> v = MetricOf(*pattern_, line)) value_ = v;
  }
  const std::optional<std::regex>& pattern_;
  std::string pending_;
  std::optional<double> value_;
};

struct Budget {
  Clock::time_point start = Clock::now();
  double budget_s = 0;
  double Elapsed() const { return std::chrono::duration<double>(Clock::now() - start).count(); }
  double Left() const { return budget_s - Elapsed(); }
};

StatusOr<TuneRun> RunOnce(const Variant& variant, const TuneSettings& settings,
                          const std::optional<std::regex>& pattern, const Budget& budget,
                          bool audited) {
  os::Spec spec{.argv = settings.argv,
                .env = variant.Environment(),
                .search_path = true,
                .keep_stderr_tail = true,
                .timeout_s = std::max(budget.Left(), 0.001)};
  const auto pass_on = [&settings](std::string_view bytes) {
    if (settings.on_output && !bytes.empty()) settings.on_output();
    WriteToStderr(bytes);
    if (settings.on_chunk) settings.on_chunk();
  };
  spec.on_stderr = pass_on;
  if (audited) spec.while_running = settings.while_baseline_runs;
  MetricReader reader(pattern);
  StatusOr<os::Outcome> ended = os::RunProcess(spec, [&](std::string_view bytes) {
    pass_on(bytes);
    reader.Feed(bytes);
  });
  if (!ended.ok()) return ended.status();
  TuneRun run{.outcome = std::move(*ended)};
  run.stderr_last_line = LastLine(run.outcome.stderr_tail);
  run.outcome.stderr_tail.clear();  // its last line is what the report keeps
  const std::optional<double> figure = reader.Finish();
  if (run.outcome.ok()) run.value = settings.metric.wall() ? run.outcome.wall_s : figure;
  return run;
}

// How one run of a variant ended, for the interleaved loop.
enum class RunEnd { kGoOn, kStop };

// Runs `variant` once; kStop when the tune must end (a signal, the budget).
StatusOr<RunEnd> RunRound(Variant& variant, int round, const TuneSettings& settings,
                          const std::optional<std::regex>& pattern, const Budget& budget,
                          TuneProgress& progress) {
  if (os::SignalForwarding::Received() != 0) return RunEnd::kStop;
  if (budget.Left() <= 0) {
    progress.budget_ended = true;
    return RunEnd::kStop;
  }
  if (settings.on_run) settings.on_run(variant.Name(), round);
  StatusOr<TuneRun> run =
      RunOnce(variant, settings, pattern, budget, variant.baseline() && round == 1);
  if (!run.ok()) return run.status();
  // A run the budget or a signal cut short says nothing of the variant: left out.
  if (run->outcome.interrupted != 0 || os::SignalForwarding::Received() != 0) {
    return RunEnd::kStop;
  }
  if (run->outcome.timed_out) {
    progress.budget_ended = true;
    return RunEnd::kStop;
  }
  variant.runs.push_back(std::move(*run));
  return RunEnd::kGoOn;
}

bool Failed(const Variant& v) {
  return v.Failure() != nullptr;
}

// After the baseline's first run: the knobs read only by libraries the program did not map are
// not run (each says which it needed). Nothing changes when nothing was sampled.
void PassOverKnobsOfUnmappedLibraries(std::vector<Variant>& variants,
                                      const TuneSettings& settings) {
  if (!settings.mapped_after_baseline) return;
  const std::optional<std::vector<std::string>> mapped = settings.mapped_after_baseline();
  if (!mapped) return;
  for (Variant& v : variants) {
    for (Knob& k : v.knobs) {
      if (k.read_by.empty() || !k.applies()) continue;
      const bool read = std::any_of(k.read_by.begin(), k.read_by.end(), [&](std::string_view n) {
        return std::find(mapped->begin(), mapped->end(), n) != mapped->end();
      });
      if (!read) {
        k.not_applicable = fmt::format("the program mapped no {}, which read {}",
                                       fmt::join(k.read_by, " or "), k.env.front().first);
      }
    }
  }
}

// Interleaved rounds of `which` (indexes into variants), `rounds` at most, within the budget:
// a round starts only when the last one's time fits in what is left. False when it must end.
StatusOr<bool> RunRounds(std::vector<Variant>& variants, const std::vector<std::size_t>& which,
                         int rounds, const TuneSettings& settings,
                         const std::optional<std::regex>& pattern, const Budget& budget,
                         TuneProgress& progress, bool count_rounds) {
  double last_round_s = 0;
  for (int round = 1; round <= rounds; ++round) {
    if (round > 1 && last_round_s > budget.Left()) {
      progress.budget_ended = true;
      return false;
    }
    const double round_start = budget.Elapsed();
    for (std::size_t i : which) {
      Variant& v = variants[i];
      if (Failed(v) || !v.runs_here()) continue;  // a failure runs no more
      StatusOr<RunEnd> end = RunRound(v, round, settings, pattern, budget, progress);
      if (!end.ok()) return end.status();
      if (*end == RunEnd::kStop) return false;
      // Without a baseline there is nothing to compare with.
      if (v.baseline() && Failed(v)) return false;
      if (v.baseline() && round == 1 && count_rounds) {
        PassOverKnobsOfUnmappedLibraries(variants, settings);
      }
    }
    last_round_s = budget.Elapsed() - round_start;
    if (count_rounds) progress.rounds_done = round;
  }
  return true;
}

std::string Figure(double value, const TuneMetric& metric) {
  if (metric.wall()) return fmt::format("{:.3g}", value);
  return fmt::format("{:.4g}", value);
}

}  // namespace

TuneHost LiveTuneHost() {
  TuneHost host;
  const os::CpuBudget budget = os::ReadCpuBudget();
  host.usable_cpus = budget.cpus;
  host.physical_cores = budget.cpus;
  if (StatusOr<std::vector<detect::ThreadSet>> sets = detect::LiveThreadSets({"all"});
      sets.ok() && !sets->empty()) {
    host.physical_cores = std::min(sets->front().threads, budget.cpus);
  }
  const detect::FeatureSet usable = detect::LiveUsableFeatures();
  const auto avx512 = usable.find("avx512f");
  host.avx512 = avx512 != usable.end() && avx512->second;
  if (const std::optional<std::string> thp =
          os::ReadProcFile("/sys/kernel/mm/transparent_hugepage/enabled", 4096)) {
    const std::size_t open = thp->find('['), close = thp->find(']');
    if (open != std::string::npos && close != std::string::npos && close > open) {
      host.transparent_hugepages = thp->substr(open + 1, close - open - 1);
    }
  }
  for (const char* name : {"avx512_bf16", "amx_bf16"}) {
    const auto it = usable.find(name);
    host.bf16 = host.bf16 || (it != usable.end() && it->second);
  }
  const char* dir = std::getenv("DLCHECK_TUNE_LIBRARY_DIR");
  host.library_dir = dir != nullptr && *dir != '\0' ? dir : DLCHECK_MULTIARCH_DIR;
  std::error_code resolve_error;
  const std::filesystem::path selected =
      std::filesystem::canonical(host.library_dir + "/libblas.so.3", resolve_error);
  if (!resolve_error) host.selected_blas = selected.string();
  host.exists = [](const std::string& path) {
    std::error_code error;
    return std::filesystem::is_regular_file(path, error);
  };
  host.getenv = [](const char* name) { return std::getenv(name); };
  return host;
}

// PyTorch's own settings, run only where the program maps libtorch_cpu.
void AddFrameworkKnobs(const TuneHost& host, std::vector<Knob>& knobs) {
  // ATen's vectorised kernels: PyTorch picks AVX2's on an AVX-512 CPU unless told (Debian's
  // PyTorch 1.13 on an AVX-512 host: "CPU capability usage: AVX2"; pytorch#82881).
  Knob aten{.group = "framework",
            .name = "ATEN_CPU_CAPABILITY=avx512",
            .env = {{"ATEN_CPU_CAPABILITY", "avx512"}},
            .read_by = {"PyTorch"}};
  if (!host.avx512) aten.not_applicable = "no AVX-512 on this host: no avx512 kernels to pick";
  knobs.push_back(std::move(aten));
  // Huge pages for PyTorch's CPU allocations (PyTorch 2.3 on; earlier releases ignore it).
  Knob thp{.group = "framework",
           .name = "THP_MEM_ALLOC_ENABLE=1",
           .env = {{"THP_MEM_ALLOC_ENABLE", "1"}},
           .read_by = {"PyTorch"}};
  if (host.transparent_hugepages == "never") {
    thp.not_applicable = "transparent huge pages are off (never) on this host";
  }
  knobs.push_back(std::move(thp));
}

std::vector<Knob> PlanKnobs(const TuneHost& host, const std::vector<std::string>& groups,
                            const EnvironmentChange& user_knobs) {
  std::vector<Knob> knobs;
  if (Wanted(groups, "threads")) AddThreadKnobs(host, knobs);
  if (Wanted(groups, "openmp")) AddOpenMpKnobs(knobs);
  if (Wanted(groups, "placement")) AddPlacementKnobs(host, knobs);
  if (Wanted(groups, "allocator")) AddAllocatorKnobs(host, knobs);
  if (Wanted(groups, "blas")) AddBlasKnobs(host, knobs);
  if (Wanted(groups, "onednn")) AddOneDnnKnobs(host, knobs);
  if (Wanted(groups, "framework")) AddFrameworkKnobs(host, knobs);
  if (Wanted(groups, "user")) {
    for (const auto& [name, value] : user_knobs) {
      knobs.push_back({.group = "user", .name = name + "=" + value, .env = {{name, value}}});
    }
  }
  for (Knob& knob : knobs) MarkAlreadySet(knob, host);
  return knobs;
}

StatusOr<std::pair<std::string, std::string>> ParseKnob(std::string_view text) {
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos) {
    return UsageError(
        fmt::format("--knob '{}': expected NAME=VALUE (an environment variable "
                    "and its value, e.g. --knob OMP_SCHEDULE=static)",
                    text));
  }
  const std::string_view name = text.substr(0, equals);
  if (!ValidVariableName(name)) {
    return UsageError(
        fmt::format("--knob '{}': '{}' is no environment variable name (letters, "
                    "digits and _, not starting with a digit)",
                    text, name));
  }
  return std::pair{std::string(name), std::string(text.substr(equals + 1))};
}

Status CheckGroups(const std::vector<std::string>& groups) {
  for (const std::string& group : groups) {
    if (std::find(std::begin(kKnobGroups), std::end(kKnobGroups), group) == std::end(kKnobGroups)) {
      std::vector<std::string> names(std::begin(kKnobGroups), std::end(kKnobGroups));
      return UsageError(
          fmt::format("--groups: unknown group '{}' (one of: {})", group, fmt::join(names, ", ")));
    }
  }
  return {};
}

std::optional<double> MetricOf(const std::regex& pattern, std::string_view line) {
  std::match_results<std::string_view::const_iterator> match;
  if (!std::regex_search(line.begin(), line.end(), match, pattern)) return std::nullopt;
  const auto& group = match.size() > 1 && match[1].matched ? match[1] : match[0];
  const std::string text = group.str();
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string_view VerdictName(Verdict verdict, const TuneMetric& metric) {
  switch (verdict) {
    case Verdict::kBaseline:
      return "baseline";
    case Verdict::kBetter:
      return metric.wall() ? "faster" : "better";
    case Verdict::kWorse:
      return metric.wall() ? "slower" : "worse";
    case Verdict::kWithinNoise:
      return "within noise";
    case Verdict::kFailed:
      return "failed";
    case Verdict::kNotApplicable:
      return "not applicable";
    case Verdict::kNotRun:
      return "not run";
  }
  return "not run";
}

bool Variant::runs_here() const {
  return std::all_of(knobs.begin(), knobs.end(), [](const Knob& k) { return k.applies(); });
}

std::string Variant::Name() const {
  if (knobs.empty()) return "baseline";
  std::string name;
  for (const Knob& knob : knobs) name += (name.empty() ? "" : " + ") + knob.name;
  return name;
}

EnvironmentChange Variant::Environment() const {
  EnvironmentChange env;
  for (const Knob& knob : knobs) env.insert(env.end(), knob.env.begin(), knob.env.end());
  return env;
}

const TuneRun* Variant::Failure() const {
  for (const TuneRun& run : runs) {
    if (!run.ok()) return &run;
  }
  return nullptr;
}

std::vector<Variant> VariantsOf(const std::vector<Knob>& knobs) {
  std::vector<Variant> variants(1);
  for (const Knob& knob : knobs) variants.push_back({.knobs = {knob}});
  return variants;
}

void JudgeVariants(std::vector<Variant>& variants, const TuneMetric& metric) {
  for (Variant& v : variants) {
    v.speedup.reset();
    v.spread = {};
    if (!v.runs_here()) {
      v.verdict = Verdict::kNotApplicable;
    } else if (v.runs.empty()) {
      v.verdict = Verdict::kNotRun;
    } else if (v.Failure() != nullptr) {
      v.verdict = Verdict::kFailed;
    } else {
      std::vector<double> values;
      for (const TuneRun& run : v.runs) values.push_back(*run.value);
      v.spread = SpreadOf(std::move(values));
      v.verdict = v.baseline() ? Verdict::kBaseline : Verdict::kWithinNoise;
    }
  }
  if (variants.empty() || variants.front().verdict != Verdict::kBaseline) return;
  const Spread& base = variants.front().spread;
  for (Variant& v : variants) {
    if (v.baseline() || v.verdict != Verdict::kWithinNoise) continue;
    if (base.median > 0 && v.spread.median > 0) {
      v.speedup =
          metric.higher_is_better ? v.spread.median / base.median : base.median / v.spread.median;
    }
    if (Separated(v.spread, base) && v.speedup) {
      v.verdict = *v.speedup > 1 ? Verdict::kBetter : Verdict::kWorse;
    }
  }
}

std::vector<Knob> WinningKnobs(const std::vector<Variant>& variants) {
  std::vector<const Variant*> winners;
  for (const Variant& v : variants) {
    if (!v.combined && v.verdict == Verdict::kBetter && v.knobs.size() == 1 &&
        v.knobs.front().changes_results.empty()) {
      winners.push_back(&v);
    }
  }
  std::stable_sort(winners.begin(), winners.end(),
                   [](const Variant* a, const Variant* b) { return *a->speedup > *b->speedup; });
  // One knob per variable: of two that set the same one (two thread counts, two allocators),
  // the better.
  std::vector<Knob> knobs;
  std::set<std::string> set_already;
  for (const Variant* v : winners) {
    const Knob& knob = v->knobs.front();
    const bool clashes = std::any_of(knob.env.begin(), knob.env.end(), [&](const auto& kv) {
      return set_already.count(kv.first) > 0;
    });
    if (clashes) continue;
    for (const auto& kv : knob.env) set_already.insert(kv.first);
    knobs.push_back(knob);
  }
  return knobs;
}

const Variant* BestVariant(const std::vector<Variant>& variants) {
  const Variant* best = nullptr;
  for (const Variant& v : variants) {
    if (v.verdict != Verdict::kBetter) continue;
    if (best == nullptr || *v.speedup > *best->speedup) best = &v;
  }
  return best;
}

StatusOr<TuneProgress> RunTune(std::vector<Variant>& variants, const TuneSettings& settings) {
  std::optional<std::regex> pattern;
  if (!settings.metric.wall()) pattern.emplace(settings.metric.pattern, std::regex::ECMAScript);
  TuneProgress progress;
  const Budget budget{.budget_s = settings.budget_s};
  std::vector<std::size_t> singles;
  for (std::size_t i = 0; i < variants.size(); ++i) {
    if (variants[i].runs_here()) singles.push_back(i);
  }
  StatusOr<bool> went_on = RunRounds(variants, singles, settings.rounds, settings, pattern, budget,
                                     progress, /*count_rounds=*/true);
  if (!went_on.ok()) return went_on.status();
  JudgeVariants(variants, settings.metric);
  const std::vector<Knob> winners = WinningKnobs(variants);
  if (*went_on && winners.size() >= 2) {
    variants.push_back({.knobs = winners, .combined = true});
    // The combined variant beside further baseline runs, as many rounds as the others had.
    const std::vector<std::size_t> pair = {0, variants.size() - 1};
    went_on = RunRounds(variants, pair, progress.rounds_done, settings, pattern, budget, progress,
                        /*count_rounds=*/false);
    if (!went_on.ok()) return went_on.status();
  }
  JudgeVariants(variants, settings.metric);
  progress.elapsed_s = budget.Elapsed();
  return progress;
}

std::vector<Finding> TuneFindings(const std::vector<Variant>& variants,
                                  const TuneProgress& progress, const TuneSettings& settings) {
  std::vector<Finding> findings;
  std::vector<std::string> not_applicable;
  for (const Variant& v : variants) {
    if (v.verdict == Verdict::kNotApplicable) {
      for (const Knob& k : v.knobs) {
        if (!k.applies()) not_applicable.push_back(k.name + " (" + k.not_applicable + ")");
      }
    }
    const TuneRun* failure = v.Failure();
    if (failure == nullptr) continue;
    std::string message =
        fmt::format("under {} the program {}", v.Name(),
                    failure->outcome.ok() ? "printed no number that --metric matches"
                                          : failure->outcome.Describe());
    if (!failure->stderr_last_line.empty()) {
      message += fmt::format("; its stderr's last line: {}", failure->stderr_last_line);
    }
    message +=
        v.baseline() ? "; no variant can be compared with a failed baseline" : "; not ranked";
    findings.push_back({.severity = Severity::kWarning,
                        .code = codes::kVariantFailed,
                        .message = std::move(message)});
  }
  if (!not_applicable.empty()) {
    findings.push_back(
        {.severity = Severity::kInfo,
         .code = codes::kKnobNotApplicable,
         .message = fmt::format("not run on this host: {}", fmt::join(not_applicable, "; "))});
  }
  if (progress.budget_ended) {
    findings.push_back(
        {.severity = Severity::kInfo,
         .code = codes::kBudgetEnded,
         .message = fmt::format("the budget of {:g} s ended the tune after {} of {} rounds; a "
                                "larger --budget or fewer knobs (--groups) give more runs",
                                settings.budget_s, progress.rounds_done, settings.rounds)});
  }
  return findings;
}

std::string ApplyLine(const Variant* variant, const std::vector<std::string>& argv) {
  if (variant == nullptr || variant->knobs.empty()) return CommandText(argv);
  std::vector<std::string> words = {"env"};
  for (const auto& [name, value] : variant->Environment()) words.push_back(name + "=" + value);
  // A command that looks like an assignment would be read by env as one more.
  if (!argv.empty() && argv.front().find('=') != std::string::npos) words.push_back("--");
  words.insert(words.end(), argv.begin(), argv.end());
  return CommandText(words);
}

std::string TuneAnswer(const std::vector<Variant>& variants, const TuneMetric& metric) {
  const Variant* best = BestVariant(variants);
  const std::string what = metric.wall() ? "wall" : "metric";
  if (variants.empty() || variants.front().verdict != Verdict::kBaseline) {
    return "no variant compared: the baseline did not run to its end";
  }
  const Variant& base = variants.front();
  if (best == nullptr) {
    std::size_t ran = 0;
    for (const Variant& v : variants) ran += !v.baseline() && !v.runs.empty();
    return fmt::format(
        "no knob beat the baseline beyond the spread of the runs ({} variant{} "
        "run against a median {} of {}{}): keep the command as it is",
        ran, ran == 1 ? "" : "s", what, Figure(base.spread.median, metric),
        metric.wall() ? " s" : "");
  }
  const double spread_pct = 100 * std::max(best->spread.Relative(), base.spread.Relative());
  const std::string runs = best->spread.runs == base.spread.runs
                               ? fmt::format("{} runs each", best->spread.runs)
                               : fmt::format("{} and {} runs", best->spread.runs, base.spread.runs);
  std::string caveat;
  for (const Knob& k : best->knobs) {
    if (!k.changes_results.empty())
      caveat = fmt::format("; it changes the results: {}", k.changes_results);
  }
  return fmt::format("{}: {:.2f}x {} ({} {} -> {}{}, {}, spread {:.0f} %){}", best->Name(),
                     *best->speedup, metric.wall() ? "faster" : "better", what,
                     Figure(base.spread.median, metric), Figure(best->spread.median, metric),
                     metric.wall() ? " s" : "", runs, spread_pct, caveat);
}

}  // namespace dlcheck::dispatch
