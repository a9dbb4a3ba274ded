// SPDX-License-Identifier: Apache-2.0
#include "roofline/measure.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>
#include <thread>

#include "roofline/kernels.h"

namespace dlcheck::roofline {
namespace {

constexpr std::int64_t kKiB = 1024;
constexpr std::int64_t kMiB = 1024 * kKiB;
constexpr std::int64_t kSmallestWorkingSet = 4 * kKiB;
// Every array holds a multiple of this many floats (the kernels' step, 256 bytes).
constexpr std::int64_t kElementStep = 64;

std::int64_t PowerOfTwoAtLeast(std::int64_t bytes) {
  std::int64_t p = 1;
  while (p < bytes) p *= 2;
  return p;
}

std::int64_t PowerOfTwoAtMost(std::int64_t bytes) {
  std::int64_t p = 1;
  while (p * 2 <= bytes) p *= 2;
  return p;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

void PinThisThread(int cpu) {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  // A refusal (a CPU taken away meanwhile) leaves the thread where the kernel puts it: the
  // figure is still a figure, just unpinned.
  pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

// Threads pinned one per CPU that run a piece of work together, the caller as member 0. The
// members wait on a futex (std::atomic::wait), not spinning, so that an idle member takes no CPU
// from a measuring one.
class Team {
 public:
  explicit Team(const std::vector<int>& cpus) : size_(static_cast<int>(cpus.size())) {
    CPU_ZERO(&saved_);
    saved_ok_ = pthread_getaffinity_np(pthread_self(), sizeof(saved_), &saved_) == 0;
    PinThisThread(cpus[0]);
    for (int i = 1; i < size_; ++i) {
      threads_.emplace_back([this, cpu = cpus[static_cast<std::size_t>(i)], i] {
        PinThisThread(cpu);
        Serve(i);
      });
    }
  }
  ~Team() {
    quit_.store(true);
    generation_.fetch_add(1);
    generation_.notify_all();
    for (std::thread& t : threads_) t.join();
    if (saved_ok_) pthread_setaffinity_np(pthread_self(), sizeof(saved_), &saved_);
  }
  Team(const Team&) = delete;
  Team& operator=(const Team&) = delete;

  int size() const { return size_; }

  /// Runs work(i) on every member i at once; the seconds from the start to the last end.
  double Run(const std::function<void(int)>& work) {
    work_ = &work;
    done_.store(0);
    const auto start = std::chrono::steady_clock::now();
    generation_.fetch_add(1);
    generation_.notify_all();
    work(0);
    for (int done = done_.load(); done < size_ - 1; done = done_.load()) done_.wait(done);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  void Serve(int index) {
    std::uint64_t seen = 0;
    for (;;) {
      generation_.wait(seen);
      seen = generation_.load();
      if (quit_.load()) return;
      (*work_)(index);
      done_.fetch_add(1);
      done_.notify_one();
    }
  }

  int size_;
  std::vector<std::thread> threads_;
  const std::function<void(int)>* work_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<int> done_{0};
  std::atomic<bool> quit_{false};
  cpu_set_t saved_;
  bool saved_ok_ = false;
};

struct FreeDeleter {
  void operator()(float* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<float, FreeDeleter>;

// Each member's memory, allocated and first touched by the member itself (its NUMA node's).
std::vector<Buffer> AllocatePerMember(Team& team, std::int64_t bytes_each) {
  std::vector<Buffer> buffers(static_cast<std::size_t>(team.size()));
  const auto floats = static_cast<std::size_t>(bytes_each / 4);
  team.Run([&](int i) {
    auto* p = static_cast<float*>(std::aligned_alloc(256, floats * 4));
    if (p == nullptr) return;
    for (std::size_t k = 0; k < floats; ++k) p[k] = 1.0f;
    buffers[static_cast<std::size_t>(i)].reset(p);
  });
  return buffers;
}

// The best rate of `run` (which returns the units its member did) over `samples` samples of
// about `seconds` each, after one calibration that sizes the loop.
double BestRate(Team& team, const std::function<double(int member, long rounds)>& run,
                double seconds, int samples) {
  std::vector<double> units(static_cast<std::size_t>(team.size()));
  auto sample = [&](long rounds, double& elapsed) {
    elapsed = team.Run([&](int i) { units[static_cast<std::size_t>(i)] = run(i, rounds); });
    double total = 0;
    for (double u : units) total += u;
    return total;
  };
  long rounds = 1;
  double elapsed = 0;
  double best = 0;
  double total = sample(rounds, elapsed);
  while (elapsed < seconds / 4 && rounds < (1L << 40)) {
    rounds *= elapsed > 0 ? std::max(2L, static_cast<long>(seconds / 4 / elapsed)) : 2L;
    total = sample(rounds, elapsed);
  }
  if (elapsed > 0) best = total / elapsed;
  const long sized = std::max(
      1L, static_cast<long>(static_cast<double>(rounds) * seconds / std::max(elapsed, 1e-9)));
  for (int s = 0; s < samples; ++s) {
    total = sample(sized, elapsed);
    if (elapsed > 0) best = std::max(best, total / elapsed);
  }
  return best;
}

// The arrays of one kernel carved from one member's buffer of `bytes`.
struct Arrays {
  float* a = nullptr;
  float* b = nullptr;
  float* c = nullptr;
  std::size_t n = 0;  ///< floats per array
};

int ArrayCount(const std::string& kernel) {
  if (kernel == kRead) return 1;
  if (kernel == kCopy) return 2;
  return 3;
}

Arrays Carve(float* base, std::int64_t bytes, int arrays) {
  const std::int64_t floats = bytes / 4 / arrays / kElementStep * kElementStep;
  const auto n = static_cast<std::size_t>(floats);
  return {base, arrays > 1 ? base + n : base, arrays > 2 ? base + 2 * n : base, n};
}

BandwidthLoop LoopOf(const BandwidthKernels& kernels, const std::string& kernel) {
  if (kernel == kRead) return kernels.read;
  if (kernel == kCopy) return kernels.copy;
  if (kernel == kTriad) return kernels.triad;
  return kernels.triad_nt;
}

// GB/s of `kernel` over `bytes` of each member's buffer, all members at once.
double MeasureBandwidth(Team& team, const std::vector<Buffer>& buffers, const BandwidthKernels& k,
                        const std::string& kernel, std::int64_t bytes, const MeasurePlan& plan,
                        std::int64_t* working_set) {
  const int arrays = ArrayCount(kernel);
  const BandwidthLoop loop = LoopOf(k, kernel);
  std::vector<Arrays> carved;
  for (const Buffer& buffer : buffers) {
    if (!buffer) return 0;
    carved.push_back(Carve(buffer.get(), bytes, arrays));
  }
  if (carved.front().n == 0) return 0;
  if (working_set != nullptr) {
    *working_set = static_cast<std::int64_t>(carved.front().n) * 4 * arrays;
  }
  std::vector<float> sinks(static_cast<std::size_t>(team.size()) * 16);
  const double rate = BestRate(
      team,
      [&](int i, long passes) {
        const Arrays& x = carved[static_cast<std::size_t>(i)];
        loop(x.a, x.b, x.c, x.n, passes, &sinks[static_cast<std::size_t>(i) * 16]);
        return static_cast<double>(x.n) * 4 * arrays * static_cast<double>(passes);
      },
      plan.sample_seconds, plan.samples);
  return rate / 1e9;
}

double MeasurePeak(Team& team, const ComputeKernel& kernel, const MeasurePlan& plan) {
  if (kernel.prepare != nullptr) team.Run([&](int) { kernel.prepare(); });
  const double rate = BestRate(
      team, [&](int, long rounds) { return kernel.run(rounds); }, plan.sample_seconds,
      plan.samples);
  if (kernel.finish != nullptr) team.Run([&](int) { kernel.finish(); });
  return rate / 1e9;
}

std::string CpuList(const std::vector<int>& cpus, int count) {
  std::string list;
  for (int i = 0; i < count; ++i) {
    list += (i > 0 ? "," : "") + std::to_string(cpus[static_cast<std::size_t>(i)]);
  }
  return list;
}

const char* const kSweepKernels[] = {kRead, kCopy, kTriad};
const char* const kThreadKernels[] = {kRead, kCopy, kTriad, kTriadNt};

std::string SizeText(std::int64_t bytes) {
  if (bytes >= kMiB) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes / kKiB) + " KiB";
}

}  // namespace

std::vector<int> ThreadCounts(int n) {
  std::vector<int> counts;
  if (n <= 8) {
    for (int t = 1; t <= n; ++t) counts.push_back(t);
    return counts;
  }
  for (int t = 1; t < n; t *= 2) counts.push_back(t);
  counts.push_back(n);
  return counts;
}

std::int64_t DramFrom(const std::vector<CacheSize>& caches) {
  std::int64_t largest = 0;
  for (const CacheSize& c : caches) largest = std::max(largest, c.bytes * c.instances);
  return 4 * largest;
}

MeasurePlan PlanMeasurements(const PlanInput& input) {
  MeasurePlan plan;
  plan.quick = input.quick;
  plan.cpus = input.cpus.empty() ? std::vector<int>{0} : input.cpus;
  plan.caches = input.caches;
  std::int64_t dram =
      std::max(input.quick ? 32 * kMiB : 64 * kMiB, (input.quick ? 1 : 2) * DramFrom(input.caches));
  dram = PowerOfTwoAtLeast(dram);
  dram = std::min(dram, input.quick ? 256 * kMiB : 1024 * kMiB);
  if (input.memory_bytes > 0) dram = std::min(dram, PowerOfTwoAtMost(input.memory_bytes / 8));
  plan.dram_bytes = std::max(dram, kSmallestWorkingSet);
  const std::int64_t factor = input.quick ? 4 : 2;
  for (std::int64_t s = kSmallestWorkingSet; s < plan.dram_bytes; s *= factor) {
    plan.sweep_sizes.push_back(s);
  }
  plan.sweep_sizes.push_back(plan.dram_bytes);
  plan.thread_counts = ThreadCounts(static_cast<int>(plan.cpus.size()));
  plan.peak_thread_counts = {1};
  if (plan.cpus.size() > 1) plan.peak_thread_counts.push_back(static_cast<int>(plan.cpus.size()));
  plan.sample_seconds = input.quick ? 0.01 : 0.04;
  plan.samples = input.quick ? 2 : 5;
  return plan;
}

std::int64_t FlatTailFrom(const std::vector<SweepPoint>& sweep) {
  std::vector<const SweepPoint*> read;
  for (const SweepPoint& s : sweep) {
    if (s.kernel == kRead && s.gbps > 0) read.push_back(&s);
  }
  std::sort(read.begin(), read.end(), [](const SweepPoint* a, const SweepPoint* b) {
    return a->working_set_bytes < b->working_set_bytes;
  });
  double lowest = std::numeric_limits<double>::infinity();
  double highest = 0;
  std::size_t first = read.size();
  while (first > 0) {
    const double gbps = read[first - 1]->gbps;
    if (std::max(highest, gbps) > kFlatTailSpread * std::min(lowest, gbps)) break;
    lowest = std::min(lowest, gbps);
    highest = std::max(highest, gbps);
    --first;
  }
  const bool long_enough = read.size() - first >= static_cast<std::size_t>(kFlatTailPoints);
  // The bandwidth fell into the tail: a tail that starts at the sweep's first point, or right
  // after a point no faster, is no level of its own.
  if (!long_enough || first == 0 || read[first - 1]->gbps <= kFlatTailSpread * highest) return 0;
  // Just above the size before the tail: the kernels' working sets at one size differ by a few
  // bytes (three arrays of whole vectors), and each size belongs to one level.
  return read[first - 1]->working_set_bytes + 1;
}

std::vector<Plateau> PlateausOf(const std::vector<SweepPoint>& sweep,
                                const std::vector<CacheSize>& caches) {
  std::vector<Plateau> plateaus;
  auto figures = [&](Plateau& p, std::int64_t above, std::int64_t at_most) {
    std::int64_t from = 0;
    std::int64_t to = 0;
    auto median_of = [&](const char* kernel) -> std::optional<double> {
      std::vector<double> values;
      for (const SweepPoint& s : sweep) {
        if (s.kernel != kernel || s.working_set_bytes <= above || s.working_set_bytes > at_most) {
          continue;
        }
        values.push_back(s.gbps);
        from = from == 0 ? s.working_set_bytes : std::min(from, s.working_set_bytes);
        to = std::max(to, s.working_set_bytes);
      }
      if (values.empty()) return std::nullopt;
      return Median(values);
    };
    p.read_gbps = median_of(kRead);
    p.copy_gbps = median_of(kCopy);
    p.triad_gbps = median_of(kTriad);
    p.from_bytes = from;
    p.to_bytes = to;
  };
  std::int64_t dram_from = DramFrom(caches);
  const bool reached = std::any_of(sweep.begin(), sweep.end(), [&](const SweepPoint& s) {
    return s.working_set_bytes >= dram_from;
  });
  if (!reached) {
    if (const std::int64_t tail = FlatTailFrom(sweep); tail > 0) dram_from = tail;
  }
  std::int64_t previous = 0;
  for (const CacheSize& cache : caches) {
    Plateau p{.level = cache.level, .cache_bytes = cache.bytes};
    figures(p, previous, std::min(cache.bytes / 2, dram_from - 1));
    plateaus.push_back(p);
    previous = cache.bytes;
  }
  Plateau dram{.level = "DRAM"};
  figures(dram, dram_from - 1, INT64_MAX);
  plateaus.push_back(dram);
  return plateaus;
}

std::size_t StepCount(const MeasurePlan& plan, const detect::FeatureSet& usable) {
  return plan.sweep_sizes.size() * std::size(kSweepKernels) +
         plan.thread_counts.size() * std::size(kThreadKernels) +
         plan.peak_thread_counts.size() * ComputeKernelsFor(usable).size();
}

Measured Measure(const MeasurePlan& plan, const detect::FeatureSet& usable,
                 const MeasureHooks& hooks) {
  Measured m;
  const BandwidthKernels bandwidth = BandwidthKernelsFor(usable);
  const std::vector<ComputeKernel> compute = ComputeKernelsFor(usable);
  auto next = [&](const std::string& name) {
    if (hooks.stop && hooks.stop()) {
      m.interrupted = true;
      return false;
    }
    if (hooks.step) hooks.step(name);
    return true;
  };
  std::vector<int> counts = plan.thread_counts;
  for (int t : plan.peak_thread_counts) {
    if (std::find(counts.begin(), counts.end(), t) == counts.end()) counts.push_back(t);
  }
  std::sort(counts.begin(), counts.end());
  for (int threads : counts) {
    Team team(std::vector<int>(plan.cpus.begin(), plan.cpus.begin() + threads));
    const std::int64_t each = plan.dram_bytes / threads / 256 * 256;
    const std::vector<Buffer> buffers = AllocatePerMember(team, each);
    if (threads == 1) {
      for (std::int64_t size : plan.sweep_sizes) {
        for (const char* kernel : kSweepKernels) {
          if (!next(std::string(kernel) + " " + SizeText(size) + ", 1 thread")) return m;
          SweepPoint point{.kernel = kernel};
          point.gbps = MeasureBandwidth(team, buffers, bandwidth, kernel, size, plan,
                                        &point.working_set_bytes);
          m.sweep.push_back(point);
        }
      }
    }
    if (std::find(plan.thread_counts.begin(), plan.thread_counts.end(), threads) !=
        plan.thread_counts.end()) {
      ThreadBandwidth row{.threads = threads, .cpus = CpuList(plan.cpus, threads)};
      for (const char* kernel : kThreadKernels) {
        if (!next(std::string(kernel) + " DRAM, " + std::to_string(threads) + " threads")) {
          return m;
        }
        const double gbps = MeasureBandwidth(team, buffers, bandwidth, kernel, each, plan, nullptr);
        if (kernel == kRead) row.read_gbps = gbps;
        if (kernel == kCopy) row.copy_gbps = gbps;
        if (kernel == kTriad) row.triad_gbps = gbps;
        if (kernel == kTriadNt) row.triad_nt_gbps = gbps;
      }
      m.threads.push_back(row);
    }
    if (std::find(plan.peak_thread_counts.begin(), plan.peak_thread_counts.end(), threads) !=
        plan.peak_thread_counts.end()) {
      for (const ComputeKernel& kernel : compute) {
        if (!next(kernel.dtype + " " + kernel.unit + ", " + std::to_string(threads) + " threads")) {
          return m;
        }
        m.peaks.push_back({kernel.dtype, kernel.unit, kernel.instruction, threads,
                           MeasurePeak(team, kernel, plan)});
      }
    }
  }
  return m;
}

}  // namespace dlcheck::roofline
