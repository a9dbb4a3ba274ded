// SPDX-License-Identifier: Apache-2.0
// The sweep's comparison (see sweep_compare.h).
#include "dispatch/sweep_compare.h"

#include <algorithm>

#include "dispatch/worker_protocol.h"

namespace dlcheck::dispatch {

std::optional<std::size_t> SeparatedFastest(const std::vector<std::optional<Spread>>& spreads) {
  std::optional<std::size_t> best;
  for (std::size_t i = 0; i < spreads.size(); ++i) {
    if (spreads[i] && (!best || spreads[i]->median < spreads[*best]->median)) best = i;
  }
  if (!best) return std::nullopt;
  for (std::size_t i = 0; i < spreads.size(); ++i) {
    if (i != *best && spreads[i] && !Separated(*spreads[i], *spreads[*best])) return std::nullopt;
  }
  return best;
}

Spread SamplesSpreadOf(const ConfigRuns& r) {
  if (!r.first().model) return {};
  const auto& res = r.first().model->results;
  if (!res.samples_per_s) return {};
  if (!res.samples_per_s_min || !res.samples_per_s_max || !res.timed_chunks) {
    return {.runs = 1,
            .median = *res.samples_per_s,
            .min = *res.samples_per_s,
            .max = *res.samples_per_s};
  }
  return {.runs = static_cast<std::size_t>(*res.timed_chunks),
          .median = *res.samples_per_s,
          .min = *res.samples_per_s_min,
          .max = *res.samples_per_s_max};
}

namespace {

// `value` over `base` where both are known (an unknown base: 0) and `base` is positive.
std::optional<double> Ratio(const std::optional<double>& value, double base) {
  if (!value || base <= 0) return std::nullopt;
  return *value / base;
}

// The configurations the per-key comparison covers: the caps and the scalar run.
bool Compared(const ConfigComparison& c) {
  return c.config.thread_set() == nullptr;
}

// The fastest cap of a key (see KeyComparison::fastest).
std::optional<std::size_t> FastestOf(const SweepComparison& c, const KeyComparison& key) {
  std::vector<std::optional<Spread>> spreads;
  std::optional<std::size_t> lowest;  // in caps
  for (std::size_t i = 0; i < c.caps.size(); ++i) {
    const std::optional<KeyCell>& cell = key.cells[c.caps[i]];
    if (!cell || !c.configs[c.caps[i]].succeeded) {
      spreads.emplace_back();
      continue;
    }
    spreads.push_back(SpreadOf(cell->cell.ms));
    if (!lowest || cell->cell.MedianMs() < key.cells[c.caps[*lowest]]->cell.MedianMs()) lowest = i;
  }
  const std::optional<std::size_t> fastest = c.model ? lowest : SeparatedFastest(spreads);
  if (!fastest) return std::nullopt;
  return c.caps[*fastest];
}

// The succeeded caps that ran `key` with the kernel of its fastest cap: the same implementation,
// where its name says the ISA (brgemm:avx512_core) or it is reference code (ref:any, the same
// C++ under every cap); jit:uni and gemm:jit choose their code under the cap, so never tie.
std::vector<std::size_t> TiedWith(const SweepComparison& c, const KeyComparison& key) {
  std::vector<std::size_t> tied;
  const SweepCell& fastest = key.cells[*key.fastest]->cell;
  if (!fastest.isa_named && !fastest.scalar) return tied;
  for (const std::size_t i : c.caps) {
    if (i == *key.fastest || !c.configs[i].succeeded || !key.cells[i]) continue;
    if (key.cells[i]->cell.implementation == fastest.implementation) tied.push_back(i);
  }
  return tied;
}

// The GFLOP/s of `s` over the peak of `threads` cores.
std::optional<double> PeakFraction(const verbose::PrimitiveStats& s,
                                   const std::optional<double>& peak, int threads) {
  const auto gflops = s.Gflops();
  if (!peak || !gflops || *peak <= 0) return std::nullopt;
  return *gflops / (*peak * threads);
}

void CompareKeys(const std::vector<ConfigRuns>& runs, double steps, SweepComparison& c) {
  std::vector<const ConfigRuns*> compared;
  for (const std::size_t i : c.caps) compared.push_back(&runs[i]);
  if (c.scalar) compared.push_back(&runs[*c.scalar]);  // scalar-only keys last
  c.keys = KeysOf(compared);
  std::vector<SweepCells> cells(runs.size());
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (Compared(c.configs[i])) cells[i] = CellsOf(runs[i]);
  }
  const SweepCells none;
  const SweepCells& scalar = c.scalar ? cells[*c.scalar] : none;
  const SweepCells& lowest = c.lowest() ? cells[*c.lowest()] : none;
  for (const PrimitiveKey& k : c.keys) {
    KeyComparison& key = c.by_key[k];
    key.cells.resize(runs.size());
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (!Compared(c.configs[i])) continue;
      const auto found = cells[i].find(k);
      if (found == cells[i].end()) continue;
      key.cells[i] =
          KeyCell{.cell = found->second,
                  .ms = found->second.MedianMs() / steps,
                  .speedup_vs_scalar = SpeedupOver(scalar, cells[i], k),
                  .speedup_vs_lowest =
                      runs[i].config.scalar() ? std::nullopt : SpeedupOver(lowest, cells[i], k)};
    }
    if (c.scalar && key.cells[*c.scalar]) key.scalar_ms = key.cells[*c.scalar]->ms;
    key.fastest = FastestOf(c, key);
    if (key.fastest) key.tied = TiedWith(c, key);
    if (key.fastest) {
      key.speedup_vs_scalar = key.cells[*key.fastest]->speedup_vs_scalar;
      key.speedup_vs_lowest = key.cells[*key.fastest]->speedup_vs_lowest;
    }
  }
}

