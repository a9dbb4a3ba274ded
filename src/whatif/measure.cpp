// SPDX-License-Identifier: Apache-2.0
#include "whatif/measure.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <omp.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <optional>

#include "common/primitive_kinds.h"
#include "dispatch/process_audit.h"
#include "os/input_file.h"
#include "verbose/shape_math.h"
#include "whatif/layout.h"

namespace dlcheck::whatif {
namespace {

using dnnl::memory;
using Clock = std::chrono::steady_clock;

// The least time one execution may take before it is stopped and the variant not measured.
constexpr double kFirstRunCeilingMs = 10000;
// How often a child that runs the first execution is asked whether it computes, and the share of
// its time on the CPU below which it waits instead (a computing child uses all of it).
constexpr double kStallCheckMs = 500;
constexpr double kStalledCpuShare = 0.25;

// How many elements a pass over a tensor handles between two questions to `stop`.
constexpr std::size_t kStopCheckElements = std::size_t{1} << 22;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

bool IsInteger(memory::data_type type) {
  return type == memory::data_type::s8 || type == memory::data_type::u8 ||
         type == memory::data_type::s32;
}

bool SourceLike(int arg) {
  return arg == DNNL_ARG_SRC || arg == DNNL_ARG_SRC_1 || arg == DNNL_ARG_DIFF_DST;
}

// The value of element `i` of argument `arg`: small and finite, in [-0.5, 0.5), in 97ths, which
// neither bf16 nor f16 holds exactly: a data-type variant rounds its inputs and its sums as the
// change would (multiples of 1/8, exact in both, gave a deviation of 0). Integers for an integer
// tensor or an int8 variant and its f32 reference.
float ValueOf(std::size_t i, int arg, bool integer) {
  if (arg == DNNL_ARG_VARIANCE) return 0.5f + static_cast<float>(i % 3) / 8.f;
  if (integer) {
    return SourceLike(arg) ? static_cast<float>((i * 7 + 3) % 4)
                           : static_cast<float>(static_cast<int>((i * 5 + 1) % 5) - 2);
  }
  constexpr int kLevels = 97;
  const auto level = static_cast<int>((i * 7 + static_cast<std::size_t>(arg) * 3) % kLevels);
  return static_cast<float>(level) / kLevels - 0.5f;
}

// The elements of a rebuilt tensor: its dimensions were checked (verbose/shape_math.h) before
// oneDNN saw them, so the product is at most 2^48; 0 for a product that could not be.
std::size_t Elements(const memory::dims& dims) {
  return static_cast<std::size_t>(verbose::CheckedProduct(dims).value_or(0));
}

// IEEE half precision from f32, rounded to nearest even: exact for every value the fill writes
// (normal halves and zero); what would be a subnormal half is flushed to a signed zero.
std::uint16_t HalfOf(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000);
  const std::uint32_t magnitude = bits & 0x7fffffff;
  if (magnitude > 0x7f800000) return sign | 0x7e00;   // NaN
  if (magnitude >= 0x477ff000) return sign | 0x7c00;  // 65520 and above round to infinity
  if (magnitude < 0x38800000) return sign;            // below 2^-14
  const std::uint32_t mantissa = magnitude & 0x7fffff;
  std::uint32_t half = (((magnitude >> 23) - 112) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // a carry raises the exponent
  return static_cast<std::uint16_t>(sign | half);
}

float FloatOfHalf(std::uint16_t half) {
  const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000) << 16;
  const std::uint32_t exponent = (half >> 10) & 0x1f;
  const std::uint32_t mantissa = half & 0x3ff;
  if (exponent == 0) {
    const float subnormal = std::ldexp(static_cast<float>(mantissa), -24);
    return sign != 0 ? -subnormal : subnormal;
  }
  if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000 | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// bfloat16 from f32, rounded to nearest even (a NaN stays a NaN).
std::uint16_t Bf16Of(float value) {
  const auto bits = std::bit_cast<std::uint32_t>(value);
  if ((bits & 0x7fffffff) > 0x7f800000) return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  return static_cast<std::uint16_t>((bits + 0x7fff + ((bits >> 16) & 1)) >> 16);
}

bool IsHalfWidth(memory::data_type type) {
  return type == memory::data_type::f16 || type == memory::data_type::bf16;
}

// The f32 twin of a bf16 or f16 descriptor: the same layout (blocks, strides, padding) with
// 4-byte elements. oneDNN 2.6.3 converts between f32 and the half-width types in its `simple`
// reorder where the host lacks the instructions (f16 without AVX-512: 45 s for 256 MiB here);
// between two layouts of one type, and elementwise in dlcheck's loop, it is fast everywhere.
memory::desc F32Twin(const memory::desc& desc) {
  memory::desc twin = desc;
  twin.data.data_type = dnnl_f32;
  return twin;
}

// Converts `count` elements between an f32 buffer and a half-width one of the same layout,
// asking `stop` every 2^22 elements: false when it stopped.
bool Narrow(const float* from, std::uint16_t* to, std::size_t count, memory::data_type type,
            const std::function<bool()>& stop) {
  const bool f16 = type == memory::data_type::f16;
  for (std::size_t i = 0; i < count; ++i) {
    if (i % kStopCheckElements == 0 && stop && stop()) return false;
    to[i] = f16 ? HalfOf(from[i]) : Bf16Of(from[i]);
  }
  return true;
}

void Widen(const std::uint16_t* from, float* to, std::size_t count, memory::data_type type) {
  const bool f16 = type == memory::data_type::f16;
  for (std::size_t i = 0; i < count; ++i) {
    to[i] = f16 ? FloatOfHalf(from[i]) : std::bit_cast<float>(std::uint32_t{from[i]} << 16);
  }
}

// Fills `mem` through a dense f32 copy reordered into its layout and type (padding zeroed); a
// bf16 or f16 tensor through its f32 twin (F32Twin), converted by dlcheck. `stop` is asked every
// 2^22 elements (a large tensor takes seconds to fill): false when it stopped the filling.
bool Fill(memory& mem, int arg, bool integer, const dnnl::engine& engine, dnnl::stream& stream,
          const std::function<bool()>& stop = {}) {
  const memory::desc desc = mem.get_desc();
  const memory::dims dims = desc.dims();
  if (dims.empty()) return true;
  if (desc.data.format_kind != dnnl_blocked) {
    std::memset(mem.get_data_handle(), 0, desc.get_size());
    return true;
  }
  if (IsHalfWidth(desc.data_type())) {
    memory twin(F32Twin(desc), engine);
    if (!Fill(twin, arg, integer, engine, stream, stop)) return false;
    return Narrow(static_cast<const float*>(twin.get_data_handle()),
                  static_cast<std::uint16_t*>(mem.get_data_handle()), desc.get_size() / 2,
                  desc.data_type(), stop);
  }
  const bool as_integer = integer || IsInteger(desc.data_type());
  memory plain(PlainDesc(dims, memory::data_type::f32), engine);
  float* values = static_cast<float*>(plain.get_data_handle());
  const std::size_t n = Elements(dims);
  for (std::size_t i = 0; i < n; ++i) {
    if (i % kStopCheckElements == 0 && stop && stop()) return false;
    values[i] = ValueOf(i, arg, as_integer);
  }
  if (stop && stop()) return false;
  // Only a padded layout has bytes the reorder leaves: zeroing a dense one would be a second
  // pass over the tensor that no signal can stop.
  if (desc.get_size() != n * memory::data_type_size(desc.data_type())) {
    std::memset(mem.get_data_handle(), 0, desc.get_size());
    if (stop && stop()) return false;
  }
  dnnl::reorder(plain, mem).execute(stream, plain, mem);
  stream.wait();
  return true;
}

// The bytes filling a tensor of `desc` holds besides the tensor, at its peak: the dense f32 copy,
// and the f32 twin of a half-width tensor.
std::size_t FillBytes(const memory::desc& desc) {
  if (desc.data.format_kind != dnnl_blocked || desc.data.ndims == 0) return 0;
  const memory::dims dims = desc.dims();
  const std::size_t dense = Elements(dims) * sizeof(float);
  return IsHalfWidth(desc.data_type()) ? dense + F32Twin(desc).get_size() : dense;
}

// The dense f32 copy of `mem`, reordered straight into storage that is not zeroed first (one
// pass over a tensor of any size, and that pass is oneDNN's, in parallel); a half-width tensor
// widened into its f32 twin first (F32Twin).
DenseValues DenseOutput(const memory& mem, const dnnl::engine& engine, dnnl::stream& stream) {
  const memory::dims dims = mem.get_desc().dims();
  DenseValues values{.size = Elements(dims)};
  if (values.empty()) return values;  // no element: no buffer for oneDNN to write
  values.storage = std::make_unique_for_overwrite<float[]>(values.size);
  memory plain(PlainDesc(dims, memory::data_type::f32), engine, values.storage.get());
  const memory::desc desc = mem.get_desc();
  if (desc.data.format_kind == dnnl_blocked && IsHalfWidth(desc.data_type())) {
    memory twin(F32Twin(desc), engine);
    Widen(static_cast<const std::uint16_t*>(mem.get_data_handle()),
          static_cast<float*>(twin.get_data_handle()), desc.get_size() / 2, desc.data_type());
    dnnl::reorder(twin, plain).execute(stream, twin, plain);
  } else {
    dnnl::reorder(mem, plain).execute(stream, const_cast<memory&>(mem), plain);
  }
  stream.wait();
  return values;
}

// The descriptors of every argument an execution passes.
std::map<int, memory::desc> ArgumentDescs(const Rebuilt& rebuilt) {
  std::map<int, memory::desc> descs;
  const dnnl::primitive_desc_base& pd = rebuilt.current();
  if (rebuilt.is_reorder) {
    descs[DNNL_ARG_FROM] = pd.src_desc();
    descs[DNNL_ARG_TO] = pd.dst_desc();
  } else {
    for (int arg : ExecutionArguments()) {
      const memory::desc md = pd.query_md(dnnl::query::exec_arg_md, arg);
      if (md.data.ndims > 0) descs[arg] = md;
    }
  }
  const memory::desc scratch = pd.scratchpad_desc();
  if (scratch.get_size() > 0) descs[DNNL_ARG_SCRATCHPAD] = scratch;
  for (const auto& [arg, md] : rebuilt.extra_args) descs[arg] = md;
  return descs;
}

// The tensors' bytes and, on top, the largest that filling one of them holds for a while.
std::size_t BytesOf(const std::map<int, memory::desc>& descs) {
  // Saturated: a sum past SIZE_MAX stays above every limit instead of wrapping to a small one.
  std::size_t bytes = 0;
  std::size_t filling = 0;
  for (const auto& [arg, md] : descs) {
    if (__builtin_add_overflow(bytes, md.get_size(), &bytes)) return SIZE_MAX;
    filling = std::max(filling, FillBytes(md));
  }
  return __builtin_add_overflow(bytes, filling, &bytes) ? SIZE_MAX : bytes;
}

// Fills a run-time scale or zero point: scales 1, zero points 0.
void FillAttribute(memory& mem, int arg) {
  const memory::desc desc = mem.get_desc();
  if (desc.data_type() == memory::data_type::f32 && (arg & DNNL_ARG_ATTR_OUTPUT_SCALES)) {
    float* v = static_cast<float*>(mem.get_data_handle());
    std::fill(v, v + desc.get_size() / sizeof(float), 1.f);
  } else {
    std::memset(mem.get_data_handle(), 0, desc.get_size());
  }
}

bool IsAttributeArg(int arg) {
  return arg == DNNL_ARG_ATTR_OUTPUT_SCALES || (arg & DNNL_ARG_ATTR_ZERO_POINTS) != 0;
}

// A backward pass that reads its forward pass's workspace (max pooling's argmax, lrn, a fused
// ReLU's mask): the forward hint runs once on `set`, untimed, to write it as training does. Its
// other arguments are the set's where the descriptors agree (the source, the statistics), fresh
// filled ones where they do not.
void WriteWorkspace(const Rebuilt& rebuilt, std::unordered_map<int, memory>& set,
                    const dnnl::engine& engine, dnnl::stream& stream) {
  if (!rebuilt.hint || !set.contains(DNNL_ARG_WORKSPACE)) return;
  std::unordered_map<int, memory> forward_args;
  for (int arg : ExecutionArguments()) {
    const memory::desc md = rebuilt.hint.query_md(dnnl::query::exec_arg_md, arg);
    if (md.data.ndims == 0) continue;
    const auto it = set.find(arg);
    if (it != set.end() && it->second.get_desc() == md) {
      forward_args.emplace(arg, it->second);
      continue;
    }
    memory mem(md, engine);
    if (arg != DNNL_ARG_SCRATCHPAD) Fill(mem, arg, false, engine, stream);
    forward_args.emplace(arg, mem);
  }
  dnnl::primitive(rebuilt.hint.get()).execute(stream, forward_args);
  stream.wait();
}

// A quarter of the memory available now, at most 4 GiB.
std::size_t MemoryLimitBytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  const std::size_t available =
      pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                            : (std::size_t{4} << 30);
  return std::min<std::size_t>(available / 4, std::size_t{4} << 30);
}

// Whether the first execution is tried in a child first: a reference or simple implementation
// (plain C++ loops: an f16 reorder of 256 MiB took 45 s in simple:any on a host without AVX-512
// conversions). They take their threads when they run (parallel_nd), so one thread in the child
// runs them; a JIT kernel fixes its threads when it is created and would wait in the child for
// the parent's pool, which fork does not copy. JIT kernels run in place.
bool FirstRunIsUnbounded(const std::string& implementation) {
  return implementation.starts_with("ref") || implementation.starts_with("simple");
}

// The CPU time a process has used (user and system), in seconds; nullopt when /proc says none.
std::optional<double> CpuSecondsOf(pid_t pid) {
  const std::optional<dispatch::TaskStat> stat = dispatch::ParseTaskStat(
      os::ReadProcFile("/proc/" + std::to_string(pid) + "/stat").value_or(std::string()));
  const long ticks = sysconf(_SC_CLK_TCK);
  if (!stat || ticks <= 0) return std::nullopt;
  return static_cast<double>(stat->cpu_ticks) / static_cast<double>(ticks);
}

// How the first execution in a child ended.
struct FirstRunProbe {
  // kStalled: the child waited instead of computing (an implementation that fixed its threads
  // when it was created waits for the parent's OpenMP pool, which fork does not copy).
  enum class End { kRan, kTooLong, kStalled, kFailed, kStopped, kNotTried } end = End::kNotTried;
  double ms = 0;  ///< kRan: its time
  std::string failure;
};

// Runs the primitive once on one thread in a forked child (its memory a copy of dlcheck's: the
// inputs are there, and what it writes stays there), waiting `ceiling_ms` at most and asking
// `stop` every 50 ms: oneDNN cannot be interrupted inside an execution, a child can be killed.
// A child that waits instead of computing (kStalled) is killed after half a second.
FirstRunProbe ProbeFirstRun(const dnnl::primitive& primitive, const dnnl::engine& engine,
                            const std::unordered_map<int, memory>& args, double ceiling_ms,
                            const std::function<bool()>& stop) {
  FirstRunProbe probe;
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return probe;
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return probe;
  }
  if (pid == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(fds[0]);
    // One thread: the parent's OpenMP pool is not in the child, and a parallel region would wait
    // for it there forever.
    omp_set_num_threads(1);
    double ms = -1;
    try {
      dnnl::stream stream(engine);
      const Clock::time_point start = Clock::now();
      primitive.execute(stream, args);
      stream.wait();
      ms = MsSince(start);
    } catch (...) {
    }
    const ssize_t wrote = write(fds[1], &ms, sizeof ms);
    _exit(wrote == static_cast<ssize_t>(sizeof ms) && ms >= 0 ? 0 : 1);
  }
  close(fds[1]);
  const Clock::time_point start = Clock::now();
  double ms = -1;
  bool got = false;
  double last_check_ms = 0;
  while (true) {
    if (stop && stop()) {
      probe.end = FirstRunProbe::End::kStopped;
      break;
    }
    const double elapsed_ms = MsSince(start);
    if (elapsed_ms > ceiling_ms) {
      probe.end = FirstRunProbe::End::kTooLong;
      break;
    }
    // Computing on one thread uses its CPU all the time; waiting uses none.
    if (elapsed_ms > kStallCheckMs && elapsed_ms - last_check_ms > kStallCheckMs) {
      last_check_ms = elapsed_ms;
      const std::optional<double> cpu_s = CpuSecondsOf(pid);
      if (cpu_s && *cpu_s * 1000 < kStalledCpuShare * elapsed_ms) {
        probe.end = FirstRunProbe::End::kStalled;
        break;
      }
    }
    pollfd p{.fd = fds[0], .events = POLLIN, .revents = 0};
    if (poll(&p, 1, 50) > 0) {
      got = read(fds[0], &ms, sizeof ms) == static_cast<ssize_t>(sizeof ms);
      break;
    }
  }
  close(fds[0]);
  if (!got) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (probe.end != FirstRunProbe::End::kNotTried) return probe;
  if (got && ms >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    probe.end = FirstRunProbe::End::kRan;
    probe.ms = ms;
  } else {
    probe.end = FirstRunProbe::End::kFailed;
    probe.failure = WIFSIGNALED(status)
                        ? fmt::format("it was killed by signal {}", WTERMSIG(status))
                        : "oneDNN could not execute it";
  }
  return probe;
}

}  // namespace

