#include "bench/bench_stats.h"

#include <algorithm>
#include <cmath>

namespace las::bench {

int64_t Percentile(const std::vector<int64_t>& sorted_ns, double p) {
  const double n = static_cast<double>(sorted_ns.size());
  auto rank = static_cast<size_t>(std::ceil(p / 100.0 * n));
  rank = std::clamp<size_t>(rank, 1, sorted_ns.size());
  return sorted_ns[rank - 1];
}

LatencySummary Summarize(std::vector<int64_t>& samples_ns) {
  LatencySummary s;
  if (samples_ns.empty()) return s;
  std::sort(samples_ns.begin(), samples_ns.end());
  double total = 0;
  for (int64_t v : samples_ns) total += static_cast<double>(v);
  s.count = samples_ns.size();
  s.mean_us = total / static_cast<double>(samples_ns.size()) / 1e3;
  s.p50_us = static_cast<double>(Percentile(samples_ns, 50)) / 1e3;
  s.p99_us = static_cast<double>(Percentile(samples_ns, 99)) / 1e3;
  s.max_us = static_cast<double>(samples_ns.back()) / 1e3;
  return s;
}

}  // namespace las::bench