void CompareRows(const ConfigRuns& r, double steps, const SweepComparison& c,
                 ConfigComparison& config, std::size_t index) {
  for (const verbose::PrimitiveStats& s : r.first().rows) {
    RowComparison row{.ms = s.exec_ms_total / steps,
                      .peak_fraction = PeakFraction(s, config.peak_gflops, config.threads)};
    const auto key = c.by_key.find(KeyOf(s));
    if (key != c.by_key.end() && key->second.cells[index]) {
      row.speedup_vs_scalar = key->second.cells[index]->speedup_vs_scalar;
      row.speedup_vs_lowest = key->second.cells[index]->speedup_vs_lowest;
    }
    config.rows.push_back(row);
  }
}

std::vector<std::size_t> SucceededOf(const SweepComparison& c,
                                     const std::vector<std::size_t>& indices) {
  std::vector<std::size_t> succeeded;
  for (const std::size_t i : indices) {
    if (c.configs[i].succeeded) succeeded.push_back(i);
  }
  return succeeded;
}

}  // namespace

std::vector<std::size_t> SweepComparison::RankedCaps() const {
  return SucceededOf(*this, caps);
}

std::vector<std::size_t> SweepComparison::RankedThreadSets() const {
  return SucceededOf(*this, thread_sets);
}

SweepComparison CompareSweep(const std::vector<ConfigRuns>& runs, int traced_steps) {
  const double steps = std::max(1, traced_steps);
  SweepComparison c;
  c.model = !runs.empty() && runs.front().first().model.has_value();
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const ConfigRuns& r = runs[i];
    std::vector<double> exec;
    for (const Run& run : r.runs) exec.push_back(run.summary.exec_ms);
    const Spread exec_spread = SpreadOf(std::move(exec));
    c.configs.push_back({.config = r.config,
                         .threads = ThreadsOf(r),
                         .succeeded = r.Succeeded(),
                         .exec_ms = exec_spread.median,
                         .exec_ms_min = exec_spread.min,
                         .exec_ms_max = exec_spread.max,
                         .samples_per_s = r.first().Number(result_key::kSamplesPerS),
                         .samples = SamplesSpreadOf(r),
                         .peak_gflops = PeakOf(r)});
    if (r.config.cap() != nullptr) c.caps.push_back(i);
    if (r.config.scalar() && !c.scalar) c.scalar = i;
    if (r.config.thread_set() != nullptr) c.thread_sets.push_back(i);
  }
  CompareKeys(runs, steps, c);

  const double scalar = c.scalar ? c.configs[*c.scalar].samples_per_s.value_or(0) : 0;
  const double lowest = c.lowest() ? c.configs[*c.lowest()].samples_per_s.value_or(0) : 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    ConfigComparison& config = c.configs[i];
    if (Compared(config)) {
      config.speedup_vs_scalar = Ratio(config.samples_per_s, scalar);
      if (!config.config.scalar()) config.speedup_vs_lowest = Ratio(config.samples_per_s, lowest);
    }
    CompareRows(runs[i], steps, c, config, i);
  }
  if (!c.thread_sets.empty()) {
    const ConfigComparison& first = c.configs[c.thread_sets.front()];
    for (const std::size_t i : c.thread_sets) {
      ConfigComparison& set = c.configs[i];
      set.speedup_vs_first_set = Ratio(set.samples_per_s, first.samples_per_s.value_or(0));
      if (set.speedup_vs_first_set && set.config.threads > 0) {
        set.efficiency = *set.speedup_vs_first_set * first.config.threads / set.config.threads;
      }
    }
  }
  return c;
}

}  // namespace dlcheck::dispatch