StatusOr<Measurement> Measure(const Rebuilt& rebuilt, const dnnl::engine& engine,
                              const MeasureSettings& settings) {
  Measurement m;
  const auto stopped = [&settings] { return settings.stop && settings.stop(); };
  // A signal ends the run within one execution: nothing more is filled, created or run.
  const auto stopped_error = [] { return InputError("not measured: stopped by a signal"); };
  if (stopped()) return stopped_error();
  try {
    dnnl::stream stream(engine);
    const std::map<int, memory::desc> descs = ArgumentDescs(rebuilt);
    const std::size_t bytes = std::max<std::size_t>(BytesOf(descs), 1);
    // A problem larger than a quarter of the free memory (4 GiB at most) is not measured: a
    // log's dimensions are anyone's, and filling them must not exhaust the host.
    const std::size_t limit = MemoryLimitBytes();
    if (bytes > limit) {
      return InputError(fmt::format(
          "not measured: its tensors (and the copies that fill them) need {:.1f} GiB, more than "
          "the {:.1f} GiB "
          "dlcheck allows itself here",
          static_cast<double>(bytes) / (1u << 30), static_cast<double>(limit) / (1u << 30)));
    }
    const std::size_t sets =
        settings.cold ? std::clamp<std::size_t>(
                            std::min(2 * settings.cache_bytes, limit) / bytes + 1, 1, 1024)
                      : 1;
    std::vector<std::unordered_map<int, memory>> args(sets);
    for (auto& set : args) {
      if (stopped()) return stopped_error();
      for (const auto& [arg, md] : descs) {
        memory mem(md, engine);
        if (IsAttributeArg(arg)) {
          FillAttribute(mem, arg);
        } else if (arg != DNNL_ARG_SCRATCHPAD &&
                   !Fill(mem, arg, settings.integer_inputs, engine, stream, settings.stop)) {
          return stopped_error();
        }
        set.emplace(arg, mem);
      }
      if (stopped()) return stopped_error();
      WriteWorkspace(rebuilt, set, engine, stream);
    }
    const Clock::time_point created = Clock::now();
    dnnl::primitive primitive(rebuilt.current().get());
    m.create_ms = MsSince(created);
    m.implementation = rebuilt.implementation();
    if (stopped()) return stopped_error();
    // A bound on each variant: 10 budgets (a second at least). A kernel slower than that
    // (reference code on a large problem) is timed by its first run alone, and says so; one
    // whose reference code runs longer than 10 such limits (10 s at least) on one thread is not
    // measured.
    const double budget_ms = settings.budget_s * 1000;
    const double limit_ms = std::max(10 * budget_ms, 1000.0);
    const double ceiling_ms = std::max(10 * limit_ms, kFirstRunCeilingMs);
    if (FirstRunIsUnbounded(m.implementation)) {
      const FirstRunProbe probe =
          ProbeFirstRun(primitive, engine, args[0], ceiling_ms, settings.stop);
      switch (probe.end) {
        case FirstRunProbe::End::kStopped:
          return stopped_error();
        case FirstRunProbe::End::kTooLong:
          return InputError(fmt::format(
              "not measured: one run of {} on one thread took longer than {:.0f} s (stopped "
              "there)",
              m.implementation, ceiling_ms / 1000));
        case FirstRunProbe::End::kFailed:
          return InputError("oneDNN 2.6.3 could not run it: " + probe.failure);
        case FirstRunProbe::End::kRan:  // within the ceiling on one thread: here it is faster
          break;
        case FirstRunProbe::End::kStalled:   // it cannot run in a child: run it here
        case FirstRunProbe::End::kNotTried:  // no child could be made: run it here
          break;
      }
    }
    const Clock::time_point untimed = Clock::now();
    primitive.execute(stream, args[0]);  // untimed: first-touch, JIT warm-up
    stream.wait();
    const double first_ms = MsSince(untimed);
    if (stopped()) return stopped_error();
    if (settings.keep_output) {
      const int out = rebuilt.is_reorder ? DNNL_ARG_TO : rebuilt.output_arg;
      if (args[0].contains(out)) m.output = DenseOutput(args[0].at(out), engine, stream);
    }
    if (first_ms > limit_ms) {
      m.min_ms = m.avg_ms = first_ms;
      m.runs = 1;
      m.note = "timed by its first run alone: it took longer than the limit of each variant";
      return m;
    }
    double total = 0;
    m.min_ms = 0;
    for (std::size_t i = 1;
         (total < budget_ms || m.runs < static_cast<std::uint64_t>(settings.min_runs)) &&
         total < limit_ms;
         ++i) {
      if (settings.stop && settings.stop()) break;
      std::unordered_map<int, memory>& set = args[i % sets];
      const Clock::time_point start = Clock::now();
      primitive.execute(stream, set);
      stream.wait();
      const double ms = MsSince(start);
      m.min_ms = m.runs == 0 ? ms : std::min(m.min_ms, ms);
      total += ms;
      ++m.runs;
    }
    if (m.runs < static_cast<std::uint64_t>(settings.min_runs) &&
        !(settings.stop && settings.stop())) {
      m.note = "only " + std::to_string(m.runs) +
               " runs: each took longer than the limit of each variant allows";
    }
    m.avg_ms = m.runs > 0 ? total / static_cast<double>(m.runs) : 0;
  } catch (const dnnl::error& e) {
    return InputError(std::string("oneDNN 2.6.3 could not run it: ") + e.what());
  }
  return m;
}

