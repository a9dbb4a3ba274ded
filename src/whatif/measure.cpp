// SPDX-License-Identifier: Apache-2.0
#include "whatif/measure.h"

#include <fmt/format.h>
#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>

#include "common/primitive_kinds.h"
#include "verbose/shape_math.h"
#include "whatif/layout.h"

namespace dlcheck::whatif {
namespace {

using dnnl::memory;
using Clock = std::chrono::steady_clock;

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

// Fills `mem` through a dense f32 copy reordered into its layout and type (padding zeroed).
// `stop` is asked every 2^22 elements (a large tensor takes seconds to fill): false when it
// stopped the filling.
bool Fill(memory& mem, int arg, bool integer, const dnnl::engine& engine, dnnl::stream& stream,
          const std::function<bool()>& stop = {}) {
  const memory::desc desc = mem.get_desc();
  const memory::dims dims = desc.dims();
  if (dims.empty()) return true;
  if (desc.data.format_kind != dnnl_blocked) {
    std::memset(mem.get_data_handle(), 0, desc.get_size());
    return true;
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

// The dense f32 copy of `mem`, reordered straight into storage that is not zeroed first (one
// pass over a tensor of any size, and that pass is oneDNN's, in parallel).
DenseValues DenseOutput(const memory& mem, const dnnl::engine& engine, dnnl::stream& stream) {
  const memory::dims dims = mem.get_desc().dims();
  DenseValues values{.size = Elements(dims)};
  if (values.empty()) return values;  // no element: no buffer for oneDNN to write
  values.storage = std::make_unique_for_overwrite<float[]>(values.size);
  memory plain(PlainDesc(dims, memory::data_type::f32), engine, values.storage.get());
  dnnl::reorder(mem, plain).execute(stream, const_cast<memory&>(mem), plain);
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

std::size_t BytesOf(const std::map<int, memory::desc>& descs) {
  // Saturated: a sum past SIZE_MAX stays above every limit instead of wrapping to a small one.
  std::size_t bytes = 0;
  for (const auto& [arg, md] : descs) {
    if (__builtin_add_overflow(bytes, md.get_size(), &bytes)) return SIZE_MAX;
  }
  return bytes;
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
          "not measured: its tensors need {:.1f} GiB, more than the {:.1f} GiB "
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
    const Clock::time_point untimed = Clock::now();
    primitive.execute(stream, args[0]);  // untimed: first-touch, JIT warm-up
    stream.wait();
    const double first_ms = MsSince(untimed);
    if (stopped()) return stopped_error();
    if (settings.keep_output) {
      const int out = rebuilt.is_reorder ? DNNL_ARG_TO : rebuilt.output_arg;
      if (args[0].contains(out)) m.output = DenseOutput(args[0].at(out), engine, stream);
    }
    // A bound on each variant: 10 budgets (a second at least). A kernel slower than that
    // (reference code on a large problem) is timed by its first run alone, and says so.
    const double budget_ms = settings.budget_s * 1000;
    const double limit_ms = std::max(10 * budget_ms, 1000.0);
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
