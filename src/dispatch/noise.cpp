#include "dispatch/noise.h"

#include <algorithm>
#include <cmath>
#include <fstream>

namespace dlcheck::dispatch {

Spread SpreadOf(std::vector<double> values) {
  Spread s;
  s.runs = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  s.median = values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
  s.min = values.front();
  s.max = values.back();
  return s;
}

bool Separated(const Spread& a, const Spread& b) {
  if (a.runs < 2 || b.runs < 2) return false;
  return a.max < b.min || b.max < a.min;
}

std::optional<LoadAverage> ReadLoadAverage(const std::string& path) {
  std::ifstream in(path);
  LoadAverage load;
  if (!(in >> load.one >> load.five >> load.fifteen)) return std::nullopt;
  if (!std::isfinite(load.one) || load.one < 0) return std::nullopt;
  return load;
}

int IdleCpus(int cpus, const LoadAverage& load) {
  const int busy = static_cast<int>(std::lround(load.one));
  return std::max(1, cpus - busy);
}

}  // namespace dlcheck::dispatch