std::optional<Deviation> DeviationOf(std::span<const float> got, std::span<const float> reference,
                                     const std::function<bool()>& stop) {
  Deviation d;
  double largest = 0;
  const std::size_t n = std::min(got.size(), reference.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (i % kStopCheckElements == 0 && stop && stop()) return std::nullopt;
    d.max_abs = std::max(d.max_abs, std::fabs(static_cast<double>(got[i]) - reference[i]));
    largest = std::max(largest, std::fabs(static_cast<double>(reference[i])));
  }
  d.relative_to_largest = largest > 0 ? d.max_abs / largest : d.max_abs;
  return d;
}

std::optional<Rebuilt> ReorderBetween(const memory::desc& from, const memory::desc& to,
                                      const dnnl::engine& engine) {
  Rebuilt r;
  r.kind = onednn::NameOf(onednn::Kind::kReorder);
  r.is_reorder = true;
  r.output_arg = DNNL_ARG_TO;
  try {
    r.reorder_pd = dnnl::reorder::primitive_desc(engine, from, engine, to);
  } catch (const dnnl::error&) {
    return std::nullopt;
  }
  return r;
}

std::size_t LastLevelCacheBytes() {
  for (int name : {_SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
    const long bytes = sysconf(name);
    if (bytes > 0) return static_cast<std::size_t>(bytes);
  }
  return std::size_t{32} << 20;
}

void SetThreads(int threads) {
  omp_set_num_threads(std::max(threads, 1));
}

int MaxThreads() {
  return omp_get_max_threads();
}

}  // namespace dlcheck::whatif
